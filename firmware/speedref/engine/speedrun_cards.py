"""Speed Run, CARD level: the whole game with real cards (simulator, tests, goldens).

Never imported by the app on the board.  The scoring is not repeated here: the
hand is refereed by a table-level SpeedRunGame (speedrun.py), so card-level play
and the referee keep one score, and record() is what the table level replays.

The Engine API of every card-level game (docs/architecture.md):

    st = State(seed, "long", ["Ann", "Bob", "Cy"], first=0)
    st.phase                   "deal" (the chance step, SR-6) -> "choose" (trump and
                               ranking, SR-7) -> "contract" (one each, face down, SR-13)
                               -> "play" (the twelve tricks) -> "deal" ... -> "over" (SR-28)
    st.current_player()        CHANCE for the deal, a seat, or TERMINAL
    st.is_terminal()           phase == "over"
    st.actors()                [the seat to act], or [] (chance step, game over)
    st.legal_actions(player)   ints, sorted; [] when it is not that player's turn;
                               legal_actions(CHANCE) == [DEAL] when a deal is due
    st.apply(player, action, t_us=None)   RuleError (state unchanged) if illegal;
                               t_us is not used (turn-based); apply(CHANCE, DEAL) deals
    st.action_name(action), st.scores(), st.record()
    st.hand[seat] (bytearray of cards), st.trick (cards on the table this trick)

Actions: a card (suit*16 + rank) | TRUMP + i (TRUMPS[i]) | RANK + i (RANKINGS[i])
| CONTRACT + i (NORMAL[i]; CONTRACT + 9 is Pass) | REDO + i (Redo naming
NORMAL[i]) | REVEAL (turn your contract face up, on your turn) | DEAL (chance).
"""
from . import CHANCE, TERMINAL
from . import cards
from .errors import RuleError, is_int
from .rng import Rng
from .speedrun import (SpeedRunGame, TRUMPS, RANKINGS, NORMAL, direction)

from micropython import const

TRUMP = const(64)
RANK = const(72)
CONTRACT = const(80)
PASS = const(89)
REDO = const(96)
REVEAL = const(112)
DEAL = const(120)


# What a player's final score counts, and which way is better: the results
# page says so beside the standings' "avg score" (host_tools/views/results_page.py).
# Here, in the card level, which stays on the laptop: no board heap for it.
SCORE = "the final total, lower is better (the lowest total wins)"


def beats(a, b, led, trump, dirn):
    """True if card a beats card b, given the suit led, the trump suit (or -1) and
    the direction in force (SR-11): trump first, then the led suit, then nothing."""
    sa = a >> 4
    sb = b >> 4
    if sa != sb:
        if sa == trump:
            return True
        if sb == trump:
            return False
        return sa == led and sb != led
    if dirn == 10:
        return (a & 15) > (b & 15)
    return (a & 15) < (b & 15)


def trick_winner(played, leader, trump, dirn):
    """Seat that wins a trick; `played` is the three cards in play order from `leader`."""
    led = played[0] >> 4
    best = 0
    for i in (1, 2):
        if beats(played[i], played[best], led, trump, dirn):
            best = i
    return (leader + best) % 3


class State:
    def __init__(self, seed, length="long", players=None, first=0):
        if players is None:
            players = ["P1", "P2", "P3"]
        self.game = SpeedRunGame(length, players, first)
        self.rng = Rng(seed)
        self.hand = [bytearray(), bytearray(), bytearray()]
        self.out = bytearray()  # the four cards left out of the hand (SR-6)
        self.phase = "deal"
        self.contracts = [None, None, None]
        self.trick = bytearray()
        self.turn = 0
        self.last_scores = None  # what the last hand wrote, per seat (None = Pass)
        self.last_trick = None   # (leader, cards in play order, winner)
        self.chosen = [None, None]  # trump, ranking until both are chosen

    # -- whose turn ----------------------------------------------------------
    def current_player(self):
        if self.phase == "deal":
            return CHANCE
        if self.phase == "over":
            return TERMINAL
        return self.turn

    def is_terminal(self):
        return self.phase == "over"

    def actors(self):
        p = self.current_player()
        return [p] if p >= 0 else []

    def _trump_suit(self):
        t = self.game.trump
        return -1 if t is None or t == "none" else TRUMPS.index(t)

    def legal_actions(self, player):
        if player != self.current_player() or self.phase == "over":
            return []
        ph = self.phase
        if ph == "deal":
            return [DEAL]
        g = self.game
        if ph == "choose":
            # The first chooser takes either; the second makes the other choice (SR-7).
            out = []
            if self.chosen[0] is None:
                out += [TRUMP + i for i in range(len(TRUMPS))]
            if self.chosen[1] is None:
                out += [RANK + i for i in range(len(RANKINGS))]
            return out
        if ph == "contract":
            out = []
            for c in g.legal_contracts(player):
                if c == "PASS":
                    out.append(PASS)
                elif c == "REDO":
                    out += [REDO + NORMAL.index(t) for t in g.redo_targets(player)]
                else:
                    out.append(CONTRACT + NORMAL.index(c))
            out.sort()
            return out
        # "play": follow suit if you can (SR-10), or reveal your contract (SR-21)
        h = self.hand[player]
        out = []
        if self.trick:
            led = self.trick[0] >> 4
            out = [c for c in h if c >> 4 == led]
        if not out:
            out = list(h)
        out.sort()
        if g.revealed[player] is None and self.contracts[player] != "PASS":
            out.append(REVEAL)
        return out

    def action_name(self, a):
        if a == DEAL:
            return "deal"
        if a == REVEAL:
            return "reveal"
        if a >= REDO:
            return "REDO:" + NORMAL[a - REDO]
        if a == PASS:
            return "PASS"
        if a >= CONTRACT:
            return NORMAL[a - CONTRACT]
        if a >= RANK:
            return RANKINGS[a - RANK]
        if a >= TRUMP:
            return "trump " + TRUMPS[a - TRUMP]
        return cards.run_name(a)

    # -- acting --------------------------------------------------------------
    def apply(self, player, action, t_us=None):
        """Apply one action; every check runs before anything changes."""
        if self.phase == "over":
            raise RuleError("SR-28", "the game is over")
        if player != self.current_player():
            # players counted from 1 in messages (SR-29): seat 0 is player 1
            who = "player %d" % (player + 1) if player in (0, 1, 2) else repr(player)
            raise RuleError(self._turn_rule(), "it is not %s's turn" % who)
        if action not in self.legal_actions(player):
            try:
                what = self.action_name(action)
            except (IndexError, TypeError):
                what = repr(action)
            raise RuleError(self._action_rule(player, action),
                            "player %d may not play %s now" % (player + 1, what))
        ph = self.phase
        if ph == "deal":
            self._deal()
        elif ph == "choose":
            self._choose(action)
        elif ph == "contract":
            self.contracts[player] = self.action_name(action)
            self.turn = (player + 1) % 3
            if self.contracts[self.turn] is not None:  # all three down
                self.phase = "play"
                self.turn = self.game.leader()
        elif action == REVEAL:
            c = self.contracts[player]
            self.game.reveal(player, c)
        else:
            self._play(player, action)

    def _turn_rule(self):
        ph = self.phase
        if ph == "deal":
            return "SR-6"
        if ph == "choose":
            return "SR-7"
        return "SR-13" if ph == "contract" else "SR-8"

    def _action_rule(self, player, a):
        ph = self.phase
        if ph == "choose":
            return "SR-7"
        if ph == "contract":
            # a bad action (not an int) is no Redo: still a RuleError, not a TypeError
            return "SR-19" if is_int(a) and REDO <= a < REVEAL else "SR-13"
        if ph == "play":
            if a == REVEAL:
                return "SR-22" if self.contracts[player] == "PASS" else "SR-21"
            for c in self.hand[player]:  # MicroPython's bytearray has no `in` for an int
                if c == a:
                    return "SR-10"  # held, but it does not follow suit
            return "SR-11"
        return "SR-6"

    def _deal(self):
        # The chance step (SR-6): the first player shuffles and deals twelve
        # each, one at a time clockwise from their left; four stay out.
        deck = self.rng.shuffle(cards.run_deck())
        first = self.game.first
        for s in range(3):
            self.hand[s] = bytearray()
        for i in range(36):
            self.hand[(first + 1 + i) % 3].append(deck[i])
        for s in range(3):
            self.hand[s] = bytearray(sorted(self.hand[s]))
        self.out = deck[36:]
        self.contracts = [None, None, None]
        self.trick = bytearray()
        self.phase = "choose"
        self.turn = first

    def _choose(self, a):
        g = self.game
        if a >= RANK:
            self.chosen[1] = RANKINGS[a - RANK]
        else:
            self.chosen[0] = TRUMPS[a - TRUMP]
        if self.chosen[0] is None or self.chosen[1] is None:
            self.turn = (g.first + 1) % 3  # the next player makes the other choice
            return
        g.set_choices(self.chosen[0], self.chosen[1])
        self.chosen = [None, None]
        self.phase = "contract"
        self.turn = g.first

    def _play(self, player, c):
        h = self.hand[player]
        i = 0
        while h[i] != c:
            i += 1
        self.hand[player] = h[:i] + h[i + 1:]  # MicroPython's bytearray has no remove()
        self.trick.append(c)
        if len(self.trick) < 3:
            self.turn = (player + 1) % 3
            return
        g = self.game
        n = g.tricks_played() + 1
        leader = g.next_leader()
        w = trick_winner(self.trick, leader, self._trump_suit(), direction(g.ranking, n))
        self.last_trick = (leader, bytes(self.trick), w)
        g.record_trick(w)
        self.trick = bytearray()
        self.turn = w
        if n == 12:
            self.last_scores = g.finish_hand(self.contracts)
            self.phase = "over" if g.over else "deal"

    # -- results -------------------------------------------------------------
    def scores(self):
        """Running totals (lowest wins, SR-24)."""
        return list(self.game.totals)

    def record(self):
        return self.game.to_record()

    # -- invariants (tests) ----------------------------------------------------
    def check(self):
        """Raise AssertionError unless no card is lost or in two places
        (SR-6, SR-12) and each total is the sum of its sheet (SR-24)."""
        every = bytearray()
        for h in self.hand:
            every += h
        every += self.trick
        every += self.out
        if len(set(every)) != len(every):
            raise AssertionError("a card is in two places")
        g = self.game
        if self.current_player() >= 0:  # dealt, not over
            sizes = [len(h) for h in self.hand]
            if max(sizes) - min(sizes) != (1 if self.trick else 0):
                raise AssertionError("hands %r with %d cards in the trick" % (sizes, len(self.trick)))
            if sum(sizes) + len(self.trick) + 3 * g.tricks_played() != 36 or len(self.out) != 4:
                raise AssertionError("cards lost")
        for s in range(3):
            if g.totals[s] != sum(g.sheet[s].values()):
                raise AssertionError("totals %r are not the sheet's sums" % (g.totals,))
