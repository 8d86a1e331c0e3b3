"""Compile just the firmware modules a test needs with the real mpy-cross, into a
private directory that goes first on MICROPYPATH (so a half-finished module of
another engineer cannot break these tests, and nothing shared is rebuilt)."""
import subprocess
from pathlib import Path

from host_tools.board.build import HOST_ARCH, mpy_cross_path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"

HW_MODULES = [
    "speedref/__init__.py", "speedref/ticks.py", "speedref/tunables.py", "speedref/engine/__init__.py",
    "speedref/engine/errors.py", "speedref/hw/__init__.py", "speedref/hw/ring.py",
    "speedref/hw/capture.py", "speedref/hw/board_pico.py", "speedref/hw/board_esp32.py",
    "speedref/hw/boards.py", "speedref/hw/buzzer.py", "speedref/hw/display.py", "speedref/hw/leds.py",
    "speedref/inputs.py", "speedref/arbiter.py", "speedref/storage.py", "speedref/log.py",
    "speedref/device.py", "speedref/wiring.py",
]


# What the referee app loads (any game), and then what one game adds: one list,
# so a module added to the app reaches every test that compiles the app.
APP_CORE = [
    "speedref/__init__.py", "speedref/games.py", "speedref/ticks.py", "speedref/tunables.py",
    "speedref/storage.py", "speedref/names.py",
    "speedref/log.py", "speedref/engine/__init__.py", "speedref/engine/errors.py", "speedref/arbiter.py",
    "speedref/app/__init__.py", "speedref/app/core.py", "speedref/app/ui.py",
    "speedref/app/menu.py", "speedref/app/timing.py", "speedref/match.py", "speedref/app/match_menu.py",
]


def app_modules(game):
    """The modules the app runs `game` with: the core, its flow and its table
    level, as the game registry names them."""
    from speedref import games
    g = games.get(game)
    return APP_CORE + [games.module(g.flow, "speedref.app").replace(".", "/") + ".py",
                      games.module(g.engine, "speedref.engine").replace(".", "/") + ".py"]


def compile_modules(out_dir, modules=HW_MODULES):
    out_dir = Path(out_dir)
    mpyc = mpy_cross_path()
    for rel in modules:
        src = FIRMWARE / rel
        if not src.exists():
            raise FileNotFoundError("firmware/%s does not exist (a stale module list?)" % rel)
        dest = out_dir / Path(rel).with_suffix(".mpy")
        dest.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([mpyc, HOST_ARCH, "-s", rel, "-o", str(dest), str(src)], check=True,
                       capture_output=True, text=True)
    return out_dir


def one_install(lines):
    """Log lines (dicts) with every game_end record id's install part (8
    random hex digits, new with every fresh store: speedref/storage.py) made
    "INSTALL", and so the default table name made of it, so two runs of the same games compare equal."""
    import re
    out = []
    for line in lines:
        if line.get("ev") in ("game_end", "stored"):
            rec = dict(line["record"])
            rec["id"] = re.sub(r"-[0-9a-f]{8}-([0-9]+)$", r"-INSTALL-\1", rec["id"])
            if isinstance(rec.get("table"), str):  # a store's default table name is its install's
                rec["table"] = re.sub(r"^Table [0-9a-f]{8}$", "Table INSTALL", rec["table"])
            line = dict(line, record=rec)
        out.append(line)
    return out


def texts_drawn(draw):
    """The small-text lines (fb.text) that draw(fb) puts on a 128x64 frame
    buffer, in order: what a screen or a flow says, for tests of its words."""
    import framebuf
    fb = framebuf.FrameBuffer(bytearray(1024), 128, 64, framebuf.MONO_VLSB)
    texts = []

    class Spy:
        def __getattr__(self, name):
            return getattr(fb, name)

        def text(self, s, x, y, c=1):
            texts.append(s)
            fb.text(s, x, y, c)

    draw(Spy())
    return texts
