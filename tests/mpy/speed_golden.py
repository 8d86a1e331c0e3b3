"""Golden Speed playthrough: a full seeded match on CPython or MicroPython.

    micropython tests/mpy/speed_golden.py SEED [SEATS]   (MICROPYPATH: firmware or build/mpy)
    python tests/mpy/speed_golden.py SEED [SEATS]

Every player follows a simple policy driven by Rng(seed); their reaction times
come from the same rng, so plays on one pile within RACE_US happen (SP-13).
One line per event; the output must be byte-identical on both runtimes.
The variant (layout, match, options) is chosen by seed % 3; SEATS players
(2 by default, 3 or 4: SP-27) play, and tests/golden/speed_<seed>_<seats>.txt
is play(seed, seats).
"""
import sys

from speedref.engine import cards as C
from speedref.engine import speed
from speedref.engine import speed_cards as SP
from speedref.engine.rng import Rng

VARIANTS = (
    ("pagat", {"target": 25}, False, False, 5, False),
    ("classic", {"best_of": 3}, True, True, 6, False),
    ("classic", {"single": True}, False, False, 7, True),
)
MAX_EVENTS = 50000


def _tops(st):
    return " ".join([C.name(b[-1]) if b else "--" for b in st.piles])


def _counts(st):
    return " ".join(["%d+%d" % (len(st.hands[p]), len(st.stocks[p])) for p in range(st.seats)])


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
        return "stuck; %s flip a reserve card (flip %d)" % ("both" if st.seats == 2 else "all", st.flips)
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
    seats = range(st.seats)
    pending = [None] * st.seats
    for q in seats:
        _decide(st, rng, q, 0, pending)
    n = 0
    while st.phase != "over":
        n += 1
        p = None  # the earliest plan acts; at the same instant the lowest seat (SP-13)
        for q in seats:
            if pending[q] is not None and (p is None or pending[q][0] < pending[p][0]):
                p = q
        if n > MAX_EVENTS or p is None:
            raise RuntimeError("speed deal did not finish")
        t, a = pending[p]
        pending[p] = None
        # the other plans aimed at the pile this action plays on, legal before it
        aimed = [a < SP.READY and pending[q] is not None and pending[q][1] < SP.READY
                 and (pending[q][1] >> 8) == (a >> 8) and pending[q][1] in st.legal_actions(q)
                 for q in seats]
        tag = st.apply(p, a, t)
        emit("%d P%d %s | %s | %s" % (t, p + 1, _what(st, p, a, tag), _tops(st), _counts(st)))
        for q in seats:
            if q == p:
                continue
            other = pending[q]
            if other is not None:
                # Another player's plan stands if it still fits, or if it races this
                # play (SP-13: aimed at the top this card just covered).
                tq, aq = other
                race = tag in ("play", "out") and tq - t < SP.RACE_US and aimed[q]
                if not race and aq not in st.legal_actions(q):
                    pending[q] = None
            if pending[q] is None:
                _decide(st, rng, q, t, pending)
        _decide(st, rng, p, t, pending)


def _holds(m, w, left):
    # "P2 holds 7", or with more players "P1 holds 3, P3 holds 9"
    if m.seats == 2:
        left = [left if q != w else 0 for q in range(2)]
    return ", ".join(["P%d holds %d" % (q + 1, left[q]) for q in range(m.seats) if q != w])


def _dashed(xs):
    return "-".join([str(x) for x in xs])


def play(seed, seats=2, out=None):
    """Play a full seeded match of `seats` players; return (transcript_lines,
    canonical record).

    With `out` (e.g. print) each line is passed to it instead of being kept,
    so a long match fits a small MicroPython heap."""
    layout, match, jokers, doubles, limit, slap = VARIANTS[seed % 3]
    rng = Rng(seed)
    lines = []
    emit = out if out is not None else lines.append
    m = speed.SpeedMatch(layout, match, ["P%d" % (q + 1) for q in range(seats)], jokers, doubles, limit, slap)
    emit("speed seed %d layout %s %s jokers %d doubles %d hand %d slap %d%s" % (
        seed, layout, m.format, jokers, doubles, limit, slap, "" if seats == 2 else " seats %d" % seats))
    while not m.over:
        st = SP.State(rng.next32(), layout, jokers, doubles, limit, slap, seats)
        st.apply(SP.CHANCE, SP.DEAL)
        emit("deal %d: hands %s" % (len(m.deals) + 1, " / ".join(
            [" ".join([C.name(c) for c in h]) for h in st.hands])))
        play_deal(st, rng, emit)
        w, left = st.score()
        m.add_deal(w, left)
        emit("deal %d: P%d wins, %s; flips %d rebuilds %d races %d; totals %s wins %s" % (
            len(m.deals), w + 1, _holds(m, w, left), st.flips, st.rebuilds, st.races,
            _dashed(m.totals), _dashed(m.wins)))
    emit("match over: winner %s, %s" % (" ".join(["P%d" % (q + 1) for q in m.winners()]), m.tiebreak))
    return lines, m.to_record()


if __name__ == "__main__":
    play(int(sys.argv[1]) if len(sys.argv) > 1 else 1, int(sys.argv[2]) if len(sys.argv) > 2 else 2, print)
