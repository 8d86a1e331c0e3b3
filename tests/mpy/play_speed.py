"""Golden Speed playthrough: a full seeded match on CPython or MicroPython.

    micropython tests/mpy/play_speed.py SEED      (MICROPYPATH: firmware or build/mpy)
    python tests/mpy/play_speed.py SEED

Both players follow a simple policy driven by Rng(seed); their reaction times
come from the same rng, so plays on one pile within RACE_US happen (SP-13).
One line per event; the output must be byte-identical on both runtimes.
The variant (layout, match, options) is chosen by seed % 3.
"""
import sys

from speedref.engine import cards as C
from speedref.engine import speed
from speedref.engine import speed_play as SP
from speedref.engine.rng import Rng

VARIANTS = (
    ("pagat", {"target": 25}, False, False, 5, False),
    ("classic", {"best_of": 3}, True, True, 6, False),
    ("classic", {"single": True}, False, False, 7, True),
)
MAX_EVENTS = 50000


def _tops(st):
    return "%s %s" % (C.name(st.piles[0][-1]) if st.piles[0] else "--",
                      C.name(st.piles[1][-1]) if st.piles[1] else "--")


def _what(st, p, a, tag):
    if tag == "ready":
        return "ready"
    if tag == "start":
        return "ready; start cards up"
    if tag == "draw":
        return "draws"
    if tag == "stuck":
        return "stuck"
    if tag == "flip":
        return "stuck; both flip a reserve card (flip %d)" % st.flips
    if tag == "rebuild":
        return "stuck; reserves rebuilt (%d), flip %d" % (st.rebuilds, st.flips)
    if tag == "slap":
        return "slaps: Speed!"
    c = C.name(a & 0xFF)
    pile = (a >> 8) + 1
    if tag == "race":
        return "plays %s on %d too late: back to hand" % (c, pile)
    if tag == "out":
        return "plays %s on %d and is out" % (c, pile)
    return "plays %s on %d" % (c, pile)


def _decide(st, rng, p, now, pending):
    acts = st.legal_actions(p)
    if not acts:
        pending[p] = None
        return
    plays = [a for a in acts if a < SP.READY]
    if SP.SLAP in acts:
        a = SP.SLAP
    elif SP.DRAW in acts and len(st.hands[p]) < 3:
        a = SP.DRAW
    elif plays:
        a = plays[rng.below(len(plays))]
    elif SP.DRAW in acts:
        a = SP.DRAW
    else:
        a = acts[0]  # READY or STUCK
    pending[p] = (now + 120000 + rng.below(400000), a)


def play_deal(st, rng, emit):
    """Drive one dealt State to its end; each event becomes a line."""
    pending = [None, None]
    _decide(st, rng, 0, 0, pending)
    _decide(st, rng, 1, 0, pending)
    n = 0
    while st.phase != "over":
        n += 1
        if n > MAX_EVENTS or (pending[0] is None and pending[1] is None):
            raise RuntimeError("speed deal did not finish")
        if pending[1] is None or (pending[0] is not None and pending[0][0] <= pending[1][0]):
            p = 0
        else:
            p = 1
        t, a = pending[p]
        pending[p] = None
        q = 1 - p
        before = st.legal_actions(q)
        tag = st.apply(p, a, t)
        emit("%d P%d %s | %s | %d+%d %d+%d" % (
            t, p + 1, _what(st, p, a, tag), _tops(st),
            len(st.hands[0]), len(st.stocks[0]), len(st.hands[1]), len(st.stocks[1])))
        other = pending[q]
        if other is not None:
            # The other player's plan stands if it still fits, or if it races this
            # play (SP-13: aimed at the top this card just covered).
            tq, aq = other
            race = (tag in ("play", "out") and aq < SP.READY and (aq >> 8) == (a >> 8)
                    and tq - t < SP.RACE_US and aq in before)
            if not race and aq not in st.legal_actions(q):
                pending[q] = None
        if pending[q] is None:
            _decide(st, rng, q, t, pending)
        _decide(st, rng, p, t, pending)


def play(seed, out=None):
    """Play a full seeded match; return (transcript_lines, canonical record).

    With `out` (e.g. print) each line is passed to it instead of being kept,
    so a long match fits a small MicroPython heap."""
    layout, match, jokers, doubles, limit, slap = VARIANTS[seed % 3]
    rng = Rng(seed)
    lines = []
    emit = out if out is not None else lines.append
    m = speed.SpeedMatch(layout, match, ["P1", "P2"], jokers, doubles, limit, slap)
    emit("speed seed %d layout %s %s jokers %d doubles %d hand %d slap %d" % (
        seed, layout, m.format, jokers, doubles, limit, slap))
    while not m.over:
        st = SP.State(rng.next32(), layout, jokers, doubles, limit, slap)
        st.apply(SP.CHANCE, SP.DEAL)
        emit("deal %d: hands %s / %s" % (
            len(m.deals) + 1, " ".join([C.name(c) for c in st.hands[0]]),
            " ".join([C.name(c) for c in st.hands[1]])))
        play_deal(st, rng, emit)
        w, left = st.score()
        m.add_deal(w, left)
        emit("deal %d: P%d wins, P%d holds %d; flips %d rebuilds %d races %d; totals %d-%d wins %d-%d" % (
            len(m.deals), w + 1, 2 - w, left, st.flips, st.rebuilds, st.races,
            m.totals[0], m.totals[1], m.wins[0], m.wins[1]))
    emit("match over: winner P%d, %s" % (m.winners()[0] + 1, m.tiebreak))
    return lines, m.to_record()


if __name__ == "__main__":
    play(int(sys.argv[1]) if len(sys.argv) > 1 else 1, print)
