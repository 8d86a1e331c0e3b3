"""A host flooding the board's USB console: board time and instructions a byte.

    .venv/bin/python benchmarks/bench_console_flood.py [--kb 64]

The emulated Pico (stock rp2 firmware, speedref installed as .mpy) boots to a
Speed game's layout screen; then one line of --kb KB of "x" and its newline
go down the USB, and the board runs until its `line too long` error line.
Prints the board time and the CPU instructions that took, a byte (the
emulator counts instructions: the same figure on a loaded machine), and the
wall time (which is not).  The board time includes the 100 ms the host
waits after sending and the 50 ms steps in which it looks for the error
line, under 0.2 % of a 64 KB line.  Needs the board images (docs/emulator.md).
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "board"), str(ROOT)]

import conftest  # noqa: E402,F401  (the compat modules and the firmware on the path)
from test_board_console import P1, Referee, send, start_speed, tap, wait_errors  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", type=int, default=64, help="the line's length in KB (default 64)")
    args = ap.parse_args(argv)
    size = args.kb * 1024
    ref = Referee()
    try:
        start_speed(ref)
        tap(ref, P1)  # LAYOUT -> READY: a game in play
        before = ref.pico.state()["instructions"]
        ns0, t0 = ref.pico.ns, time.perf_counter()
        send(ref, b"x" * size + b"\n", settle_ms=100, chunk=1 << 16)
        got = wait_errors(ref, 0, 1, limit_ms=600000)
        wall = time.perf_counter() - t0
        instr = ref.pico.state()["instructions"] - before
        board_us = (ref.pico.ns - ns0) / 1000
    finally:
        ref.close()
    if [e["msg"] for e in got] != ["line too long"]:
        print("no 'line too long' error line: %r" % got)
        return 1
    print("console flood: %d KB line, board %.0f ms (%.1f us a byte), %d instructions a byte, wall %.1f s"
          % (args.kb, board_us / 1000, board_us / size, instr // size, wall))
    return 0


if __name__ == "__main__":
    sys.exit(main())
