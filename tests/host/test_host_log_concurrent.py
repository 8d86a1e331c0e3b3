"""Several speedref-log processes on one new database: the migration runs once,
every record is stored exactly once, nobody crashes on a lock or a UNIQUE key."""
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WORKER = r"""
import json, os, random, sys, time
sys.path[:0] = [os.path.join(sys.argv[1], "firmware"), os.path.join(sys.argv[1], "tests"), sys.argv[1]]
from host_fixtures import speed_match
from host_tools.club.db import ResultsDB
from host_tools.intake.lines import LineCore
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
    from host_tools.club.db import ResultsDB, SCHEMA_VERSION
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


# --- four boards on one laptop: four ptys fed at once from recorded logs -----------------------
# four boards' machine.unique_id(), as the firmware writes them into record ids
UIDS = ["e6614c31032a5b2e", "e6614c31032a7f01", "de6330f1a2b3c4d5", "e66138935f4b6a2c"]


def recorded_log(board, store, monkeypatch):
    """What one board printed over an evening: the firmware's own lines from
    three games at the simulator's virtual table (computer players; Spit has
    slap races, Speed may), a reconnect's flash dump between the second and
    the third game (records the laptop has seen already), in CR LF lines as a
    board's USB serial sends them.  Returns (bytes, [(record, [slap lines])])."""
    import functools
    from sim import compat
    compat.install()
    from sim.table import base, runner
    from sim.board import Board
    monkeypatch.setattr(base, "Board", functools.partial(Board, uid=UIDS[board]))
    lines, games, slaps = [], [], []
    for n, game in enumerate(("spit", "speed", "spit")):
        tb, bad = runner.play_game(game, "board%d" % board, n, store=str(store))
        assert bad == [], bad
        for _, obj in tb.lines:
            lines.append(obj)
            if obj["ev"] == "slap":
                slaps.append(obj)
            elif obj["ev"] == "game_end":
                games.append((obj["record"], slaps))
                slaps = []
        if n == 1:
            lines += [{"ev": "stored", "record": rec} for rec, _ in games]
            lines.append({"ev": "dump_end", "count": len(games)})
    data = b"".join(json.dumps(o).encode() + b"\r\n" for o in lines)
    return data, games


def test_four_boards_logged_at_once_into_one_database_each_game_with_its_own_slaps(tmp_path, monkeypatch):
    import threading
    from log_pty import run_log
    from host_tools.club.db import canonical_json
    db_path = tmp_path / "club.db"
    logs = [recorded_log(b, tmp_path / ("board%d" % b), monkeypatch) for b in range(4)]
    results = [None] * 4

    def board(b):
        # stopped with Ctrl-C once every record of its log has been answered
        n = len(logs[b][1]) + 2                  # its games, and the dump's two records again
        results[b] = run_log(db_path, logs[b][0], timeout=600,
                             until=lambda out: out.count("stored as #") >= n)
    threads = [threading.Thread(target=board, args=(b,)) for b in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    for rc, out, err in results:
        assert rc == 0 and "Traceback" not in err, err
    from host_tools.club.db import ResultsDB
    db = ResultsDB(db_path)
    try:
        rows = db.con.execute("SELECT id, record FROM games ORDER BY id").fetchall()
        slap_rows = db.con.execute("SELECT line, game_ref FROM slaps ORDER BY id").fetchall()
    finally:
        db.close()
    want = {}
    for _, games in logs:
        for rec, slaps in games:
            want[canonical_json(rec)] = [canonical_json(s) for s in slaps]
    assert len(want) == 12                                      # twelve games, none alike
    for b, (_, games) in enumerate(logs):                       # each game names its table
        assert all(rec["id"].startswith(UIDS[b] + "-") for rec, _ in games)
    got = dict((text, row) for row, text in rows)
    assert len(rows) == 12 and set(got) == set(want)            # nothing lost, nothing twice
    by_row = {}
    for text, ref in slap_rows:
        by_row.setdefault(ref, []).append(text)
    for text, expect in want.items():                           # each game has its own board's slaps
        assert by_row.get(got[text], []) == expect
    assert sum(len(v) for v in want.values()) == len(slap_rows) > 12
    assert sum(r[1].count("(stored as #") for r in results) == 12         # new: each game once
    assert sum(r[1].count("already stored as #") for r in results) == 4 * 2  # the dumps' records


def test_a_database_another_process_is_creating_this_instant_is_not_foreign(tmp_path, monkeypatch):
    """Two tools open a new database at the same moment: one reads schema
    version 0, the other then creates the tables and sets the version in one
    commit, and the first finds tables.  That database is ours, just made:
    the first must use it, not refuse it as "not a speedref results database"
    (four speedref-log processes started together hit this)."""
    from host_tools.club import db
    path = tmp_path / "club.db"
    sqlite3.connect(str(path)).close()  # an empty file: schema version 0, no tables
    real_tables = db.ResultsDB._tables
    made = []

    def tables_after_the_other_process(self):
        if not made:
            made.append(True)
            db.ResultsDB(path).close()  # the other process, between our two reads
        return real_tables(self)

    monkeypatch.setattr(db.ResultsDB, "_tables", tables_after_the_other_process)
    d = db.ResultsDB(path, write=True)
    assert made and d.version == db.SCHEMA_VERSION
    d.close()
