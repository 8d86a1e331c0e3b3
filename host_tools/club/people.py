"""People: who sat at each seat of each stored game, as the results see it.

A record names its players as the table entered them (`"players"`, one name a
seat).  Here a name becomes a person:

* A person is a name normalised (`key`): surrounding white space stripped,
  Unicode NFC, compared without case (str.casefold), so "Ann", " ann " and
  "ANN" are one person, and "Zoë" typed with a combining diaeresis is the
  same as the precomposed one.
* A seat nobody named is no person (`unnamed`): the seat labels P1..P9 a device
  writes for it, "Guest", and an empty or missing name.  Such seats are never
  merged across games: every one is a stranger.
* A person is shown by the spelling of their most recent game (the order of
  time_order below; without the white space around it, NFC): a roster corrected on the board shows on the page with
  the next game, no command needed.  A rename sets the spelling at once.

A person is of a club (`at_club`).  A database that holds the games of
several clubs (a league's: each game stored with its club, the topic's of the
broker it came through, host_tools/club/db.py) reads each named seat of a
club's game as "Ann (riverside)": two clubs' "Ann" are two people, each
shown with their club.  A person is one person across clubs only where the
league says so: `speedref-results merge "Ann (hilltop)" "Ann (riverside)"`.
A database of one club (its tables' games over Wi-Fi with its name, over USB
or from files with none) reads names as they are.

Names are fixed after the fact by changes kept in the database's `changes`
table (speedref-results rename, merge, assign; undo), applied on top of the
records as they were stored, never written into them: a record imported again
is the same record, and the changes still apply to it.

* rename OLD NEW, merge A B: from now on the name OLD (A) means NEW (B), in
  every game, those imported later included.  Applied in the order they were
  made, so a rename of a merged person takes the whole person along.
* assign GAME SEAT NAME: that one seat of that one game was NAME (or "Guest":
  nobody named).  Renames and merges apply to an assigned name as to an
  entered one.
* undo: a change is marked undone and no longer applies; everything is worked
  out again from the records and the changes still in force.

Every seat of every stored game is someone of its own, whatever the changes:
a change never seats one person twice in a game.  A game imported after a
merge (or a rename) in which the two people sat at one table keeps them two:
that change does not hold for that game (Resolver.held; speedref-results
import says so, `changes` lists it).  A change or an undo that would seat one
person twice in a stored game is refused (host_tools/club/changes.py).

Names a person gives on the command line are checked (`check_name`): 1 to
NAME_MAX characters, no control, format (bidirectional overrides, zero-width)
or unassigned characters, no < or > (a name holds no markup).  Names that came
in records are kept whatever they hold: shown escaped (jsonin.printable, the
page's autoescape), never refused, so no stored game is lost.
"""
import collections
import functools
import re
import unicodedata

NAME_MAX = 24        # the results page shows a name whole up to 24 characters
GUEST = "Guest"
_SEAT_LABEL = re.compile(r"p[1-9]")


class BadName(ValueError):
    """A name given on the command line that is refused: the message says why."""


@functools.lru_cache(maxsize=4096)    # a season's names, asked for at every seat of every game
def key(name):
    """The person a name means: stripped, NFC, without case (NFC again after
    casefold, which may decompose)."""
    text = unicodedata.normalize("NFC", str(name).strip())
    return unicodedata.normalize("NFC", text.casefold())


def spelling(name):
    """A name as it is shown: without the white space around it, NFC."""
    return unicodedata.normalize("NFC", str(name).strip())


def unnamed(name):
    """Is this a seat nobody named: a seat label P1..P9, Guest, empty, missing?"""
    if name is None or not isinstance(name, str):
        return name is None
    k = key(name)
    return k == "" or k == "guest" or _SEAT_LABEL.fullmatch(k) is not None


def at_club(name, club):
    """The name a named seat of a game of `club` goes by in a database of
    several clubs: "Ann (riverside)"; a seat nobody named stays unnamed."""
    if unnamed(name):
        return name
    return "%s (%s)" % (spelling(name), club)


def _bad_char(ch):
    cat = unicodedata.category(ch)
    return cat[0] == "C" or cat in ("Zl", "Zp") or ch in "<>"


def check_name(text, what="a name"):
    """A name typed on the command line, stripped and NFC; BadName says why not."""
    name = unicodedata.normalize("NFC", text.strip())
    if not name:
        raise BadName("%s must not be empty" % what)
    if len(name) > NAME_MAX:
        raise BadName("%s is at most %d characters, not %d" % (what, NAME_MAX, len(name)))
    for ch in name:
        if _bad_char(ch):
            shown = "U+%04X" % ord(ch) if unicodedata.category(ch)[0] in "CZ" else ch
            raise BadName("%s must not hold %s (%s): control, format and markup characters are refused"
                          % (what, shown, unicodedata.name(ch, "no name")))
    return name


Held = collections.namedtuple("Held", "number seats names person")
Held.__doc__ = """A change that does not hold for one game: `number`, the change;
`seats`, the two seats (0-based) it would have made one person; `names`,
what those seats were called then; `person`, the name both would have had."""


class Resolver:
    """The changes in force, applied: `seats(row, players)` is the name each
    seat of a stored game now goes by, None for a seat nobody named.

    `changes`: the changes in the order they were made, undone ones left out,
    each a db.Change (number, verb, args, ...) or a (verb, args) pair
    (numbered 1, 2, ... in order):
      ("rename", {"old": name, "new": name}), ("merge", {"from": name, "into": name}),
      ("assign", {"row": game row, "seat": 0-based seat, "name": name or None}).

    A game's seats are worked out change by change, in the order the changes
    were made: a rename or merge moves the seat that is its old person; an
    assign names its seat, the name taken through the renames and merges
    made before it.  Every seat stays someone of its own: a change that
    would seat one person twice in a game (two people merged who sat at one
    table in a game imported after the merge; a rename to a name that sits
    at that table already) does not hold for that game, and `held[row]`
    gets a Held for it.  A record that lists one person twice (stored before
    speedref-log refused such records) keeps that person at the first seat;
    the later seat is an unnamed one.  So no game counts one person twice,
    and no seat is folded into another.
    """

    def __init__(self, changes=()):
        self.steps = []       # (number, verb, args) in the order made
        self.renames = []     # (step index, old person's key, new name): renames and merges
        self.rows = set()     # the rows an assign names a seat of
        for i, c in enumerate(changes, 1):
            number, verb, args = (c.number, c.verb, c.args) if hasattr(c, "verb") else (i,) + tuple(c)
            if verb == "assign":
                self.rows.add(args["row"])
            else:
                old, new = (args["old"], args["new"]) if verb == "rename" else (args["from"], args["into"])
                self.renames.append((len(self.steps), key(old), spelling(new)))
            self.steps.append((number, verb, args))
        self.held = {}        # row -> [Held]: the changes that do not hold for that game
        self._alone = {}      # person key -> the name a seat of theirs alone goes by, None: their own

    def _through(self, name, before=None):
        """(the name `name` goes by after the renames and merges made before
        step `before` (all: None), taken one after another; whether any moved it)."""
        moved = False
        for step, old, new in self.renames:
            if before is not None and step >= before:
                break
            if key(name) == old:
                name, moved = new, True
        return name, moved

    def name(self, raw):
        """The name a name entered at a table now means (None: nobody named)."""
        if unnamed(raw):
            return None
        return self.moved(raw) or spelling(raw)

    def moved(self, raw):
        """The name the renames and merges move a named seat entered as `raw`
        to, or None when none moves it (it keeps its own spelling): the same
        for every spelling of one person."""
        k = key(raw)
        if k not in self._alone:
            now, moved = self._through(raw)
            self._alone[k] = now if moved else None
        return self._alone[k]

    def seats(self, row, players):
        """[name or None] for each seat of the stored game `row` whose
        record lists `players`."""
        start, seen = [], set()
        for p in players:
            k = None if unnamed(p) else key(p)
            start.append(None if k is None or k in seen else spelling(p))
            seen.add(k)
        self.held.pop(row, None)
        if row not in self.rows:
            # each seat on its own: two seats that would be made one person
            # stay one from then on, so all different at the end means no
            # change met a clash on the way
            out = [None if n is None else self.name(n) for n in start]
            named = [key(n) for n in out if n is not None]
            if len(set(named)) == len(named):
                return out
        return self._step_by_step(row, start)

    def _step_by_step(self, row, now):
        now = list(now)
        held = []
        for i, (number, verb, args) in enumerate(self.steps):
            if verb == "assign":
                if args["row"] != row or not 0 <= args["seat"] < len(now):
                    continue
                moving = [args["seat"]]
                new = None if unnamed(args["name"]) else self._through(spelling(args["name"]), i)[0]
            else:
                old = key(args["old"] if verb == "rename" else args["from"])
                moving = [s for s, n in enumerate(now) if n is not None and key(n) == old]
                if not moving:
                    continue
                new = spelling(args["new"] if verb == "rename" else args["into"])
            clash = [s for s, n in enumerate(now) if s not in moving and n is not None
                     and new is not None and key(n) == key(new)]
            if clash:
                seats = (moving[0], clash[0])
                held.append(Held(number, seats, (now[seats[0]], now[seats[1]]), new))
                continue
            for s in moving:
                now[s] = new
        if held:
            self.held[row] = held
        return now


# --- where and when ------------------------------------------------------------
NO_DEVICE = "(no id)"       # the table of a record without an id or a "table"


def device_of(record):
    """The device a record was played at: its id's first part.

    A board's record id is "<machine.unique_id() in hex>-<sequence>", the
    simulator's "sim-<n>", the web page's "web-<n>"; an id that carries an
    install part after the device ("<device>-<install>-<seq>") keeps the same
    first part, so a board whose flash was wiped is still the same table.
    """
    ident = record.get("id")
    if ident is None:
        return NO_DEVICE
    return str(ident).split("-", 1)[0] or NO_DEVICE


def table_of(record):
    """The table a game was played at: the record's "table" (the name the
    board, the simulator store or the browser carries), else its device."""
    t = record.get("table")
    if isinstance(t, str) and t.strip():
        return t.strip()
    return device_of(record)


def sequence_of(record):
    """The game's number at its table: its id's last part (SP-24: given when
    the game started), or None for an id without one."""
    ident = record.get("id")
    if isinstance(ident, int) and not isinstance(ident, bool):
        return ident
    tail = str(ident).rsplit("-", 1)[-1] if isinstance(ident, str) else ""
    return int(tail) if tail.isascii() and tail.isdigit() and len(tail) <= 18 else None


def time_order(games, arrivals):
    """`games` ([(row id, record, ...)]) in the order they were played, as far
    as the database can tell (a board has no clock): when each reached the
    database (`arrivals`: row -> (received_at, dedup key); a live log stores a
    game as it ends, an import gives all its games its own start), then, for
    games that arrived together, by their number at their table (every
    table's first game before any table's second: the tables of one evening
    play at about the same pace), then by table.  One import of the same
    files, in any order, gives the same order."""
    def place(g):
        rec = g[1]
        received, dedup = arrivals.get(g[0], ("", ""))
        seq = sequence_of(rec)
        return (received, seq is None, seq or 0, table_of(rec), dedup, g[0])
    return sorted(games, key=place)
