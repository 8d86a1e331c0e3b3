"""Make the board's modules importable on CPython.

The firmware imports `framebuf`, which only MicroPython has.  `install()` puts
the simulator's byte-exact shim (sim/framebuf.py) in `sys.modules["framebuf"]`
when no real one exists; the simulator and the tests call it before they
import the app.  It never replaces a real framebuf (under MicroPython, or a
CPython that somehow has one).
"""
import sys
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"


def install(firmware_path=True):
    """Provide `framebuf` and (optionally) put firmware/ on sys.path so that
    `import speedref` finds the board's code.  Safe to call more than once."""
    if "framebuf" not in sys.modules:
        try:
            import framebuf  # noqa: F401  (a real one wins)
        except ImportError:
            from sim import framebuf as shim
            sys.modules["framebuf"] = shim
    if firmware_path and str(FIRMWARE) not in sys.path:
        # An installed speedref package (pip install -e .) works as well; the
        # source tree first keeps the simulator on exactly the code in firmware/.
        sys.path.insert(0, str(FIRMWARE))
