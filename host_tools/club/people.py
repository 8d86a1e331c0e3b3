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

Names a person gives on the command line are checked (`check_name`): 1 to
NAME_MAX characters, no control, format (bidirectional overrides, zero-width)
or unassigned characters, no < or > (a name holds no markup).  Names that came
in records are kept whatever they hold: shown escaped (jsonin.printable, the
page's autoescape), never refused, so no stored game is lost.
"""
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


class Resolver:
    """The changes in force, applied: `seat(row, seat, raw)` is the name a
    stored seat now goes by, or None for a seat nobody named.

    `changes`: (verb, args) in the order they were made, undone ones left out:
      ("rename", {"old": name, "new": name}), ("merge", {"from": name, "into": name}),
      ("assign", {"row": game row, "seat": 0-based seat, "name": name or None}).
    """

    def __init__(self, changes=()):
        self.alias = {}      # key -> the name it now means
        self.assigned = {}   # (row, seat) -> name, or None for "nobody named"
        for verb, args in changes:
            if verb == "assign":
                self.assigned[(args["row"], args["seat"])] = args["name"]
            else:
                old, new = (args["old"], args["new"]) if verb == "rename" else (args["from"], args["into"])
                self._alias(key(old), new)

    def _alias(self, k, new):
        # everything that meant the old person now means the new name
        for other, name in list(self.alias.items()):
            if key(name) == k:
                self.alias[other] = new
        self.alias[k] = new

    def name(self, raw):
        """The name a name entered at a table now means (None: nobody named)."""
        if unnamed(raw):
            return None
        return self.alias.get(key(raw), spelling(raw))

    def seat(self, row, seat, raw):
        if (row, seat) in self.assigned:
            raw = self.assigned[(row, seat)]
        return self.name(raw)

    def seats(self, row, players):
        """[name or None] for each seat of a stored game."""
        return [self.seat(row, i, raw) for i, raw in enumerate(players)]


def first_seats(names):
    """`names` with a person named twice in one game (a record with "Ann" and
    "ann", stored before speedref-log refused such records) kept at the first
    seat only: the later seat is an unnamed one."""
    out, seen = [], set()
    for n in names:
        k = None if n is None else key(n)
        out.append(None if k in seen else n)
        if k is not None:
            seen.add(k)
    return out


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
