"""Game records (engine/records.py): the dispatch to each game's replay, the
summary `speedref-score --json` prints and what standings count as a win
(PT-20: an agreed stop)."""
import pytest

from speedref.engine import records
from speedref.engine.errors import RuleError

SPEED = {"game": "speed", "layout": "pagat", "match": {"target": 10}, "players": ["Ann", "Bob"],
         "deals": [{"winner": 1, "left": 4}]}


def test_pt20_summary_of_an_unfinished_game_and_its_agreed_stop():
    s = records.summary(SPEED)
    assert s == {"game": "speed", "players": ["Ann", "Bob"], "totals": [0, 4], "winners": [1],
                 "tiebreak": "ended early, leading 0-4 points", "hands_played": 1,
                 "ended_early": True, "over": False, "stopped": False}
    assert not records.counts_as_win(s)
    s = records.summary(dict(SPEED, stopped=True))
    assert s["stopped"] is True and records.counts_as_win(s)
    assert records.summary(dict(SPEED, stopped=1))["stopped"] is False


def test_pt20_a_game_played_to_its_end_is_over_never_stopped():
    r = dict(SPEED, deals=[{"winner": 1, "left": 10}], stopped=True)
    s = records.summary(r)
    assert s["over"] is True and s["stopped"] is False and s["ended_early"] is False
    assert s["winners"] == [1] and s["tiebreak"] == "first to 10 points (0-10 points)"
    assert records.counts_as_win(s)


def test_records_dispatch_by_game_and_refuse_what_is_none():
    assert records.replay(SPEED).totals == [0, 4]
    assert records.summary({"game": "spit", "players": ["a", "b"], "rounds": []})["game"] == "spit"
    for bad in ([], "speed", None):
        with pytest.raises(RuleError) as e:
            records.replay(bad)
        assert e.value.rule == "REC-1" and str(e.value) == "REC-1: a game record is a JSON object"
    for bad in ({"game": "chess"}, {}):
        with pytest.raises(RuleError) as e:
            records.replay(bad)
        assert e.value.rule == "REC-1"
    assert str(e.value).startswith("REC-1: unknown game None")
    with pytest.raises(RuleError) as e:
        records.replay({"game": "chess"})
    assert str(e.value) == "REC-1: unknown game 'chess' (expected one of speed, spit, speedrun, partners)"
    assert records.game_module("partners").__name__ == "speedref.engine.partners"
