"""speedref-log --mqtt URL: the club laptop's listener for tables on Wi-Fi.

Subscribes (QoS 1, a persistent session, so the broker keeps what arrives
while the laptop is away) to every table's topic,

    speedref/<club>/<table>/game      (--club picks one club, default: all)

and stores each message, a finished game record as the board stored it,
through the same import path as a USB log or a copied file
(host_tools.intake.importer.Importer, host_tools.intake.lines.LineCore): validated by the
engine, stored once under its id, so a record the board sends again adds
nothing; with its club, the topic's.  A message that is not a game record (not JSON, too big, a record
the rules refuse, a topic of another shape) is reported in one line and
skipped.

The club's acknowledgement: once a record is in the database (its
transaction committed), the listener answers the table on

    speedref/<club>/<table>/ack       "stored <id>", or "refused <id>"

(the rules refuse it: sending it again will not change that).  A board keeps
a record on its flash, and sends it again, until that answer comes: the
broker's own acknowledgement only says the broker has it.  When a table's
record numbers (`<device>-<install>-<n>`, n counting on within an install)
skip some this database has never seen, the listener says so and asks the
table once a run for them: "resend <id> [<last n>]" (host_tools/club/gaps.py;
`speedref-results gaps` lists them).

A league's listener (--league) stores every club's games from the league's
broker, which each club's broker is bridged to (docs/mosquitto/bridge.conf,
league.conf), and answers no table: each club's own listener does.

The tables' matches go out through the same broker: publish_match() puts a
table's next match on speedref/<club>/<table>/match (QoS 1, retained, MQTT 5
so that a refusal is said), clear_match() takes it away, read_match() reads
it back (host_tools/board/match.py makes and checks a match).

URL: mqtt://[USER@]HOST[:PORT] (1883), or mqtts://... for TLS (8883).  The
password is --password-env's variable (default SPEEDREF_MQTT_PASSWORD), never
a command-line word other users can see.  With a user name, the listener
first checks that the broker refuses a client without one: a broker that
lets anyone publish lets anyone add games, so it is refused unless
--allow-anonymous-broker says otherwise.
"""
import json
import os
import queue
import ssl
import threading
import urllib.parse

from host_tools import jsonin
from host_tools.board import match
from host_tools.club import gaps, matches
from host_tools.intake.importer import Importer

TOPIC_ROOT = "speedref"
MAX_MESSAGE = 64 * 1024      # no record is this big (a Long Speed Run's is about 2 KB)
CONNECT_TIMEOUT_S = 10.0
PASSWORD_ENV = "SPEEDREF_MQTT_PASSWORD"


class Refused(Exception):
    """The broker cannot be used: the message is one line."""


def parse_url(url):
    """(tls, host, port, user) from mqtt://[user@]host[:port] or mqtts://."""
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("mqtt", "mqtts"):
        raise ValueError("%r is not an mqtt:// or mqtts:// URL" % url)
    if not u.hostname:
        raise ValueError("%r names no broker host" % url)
    if u.password is not None:
        raise ValueError("a password in the URL is visible to every user of this computer: "
                         "put it in $%s instead" % PASSWORD_ENV)
    tls = u.scheme == "mqtts"
    try:
        port = u.port or (8883 if tls else 1883)
    except ValueError:
        raise ValueError("%r: the port is not a number 1..65535" % url)
    return tls, u.hostname, port, (urllib.parse.unquote(u.username) if u.username else None)


def ack_topic(club, table):
    """The topic a table reads the club's answers on."""
    return "%s/%s/%s/ack" % (TOPIC_ROOT, club, table)


def table_of(topic):
    """(club, table) of a speedref/<club>/<table>/game topic, or None."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != TOPIC_ROOT or parts[3] != "game" or not parts[1] or not parts[2]:
        return None
    return parts[1], parts[2]


class Listener:
    """Stores the records that arrive on the broker.  `out`/`err` as
    LineCore's.  on_message() is paho's callback; it can also be called
    directly (tests) with a topic and bytes."""

    def __init__(self, db, out, err, league=False):
        self.imp = Importer(db, out, err)
        # a league's listener: it stores every club's games, each with its
        # club, and answers no table (each club's own listener does: its
        # answer is what lets a board forget a game)
        self.league = league
        self.core = self.imp.core()
        self.core.source = "mqtt"
        self.core.live = self.core.out
        self.out = self.core.out
        self.err = self.core.err
        self.messages = 0
        self.changed = threading.Condition()
        # publish(topic, text): the answers to the tables (listen() sets it;
        # None: nobody to answer, as when a test calls message() directly)
        self.answer = None
        self.answers = 0
        self.seen = None  # gaps.Seen: the record numbers in the database, per install

    def message(self, topic, payload):
        """One message: stored through the import path, or one line saying why not."""
        self.messages += 1
        try:
            where = table_of(topic)
            if where is None:
                return self.core.skip("message on %s: not a speedref/<club>/<table>/game topic"
                                      % jsonin.printable(repr(topic)[:80]))
            name = "%s/%s" % where
            if len(payload) > MAX_MESSAGE:
                return self.core.skip("%s: a message of %d bytes is no game record (at most %d)"
                                      % (name, len(payload), MAX_MESSAGE))
            try:
                rec = jsonin.loads(bytes(payload))
            except jsonin.BadJSON as e:
                return self.core.skip("%s: not JSON (%s)" % (name, e))
            if not isinstance(rec, dict) or "ev" in rec:
                return self.core.skip("%s: not a game record (JSON, but no record)" % name)
            table = rec.get("table")
            if table is not None and not matches.names_table(self.imp.db, table, where[1]):
                # ("Table 3" on t3, or as the evening named the table's topic: the same table)
                self.err("%s: the record names table %s" % (name, jsonin.printable(repr(table)[:40])))
            refused = self.core.refused
            self.core.club = where[0]  # stored with its club, the topic's
            try:
                self.imp.record(self.core, rec, "table " + name)  # stored (committed), or refused
            finally:
                self.core.club = None
            if not self.league:
                self.answered(where, rec.get("id"), self.core.refused > refused)
        finally:
            with self.changed:
                self.changed.notify_all()

    def answered(self, where, rid, refused):
        """Tell the table its record is stored (or refused), then ask it
        for the numbers of its install this database has never seen."""
        if not gaps.answerable(rid):
            return
        topic = ack_topic(*where)
        self.say(topic, ("refused " if refused else "stored ") + rid)
        if self.seen is None:
            self.seen = gaps.Seen(self.imp.db)
        if refused:
            self.seen.refused(rid)
            return
        missing = self.seen.add(rid)
        if missing:
            prefix = gaps.parse(rid)[0]
            self.out("table %s/%s: record %s of %s never seen here: asked the table to send %s again"
                     % (where[0], where[1], gaps.runs_text(missing), prefix,
                        "it" if len(missing) == 1 else "them"))
            for lo, hi in gaps.runs(missing):
                self.say(topic, "resend %s-%d" % (prefix, lo) + (" %d" % hi if hi != lo else ""))

    def say(self, topic, text):
        if self.answer is not None:
            self.answer(topic, text)
            self.answers += 1

    def wait(self, pred, timeout):
        """Wait (tests) until pred() holds or `timeout` seconds pass; pred()'s last value."""
        with self.changed:
            return self.changed.wait_for(pred, timeout)


def _client(client_id, user, password, tls, ca, clean, manual_ack=False, v5=False):
    import paho.mqtt.client as mqtt
    if v5:  # MQTT 5: a clean start is the connect's (_try_connect), and a refused publish is said
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5,
                        manual_ack=manual_ack)
    else:
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311,
                        clean_session=clean, manual_ack=manual_ack)
    if user is not None:
        c.username_pw_set(user, password)
    if tls:
        c.tls_set(ca_certs=ca, cert_reqs=ssl.CERT_REQUIRED)
    return c


def _try_connect(c, host, port, timeout):
    """Connect, with paho's network thread started; None once the broker
    has accepted, else why not (the CONNACK's reason, or the socket's)."""
    done = threading.Event()
    got = {}

    def on_connect(client, userdata, flags, reason, properties):
        got["rc"] = reason
        done.set()

    def on_disconnect(client, userdata, flags, reason, properties):
        got.setdefault("rc", reason)
        done.set()

    c.on_connect = on_connect
    c.on_disconnect = on_disconnect
    try:
        c.connect(host, port, keepalive=60)
    except (OSError, ssl.SSLError) as e:
        return "cannot reach %s:%d (%s)" % (host, port, getattr(e, "strerror", None) or e)
    c.loop_start()
    if not done.wait(timeout):
        c.loop_stop()
        return "no answer from %s:%d in %d s" % (host, port, timeout)
    rc = got["rc"]
    if getattr(rc, "is_failure", False):
        c.loop_stop()
        return "the broker refused the connection: %s" % rc
    return None


def check_anonymous(host, port, tls, ca, timeout=CONNECT_TIMEOUT_S):
    """True when the broker lets in a client without a user name."""
    c = _client("speedref-probe-%d" % os.getpid(), None, None, tls, ca, True)
    try:
        return _try_connect(c, host, port, timeout) is None
    finally:
        try:
            c.disconnect()
        except Exception:  # noqa: BLE001 - the probe's socket may be gone already
            pass
        c.loop_stop()


def listen(listener, url, password=None, club=None, ca=None, allow_anonymous=False,
           client_id=None, stop=None, timeout=CONNECT_TIMEOUT_S):
    """Connect, subscribe and store until `stop` (a threading.Event) is set.
    Messages are stored in this thread (the database's), each acknowledged
    to the broker only once it is stored, so a laptop stopped in between
    gets it again.  paho reconnects by itself after a broker restart.
    Refused: the broker cannot be used (the one line says why)."""
    tls, host, port, user = parse_url(url)
    if user is not None and not allow_anonymous and check_anonymous(host, port, tls, ca, timeout):
        raise Refused("%s:%d lets in clients without a user name: anyone could add games there "
                      "(--allow-anonymous-broker to use it anyway)" % (host, port))
    topic = "%s/%s/+/game" % (TOPIC_ROOT, club or "+")
    league = getattr(listener, "league", False)
    cid = client_id or "speedref-%s-%s" % ("league" if league else "listener", club or "all")
    c = _client(cid, user, password, tls, ca, False, manual_ack=True)
    inbox = queue.Queue()
    c.on_message = lambda client, userdata, msg: inbox.put(msg)
    why = _try_connect(c, host, port, timeout)
    if why is not None:
        raise Refused("%s:%d: %s" % (host, port, why))

    def on_connect(client, userdata, flags, reason, properties):
        if not reason.is_failure:
            client.subscribe(topic, qos=1)
            listener.out("connected to %s:%d again, listening on %s" % (host, port, topic))

    def on_disconnect(client, userdata, flags, reason, properties):
        if stop is None or not stop.is_set():
            listener.err("lost %s:%d (%s); reconnecting" % (host, port, reason))

    c.on_connect = on_connect
    c.on_disconnect = on_disconnect
    c.reconnect_delay_set(1, 30)
    subscribed = threading.Event()
    c.on_subscribe = lambda client, userdata, mid, reasons, properties: subscribed.set()
    # QoS 1: the broker confirms each answer; one lost on the way (the
    # board away) costs only the board's sending the record again
    listener.answer = lambda t, text: c.publish(t, text.encode(), qos=1)
    c.subscribe(topic, qos=1)
    if not subscribed.wait(timeout):  # the SUBACK: from now on nothing published is missed
        c.disconnect()
        c.loop_stop()
        raise Refused("%s:%d: no answer to the subscription in %d s" % (host, port, timeout))
    listener.out("connected to %s:%d, listening on %s" % (host, port, topic))
    stop = stop or threading.Event()
    try:
        while not stop.is_set():
            try:
                msg = inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            listener.message(msg.topic, msg.payload)
            c.ack(msg.mid, msg.qos)
    finally:
        c.disconnect()
        c.loop_stop()


def record_json(rec):
    """A record as the board publishes it (tests, recorded streams)."""
    return json.dumps(rec).encode()


# --- the tables' matches (host_tools/board/match.py: what a match is) -----------------------
def match_client(url, password=None, ca=None, timeout=CONNECT_TIMEOUT_S):
    """A paho client of a clean session connected to the broker at `url`
    (mqtt://listener@HOST) for publishing matches, its network thread
    running: hand it to publish_match for each table of a round, then
    close_client() it.  MQTT 5: the broker says when it refuses a publish
    (an MQTT 3.1.1 client's is dropped without a word).  Refused when the
    broker cannot be used; ValueError for a bad URL."""
    tls, host, port, user = parse_url(url)
    c = _client("speedref-match-%d" % os.getpid(), user, password, tls, ca, True, v5=True)
    why = _try_connect(c, host, port, timeout)
    if why is not None:
        raise Refused("%s:%d: %s" % (host, port, why))
    return c


def close_client(client):
    try:
        client.disconnect()
    finally:
        client.loop_stop()


def publish_match(target, club, table, m, password=None, ca=None, timeout=CONNECT_TIMEOUT_S):
    """Put match `m` (checked first) on the table's topic, QoS 1, retained.
    `target`: a client from match_client() (a round's tables one after the
    other), or the broker's URL (then it connects, publishes and
    disconnects).  Refused when the broker refuses it: only the listener's
    account may publish matches (docs/mosquitto/club.acl), and over MQTT 5
    the broker says so."""
    _put(target, match.topic(club, table), match.message(match.check_match(m)), password, ca, timeout)


def clear_match(target, club, table, password=None, ca=None, timeout=CONNECT_TIMEOUT_S):
    """Take the table's match away: an empty retained message (the board
    offers none)."""
    _put(target, match.topic(club, table), b"", password, ca, timeout)


def _put(target, t, payload, password, ca, timeout):
    if not isinstance(target, str):
        return _publish(target, t, payload, timeout)
    c = match_client(target, password, ca, timeout)
    try:
        _publish(c, t, payload, timeout)
    finally:
        close_client(c)


def _publish(c, t, payload, timeout):
    """Publish and wait for the broker's answer; Refused for a refusal."""
    answers = {}
    c.on_publish = lambda client, userdata, mid, reason, properties: answers.__setitem__(mid, reason)
    info = c.publish(t, payload, qos=1, retain=True)
    info.wait_for_publish(timeout)
    if not info.is_published():
        raise Refused("no answer from the broker in %g s for %s" % (timeout, t))
    reason = answers.get(info.mid)
    if reason is not None and reason.is_failure:
        raise Refused("the broker refused the match on %s: %s (only the listener's account may publish matches)"
                      % (t, reason))


def read_match(target, club, table, password=None, ca=None, timeout=CONNECT_TIMEOUT_S):
    """The match retained on the table's topic, as its board gets it at
    connect (None: none); host_tools.board.match.BadMatch for one a board
    would refuse."""
    c = match_client(target, password, ca, timeout) if isinstance(target, str) else target
    try:
        return match.parse_message(_retained(c, match.topic(club, table), timeout))
    finally:
        if isinstance(target, str):
            close_client(c)


def _retained(c, t, timeout):
    """The retained message on topic t (b"" for none): subscribed, the
    broker sends it right after its SUBACK; none comes for no match."""
    got = []
    done = threading.Event()
    subscribed = threading.Event()

    def on_message(client, userdata, msg):
        if msg.topic == t:
            got.append(bytes(msg.payload))
            done.set()
    c.on_message = on_message
    c.on_subscribe = lambda client, userdata, mid, reasons, properties: subscribed.set()
    c.subscribe(t, qos=1)
    if not subscribed.wait(timeout):
        raise Refused("no answer from the broker in %g s to a subscription to %s" % (timeout, t))
    # the broker writes a retained message right behind its SUBACK: a
    # second is plenty for it to arrive
    done.wait(min(timeout, 1.0))
    c.unsubscribe(t)
    return got[0] if got else b""
