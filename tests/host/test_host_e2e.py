"""End to end through a pseudo-terminal.

A "device" process writes the referee's JSON lines on one end of a pty and
answers {"cmd": "dump"}; the real `speedref-log` reads the other end into a
database; then `speedref-results` reports it.  The device is the MicroPython
Unix port running the firmware's device loop (`device_command()`), which
speaks these lines on stdin/stdout and writes the games it played (a JSON list
of records) to the file named by its first argument.
"""
import json
import os
import subprocess
import sys
import tty
from pathlib import Path

import mpyrun
from speedref.engine import records

from host_tools.club import people, standings

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
IDLE_EXIT = "5"        # speedref-log exits this many seconds after the device falls silent


def device_command(tmp_path, played_file, session):
    # The firmware's device loop under the real MicroPython Unix port (build/mpy,
    # the fake machine), its console on the pty, a scripted game: see
    # tests/mpy/device_game_e2e.py (docs/serial-protocol.md is the protocol's reference).
    return [str(mpyrun.MICROPYTHON), "-X", "heapsize=96wK", str(ROOT / "tests" / "mpy" / "device_game_e2e.py"),
            str(played_file), str(tmp_path / "flash.json"), str(session)]


def device_env():
    return dict(os.environ, MICROPYPATH=mpyrun.micropath(use_mpy=True))


def session(tmp_path, db, n):
    master, slave = os.openpty()
    tty.setraw(slave)                 # a serial line: no echo, no newline translation
    port = os.ttyname(slave)
    played_file = tmp_path / ("played%d.json" % n)
    log = subprocess.Popen([str(BIN / "speedref-log"), "--port", port, "--db", str(db),
                            "--idle-exit", IDLE_EXIT], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, cwd=tmp_path)
    dev = subprocess.Popen(device_command(tmp_path, played_file, n), stdin=master, stdout=master,
                           env=device_env(), cwd=tmp_path)
    try:
        assert dev.wait(timeout=120) == 0
        out, err = log.communicate(timeout=120)
    finally:
        for p in (dev, log):
            if p.poll() is None:
                p.kill()
        os.close(master)
        os.close(slave)
    assert log.returncode == 0, err
    return json.loads(played_file.read_text()), out, err


def test_pty_device_to_log_to_results(tmp_path):
    db = tmp_path / "results.db"
    played1, out1, err1 = session(tmp_path, db, 1)
    played2, out2, err2 = session(tmp_path, db, 2)
    # the game kept on flash before any laptop was attached, then the games played
    first_on_flash = json.loads((tmp_path / "flash.json").read_text())[0]
    expected = [first_on_flash] + played1 + played2

    import sqlite3
    con = sqlite3.connect(db)
    rows = [json.loads(r[0]) for r in con.execute("SELECT record FROM games ORDER BY id")]
    assert rows == expected                                    # exactly these, once each
    assert con.execute("SELECT COUNT(*) FROM slaps").fetchone()[0] == 3
    con.close()
    assert "skipped: not UTF-8" in err1 and "skipped: not JSON" in err1
    assert "invalid record" in err2 and "PT-" in err2           # r4 refused by the rules
    assert "slap out (speed): P1 by 3.2 ms" in out1
    assert "device flash: 2 records kept, 0 new here" in out2    # pulled again, not duplicated

    r = subprocess.run([str(BIN / "speedref-results"), "--db", str(db), "--json",
                        "--csv", str(tmp_path / "s.csv")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    # the device's seats nobody named (P1, P2: host_tools/club/people.py) are one
    # "(unnamed seats)" row a game, counted a seat at a time
    want = {}
    for rec in expected:
        s = records.summary(rec)
        for seat, name in enumerate(s["players"]):
            who = standings.UNNAMED if people.unnamed(name) else name
            e = want.setdefault((rec["game"], who), {"games": 0, "wins": 0})
            e["games"] += 1
            e["wins"] += seat in s["winners"]
    assert dict(((x["game"], x["player"]), {"games": x["games"], "wins": x["wins"]})
                for x in got["standings"]) == want
    slapper = played1[0]["players"][0]
    assert people.unnamed(slapper)
    row = [x for x in got["standings"] if (x["game"], x["player"]) == ("speed", standings.UNNAMED)][0]
    # the slaps P1 won (2, median 2.5 ms) are the unnamed seats' only ones
    assert row["slap_wins"] == 2 and row["median_margin_us"] == 2500 and row["person"] is False
    assert (tmp_path / "s.csv").read_text().splitlines()[0] == \
        "game,player,games,wins,average_score,perfect_bonuses,slap_wins,median_margin_us"
