"""speedref-score: scoresheets, --json, exit codes, nothing on stdout on error."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from host_tools.cli import score
from host_tools.club.db import ResultsDB
from host_fixtures import partners_game, speed_single, speedrun_short

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "speedref-score"


def run(args, stdin=None):
    return subprocess.run([str(SCRIPT)] + args, input=stdin, capture_output=True, text=True, cwd=ROOT)


def write(tmp_path, obj, name="rec.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(p)


def test_json_summary_of_speedrun_record(tmp_path, capsys):
    """SR-26: hands hit exactly earn the Perfect Bonus -2; lowest total wins."""
    assert score.main([write(tmp_path, speedrun_short()), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["totals"] == [-7, -10, 23] and got["winners"] == [1]
    assert got["hands_played"] == 6 and got["ended_early"] is False


def test_sheet_shows_hands_running_totals_winner_and_tiebreak(tmp_path, capsys):
    """PT-14: made bid of 7: contractor and partner score bid plus tricks."""
    assert score.main([write(tmp_path, partners_game())]) == 0
    text = capsys.readouterr().out
    assert "1. Ann deals; Ann bids 7 spades with Cat: made" in text
    assert "11 (4 tr)  = 11" in text
    assert "Totals: Ann 11, Bob 3, Cat 10, Dan 3" in text
    assert "Winner: Ann" in text and "Decided by: highest total" in text


def test_installed_script_reads_stdin():
    r = run(["-", "--json"], stdin=json.dumps(speed_single(winner=1, left=7)))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["totals"] == [0, 7]


def test_module_entry_point(tmp_path):
    r = subprocess.run([sys.executable, "-m", "host_tools.cli.score", write(tmp_path, speed_single())],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "Winner: Ann" in r.stdout


def bad_partners():
    rec = partners_game()
    rec["hands"][0]["tricks"] = [4, 3, 3, 2]
    return rec


def hands_after_over():
    rec = partners_game()
    rec["hands"].append(dict(rec["hands"][0]))
    return rec


def revealed_pass():
    rec = speedrun_short()
    rec["hands"][5]["revealed"] = [True, False, False]
    return rec


def redo_not_completed():
    rec = speedrun_short()
    rec["hands"][0]["contracts"] = ["REDO:W5", "W4", "W4"]
    return rec


@pytest.mark.parametrize("payload, must", [
    ('{"game": "speed", ', "bad JSON"),
    ("[1, 2]", "REC-1"),
    ('"speed"', "REC-1"),
    (json.dumps({"game": "chess"}), "REC-1"),
    (json.dumps(bad_partners()), "PT-13"),                 # tricks do not add up
    (json.dumps(hands_after_over()), "PT-18"),             # hands after the game is over
    (json.dumps(speed_single(left=99)), "SP-18: deal 1"),  # left out of range
    (json.dumps(revealed_pass()), "SR-22: hand 6"),       # a Pass cannot be revealed
    (json.dumps(redo_not_completed()), "SR-19: hand 1"),   # Redo of nothing completed
])
def test_invalid_record_exits_2_one_line_stderr_empty_stdout(tmp_path, payload, must):
    for json_flag in ([], ["--json"]):
        r = run([write(tmp_path, payload)] + json_flag)
        assert r.returncode == 2
        assert r.stdout == ""
        assert len(r.stderr.strip().splitlines()) == 1 and must in r.stderr


def test_invalid_record_names_hand_player_and_rule(tmp_path):
    r = run([write(tmp_path, bad_partners())])
    assert "hand 1" in r.stderr and "player" in r.stderr and "PT-13" in r.stderr


def test_missing_file_exits_2(tmp_path):
    r = run([str(tmp_path / "nope.json")])
    assert r.returncode == 2 and r.stdout == "" and "cannot read" in r.stderr


def test_record_from_results_database(tmp_path):
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.add_record(partners_game(ident="dev-9"))
    db.add_record(speed_single(ident=4))
    db.close()
    r = run(["--db", str(path), "--id", "dev-9", "--json"])
    assert r.returncode == 0 and json.loads(r.stdout)["totals"] == [11, 3, 10, 3]
    r = run(["--db", str(path), "--id", "4", "--json"])      # a numeric device id
    assert json.loads(r.stdout)["totals"] == [5, 0]
    r = run(["--db", str(path), "--id", "nope"])
    assert r.returncode == 2 and r.stdout == "" and "no record with id nope" in r.stderr


def test_spit_sheet_counts_rounds(tmp_path, capsys):
    """Spit: the player who gets rid of all cards wins (cards[i] == 0 in the last round)."""
    rec = {"game": "spit", "players": ["Ann", "Bob"],
           "rounds": [{"cleared": 0, "slap": 1, "cards": [20, 32]}, {"cleared": 0, "cards": [0, 52]}]}
    assert score.main([write(tmp_path, rec)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[2].startswith("Round ") and "Winner: Ann" in text
    assert "2 rounds played" in text


def test_one_deal_is_a_deal_not_deals(tmp_path, capsys):
    """The unit's count agrees with its number on the sheet and the page."""
    assert score.main([write(tmp_path, speed_single())]) == 0
    text = capsys.readouterr().out
    assert "1 deal played" in text and "1 deals" not in text
    rec = {"game": "spit", "players": ["Ann", "Bob"], "rounds": [{"cleared": 0, "cards": [0, 52]}]}
    assert score.main([write(tmp_path, rec)]) == 0
    assert "1 round played" in capsys.readouterr().out
    from host_tools import jsonin
    assert [jsonin.count(n, "deal") for n in (0, 1, 2)] == ["0 deals", "1 deal", "2 deals"]
