import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# tests/ mirrors the product: a folder each for the engine, the app, the
# device around it, the emulated Pico (board), the host tools, the simulator
# and the web page; the tests of every game and of the repository's own
# rules sit here.  Every test file has a name of its own (pytest imports it
# by that name), and every folder is on the path, so a test's helpers and
# fixtures serve the other folders' tests too (test_web's browser for the
# board's roster test): here, the rigs every folder shares (mpyrun, mpyhelp,
# conformance, ...), the MicroPython side in mpy/ and fakes/, the game
# scripts in sim_scripts/ and the goldens in golden/.
FOLDERS = ("engine", "app", "device", "board", "host", "sim", "web")
# Under `make mutate` the firmware's copy in the staged folder is read as
# files only: speedref is imported from mutmut's mutants (see below).
for p in (() if os.environ.get("SPEEDREF_MUTATE") else (ROOT / "firmware",)) + (
        ROOT, TESTS) + tuple(TESTS / d for d in FOLDERS) + (TESTS / "mpy",):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))


import pytest  # noqa: E402
import signal  # noqa: E402

# Several tests end a tool as a person does, with Ctrl-C (SIGINT), and wait
# for it to sum up.  A suite started as a background job of a shell script
# (`make test &`) inherits SIGINT ignored, and an ignored signal stays
# ignored across exec: every such tool would then run on to its idle limit
# (minutes) before the test goes on.  A handler of our own is reset to the
# default in each child at exec, so the tools hear Ctrl-C again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# `make mutate` (tools/mutate.py, docs/testing.md) runs these tests against
# each mutant of the engine: hypothesis then draws the same examples every
# run, keeps no example database and has no deadline, so that only a changed
# rule fails a test, never a slow machine or an example remembered from
# another run.  The MicroPython checks skip there: they run the firmware's
# own files, not the mutant.
if os.environ.get("SPEEDREF_MUTATE"):
    from hypothesis import settings as _settings
    _settings.register_profile("mutate", derandomize=True, database=None, deadline=None)
    _settings.load_profile("mutate")

    import mpyrun as _mpyrun

    def _no_micropython(*args, **kwargs):
        pytest.skip("MicroPython runs the unmutated firmware: not under mutation")
    _mpyrun.run = _no_micropython
    import speedref  # noqa: F401  (the mutants' copy, before sim/ puts firmware/ on sys.path)

# CPython has no `framebuf`: the simulator's shim (pixel-exact, MicroPython's own
# font extracted from the Unix port) stands in, as it does in the simulator.
try:
    import framebuf  # noqa: F401
except ImportError:
    try:
        from sim import compat as _compat
        _compat.install(firmware_path=not os.environ.get("SPEEDREF_MUTATE"))
    except ImportError:
        pass


@pytest.fixture
def rig(tmp_path):
    """The referee app on a fake board (tests/mpy/app_rig.py Rig): its store
    in the test's own folder, buttons pressed with tap/hold, time moved by
    hand.  A test module with its own kind of rig declares its own."""
    from app_rig import Rig
    return Rig(str(tmp_path))


@pytest.hookimpl(tryfirst=True)  # before a shuffle that was asked for (--random-order-bucket)
def pytest_collection_modifyitems(config, items):
    """The longest tests first (marked long: a minute or more of emulated
    board), then the emulated Pico's, then the web page's, then the rest,
    each kind in its files' order: under pytest-xdist (make test) the
    longest work starts first and the many short tests fill the cores at
    the end, instead of one board test starting last on one core while the
    other has nothing left to do."""
    def kind(item):
        if item.get_closest_marker("long"):
            return 0
        if item.get_closest_marker("board"):
            return 1
        if item.get_closest_marker("web"):
            return 2
        return 3
    items.sort(key=kind)  # stable: the order within each kind stays
