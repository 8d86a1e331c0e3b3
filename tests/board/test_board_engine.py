"""The engine's golden transcripts replayed on the emulated Pico.

MicroPython's own rp2 firmware (RP2040, Cortex-M0+) runs the card-level game
models and the golden drivers (tests/mpy/play_*.py), compiled for the board
with mpy-cross -march=armv6m and put on its littlefs volume next to the
install speedref-flash makes (which leaves the card-level modules out: the
app never imports them).  Each transcript must come out byte-identical to
the committed golden file, which the CPython replay also produces: one
seeded game per kind (Speed match, Spit, Speed Run, partners).  The frozen
image carries the card-level modules frozen in (firmware/manifest.py
freezes the whole package): one replay there too, from frozen bytecode.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from board_rig import at_repl, needs_board

pytestmark = [pytest.mark.board, needs_board]

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
SUPPORT = ROOT / "tests" / "mpy"
DRIVERS = ("speed_golden", "spit_golden", "speedrun_golden", "partners_golden")

# (golden file, driver, the call that prints the transcript line by line)
CASES = [
    ("speed_2.txt", "speed_golden", "play(2, out=print)"),
    ("speed_14_4.txt", "speed_golden", "play(14, 4, print)"),
    ("spit_1.txt", "spit_golden", "play(1, print)"),
    ("speedrun_3_short.txt", "speedrun_golden", "play(3, 'short', print)"),
    ("partners_1.txt", "partners_golden", "play(1, 100, print)"),
]


def _mpy(src, board_path):
    """One source file compiled for the RP2040 as speedref-flash compiles."""
    from host_tools.board.build import mpy_cross_path
    with tempfile.TemporaryDirectory(prefix="speedref-board-mpy-") as d:
        out = Path(d) / "out.mpy"
        subprocess.run([mpy_cross_path(), "-march=armv6m", "-s", board_path, "-o", str(out), str(src)],
                       check=True, capture_output=True, text=True)
        return out.read_bytes()


def engine_files():
    """The card level speedref-flash leaves on the laptop (the *_cards models
    and what only they import), and the golden drivers, as {board path:
    .mpy bytes}."""
    from host_tools.board import build, flash
    sources = [rel for rel in build.firmware_sources() if rel.suffix == ".py"]
    files = {}
    for rel in sorted(flash.card_level(sources, build.FIRMWARE)):  # *_cards, cards, rng ...
        files["/" + rel.with_suffix(".mpy").as_posix()] = _mpy(build.FIRMWARE / rel, rel.as_posix())
    for name in DRIVERS:
        files["/lib/%s.mpy" % name] = _mpy(SUPPORT / (name + ".py"), name + ".py")
    return files


def replay(pico, driver, call):
    """The transcript a driver prints on the board, in a fresh module
    namespace (each replay imports its driver anew)."""
    code = ("import sys, gc\n"
            "sys.modules.pop(%r, None)\n"
            "gc.collect()\n"
            "from %s import play\n"
            "%s\n" % (driver, driver, call))
    out = pico.exec(code, timeout_us=600000000)
    return out.replace("\r\n", "\n")


@pytest.fixture(scope="module")
def pico():
    from emu import fs as emu_fs
    p = at_repl(emu_fs.speedref_files(engine_files()))
    yield p
    p.close()


@pytest.mark.parametrize("golden,driver,call", CASES, ids=[c[0][:-4] for c in CASES])
def test_golden_transcript_byte_identical_on_the_pico(pico, golden, driver, call):
    expected = (GOLDEN / golden).read_text()
    got = replay(pico, driver, call)
    assert got == expected


def test_cpython_gives_the_same_transcripts():
    """The reference the board is held to: CPython's replay is the golden file."""
    sys.path.insert(0, str(SUPPORT))
    try:
        import importlib
        for golden, driver, call in CASES:
            mod = importlib.import_module(driver)
            lines = []
            eval(call.replace("print", "lines.append"), {"play": mod.play, "lines": lines})
            assert "\n".join(lines) + "\n" == (GOLDEN / golden).read_text(), golden
    finally:
        sys.path.remove(str(SUPPORT))


def test_golden_transcript_from_the_frozen_image():
    """speedref-pico-RPI_PICO.uf2: the card-level modules run from frozen bytecode;
    only the driver is a file."""
    from emu import fs as emu_fs
    from emu import images
    files = emu_fs.main_only()
    files["/lib/partners_golden.mpy"] = _mpy(SUPPORT / "partners_golden.py", "partners_golden.py")
    p = at_repl(files, firmware=images.frozen_firmware())
    try:
        where = p.exec("from speedref.engine import partners_cards\nprint(partners_cards.__file__)\n")
        assert not where.strip().startswith("/"), where  # frozen, not a file on the volume
        assert replay(p, "partners_golden", "play(1, 100, print)") == (GOLDEN / "partners_1.txt").read_text()
    finally:
        p.close()
