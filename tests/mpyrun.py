"""Run code under the real MicroPython Unix port (from the pinned PyPI package).

MICROPYPATH puts, in order: tests/fakes (a fake `machine` and friends), the
firmware (compiled .mpy from `make mpy`, or the source tree), tests/mpy (test
drivers that run on both runtimes).
"""
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MICROPYTHON = Path(sys.executable).parent / "micropython"
MPY_BUILD = ROOT / "build" / "mpy"
FAKES = ROOT / "tests" / "fakes"
SUPPORT = ROOT / "tests" / "mpy"


# The referee's heap under the Unix port, for the app and device tests: 66wK
# (132 KB on this 64-bit port, where the compiled firmware itself sits in
# the heap and every object is twice a Pico's).  64wK was enough until Speed
# took up to 4 players and the store learned to make room on a full flash,
# 65wK until a tie's re-slap and the order of out-claim answers (SP-33, SP-34)
# grew Speed's flow: 100 games in a row then ran out at their 49th start.
# 76wK since the players' names (the name check stays loaded with an .mpy
# install), the table's name in each record and the Wi-Fi uplink's hooks: at
# 70wK a Speed flow's import ran out; on a Pico the same code is frozen.
# A Pico holds the code frozen in flash; its heap is tests/board/test_board_heap.py's.
DEVICE_WK = 76
DEVICE_HEAP = "%dwK" % DEVICE_WK


def short_root():
    """The checkout under a name of one fixed length (a symlink in the temp
    folder), for MicroPython's path.  Every module's file name, and every
    name tried on the way to it, is built in the heap from the path: a
    checkout at /work/wt/speedflow instead of /work/main moved the 64wK
    heap's layout enough to fail a Long Speed Run.  The heap a test sees
    must not depend on where the repository was cloned."""
    tmp = tempfile.gettempdir()
    digest = hashlib.sha1(str(ROOT).encode()).hexdigest()
    for i in range(0, len(digest) - 4):
        link = os.path.join(tmp, "s" + digest[i:i + 4])
        try:
            os.symlink(ROOT, link)
        except FileExistsError:
            pass
        try:
            if Path(os.readlink(link)) == ROOT:
                return Path(link)
        except OSError:
            pass  # not a symlink: someone else's file; try the next name
    return ROOT


def _short(p):
    """`p` under short_root() when it lies in the checkout."""
    p = Path(p)
    try:
        return short_root() / p.resolve().relative_to(ROOT)
    except ValueError:
        return p


def micropath(use_mpy=True, extra=()):
    fw = MPY_BUILD if use_mpy else ROOT / "firmware"
    parts = [str(_short(p)) for p in list(extra) + [FAKES, fw, SUPPORT]]
    return ":".join(parts)


def run(code=None, script=None, args=(), heap="64wK", use_mpy=True, extra_path=(),
        timeout=600, check=True, stdin=None):
    """Run `code` (a string) or `script` (a path) and return the CompletedProcess.

    With check=True a non-zero exit fails with MicroPython's own traceback.
    stdin: a path whose bytes are the program's sys.stdin (default: none).
    """
    if use_mpy and not MPY_BUILD.exists():
        raise RuntimeError("build/mpy is missing: run `make mpy` (make test does)")
    cmd = [str(MICROPYTHON), "-X", "heapsize=" + heap]
    cmd += ["-c", code] if code is not None else [str(_short(script))]
    cmd += list(args)
    env = dict(os.environ, MICROPYPATH=micropath(use_mpy, extra_path))
    if stdin is not None:
        with open(stdin, "rb") as f:
            r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                               cwd=ROOT, stdin=f)
    else:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                           cwd=ROOT, stdin=subprocess.DEVNULL)
    if check and r.returncode != 0:
        raise AssertionError("micropython failed (%d):\n%s\n%s" % (r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
    return r
