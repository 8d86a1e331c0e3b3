"""speedref-results with hostile player names: CSV formula injection, a name
twice in one game (a database written before speedref-log refused those),
control characters in the text table."""
import csv
import os
import subprocess
import sys
from pathlib import Path

from host_tools import results
from host_tools.db import ResultsDB
from host_fixtures import speed_single

ROOT = Path(__file__).resolve().parent.parent


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
    assert players == sorted(["'" + n for n in names[:-1]] + ["Ann"])


def test_a_player_named_twice_in_one_game_counts_once(tmp_path, capsys):
    db = ResultsDB(tmp_path / "r.db")
    db.add_record(speed_single(winner=0, left=5, players=("Ann", "Ann"), ident=1))
    db.add_record(speed_single(winner=1, left=4, players=("Ann", "Bob"), ident=2))
    rows, _ = results.standings(db)
    db.close()
    ann = [r for r in rows if r["player"] == "Ann"][0]
    assert ann["games"] == 2 and ann["wins"] == 1
    assert ann["average_score"] == 2.5      # her first seat's total in each game: 5 and 0


def test_control_characters_in_names_are_escaped_in_the_text_table(tmp_path):
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.add_record(speed_single(players=("Ann\nspeed\n  Eve  99", "Bob\x1b[2J"), ident=1))
    db.close()
    r = subprocess.run([sys.executable, "-m", "host_tools.results", "--db", str(path)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0
    assert "Ann\\nspeed\\n  Eve  99" in r.stdout and "Bob\\x1b[2J" in r.stdout
    assert "\x1b" not in r.stdout and len(r.stdout.splitlines()) == 4


def test_a_closed_pipe_and_a_cp1252_console(tmp_path):
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.add_record(speed_single(players=("Ann \U0001F600", "Bob"), ident=1))
    db.close()
    r = subprocess.run([sys.executable, "-m", "host_tools.results", "--db", str(path)],
                       capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONIOENCODING="cp1252"))
    assert r.returncode == 0 and "Ann \\U0001f600" in r.stdout
    r_fd, w_fd = os.pipe()
    os.close(r_fd)
    try:
        r = subprocess.run([sys.executable, "-m", "host_tools.results", "--db", str(path), "--json"],
                           stdout=w_fd, stderr=subprocess.PIPE, cwd=ROOT)
    finally:
        os.close(w_fd)
    assert r.stderr == b""


def test_a_file_that_is_not_a_database_exits_2(tmp_path):
    p = tmp_path / "r.db"
    p.write_text("not sqlite " * 50)
    r = subprocess.run([sys.executable, "-m", "host_tools.results", "--db", str(p)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "r.db" in r.stderr
