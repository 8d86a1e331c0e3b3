"""Golden Spit playthrough: a full seeded game on CPython or MicroPython.

    micropython tests/mpy/spit_golden.py SEED      (MICROPYPATH: firmware or build/mpy)
    python tests/mpy/spit_golden.py SEED

Both players follow a simple policy driven by Rng(seed), reaction times included,
so races for a centre pile and slaps happen.  One line per event; the output
must be byte-identical on both runtimes.
"""
import sys

from speedref.engine import cards as C
from speedref.engine import spit_cards as SP
from speedref.engine.rng import Rng

MAX_EVENTS = 200000


def _tops(st):
    out = []
    for k in (0, 1):
        c = st.centre[k]
        out.append(C.name(c[-1]) if c else ("--" if st.active[k] else ".."))
    return " ".join(out)


def _counts(st):
    return " ".join(["%d+%d" % (st.count(p) - len(st.spit[p]), len(st.spit[p])) for p in (0, 1)])


def _what(st, a, tag, before):
    if tag in ("spit", "start", "restart"):
        return {"spit": "Spit!", "start": "Spit! piles start", "restart": "Spit! again"}[tag]
    if tag == "turn":
        return "turns pile %d" % (a - SP.turn_action(0) + 1)
    if tag == "move":
        i = (a - SP.move_action(0, 0)) >> 3
        return "moves pile %d to pile %d" % (i + 1, ((a - SP.move_action(0, 0)) & 7) + 1)
    if tag == "blocked":
        return "Spit! nobody can: blocked, relayout %d-%d" % tuple(st.rounds[-1]["cards"])
    if tag == "slap" or (tag == "round" and a >= SP.slap_action(0)):
        s = "slaps pile %d" % (a - SP.slap_action(0) + 1)
        if tag == "round":
            r = st.rounds[-1]
            s += "; P%d wins the slap, relayout %d-%d" % (r["slap"] + 1, r["cards"][0], r["cards"][1])
        return s
    s = "plays %s on %d" % (C.name(before), (a >> 3) + 1)
    if tag == "race":
        return s + " too late: back"
    if tag == "out":
        return s + " and is out"
    if tag == "round":
        r = st.rounds[-1]
        return s + ", cleared; takes none, relayout %d-%d" % (r["cards"][0], r["cards"][1])
    if st.phase == "slap":
        return s + ", cleared: slap!"
    return s


def _decide(st, rng, p, now, pending):
    acts = st.legal_actions(p)
    if not acts:
        pending[p] = None
        return
    if st.phase == "slap":
        a = SP.slap_action(1 if len(st.centre[1]) < len(st.centre[0]) else 0)
    else:
        plays = [x for x in acts if x < 16]
        turns = [x for x in acts if SP.turn_action(0) <= x < SP.turn_action(5)]
        if plays:
            a = plays[rng.below(len(plays))]
        elif turns:
            a = turns[0]
        else:
            a = acts[0]  # a move, or Spit!
    pending[p] = (now + 120000 + rng.below(400000), a)


def play(seed, out=None):
    """Play a full seeded game; return (transcript_lines, canonical record)."""
    rng = Rng(seed)
    lines = []
    emit = out if out is not None else lines.append
    st = SP.State(rng.next32())
    st.apply(SP.CHANCE, SP.DEAL)
    emit("spit seed %d" % seed)
    pending = [None, None]
    _decide(st, rng, 0, 0, pending)
    _decide(st, rng, 1, 0, pending)
    n = 0
    while st.phase != "over":
        n += 1
        if n > MAX_EVENTS or (pending[0] is None and pending[1] is None):
            raise RuntimeError("spit game did not finish")
        p = 0 if pending[1] is None or (pending[0] is not None and pending[0][0] <= pending[1][0]) else 1
        t, a = pending[p]
        pending[p] = None
        q = 1 - p
        before_q = st.legal_actions(q)
        card = None
        if a < 16 and st.phase == "play":
            card = st.stock[p][a & 7][-1]
        rounds = len(st.rounds)
        tag = st.apply(p, a, t)
        emit("%d P%d %s | %s | %s" % (t, p + 1, _what(st, a, tag, card), _tops(st), _counts(st)))
        other = pending[q]
        if len(st.rounds) != rounds:
            pending[q] = None  # a new round: both start afresh
        elif other is not None:
            tq, aq = other
            race = (tag == "play" and st.phase == "play" and aq < 16 and (aq >> 3) == (a >> 3)
                    and tq - t < SP.RACE_US and aq in before_q)
            if not race and aq not in st.legal_actions(q):
                pending[q] = None
        if pending[q] is None:
            _decide(st, rng, q, t, pending)
        _decide(st, rng, p, t, pending)
    emit("game over: P%d wins after %d rounds, %d Spit! restarts, %d races" % (
        st.winner + 1, len(st.rounds), st.restarts, st.races))
    return lines, {"game": "spit", "players": ["P1", "P2"], "rounds": st.rounds}


if __name__ == "__main__":
    play(int(sys.argv[1]) if len(sys.argv) > 1 else 1, print)
