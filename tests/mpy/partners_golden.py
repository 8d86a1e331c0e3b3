# Golden playthrough of partners (seeds/partners.md): one seeded game played by
# a simple deterministic policy, printed as a transcript.  Runs on CPython and
# on MicroPython (`micropython tests/mpy/partners_golden.py SEED`); the output must
# be byte-identical, so nothing here depends on dict order or float formatting.
import sys

from speedref.engine import cards
from speedref.engine import partners_cards as pp
from speedref.engine.rng import Rng

NAMES = ("Ann", "Bo", "Cy", "Di")


def _cards(cs):
    return " ".join([cards.name(c) for c in sorted(cs)])


def _estimate(s, p, rng):
    # Tricks the player hopes to make with a partner: aces and kings, a long
    # suit, about three from the partner, and a coin flip of optimism.
    own = list(s.hands[p]) + list(s.displays[s.table.seat_of(p)])
    count = [0, 0, 0, 0]
    top = 0
    for c in own:
        count[c >> 4] += 1
        if pp.high(c) >= 13:
            top += 1
    longest = 0
    for t in range(4):
        if count[t] > count[longest]:
            longest = t
    trump = pp.NOTRUMP if count[longest] <= 4 and top >= 3 else longest
    return 5 + top + max(0, count[longest] - 4) + rng.below(2), trump


def _bid(s, p, rng):
    est, trump = _estimate(s, p, rng)
    legal = s.legal_actions(p)
    for a in legal:  # cheapest bid in the preferred trump
        if a != pp.PASS and (a - pp.BID) & 7 == trump:
            if (a - pp.BID) >> 3 <= est or pp.PASS not in legal:
                return a
            break
    if pp.PASS in legal:
        return pp.PASS
    return legal[0]  # the dealer's compulsory opening (PT-6)


def _card(s, p, legal, rng):
    # Lead the highest card; otherwise win as cheaply as possible unless the
    # partner is already winning, else throw the lowest card.  One play in
    # eight is random so games differ more.
    by_rank = sorted(legal, key=lambda c: pp.high(c) * 4 + (c >> 4))
    if rng.below(8) == 0:
        return legal[rng.below(len(legal))]
    if not s.trick:
        return by_rank[-1]
    w = s.winning_index()
    winner = s.table.seats[(s.turn - len(s.trick) + w) % 4]
    bid, trump_name, contractor, partner = s.table.contract
    side = (contractor, partner)
    if (winner in side) == (p in side):
        return by_rank[0]
    for c in by_rank:
        if pp.beats(c, s.trick[w], s.trump()):
            return c
    return by_rank[0]


def play(seed, target=100, out=None):
    """Play a full game; returns (transcript lines, canonical record).

    With `out` (a function taking one line) the lines are streamed to it and
    the returned list is None: on MicroPython that runs a game in 24wK of heap,
    while keeping every line needs about 64wK (measured, seed 24, 212 lines).
    """
    lines = [] if out is None else None
    emit = lines.append if out is None else out
    s = pp.State(seed, target=target, players=NAMES, dealer=0)
    rng = Rng(seed + 1)
    g = s.table
    emit("partners seed %d target %d" % (seed, target))
    hand = 0
    while not s.is_terminal():
        p = s.current_player()
        if p == pp.CHANCE:
            s.apply(p, pp.DEAL)
            hand += 1
            emit("hand %d: %s deals; seats %s" % (hand, NAMES[g.dealer],
                                                  " ".join([NAMES[x] for x in g.seats])))
            for seat in range(4):
                q = g.seats[seat]
                emit(" seat %d %s: display %s | hand %s" % (seat, NAMES[q], _cards(s.displays[seat]),
                                                            _cards(s.hands[q])))
            calls = []
            continue
        if s.phase == "bid":
            a = _bid(s, p, rng)
            calls.append(NAMES[p] + " " + s.action_name(a))
            s.apply(p, a)
            if s.phase == "partner":
                emit(" auction: " + ", ".join(calls))
            continue
        if s.phase == "partner":
            others = s.legal_actions(p)
            a = others[rng.below(len(others))]
            s.apply(p, a)
            bid, trump, c, partner = g.contract
            if g.swap is None:
                moved = "no seat change"
            else:
                moved = "%s and %s change seats" % (NAMES[g.swap[0]], NAMES[g.swap[1]])
            emit(" contract: %s %d %s, partner %s; %s" % (NAMES[c], bid, trump, NAMES[partner], moved))
            trick_text = []
            continue
        legal = s.legal_actions(p)
        c = _card(s, p, legal, rng)
        shown = pp.has(s.displays[s.turn], c)
        trick_text.append("%s %s%s" % (NAMES[p], cards.name(c), "*" if shown else ""))
        before = g.tricks_played
        hands_before = g.hands_played
        s.apply(p, c)
        if len(s.trick) == 0:  # the 4th card closed the trick (PT-13)
            emit(" t%d: %s -> %s" % (before + 1, ", ".join(trick_text), NAMES[s.last_winner]))
            trick_text = []
        if g.hands_played != hands_before:
            hand_rec, scores, doubled = g.last_hand()
            emit(" tricks %s; scores %s%s; totals %s" % (hand_rec["tricks"], scores,
                                                         " doubled" if doubled else "", g.totals))
    emit("game over after %d hands: winners %s; %s" % (g.hands_played,
                                                      " ".join([NAMES[w] for w in g.winners()]),
                                                      g.tiebreak))
    return lines, s.record()


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    target = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    play(seed, target, out=print)


if __name__ == "__main__":
    main()
