"""speedref-results check: the games' summaries, the standings and the
ratings the database keeps, against a full replay of every record.

Every stored record is replayed through the rules as they are
(standings.played: the engine, the changes to names in force applied from
scratch), and what that gives is compared with what the database keeps
(host_tools/club/summary.py, db.py):

* per game: whether the rules count it, its place in time order, the
  changes to names that do not hold for it;
* per seat: the name entered, the person it is now and their name, the
  win, the score, the Perfect Bonuses and the ratings' place;
* the standings read in SQL against those counted from the replay;
* the kept ratings (anything due rated in memory, nothing written) against
  every game rated again from the first: each person's mu, sigma, games and
  line of ratings, bit for bit.

One line per difference; none is a database whose reads can be trusted.
"""
from speedref.engine import records

from host_tools import jsonin
from host_tools.club import people, ratings, standings, summary
from host_tools.club.standings import UNNAMED


def _said(v):
    return jsonin.printable(repr(v))


def _seat_label(seat):
    return "P%d" % (seat + 1)


def games(db):
    """Difference lines between each game's kept summary and a replay of its
    record; (lines, the replay's [Played])."""
    out = []
    skipped, held = [], {}
    played = standings.played(db, skipped, held=held)
    by_row = dict((g.row, g) for g in played)
    left = dict((s["row"], s["why"]) for s in skipped)
    kept = dict((r[0], r[1:]) for r in db.query(
        "SELECT game_ref, ord, game, counted, why, finished, seats, club FROM game_summary"))
    clubs = db.clubs()
    several = len(set(clubs.values())) > 1
    seats = {}
    for r in db.query("SELECT game_ref, seat, name, total, won, entry, entered, person, shown, perfect, place, game,"
                      " ord FROM game_players ORDER BY game_ref, seat"):
        seats.setdefault(r[0], []).append(r[1:])
    kept_held = {}
    for r in db.query("SELECT game_ref, change, seat_a, seat_b, name_a, name_b, person FROM held"):
        kept_held.setdefault(r[0], set()).add(tuple(r[1:]))
    arrivals = db.arrivals()
    for row, text in db.game_rows():
        where = "game #%d" % row
        k = kept.get(row)
        if k is None:
            out.append("%s: no summary kept" % where)
            continue
        key, game, counted, why, finished, n, club = k
        if club != clubs.get(row):
            out.append("%s: club %s in the summary, %s in the games table" % (where, _said(club),
                                                                               _said(clubs.get(row))))
        if row in left:
            if counted or why != left[row]:
                out.append("%s: the replay leaves it out (%s), the summary %s" % (
                    where, left[row], "counts it" if counted else "says %s" % _said(why)))
            if seats.get(row):
                out.append("%s: left out, yet %d seats kept" % (where, len(seats[row])))
            continue
        g = by_row[row]
        if not counted:
            out.append("%s: the replay counts it, the summary leaves it out (%s)" % (where, why))
            continue
        rec, s = g.record, g.summary
        received, dedup = arrivals[row]
        fin = bool(records.counts_as_win(s))
        want = (summary.order_key(received, dedup, row, rec), rec["game"], fin, len(g.names))
        for what, a, b in zip(("place in time order", "game", "finished", "seats"), (key, game, bool(finished), n),
                              want):
            if a != b:
                out.append("%s: %s %s in the summary, %s by replay" % (where, what, _said(a), _said(b)))
        winners = set(s["winners"]) if fin else set()
        place = ratings.places(rec, s) if fin else None
        mine = seats.get(row, [])
        if len(mine) != len(g.names):
            out.append("%s: %d seats kept, %d by replay" % (where, len(mine), len(g.names)))
        raws = [str(p) for p in rec.get("players", [])]
        # the name each seat is taken as (of its club, in a league's database), the person it enters
        fed = [people.at_club(p, clubs[row]) if several and row in clubs else p for p in raws]
        firsts = set()
        for seat, (raw, entry, name) in enumerate(zip(raws, fed, g.names)):
            pk = None if people.unnamed(entry) else people.key(entry)
            entered = None if pk in firsts else pk
            firsts.add(pk)
            expect = (raw, s["totals"][seat] if seat < len(s["totals"]) else None, int(seat in winners), entry,
                      entered, None if name is None else people.key(name), name,
                      g.perfect[seat] if g.perfect is not None and seat < len(g.perfect) else None,
                      place[seat] if place is not None else None, rec["game"], want[0])
            got = tuple(mine[seat][1:]) if seat < len(mine) else (None,) * len(expect)
            for what, a, b in zip(("name entered", "score", "win", "name taken as", "person entered", "person",
                                   "name shown",
                                   "Perfect Bonuses", "place", "game", "place in time order"), got, expect):
                if a != b:
                    out.append("%s seat %s: %s %s in the summary, %s by replay" % (where, _seat_label(seat), what,
                                                                                    _said(a), _said(b)))
        want_held = set((h.number, h.seats[0], h.seats[1], h.names[0], h.names[1], h.person)
                        for h in held.get(row, ()))
        if kept_held.get(row, set()) != want_held:
            out.append("%s: changes that do not hold for it %s in the summary, %s by replay" % (
                where, _said(sorted(x[0] for x in kept_held.get(row, ()))), _said(sorted(x[0] for x in want_held))))
    for row in sorted(set(kept) - set(arrivals)):
        out.append("game #%d: a summary kept for no stored game" % row)
    order = [r for r, in db.query("SELECT game_ref FROM game_summary WHERE counted ORDER BY ord")]
    if order != [g.row for g in played]:
        out.append("the summaries' time order differs from the replay's")
    return out, played


def _row_name(r):
    return "%s %s" % (r["game"], UNNAMED if not r["person"] else jsonin.printable(r["player"]))


def tables(db, played):
    """Difference lines between the standings read from the summaries and
    those counted from the replay."""
    out = []
    got, unlinked = standings.standings(db, [])
    want, want_unlinked = standings.standings(db, [], played)
    a = dict((_row_name(r), r) for r in got)
    b = dict((_row_name(r), r) for r in want)
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            out.append("standings: %s: %s" % (name, "not in the summaries' standings" if name not in a
                                              else "not in the replay's standings"))
            continue
        for col in standings.COLUMNS:
            if a[name][col] != b[name][col] or type(a[name][col]) is not type(b[name][col]):
                out.append("standings: %s: %s %s from the summaries, %s by replay" % (
                    name, col, _said(a[name][col]), _said(b[name][col])))
    if [_row_name(r) for r in got] != [_row_name(r) for r in want] and not out:
        out.append("standings: the rows' order differs from the replay's")
    if unlinked != want_unlinked:
        out.append("standings: %d slaps not tied to a game from the summaries, %d by replay"
                   % (unlinked, want_unlinked))
    return out


def rated(db, played):
    """Difference lines between the kept ratings (anything due rated in
    memory) and every game rated again from the first."""
    out = []
    kept = ratings.stored_boards(db)
    fresh = ratings.boards(played)
    if list(kept) != list(fresh):
        out.append("ratings: games rated %s kept, %s by replay" % (_said(list(kept)), _said(list(fresh))))
    for game in sorted(set(kept) & set(fresh)):
        a, b = kept[game], fresh[game]
        if a.rated != b.rated:
            out.append("ratings: %s: %d games rated kept, %d by replay" % (game, a.rated, b.rated))
        for k in sorted(set(a.rating) | set(b.rating)):
            who = "ratings: %s %s" % (game, jsonin.printable(k))
            if k not in a.rating or k not in b.rating:
                out.append("%s: %s" % (who, "not kept" if k not in a.rating else "kept, not rated by replay"))
                continue
            x, y = a.rating[k], b.rating[k]
            if (x.mu, x.sigma, a.games[k]) != (y.mu, y.sigma, b.games[k]):
                out.append("%s: mu %r sigma %r games %d kept, mu %r sigma %r games %d by replay" % (
                    who, x.mu, x.sigma, a.games[k], y.mu, y.sigma, b.games[k]))
            elif list(a.history[k]) != list(b.history[k]):
                out.append("%s: their line of ratings differs from the replay's" % who)
    return out


def check(db):
    """Every difference line (none: the kept summaries, standings and
    ratings are what a replay of every record gives), and the count of games."""
    with db.snapshot():
        lines, played = games(db)
        lines += tables(db, played)
        lines += rated(db, played)
        n = db.count_games()
    return lines, n
