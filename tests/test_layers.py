"""The firmware's layers (docs/architecture.md, "The layers"): every import
points down.  The app never imports the hardware edge, the menu never imports
the app's core (the app calls the menu, the menu calls the app's public
methods on the instance it is given), and what every screen shares
(app/ui.py: the buttons, the cues, the Screen base, drawing) imports nothing
of speedref but the accented letters' module (app/accents.py, which imports
ui and the glyph table, app/glyphs.py, which imports nothing), so the app,
the menu and the flows can all import it."""
from pathlib import Path

from host_tools.build import imports

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
APP = FIRMWARE / "speedref" / "app"


def _speedref_imports(path):
    return {n for n in imports(path.relative_to(FIRMWARE)) if n.startswith("speedref")}


def test_the_menu_imports_ui_and_the_registry_never_the_core():
    got = _speedref_imports(APP / "menu.py")
    assert not {n for n in got if n.startswith("speedref.app.core")}, got
    assert "speedref.app.ui" in got and "speedref.games" in got


def test_ui_imports_nothing_of_speedref_but_the_accented_letters():
    assert _speedref_imports(APP / "ui.py") - {"speedref.app"} == {"speedref.app.accents"}  # `from . import accents`
    assert _speedref_imports(APP / "accents.py") - {"speedref.app"} == {
        "speedref.app.ui", "speedref.app.glyphs", "speedref.app.ui.ptr8", "speedref.app.glyphs.GLYPHS"}
    assert _speedref_imports(APP / "glyphs.py") == set()


def test_the_app_never_imports_the_hardware():
    bad = {}
    for path in sorted(APP.glob("*.py")):
        hw = {n for n in _speedref_imports(path) if n.startswith("speedref.hw") or n == "speedref.device"}
        if hw:
            bad[path.name] = sorted(hw)
    assert not bad, bad


def test_the_menu_uses_only_the_apps_public_methods():
    """menu.py reaches the app only through its public names (app.resume,
    app.discard, ...), never one with a leading underscore."""
    import re
    src = (APP / "menu.py").read_text(encoding="utf-8")
    assert not re.findall(r"\bapp\._\w+", src), re.findall(r"\bapp\._\w+", src)
