"""speedref-results: standings per game and player, CSV and JSON export."""
import csv
import json

from host_tools.cli import results
from host_tools.club import standings
from host_tools.club.db import ResultsDB
from host_fixtures import partners_game, speed_single, speedrun_short


def fill(path):
    db = ResultsDB(path)
    db.add_record(speed_single(winner=0, left=5, ident=1))     # Ann 5, Bob 0
    db.add_record(speed_single(winner=1, left=9, ident=2))     # Ann 0, Bob 9
    db.add_record(speed_single(winner=0, left=3, ident=3))     # Ann 3, Bob 0
    row, _ = db.add_record(speedrun_short(ident=4))
    db.add_record(partners_game(ident=5))
    # slaps of game 1 (row 1): Ann (seat 0) twice, Bob once, one tie
    ids = [db.add_slap({"game": "speed", "kind": "out", "winner": w, "margin_us": m})
           for w, m in [(0, 1000), (0, 4000), (1, 700), (None, 100)]]
    db.link_slaps(ids, 1)
    db.add_slap({"game": "speed", "winner": 1, "margin_us": 50})   # never tied to a game
    db.close()


def by_key(rows):
    return dict(((r["game"], r["player"]), r) for r in rows)


def test_standings_wins_games_average(tmp_path):
    """SP-19: a deal scores the loser's cards left to the winner."""
    fill(tmp_path / "r.db")
    db = ResultsDB(tmp_path / "r.db")
    rows, unlinked = standings.standings(db)
    db.close()
    t = by_key(rows)
    assert (t["speed", "Ann"]["games"], t["speed", "Ann"]["wins"], t["speed", "Ann"]["average_score"]) == (3, 2, 2.67)
    assert (t["speed", "Bob"]["games"], t["speed", "Bob"]["wins"], t["speed", "Bob"]["average_score"]) == (3, 1, 3.0)
    assert t["partners", "Ann"]["wins"] == 1 and t["partners", "Cat"]["average_score"] == 10
    assert unlinked == 1
    # sorted: per game, most wins first
    assert [r["player"] for r in rows if r["game"] == "speed"] == ["Ann", "Bob"]


def test_slap_wins_and_median_margin(tmp_path):
    fill(tmp_path / "r.db")
    db = ResultsDB(tmp_path / "r.db")
    t = by_key(standings.standings(db)[0])
    db.close()
    assert (t["speed", "Ann"]["slap_wins"], t["speed", "Ann"]["median_margin_us"]) == (2, 2500)
    assert (t["speed", "Bob"]["slap_wins"], t["speed", "Bob"]["median_margin_us"]) == (1, 700)


def test_perfect_bonuses_for_speed_run(tmp_path):
    """SR-26: Perfect Bonuses on the scorecard (Ann 4: W4 W5 W1 W0; Bob 5: those and
    MIDDLE with 4 of 3-4-5; Cat 1: W4)."""
    fill(tmp_path / "r.db")
    db = ResultsDB(tmp_path / "r.db")
    t = by_key(standings.standings(db)[0])
    db.close()
    assert [t["speedrun", n]["perfect_bonuses"] for n in ("Ann", "Bob", "Cat")] == [4, 5, 1]
    assert t["speed", "Ann"]["perfect_bonuses"] is None


def test_cli_json_csv_and_text(tmp_path, capsys):
    fill(tmp_path / "r.db")
    assert results.main(["--db", str(tmp_path / "r.db"), "--json", "--csv", str(tmp_path / "s.csv")]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["unlinked_slaps"] == 1 and len(got["standings"]) == 2 + 3 + 4
    with open(tmp_path / "s.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    ann = [r for r in rows if r["game"] == "speed" and r["player"] == "Ann"][0]
    assert ann == {"game": "speed", "player": "Ann", "games": "3", "wins": "2", "average_score": "2.67",
                   "perfect_bonuses": "", "slap_wins": "2", "median_margin_us": "2500.0"}
    assert results.main(["--db", str(tmp_path / "r.db")]) == 0
    text = capsys.readouterr().out
    assert "speed\n" in text and "2.5 ms" in text and "1 slap verdicts not tied" in text


def test_empty_database(tmp_path, capsys):
    ResultsDB(tmp_path / "e.db").close()
    assert results.main(["--db", str(tmp_path / "e.db")]) == 0
    assert "no games" in capsys.readouterr().out


def test_an_unfinished_game_is_a_win_only_when_the_table_agreed_to_stop_PT20(tmp_path):
    """PT-20 (and SP-20, SPIT-15, SR-28): a record that stops before the
    game's end names a leader, but standings count that as a win only when
    the record says the table agreed to stop ("stopped": true, written by the
    device's confirmed stop); otherwise it is a game played and nobody's win."""
    db = ResultsDB(str(tmp_path / "r.db"))
    unfinished = dict(partners_game(ident=1), target=100)       # Ann leads
    agreed = dict(partners_game(ident=2), target=100, stopped=True)
    sr = speedrun_short(ident=3)
    sr["hands"] = sr["hands"][:3]                                # 3 of 6 hands, no stop
    for r in (unfinished, agreed, sr):
        db.add_record(r)
    rows, _ = standings.standings(db)
    db.close()
    t = by_key(rows)
    assert t["partners", "Ann"]["games"] == 2 and t["partners", "Ann"]["wins"] == 1, "PT-20"
    assert t["partners", "Cat"]["wins"] == 0 and t["partners", "Bob"]["wins"] == 0, "PT-20"
    assert all(t["speedrun", p]["wins"] == 0 and t["speedrun", p]["games"] == 1
               for p in ("Ann", "Bob", "Cat")), "SR-28: an unfinished Speed Run is nobody's win"
