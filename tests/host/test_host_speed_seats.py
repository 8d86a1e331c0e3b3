"""The host tools with Speed records of 3 and 4 players (SP-35: a deal's
`left` is one count a player; SP-20: the seat count is the number of
`players`): speedref-log stores them and their slaps, speedref-results
stands every player, speedref-score prints a column a player."""
import json

import pytest

from host_tools.intake import lines
from host_tools.cli import score
from host_tools.club import standings
from host_tools.club.db import ResultsDB
from host_fixtures import speed_seated
from speedref.engine import records

SEATS = (3, 4)


def line(obj):
    return (json.dumps(obj) + "\n").encode()


def slap(winner, margin, deal=1):
    return {"ev": "slap", "game": "speed", "kind": "out", "deal": deal, "winner": winner,
            "tie": [], "margin_us": margin, "presses": [], "false_starts": []}


@pytest.mark.parametrize("seats", SEATS)
def test_log_stores_an_n_seat_record_and_links_its_slaps_SP34_SP35(seats):
    db = ResultsDB(":memory:")
    outs, errs = [], []
    core = lines.LineCore(db, out=outs.append, err=errs.append)
    rec = speed_seated(seats, 1, ident="dev-%d" % seats)
    core.feed(line(slap(seats - 1, 700)))   # the last seat wins a slap among N pads
    core.feed(line(slap(0, 2500, deal=2)))
    core.feed(line({"ev": "game_end", "record": rec}))
    assert errs == [] and db.count_games() == 1 and db.games()[0][1] == rec
    rows, unlinked = standings.standings(db)
    t = dict((r["player"], r) for r in rows)
    names = rec["players"]
    assert unlinked == 0 and sorted(t) == sorted(names), "every player of the record stands"
    assert t[names[-1]]["slap_wins"] == 1 and t[names[-1]]["median_margin_us"] == 700
    s = records.summary(rec)
    for p, n in enumerate(names):
        assert t[n]["games"] == 1 and t[n]["wins"] == (1 if p in s["winners"] else 0)
        assert t[n]["average_score"] == s["totals"][p], "SP-35: the sum of the losers' counts"


@pytest.mark.parametrize("seats", SEATS)
def test_log_refuses_a_deal_without_one_count_a_player_SP35(seats):
    db = ResultsDB(":memory:")
    outs, errs = [], []
    core = lines.LineCore(db, out=outs.append, err=errs.append)
    rec = speed_seated(seats, 2)
    rec["deals"][0]["left"] = rec["deals"][0]["left"][:-1]  # a count missing
    core.feed(line({"ev": "game_end", "record": rec}))
    assert db.count_games() == 0 and errs and "SP-35" in errs[-1]


def test_results_a_slap_by_a_seat_the_game_has_not_is_skipped_SP27():
    db = ResultsDB(":memory:")
    row, _ = db.add_record(speed_seated(3, 3, ident=1))
    ids = [db.add_slap({"game": "speed", "kind": "out", "winner": w, "margin_us": 100}) for w in (2, 3)]
    db.link_slaps(ids, row)
    skipped = []
    rows, _ = standings.standings(db, skipped)
    assert [s["table"] for s in skipped] == ["slaps"] and "0..2" in skipped[0]["why"]
    assert sum(r["slap_wins"] for r in rows) == 1


@pytest.mark.parametrize("seats", SEATS)
def test_score_prints_a_column_a_player_and_every_losers_count_SP35(seats, tmp_path, capsys):
    rec = speed_seated(seats, 4)
    f = tmp_path / "r.json"
    f.write_text(json.dumps(rec))
    assert score.main([str(f)]) == 0
    text = capsys.readouterr().out
    header = [s for s in text.splitlines() if s.startswith("Deal ")][0]
    assert header.split()[1:] == rec["players"]
    d = rec["deals"][0]
    row = [s for s in text.splitlines() if s.startswith("deal 1 ")][0]
    for p, n in enumerate(d["left"]):
        assert (("won +%d" % sum(d["left"])) if p == d["winner"] else ("%d left" % n)) in row
    assert score.main([str(f), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["players"] == rec["players"] and got["totals"] == records.summary(rec)["totals"]


@pytest.mark.parametrize("seats", (2, 3, 4))
def test_score_names_a_single_deals_winner_alone_SP19_SP34(seats, tmp_path, capsys):
    """Classic, slap to win, one deal: the last seat won it and every loser
    ran out too and lost the slap (SP-34), so the deal scored 0.  The
    single deal is the game (SP-19): its winner alone, not every player
    level at 0."""
    names = ["P%d" % (p + 1) for p in range(seats)]
    w = seats - 1
    rec = {"game": "speed", "layout": "classic", "match": {"single": True}, "slap_to_win": True,
           "players": names, "deals": [{"winner": w, "left": [0] * seats if seats > 2 else 0}]}
    f = tmp_path / "r.json"
    f.write_text(json.dumps(rec))
    assert score.main([str(f)]) == 0
    text = capsys.readouterr().out
    assert "Winner: P%d" % seats in text and "Shared win" not in text, text
    assert "Decided by: won the single deal (+0)" in text
    assert score.main([str(f), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["winners"] == [w]
