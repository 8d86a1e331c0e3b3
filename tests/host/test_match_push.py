"""Each round's match pushed to its table over Wi-Fi: the club's own broker
set-up (docs/mosquitto/club.conf and club.acl, started as they are by
Mosquitto on a loopback port), the laptop publishing the round
(host_tools/intake/mqtt.py: QoS 1, retained, on speedref/<club>/<table>/match),
four tables, two of them the firmware's whole device with its uplink on the
MicroPython Unix port (tests/mpy/match_table.py) and two recorded streams
(a client with the table's account that answers its match with a recorded
game, as a board does), and the club's listener storing the games.  The
boards show the match, start it with its names, and every record arrives
tagged with the round; a board offline at the push gets the match when it
connects; a re-pairing replaces it; a match from a client without the
listener's rights is refused by the broker."""
import json
import threading

import pytest

import mqtt_rig
from host_tools.board import match as M
from host_tools.intake import mqtt
from host_tools.club.db import ResultsDB
from test_uplink_mqtt import Club, WAIT_S

pytestmark = pytest.mark.skipif(mqtt_rig.why_missing() is not None, reason=str(mqtt_rig.why_missing()))

TABLES = ("t1", "t2", "t3", "t4")
ACCOUNTS = dict([("listener", "pw-listener")] + [(t, "pw-" + t) for t in TABLES])
PW = ACCOUNTS["listener"]
TICKS = 3000  # loop passes a board is given (60 s of its clock): far more than any step needs
# the device's heap plus the uplink's code and umqtt.simple compiled from source (tests/test_uplink_slap_path.py)
HEAP = "%dwK" % (mqtt_rig.mpyrun.DEVICE_WK + 40)
PEOPLE = {"t1": ["Ann", "Bob"], "t2": ["Cat", "Dan"], "t3": ["Eve", "Fay"], "t4": ["Gus", "Hal"]}


def round_of(evening, number, people=PEOPLE, version=1):
    """The round's matches, one a table: {table: match}."""
    return dict((t, M.make_match(evening, number, "Table %s" % t[1:], "speed", people[t], {"match": "single"},
                                 version=version)) for t in people)


class Recorded:
    """A table that is a recorded stream: a client with the table's account
    that reads its match topic and answers a match with a recorded game of
    its players, tagged with its round, as a board would send it, then
    waits for the club's "stored" answer."""

    def __init__(self, port, table, n=1):
        import paho.mqtt.client as pm
        self.table = table
        self.n = n
        self.matches = []
        self.stored = []
        self.cond = threading.Condition()
        self.c = pm.Client(pm.CallbackAPIVersion.VERSION2, client_id="rec-" + table, protocol=pm.MQTTv311)
        self.c.username_pw_set(table, ACCOUNTS[table])
        self.c.on_message = self._message
        subscribed = threading.Event()
        self.c.on_subscribe = lambda *a: subscribed.set()
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        self.c.subscribe([("speedref/club/%s/match" % table, 1), ("speedref/club/%s/ack" % table, 0)])
        assert subscribed.wait(WAIT_S)

    def _message(self, client, userdata, msg):
        with self.cond:
            if msg.topic.endswith("/match"):
                m = M.parse_message(msg.payload)
                self.matches.append(m)
                if m is not None:
                    self._play(m)
            else:
                self.stored.append(msg.payload.decode())
            self.cond.notify_all()

    def _play(self, m):
        rec = {"game": "speed", "layout": "pagat", "match": {"single": True}, "players": m["names"],
               "deals": [{"winner": 1, "left": 4}], "id": "rec%s-0000aaaa-%d" % (self.table, self.n),
               "table": m["table"], "evening": m["evening"], "round": m["round"]}
        self.n += 1
        self.c.publish("speedref/club/%s/game" % self.table, json.dumps(rec).encode(), qos=1)

    def wait(self, pred):
        with self.cond:
            assert self.cond.wait_for(pred, WAIT_S), (self.matches, self.stored)

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()


@pytest.fixture
def rig(tmp_path):
    made = []

    class Rig:
        def __init__(self):
            self.b = mqtt_rig.ClubBroker(tmp_path / "broker", ACCOUNTS).start()
            made.append(self.b.stop)
            self.url = self.b.url

        def club(self):
            c = Club(tmp_path, self.b.url, password=PW)
            made.append(c.close)
            return c

        def board(self, table):
            b = mqtt_rig.BoardProc(tmp_path / table, self.b.port, table=table, user=table,
                                   password=ACCOUNTS[table], uid="b0" + table, heap=HEAP,
                                   script="match_table.py")
            made.append(b.close)
            return b

        def recorded(self, table):
            r = Recorded(self.b.port, table)
            made.append(r.close)
            return r

        def publish(self, matches):
            c = mqtt.match_client(self.url, PW)
            try:
                for t, m in matches.items():
                    mqtt.publish_match(c, "club", t, m)
            finally:
                mqtt.close_client(c)

    yield Rig()
    for stop in reversed(made):
        stop()


def stored(club):
    db = ResultsDB(club.path)
    try:
        return [rec for _, rec in db.games()]
    finally:
        db.close()


def test_a_round_pushed_to_four_tables_is_shown_played_with_its_names_and_arrives_tagged(rig):
    club = rig.club()
    boards = {t: rig.board(t) for t in ("t1", "t2")}
    recorded = {t: rig.recorded(t) for t in ("t3", "t4")}
    for b in boards.values():
        assert b.ask(run={"until": "games", "ticks": TICKS})["screen"] == "Games"  # no match yet
    matches = round_of(7, 1)
    rig.publish(matches)
    for t, b in boards.items():
        got = b.ask(run={"until": "match", "ticks": TICKS})
        assert got["screen"] == "Match" and got["head"] == "Round 1 Table %s" % t[1:]
        assert got["items"][:3] == ["Play Speed"] + ["P%d %s" % (i + 1, p) for i, p in enumerate(PEOPLE[t])]
        taken = [o for o in b.lines if o.get("ev") == "match"]
        assert [(o["state"], o["from"], o["round"]) for o in taken] == [("offered", "wifi", 1)]
    for t, b in boards.items():
        b.ask(play={"winner": 0, "left": 3})
        got = b.ask(run={"acks": 1, "ticks": TICKS})
        assert got["acks"] == 1 and got["backlog"] == 0 and got["screen"] == "Games"  # played: not offered again
    for r in recorded.values():
        r.wait(lambda: any(s.startswith("stored ") for s in r.stored))
    club.wait_stored(4)
    got = dict((rec["table"], rec) for rec in stored(club))
    assert sorted(got) == ["Table 1", "Table 2", "Table 3", "Table 4"]
    for t in TABLES:
        rec = got["Table %s" % t[1:]]
        assert (rec["evening"], rec["round"]) == (7, 1) and rec["players"] == PEOPLE[t], rec
    for t, b in boards.items():  # the board's own game: its id, its USB line the same record
        ends = [o["record"] for o in b.lines if o.get("ev") == "game_end"]
        assert len(ends) == 1 and ends[0] == got["Table %s" % t[1:]]


def test_a_board_offline_at_the_push_gets_the_match_when_it_connects(rig):
    b = rig.board("t1")
    b.ask(wifi=False, run={"ticks": 5})
    rig.publish({"t1": round_of(7, 2)["t1"]})
    got = b.ask(run={"until": "match", "ticks": 200})
    assert got["screen"] == "Games" and got["matches"] == 0  # no Wi-Fi: nothing came
    got = b.ask(wifi=True, run={"until": "match", "ticks": TICKS})
    assert got["screen"] == "Match" and got["head"] == "Round 2 Table 1" and got["matches"] == 1
    # the broker hands the retained match over at every connect: the same one changes nothing
    b.ask(wifi=False, run={"ticks": 5})
    got = b.ask(wifi=True, run={"ticks": 400})
    assert got["matches"] == 2 and got["screen"] == "Match"
    assert [o["state"] for o in b.lines if o.get("ev") == "match"] == ["offered", "same"]


def test_a_repairing_replaces_the_match_and_the_replaced_one_is_no_longer_offered(rig):
    club = rig.club()
    b = rig.board("t1")
    rig.publish({"t1": round_of(8, 1)["t1"]})
    assert b.ask(run={"until": "match", "ticks": TICKS})["items"][1:3] == ["P1 Ann", "P2 Bob"]
    again = round_of(8, 1, {"t1": ["Ann", "Zoe"]}, version=2)["t1"]
    rig.publish({"t1": again})
    got = b.ask(run={"until": "match", "ticks": TICKS})
    for _ in range(20):
        if got["items"][2] == "P2 Zoe":
            break
        got = b.ask(run={"ticks": 20})
    assert got["items"][1:3] == ["P1 Ann", "P2 Zoe"]
    b.ask(play={"winner": 1, "left": 2})
    assert b.ask(run={"acks": 1, "ticks": TICKS})["screen"] == "Games"
    club.wait_stored(1)
    rec = stored(club)[0]
    assert rec["players"] == ["Ann", "Zoe"] and (rec["evening"], rec["round"]) == (8, 1)
    assert [(o["state"], o["version"]) for o in b.lines if o.get("ev") == "match"] == [("offered", 1), ("offered", 2)]


def test_only_the_listener_may_give_a_table_its_match(rig):
    b = rig.board("t1")
    mine = round_of(9, 4)["t1"]
    rig.publish({"t1": mine})
    assert b.ask(run={"until": "match", "ticks": TICKS})["head"] == "Round 4 Table 1"
    forged = M.make_match(9, 4, "Table 1", "speed", ["Mallory", "Bob"], {"match": "single"}, version=5)
    for account in ("t2", "t1"):  # another table, and the table itself
        with pytest.raises(mqtt.Refused, match="the broker refused the match on speedref/club/t1/match: Not authorized"):
            mqtt.publish_match(rig.url.replace("listener@", account + "@"), "club", "t1", forged,
                            password=ACCOUNTS[account])
    with pytest.raises(mqtt.Refused, match="refused the connection"):  # a stranger is not let in
        mqtt.publish_match(rig.url.replace("listener@", "mallory@"), "club", "t1", forged, password="guess")
    with pytest.raises(mqtt.Refused, match="Not authorized"):
        mqtt.clear_match(rig.url.replace("listener@", "t2@"), "club", "t1", password=ACCOUNTS["t2"])
    assert mqtt.read_match(rig.url, "club", "t1", PW) == mine  # what the listener gave stays
    got = b.ask(run={"ticks": 200})
    assert got["head"] == "Round 4 Table 1" and got["items"][1] == "P1 Ann" and got["matches"] == 1
    # the listener's own clear does take it away
    mqtt.clear_match(rig.url, "club", "t1", password=PW)
    assert b.ask(run={"until": "games", "ticks": TICKS})["screen"] == "Games"
    assert mqtt.read_match(rig.url, "club", "t1", PW) is None
