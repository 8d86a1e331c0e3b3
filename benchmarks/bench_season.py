"""A season in one results database: the import of its store folders, the
standings, the ratings after one new game, a name fix, at 1,000 to 100,000
games.

    .venv/bin/python benchmarks/bench_season.py [--games 1000,5000,20000,100000] [--runs 5] [--keep DIR]

A season is 40 people playing Speed matches at 20 tables, each table's
records in a store folder (rec/NNNNNNNN.json, as speedref-sim --store and a
board's flash keep them).  The matches are bench_import's
(host_fixtures.speed_match, seeded), each seated with two of the 40.

Per size, printed:
- import: `speedref-results import` of the 20 folders into a new database
  (host_tools.intake.importer in a process of its own) in memory-backed
  files (/dev/shm), so that it is the import's own work: seconds, and the
  process's peak resident size (getrusage maxrss: Python, the engine and
  SQLite).  Each game is stored in its own transaction, so on a disk each
  costs a sync too: --import-only GAMES imports that many, --runs times
  into memory-backed files and --runs times into a database on this
  machine's disk, and prints each and the medians;
- standings: the command `speedref-results --db FILE` as a user runs it,
  the whole process (Python's start included);
- ratings, one new game: a game stored as speedref-log stores it (placed
  last), then `speedref-results ratings`; "late": a game placed
  in the middle of the season (a board's flash read later), the same;
- rename and undo: `speedref-results rename` of one person (about 2,500
  seats at 100,000 games) and `undo`;
- check: `speedref-results check` (every record replayed), once.
Each timed command runs --runs times (a new game each time); the median of
its wall time and of its CPU time (user + system, of the command's process)
is printed: on a shared machine the wall time includes waiting for a CPU,
so run it more than once.  --keep DIR keeps each size's database (and
reuses it: the import is then not timed).

    .venv/bin/python benchmarks/bench_season.py --import-only 20000 --runs 3
"""
import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "firmware"), str(ROOT), str(ROOT / "compat")]

from host_fixtures import speed_match  # noqa: E402
from host_tools.club.db import ResultsDB  # noqa: E402
from host_tools.intake.lines import LineCore  # noqa: E402

TABLES = 20
PEOPLE = ["Ada", "Ben", "Cleo", "Dev", "Elif", "Finn", "Gus", "Hana", "Ivo", "Jun", "Kofi", "Lena", "Mira", "Nils",
          "Omar", "Pia", "Quinn", "Rosa", "Sami", "Tove", "Uma", "Vik", "Wren", "Xia", "Yara", "Zeno", "Abel", "Bea",
          "Cruz", "Dora", "Emil", "Fern", "Gil", "Hugo", "Iris", "Joel", "Kai", "Lupe", "Milo", "Noor"]
BIN = Path(sys.executable).parent
RESULTS = str(BIN / "speedref-results")


def season_record(n, table, seq):
    """Game `seq` of table `table` (a number, or a name): a seeded Speed
    match, seated with two of PEOPLE."""
    rec = speed_match(n)
    rec["players"] = random.Random(n).sample(PEOPLE, 2)
    if isinstance(table, int):
        rec["id"] = "bench%02d-%d" % (table, seq)
        rec["table"] = "Table %d" % (table + 1)
    else:
        rec["id"] = "%s-%d" % (table, seq)
        rec["table"] = table
    return rec


def write_stores(folder, games):
    """TABLES store folders holding `games` records between them."""
    paths = []
    for t in range(TABLES):
        rec_dir = folder / ("table-%02d" % t) / "rec"
        rec_dir.mkdir(parents=True)
        paths.append(str(rec_dir.parent))
    for n in range(games):
        t, seq = n % TABLES, n // TABLES + 1
        text = json.dumps(season_record(n, t, seq), separators=(",", ":"))
        (folder / ("table-%02d" % t) / "rec" / ("%08d.json" % seq)).write_text(text, encoding="utf-8")
    return paths


def import_child(db_path, paths):
    """In this process: import, print seconds and peak RSS (MB)."""
    from host_tools.intake import importer
    db = ResultsDB(db_path, write=True)
    try:
        t = time.perf_counter()
        status = importer.run(db, paths, "bench", out=lambda s: None, err=lambda s: None)
        took = time.perf_counter() - t
    finally:
        db.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": took, "rss_mb": rss, "status": status}))


CPU = []      # the CPU time (user + system) of each command timed, as timed() measured it


def timed(cmd):
    """The wall time of a command; its CPU time goes into CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    took = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if r.returncode not in (0, 1):
        raise SystemExit("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    return took


def median_of(runs, cmd_of):
    """(median wall ms, median CPU ms) of `runs` runs of the command cmd_of(i) gives."""
    walls, cpus = [], []
    for i in range(runs):
        walls.append(timed(cmd_of(i)))
        cpus.append(CPU[-1])
    return 1000 * statistics.median(walls), 1000 * statistics.median(cpus)


def store_one(db_path, rec, moment=None):
    """One game stored as speedref-log stores it (moment None: now)."""
    db = ResultsDB(db_path)
    try:
        db.moment = moment
        LineCore(db, out=lambda t: None, err=lambda t: None).record(rec, "game_end")
    finally:
        db.close()


def first_moment(db_path):
    db = ResultsDB(db_path)
    try:
        return db.query("SELECT MIN(received_at) FROM games")[0][0]
    finally:
        db.close()


def import_stores(db, stores, games):
    """Write `games` records in store folders under `stores`, import them into
    a new database `db` in a process of its own: (seconds, peak RSS MB)."""
    paths = write_stores(stores, games)
    try:
        r = subprocess.run([sys.executable, __file__, "--import-one", str(db)] + paths, capture_output=True,
                           text=True, check=True)
    finally:
        subprocess.run(["rm", "-rf", str(stores)], check=True)
    got = json.loads(r.stdout)
    return got["seconds"], got["rss_mb"]


def measure(folder, games, runs, keep):
    out = {"games": games}
    db = (Path(keep) / ("season-%d.db" % games)) if keep else folder / "season.db"
    if not db.exists():
        # made in memory-backed files (/dev/shm) when there are: a commit there
        # costs no disk sync, so this is the import's own work
        fast = Path("/dev/shm") if os.path.isdir("/dev/shm") else folder
        with tempfile.TemporaryDirectory(dir=str(fast)) as d:
            out["import_s"], out["import_rss_mb"] = import_stores(Path(d) / "season.db", Path(d) / "stores", games)
            subprocess.run(["cp", str(Path(d) / "season.db"), str(db)], check=True)
    out["db_mb"] = os.path.getsize(db) / 2 ** 20
    out["ratings_first_s"] = timed([RESULTS, "--db", str(db), "ratings"])   # after an import: every game rated
    out["standings_ms"] = median_of(runs, lambda i: [RESULTS, "--db", str(db)])
    moment = first_moment(db)
    visit = int(time.time() * 1000)        # this run's new games are new to a kept database too

    def new_game(i):
        store_one(db, season_record(10 ** 7 + i, "new%d" % visit, i + 1))
        return [RESULTS, "--db", str(db), "ratings"]

    def late_game(i):
        # played in the middle of the season's first evening, read from a board's flash now
        store_one(db, season_record(2 * 10 ** 7 + i, "late%d" % (visit + i), games // TABLES // 2), moment)
        return [RESULTS, "--db", str(db), "ratings"]
    out["ratings_new_ms"] = median_of(runs, new_game)
    out["ratings_late_ms"] = median_of(runs, late_game)
    out["rename_ms"] = median_of(runs, lambda i: [RESULTS, "--db", str(db), "rename", PEOPLE[i], PEOPLE[i] + " B."])
    out["undo_ms"] = median_of(runs, lambda i: [RESULTS, "--db", str(db), "undo"])
    out["ratings_after_rename_ms"] = 1000 * timed([RESULTS, "--db", str(db), "ratings"])
    out["check_s"] = timed([RESULTS, "--db", str(db), "check"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="1000,5000,20000,100000", help="season sizes, comma separated")
    ap.add_argument("--runs", type=int, default=5, help="runs of each timed command (the median is printed)")
    ap.add_argument("--keep", metavar="DIR", help="keep (and reuse) each size's database in DIR")
    ap.add_argument("--import-only", type=int, default=0, metavar="GAMES",
                    help="only import GAMES records, --runs times into memory-backed files and --runs times"
                         " into a database on this machine's disk")
    ap.add_argument("--import-one", nargs="+", help=argparse.SUPPRESS)     # the child: DB PATH...
    args = ap.parse_args()
    if args.import_one:
        return import_child(args.import_one[0], args.import_one[1:])
    if args.import_only:
        places = [("memory-backed files", "/dev/shm")] if os.path.isdir("/dev/shm") else []
        for where, folder in places + [("this machine's disk", None)]:
            got = []
            for _ in range(args.runs):
                with tempfile.TemporaryDirectory(dir=folder) as d:
                    got.append(import_stores(Path(d) / "season.db", Path(d) / "stores", args.import_only))
                print("import of %d records into a database in %s: %.1f s, peak RSS %.0f MB" % (
                    (args.import_only, where) + got[-1]), flush=True)
            print("median: %.1f s, peak RSS %.0f MB" % (statistics.median(x[0] for x in got),
                                                       statistics.median(x[1] for x in got)), flush=True)
        return
    heads = ["games", "import s", "import RSS MB", "db MB", "standings ms", "ratings: new game ms",
             "ratings: late game ms", "rename ms", "undo ms", "check s"]
    print("  ".join(heads) + "   (each ms: wall median / CPU median)", flush=True)
    for games in (int(x) for x in args.games.split(",")):
        with tempfile.TemporaryDirectory() as d:
            r = measure(Path(d), games, args.runs, args.keep)
        print("  ".join([
            "%d" % r["games"], "%.1f" % r["import_s"] if "import_s" in r else "-",
            "%.0f" % r["import_rss_mb"] if "import_rss_mb" in r else "-", "%.1f" % r["db_mb"]]
            + ["%.0f/%.0f" % r[k] for k in ("standings_ms", "ratings_new_ms", "ratings_late_ms", "rename_ms",
                                             "undo_ms")] + ["%.1f" % r["check_s"]]), flush=True)
        print("  (%sratings after the renames and undos: %.0f ms)"
              % ("first ratings read after the import, every game rated: %.1f s; " % r["ratings_first_s"]
                 if "import_s" in r else "", r["ratings_after_rename_ms"]), flush=True)


if __name__ == "__main__":
    main()
