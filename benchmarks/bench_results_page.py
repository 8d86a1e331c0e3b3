"""The results page (speedref-results --html): how long it takes to make and
how big it is, for a club's evening and for a season in one database.

    .venv/bin/python benchmarks/bench_results_page.py [--evenings 1,30,75]

Each evening is tests/results_sample.py's: the committed sim scripts played at
three boards (14 games), logged through speedref-log's line core; a season is
the same evening again and again under new record ids.  Printed per size:
games, the page's bytes, the time to build it (best of 3; the database read,
every record replayed, the charts drawn and the template rendered) and the
time --serve takes to answer when nothing new was stored (the page it made
last time).
"""
import argparse
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "firmware"), str(ROOT), str(ROOT / "compat")]

import results_sample as sample  # noqa: E402
from host_tools.views import results_page  # noqa: E402
from host_tools.club.db import ResultsDB  # noqa: E402


def season(db_path, evenings):
    """`evenings` evenings at each board, one after the other."""
    for dev, games in sample.EVENING.items():
        sample.feed(db_path, sample.board_lines(dev, games * evenings))


def measure(db_path):
    best = None
    for _ in range(3):
        db = ResultsDB(db_path)
        try:
            t = time.perf_counter()
            text, _ = results_page.render(db, "season.db")
            took = time.perf_counter() - t
            n = db.count_games()
        finally:
            db.close()
        best = took if best is None else min(best, took)
    srv = results_page.make_server(lambda: ResultsDB(db_path), "season.db", port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = "http://127.0.0.1:%d/" % srv.server_address[1]
        urllib.request.urlopen(url, timeout=120).read()        # made once
        t = time.perf_counter()
        for _ in range(10):
            urllib.request.urlopen(url, timeout=120).read()
        again = (time.perf_counter() - t) / 10
    finally:
        srv.shutdown()
        srv.server_close()
    return n, len(text.encode("utf-8")), best, again


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--evenings", default="1,30,75", help="sizes to measure, in evenings (14 games each)")
    args = ap.parse_args()
    print("%7s  %10s  %10s  %14s" % ("games", "page bytes", "build ms", "served again ms"))
    for k in (int(x) for x in args.evenings.split(",")):
        with tempfile.TemporaryDirectory() as d:
            db = Path(d) / "season.db"
            season(db, k)
            n, size, build, again = measure(db)
        print("%7d  %10d  %10.0f  %14.1f" % (n, size, build * 1000, again * 1000), flush=True)


if __name__ == "__main__":
    main()
