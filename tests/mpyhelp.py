"""Compile just the firmware modules a test needs with the real mpy-cross, into a
private directory that goes first on MICROPYPATH (so a half-finished module of
another engineer cannot break these tests, and nothing shared is rebuilt)."""
import subprocess
from pathlib import Path

from host_tools.build import mpy_cross_path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"

HW_MODULES = [
    "speedref/__init__.py", "speedref/ticks.py", "speedref/engine/__init__.py",
    "speedref/engine/errors.py", "speedref/hw/__init__.py", "speedref/hw/ring.py",
    "speedref/hw/capture.py", "speedref/hw/board_pico.py", "speedref/hw/board_esp32.py",
    "speedref/hw/boards.py", "speedref/hw/buzzer.py", "speedref/hw/display.py",
    "speedref/inputs.py", "speedref/arbiter.py", "speedref/storage.py", "speedref/log.py",
    "speedref/device.py",
]


def compile_modules(out_dir, modules=HW_MODULES):
    out_dir = Path(out_dir)
    mpyc = mpy_cross_path()
    for rel in modules:
        src = FIRMWARE / rel
        if not src.exists():
            continue
        dest = out_dir / Path(rel).with_suffix(".mpy")
        dest.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([mpyc, "-s", rel, "-o", str(dest), str(src)], check=True,
                       capture_output=True, text=True)
    return out_dir
