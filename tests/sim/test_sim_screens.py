"""Known screens rendered to PNG by the simulator equal the committed reference
images in tests/golden/screens/.  The app's own screens
change when the app changes on purpose: look at the new PNGs, then rewrite
the references with `.venv/bin/python -m tools.goldens`."""
import pytest

from sim import oled
from tools import goldens


@pytest.mark.parametrize("name", sorted(goldens.SCREENS))
def test_screen_png_matches_reference(name, tmp_path):
    ref = goldens.GOLDEN / (name + ".png")
    assert ref.exists(), "missing reference %s: run python -m tools.goldens" % ref
    out = tmp_path / (name + ".png")
    oled.save_png(goldens.SCREENS[name](), out)
    from PIL import Image, ImageChops
    a = Image.open(out).convert("RGB")
    b = Image.open(ref).convert("RGB")
    assert a.size == b.size == (128, 64)
    diff = ImageChops.difference(a, b).getbbox()
    assert diff is None, ("%s differs from its reference in box %r (if the change is intended, "
                          "regenerate: python -m tools.goldens)" % (name, diff))


def test_reference_font_sheet_shows_micropython_glyphs():
    """The committed font sheet's first row holds ' ' .. '/' from the real font."""
    from sim import font8x8
    frame = oled.from_image(goldens.GOLDEN / "font_sheet.png")
    i = (ord("!") - 32) * 8
    assert frame[8:16] == font8x8.FONT[i:i + 8]
