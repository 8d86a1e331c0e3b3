"""Speed at the CARD level: one deal with real cards (OpenSpiel spirit).

Rules: seeds/speed.md.  Never imported by the app on the board; the simulator's
computer players, the tests and the golden playthroughs use it.

The Engine API of every card-level game (docs/architecture.md):

  s = State(seed, layout="pagat", jokers=False, doubles=False, hand_limit=5,
            slap_to_win=False, seats=2)
  s.seats                       2, 3 or 4 players: as many centre piles and reserves
                                (SP-27, SP-29); hands, stocks, reserves, piles are lists
                                of one bytearray a seat
  s.phase                       "deal" (the chance step, SP-21) -> "ready" (SP-6) ->
                                "play" -> "over" (SP-16, SP-17)
  s.current_player()            CHANCE in "deal", TERMINAL in "over", else SIMULTANEOUS
  s.is_terminal()               phase == "over"
  s.actors()                    players who have a legal action now (all act at once)
  s.legal_actions(player)       list of action ints; legal_actions(CHANCE) == [DEAL] in "deal"
  s.apply(player, action, t_us) -> tag  ("deal" "ready" "start" "play" "race" "draw"
                                "stuck" "flip" "rebuild" "slap" "out");
                                apply(CHANCE, DEAL) shuffles and lays out (SP-2, SP-3, SP-28)
  s.winner, s.score() -> (winner, left) (left as speed.SpeedMatch.add_deal takes it), s.check()

Actions: play_action(pile, card) = pile * 256 + card (pile 0..seats-1), DRAW, STUCK,
READY, SLAP, DEAL (above every play).  Times are the simulation's microseconds,
compared with ticks_diff.
"""
from . import CHANCE
from . import cards as C
from .cards import RACE_US, fits, index
from .errors import RuleError
from .rng import Rng
from .simultaneous import Simultaneous
from .errors import is_int
from .speed import cards_per_player, check_options, points, reserve_size
from ..ticks import ticks_diff

# above play_action(3, card), the fourth pile's plays
READY = 0x400
DRAW = 0x401
STUCK = 0x402
SLAP = 0x403
DEAL = 0x404  # the chance step


# What a player's final score counts, and which way is better: the results
# page says so beside the standings' "avg score" (host_tools/views/results_page.py).
# Here, in the card level, which stays on the laptop: no board heap for it.
SCORE = "points at the end of the match, higher is better"


def play_action(pile, card):
    return (pile << 8) | card


def deck(seats, jokers=False):
    """SP-28: the cards for `seats` players: half a deck a player (clubs and
    diamonds, then hearts and spades, in turn) and one joker each.  Two
    players: exactly standard_deck(2 or 0); three: a deck and the clubs and
    diamonds of a second; four: two decks, each card twice (the same int:
    suits never matter, SP-7)."""
    full = C.standard_deck(0)
    d = bytearray()
    for k in range(seats):
        d += full[(k & 1) * 26:(k & 1) * 26 + 26]
    if jokers:
        for j in range(seats):
            d.append(C.JOKER + j)
    return d


def _lists(n):
    return [bytearray() for _ in range(n)]


class State(Simultaneous):
    def __init__(self, seed, layout="pagat", jokers=False, doubles=False, hand_limit=5,
                 slap_to_win=False, seats=2):
        check_options(layout, jokers, doubles, hand_limit, slap_to_win, seats)
        self.layout = layout
        self.jokers = jokers
        self.doubles = doubles
        self.hand_limit = hand_limit
        self.slap_to_win = slap_to_win
        self.seats = seats
        self.rng = Rng(seed)
        self.phase = "deal"
        self.hands = _lists(seats)
        self.stocks = _lists(seats)  # top card = last byte
        self.reserves = _lists(seats)  # reserve k flips onto pile k (SP-29)
        self.piles = _lists(seats)  # centre piles, top = last byte
        self.start = bytearray()
        self.ready = [False] * seats
        self.stuck = [False] * seats
        self.last = [None] * seats  # per pile: (player, t_us, top before that play)
        self.t = None
        self.winner = None
        self.flips = 0
        self.rebuilds = 0
        self.races = 0

    # -- chance step ---------------------------------------------------------
    def _deal(self):
        n_seats = self.seats
        d = deck(n_seats, self.jokers)
        self.rng.shuffle(d)
        n = cards_per_player(self.layout, self.jokers)
        r = reserve_size(self.layout)
        # Every card goes to exactly one place (SP-2/SP-3/SP-28 count to the deck's size).
        for p in range(n_seats):
            mine = d[p * n:(p + 1) * n]
            self.hands[p] = mine[n - 5:]  # SP-2: the hand is the top 5 (classic: dealt 5)
            self.stocks[p] = mine[:n - 5]
        k = n_seats * n
        for p in range(n_seats):
            self.reserves[p] = d[k + p * r:k + (p + 1) * r]
        self.start = d[k + n_seats * r:]
        self.phase = "ready"

    # -- queries -------------------------------------------------------------
    def left(self, p):
        return len(self.hands[p]) + len(self.stocks[p])

    def _can_play(self, p, card, pile):
        if C.is_joker(card) and self.left(p) == 1:
            return False  # SP-10
        return fits(card, self.piles[pile][-1], self.doubles)

    def _plays(self, p):
        out = []
        h = self.hands[p]
        for c in h:
            for pile in range(self.seats):
                if self._can_play(p, c, pile):
                    out.append(play_action(pile, c))
        return out

    def _can_draw(self, p):
        return len(self.stocks[p]) > 0 and len(self.hands[p]) < self.hand_limit

    def _seat(self, p):
        if not is_int(p) or p < 0 or p >= self.seats:
            raise RuleError("SP-1", "player must be 0..%d" % (self.seats - 1))

    def legal_actions(self, p):
        if p == CHANCE:
            return [DEAL] if self.phase == "deal" else []
        self._seat(p)
        if self.phase == "ready":
            return [] if self.ready[p] else [READY]
        if self.phase != "play":
            return []
        if self.left(p) == 0:
            return [SLAP]  # SP-17: only with slap-to-win is play still on
        acts = self._plays(p)
        if self._can_draw(p):
            acts.append(DRAW)
        if not acts and not self.stuck[p]:
            acts.append(STUCK)
        return acts

    def score(self):
        """SP-18, SP-35: (winner, the cards the others hold in hand and stock):
        the loser's count with 2 players, one count a player with more."""
        if self.winner is None:
            raise RuleError("SP-16", "the deal is not over")
        left = tuple([self.left(q) for q in range(self.seats)])  # the winner's is 0
        return self.winner, (points(left) if self.seats == 2 else left)

    # -- actions ---------------------------------------------------------------
    def apply(self, p, action, t_us=None):
        if p == CHANCE:
            if self.phase != "deal" or action != DEAL:
                raise RuleError("SP-21", "the deal happens once, at the start")
            self._deal()
            return "deal"
        self._seat(p)
        if self.t is not None and ticks_diff(t_us, self.t) < 0:
            raise RuleError("SP-13", "actions come in time order (%d is before %d)" % (t_us, self.t))
        if self.phase == "ready":
            if action != READY or self.ready[p]:
                raise RuleError("SP-6", "before the start flip a player can only say ready")
            self.t = t_us
            self.ready[p] = True
            if False not in self.ready:
                for k in range(self.seats):  # SP-6, SP-30: every start card at once
                    self.piles[k] = self.start[k:k + 1]
                self.phase = "play"
                return "start"
            return "ready"
        if self.phase != "play":
            raise RuleError("SP-21", "no actions in the %s phase" % self.phase)
        if action == SLAP:
            if not self.slap_to_win or self.left(p) != 0:
                raise RuleError("SP-17", "only a player with no cards slaps, with slap-to-win")
            self.t = t_us
            self.winner = p
            self.phase = "over"
            return "slap"
        if self.left(p) == 0:
            raise RuleError("SP-17", "a player with no cards can only slap")
        if action == DRAW:
            if not self._can_draw(p):
                raise RuleError("SP-11", "draw only from your own stock with fewer than %d in hand"
                                % self.hand_limit)
            self.t = t_us
            self.hands[p].append(self._take_top(self.stocks, p))
            self.stuck[p] = False
            return "draw"
        if action == STUCK:
            if self.stuck[p] or self._plays(p) or self._can_draw(p):
                raise RuleError("SP-14", "stuck means no card fits and no card can be drawn")
            self.t = t_us
            self.stuck[p] = True
            if False not in self.stuck:  # SP-31: every player is stuck
                return self._flip()
            return "stuck"
        return self._play(p, action, t_us)

    def _play(self, p, action, t_us):
        ok = is_int(action) and 0 <= action < READY
        pile = action >> 8 if ok else 0
        card = action & 0xFF if ok else 0
        if not ok or pile >= self.seats or index(self.hands[p], card) < 0:
            raise RuleError("SP-12", "play a card from your own hand onto pile 1..%d" % self.seats)
        last = self.last[pile]
        if last is not None and last[0] != p and ticks_diff(t_us, last[1]) < RACE_US:
            # SP-13: too close behind another player's card to have been aimed
            # at it, so it goes back to the hand; it must have fitted one of the two tops.
            if not (self._can_play(p, card, pile) or
                    (fits(card, last[2], self.doubles) and not (C.is_joker(card) and self.left(p) == 1))):
                raise RuleError("SP-7", "%s does not fit %s" % (C.name(card), C.name(last[2])))
            self.t = t_us
            self.races += 1
            return "race"
        if C.is_joker(card) and self.left(p) == 1:
            raise RuleError("SP-10", "a joker cannot be your last card")
        top = self.piles[pile][-1]
        if not fits(card, top, self.doubles):
            raise RuleError("SP-7", "%s does not fit %s" % (C.name(card), C.name(top)))
        self.t = t_us
        h = self.hands[p]
        i = index(h, card)
        self.hands[p] = h[:i] + h[i + 1:]
        self.piles[pile].append(card)
        self.last[pile] = (p, t_us, top)
        _clear(self.stuck)  # SP-14: a new top may give plays
        if self.left(p) == 0 and not self.slap_to_win:
            self.winner = p  # SP-16
            self.phase = "over"
            return "out"
        return "play"

    @staticmethod
    def _take_top(piles, p):
        # MicroPython's bytearray has no pop(): slice the top card off.
        b = piles[p]
        piles[p] = b[:-1]
        return b[-1]

    def _flip(self):
        """SP-14 (+ SP-15 rebuild, SP-10 lone-joker exchange) when all are stuck."""
        tag = "flip"
        n = self.seats
        for p in range(n):
            if not self.reserves[p]:
                self._rebuild()
                tag = "rebuild"
                break
        for p in range(n):
            h = self.hands[p]
            if len(h) == 1 and not self.stocks[p] and C.is_joker(h[0]):
                r = self.reserves[p]
                self.hands[p] = bytearray((r[-1],))
                self.reserves[p] = bytearray((h[0],)) + r[:-1]
        for p in range(n):  # SP-29: reserve k onto pile k
            self.piles[p].append(self._take_top(self.reserves, p))
            self.last[p] = None
        _clear(self.stuck)
        self.flips += 1
        return tag

    def _rebuild(self):
        # SP-15, SP-32: the tops stay; the rest of the centre and any reserve
        # cards are shuffled together and dealt round (the first reserves get
        # the extra cards).
        n = self.seats
        rest = bytearray()
        for p in range(n):
            rest += self.piles[p][:-1]
        for p in range(n):
            rest += self.reserves[p]
        for p in range(n):
            self.piles[p] = self.piles[p][-1:]
        self.rng.shuffle(rest)
        new = _lists(n)
        for i in range(len(rest)):
            new[i % n].append(rest[i])
        for p in range(n):
            self.reserves[p] = new[p]
        self.rebuilds += 1

    # -- invariants (tests) ------------------------------------------------------
    def check(self):
        """Raise AssertionError unless every card is in exactly one place."""
        allc = bytearray()
        for b in self.hands + self.stocks + self.reserves + self.piles:
            allc += b
        if self.phase in ("deal", "ready"):
            allc += self.start
        if self.phase == "deal":
            return
        if sorted(allc) != sorted(deck(self.seats, self.jokers)):
            raise AssertionError("cards lost or duplicated")
        for p in range(self.seats):
            if len(self.hands[p]) > self.hand_limit:
                raise AssertionError("hand over the limit")


def _clear(flags):
    for i in range(len(flags)):
        flags[i] = False
