"""The club's broker set-up (docs/mosquitto/club.conf and club.acl, the files
docs/host-tools.md gives), started as it is by Mosquitto on a loopback port:
nobody gets in without an account, a table publishes only its own games and
reads only its own answers and its own match, nothing but the listener
answers a table or gives it a match, and what is queued for the laptop
outlives a broker restart."""
import re
import threading

import pytest

import mqtt_rig
from mqtt_rig import CLUB_ACL, CLUB_CONF

pytestmark = pytest.mark.skipif(mqtt_rig.why_missing(board=False) is not None,
                                reason=str(mqtt_rig.why_missing(board=False)))

WAIT_S = 30
ACCOUNTS = {"listener": "pw-listener", "t1": "pw-t1", "t2": "pw-t2"}


def settings():
    """{name: value} of club.conf's settings (comments left out)."""
    out = {}
    for line in CLUB_CONF.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition(" ")
            out.setdefault(name, []).append(value)
    return out


def test_the_file_keeps_what_it_is_given_and_lets_nobody_in_without_an_account():
    s = settings()
    assert s["persistence"] == ["true"] and s["allow_anonymous"] == ["false"]
    assert int(s["max_queued_messages"][0]) >= 10000, "an evening: 30 tables, their games and their resends"
    assert int(s["max_queued_bytes"][0]) >= 10000 * 2048
    assert int(s["message_size_limit"][0]) >= 64 * 1024  # the listener's own limit: no record is refused at the door
    assert s["acl_file"] and s["password_file"]


def test_the_docs_give_these_very_files():
    doc = (mqtt_rig.CLUB_CONF.parent.parent / "host-tools.md").read_text()
    assert "docs/mosquitto/club.conf" in doc and "docs/mosquitto/club.acl" in doc
    for line in CLUB_ACL.read_text().splitlines():  # the ACL is short: quoted whole
        if line.strip() and not line.startswith("#"):
            assert line in doc, line
    for name in ("max_queued_messages", "max_queued_bytes", "persistence", "autosave_interval",
                 "allow_anonymous", "persistent_client_expiration"):
        value = settings()[name][0]
        assert re.search(r"`%s %s`" % (name, re.escape(value)), doc), (name, value)


class Client:
    """A paho client of one account; what arrives is kept."""

    def __init__(self, port, user, cid=None):
        import paho.mqtt.client as pm
        self.c = pm.Client(pm.CallbackAPIVersion.VERSION2, client_id=cid or user, protocol=pm.MQTTv311)
        if user is not None:
            self.c.username_pw_set(user, ACCOUNTS.get(user, "wrong"))
        self.got = []
        self.cond = threading.Condition()
        self.refused = None
        self.connected = threading.Event()
        self.c.on_message = self._message
        self.c.on_connect = self._connect
        self.c.on_subscribe = lambda *a: self.subscribed.set()
        self.subscribed = threading.Event()
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        assert self.connected.wait(WAIT_S)

    def _connect(self, client, userdata, flags, reason, properties):
        self.refused = reason.is_failure
        self.connected.set()

    def _message(self, client, userdata, msg):
        with self.cond:
            self.got.append((msg.topic, msg.payload))
            self.cond.notify_all()

    def subscribe(self, topic, qos=0):
        self.subscribed.clear()
        self.c.subscribe(topic, qos)
        assert self.subscribed.wait(WAIT_S)

    def publish(self, topic, payload):
        info = self.c.publish(topic, payload, qos=1)
        info.wait_for_publish(WAIT_S)
        assert info.is_published()  # the broker took it (and drops it if the ACL says no)

    def wait_for(self, payload):
        with self.cond:
            assert self.cond.wait_for(lambda: any(p == payload for _, p in self.got), WAIT_S), self.got

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()


@pytest.fixture
def broker(tmp_path):
    b = mqtt_rig.ClubBroker(tmp_path / "broker", ACCOUNTS).start()
    yield b
    b.stop()


def test_nobody_gets_in_without_an_account(broker):
    for user in (None, "t1-without-password"):
        c = Client(broker.port, user, cid="stranger")
        try:
            assert c.refused
        finally:
            c.close()


def test_a_table_publishes_only_its_own_games_and_nothing_but_the_listener_answers(broker):
    listener, t1, t2 = (Client(broker.port, u) for u in ("listener", "t1", "t2"))
    try:
        listener.subscribe("speedref/+/+/game", 1)
        t1.subscribe("speedref/club/t1/ack")
        t1.subscribe("speedref/club/t2/ack")  # another table's answers: granted, never delivered
        t2.subscribe("speedref/club/t2/ack")
        # what the ACL refuses goes first on each connection; the broker
        # handles one connection's packets in order, so by the time the
        # allowed message after them is delivered, they would have been
        t1.publish("speedref/club/t2/game", b"t1 posing as t2")
        t1.publish("speedref/club/t1/ack", b"stored t1-forged-1")
        t1.publish("speedref/club/t2/ack", b"stored t2-forged-1")
        t1.publish("speedref/club/t1/game", b"t1's own game")
        listener.wait_for(b"t1's own game")
        listener.publish("speedref/club/t1/game", b"the listener posing as t1")
        listener.publish("speedref/club/t2/ack", b"stored t2-real-1")
        listener.publish("speedref/club/t1/ack", b"stored t1-real-1")
        t2.wait_for(b"stored t2-real-1")
        t1.wait_for(b"stored t1-real-1")
        t2.publish("speedref/club/t2/game", b"t2's own game")
        listener.wait_for(b"t2's own game")
        assert [p for _, p in listener.got] == [b"t1's own game", b"t2's own game"]
        assert t1.got == [("speedref/club/t1/ack", b"stored t1-real-1")]
        assert t2.got == [("speedref/club/t2/ack", b"stored t2-real-1")]
    finally:
        for c in (listener, t1, t2):
            c.close()


def test_a_table_reads_its_own_match_and_only_the_listener_writes_one(broker):
    listener, t1, t2 = (Client(broker.port, u) for u in ("listener", "t1", "t2"))
    try:
        t1.subscribe("speedref/club/t1/match", 1)
        t1.subscribe("speedref/club/t2/match", 1)  # another table's match: granted, never delivered
        t2.subscribe("speedref/club/t2/match", 1)
        # refused first on each connection (handled in order: see above)
        t1.publish("speedref/club/t1/match", b"t1 picks its own players")
        t2.publish("speedref/club/t1/match", b"t2 seats t1")
        listener.publish("speedref/club/t2/match", b"the listener's match for t2")
        listener.publish("speedref/club/t1/match", b"the listener's match for t1")
        t1.wait_for(b"the listener's match for t1")
        t2.wait_for(b"the listener's match for t2")
        assert t1.got == [("speedref/club/t1/match", b"the listener's match for t1")]
        assert t2.got == [("speedref/club/t2/match", b"the listener's match for t2")]
    finally:
        for c in (listener, t1, t2):
            c.close()


def test_what_is_queued_for_the_laptop_outlives_a_broker_restart(broker):
    # a persistent session: the laptop's listener, as speedref-log --mqtt makes it
    import paho.mqtt.client as pm
    c = pm.Client(pm.CallbackAPIVersion.VERSION2, client_id="speedref-listener-all", protocol=pm.MQTTv311,
                  clean_session=False)
    c.username_pw_set("listener", ACCOUNTS["listener"])
    done = threading.Event()
    c.on_subscribe = lambda *a: done.set()
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    c.subscribe("speedref/+/+/game", 1)
    assert done.wait(WAIT_S)
    c.loop_stop()
    c.disconnect()  # the laptop goes away
    t1 = Client(broker.port, "t1")
    try:
        for i in range(5):
            t1.publish("speedref/club/t1/game", b"game %d" % i)
    finally:
        t1.close()
    broker.stop()  # a restart: persistence is on
    broker.start()
    got = []
    cond = threading.Condition()

    def message(client, userdata, msg):
        with cond:
            got.append(msg.payload)
            cond.notify_all()
    c2 = pm.Client(pm.CallbackAPIVersion.VERSION2, client_id="speedref-listener-all", protocol=pm.MQTTv311,
                   clean_session=False)
    c2.username_pw_set("listener", ACCOUNTS["listener"])
    c2.on_message = message
    c2.connect("127.0.0.1", broker.port)
    c2.loop_start()
    try:
        with cond:
            assert cond.wait_for(lambda: len(got) >= 5, WAIT_S), got
        assert got == [b"game %d" % i for i in range(5)]
    finally:
        c2.loop_stop()
        c2.disconnect()
