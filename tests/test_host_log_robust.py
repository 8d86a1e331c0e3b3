"""speedref-log keeps going past any single bad line: each hostile line is
skipped with a message, and the good line after it is still stored."""
import json

import pytest

from host_tools import log as logmod
from host_tools.db import ResultsDB
from host_fixtures import speed_single


def line(obj):
    return (json.dumps(obj) + "\n").encode()


def make_core(path=":memory:"):
    db = ResultsDB(path)
    outs, errs = [], []
    return logmod.LineCore(db, out=outs.append, err=errs.append), outs, errs


def deep(n):
    return ("[" * n + "]" * n).encode()


SURROGATE = b'"\\ud800"'
HOSTILE = [
    b'{"ev": ' + SURROGATE + b'}\n',
    b'{"ev": "game_end", "record": {"game": "speed", "layout": "pagat", "match": {"single": true},'
    b' "players": [' + SURROGATE + b', "Bob"], "deals": [{"winner": 0, "left": 5}], "id": "s1"}}\n',
    b'{"ev": "slap", "game": ' + SURROGATE + b', "winner": 0, "margin_us": 5}\n',
    b'{"ev": "deal", "x": ' + deep(20000) + b'}\n',
    deep(20000) + b"\n",
    b'{"ev": "x", ' + SURROGATE + b': 1}\n',
    line({"ev": "slap", "game": "speed", "kind": [1], "winner": 0, "margin_us": 5}),
    line({"ev": "slap", "game": "speed", "kind": {"a": 1}, "winner": 0, "margin_us": 5}),
    line({"ev": "slap", "game": "speed", "kind": "out", "winner": 0, "margin_us": 10 ** 20}),
    line({"ev": "slap", "game": "speed", "kind": "out", "winner": 0, "margin_us": 2 ** 40}),
    line({"ev": "slap", "game": ["speed"], "winner": 0, "margin_us": 5}),
    line({"ev": "slap", "game": "speed", "winner": 0, "margin_us": 5.5}),
    b'{"ev": "slap", "game": "speed", "winner": 0, "margin_us": NaN}\n',
    b'{"ev": "slap", "game": "speed", "winner": 0, "margin_us": ' + b"9" * 5000 + b'}\n',
    b'{"ev": "game_end", "ev": "stored", "record": {}}\n',        # a key twice
    line({"ev": "game_end", "record": dict(speed_single(ident="big"), id=10 ** 20)}),
]


@pytest.mark.parametrize("bad", HOSTILE, ids=range(len(HOSTILE)))
def test_one_hostile_line_is_skipped_and_the_next_line_is_stored(bad):
    core, outs, errs = make_core()
    core.feed(bad + line({"ev": "game_end", "record": speed_single(ident="after")}))
    assert core.skipped == 1 and len(errs) == 1 and errs[0].startswith("skipped:"), errs
    assert core.db.count_slaps() == 0
    assert [r["id"] for _, r in core.db.games()] == ["after"]


def test_duplicate_keys_in_a_record_are_refused():
    core, _, errs = make_core()
    core.feed(b'{"ev": "game_end", "record": {"game": "chess", "game": "speed", "layout": "pagat",'
              b' "match": {"single": true}, "players": ["A", "B"], "deals": [{"winner": 0, "left": 5}]}}\n')
    assert core.db.count_games() == 0 and "twice" in errs[0]


def test_record_differing_from_the_stored_one_under_the_same_id_is_reported():
    core, outs, errs = make_core()
    core.feed(line({"ev": "game_end", "record": speed_single(left=5, ident="d1")}))
    core.feed(line({"ev": "stored", "record": speed_single(left=5, ident="d1")}))
    assert errs == []
    core.feed(line({"ev": "stored", "record": speed_single(left=6, ident="d1")}))
    assert core.db.count_games() == 1 and core.db.games()[0][1]["deals"][0]["left"] == 5
    assert len(errs) == 1 and "d1" in errs[0] and "differs" in errs[0]


def test_a_player_named_twice_is_refused():
    core, _, errs = make_core()
    core.feed(line({"ev": "game_end", "record": speed_single(players=("Ann", "Ann"), ident="tw")}))
    assert core.db.count_games() == 0 and "Ann" in errs[0] and "twice" in errs[0]


def test_a_file_that_is_not_a_database_exits_2(tmp_path, capsys):
    p = tmp_path / "r.db"
    p.write_text("not sqlite " * 50)
    assert logmod.main(["--db", str(p), "--port", "/dev/null", "--idle-exit", "0"]) == 2
    assert "cannot open the database" in capsys.readouterr().err
