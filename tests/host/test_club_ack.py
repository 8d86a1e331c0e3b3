"""The club's acknowledgement, end to end: Wi-Fi tables (the firmware's
uplink under the MicroPython Unix port), the club's own broker set-up
(docs/mosquitto/club.conf and club.acl, started as they are by Mosquitto on
a loopback port) and the laptop's listener (speedref-log --mqtt) storing
into a results database.  A board keeps each game on its flash until the
listener has stored it and said so; no queue limit, flood, restart or cut
loses a game, it only delays it; the record numbers a table's install gave
that the database has never seen are named, and asked for again."""
import threading

import pytest

import mqtt_rig
from host_tools.club import gaps
from host_tools.cli import results
from host_tools.club.db import ResultsDB
from test_uplink_mqtt import Club, WAIT_S

pytestmark = pytest.mark.skipif(mqtt_rig.why_missing() is not None, reason=str(mqtt_rig.why_missing()))

TABLES = ("t1", "t2", "t3")
ACCOUNTS = dict([("listener", "pw-listener"), ("t9", "pw-t9")] + [(t, "pw-" + t) for t in TABLES])
PW = ACCOUNTS["listener"]
TICKS = 20000  # loop passes a board is given to finish (2,000 s of its clock): far more than needed


@pytest.fixture
def rig(tmp_path):
    made = []

    class Rig:
        def broker(self, **settings):
            self.b = mqtt_rig.ClubBroker(tmp_path / "broker", ACCOUNTS, settings).start()
            made.append(self.b.stop)
            return self.b

        def club(self, db="results.db"):
            c = Club(tmp_path, self.b.url, db=db, password=PW)
            made.append(c.close)
            return c

        def board(self, table, uid=None, root=None):
            b = mqtt_rig.BoardProc(tmp_path / (root or table), self.b.port, table=table, user=table,
                                   password=ACCOUNTS[table], uid=uid or "b0" + table)
            made.append(b.close)
            return b

    yield Rig()
    for stop in reversed(made):
        stop()


def stored_once(club, ids):
    db = ResultsDB(club.path)
    try:
        got = [rec["id"] for _, rec in db.games()]
    finally:
        db.close()
    assert sorted(got) == sorted(ids), (len(got), len(ids))


def test_the_laptop_away_for_more_games_than_the_brokers_queue_holds(rig):
    broker = rig.broker(max_queued_messages=3)
    rig.club().close()  # the listener's session is on the broker; the laptop goes
    tables = [rig.board(t) for t in TABLES]
    ids = []
    for t in tables:
        ids += t.ask(add=6)["ids"]
    for t in tables:  # 40 s of each board's loop: a record out, the broker's PUBACK, no answer, out again
        got = t.ask(run={"ticks": 400})
        assert got["pubacks"] >= 3 and got["acks"] == 0 and got["sent"] == 0 and got["backlog"] == 6
        assert {"ev": "uplink", "state": "waiting", "msg": "no answer from the club's listener"} in t.lines
    assert broker.dropped(), "the broker's queue never overflowed: the test proves nothing"
    club = rig.club()  # the laptop is back
    for t in tables:
        got = t.ask(run={"acks": 6, "ticks": TICKS})
        assert got["acks"] == 6 and got["backlog"] == 0 and got["sent"] == 6
    club.wait_stored(18)
    stored_once(club, ids)


def test_a_flood_from_another_client_loses_nothing_a_board_sent(rig):
    broker = rig.broker(max_queued_messages=20)
    club = rig.club()
    tables = [rig.board(t) for t in TABLES[:2]]
    ids = []
    for t in tables:
        ids += t.ask(add=10)["ids"]
    flooded = threading.Event()

    def flood():
        import paho.mqtt.client as pm
        c = pm.Client(pm.CallbackAPIVersion.VERSION2, client_id="flood", protocol=pm.MQTTv311)
        c.username_pw_set("t9", ACCOUNTS["t9"])
        c.max_queued_messages_set(0)
        c.max_inflight_messages_set(1000)
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        last = None
        for i in range(10000):
            last = c.publish("speedref/club/t9/game", b"x%d" % i, qos=1)
        last.wait_for_publish(120)
        c.loop_stop()
        c.disconnect()
        flooded.set()
    th = threading.Thread(target=flood, daemon=True)
    th.start()
    for t in tables:  # the boards' loops run while the flood does
        t.proc.stdin.write(b'{"run": {"acks": 10, "ticks": %d}}\n' % TICKS)
        t.proc.stdin.flush()
    for t in tables:
        got = t._until(lambda o: "reply" in o, 300)
        assert got["acks"] == 10 and got["backlog"] == 0
    th.join(300)
    assert flooded.is_set()
    club.wait_stored(20)
    stored_once(club, ids)
    assert broker.dropped(), "the flood never overflowed the listener's queue: the test proves nothing"


def test_the_broker_killed_without_persistence_between_publish_and_the_clubs_answer(rig):
    broker = rig.broker(persistence="false")
    rig.club().close()  # the laptop away: the broker queues for it, in memory only
    b = rig.board("t1")
    ids = b.ask(add=5)["ids"]
    got = b.ask(run={"pubacks": 1, "ticks": 2000})
    assert got["pubacks"] == 1 and got["acks"] == 0  # the broker has it; the club has not said
    broker.kill()  # everything it held is gone
    got = b.ask(run={"ticks": 50})
    assert got["sent"] == 0 and got["backlog"] == 5
    broker.start()
    club = rig.club()
    got = b.ask(run={"acks": 5, "ticks": TICKS})
    assert got["acks"] == 5 and got["backlog"] == 0
    club.wait_stored(5)
    stored_once(club, ids)


@pytest.mark.parametrize("cut", ["wifi", "power"])
def test_a_board_cut_off_between_the_brokers_ack_and_the_clubs_sends_again_stored_once(rig, cut):
    rig.broker()
    rig.club().close()  # away: the broker's PUBACK comes, the club's answer cannot
    b = rig.board("t1")
    ids = b.ask(add=1)["ids"]
    assert b.ask(run={"pubacks": 1, "ticks": 2000})["pubacks"] == 1
    if cut == "wifi":
        b.ask(wifi=False)
        b.ask(run={"ticks": 5})
    else:
        b.close()  # the power goes: sent.json as it was
    club = rig.club()
    club.wait_stored(1)  # the queued copy: stored, answered to nobody
    core = club.listener.core
    if cut == "wifi":
        b.ask(wifi=True)
    else:
        b = rig.board("t1")
    got = b.ask(run={"acks": 1, "ticks": TICKS})
    assert got["acks"] == 1 and got["sent"] == 1 and got["backlog"] == 0
    assert club.listener.wait(lambda: core.duplicates >= 1, WAIT_S)
    assert core.stored == 1
    stored_once(club, ids)
    assert [o["seq"] for o in b.uplink_lines() if o["state"] == "stored"] == [1]


def test_a_gap_in_a_tables_numbers_is_named_and_asked_for(rig, capsys):
    rig.broker()
    club = rig.club()
    b = rig.board("t1")
    ids = b.ask(add=2)["ids"]
    b.ask(abandon=1)  # a game given up: its number has no record
    ids += b.ask(add=2)["ids"]
    assert [i.rsplit("-", 1)[1] for i in ids] == ["1", "2", "4", "5"]
    sends = b.ask(run={"acks": 4, "ticks": TICKS})["sends"]
    prefix = ids[0].rsplit("-", 1)[0]
    said = [t for t in club.out if "never seen" in t]
    assert said == ["table club/t1: record 3 of %s never seen here: asked the table to send it again" % prefix]
    b.ask(run={"ticks": 20})
    assert {"ev": "uplink", "state": "resend", "seq": 3, "last": 3} in b.lines
    got = b.ask(run={"ticks": 20})
    assert got["acks"] == 4 and got["redo"] == [0, 0]
    assert got["sends"] == sends, "it keeps no record 3: nothing is sent for it"
    club.close()
    assert results.main(["gaps", "--db", club.path]) == 0
    out = capsys.readouterr().out
    assert "%s: 4 of 1-5 stored; never seen: 3" % prefix in out  # the rig's records name no table
    assert results.main(["gaps", "--db", club.path, "--json"]) == 0
    import json
    rows = json.loads(capsys.readouterr().out)["installs"]
    assert rows == [{"install": prefix, "table": None, "stored": 4, "last": 5, "missing": [3]}]


def test_a_new_database_asks_a_table_for_what_it_misses_and_gets_it(rig):
    rig.broker()
    first = rig.club()
    b = rig.board("t1")
    ids = b.ask(add=3)["ids"]
    assert b.ask(run={"acks": 3, "ticks": TICKS})["acks"] == 3
    first.close()
    club = rig.club(db="fresh.db")  # the laptop's database lost: a fresh one
    ids += b.ask(add=1)["ids"]
    got = b.ask(run={"acks": 7, "ticks": TICKS})  # record 4, then 1-3 again, asked for
    assert got["acks"] == 7 and got["redo"] == [0, 0]
    assert {"ev": "uplink", "state": "resend", "seq": 1, "last": 3} in b.lines
    club.wait_stored(4)
    stored_once(club, ids)
    db = ResultsDB(club.path)
    try:
        assert gaps.report(db)[0][0]["missing"] == []
    finally:
        db.close()


def test_records_of_an_earlier_install_on_the_flash_are_answered_too(rig, tmp_path):
    """seq.json lost (set aside as damaged): the board draws a new install
    and numbers on; the records still waiting carry the old one in their
    ids, and the club's answer names the id the record holds."""
    rig.broker()
    rig.club().close()
    b = rig.board("t1")
    ids = b.ask(add=2)["ids"]
    b.close()
    for name in ("seq.json", "seq.json.bak"):
        p = tmp_path / "t1" / name
        if p.exists():
            p.unlink()
    b = rig.board("t1")
    ids += b.ask(add=1)["ids"]
    assert len({i.rsplit("-", 2)[1] for i in ids}) == 2, ids
    club = rig.club()
    got = b.ask(run={"acks": 3, "ticks": TICKS})
    assert got["acks"] == 3 and got["backlog"] == 0
    club.wait_stored(3)
    stored_once(club, ids)


def documented(board):
    """Every uplink line the board gave matches a documented example, field for field."""
    from test_docs import _candidates, read_protocol
    doc = read_protocol()
    for line in board.uplink_lines():
        assert any(set(e) == set(line) for e in _candidates(doc, line)), line


def test_a_record_the_rules_refuse_is_answered_and_holds_up_none_behind_it(rig):
    rig.broker()
    club = rig.club()
    b = rig.board("t1")
    ids = b.ask(add=1)["ids"]
    bad = b.ask(bad=1)["ids"]
    ids += b.ask(add=2)["ids"]
    got = b.ask(run={"acks": 4, "ticks": TICKS})
    assert got["acks"] == 4 and got["backlog"] == 0 and got["sent"] == 4
    club.wait_stored(3)
    stored_once(club, ids)
    assert [(o["state"], o["seq"]) for o in b.uplink_lines() if "seq" in o] == [
        ("stored", 1), ("refused", 2), ("stored", 3), ("stored", 4)]
    assert [e for e in club.err if e.startswith("skipped: invalid record")]
    assert not [t for t in club.out if "never seen" in t and bad[0].rsplit("-", 1)[0] in t], \
        "a refused record is no gap to ask for"
    documented(b)


def test_every_uplink_line_the_club_causes_is_documented(rig):
    rig.broker(max_queued_messages=3)
    rig.club().close()
    b = rig.board("t1")
    b.ask(add=2)
    b.ask(abandon=1)
    b.ask(add=1)
    b.ask(run={"ticks": 200})  # waiting
    rig.club()
    assert b.ask(run={"acks": 3, "ticks": TICKS})["acks"] == 3
    b.ask(run={"ticks": 20})  # the request for number 3
    assert {o["state"] for o in b.uplink_lines()} == {"online", "waiting", "stored", "resend"}
    documented(b)


def test_the_spool_is_bounded_the_newest_game_waits_and_none_is_removed(rig):
    from speedref.storage import KEEP
    rig.broker()
    rig.club().close()  # the laptop away all evening
    b = rig.board("t1")
    got = b.ask(add=KEEP + 1)
    assert len(got["ids"]) == KEEP and got["full"] == "%d games wait for the club" % KEEP
    assert got["kept"] == KEEP and got["backlog"] == KEEP
    club = rig.club()
    got = b.ask(run={"acks": KEEP, "ticks": TICKS})
    assert got["acks"] == KEEP and got["backlog"] == 0
    got = b.ask(add=1)  # the game that waited: room now, the oldest acknowledged record goes
    assert len(got["ids"]) == 1 and "full" not in got and got["kept"] == KEEP
    got = b.ask(run={"acks": KEEP + 1, "ticks": TICKS})
    assert got["acks"] == KEEP + 1
    club.wait_stored(KEEP + 1)
