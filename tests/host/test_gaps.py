"""Record numbers a table gave that the database has never seen
(host_tools/club/gaps.py, `speedref-results gaps`), and the Wi-Fi listener's
answers and requests (host_tools/intake/mqtt.py) without a broker."""
import json

import pytest
from hypothesis import given, strategies as st

import host_fixtures as fx
from host_tools.club import gaps
from host_tools.intake import mqtt
from host_tools.cli import results
from host_tools.club.db import ResultsDB

P = "e6614c3113cb2a2e-1a2b3c4d"


def db_with(tmp_path, recs):
    path = str(tmp_path / "r.db")
    db = ResultsDB(path, write=True)
    for r in recs:
        db.add_game(r, "import")
    db.close()
    return path


def game(ident, table=None, winner=0):
    rec = fx.speed_single(winner=winner, ident=ident)
    if table is not None:
        rec["table"] = table
    return rec


def test_ids_are_read_as_install_and_number_and_nothing_else():
    assert gaps.parse(P + "-17") == (P, 17)
    assert gaps.parse("sim-0badf00d-1") == ("sim-0badf00d", 1)
    for other in ("e6-17", "sim-1", P + "-0", P + "-017", P + "-1234567890", "x-1A2B3C4D-3", 17, None,
                  P + "-3\n", "a b-1a2b3c4d-3"):
        assert gaps.parse(other) is None, other
    assert gaps.runs_text({3, 7, 8, 9, 12}) == "3, 7-9, 12"


@given(st.sets(st.integers(1, 60)))
def test_runs_cover_exactly_the_numbers_each_run_unbroken(nums):
    rs = gaps.runs(nums)
    assert sorted(n for a, b in rs for n in range(a, b + 1)) == sorted(nums)
    assert all(b1 + 1 < a2 for (_, b1), (a2, _) in zip(rs, rs[1:]))


def test_the_report_names_each_installs_missing_numbers_and_its_table(tmp_path, capsys):
    other = "e6614c3113cb2a2e-90ab77e1"
    recs = [game("%s-%d" % (P, n), "t3", n % 2) for n in (1, 2, 4, 5, 9)]
    recs += [game("%s-%d" % (other, n), "Table 3", n % 2) for n in (1, 2)]
    recs += [game("e6-17"), game(None, winner=1)]
    path = db_with(tmp_path, recs)
    assert results.main(["gaps", "--db", path]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "%s (table t3): 5 of 1-9 stored; never seen: 3, 6-8" % P,
        "%s (table Table 3): 2 of 1-2 stored; none missing" % other,
        "2 records with ids of another form (no install named): not counted"]
    assert results.main(["gaps", "--db", path, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["other_ids"] == 2
    assert got["installs"][0] == {"install": P, "table": "t3", "stored": 5, "last": 9, "missing": [3, 6, 7, 8]}


def test_gaps_on_no_database_or_with_other_outputs_is_one_line_and_exit_2(tmp_path, capsys):
    assert results.main(["gaps", "--db", str(tmp_path / "none.db")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    for extra in (["--csv", "x.csv"], ["--html", "x.html"], ["extra"]):
        with pytest.raises(SystemExit) as e:
            results.main(["gaps", "--db", str(tmp_path / "none.db")] + extra)
        assert e.value.code == 2


def test_an_empty_database_says_so(tmp_path, capsys):
    assert results.main(["gaps", "--db", db_with(tmp_path, [])]) == 0
    assert "no records with a board's ids" in capsys.readouterr().out


class Said:
    def __init__(self):
        self.msgs = []

    def __call__(self, topic, text):
        self.msgs.append((topic, text))


def test_the_listener_answers_after_storing_and_asks_once_for_what_it_misses(tmp_path):
    path = db_with(tmp_path, [game("%s-1" % P)])
    db = ResultsDB(path, write=True)
    out, err = [], []
    try:
        lst = mqtt.Listener(db, out.append, err.append)
        said = lst.answer = Said()
        topic = "speedref/riverside/t3/game"
        lst.message(topic, mqtt.record_json(game("%s-4" % P)))
        assert said.msgs == [("speedref/riverside/t3/ack", "stored %s-4" % P),
                             ("speedref/riverside/t3/ack", "resend %s-2 3" % P)]
        assert "table riverside/t3: record 2-3 of %s never seen here: asked the table to send them again" % P in out
        del said.msgs[:]
        lst.message(topic, mqtt.record_json(game("%s-4" % P)))  # a copy: answered, nothing asked again
        lst.message(topic, mqtt.record_json(game("%s-7" % P)))
        assert said.msgs == [("speedref/riverside/t3/ack", "stored %s-4" % P),
                             ("speedref/riverside/t3/ack", "stored %s-7" % P),
                             ("speedref/riverside/t3/ack", "resend %s-5 6" % P)]
        del said.msgs[:]
        bad = dict(game("%s-8" % P), deals=[{"winner": 5, "left": 1}])
        lst.message(topic, mqtt.record_json(bad))
        lst.message(topic, mqtt.record_json(game("%s-9" % P)))
        assert said.msgs == [("speedref/riverside/t3/ack", "refused %s-8" % P),
                             ("speedref/riverside/t3/ack", "stored %s-9" % P)], "a refused number is not asked for"
        del said.msgs[:]
        for rid in (None, "has space-1", "x" * 101, "é-1"):
            lst.message(topic, mqtt.record_json(game(rid, winner=1)))
        assert said.msgs == [], "a record without a board's id gets no answer"
        lst.message("speedref/riverside/t3/other", mqtt.record_json(game("%s-10" % P)))
        assert said.msgs == []
    finally:
        db.close()


def test_no_answer_before_the_record_is_in_the_database(tmp_path):
    path = db_with(tmp_path, [])
    db = ResultsDB(path, write=True)
    try:
        lst = mqtt.Listener(db, lambda t: None, lambda t: None)
        order = []
        add = db.add_game

        def adding(*a, **kw):
            got = add(*a, **kw)
            order.append("committed")
            return got
        db.add_game = adding
        lst.answer = lambda topic, text: order.append(text.split()[0])
        lst.message("speedref/c/t/game", mqtt.record_json(game("%s-1" % P)))
        assert order == ["committed", "stored"]
    finally:
        db.close()
