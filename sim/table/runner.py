"""The table runner: `speedref-sim --table GAME --games N --seed S`.

Plays N games of GAME at fresh virtual tables (the table class its registry
entry names), each from its own seed, and prints a summary: games,
agreements, disagreements, ties in the window, the game's scored parts
(deals, rounds, hands), slap verdicts and false starts.  Exit 1 on a
disagreement.
"""
import time

from sim.table.base import game_seed, play_at
from speedref import games as registry


def table_class(game):
    """The game's virtual table, as its registry entry names it (loaded on
    first use); ValueError for a game that is not registered."""
    return registry.load(registry.get(game).table, "sim.table")


def seat_choice(game, seats):
    """The table's keyword for `seats` players at `game` ({} for its one
    count): ValueError unless the registry's entry seats that many and its
    flow referees them (the flow's SEATS)."""
    g = registry.get(game)
    lo, hi = g.seats
    if not lo <= seats <= hi:
        raise ValueError("%s seats %s players, not %d" % (g.title, lo if lo == hi else "%d to %d" % (lo, hi), seats))
    flo, fhi = getattr(registry.load(g.flow, "speedref.app"), "SEATS", g.seats)
    if not flo <= seats <= fhi:
        raise ValueError("the %s referee plays %s players, not %d" % (
            g.title, flo if flo == fhi else "%d to %d" % (flo, fhi), seats))
    return {} if lo == hi else {"seats": seats}


def play_game(game, seed, i, **kw):
    """One game at a fresh table: (table, disagreements)."""
    return play_at(table_class(game), seed, i, **kw)


def run(game, games, seed, out=None, verbose=False, seats=None, **kw):
    """Play `games` games (with `seats` players, else the table's own
    count); print a summary to `out`; return the summary dict."""
    table_class(game)  # ValueError (no such game) or ImportError (no table) before any game
    if seats is not None:
        kw.update(seat_choice(game, seats))
    s = {"game": game, "games": 0, "agreements": 0, "disagreements": 0, "ties_in_window": 0,
         "deals": 0, "slaps": 0, "false_starts": 0, "sim_seconds": 0, "failed": []}
    t0 = time.perf_counter()
    for i in range(games):
        tb, bad = play_game(game, seed, i, **kw)
        s["games"] += 1
        # what a table kept of the truth: its scored parts (deals, rounds,
        # hands), slap verdicts and false starts; a game without slaps keeps none
        s["ties_in_window"] += getattr(tb, "ties", 0)
        s["deals"] += len(tb.t_deals)
        s["slaps"] += len(getattr(tb, "t_slaps", ()))
        s["false_starts"] += len(getattr(tb, "t_false", ()))
        s["sim_seconds"] += tb.t // 1000000
        if bad:
            s["disagreements"] += 1
            s["failed"].append((i, bad))
            if out:
                out.write("game %d (seed %r) DISAGREES:\n  %s\n" % (i, game_seed(seed, i), "\n  ".join(bad)))
        else:
            s["agreements"] += 1
        if verbose and out:
            out.write("game %d: deals %r ties %d\n" % (i, tb.t_deals, tb.ties))
    s["wall_s"] = time.perf_counter() - t0
    s["games_per_s"] = s["games"] / s["wall_s"] if s["wall_s"] else 0.0
    if out:
        out.write("%s table%s: games %d, agreements %d, disagreements %d, ties in window %d\n"
                  % (game, "" if seats is None else " (%d players)" % seats,
                     s["games"], s["agreements"], s["disagreements"], s["ties_in_window"]))
        unit = registry.get(game).unit + "s"
        out.write("  %s %d, slap verdicts %d, false starts %d, %d simulated s in %.1f s: "
                  "%.2f games/s\n" % (unit, s["deals"], s["slaps"], s["false_starts"], s["sim_seconds"],
                                      s["wall_s"], s["games_per_s"]))
    return s


def main(game, games, seed, out, store=None, seats=None):
    """speedref-sim --table GAME [--seats N]: `games` games; store: the
    board's flash folder every game's record is kept in (--store), else a
    fresh one each."""
    import sys
    try:
        table_class(game)
    except (ValueError, ImportError) as e:
        sys.stderr.write("speedref-sim: the table plays the registered games (%s), not %s: %s\n"
                         % (", ".join(registry.IDS), game, e))
        return 2
    if seats is not None:
        try:
            seat_choice(game, seats)
        except ValueError as e:
            sys.stderr.write("speedref-sim: --seats %d: %s\n" % (seats, e))
            return 2
    s = run(game, games, seed, out, store=store, seats=seats)
    return 1 if s["disagreements"] else 0
