"""The club night: an evening, who is there, its tables, its rounds, and
which stored game is whose result.

    speedref-club start NAME [--date D] [--tables N | --table NAME...] [--roster FILE]
    speedref-club checkin NAME... [--walk-in] | --everyone;  leave NAME...
    speedref-club table out|in|add NAME
    speedref-club pair --game G [--seats N] [--option KEY=VALUE...]
    speedref-club place GAME ROUND TABLE | drop GAME | corrections | undo [N]

(the command line is host_tools/cli/club.py).  Everything is kept in the
results database (schema version 5's tables, host_tools/club/db.py), each
command in one write transaction: a laptop that crashes loses nothing that
was entered, and every command can be given again after a restart (a start
of the same evening resumes it, a check-in of someone present changes
nothing, a pair while the round before still waits for results is refused
and shows that round).

A round (host_tools/club/pairing.py decides it) seats the people present
at the tables in use, in groups of the round's seats: pairs for a
two-player game, threes for Speed Run, fours for partners or Speed at 4.

A stored game finds its round (`placements`):
1. the organiser's corrections first: `place` puts a game in a round at a
   table, `drop` says it is none of the evening's;
2. a record that names its evening and round ("evening": the evening's
   number, "round": the round's) is in that round: the board said so;
3. any other game stored while the evening ran (from its start to the next
   evening's start) is in the one round whose table and players it fits: the
   same game, the same people (after name fixes) at one table of that round,
   that table's name (when the record names its table: a board named with
   speedref-roster --table-name, a simulator store, a named web page), and
   the round made before the game was stored.
A game that fits no round, fits several, or shares one table's place in a
round with another game that fits it too, is listed for the organiser with
why, and counts tonight only once placed: never dropped or guessed in
silence.  Corrections are kept in `evening_changes` and undone as name fixes
are (host_tools/club/changes.py): an undone one stays, marked.

Tonight's standings are the standings library's (host_tools/club/standings.py)
over the evening's placed games, and the evening's own table: tonight's
points (a round won, or a bye, is a point: what the pairing orders by),
wins, byes and rounds played.
"""
import collections
import datetime
import hashlib
import json

from speedref import games as registry
from speedref import names as N
from speedref.engine import records

from host_tools import jsonin
from host_tools.club import pairing, people, ratings, standings, summary
from host_tools.club.db import canonical_json, now

DEFAULT_TABLES = 4       # a start without --tables or --table: Table 1 .. Table 4


class Refused(Exception):
    """A command that changes nothing: the message is its one line."""


Evening = collections.namedtuple("Evening", "id name date roster started_at")
Person = collections.namedtuple("Person", "key name walk_in came_at left_at")
Table = collections.namedtuple("Table", "place name out_at topic")
# topic: its name on the club's broker as given (NULL: host_tools/club/matches.py's rule)
Round = collections.namedtuple("Round", "id number game seats options made_at tables byes")
# tables: [(table name, [(key, name) in seat order])], the first table first; byes: [(key, name)]
Correction = collections.namedtuple("Correction", "number verb args made_at undone_at")


def shown(text):
    return jsonin.printable(str(text))


# --- the evening ----------------------------------------------------------------
def parse_date(text):
    """A calendar day as YYYY-MM-DD; Refused for anything else."""
    try:
        return datetime.date.fromisoformat(str(text).strip()).isoformat()
    except ValueError:
        raise Refused("%r is not a date (YYYY-MM-DD)" % shown(text))


def _checked(clean, text):
    """A name through the board's own check (speedref/names.py), or Refused."""
    try:
        return clean(text)
    except N.BadName as e:
        raise Refused(str(e))


def table_names(count=None, given=()):
    """The tables of an evening: the names given (each a board's table name,
    1-16 characters the board can draw), else Table 1 .. Table count."""
    if given:
        out = []
        for t in given:
            name = _checked(N.clean_table, t)
            if any(name.lower() == x.lower() for x in out):
                raise Refused("table %r is named twice" % name)
            out.append(name)
        return out
    count = DEFAULT_TABLES if count is None else count
    if not 1 <= count <= 99:
        raise Refused("--tables %d: an evening has 1 to 99 tables" % count)
    return ["Table %d" % (i + 1) for i in range(count)]


def start(db, name, date, tables, roster=(), topics=None):
    """(Evening, new): the evening `name` on `date` started, with its tables
    (names; `topics`: {table name: its topic name on the club's broker},
    those given) and the club's roster (names); the same name and date again
    resumes it (its tables and roster as they were)."""
    topics = topics or {}
    try:
        name = people.check_name(name, "an evening's name")
    except people.BadName as e:
        raise Refused(str(e))
    with db.writing("cannot start the evening"):
        got = db.query("SELECT id FROM evenings WHERE name = ? AND date = ?", (name, date))
        if got:
            return by_id(db, got[0][0]), False
        cur = db.con.execute("INSERT INTO evenings (name, date, roster, started_at) VALUES (?, ?, ?, ?)",
                             (name, date, canonical_json(list(roster)), now()))
        ev = cur.lastrowid
        db.con.executemany("INSERT INTO evening_tables (evening, place, name, topic) VALUES (?, ?, ?, ?)",
                           [(ev, i + 1, t, topics.get(t)) for i, t in enumerate(tables)])
    return by_id(db, ev), True


def by_id(db, number):
    rows = db.query("SELECT id, name, date, roster, started_at FROM evenings WHERE id = ?", (number,))
    if not rows:
        raise Refused("no evening #%s" % shown(number))
    i, name, date, roster, started = rows[0]
    return Evening(i, name, date, json.loads(roster), started)


def evenings(db):
    """Every evening, the first first."""
    return [Evening(i, n, d, json.loads(r), s) for i, n, d, r, s in db.query(
        "SELECT id, name, date, roster, started_at FROM evenings ORDER BY id")]


def find(db, which=None):
    """The evening `which` names: its number, its date (the latest that
    day), or its name (the latest of that name); None: the latest started."""
    every = evenings(db)
    if not every:
        raise Refused("no evening yet: speedref-club start NAME starts one")
    if which is None or str(which).strip() == "":
        return every[-1]
    text = str(which).strip()
    if text.isascii() and text.isdigit():
        for e in every:
            if e.id == int(text):
                return e
    for e in reversed(every):
        if e.date == text or people.key(e.name) == people.key(text):
            return e
    raise Refused("no evening %r (speedref-club evenings lists them)" % shown(text))


def window(db, ev):
    """(from, until) when the evening's games were stored: from its start to
    the next evening's (None: still open)."""
    later = db.query("SELECT MIN(started_at) FROM evenings WHERE id > ?", (ev.id,))[0][0]
    return ev.started_at, later


def lot(ev, key):
    """The evening's draw for a person: fixed by the evening, so the same
    evening pairs alike, and differs from evening to evening."""
    return hashlib.sha256(("%d %s %s" % (ev.id, ev.date, key)).encode("utf-8")).hexdigest()


# --- who is there ---------------------------------------------------------------
def present(db, ev, everyone=False):
    """[Person] checked in (everyone: those who left too), in the order they came."""
    return [Person(*r) for r in db.query(
        "SELECT person, name, walk_in, came_at, left_at FROM evening_people WHERE evening = ?"
        + ("" if everyone else " AND left_at IS NULL") + " ORDER BY came_at, rowid", (ev.id,))]


def checkin(db, ev, names, walk_in=False):
    """Check in `names` (each with the board's check: 1-10 characters the
    board can draw, ASCII and Latin letters, in NFC): a name on the evening's roster in its roster spelling,
    another only as a walk-in (a typo is refused, not a new member).  Who
    left comes back; who is in already stays as they are.  [line said]."""
    roster = dict((people.key(n), n) for n in ev.roster)
    wanted = []
    for text in names:
        name = _checked(N.clean, text)
        k = people.key(name)
        if k in roster:
            name = roster[k]
        elif roster and not walk_in:
            raise Refused("%s is not on the evening's roster: --walk-in checks in someone new"
                          " (nobody was checked in)" % shown(name))
        if k not in [w[0] for w in wanted]:
            wanted.append((k, name, k not in roster and (bool(roster) or walk_in)))
    said = []
    with db.writing("cannot check in"):
        for k, name, new in wanted:
            got = db.query("SELECT name, left_at FROM evening_people WHERE evening = ? AND person = ?", (ev.id, k))
            if not got:
                db.con.execute("INSERT INTO evening_people (evening, person, name, walk_in, came_at)"
                               " VALUES (?, ?, ?, ?, ?)", (ev.id, k, name, 1 if new else 0, now()))
                said.append("%s checked in%s" % (shown(name), " (walk-in)" if new else ""))
            elif got[0][1] is not None:
                db.con.execute("UPDATE evening_people SET left_at = NULL WHERE evening = ? AND person = ?",
                               (ev.id, k))
                said.append("%s is back" % shown(got[0][0]))
            else:
                said.append("%s is in already" % shown(got[0][0]))
    return said


def leave(db, ev, names):
    """`names` leave: no longer paired (a round they are seated in stays)."""
    with db.writing("cannot check out"):
        here = dict((p.key, p) for p in present(db, ev))
        keys = []
        for text in names:
            k = people.key(text)
            if k not in here:
                raise Refused("%s is not checked in (nobody left)" % shown(text.strip()))
            keys.append(k)
        for k in keys:
            db.con.execute("UPDATE evening_people SET left_at = ? WHERE evening = ? AND person = ?",
                           (now(), ev.id, k))
    return ["%s left" % shown(here[k].name) for k in keys]


# --- tables ---------------------------------------------------------------------
def tables(db, ev, in_use=False):
    """[Table] in their order (in_use: those not taken out)."""
    return [Table(*r) for r in db.query(
        "SELECT place, name, out_at, topic FROM evening_tables WHERE evening = ?"
        + (" AND out_at IS NULL" if in_use else "") + " ORDER BY place", (ev.id,))]


def _table(db, ev, name):
    for t in tables(db, ev):
        if t.name.lower() == name.strip().lower():
            return t
    raise Refused("no table %r tonight (%s)" % (shown(name.strip()), ", ".join(shown(t.name) for t in tables(db, ev))))


def table(db, ev, verb, name, topic=None, check=None):
    """Take a table out (a broken board: no group is seated there from the
    next round on), put it back in, or add one (`topic`: its name on the
    club's broker, when given; `check(tables)`, when given, refuses tables
    the evening cannot use: host_tools/club/matches.py's check_topics)."""
    with db.writing("cannot change the tables"):
        if verb == "add":
            name = _checked(N.clean_table, name)
            if any(t.name.lower() == name.lower() for t in tables(db, ev)):
                raise Refused("table %r is there already" % name)
            place = len(tables(db, ev)) + 1
            db.con.execute("INSERT INTO evening_tables (evening, place, name, topic) VALUES (?, ?, ?, ?)",
                           (ev.id, place, name, topic))
            if check is not None:
                check(tables(db, ev))
            return "%s added (table %d)" % (shown(name), place)
        t = _table(db, ev, name)
        if verb == "out":
            if t.out_at is not None:
                raise Refused("%s is out already" % shown(t.name))
            db.con.execute("UPDATE evening_tables SET out_at = ? WHERE evening = ? AND name = ?", (now(), ev.id, t.name))
            return "%s is out: no group is seated there from the next round on" % shown(t.name)
        if t.out_at is None:
            raise Refused("%s is in use already" % shown(t.name))
        db.con.execute("UPDATE evening_tables SET out_at = NULL WHERE evening = ? AND name = ?", (ev.id, t.name))
        return "%s is back in use" % shown(t.name)


# --- rounds -----------------------------------------------------------------------
def rounds(db, ev):
    """[Round] in force, by number."""
    out = []
    for rid, number, game, seats, options, made in db.query(
            "SELECT id, number, game, seats, options, made_at FROM rounds WHERE evening = ? AND replaced_at IS NULL"
            " ORDER BY number", (ev.id,)):
        at, byes = collections.OrderedDict(), []
        for tbl, seat, key, name in db.query(
                "SELECT tbl, seat, person, name FROM round_seats WHERE round = ? ORDER BY rowid", (rid,)):
            if tbl is None:
                byes.append((key, name))
            else:
                at.setdefault(tbl, []).append((key, name))
        out.append(Round(rid, number, game, seats, json.loads(options), made, list(at.items()), byes))
    return out


def group_size(game, seats=None):
    """The seats of each group for `game`: `seats` when the game lets the
    players choose (within its registry entry's range), else its own."""
    try:
        entry = registry.get(game)
    except registry.UnknownGame as e:
        raise Refused(str(e))
    lo, hi = entry.seats
    if seats is None:
        return lo
    if not lo <= seats <= hi:
        raise Refused("%s seats %s players, not %d" % (entry.title, lo if lo == hi else "%d to %d" % (lo, hi), seats))
    return seats


def match_options(game, given):
    """The match format: {option: value} from KEY=VALUE texts, each an
    option of the game's menu (its registry entry) with one of its values."""
    entry = registry.get(game)
    known = dict((k, (label, values)) for k, label, values in entry.options if k != "seats")
    out = {}
    for text in given:
        key, eq, value = str(text).partition("=")
        key = key.strip()
        if not eq or key not in known:
            raise Refused("--option %r: %s's options are %s, each KEY=VALUE" % (
                shown(text), entry.title, ", ".join(sorted(known)) or "none"))
        values = known[key][1]
        for v in values:
            if str(v).lower() == value.strip().lower():
                out[key] = v
                break
        else:
            raise Refused("--option %s: %r is none of %s" % (key, shown(value.strip()),
                                                              ", ".join(str(v) for v in values)))
    return out


def format_text(game, seats, options):
    """What the round page says of the match: the game, its seats, and the
    options the organiser set (else: as each table is set)."""
    try:
        entry = registry.get(game)
        labels = dict((k, label) for k, label, _ in entry.options)
        title = entry.title
    except registry.UnknownGame:
        labels, title = {}, shown(game)
    parts = []
    for k, v in options.items():
        v = "on" if v is True else "off" if v is False else str(v).replace("_", " ")
        parts.append("%s: %s" % (labels.get(k, k), v))
    return "%s, %d seats, %s" % (title, seats, ", ".join(parts) if parts else "as each table is set")


Standing = collections.namedtuple("Standing", "key name points wins byes rounds")


def _tonight_counts(ev, rnds, placed):
    """{key: [points, wins, byes, rounds played]} from the rounds' byes and
    the placed games (a win: records.counts_as_win, each winner once)."""
    counts = collections.defaultdict(lambda: [0, 0, 0, 0])
    for r in rnds:
        for k, _ in r.byes:
            counts[k][0] += 1
            counts[k][2] += 1
    for g in placed:
        s = g.summary
        winners = set(s["winners"]) if records.counts_as_win(s) else set()
        seen = set()
        for seat, n in enumerate(g.names):
            if n is None or people.key(n) in seen:
                continue
            k = people.key(n)
            seen.add(k)
            counts[k][3] += 1
            if seat in winners:
                counts[k][0] += 1
                counts[k][1] += 1
    return counts


def _ratings(boards, game):
    """{person key: conservative rating in `game`} from the ratings kept in
    the database (`boards`: ratings.stored_boards)."""
    b = boards.get(game)
    if b is None:
        return {}
    return dict((k, r.mu - 3 * r.sigma) for k, r in b.rating.items())


def pair(db, ev, game, seats=None, options=(), again=False, anyway=False):
    """Make the next round (a Round): the people present, grouped by
    pairing.pair_round at the tables in use.

    Refused while the round before still waits for results (after a crash
    the organiser may give the command again: the round made then is shown,
    not a second one), unless `anyway`; `again` makes the current round anew
    (someone left just after it was made), as long as no result has found it;
    the one it replaces is kept, marked."""
    size = group_size(game, seats)
    opts = match_options(game, options)
    ratings.settle(db)          # the ratings of every game stored so far, kept (when the file takes writes)
    with db.writing("cannot store the round"):
        rnds = rounds(db, ev)
        current = rnds[-1] if rnds else None
        games, arrived = evening_games(db, ev)
        placing = placements(db, ev, games, arrived, rnds)
        if again:
            if current is None:
                raise Refused("no round to make again: pair makes the first")
            if placing.results(current.number):
                raise Refused("round %d has results already (%d): pair makes the next round" % (
                    current.number, len(placing.results(current.number))))
        elif current is not None and not anyway:
            waiting = placing.waiting(current)
            if waiting:
                raise Refused("round %d waits for %s (%s): speedref-club round shows it; pair --anyway makes"
                              " the next round all the same" % (current.number, jsonin.count(len(waiting), "result"),
                                                                ", ".join(shown(t) for t in waiting)))
        who = present(db, ev)
        in_use = tables(db, ev, in_use=True)
        if len(who) < size:
            raise Refused("%s checked in: %s needs %d a table" % (jsonin.count(len(who), "person", "people"),
                                                                 registry.get(game).title, size))
        if not in_use:
            raise Refused("every table is out: speedref-club table in NAME puts one back")
        before = [r for r in rnds if not again or r.number != current.number]
        placed = [g for g in placing.placed() if not again or placing.round_of(g.row) != current.number]
        counts = _tonight_counts(ev, before, placed)
        firsts = collections.Counter(seated[0][0] for r in before for _, seated in r.tables)
        rating = _ratings(ratings.stored_boards(db), game)
        met = pairing.meetings([[k for k, _ in seated] for r in before for _, seated in r.tables])
        players = [pairing.Player(p.key, counts[p.key][0], rating.get(p.key, 0.0), counts[p.key][2],
                                  firsts[p.key], lot(ev, p.key)) for p in who]
        made = pairing.pair_round(players, size, len(in_use), met)
        name_of = dict((p.key, p.name) for p in who)
        number = current.number if again else (current.number + 1 if current else 1)
        if again:
            db.con.execute("UPDATE rounds SET replaced_at = ? WHERE id = ?", (now(), current.id))
        rid = db.con.execute("INSERT INTO rounds (evening, number, game, seats, options, made_at) VALUES (?, ?, ?, ?, ?, ?)",
                             (ev.id, number, game, size, canonical_json(opts), now())).lastrowid
        for t, grp in zip(in_use, made.groups):
            db.con.executemany("INSERT INTO round_seats (round, tbl, seat, person, name) VALUES (?, ?, ?, ?, ?)",
                               [(rid, t.name, i, k, name_of[k]) for i, k in enumerate(grp)])
        db.con.executemany("INSERT INTO round_seats (round, tbl, seat, person, name) VALUES (?, NULL, 0, ?, ?)",
                           [(rid, k, name_of[k]) for k in made.byes])
    return [r for r in rounds(db, ev) if r.number == number][0]


# --- results and their rounds ---------------------------------------------------------
def corrections(db, ev, in_force=True):
    rows = db.query("SELECT id, verb, args, made_at, undone_at FROM evening_changes WHERE evening = ?"
                    + (" AND undone_at IS NULL" if in_force else "") + " ORDER BY id", (ev.id,))
    return [Correction(i, v, json.loads(a), m, u) for i, v, a, m, u in rows]


def tag_of(record):
    """(evening number, round number) a record carries, or None (a board
    that was told its round says so; any other says nothing)."""
    e, r = record.get("evening"), record.get("round")
    if isinstance(e, str) and e.isascii() and e.isdigit() and len(e) <= 18:
        e = int(e)
    if isinstance(e, bool) or not isinstance(e, int) or isinstance(r, bool) or not isinstance(r, int):
        return None
    return e, r


def _named_table(record):
    """The table a record names ("table"), or None."""
    t = record.get("table")
    return t.strip() if isinstance(t, str) and t.strip() else None


class Placement:
    """Where each of the evening's stored games belongs.

    `slots`: {(round number, table name): [Played]}: the results of each
    table of each round; `how`: {row: "board", "fits", "organiser"};
    `unplaced`: [(Played, why)] for the organiser; `dropped`: [Played]."""

    def __init__(self, rnds):
        self.rounds = rnds
        self.slots = collections.OrderedDict()
        for r in rnds:
            for t, _ in r.tables:
                self.slots[(r.number, t)] = []
        self.how = {}
        self.unplaced = []
        self.dropped = []

    def results(self, number):
        return [g for (n, _), gs in self.slots.items() if n == number for g in gs]

    def placed(self):
        """Every placed game, once, in the rounds' order."""
        return [g for gs in self.slots.values() for g in gs]

    def round_of(self, row):
        for (n, _), gs in self.slots.items():
            if any(g.row == row for g in gs):
                return n
        return None

    def waiting(self, rnd):
        """The tables of round `rnd` with no result yet."""
        return [t for t, _ in rnd.tables if not self.slots.get((rnd.number, t))]


def _keys(g):
    return [None if n is None else people.key(n) for n in g.names]


def _fits(g, rnd, tbl, seated, arrived):
    """Why game `g` is not the result of table `tbl` of round `rnd`, or None."""
    if g.record.get("game") != rnd.game:
        return "a game of %s, round %d is %s" % (shown(g.record.get("game")), rnd.number, rnd.game)
    named = _named_table(g.record)
    if named is not None and named.lower() != tbl.lower():
        return "played at %s" % shown(named)
    if sorted(k for k, _ in seated) != sorted(k for k in _keys(g) if k is not None) or None in _keys(g):
        return "players %s" % ", ".join("(unnamed)" if n is None else shown(n) for n in g.names)
    if arrived < rnd.made_at:
        return "stored before round %d was made" % rnd.number
    return None


def candidates(db, ev):
    """The rows of the stored games that can be the evening's results: those
    stored while it ran (window), those stored since whose record names it
    (a board that was told its round sends a game late when its Wi-Fi was
    away, or its flash is read days later), and those a correction of the
    evening names; in SQL, no record replayed."""
    since, until = window(db, ev)
    span = (summary.arrived_from(since),) + (() if until is None else (summary.arrived_from(until),))
    rows = set(r for r, in db.query("SELECT game_ref FROM game_summary WHERE ord >= ?"
                                    + ("" if until is None else " AND ord < ?"), span))
    if until is not None:
        # a superset of the games naming the evening (tag_of decides): JSON
        # read only for the rules' counted records, which are well-formed
        rows.update(r for r, in db.query(
            "SELECT s.game_ref FROM game_summary s JOIN games g ON g.id = s.game_ref WHERE s.ord >= ?"
            " AND CAST(CASE WHEN s.counted AND json_valid(g.record) THEN json_extract(g.record, '$.evening') END"
            " AS INTEGER) = ?", (span[1], ev.id)))
    rows.update(c.args["row"] for c in corrections(db, ev) if isinstance(c.args.get("row"), int))
    return rows


def evening_games(db, ev, skipped=None):
    """([Played], {row: received_at}): the stored games that can be the
    evening's results, in time order (as standings.played gives them): those
    stored while it ran (window), those stored since whose record names it
    (a board that was told its round sends a game late when its Wi-Fi was
    away), and those a correction of the evening names.  Read from the
    games' summaries (host_tools/club/summary.py): only these games'
    records are read and scored, the names each seat goes by now are the
    summaries'.  A game among them that the rules cannot count goes into
    `skipped`."""
    skipped = [] if skipped is None else skipped
    pick = standings.Pick(rows=candidates(db, ev))
    skipped += standings.left_out(db, pick)
    names = standings.seated(db, pick)
    perfect = {}
    for row, p in db.query("SELECT p.game_ref, p.perfect FROM game_players p%s ORDER BY p.game_ref, p.seat"
                           % pick.where("p", first=True), pick.args):
        perfect.setdefault(row, []).append(p)
    out, arrived = [], {}
    for row, text, received, club in db.query(
            "SELECT g.id, g.record, g.received_at, s.club FROM game_summary s JOIN games g ON g.id = s.game_ref"
            " WHERE s.counted%s ORDER BY s.ord" % pick.where("s"), pick.args):
        rec = json.loads(text)
        bonus = perfect.get(row)
        out.append(standings.Played(row, rec, records.summary(rec), names.get(row, []),
                                    None if bonus is None or all(b is None for b in bonus) else bonus, club))
        arrived[row] = received
    return out, arrived


def placements(db, ev, games, arrived, rnds=None):
    """A Placement of `games` ([Played] in time order, evening_games()),
    stored at `arrived` ({row: received_at})."""
    rnds = rounds(db, ev) if rnds is None else rnds
    by_number = dict((r.number, r) for r in rnds)
    out = Placement(rnds)
    since, until = window(db, ev)
    told = {}                       # row -> ("place", round, table) or ("drop",)
    for c in corrections(db, ev):
        told[c.args["row"]] = (c.verb, c.args.get("round"), c.args.get("table"))
    fitting = collections.defaultdict(list)     # slot -> [game] fitting it on their own
    for g in games:
        at = arrived.get(g.row, "")
        tag = tag_of(g.record)
        if g.row in told:
            verb, number, tbl = told[g.row]
            if verb == "drop":
                out.dropped.append(g)
            elif (number, tbl) in out.slots:
                out.slots[(number, tbl)].append(g)
                out.how[g.row] = "organiser"
            else:
                out.unplaced.append((g, "placed at %s in round %d, which is no longer so" % (shown(tbl), number)))
            continue
        if tag is not None and tag[0] == ev.id:
            rnd = by_number.get(tag[1])
            if rnd is None:
                out.unplaced.append((g, "its board says round %d, which tonight has not" % tag[1]))
                continue
            keys = sorted(k for k in _keys(g) if k is not None)
            named = _named_table(g.record)
            at = [t for t, seated in rnd.tables if sorted(k for k, _ in seated) == keys] or \
                 [t for t, _ in rnd.tables if named is not None and t.lower() == named.lower()]
            if len(at) == 1:
                out.slots[(rnd.number, at[0])].append(g)
                out.how[g.row] = "board"
            else:
                out.unplaced.append((g, "its board says round %d, but no table of it seated %s" % (
                    rnd.number, ", ".join("(unnamed)" if n is None else shown(n) for n in g.names))))
            continue
        if tag is not None or not (at >= since and (until is None or at < until)):
            continue                # another evening's, or stored outside this one
        fits, why = [], []
        for r in rnds:
            for t, seated in r.tables:
                no = _fits(g, r, t, seated, at)
                if no is None:
                    fits.append((r.number, t))
                elif r.game == g.record.get("game") and at >= r.made_at:
                    same = sorted(k for k, _ in seated) == sorted(k for k in _keys(g) if k is not None)
                    if same or (_named_table(g.record) or "").lower() == t.lower():
                        # the round that seated these players is the likelier one: said first
                        why.append((not same, -r.number, "%s in round %d seated %s; this game has %s" % (
                            shown(t), r.number, ", ".join(shown(n) for _, n in seated), no)))
        if len(fits) == 1:
            fitting[fits[0]].append(g)
        elif fits:
            out.unplaced.append((g, "fits %s: place it" % " and ".join(
                "round %d at %s" % (n, shown(t)) for n, t in fits)))
        else:
            out.unplaced.append((g, "fits no round%s" % (": " + min(why)[2] if why else "")))
    for slot, gs in fitting.items():
        if len(gs) == 1 and not out.slots[slot]:
            out.slots[slot].append(gs[0])
            out.how[gs[0].row] = "fits"
        else:
            for g in gs:
                out.unplaced.append((g, "round %d at %s has %s that fit it: place the one that counts, drop"
                                        " the other" % (slot[0], shown(slot[1]),
                                                        jsonin.count(len(gs) + len(out.slots[slot]), "game"))))
    out.unplaced.sort(key=lambda x: x[0].row)
    return out


def game_row(db, ident):
    """A stored game's row from a record id or row number; Refused."""
    row = db.row_of(ident)
    if row is None:
        raise Refused("no game %r in the database (a record id, or the row number speedref-log printed)"
                      % shown(ident))
    return row


def place(db, ev, ident, number, tbl):
    """The game `ident` is the result of table `tbl` in round `number`."""
    with db.writing("cannot store the correction"):
        row = game_row(db, ident)
        rnd = [r for r in rounds(db, ev) if r.number == number]
        if not rnd:
            raise Refused("no round %d tonight (nothing changed)" % number)
        names = [t for t, _ in rnd[0].tables if t.lower() == tbl.strip().lower()]
        if not names:
            raise Refused("round %d has no table %r: its tables are %s (nothing changed)" % (
                number, shown(tbl.strip()), ", ".join(shown(t) for t, _ in rnd[0].tables)))
        text = db.query("SELECT game FROM games WHERE id = ?", (row,))[0][0]
        if text != rnd[0].game:
            raise Refused("game #%d is %s, round %d is %s (nothing changed)" % (row, shown(text), number, rnd[0].game))
        n = _correct(db, ev, "place", {"row": row, "round": number, "table": names[0]})
    return "correction %d: game #%d is the result of %s in round %d" % (n, row, shown(names[0]), number)


def drop(db, ev, ident):
    """The game `ident` is none of the evening's (a friendly, a test game)."""
    with db.writing("cannot store the correction"):
        row = game_row(db, ident)
        n = _correct(db, ev, "drop", {"row": row})
    return "correction %d: game #%d is none of tonight's" % (n, row)


def _correct(db, ev, verb, args):
    return db.con.execute("INSERT INTO evening_changes (evening, verb, args, made_at) VALUES (?, ?, ?, ?)",
                          (ev.id, verb, canonical_json(args), now())).lastrowid


def undo(db, ev, number=None):
    """Undo correction `number` (default: the last one in force)."""
    with db.writing("cannot undo the correction"):
        live = corrections(db, ev)
        if number is None:
            if not live:
                raise Refused("no correction to undo")
            number = live[-1].number
        every = dict((c.number, c) for c in corrections(db, ev, in_force=False))
        if number not in every:
            raise Refused("no correction %d tonight" % number)
        if every[number].undone_at is not None:
            raise Refused("correction %d is undone already" % number)
        db.con.execute("UPDATE evening_changes SET undone_at = ? WHERE id = ?", (now(), number))
    return "correction %d undone: %s" % (number, correction_text(every[number]))


def correction_text(c):
    if c.verb == "place":
        return "game #%d is the result of %s in round %d" % (c.args["row"], shown(c.args["table"]), c.args["round"])
    return "game #%d is none of tonight's" % c.args["row"]


# --- tonight ---------------------------------------------------------------------------
Tonight = collections.namedtuple("Tonight", "evening rounds placement standings unlinked table present tables")


def tonight(db, ev, skipped=None):
    """Everything the evening's view shows, at one moment (call inside
    db.snapshot()): the rounds, where each game went, the standings
    library's rows over the placed games (in SQL, from their summaries), and
    the evening's own table (points, wins, byes, rounds played), best first,
    ties by the ratings kept (ratings.settle keeps them: call it first)."""
    skipped = [] if skipped is None else skipped
    games, arrived = evening_games(db, ev, skipped)
    rnds = rounds(db, ev)
    placing = placements(db, ev, games, arrived, rnds)
    placed = placing.placed()
    rows, unlinked = standings.standings(db, skipped, rows=[g.row for g in placed])
    counts = _tonight_counts(ev, rnds, placed)
    who = present(db, ev, everyone=True)
    name = dict((p.key, p.name) for p in who)
    boards = ratings.stored_boards(db) if rnds else {}
    rating = {}
    for g in set(r.game for r in rnds):
        for k, v in _ratings(boards, g).items():
            rating[k] = max(rating.get(k, v), v)
    table = [Standing(k, name.get(k, k), c[0], c[1], c[2], c[3]) for k, c in counts.items()]
    table += [Standing(p.key, p.name, 0, 0, 0, 0) for p in who if p.key not in counts]
    table.sort(key=lambda s: (-s.points, -s.wins, -rating.get(s.key, 0.0), people.key(s.name)))
    return Tonight(ev, rnds, placing, rows, unlinked, table, present(db, ev), tables(db, ev))


def moment_of(date):
    """Local midnight starting `date` (YYYY-MM-DD) as the database keeps a
    moment (received_at: UTC, ISO 8601, to the second)."""
    start = datetime.datetime.fromisoformat(date).astimezone().astimezone(datetime.timezone.utc)
    return start.isoformat(timespec="seconds")


def since(db, date, skipped=None):
    """(standings rows, unlinked slaps) over the games stored since `date`
    (YYYY-MM-DD, from local midnight), by the standings library, in SQL:
    the games stored at or after that moment (received_at is UTC text)."""
    return standings.standings(db, skipped, since=moment_of(date))
