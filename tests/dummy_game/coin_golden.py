"""Golden coin playthrough, on CPython or MicroPython (tests/dummy_game and
tests on MICROPYPATH): play(seed, target=3, out=None) -> (lines, record)."""
from speedref.engine.rng import Rng
from speedref.engine import CHANCE
from dummy_game.coin_cards import State, SLAP, DEAL


def play(seed, target=3, out=None):
    lines = [] if out is None else None
    emit = lines.append if out is None else out
    s = State(seed, target)
    s.apply(CHANCE, DEAL)
    rng = Rng(seed + 1)
    emit("coin seed %d target %d" % (seed, target))
    t = 0
    while s.phase != "over":
        t += 200000 + rng.below(300000)
        p = rng.below(2)
        side = s.side
        s.apply(p, SLAP, t)
        emit("%d %s: P%d slaps first, %d-%d" % (t, "heads" if side == 0 else "tails", p + 1,
                                                 s.game.totals[0], s.game.totals[1]))
    emit("game over: P%d wins" % (s.game.winners()[0] + 1))
    return lines, s.record()
