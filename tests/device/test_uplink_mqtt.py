"""Tables on Wi-Fi: the firmware's uplink (speedref/uplink.py) under the
MicroPython Unix port publishes every finished game to a real Mosquitto,
and the laptop's listener (host_tools/intake/mqtt.py, speedref-log --mqtt) stores
it through the import path, once, whatever fails in between; the board
marks a record sent only on the listener's answer.  The club's own broker
set-up (docs/mosquitto/) and its failures: tests/host/test_club_ack.py."""
import json
import threading

import pytest

import mqtt_rig
from host_tools.intake import mqtt
from host_tools.club.db import ResultsDB

pytestmark = pytest.mark.skipif(mqtt_rig.why_missing() is not None, reason=str(mqtt_rig.why_missing()))

WAIT_S = 30  # an event that has not come in this long will not come


class Club:
    """The laptop: a Listener storing into a results database, in its own
    thread (league=True: a league's listener)."""

    def __init__(self, tmp_path, url, db="results.db", league=False, **kw):
        self.path = str(tmp_path / db)
        self.league = league
        self.out, self.err = [], []
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.failed = []
        self.listener = None
        self.kw = kw
        self.url = url
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.ready.wait(WAIT_S), "the listener did not start"
        if self.failed:
            raise self.failed[0]

    def _run(self):
        db = ResultsDB(self.path, write=True)
        try:
            self.listener = mqtt.Listener(db, self.out.append, self.err.append, league=self.league)
            orig = self.listener.out

            def out(text):
                orig(text)
                if text.startswith("connected to"):
                    self.ready.set()
            self.listener.core.out = out
            self.listener.out = out
            mqtt.listen(self.listener, self.url, stop=self.stop, **self.kw)
        except Exception as e:  # noqa: BLE001 - handed to the test
            self.failed.append(e)
            self.ready.set()
        finally:
            db.close()

    def wait_stored(self, n, timeout=WAIT_S):
        core = self.listener.core
        assert self.listener.wait(lambda: core.stored >= n, timeout), (core.stored, self.err[-5:])

    def ids(self):
        db = ResultsDB(self.path)
        try:
            return [rec.get("id") for _, rec in db.games()]
        finally:
            db.close()

    def close(self):
        self.stop.set()
        self.thread.join(WAIT_S)


@pytest.fixture
def broker(tmp_path):
    b = mqtt_rig.Broker(tmp_path / "broker").start()
    yield b
    b.stop()


@pytest.fixture
def club(tmp_path, broker):
    c = Club(tmp_path, broker.url)
    yield c
    c.close()


@pytest.fixture
def boards():
    made = []

    def make(*a, **kw):
        b = mqtt_rig.BoardProc(*a, **kw)
        made.append(b)
        return b
    yield make
    for b in made:
        b.close()


def secrets_absent(board):
    text = json.dumps(board.lines)
    for key in ("wifi_password", "password", "ssid"):
        if board.conf.get(key):
            assert board.conf[key] not in text, key


def test_every_game_arrives_once_in_order_and_is_marked_sent_on_the_clubs_word(tmp_path, broker, club, boards):
    b = boards(tmp_path / "t1", broker.port, table="t1")
    ids = b.ask(add=3)["ids"]
    got = b.ask(run={"acks": 3, "ticks": 2000})
    assert got["acks"] == 3 and got["backlog"] == 0 and got["sent"] == 3
    club.wait_stored(3)
    assert club.ids() == ids
    sent = [o for o in b.uplink_lines() if o["state"] == "stored"]
    assert [o["seq"] for o in sent] == [1, 2, 3]
    assert club.listener.answers >= 3  # one a copy too, when the board sent one again
    assert all(o["msg"] == "speedref/club/t1/game" for o in sent)
    assert b.uplink_lines()[0] == {"ev": "uplink", "state": "online", "msg": "speedref/club/t1/game"}
    # a new boot finds nothing left to send: sent.json is on flash
    b.close()
    b2 = boards(tmp_path / "t1", broker.port, table="t1")
    got = b2.ask(run={"ticks": 50})
    assert got["sends"] == 0 and got["backlog"] == 0
    secrets_absent(b)


def test_the_broker_killed_mid_publish_and_restarted_loses_nothing(tmp_path, broker, club, boards):
    b = boards(tmp_path / "t", broker.port)
    ids = b.ask(add=1)["ids"]
    sends = b.ask(run={"acks": 1, "ticks": 2000})["sends"]
    # the next record is written, then the broker dies before its PUBACK
    broker.pause()
    ids += b.ask(add=3)["ids"]
    assert b.ask(run={"ticks": 1})["sends"] == sends + 1
    broker.kill()
    got = b.ask(run={"ticks": 300})
    assert got["acks"] == 1 and got["sent"] == 1  # unacknowledged: still unsent on flash
    assert any(o["state"] == "offline" for o in b.uplink_lines())
    broker.start()
    got = b.ask(run={"acks": 4, "ticks": 3000})
    assert got["acks"] == 4 and got["backlog"] == 0
    club.wait_stored(4)
    assert sorted(club.ids()) == sorted(ids)
    assert len(club.ids()) == 4


def test_cut_between_publish_and_ack_redelivers_and_the_database_holds_it_once(tmp_path, broker, club, boards):
    b = boards(tmp_path / "t", broker.port)
    ids = b.ask(add=1)["ids"]
    b.proc.stdin.write(b'{"cut": true}\n')
    b.proc.stdin.flush()
    b.wait_exit()
    club.wait_stored(1)  # the broker had it: the laptop stored it
    b2 = boards(tmp_path / "t", broker.port)  # power back: the record is still unsent
    got = b2.ask(run={"acks": 1, "ticks": 2000})
    # once, or again if the listener's answer took longer than the club's
    # wait on this rig's fast clock (100 ms of loop time a pass)
    assert got["sends"] >= 1 and got["acks"] == 1 and got["backlog"] == 0
    core = club.listener.core
    assert club.listener.wait(lambda: core.duplicates >= 1, WAIT_S)
    assert club.ids() == ids
    assert core.stored == 1 and core.duplicates >= 1


def test_five_games_while_the_network_is_away_all_arrive_in_order(tmp_path, broker, club, boards):
    b = boards(tmp_path / "t", broker.port)
    b.ask(wifi=False)
    ids = b.ask(add=5)["ids"]
    got = b.ask(run={"ticks": 500})
    assert got["sends"] == 0 and got["backlog"] == 5 and got["joins"] >= 2  # the join tried again
    b.ask(wifi=True)
    got = b.ask(run={"acks": 5, "ticks": 3000})
    assert got["acks"] == 5
    club.wait_stored(5)
    assert club.ids() == ids  # in order


def test_a_wifi_drop_mid_flight_sends_it_again(tmp_path, broker, club, boards):
    b = boards(tmp_path / "t", broker.port)
    ids = b.ask(add=2)["ids"]
    assert b.ask(run={"ticks": 2})["sends"] == 1  # connected, the first PUBLISH out
    b.ask(wifi=False)
    b.ask(run={"ticks": 50})
    b.ask(wifi=True)
    got = b.ask(run={"acks": 2, "ticks": 3000})
    assert got["acks"] == 2 and got["backlog"] == 0
    club.wait_stored(2)
    assert club.ids() == ids
    assert [o["msg"] for o in b.uplink_lines() if o["state"] == "offline"][:1] == ["Wi-Fi lost"]


def test_a_broker_that_never_acknowledges_keeps_the_record_unsent(tmp_path, boards):
    stalled = mqtt_rig.Stalled()
    try:
        b = boards(tmp_path / "t", stalled.port)
        b.ask(add=1)
        got = b.ask(run={"ticks": 400})  # 40 s of loop time: the 10 s ACK_US, and a resend
        assert got["acks"] == 0 and got["sent"] == 0 and got["backlog"] == 1
        assert got["sends"] >= 2  # sent again after the connection was given up
        offline = [o["msg"] for o in b.uplink_lines() if o["state"] == "offline"]
        assert "no answer from the broker in 10 s" in offline
        with stalled.got:
            assert stalled.got.wait_for(lambda: stalled.published >= 2, WAIT_S)
    finally:
        stalled.close()


def test_wrong_credentials_are_refused_said_once_and_never_printed(tmp_path, boards):
    broker = mqtt_rig.Broker(tmp_path / "broker", users={"table": "right-pw", "laptop": "pw-l"}).start()
    club = Club(tmp_path, "mqtt://laptop@127.0.0.1:%d" % broker.port, password="pw-l")
    try:
        b = boards(tmp_path / "t", broker.port, user="table", password="wrong-pw-77")
        b.ask(add=1)
        got = b.ask(run={"ticks": 200})
        assert got["sends"] == 0 and got["backlog"] == 1
        offline = [o for o in b.uplink_lines() if o["state"] == "offline"]
        assert len(offline) == 1  # said once, not at every try
        assert offline[0]["msg"] in ("broker refused: not authorised", "broker refused: bad user name or password")
        secrets_absent(b)
        b.close()
        good = boards(tmp_path / "t", broker.port, user="table", password="right-pw")
        assert good.ask(run={"acks": 1, "ticks": 2000})["acks"] == 1
        secrets_absent(good)
    finally:
        club.close()
        broker.stop()


def test_every_uplink_line_is_documented_with_exactly_its_fields(tmp_path, broker, club, boards):
    from test_docs import _candidates, read_protocol
    doc = read_protocol()
    b = boards(tmp_path / "t", broker.port)
    b.ask(add=1)
    b.ask(run={"acks": 1, "ticks": 2000})
    b.ask(wifi=False)
    b.ask(run={"ticks": 5})
    lines = b.uplink_lines()
    # "waiting" too when the listener's answer took longer than the club's
    # wait on this rig's fast clock (100 ms of loop time a pass)
    assert {"online", "stored", "offline"} <= {o["state"] for o in lines} <= {"online", "stored", "offline", "waiting"}
    for line in lines:
        assert any(set(e) == set(line) for e in _candidates(doc, line)), line


def test_two_tables_and_the_laptop_through_a_broker_restart_every_game_once_in_the_standings(
        tmp_path, broker, club, boards):
    from host_tools.club import standings
    tables = [boards(tmp_path / name, broker.port, table=name, uid=uid) for name, uid in (("a", "aa01"), ("b", "bb02"))]
    ids = []
    for t in tables:
        ids += t.ask(add=2)["ids"]
        assert t.ask(run={"acks": 2, "ticks": 2000})["acks"] == 2
    broker.pause()  # wedged: each table's next game goes out and is not acknowledged
    for t in tables:
        ids += t.ask(add=2)["ids"]
        t.ask(run={"ticks": 3})
    broker.kill()
    for t in tables:  # a game more while it is down
        ids += t.ask(add=1)["ids"]
        assert t.ask(run={"ticks": 100})["acks"] == 2
    broker.start()
    for t in tables:
        got = t.ask(run={"acks": 5, "ticks": 5000})
        assert got["acks"] == 5 and got["backlog"] == 0
    club.wait_stored(10)
    assert sorted(club.ids()) == sorted(ids) and len(club.ids()) == 10
    rows, _, skipped = standings.read_standings(club.path)
    assert not skipped
    speed = [r for r in rows if r["game"] == "speed"]
    assert {r["player"]: r["games"] for r in speed} == {"Ann": 10, "Bob": 10}


# A TLS handshake (mbedtls, an RSA-2048 certificate) needs room of its own;
# in the device's heap it fails as MicroPython's mbedtls glue cannot report
# running out (FATAL: uncaught NLR).
TLS_HEAP = "256wK"


@pytest.mark.skipif(__import__("shutil").which("openssl") is None, reason="openssl not installed")
def test_over_tls_the_board_and_the_laptop_check_the_broker_against_the_club_ca(tmp_path, boards):
    ca, crt, key = mqtt_rig.make_ca(tmp_path / "pki")
    other_ca = mqtt_rig.make_ca(tmp_path / "other")[0]
    broker = mqtt_rig.Broker(tmp_path / "broker", tls=(ca, crt, key)).start()
    try:
        c = Club(tmp_path, broker.url, ca=str(ca))
        try:
            tls = {"tls": True, "ca": ca.read_text()}
            b = boards(tmp_path / "t", broker.port, extra=dict(tls, broker="localhost"), heap=TLS_HEAP)
            ids = b.ask(add=2)["ids"]
            assert b.ask(run={"acks": 2, "ticks": 3000})["acks"] == 2
            c.wait_stored(2)
            assert c.ids() == ids
            # a broker whose certificate the club's CA did not sign is no broker of ours
            b.close()
            fake = boards(tmp_path / "t2", broker.port, extra=dict(broker="localhost", tls=True,
                                                                    ca=other_ca.read_text()), heap=TLS_HEAP)
            fake.ask(add=1)
            got = fake.ask(run={"ticks": 50})
            assert got["sends"] == 0 and got["backlog"] == 1
            assert [o["state"] for o in fake.uplink_lines()] == ["offline"]
        finally:
            c.close()
        with pytest.raises(mqtt.Refused, match="cannot reach"):
            mqtt.listen(None, broker.url, ca=str(other_ca), timeout=5)
    finally:
        broker.stop()
