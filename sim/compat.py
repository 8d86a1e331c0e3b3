"""Make the board's modules importable on CPython.

The firmware imports `framebuf`, which only MicroPython has.  `install()` puts
the simulator's byte-exact shim (sim/framebuf.py) in `sys.modules["framebuf"]`
when no real one exists; the simulator and the tests call it before they
import the app.  It never replaces a real framebuf (under MicroPython, or a
CPython that somehow has one).

It also makes `import micropython` find compat/micropython.py on CPython, even
where another package of that name is installed (the board stubs bring
Adafruit's, whose `viper` raises SyntaxError): app/ui.py's viper function
runs as plain Python here.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
COMPAT_MICROPYTHON = ROOT / "compat" / "micropython.py"


def install(firmware_path=True):
    """Provide `framebuf` and (optionally) put firmware/ on sys.path so that
    `import speedref` finds the board's code.  Safe to call more than once."""
    if sys.implementation.name != "micropython":
        m = sys.modules.get("micropython")
        if m is None or getattr(m, "__file__", None) != str(COMPAT_MICROPYTHON):
            import importlib.util
            spec = importlib.util.spec_from_file_location("micropython", COMPAT_MICROPYTHON)
            m = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(m)
            sys.modules["micropython"] = m
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
