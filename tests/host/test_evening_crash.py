"""A laptop that crashes mid-round (the process killed, SIGKILL: no
clean-up runs) loses nothing of the evening that was entered: the
evening, who checked in, the round, every result stored before the kill
and where it went; and what was being done when it died can be done again.
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from host_fixtures import speed_single
from host_tools.club import evening as E
from host_tools.club.db import ResultsDB

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

# Stores the round's results one at a time, as tables finish, checking a
# walk-in in after each; says each once it is committed.
WRITER = r"""
import json, sys, time
from host_tools.club.db import ResultsDB
from host_tools.club import evening as E
db = ResultsDB(sys.argv[1], write=True)
ev = E.find(db)
for i, rec in enumerate(json.load(open(sys.argv[2]))):
    row = db.add_game(rec, "import").row
    print("stored", row, flush=True)
    E.checkin(db, ev, ["Late%d" % i], walk_in=True)
    print("checked Late%d" % i, flush=True)
    time.sleep(0.3)
"""


def club(db, *args, status=0):
    r = subprocess.run([str(BIN / "speedref-club"), *args, "--db", str(db)], capture_output=True, text=True)
    assert r.returncode == status, (args, r.stdout, r.stderr)
    return r.stdout + r.stderr


def test_a_process_killed_mid_round_loses_nothing_entered(tmp_path):
    db = tmp_path / "club.db"
    club(db, "start", "Club", "--date", "2026-12-10", "--tables", "6")
    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lou"]
    club(db, "checkin", *names)
    club(db, "pair", "--game", "speed")
    d = ResultsDB(db)
    ev = E.find(d)
    rnd = E.rounds(d, ev)[0]
    d.close()
    recs = []
    for i, (tbl, seated) in enumerate(rnd.tables):
        r = speed_single(winner=i % 2, left=3 + i, players=[n for _, n in seated], ident="board%d-1" % i)
        r["table"] = tbl
        recs.append(r)
    (tmp_path / "recs.json").write_text(json.dumps(recs), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "firmware"), str(ROOT), str(ROOT / "compat")]))
    p = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(tmp_path / "recs.json")],
                         stdout=subprocess.PIPE, text=True, env=env)
    said = []
    while len([x for x in said if x[0] == "stored"]) < 3:
        line = p.stdout.readline()
        assert line, "the writer ended before storing three results"
        said.append(line.split())
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert p.returncode == -signal.SIGKILL
    stored = [int(x[1]) for x in said if x[0] == "stored"]
    checked = [x[1] for x in said if x[0] == "checked"]

    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    con.close()
    d = ResultsDB(db)
    try:
        ev = E.find(d)
        assert (ev.name, ev.date) == ("Club", "2026-12-10")
        here = [p.name for p in E.present(d, ev)]
        assert here[:12] == names and set(checked) <= set(here)
        assert E.rounds(d, ev) == [rnd]                     # the round as it was made
        t = E.tonight(d, ev)
        placed = dict((g.row, n) for (n, _), gs in t.placement.slots.items() for g in gs)
        assert set(stored) <= set(placed) and all(placed[r] == 1 for r in stored)
        assert t.placement.unplaced == []
        done = len(placed)
    finally:
        d.close()
    # redone after the restart: the next round waits for the rest of this one
    assert "round 1 waits for %d results" % (6 - done) in club(db, "pair", "--game", "speed", status=2)
    for i, r in enumerate(recs[done:], done):
        (tmp_path / ("r%d.json" % i)).write_text(json.dumps(r), encoding="utf-8")
    subprocess.run([str(BIN / "speedref-results"), "import", *[str(tmp_path / ("r%d.json" % i))
                                                               for i in range(done, 6)], "--db", str(db)],
                   check=True, capture_output=True)
    assert "round 2" in club(db, "pair", "--game", "speed")
    out = json.loads(club(db, "standings", "--json"))
    assert sum(r["wins"] for r in out["tonight"]) == 6 and out["unplaced"] == []


def test_a_command_killed_while_it_waits_to_write_changes_nothing_and_can_be_given_again(tmp_path):
    """speedref-club waits for another program's write (the busy timeout);
    killed then, it has stored nothing, and given again it does its work."""
    db = tmp_path / "club.db"
    club(db, "start", "Club", "--tables", "2")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    p = subprocess.Popen([str(BIN / "speedref-club"), "checkin", "Zed", "--db", str(db)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.5)
    assert p.poll() is None                               # waiting for the lock
    p.send_signal(signal.SIGKILL)
    p.wait()
    holder.execute("ROLLBACK")
    holder.close()
    d = ResultsDB(db)
    assert E.present(d, E.find(d)) == []
    d.close()
    assert club(db, "checkin", "Zed").strip() == "Zed checked in"
    assert club(db, "checkin", "Zed").strip() == "Zed is in already"
    assert "resumed" in club(db, "start", "Club")
