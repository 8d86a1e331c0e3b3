"""The standings: per game and person, from the results database.

Per game and person (host_tools/club/people.py: a name, without case or the
spaces around it; every seat nobody named in one "(unnamed seats)" row):
games played, wins (a shared win counts for each winner; an unfinished game is nobody's win unless the table agreed to stop it, PT-20),
average final score, Perfect Bonuses (a game whose registry entry names
them: Speed Run), and slap wins with the median
winning margin (Speed, and any game whose slaps the device logged).  Slap
verdicts are tied to a game by speedref-log when that game's record arrives.

Every seat of every counted game is in the standings, once: a change to names
never seats one person twice in a game (host_tools/club/people.py).  A person
listed twice in one record is malformed (speedref-log refuses such records);
in one already in an older database the first seat is the person's and the
later one an unnamed seat.

`played(db)` is every stored game the rules can count, as the standings, the
ratings (host_tools/club/ratings.py), the name changes (host_tools/club/changes.py) and
the results page read them; `played(db, club=C)` the games of club C only
(a league's database: the standings and ratings of one club, `--club`).  In
a database of several clubs each named seat is a person of its game's club
(people.at_club).
"""
import collections
import json
import statistics

from speedref.engine import records
from speedref.engine.errors import RuleError, is_int

from host_tools import jsonin
from host_tools.club import people, summary
from host_tools.club.db import ResultsDB

COLUMNS = ["game", "player", "games", "wins", "average_score", "perfect_bonuses",
           "slap_wins", "median_margin_us"]


perfect_counts = summary.perfect_counts     # each seat's Perfect Bonuses, or None (SR-26)


def _replayable(text):
    """(record, summary) of a stored record's text, or raise ValueError saying
    why it cannot be counted: not strict JSON, not an object, or refused by
    the rules as they are now (tampered, or written under older rules)."""
    try:
        rec = jsonin.loads(text)
    except jsonin.BadJSON as e:
        raise ValueError("not JSON (%s)" % e)
    if not isinstance(rec, dict):
        raise ValueError("not a game record (a JSON object)")
    try:
        s = records.summary(rec)
        perfect = perfect_counts(rec)
    except RuleError as e:
        raise ValueError("the rules refuse it: %s" % e)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
        raise ValueError("the rules cannot replay it: %s: %s" % (type(e).__name__, e))
    names = [str(p) for p in rec.get("players", [])]
    return rec, s, names, perfect


def _slap_problem(winner, margin, names):
    """Why a stored slap verdict cannot be counted for its game, or None."""
    if winner is not None and (not is_int(winner) or not 0 <= winner < len(names)):
        return "winner %s is not a seat of its game (0..%d, or null for a tie)" % (
            jsonin.printable(repr(winner))[:30], len(names) - 1)
    if margin is not None and (not is_int(margin) or margin < 0):
        return "margin_us %s is not a whole number of microseconds" % jsonin.printable(repr(margin))[:30]
    if winner is None and margin is None:
        return "a tie without a margin"
    return None


Played = collections.namedtuple("Played", "row record summary names perfect club")


class NoClub(ValueError):
    """A club the database has no game of: the message names those it has."""


def played(db, skipped=None, changes=None, held=None, club=None, rows=None):
    """[Played] every stored game the rules can count, in time order
    (people.time_order): its record, summary, the name each seat now goes
    by (people.Resolver: None for a seat nobody named; never one person at
    two seats; in a database of several clubs, of its game's club:
    people.at_club), Speed Run's Perfect Bonuses and its club (None: the
    database's own, a game that came on USB or from a file).  A row that
    cannot be counted goes into `skipped`.  `changes`: the changes to names
    to apply (default: those in force); `held`, a dict, gets {row:
    [people.Held]} for each game a change does not hold for.  `club`: that
    club's games only (NoClub for a club the database has no game of);
    `rows`: those game rows only (one evening's), not every stored game."""
    skipped = [] if skipped is None else skipped
    resolver = people.Resolver(db.changes() if changes is None else changes)
    clubs = db.clubs()
    several = len(set(clubs.values())) > 1
    if club is not None and club not in clubs.values():
        raise no_club(club, clubs.values())
    out = []
    if rows is None:
        stored, arrivals = db.game_rows(), None
    else:
        some = json.dumps(sorted(set(int(r) for r in rows)))
        stored = db.query("SELECT id, record FROM games WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
                          (some,))
        arrivals = dict((r[0], (r[1], r[2])) for r in db.query(
            "SELECT id, received_at, dedup_key FROM games WHERE id IN (SELECT value FROM json_each(?))", (some,)))
    for row_id, text in stored:
        where = clubs.get(row_id)
        if club is not None and where != club:
            continue
        try:
            rec, s, names, perfect = _replayable(text)
        except ValueError as e:
            skipped.append({"table": "games", "row": row_id, "why": str(e)})
            continue
        if several and where is not None:
            names = [people.at_club(n, where) for n in names]
        out.append(Played(row_id, rec, s, resolver.seats(row_id, names), perfect, where))
    if held is not None:
        held.update(resolver.held)
    return people.time_order(out, db.arrivals() if arrivals is None else arrivals)


def no_club(club, known):
    """The NoClub for `club`, which is none of the database's `known` clubs."""
    known = sorted(set(known))
    return NoClub("no game of club %s in the database (%s)" % (
        jsonin.printable(repr(club)), "its clubs: " + ", ".join(known)
        if known else "no game came with its club: a club's own database"))


def spellings(games):
    """{person key: the spelling of their most recent game}."""
    shown = {}
    for g in games:
        for n in g.names:
            if n is not None:
                shown[people.key(n)] = n
    return shown


UNNAMED = "(unnamed seats)"    # the standings' row of every seat nobody named, in one game


def standings(db, skipped=None, games=None, club=None, rows=None, since=None, until=None):
    """(rows as dicts in COLUMNS order, number of slaps not tied to any game).
    `club`: the standings of that club's games (NoClub for a club the
    database has no game of).

    A row per game and person (people.py: a name normalised), the name shown
    as they spelled it last; every seat nobody named (P1..P4, Guest) is in one
    row of its own, UNNAMED, counted a seat at a time (an unnamed seat is
    nobody in particular: a game with two counts twice), after the people.
    A row says whether it is a person ("person").
    A stored row that cannot be counted (a record that is not JSON or that the
    rules refuse, a slap whose winner is not a seat of its game or whose margin
    is not a whole number) is left out; `skipped`, a list, gets
    {"table", "row", "why"} for each.

    Which games: every stored one; or those of `club`, of `rows` (game row
    ids: one evening's, one table's), and/or those that reached the
    database from `since` (inclusive) until `until` (exclusive), each a
    received_at text or its start ("2026-12-07"); the slaps are those tied
    to them.  Read in SQL from the games' summaries
    (host_tools/club/summary.py), no record replayed.  `games` instead
    ([Played], from played(): every record replayed) counts those games the
    same way.
    """
    skipped = [] if skipped is None else skipped
    if games is None:
        return _summed(db, skipped, Pick(rows, since, until, club, db))
    shown = spellings(games)
    table = {}   # (game, person key or None) -> accumulating dict

    def entry(game, name):
        return _entry(table, shown, game, None if name is None else people.key(name))

    players_of = {}
    for g in games:
        rec, s, names, perfect = g.record, g.summary, g.names, g.perfect
        players_of[g.row] = names
        # wins from the record itself, so a database filled before the
        # unfinished-game rule (PT-20) is counted the same way
        winners = s["winners"] if records.counts_as_win(s) else ()
        for seat, name in enumerate(names):      # each seat someone of its own (people.Resolver)
            e = entry(rec["game"], name)
            e["games"] += 1
            e["wins"] += 1 if seat in winners else 0
            if seat < len(s["totals"]):
                e["_scores"].append(s["totals"][seat])
        # Perfect Bonuses (SR-16, SR-26): a column of the games whose sheet
        # counts them (their registry entry's `bonus`)
        if perfect is not None:
            for seat, name in enumerate(names[:len(perfect)]):
                e = entry(rec["game"], name)
                e["perfect_bonuses"] = (e["perfect_bonuses"] or 0) + perfect[seat]
    unlinked = 0
    for slap_id, game, kind, winner, margin, game_ref in db.slap_rows():
        if game_ref is None or game_ref not in players_of:
            if club is None:
                unlinked += 1  # (one club's standings: another club's game, or none, is not theirs)
            continue
        names = players_of[game_ref]
        why = _slap_problem(winner, margin, names)
        if why:
            skipped.append({"table": "slaps", "row": slap_id, "why": why})
            continue
        if winner is None:
            continue          # a tie is nobody's win
        e = entry(game, names[winner])
        e["slap_wins"] += 1
        if margin is not None:  # a lone slap has no margin
            e["_margins"].append(margin)
    for e in table.values():
        scores, margins = e.pop("_scores"), e.pop("_margins")
        e["average_score"] = round(sum(scores) / len(scores), 2) if scores else None
        e["median_margin_us"] = statistics.median(margins) if margins else None
    return _sorted(table), unlinked


def _entry(table, shown, game, k):
    """The accumulating row of (game, person key k; None: the unnamed seats)."""
    if (game, k) not in table:
        table[(game, k)] = {"game": game, "player": UNNAMED if k is None else shown[k], "person": k is not None,
                            "games": 0, "wins": 0, "_scores": [], "perfect_bonuses": None, "slap_wins": 0,
                            "_margins": []}
    return table[(game, k)]


def _sorted(table):
    out = [dict((c, e[c]) for c in COLUMNS + ["person"]) for e in table.values()]
    out.sort(key=lambda r: (r["game"], not r["person"], -r["wins"], -(r["average_score"] or 0), r["player"]))
    return out


# --- the standings in SQL, over the games' summaries -------------------------------------
class Pick:
    """Which stored games a read counts: all of them; or those of `rows`
    (game row ids), those that reached the database from `since` until
    `until` (received_at texts, or their start), and/or those of `club`
    (checked against `db`'s clubs: NoClub).  where(t) is its SQL over a
    table `t` with the game's game_ref and ord (game_summary, game_players),
    args its parameters."""

    def __init__(self, rows=None, since=None, until=None, club=None, db=None):
        self.every = rows is None and since is None and until is None and club is None
        self.club = club
        self.parts, args = [], []
        if club is not None:
            known = [c for c, in db.query("SELECT DISTINCT club FROM game_summary WHERE club IS NOT NULL")]
            if club not in known:
                raise no_club(club, known)
            self.parts.append("%s.game_ref IN (SELECT game_ref FROM game_summary WHERE club = ?)")
            args.append(club)
        if rows is not None:
            self.parts.append("%s.game_ref IN (SELECT value FROM json_each(?))")
            args.append(json.dumps(sorted(set(int(r) for r in rows))))
        if since is not None:
            self.parts.append("%s.ord >= ?")
            args.append(summary.arrived_from(since))
        if until is not None:
            self.parts.append("%s.ord < ?")
            args.append(summary.arrived_from(until))
        self.args = tuple(args)

    def where(self, t, first=False):
        """" AND <the pick>" over table t; first: "WHERE <the pick>"."""
        if not self.parts:
            return ""
        return (" WHERE " if first else " AND ") + " AND ".join(x % t for x in self.parts)


# a slap verdict the standings can count (standings' _slap_problem finds nothing):
# its winner a seat of its game or none (a tie), its margin a whole number of
# microseconds or none (a lone slap), not both none
SLAP_COUNTS = ("(sl.winner IS NULL OR (typeof(sl.winner) = 'integer' AND sl.winner >= 0 AND sl.winner < s.seats))"
               " AND (sl.margin_us IS NULL OR (typeof(sl.margin_us) = 'integer' AND sl.margin_us >= 0))"
               " AND NOT (sl.winner IS NULL AND sl.margin_us IS NULL)")
# the same for a slap some seat of a counted game won (its seat's row found)
SLAP_WON = "typeof(sl.winner) = 'integer' AND (sl.margin_us IS NULL OR (typeof(sl.margin_us) = 'integer' AND sl.margin_us >= 0))"


def names(db, pick=None):
    """{person key: the name of their most recent counted game's seat}
    (spellings(), from the summaries): over the games `pick` (a Pick) picks,
    else every game."""
    pick = pick or Pick()
    return dict((k, n) for k, n, _ in db.query(
        "SELECT p.person, p.shown, MAX(p.ord) FROM game_players p WHERE p.person IS NOT NULL%s GROUP BY p.person"
        % pick.where("p"), pick.args))


def seated(db, pick=None):
    """{game row: [the name each seat goes by now, None: nobody named]} of
    the counted games (`pick`'s, else all), from the summaries."""
    pick = pick or Pick()
    out = {}
    for row, n in db.query("SELECT p.game_ref, p.shown FROM game_players p%s ORDER BY p.game_ref, p.seat"
                           % pick.where("p", first=True), pick.args):
        out.setdefault(row, []).append(n)
    return out


def left_out(db, pick=None):
    """[{"table": "games", "row", "why"}] for each stored game the rules
    cannot count (of those `pick` picks), in row order."""
    pick = pick or Pick()
    return [{"table": "games", "row": row, "why": why} for row, why in db.query(
        "SELECT s.game_ref, s.why FROM game_summary s WHERE NOT s.counted%s ORDER BY s.game_ref" % pick.where("s"),
        pick.args)]


def _summed(db, skipped, pick):
    """standings() over the games `pick` picks, in SQL: the seats' rows of
    the counted games (each kept only for those), the slaps tied to them."""
    skipped += left_out(db, pick)
    shown = names(db, pick)
    table = {}
    for game, k, n, wins, total, scored, perfect in db.query(
            "SELECT p.game, p.person, COUNT(*), SUM(p.won), SUM(p.total), COUNT(p.total), SUM(p.perfect)"
            " FROM game_players p%s GROUP BY p.game, p.person" % pick.where("p", first=True), pick.args):
        e = _entry(table, shown, game, k)
        e["games"], e["wins"], e["perfect_bonuses"] = n, wins, perfect
        e["average_score"] = round(total / scored, 2) if scored else None
    slaps = ("FROM slaps sl JOIN game_players p ON p.game_ref = sl.game_ref AND p.seat = sl.winner"
             " WHERE %s%s" % (SLAP_WON, pick.where("p")))
    for game, k, n in db.query("SELECT sl.game, p.person, COUNT(*) %s GROUP BY sl.game, p.person" % slaps,
                               pick.args):
        _entry(table, shown, game, k)["slap_wins"] = n
    # the median winning margin: the middle one, or the mean of the middle two
    for game, k, count, low, high in db.query(
            "SELECT game, person, c, MIN(margin), MAX(margin) FROM ("
            " SELECT sl.game AS game, p.person AS person, sl.margin_us AS margin,"
            "  ROW_NUMBER() OVER (PARTITION BY sl.game, p.person ORDER BY sl.margin_us) AS n,"
            "  COUNT(*) OVER (PARTITION BY sl.game, p.person) AS c"
            " %s AND sl.margin_us IS NOT NULL)"
            " WHERE n IN ((c + 1) / 2, c / 2 + 1) GROUP BY game, person" % slaps, pick.args):
        table[(game, k)]["median_margin_us"] = low if count % 2 else (low + high) / 2
    for e in table.values():
        e.setdefault("average_score", None)
        e.setdefault("median_margin_us", None)
    for row, winner, margin, seats in db.query(
            "SELECT sl.id, sl.winner, sl.margin_us, s.seats FROM slaps sl JOIN game_summary s"
            " ON s.game_ref = sl.game_ref WHERE s.counted AND NOT (%s)%s ORDER BY sl.id" % (SLAP_COUNTS,
                                                                                            pick.where("s")),
            pick.args):
        skipped.append({"table": "slaps", "row": row, "why": _slap_problem(winner, margin, [None] * seats)})
    if pick.club is not None:
        unlinked = 0      # (one club's standings: another club's game, or none, is not theirs)
    elif pick.every:
        unlinked = db.query("SELECT COUNT(*) FROM slaps sl LEFT JOIN game_summary s ON s.game_ref = sl.game_ref"
                            " WHERE s.counted IS NOT 1")[0][0]
    else:
        unlinked = db.query("SELECT COUNT(*) FROM slaps sl JOIN game_summary s ON s.game_ref = sl.game_ref"
                            " WHERE NOT s.counted%s" % pick.where("s"), pick.args)[0][0]
    return _sorted(table), unlinked


def read_standings(path, club=None):
    """(rows, unlinked slaps, skipped rows) of the database at path (it must
    exist: a read-only command creates nothing), of one club's games with
    `club`; DatabaseProblem, NoClub."""
    db = ResultsDB(path, create=False)
    try:
        skipped = []
        with db.snapshot():
            rows, unlinked = standings(db, skipped, club=club)
    finally:
        db.close()
    return rows, unlinked, skipped
