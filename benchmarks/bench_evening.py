"""A club night in a season's database: how long the organiser waits for
tonight's standings, the round and the next pairing when the results
database already holds a season (20,000 games by default).

    .venv/bin/python benchmarks/bench_evening.py [--games 20000] [--runs 5] [--keep DIR] [--code DIR]

The season is bench_season's (40 people playing Speed matches at 20
tables, imported from its store folders by `speedref-results import`).
Then an evening: 12 of those 40 check in at 6 tables, four rounds of Speed
are paired (`speedref-club pair`) and played, each round's records imported
as its tables' store folders: half the tables' records carry their evening
and round (a board that was given its match), the others only their table
and players (a board that was not: found by its table and players).

Timed, each a process of its own as the organiser runs it (Python's start
included, about 100 ms), the median of --runs runs (wall / CPU of the
command's process, as bench_season prints them):
- `speedref-club standings`: tonight's table and standings;
- `speedref-results --evening`: the same from the results tool;
- `speedref-results --since DAY`: the standings of the games stored since
  this evening's day;
- `speedref-club round`: the current round with its results;
- `speedref-club pair --game speed`: the fifth round (on a copy of the
  database each run: the copy is not timed).

--code DIR runs the commands of the code in DIR (a checkout or a `git
archive` of another commit, for a figure before a change): every command,
the import included, is `python -m host_tools.cli...` with DIR first on the
path.  --keep DIR keeps (and reuses) the season's database before the
evening, per code directory.
"""
import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests"), str(ROOT / "firmware"), str(ROOT)]

from bench_season import PEOPLE, season_record, write_stores  # noqa: E402

TABLES = 6
HERE = PEOPLE[:12]


class Code:
    """The commands of the code in `folder`, run with it first on the path."""

    def __init__(self, folder):
        self.folder = Path(folder).resolve()
        path = [str(self.folder), str(self.folder / "firmware"), str(self.folder / "compat")]
        self.env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))

    def cmd(self, tool, *args):
        return [sys.executable, "-m", "host_tools.cli." + tool] + [str(a) for a in args]

    def run(self, tool, *args):
        r = subprocess.run(self.cmd(tool, *args), capture_output=True, text=True, env=self.env, cwd=str(self.folder))
        if r.returncode != 0:
            raise SystemExit("%s %s: exit %d: %s" % (tool, " ".join(map(str, args)), r.returncode, r.stderr.strip()))
        return r.stdout


    def timed(self, tool, *args):
        """(wall s, CPU s: user + system of the command's process) of one run."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        r = subprocess.run(self.cmd(tool, *args), capture_output=True, text=True, env=self.env, cwd=str(self.folder))
        took = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r.returncode != 0:
            raise SystemExit("%s %s: exit %d: %s" % (tool, " ".join(map(str, args)), r.returncode, r.stderr.strip()))
        return took, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def median_of(code, runs, args_of, before=None):
    """(median wall ms, median CPU ms) of `runs` runs of the command
    args_of(i) gives (tool, args...); before(i), if given, runs first, untimed."""
    walls, cpus = [], []
    for i in range(runs):
        if before is not None:
            before(i)
        wall, cpu = code.timed(*args_of(i))
        walls.append(wall)
        cpus.append(cpu)
    return 1000 * statistics.median(walls), 1000 * statistics.median(cpus)


def season(code, folder, games, keep):
    """The season's database (imported by `code`), kept in `keep` when given."""
    tag = hashlib.sha256(str(code.folder).encode()).hexdigest()[:8]
    kept = Path(keep) / ("evening-season-%d-%s.db" % (games, tag)) if keep else None
    if kept is not None and kept.exists():
        return kept
    db = folder / "season.db"
    stores = folder / "stores"
    paths = write_stores(stores, games)
    code.run("results", "import", *paths, "--db", db)
    shutil.rmtree(stores)
    if kept is not None:
        shutil.copy(db, kept)
    return db


def current_round(db):
    """The current round's tables: [(table, [names])], read from the database."""
    import sqlite3
    con = sqlite3.connect(str(db))
    try:
        rid, number = con.execute("SELECT id, number FROM rounds WHERE replaced_at IS NULL"
                                  " ORDER BY number DESC LIMIT 1").fetchone()
        at = {}
        for tbl, name in con.execute("SELECT tbl, name FROM round_seats WHERE round = ? AND tbl IS NOT NULL"
                                     " ORDER BY rowid", (rid,)):
            at.setdefault(tbl, []).append(name)
        evening = con.execute("SELECT evening FROM rounds WHERE id = ?", (rid,)).fetchone()[0]
        return evening, number, list(at.items())
    finally:
        con.close()


def play_round(code, db, folder, seq):
    """The current round's games, each table's record in its store folder, imported."""
    evening, number, tables = current_round(db)
    paths = []
    for i, (tbl, names) in enumerate(tables):
        rec = season_record(3 * 10 ** 7 + 100 * number + i, tbl, seq)
        rec["players"] = names
        rec["id"] = "night-%s-%d" % (tbl.replace(" ", ""), seq)
        if i % 2 == 0:               # a board that was given its match says its round
            rec["evening"], rec["round"] = evening, number
        store = folder / ("night-%d-%d" % (number, i))
        (store / "rec").mkdir(parents=True)
        (store / "rec" / ("%08d.json" % seq)).write_text(json.dumps(rec), encoding="utf-8")
        paths.append(store)
    code.run("results", "import", *paths, "--db", db)


def measure(code, games, runs, keep):
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        db = d / "night.db"
        shutil.copy(season(code, d, games, keep), db)
        code.run("club", "start", "Thursday club", "--tables", TABLES, "--db", db)
        code.run("club", "checkin", *HERE, "--db", db)
        for n in range(1, 5):
            code.run("club", "pair", "--game", "speed", "--db", db)
            play_round(code, db, d, n)
        day = code.run("club", "status", "--db", db).split("\n")[0].rsplit(", ", 1)[1]
        out = {"games": games}
        out["club standings"] = median_of(code, runs, lambda i: ("club", "standings", "--db", db))
        out["results --evening"] = median_of(code, runs, lambda i: ("results", "--evening", "--db", db))
        out["results --since"] = median_of(code, runs, lambda i: ("results", "--since", day, "--db", db))
        out["club round"] = median_of(code, runs, lambda i: ("club", "round", "--db", db))
        spare = d / "spare.db"
        out["club pair (round 5)"] = median_of(code, runs, lambda i: ("club", "pair", "--game", "speed", "--db", spare),
                                               before=lambda i: shutil.copy(db, spare))
        check = code.run("club", "standings", "--json", "--db", db)
        t = json.loads(check)
        assert t["unplaced"] == [] and sum(r["rounds"] for r in t["tonight"]) == 4 * TABLES * 2, t["tonight"]
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000, help="games in the season before the evening")
    ap.add_argument("--runs", type=int, default=5, help="runs of each timed command (the median is printed)")
    ap.add_argument("--keep", metavar="DIR", help="keep (and reuse) the season's database in DIR")
    ap.add_argument("--code", metavar="DIR", default=str(ROOT), help="the code to run (default: this checkout)")
    args = ap.parse_args()
    code = Code(args.code)
    r = measure(code, args.games, args.runs, args.keep)
    print("%d games in the database, an evening of 12 at %d tables, 4 rounds played; %s" % (
        r.pop("games"), TABLES, code.folder))
    for what, (wall, cpu) in r.items():
        print("  %-24s %6.0f ms wall  %6.0f ms CPU" % (what, wall, cpu), flush=True)


if __name__ == "__main__":
    main()
