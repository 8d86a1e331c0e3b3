"""Ratings: each person's skill at each game, from every finished game, in
the order they were played (docs/ratings.md says why each choice was made).

    speedref-results ratings [--game G] [--json] [--db FILE]

openskill's Weng-Lin model (the Plackett-Luce variant, the library's default:
one update for a whole finishing order, any number of players, ties
included), with its default prior: a newcomer is 25 +- 25/3.  A rating is
shown as its mean (`rating`, mu), its uncertainty (`sigma`) and the
conservative estimate mu - 3 sigma (`conservative`), by which the table is
sorted: a person with few games is not ranked above one known to be good.

How a game's result becomes one update (RANKS, per game): the standings'
winners (records.counts_as_win: a game over, or stopped by the table's
agreement, PT-20) share first place; every other player is placed by the
game's own measure, equal values sharing a place:
  speed      cards left, summed over the match's deals (SP-18, SP-35): 2
             players are a win and a loss, 3 or 4 are ranked
  spit       cards still held (SPIT-15): a win and a loss
  speedrun   the final total, lower is better (SR-24)
  partners   each player alone by their final total (PT-14, PT-19): the
             contract pairs two players for one hand only (PT-8), the game
             is won by one player
A game that is not finished (nor stopped by agreement) rates nobody, as it is
nobody's win.  A seat nobody named takes part as a newcomer of its own, rated
for that game only and then forgotten: beating a guest counts, and a guest
gets no rating row.  A game without any named person is not rated.
"""
import hashlib
import itertools
import json

import openskill
import wcwidth
from openskill.models import PlackettLuce

from speedref import games as registry
from speedref.engine import records

from host_tools import jsonin
from host_tools.club import people, standings, summary
from host_tools.club.db import DatabaseProblem

PROVISIONAL_GAMES = 5          # a rating from fewer games than this is provisional (docs/ratings.md)
MODEL = PlackettLuce()          # mu 25, sigma 25/3, beta 25/6, tau 25/300 (openskill's defaults)
MODEL_NAME = "Weng-Lin (openskill Plackett-Luce)"
PLACES = 2                      # decimals shown, on the page and by the CLI alike
COLUMNS = ["game", "player", "rating", "sigma", "conservative", "games", "provisional"]
HEADS = ["player", "rating", "sigma", "conservative", "games", "provisional"]
NUMBERS = ["rating", "sigma", "conservative"]     # shown with PLACES decimals


# the host side's entry per game: each seat's measure, lower is better (each
# game's summary keeps its seats' places, worked out once when it is stored)
RANKS = summary.RANKS
places = summary.places


class Board:
    """One game's ratings, as they stand after its rated games."""

    def __init__(self, game):
        self.game = game
        self.rating = {}      # person key -> openskill rating
        self.games = {}       # person key -> games rated
        self.history = {}     # person key -> [(rated game number, mu, sigma)]
        self.rated = 0
        self.shown = {}       # person key -> name shown

    def rate(self, names, ranks):
        teams = [[self.rating.get(people.key(n)) or MODEL.rating()] if n is not None else [MODEL.rating()]
                 for n in names]
        new = MODEL.rate(teams, ranks=ranks)
        self.rated += 1
        for n, [r] in zip(names, new):
            if n is None:
                continue           # a guest: a newcomer for this game alone
            k = people.key(n)
            self.rating[k] = r
            self.games[k] = self.games.get(k, 0) + 1
            self.history.setdefault(k, []).append((self.rated, r.mu, r.sigma))


def boards(games):
    """{game id: Board} from standings.played() (in time order)."""
    out = {}
    for g in games:
        if not records.counts_as_win(g.summary):
            continue               # unfinished, not stopped by agreement: nobody's result
        names = g.names            # each seat someone of its own (people.Resolver)
        if all(n is None for n in names):
            continue
        out.setdefault(g.record["game"], Board(g.record["game"])).rate(names, places(g.record, g.summary))
    return out


def number(x):
    return "%.*f" % (PLACES, x)


def table(games, game=None, provisional=PROVISIONAL_GAMES):
    """The ratings as rows (dicts in COLUMNS order, numbers as shown), per
    game in the registry's order, best conservative estimate first; a
    rating from fewer than `provisional` games is provisional, and listed
    after every established one (a newcomer's lucky first game is no rank).
    Worked out from `games` (standings.played(), in time order), every game
    rated again; stored() is the same from the ratings kept in the database."""
    shown = standings.spellings(games)
    b = boards(games)
    return rows_of(b, shown, game, provisional), b


def rows_of(b, shown, game=None, provisional=PROVISIONAL_GAMES):
    """The table's rows of the Boards `b`, names as `shown` ({person key:
    name}); `game`: that game's only; provisional: as table()'s."""
    for x in b.values():
        x.shown = shown
    rows = []
    order = sorted(b, key=lambda g: (registry.IDS.index(g) if g in registry.IDS else len(registry.IDS), g))
    for g in order:
        if game is not None and g != game:
            continue
        mine = []
        for k, r in b[g].rating.items():
            mine.append({"game": g, "player": shown[k], "rating": number(r.mu), "sigma": number(r.sigma),
                         "conservative": number(r.mu - 3 * r.sigma), "games": b[g].games[k],
                         "provisional": b[g].games[k] < provisional,
                         "_order": (b[g].games[k] < provisional, -(r.mu - 3 * r.sigma), -r.mu, shown[k])})
        mine.sort(key=lambda x: x.pop("_order"))
        rows += mine
    return rows


# --- the ratings kept in the database ----------------------------------------------------
# The database keeps each person's rating after each rated game (`ratings`:
# mu, sigma and their games so far, per game row and seat, in time order), so
# a new game is rated from the ratings just before it: only the games from
# the first one that changed are rated again (a game that arrived late, a
# name fix).  What is due is in `ratings_due` (the db marks it as it stores a
# game or a change); the next read rates it and keeps the result.  VERSION
# names what the stored ratings were worked out by: with another, all are
# worked out again.
def _version():
    with open(__file__, "rb") as f:
        mine = hashlib.sha256(f.read()).hexdigest()[:16]
    return "%s; openskill %s; ratings.py sha256:%s" % (MODEL_NAME, openskill.__version__, mine)


VERSION = _version()


def _state(db, game, since):
    """({person key: (mu, sigma, games)} just before `since` (an ord; None:
    after the last), the number of rated games before it) as stored."""
    if since is None:
        got = db.query("SELECT person, mu, sigma, games, MAX(ord) FROM ratings WHERE game = ? GROUP BY person",
                       (game,))
        last = db.query("SELECT number FROM ratings WHERE game = ? ORDER BY ord DESC LIMIT 1", (game,))
    else:
        got = db.query("SELECT person, mu, sigma, games, MAX(ord) FROM ratings WHERE game = ? AND ord < ?"
                       " GROUP BY person", (game, since))
        last = db.query("SELECT number FROM ratings WHERE game = ? AND ord < ? ORDER BY ord DESC LIMIT 1",
                        (game, since))
    return dict((k, (mu, sigma, n)) for k, mu, sigma, n, _ in got), (last[0][0] if last else 0)


def rate_from(db, game, since, before=None):
    """The ratings of `game` from `since` (an ord) on, rated from those
    stored before it (`before`: _state's, when the caller has read it):
    [(game row, seat, ord, number, person, mu, sigma, games)], one a named
    seat of each rated game, in time order."""
    state, rated = before or _state(db, game, since)
    state = dict(state)
    out = []
    seats = db.query("SELECT game_ref, ord, seat, person, place FROM game_players"
                     " WHERE game = ? AND ord >= ? AND place IS NOT NULL ORDER BY ord, seat", (game, since))
    for (row, key), mine in itertools.groupby(seats, key=lambda x: x[:2]):
        mine = list(mine)
        if all(x[3] is None for x in mine):
            continue                    # nobody named: not rated
        teams = [[MODEL.rating(mu=state[k][0], sigma=state[k][1]) if k in state else MODEL.rating()]
                 for _, _, _, k, _ in mine]
        new = MODEL.rate(teams, ranks=[x[4] for x in mine])
        rated += 1
        for (_, _, seat, k, _), [r] in zip(mine, new):
            if k is None:
                continue                # a guest: a newcomer for this game alone
            n = state[k][2] + 1 if k in state else 1
            state[k] = (r.mu, r.sigma, n)
            out.append((row, seat, key, rated, k, r.mu, r.sigma, n))
    return out


def _kept(db):
    """Were the kept ratings worked out by this VERSION?"""
    return dict(db.query("SELECT key, value FROM summary_state")).get("ratings") == VERSION


def _due(db):
    """{game id: the ord its ratings are due from}: every game's from its
    first when the kept ones were worked out by another VERSION."""
    if not _kept(db):
        return dict((g, b"") for g, in db.query("SELECT DISTINCT game FROM game_summary WHERE counted AND finished"))
    return dict(db.query("SELECT game, since FROM ratings_due"))


def settle(db):
    """Rate what is due and keep it (one write transaction); False when
    the database takes no write now (read-only, or locked by another
    writer): a reader then rates what is due in memory (stored_boards)."""
    if _kept(db) and not db.query("SELECT 1 FROM ratings_due LIMIT 1"):
        return True
    try:
        with db.writing("cannot store the ratings"):
            if not _kept(db):
                db.forget_ratings(VERSION)
            for game, since in db.query("SELECT game, since FROM ratings_due ORDER BY game"):
                db.settle_ratings(game, since, rate_from(db, game, since))
    except DatabaseProblem:
        return False
    return True


class History(dict):
    """{person key: [(rated game number, mu, sigma)]} of one game, read from
    the database when a person's line is first asked for (the page's chart
    draws a few of them), with the ratings worked out in memory after it."""

    def __init__(self, db, game, since, extra):
        dict.__init__(self)
        self.db, self.game, self.since, self.extra = db, game, since, extra

    def __missing__(self, k):
        if self.since is None:
            got = self.db.query("SELECT number, mu, sigma FROM ratings WHERE game = ? AND person = ? ORDER BY ord",
                                (self.game, k))
        else:
            got = self.db.query("SELECT number, mu, sigma FROM ratings WHERE game = ? AND person = ? AND ord < ?"
                                " ORDER BY ord", (self.game, k, self.since))
        self[k] = [tuple(x) for x in got] + [(x[3], x[5], x[6]) for x in self.extra if x[4] == k]
        return self[k]


def stored_boards(db):
    """{game id: Board} as the kept ratings stand, anything due rated in
    memory on top of them (settle() keeps it); in the order each game was
    first rated, as boards() gives them."""
    due = _due(db)
    kinds = set(due)
    if _kept(db):     # a game the registry does not know is never counted, so never rated
        kinds.update(g for g in registry.IDS if db.query("SELECT 1 FROM ratings WHERE game = ? LIMIT 1", (g,)))
    out, first = {}, {}
    for game in kinds:
        since = due.get(game)
        state, rated = _state(db, game, since)
        extra = rate_from(db, game, since, (state, rated)) if since is not None else []
        for row, seat, key, n, k, mu, sigma, games in extra:
            state[k] = (mu, sigma, games)
            rated = n
        if not state:
            continue
        if since is None:
            begin = db.query("SELECT MIN(ord) FROM ratings WHERE game = ?", (game,))[0][0]
        else:
            begin = db.query("SELECT MIN(ord) FROM ratings WHERE game = ? AND ord < ?", (game, since))[0][0]
        first[game] = begin if begin is not None else extra[0][2]
        b = Board(game)
        b.rating = dict((k, MODEL.rating(mu=mu, sigma=sigma)) for k, (mu, sigma, _) in state.items())
        b.games = dict((k, n) for k, (_, _, n) in state.items())
        b.rated = rated
        b.history = History(db, game, since, extra)
        out[game] = b
    return dict((g, out[g]) for g in sorted(out, key=lambda g: first[g]))


def stored(db, game=None, provisional=PROVISIONAL_GAMES):
    """(rows, {game id: Board}) as table() gives them, from the ratings kept
    in the database: what is due is rated first (and kept when the database
    takes the write), so a new game costs its own rating, not a season's."""
    settle(db)
    with db.snapshot():
        b = stored_boards(db)
        shown = standings.names(db)
    return rows_of(b, shown, game, provisional), b


def text_report(rows, b, provisional=PROVISIONAL_GAMES):
    if not rows:
        return "no finished games with named players yet"
    lines = []
    for g in [g for g in b if any(r["game"] == g for r in rows)]:
        mine = [r for r in rows if r["game"] == g]
        body = [[jsonin.printable(r["player"]), r["rating"], r["sigma"], r["conservative"], str(r["games"]),
                 yes_no(r["provisional"])] for r in mine]
        widths = [max(wcwidth.width(x[i]) for x in [HEADS] + body) for i in range(len(HEADS))]
        lines.append("%s: %s rated, %s; provisional: fewer than %s, listed last" % (
            jsonin.printable(g), jsonin.count(b[g].rated, "game"), MODEL_NAME, jsonin.count(provisional, "game")))
        for x in [HEADS] + body:
            lines.append("  " + "  ".join(wcwidth.ljust(c, w) for c, w in zip(x, widths)).rstrip())
        lines.append("")
    return "\n".join(lines).rstrip()


def yes_no(flag):
    return "yes" if flag else "no"


def report(db, game=None, as_json=False, provisional=PROVISIONAL_GAMES, club=None):
    """What speedref-results ratings prints: (the rows left out, the text,
    the rows), from the ratings kept in the database (stored()); `club`:
    rated from that club's games only (standings.played: every one of them
    rated again, as one club's ratings are not kept)."""
    if club is not None:
        skipped = []
        with db.snapshot():
            games = standings.played(db, skipped, club=club)
        rows, b = table(games, game, provisional)
    else:
        settle(db)
        with db.snapshot():
            skipped = standings.left_out(db)
            b = stored_boards(db)
            rows = rows_of(b, standings.names(db), game, provisional)
    if as_json:
        text = json.dumps({"model": MODEL_NAME, "ratings": rows,
                           "rated": dict((g, b[g].rated) for g in b if game in (None, g)),
                           "skipped": skipped}, indent=1)
    else:
        text = text_report(rows, b, provisional)
    return skipped, text, rows
