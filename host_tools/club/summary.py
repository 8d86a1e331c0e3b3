"""A game's summary: what the standings and the ratings need from a stored
game, worked out once, when it is stored, by the rules engine that scores it
(speedref.engine.records).

Per game: its game id, whether the rules count it (and why not), whether it
is finished (records.counts_as_win: over, or stopped by the table's
agreement, PT-20), how many seats, and its place in time order (`order_key`).
Per seat: the name the table entered, a win, the final score, the Perfect
Bonuses of a game whose registry entry names them (`bonus`: Speed Run's,
SR-26) and, for a finished game, the seat's place for the ratings
(`places`, the host side's entry per game).

The results database (host_tools/club/db.py) keeps these rows beside the
record, with the person each seat enters and is now, after the name fixes in
force (host_tools/club/people.py), and reads the standings and ratings from
them in SQL.  The rows are made again from the records when the rules change:
`RULES` names the code that decides them (a hash of its source), and a
database whose rows were made under another is rebuilt when it is opened.
"""
import collections
import hashlib
import os

from speedref import games as registry
from speedref.engine import records
from speedref.engine.errors import RuleError

from host_tools import jsonin
from host_tools.club import people

Seat = collections.namedtuple("Seat", "seat name won total perfect place")
Seat.__doc__ = """One seat of a game: `name` as the record has it (text), `won` 0/1,
`total` the final score (None for a seat the sheet scores no total of),
`perfect` its Perfect Bonuses (None: the game counts none), `place` for the
ratings (None: the game is not finished)."""

Summary = collections.namedtuple("Summary", "game counted why finished seats record sheet")
Summary.__doc__ = """A stored game as the standings see it: `counted` False (with
`why`, a line) for a row the rules cannot count; else its `seats` [Seat],
its `record` and its scored `sheet` (records.summary)."""


# --- places: the host side's entry per game (docs/ratings.md) ------------------------
def _cards_left(record, summary):
    """Speed: each seat's cards left over all deals (SP-18: a 2-player deal's
    `left` is the loser's count; SP-35: with more, one count a player)."""
    n = len(summary["players"])
    left = [0] * n
    for d in record.get("deals", []):
        counts = d["left"]
        if isinstance(counts, list):
            for seat, c in enumerate(counts):
                left[seat] += c
        else:
            left[1 - d["winner"]] += counts
    return left


def _totals(record, summary):
    return list(summary["totals"])


def _negated_totals(record, summary):
    return [-t for t in summary["totals"]]


# each game's measure of a seat's result, lower is better
RANKS = {
    "speed": _cards_left,
    "spit": _totals,            # cards held
    "speedrun": _totals,        # points, lowest wins
    "partners": _negated_totals,
}


def places(record, summary):
    """Each seat's place, 1 first, equal places for equal results: the
    winners first, then the others by their game's measure (RANKS)."""
    n = len(summary["players"])
    measure = RANKS.get(record.get("game"), lambda r, s: [0] * n)(record, summary)
    winners = set(summary["winners"])
    values = sorted(set(measure[s] for s in range(n) if s not in winners))
    return [1 if s in winners else 2 + values.index(measure[s]) for s in range(n)]


def perfect_counts(record):
    """Each seat's Perfect Bonuses (the "perfect" column) as its game's
    sheet counts them, or None for a game whose registry entry names no
    such count (`bonus`: Speed Run's, SR-26)."""
    try:
        attr = registry.get(record.get("game")).bonus
    except registry.UnknownGame:
        return None
    if attr is None:
        return None
    v = getattr(records.replay(record), attr, None)
    if isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v):
        return list(v)
    return None


# --- one game -----------------------------------------------------------------------
def work(record, sheet=None):
    """The Summary of a record; raises what the rules raise for one they
    refuse (RuleError, or KeyError, TypeError... from a game module that trips
    over a malformed record), as records.summary does.  `sheet`: its
    records.summary, when the caller has it already."""
    s = records.summary(record) if sheet is None else sheet
    perfect = perfect_counts(record)
    finished = records.counts_as_win(s)
    # wins from the record itself, so a database filled before the
    # unfinished-game rule (PT-20) is counted the same way
    winners = set(s["winners"]) if finished else set()
    totals = s["totals"]
    place = places(record, s) if finished else None
    names = [str(p) for p in record.get("players", [])]
    seats = []
    for seat, name in enumerate(names):
        seats.append(Seat(seat, name, 1 if seat in winners else 0,
                          totals[seat] if seat < len(totals) else None,
                          perfect[seat] if perfect is not None and seat < len(perfect) else None,
                          place[seat] if place is not None and seat < len(place) else None))
    return Summary(record["game"], True, None, finished, seats, record, s)


def read(text):
    """The Summary of a stored record's text: never raises; a row the rules
    cannot count is `counted` False with the line saying why (not strict JSON,
    not an object, or refused by the rules as they are now: tampered, or
    written under older rules)."""
    try:
        rec = jsonin.loads(text)
    except jsonin.BadJSON as e:
        return _left_out("not JSON (%s)" % e)
    if not isinstance(rec, dict):
        return _left_out("not a game record (a JSON object)")
    try:
        return work(rec)
    except RuleError as e:
        return _left_out("the rules refuse it: %s" % e)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
        return _left_out("the rules cannot replay it: %s: %s" % (type(e).__name__, e))


def _left_out(why):
    return Summary(None, False, why, False, [], None, None)


# --- time order as one sortable value ---------------------------------------------------
def _text(s):
    """A text as bytes that sort as the text does (UTF-8 keeps code point
    order), ended so that a text sorts before any longer one it begins."""
    return str(s).encode("utf-8", "surrogatepass").replace(b"\x00", b"\x00\xff") + b"\x00\x01"


def _number(n):
    """An int of any size as bytes that sort as the number does."""
    n = int(n)
    if n >= 0:
        body = n.to_bytes((n.bit_length() + 7) // 8, "big")
        return b"\x02" + len(body).to_bytes(4, "big") + body
    body = (-n).to_bytes(((-n).bit_length() + 7) // 8, "big")
    return b"\x01" + (0xFFFFFFFF - len(body)).to_bytes(4, "big") + bytes(255 - b for b in body)


NO_NUMBER = b"\x03"     # a game without a number at its table: after those with one


def order_key(received_at, dedup, row, record):
    """Bytes that sort stored games in people.time_order's order: when the
    game reached the database, its number at its table (SP-24), its table,
    its key, its row."""
    seq = people.sequence_of(record) if isinstance(record, dict) else None
    table = people.table_of(record) if isinstance(record, dict) else people.NO_DEVICE
    return (_text(received_at) + (NO_NUMBER if seq is None else _number(seq)) + _text(table)
            + _text(dedup) + _number(row))


def arrived_from(when):
    """The least order_key of a game that reached the database at or after
    `when` (a received_at text, or its start: "2026-12-07")."""
    return str(when).encode("utf-8", "surrogatepass").replace(b"\x00", b"\x00\xff")


# --- which rules made the rows ------------------------------------------------------------
def _sources():
    """The files whose code decides a game's summary: the engine, the game
    registry, this module and the people (a name's person)."""
    from speedref import engine
    folder = os.path.dirname(os.path.abspath(engine.__file__))
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".py"))
    return files + [os.path.abspath(registry.__file__), os.path.abspath(__file__),
                    os.path.abspath(people.__file__)]


def _rules():
    h = hashlib.sha256()
    for path in _sources():
        h.update(os.path.basename(path).encode() + b"\x00")
        try:
            with open(path, "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(b"(unreadable)")
    return "sha256:" + h.hexdigest()[:16]


RULES = _rules()
