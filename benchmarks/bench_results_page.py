"""The results pages: how big they are and how long they take to make.

    .venv/bin/python benchmarks/bench_results_page.py [--games 1000,5000,20000,100000] [--runs 5]
                                                      [--evenings 1,30,75] [--keep DIR]

1. The served first screen (speedref-results --serve, host_tools/views/site.py)
   and the pages it links to, for a season of --games games
   (tests/season_sample.py: 40 people at 20 tables, Speed matches, tonight's
   evening paired).  Per size: the first screen's bytes (as made, and
   gzipped as a phone is sent it), the time to make it (the median and the
   best of --runs, each from one snapshot of the database, as the server
   makes it once per change), the time --serve takes to answer it when
   nothing changed (the page it made, over HTTP), and the median time to
   make each page a reader opens from it.  Then the one-file page of
   tonight (`--html --evening`) at that size.
2. The one-file page of every game (`--html`), for a club's evenings
   (--evenings: tests/results_sample.py's evening of 14 games, again and
   again under new ids): bytes and the time to make it (best of 3).
The ratings due are kept before the timing (the server keeps them once a
change: ratings.settle), so the figures are a page's own work.  --keep DIR
keeps each season's database to use again (made in ~1 minute a 20,000).
"""
import argparse
import gzip
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "firmware"), str(ROOT), str(ROOT / "compat")]

import results_sample as sample  # noqa: E402
import season_sample  # noqa: E402
from host_tools.club import evening, ratings  # noqa: E402
from host_tools.club.db import ResultsDB  # noqa: E402
from host_tools.views import results_page, site  # noqa: E402

PAGES = ["/standings/speed", "/ratings/speed", "/tables/speed", "/players", "/player/ada", "/games",
         "/games?page={last}", "/game/{game}", "/evening/1"]


def made(db, s, path, runs):
    """[seconds] to make page `path`, `runs` times, each in one snapshot."""
    key, make = s.route(*(path.split("?", 1) + [""])[:2])
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        with db.snapshot():
            status, body, _, _ = make(db, "bench-1")
        out.append(time.perf_counter() - t)
        assert status == 200, (path, body[:200])
    return out, body


def served_again(db_path):
    """ms for --serve to answer "/" when nothing changed (the median of 20)."""
    srv = site.make_server(lambda: ResultsDB(db_path), "season.db", port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = "http://127.0.0.1:%d/" % srv.server_address[1]
        urllib.request.urlopen(url, timeout=300).read()        # made once
        times = []
        for _ in range(20):
            t = time.perf_counter()
            urllib.request.urlopen(urllib.request.Request(url, headers={"Accept-Encoding": "gzip"}), timeout=60).read()
            times.append(time.perf_counter() - t)
    finally:
        srv.shutdown()
        srv.server_close()
    return statistics.median(times) * 1000


def season(folder, games, runs):
    db_path = season_sample.database(folder, games, evening=True)
    db = ResultsDB(db_path)
    try:
        ratings.settle(db)
        s = site.Site("season.db")
        times, body = made(db, s, "/", runs)
        gz = len(gzip.compress(body, 6))
        print("%8d  %9d  %8d  %9.0f  %8.0f  %10.1f" % (games, len(body), gz, statistics.median(times) * 1000,
                                                        min(times) * 1000, served_again(db_path)), flush=True)
        some, count = db.query("SELECT MAX(game_ref), COUNT(*) FROM game_summary WHERE counted")[0]
        others = []
        for path in PAGES:
            path = path.format(game=some, last=-(-count // site.GAMES_ROWS))
            t, page = made(db, s, path, 3)
            others.append("%s %.0f ms %d KB" % (path, statistics.median(t) * 1000, len(page) // 1024))
        print("          pages: " + "; ".join(others), flush=True)
        t = time.perf_counter()
        with db.snapshot():
            text, data = results_page.render_page(db, "season.db", span=results_page.Span(
                evening=evening.find(db)), evening=evening.find(db))
        print("          --html --evening: %d games, %d bytes in %.0f ms" % (
            data["count"], len(text.encode("utf-8")), (time.perf_counter() - t) * 1000), flush=True)
    finally:
        db.close()


def whole_file(evenings):
    with tempfile.TemporaryDirectory() as d:
        db_path = Path(d) / "season.db"
        for dev, games in sample.EVENING.items():
            sample.feed(db_path, sample.board_lines(dev, games * evenings))
        best = None
        db = ResultsDB(db_path)
        try:
            ratings.settle(db)
            for _ in range(3):
                t = time.perf_counter()
                with db.snapshot():
                    text, _ = results_page.render(db, "season.db")
                took = time.perf_counter() - t
                best = took if best is None else min(best, took)
            n = db.count_games()
        finally:
            db.close()
    print("%8d  %10d  %9.0f" % (n, len(text.encode("utf-8")), best * 1000), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="1000,5000,20000,100000", help="the seasons' sizes, in games")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--evenings", default="1,30,75", help="the one-file page's sizes, in evenings of 14 games")
    ap.add_argument("--keep", help="a folder to keep (and reuse) the seasons' databases in")
    args = ap.parse_args()
    print("the served first screen (--serve), and the pages it links to")
    print("%8s  %9s  %8s  %9s  %8s  %10s" % ("games", "bytes", "gzipped", "median ms", "best ms", "again ms"))
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in args.games.split(",") if x):
            season(Path(args.keep or tmp), n, args.runs)
    print("\nthe one-file page of every game (--html)")
    print("%8s  %10s  %9s" % ("games", "bytes", "build ms"))
    for k in (int(x) for x in args.evenings.split(",") if x):
        whole_file(k)


if __name__ == "__main__":
    main()
