"""A seeded full Speed Run game, one transcript line per event.

Runs on both runtimes and must print byte-identical output:
    micropython tests/mpy/speedrun_golden.py SEED [short|medium|long]
    python tests/mpy/speedrun_golden.py SEED [short|medium|long]
play(seed, length) -> (transcript_lines, record) for the simulator and benchmarks.
"""
from speedref.engine import cards
from speedref.engine.rng import Rng
from speedref.engine.speedrun import direction
from speedref.engine.speedrun_cards import State, CHANCE, REVEAL, DEAL

PLAYERS = ["Ann", "Bob", "Cy"]


def _choose(rng, acts):
    # A simple deterministic policy: reveal on one turn in eight, otherwise a
    # uniformly drawn legal action (all from the seeded Rng).
    if REVEAL in acts:
        if rng.below(8) == 0:
            return REVEAL
        acts = acts[:-1]
    return acts[rng.below(len(acts))]


def _hand_str(h):
    return " ".join([cards.run_name(c) for c in h])


def play(seed, length="long", out=None):
    """Play the game; returns (transcript lines, record).  With `out`, each line
    goes to out(line) instead of being kept (saves heap on the board)."""
    lines = []
    add = lines.append if out is None else out
    st = State(seed, length, PLAYERS, first=seed % 3)
    policy = Rng(seed * 2654435761 + 1)
    g = st.game
    while not st.is_terminal():
        p = st.current_player()
        if p == CHANCE:
            st.apply(CHANCE, DEAL)
            add("hand %d: %s deals" % (g.hands_played + 1, PLAYERS[g.first]))
            for s in range(3):
                add("  %s: %s" % (PLAYERS[s], _hand_str(st.hand[s])))
            add("  out: %s" % _hand_str(sorted(st.out)))
            continue
        a = _choose(policy, st.legal_actions(p))
        phase = st.phase
        n = g.tricks_played() + 1
        ranking = g.ranking
        st.apply(p, a)
        name = st.action_name(a)
        if phase == "choose":
            add("  %s chooses %s" % (PLAYERS[p], name))
        elif phase == "contract":
            add("  %s plays contract %s face down" % (PLAYERS[p], name))
        elif a == REVEAL:
            add("  %s reveals %s" % (PLAYERS[p], st.contracts[p]))
        elif not st.trick:  # the third card completed a trick
            leader, played, w = st.last_trick
            add("  trick %d (%d high): %s -> %s" % (
                n, direction(ranking, n),
                " ".join([PLAYERS[(leader + i) % 3] + " " + cards.run_name(played[i]) for i in range(3)]),
                PLAYERS[w]))
        if phase == "play" and st.phase != "play":
            h = g.hands[-1]
            add("  tricks %s contracts %s revealed %s" % (
                h["tricks"], " ".join(h["contracts"]), "".join(["1" if r else "0" for r in h["revealed"]])))
            add("  scores %s totals %s" % (
                " ".join(["-" if x is None else str(x) for x in st.last_scores]), st.scores()))
    add("end after %d hands%s: totals %s, winners %s (%s)" % (
        g.hands_played, " (early)" if g.ended_early else "", g.totals,
        ",".join([PLAYERS[s] for s in g.winners()]), g.tiebreak))
    return lines, st.record()


def main(argv):
    seed = int(argv[1]) if len(argv) > 1 else 1
    length = argv[2] if len(argv) > 2 else "long"
    play(seed, length, print)


if __name__ == "__main__":
    import sys
    main(sys.argv)
