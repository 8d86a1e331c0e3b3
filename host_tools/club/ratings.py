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
import json

import wcwidth
from openskill.models import PlackettLuce

from speedref.engine import records

from host_tools import jsonin
from host_tools.club import people, standings

PROVISIONAL_GAMES = 5          # a rating from fewer games than this is provisional (docs/ratings.md)
MODEL = PlackettLuce()          # mu 25, sigma 25/3, beta 25/6, tau 25/300 (openskill's defaults)
MODEL_NAME = "Weng-Lin (openskill Plackett-Luce)"
PLACES = 2                      # decimals shown, on the page and by the CLI alike
COLUMNS = ["game", "player", "rating", "sigma", "conservative", "games", "provisional"]
HEADS = ["player", "rating", "sigma", "conservative", "games", "provisional"]
NUMBERS = ["rating", "sigma", "conservative"]     # shown with PLACES decimals


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


# the host side's entry per game: each seat's measure, lower is better
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
    after every established one (a newcomer's lucky first game is no rank)."""
    from speedref import games as registry
    shown = standings.spellings(games)
    b = boards(games)
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
    return rows, b


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
    the rows); `club`: rated from that club's games only (standings.played)."""
    skipped = []
    with db.snapshot():
        games = standings.played(db, skipped, club=club)
    rows, b = table(games, game, provisional)
    if as_json:
        text = json.dumps({"model": MODEL_NAME, "ratings": rows,
                           "rated": dict((g, b[g].rated) for g in b if game in (None, g)),
                           "skipped": skipped}, indent=1)
    else:
        text = text_report(rows, b, provisional)
    return skipped, text, rows
