"""Engine benchmark: full games per second on CPython and MicroPython, and the
heap a full Long Speed Run game and a full Speed match need on MicroPython.

    .venv/bin/python benchmarks/bench_engine.py [--games N]

MicroPython runs the .mpy files from build/mpy (`make mpy` first).  Heap figures:
- live peak: the high-water mark of gc.mem_alloc() after a collection, sampled at
  every game event (64-bit Unix port, so about twice a 32-bit board's bytes);
- smallest heap: the smallest `-X heapsize=NwK` (N K-words: N KB of a 32-bit
  board's objects) with which the game completes, found by bisection.
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MP = Path(sys.executable).parent / "micropython"
SCRIPT = ROOT / "benchmarks" / "engine_games.py"
sys.path.insert(0, str(ROOT / "firmware"))
from speedref.games import IDS as GAMES  # noqa: E402


def run_mp(args, heap="256wK"):
    env = dict(os.environ, MICROPYPATH="%s:%s" % (ROOT / "build" / "mpy", ROOT / "tests" / "mpy"))
    return subprocess.run([str(MP), "-X", "heapsize=" + heap, str(SCRIPT), *args],
                          capture_output=True, text=True, env=env, cwd=ROOT)


def run_cpy(args):
    env = dict(os.environ, PYTHONPATH="%s:%s" % (ROOT / "firmware", ROOT / "tests" / "mpy"))
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          env=env, cwd=ROOT)


def rate(r):
    if r.returncode:
        raise SystemExit(r.stderr)
    _, n, ms, peak = r.stdout.split()
    return int(n) * 1000.0 / max(1, int(ms)), int(peak)


def smallest_heap(game):
    lo, hi = 4, 256  # K-words
    if run_mp([game, "1"], "%dwK" % hi).returncode:
        return None
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if run_mp([game, "1"], "%dwK" % mid).returncode == 0:
            hi = mid
        else:
            lo = mid
    return hi


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20)
    n = str(ap.parse_args().games)
    print("%-10s %14s %16s" % ("game", "CPython games/s", "MicroPython games/s"))
    for g in GAMES:
        c, _ = rate(run_cpy([g, n]))
        m, _ = rate(run_mp([g, n]))
        print("%-10s %14.1f %16.1f" % (g, c, m))
    print()
    print("MicroPython heap, one full game (seed 1), .mpy loaded:")
    for g, label in (("speedrun", "Long Speed Run"), ("speed", "Speed match")):
        _, peak = rate(run_mp([g, "1", "peak"]))
        print("  %-15s live peak %6d bytes (64-bit port), smallest heap %s" % (
            label, peak, "%dwK" % smallest_heap(g)))


if __name__ == "__main__":
    main()
