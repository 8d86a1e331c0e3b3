"""The round at its tables: each table's match, and where each table is on
the club's broker.

A round (host_tools/club/evening.py) seats groups at the evening's tables;
each group is a match for its table's board (host_tools/board/match.py,
docs/serial-protocol.md "The match"): the evening's number, the round's, the
table's name, the game, the options the round sets and the players seat by
seat.  Its id is "e<evening>r<round>" and its version counts the round's
makings: a round made anew (`pair --again`) is version 2, so every board
offered the old one is offered the new one instead.  A table without a group
this round (taken out, or more tables than groups) has no match: its match
is cleared, so a board nobody sits at offers nothing stale.  A bye has no
table and gets nothing.

Where a table is on the club's broker: its topic name, the board's own
uplink.json "table" (and its account on the broker, docs/mosquitto/club.acl):
the match goes on speedref/<club>/<topic>/match.  An evening's table is named
as its board shows it (speedref-roster --table-name: "Table 3"); its topic
name is
  1. the one given with the table, NAME=TOPIC (`start --table "Big Oak=oak"`,
     `table add`, `table topic NAME TOPIC`);
  2. else "tN" for a table named "Table N" (the evening's default names, and
     the accounts docs/host-tools.md sets up: t1, t2, ...);
  3. else the name itself, when it can be a topic level ("t3", "Oak");
  4. else none: sending the round over the broker is refused, naming the
     table and how to give it one.
What the board records is the match's table name, so its game comes back
with the evening's own name for the table, its evening and its round.

How the evening reaches its broker (`start --mqtt URL --club CLUB [--ca
FILE]`) is kept with the evening (`evenings.broker`, schema version 8), so
every `pair` sends its round; the password is never kept (the listener's,
from $SPEEDREF_MQTT_PASSWORD at each command).
"""
import collections
import json
import re

from speedref import games as registry
from speedref.uplink import topic_name

from host_tools.board import match as board_match
from host_tools.club.evening import Refused, shown, tables

LISTENER = "listener"       # the laptop's account on the club's broker: no table's
_TABLE_N = re.compile(r"table ([0-9]{1,3})")

Broker = collections.namedtuple("Broker", "url club ca")
# url: mqtt://listener@HOST[:PORT] or mqtts://...; club: the club's name on the
# topics; ca: the CA certificate file for mqtts:// (None: the system's)


# --- the tables' topic names -----------------------------------------------------------
def check_topic(text, table=None):
    """`text` as a table's topic name, or Refused: one level of an MQTT
    topic (1-32 printable ASCII characters, no spaces, / + #), not the
    listener's account."""
    name = str(text).strip()
    if topic_name(name) is None or name == LISTENER:
        raise Refused("%r cannot be %s topic name: 1-32 printable ASCII characters without spaces, / + or #%s" % (
            shown(name), "a table's" if table is None else "%s's" % shown(table),
            ", and not %s (the laptop's account)" % LISTENER if name == LISTENER else ""))
    return name


def split_table(text):
    """(name, topic or None) of a table as given: NAME, or NAME=TOPIC
    (the name as its board shows it, the topic as its uplink.json says)."""
    name, eq, topic = str(text).rpartition("=")
    if not eq:
        return str(text), None
    return name, check_topic(topic, name.strip())


def default_topic(name):
    """The topic name of a table named `name` that was given none: "tN" for
    "Table N", the name itself when it can be a topic level, else None."""
    m = _TABLE_N.fullmatch(name.strip().lower())
    if m:
        return "t%d" % int(m.group(1))
    name = name.strip()
    return name if topic_name(name) is not None and name != LISTENER else None


def topic_of(table):
    """A Table's topic name (evening.tables()), or None."""
    return table.topic or default_topic(table.name)


def no_topic(table):
    return Refused("table %s has no topic name on the broker (its board's uplink.json \"table\"): give it as"
                   " \"%s=TOPIC\" (start --table, table add) or with speedref-club table topic \"%s\" TOPIC"
                   % (shown(table.name), shown(table.name), shown(table.name)))


def names_table(db, name, topic):
    """Is a record's table name `name` the table whose topic name is
    `topic`: by the rule (default_topic), or as some evening gave it?"""
    if not isinstance(name, str):
        return False
    if name == topic or default_topic(name) == topic:
        return True
    return bool(db.query("SELECT 1 FROM evening_tables WHERE lower(name) = lower(?) AND topic = ? LIMIT 1",
                         (name.strip(), topic)))


def check_topics(every):
    """The evening's tables' topic names {table name: topic}, every table
    having one, no two the same; Refused naming the first that has none."""
    out, seen = {}, {}
    for t in every:
        topic = topic_of(t)
        if topic is None:
            raise no_topic(t)
        if topic in seen:
            raise Refused("tables %s and %s would both be %s on the broker: give one of them its own topic name"
                          " (speedref-club table topic NAME TOPIC)" % (shown(seen[topic]), shown(t.name), topic))
        seen[topic] = t.name
        out[t.name] = topic
    return out


def set_topic(db, ev, name, topic):
    """Table `name` is `topic` on the broker (a board swapped, a name with no
    rule): the line to print."""
    topic = check_topic(topic, name.strip())
    with db.writing("cannot change the table"):
        every = tables(db, ev)
        mine = [t for t in every if t.name.lower() == name.strip().lower()]
        if not mine:
            raise Refused("no table %r tonight (%s)" % (shown(name.strip()), ", ".join(shown(t.name) for t in every)))
        for t in every:
            if t.name != mine[0].name and topic_of(t) == topic:
                raise Refused("%s is %s on the broker already" % (shown(t.name), topic))
        db.con.execute("UPDATE evening_tables SET topic = ? WHERE evening = ? AND name = ?",
                       (topic, ev.id, mine[0].name))
    return "%s is %s on the broker" % (shown(mine[0].name), topic)


# --- the evening's broker ------------------------------------------------------------------
def broker(db, ev):
    """The Broker kept with the evening, or None (its rounds are not sent)."""
    got = db.query("SELECT broker FROM evenings WHERE id = ?", (ev.id,))
    if not got or got[0][0] is None:
        return None
    b = json.loads(got[0][0])
    return Broker(b["url"], b["club"], b.get("ca"))


def check_club(club):
    name = str(club).strip()
    if topic_name(name) is None:
        raise Refused("club %r cannot be a topic level: 1-32 printable ASCII characters without spaces, / + or #"
                      % shown(name))
    return name


def wire(db, ev, b):
    """Keep Broker `b` with the evening (its URL checked by the caller):
    every table must then have a topic name.  The line to print."""
    b = Broker(b.url, check_club(b.club), b.ca)
    with db.writing("cannot keep the evening's broker"):
        topics = check_topics(tables(db, ev))
        db.con.execute("UPDATE evenings SET broker = ? WHERE id = ?",
                       (json.dumps({"url": b.url, "club": b.club, "ca": b.ca}, sort_keys=True), ev.id))
    return "rounds go to the tables through %s, club %s: %s" % (
        shown(b.url), b.club, ", ".join("%s on %s" % (shown(n), t) for n, t in topics.items()))


# --- the round's matches ---------------------------------------------------------------------
def version(db, rnd):
    """How many times the round's number was made tonight, this one included."""
    return db.query("SELECT COUNT(*) FROM rounds WHERE evening = (SELECT evening FROM rounds WHERE id = ?)"
                    " AND number = ? AND id <= ?", (rnd.id, rnd.number, rnd.id))[0][0]


def options(rnd):
    """The match's options: the round's, and its seats when the game lets
    the players choose them."""
    opts = dict(rnd.options)
    entry = registry.get(rnd.game)
    if entry.seats[0] != entry.seats[1]:
        opts["seats"] = rnd.seats
    return opts


def round_matches(db, ev, rnd):
    """[(Table, match or None)] for every table of the evening, in order:
    the match of each table the round seats, None for the others (their
    match is cleared)."""
    at = dict(rnd.tables)
    n = version(db, rnd)
    out = []
    for t in tables(db, ev):
        seated = at.get(t.name)
        if seated is None:
            out.append((t, None))
            continue
        try:
            m = board_match.make_match(ev.id, rnd.number, t.name, rnd.game, [name for _, name in seated],
                                       options(rnd), version=n)
        except board_match.BadMatch as e:
            raise Refused("round %d at %s is no match a board takes: %s" % (rnd.number, shown(t.name), e))
        out.append((t, m))
    return out


def why_none(rnd, table):
    """Why a table has no match in round `rnd`: one word for the terminal."""
    return "out" if table.out_at is not None else "no group this round"
