"""Several speedref-log processes on one new database: the migration runs once,
every record is stored exactly once, nobody crashes on a lock or a UNIQUE key."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import json, os, random, sys, time
sys.path[:0] = [os.path.join(sys.argv[1], "firmware"), os.path.join(sys.argv[1], "tests"), sys.argv[1]]
from host_fixtures import speed_match
from host_tools.db import ResultsDB
from host_tools.log import LineCore
db_path, go, me = sys.argv[2], sys.argv[3], int(sys.argv[4])
while not os.path.exists(go):       # all workers start together
    time.sleep(0.001)
db = ResultsDB(db_path)             # a new file: every worker races to migrate it
errs = []
core = LineCore(db, out=lambda t: None, err=errs.append)
ids = list(range(40))
random.Random(me).shuffle(ids)
for i in ids[:30]:                  # overlapping: each worker sends 30 of the 40 records
    core.feed((json.dumps({"ev": "slap", "game": "speed", "winner": 0, "margin_us": me * 1000 + i}) + "\n").encode())
    core.feed((json.dumps({"ev": "game_end", "record": speed_match(i, ident="g%d" % i)}) + "\n").encode())
db.close()
print(json.dumps({"stored": core.stored, "duplicates": core.duplicates, "slaps": core.slaps, "errs": errs}))
"""


def test_four_processes_share_one_new_database(tmp_path):
    db_path, go = tmp_path / "r.db", tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(ROOT), str(db_path), str(go), str(n)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in range(4)]
    go.write_text("go")
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out))
    assert all(r["errs"] == [] for r in results)
    from host_tools.db import ResultsDB, SCHEMA_VERSION
    db = ResultsDB(db_path)
    try:
        assert db.version == SCHEMA_VERSION
        sent = set()
        for n in range(4):
            import random
            ids = list(range(40))
            random.Random(n).shuffle(ids)
            sent |= set("g%d" % i for i in ids[:30])
        stored = [rec["id"] for _, rec in db.games()]
        assert sorted(stored) == sorted(sent)                       # nothing lost, nothing twice
        assert sum(r["stored"] for r in results) == len(sent)
        assert sum(r["stored"] + r["duplicates"] for r in results) == 4 * 30
        assert db.count_slaps() == 4 * 30
        players = db.con.execute("SELECT COUNT(*) FROM game_players").fetchone()[0]
        assert players == 2 * len(sent)
    finally:
        db.close()
