"""speedref-results with hostile player names: CSV formula injection, a name
twice in one game (a database written before speedref-log refused those),
control characters in the text table."""
import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from host_tools.club import people, standings
from host_tools.cli import results
from host_tools.views import report
from host_tools.club.db import ResultsDB
from host_fixtures import speed_single

ROOT = Path(__file__).resolve().parents[2]


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(tmp_path):
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    names = ["=HYPERLINK(\"http://x\")", "+1", "-2+3", "@SUM(A1)", "\tTab", "\rCR", "Ann"]
    for i in range(0, len(names) - 1):
        db.add_record(speed_single(players=(names[i], names[i + 1]), ident=i))
    db.close()
    assert results.main(["--db", str(path), "--csv", str(tmp_path / "s.csv"), "--json"]) == 0
    with open(tmp_path / "s.csv", newline="", encoding="utf-8") as f:
        players = sorted(r["player"] for r in csv.DictReader(f))
    # a tab or CR around a name is stripped from the person's name (people.spelling)
    assert players == sorted(["'" + n for n in names[:4]] + ["Tab", "CR", "Ann"])
    assert report.csv_cell("\tTab") == "'\tTab" and report.csv_cell("\rCR") == "'\rCR"


def test_a_player_named_twice_in_one_game_counts_once(tmp_path, capsys):
    db = ResultsDB(tmp_path / "r.db")
    db.add_record(speed_single(winner=0, left=5, players=("Ann", "Ann"), ident=1))
    db.add_record(speed_single(winner=1, left=4, players=("Ann", "Bob"), ident=2))
    rows, _ = standings.standings(db)
    db.close()
    ann = [r for r in rows if r["player"] == "Ann"][0]
    assert ann["games"] == 2 and ann["wins"] == 1
    assert ann["average_score"] == 2.5      # her first seat's total in each game: 5 and 0


def test_control_characters_in_names_are_escaped_in_the_text_table(tmp_path):
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.add_record(speed_single(players=("Ann\nspeed\n  Eve  99", "Bob\x1b[2J"), ident=1))
    db.close()
    r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", str(path)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0
    assert "Ann\\nspeed\\n  Eve  99" in r.stdout and "Bob\\x1b[2J" in r.stdout
    assert "\x1b" not in r.stdout and len(r.stdout.splitlines()) == 4


def test_a_closed_pipe_and_a_cp1252_console(tmp_path):
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.add_record(speed_single(players=("Ann \U0001F600", "Bob"), ident=1))
    db.close()
    r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", str(path)],
                       capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONIOENCODING="cp1252"))
    assert r.returncode == 0 and "Ann \\U0001f600" in r.stdout
    r_fd, w_fd = os.pipe()
    os.close(r_fd)
    try:
        r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", str(path), "--json"],
                           stdout=w_fd, stderr=subprocess.PIPE, cwd=ROOT)
    finally:
        os.close(w_fd)
    assert r.stderr == b""


def test_a_file_that_is_not_a_database_exits_2(tmp_path):
    p = tmp_path / "r.db"
    p.write_text("not sqlite " * 50)
    r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", str(p)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "r.db" in r.stderr


# --- names a spreadsheet would run, however they begin -----------------------------------
SNEAKY = [" =1+1", "\u00a0=1+1", "\ufeff=1+1", "\u202e=1+1", "\n=1+1", "\uff1d1+1", "\u3000=1+1",
          "\u200b@SUM(A1)", "\ufe661+1", "\uff0bcmd", "\uff0d2+3", "\uff20SUM(A1)", "\x00=1+1", " \t=1",
          "\r\n+1"]


def test_csv_cells_starting_with_invisible_or_fullwidth_formula_characters_are_neutralised(tmp_path):
    """What spreadsheets run (OWASP, CSV injection): a cell whose first character is
    = + - @, a tab or a CR; some also skip leading blanks, NBSP, BOM, bidi marks and
    newlines before that character, or read a fullwidth ＝ as =: all get the '."""
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    # each its own person: stripped of the blanks around it, " =1+1" and
    # "\n=1+1" would be one (people.key), shown in the spelling of its last game
    sneaky = ["%s #%d" % (n, i) for i, n in enumerate(SNEAKY)]
    names = sneaky + ["Ann", "Zoë", "Bob Smith", "'quoted"]
    for i in range(len(names) - 1):
        db.add_record(speed_single(players=(names[i], names[i + 1]), ident=i))
    db.close()
    assert results.main(["--db", str(path), "--csv", str(tmp_path / "s.csv")]) == 0
    with open(tmp_path / "s.csv", newline="", encoding="utf-8") as f:
        players = sorted(r["player"] for r in csv.DictReader(f))
    # shown without the white space around them (people.spelling): still neutralised
    assert players == sorted(["'" + people.spelling(n) for n in sneaky] + ["Ann", "Zoë", "Bob Smith", "'quoted"])
    for n in SNEAKY:
        assert report.csv_cell(n) == "'" + n, repr(n)


# --- rows that cannot be replayed are skipped and named; the rest is shown ----------------
def _raw_game(con, text, game="speed", key=None):
    cur = con.execute("INSERT INTO games (dedup_key, game, record, source, received_at) VALUES (?,?,?,?,?)",
                      (key or "raw:%s" % text, game, text, "live", "then"))
    return cur.lastrowid


def test_rows_that_cannot_be_replayed_are_skipped_and_reported(tmp_path):
    import json as _json
    import sqlite3
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    good, _ = db.add_record(speed_single(winner=0, left=5, ident="good"))
    db.close()
    con = sqlite3.connect(path)
    bad_rows = [
        _raw_game(con, "{not json"),
        _raw_game(con, _json.dumps(speed_single(left=99, ident="tampered"))),        # SP-18
        _raw_game(con, _json.dumps({"game": "speed", "layout": "pagat", "match": {"single": True},
                                    "players": ["Ann", "Bob"], "deals": [{"winner": 0, "cards_left": 5}],
                                    "id": "older rules"})),
        _raw_game(con, _json.dumps({"game": "chess", "players": ["Ann", "Bob"]}), game="chess"),
        _raw_game(con, "[1, 2]"),
        _raw_game(con, '{"game": "speed", "game": "spit"}'),
    ]
    slap_rows = []
    for winner, margin in ((0, 1000), (-1, 500), (7, 500), (1, "abc"), (0, 2.5), (0, -4), (None, "x")):
        cur = con.execute("INSERT INTO slaps (game, kind, winner, margin_us, line, received_at, game_ref)"
                          " VALUES (?,?,?,?,?,?,?)", ("speed", "out", winner, margin, "{}", "then", good))
        slap_rows.append(cur.lastrowid)
    con.commit()
    con.close()
    r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", str(path), "--json"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    got = _json.loads(r.stdout)
    ann = [x for x in got["standings"] if x["player"] == "Ann"][0]
    assert (ann["games"], ann["wins"], ann["slap_wins"], ann["median_margin_us"]) == (1, 1, 1, 1000)
    bob = [x for x in got["standings"] if x["player"] == "Bob"][0]
    assert (bob["games"], bob["slap_wins"]) == (1, 0)                 # winner -1 is not the last seat
    skipped = got["skipped"]
    assert sorted(s["row"] for s in skipped if s["table"] == "games") == bad_rows
    assert sorted(s["row"] for s in skipped if s["table"] == "slaps") == slap_rows[1:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == len(bad_rows) + len(slap_rows) - 1 and all(l.startswith("skipped:") for l in lines)
    assert any("SP-18" in l for l in lines) and any("not JSON" in l for l in lines)
    r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", str(path)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "Ann" in r.stdout and "Traceback" not in r.stderr


def _closed_stdout():
    os.close(1)


@pytest.mark.parametrize("where", ["full", "closed"])
def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, where):
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.add_record(speed_single(ident=1))
    db.close()
    cmd = [sys.executable, "-m", "host_tools.cli.results", "--db", str(path)]
    if where == "full":
        with open("/dev/full", "w") as full:
            r = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    else:
        r = subprocess.run(cmd, stderr=subprocess.PIPE, text=True, cwd=ROOT, preexec_fn=_closed_stdout)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "cannot write" in r.stderr, r.stderr


def test_results_newer_schema_exits_2(tmp_path):
    import sqlite3
    p = tmp_path / "new.db"
    con = sqlite3.connect(p)
    con.execute("PRAGMA user_version = 99")
    con.close()
    r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", str(p)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "schema version 99" in r.stderr and "Traceback" not in r.stderr
