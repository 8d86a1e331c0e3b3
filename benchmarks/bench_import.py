"""speedref-results import of a big USB capture: time and peak memory.

    .venv/bin/python benchmarks/bench_import.py [--mb 1,4,16,100]

Each size is a capture as a busy club's evening leaves it, written to a
temporary folder: the board's deal lines (most of the bytes), 20 finished
Speed matches with their slap verdicts spread through it, and a few lines of
noise.  Each size is imported in a process of its own into a new database
in that folder, through the importer (host_tools.intake.importer, speedref-results
import's code), and printed: the size, the seconds taken and the process's
peak resident size (getrusage maxrss, the whole child's peak: Python, the
engine and SQLite included).  --tracemalloc also prints the peak of Python's
own allocations during the import (it slows the import down several times).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "firmware"), str(ROOT), str(ROOT / "compat")]

from host_fixtures import speed_match  # noqa: E402
from host_tools.intake import importer  # noqa: E402
from host_tools.club.db import ResultsDB  # noqa: E402

RECORDS = 20


def line(obj):
    return (json.dumps(obj) + "\n").encode()


def write_capture(path, mb):
    """A capture of about `mb` megabytes: deal lines, RECORDS games with slaps."""
    want = mb * 1024 * 1024
    games = [speed_match(seed, ident="bench-%d" % seed) for seed in range(RECORDS)]
    per_game = want // RECORDS
    written = 0
    with open(path, "wb") as f:
        f.write(b"MicroPython v1.28.0 on 2026-01-01; Raspberry Pi Pico with RP2040\r\n")
        f.write(line({"ev": "boot", "board": "pico", "capture": "pio"}))
        for g, rec in enumerate(games):
            deal = 0
            target = per_game * (g + 1)
            while written < target:
                deal += 1
                chunk = line({"ev": "deal", "game": "speed", "deal": deal, "winner": deal % 2,
                              "left": deal % 11, "scores": [deal, deal + 1]})
                f.write(chunk)
                written += len(chunk)
                if deal % 5000 == 0:
                    f.write(b"\xff\xfe noise on the line\r\n")
            n = len(rec["deals"])
            f.write(line({"ev": "slap", "game": "speed", "kind": "out", "deal": n, "winner": 0, "tie": [],
                          "margin_us": 1200 + g, "presses": [0, 1], "false_starts": []}))
            f.write(line({"ev": "game_end", "record": rec}))
    return os.path.getsize(path)


def measure(folder, mb, trace=False):
    cap = os.path.join(folder, "capture-%dmb.log" % mb)
    size = write_capture(cap, mb)
    db = ResultsDB(os.path.join(folder, "bench-%d.db" % mb), write=True)
    said = []
    try:
        if trace:
            tracemalloc.start()
        t = time.perf_counter()
        status = importer.run(db, [cap], "bench", out=said.append, err=lambda text: None)
        took = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1] if trace else None
        tracemalloc.stop()
        stored = db.count_games()
    finally:
        db.close()
        os.remove(cap)
    return size, took, peak, stored, status


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", default="1,4,16,100", help="capture sizes in MB, comma separated")
    ap.add_argument("--tracemalloc", action="store_true", help="also the peak of Python's allocations")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)       # the child process: one size
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        size, took, peak, stored, status = measure(args.folder, args.one, args.tracemalloc)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss   # KB on Linux
        print("%8.1f %9.2f %10.1f MB %s %6d%s" % (
            size / 2 ** 20, took, rss / 1024, "%11.1f MB" % (peak / 2 ** 20) if peak is not None else "%14s" % "-",
            stored, "" if status == 0 else "  (exit %d)" % status))
        return
    with tempfile.TemporaryDirectory() as folder:
        print("%8s %9s %13s %14s %6s" % ("MB", "seconds", "max RSS", "peak alloc", "games"))
        sys.stdout.flush()
        for mb in [int(x) for x in args.mb.split(",")]:
            subprocess.run([sys.executable, __file__, "--one", str(mb), "--folder", folder]
                           + (["--tracemalloc"] if args.tracemalloc else []), check=True)


if __name__ == "__main__":
    main()
