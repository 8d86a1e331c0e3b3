"""Spit at the CARD level: the whole game with real cards (OpenSpiel spirit).

Rules: seeds/spit.md.  Never imported by the app on the board.

The Engine API of every card-level game (docs/architecture.md):

  s = State(seed)
  s.phase                       "deal" (the chance step, SPIT-16) -> "spit" (both call
                                Spit!, SPIT-4) -> "play" -> ("slap", SPIT-10) -> "spit"
                                ... -> "over" (SPIT-14)
  s.current_player()            CHANCE in "deal", TERMINAL in "over", else SIMULTANEOUS
  s.is_terminal()               phase == "over"
  s.actors()                    players who have a legal action now (both act at once)
  s.legal_actions(player)       list of action ints; legal_actions(CHANCE) == [DEAL] in "deal"
  s.apply(player, action, t_us) -> tag ("deal" "spit" "start" "restart" "play" "race"
                                "turn" "move" "slap" "round" "blocked" "out");
                                apply(CHANCE, DEAL) shuffles, 26 each, lays out (SPIT-1, SPIT-2)
  s.rounds                      the canonical record's rounds so far (spit.replay format)
  s.winner, s.count(p), s.check()

Actions: play_action(stock_pile, centre) = centre * 8 + stock_pile, turn_action(i),
move_action(i, j), SPIT, slap_action(centre), DEAL.  Stock piles 0..4, centre piles
0..1 (centre pile p is on player p's side).
"""
from . import CHANCE
from . import cards as C
from .errors import RuleError
from .rng import Rng
from .simultaneous import Simultaneous
from .cards import RACE_US, fits
from .spit import centre_piles
from ..ticks import ticks_diff

SPIT = 0x80
_TURN = 0x20
_MOVE = 0x40
_SLAP = 0x90
DEAL = 0xA0  # the chance step


# What a player's final score counts, and which way is better: the results
# page says so beside the standings' "avg score" (host_tools/views/results_page.py).
# Here, in the card level, which stays on the laptop: no board heap for it.
SCORE = "cards still held at the end, fewer is better (the winner holds none)"


def play_action(i, c):
    return c * 8 + i


def turn_action(i):
    return _TURN + i


def move_action(i, j):
    return _MOVE + i * 8 + j


def slap_action(c):
    return _SLAP + c


class State(Simultaneous):
    def __init__(self, seed):
        self.rng = Rng(seed)
        self.phase = "deal"
        self.stock = [[bytearray() for _ in range(5)] for _ in (0, 1)]  # top = last byte
        self.up = [[False] * 5 for _ in (0, 1)]  # is the top card of that pile face up?
        self.spit = [bytearray(), bytearray()]
        self.centre = [bytearray(), bytearray()]
        self.active = [False, False]
        self.calls = [False, False]
        self.slaps = [None, None]  # (t_us, centre) per player in the slap phase
        self.last = [None, None]  # per centre pile: (player, t_us, top before)
        self.t = None
        self.cleared = None
        self.winner = None
        self.rounds = []
        self.restarts = 0
        self.races = 0

    # -- chance steps ---------------------------------------------------------------
    def _deal(self):
        deck = C.standard_deck()
        self.rng.shuffle(deck)
        self._layout(0, deck[:26])  # SPIT-1
        self._layout(1, deck[26:])
        self._new_round()

    def _layout(self, p, cards):
        """SPIT-2/SPIT-3: piles of 1..5 filled in order, the rest are spit cards."""
        k = 0
        for i in range(5):
            n = min(i + 1, len(cards) - k)
            self.stock[p][i] = cards[k:k + n]
            self.up[p][i] = n > 0
            k += n
        self.spit[p] = cards[k:]

    def _new_round(self):
        self.phase = "spit"
        n = centre_piles([self.count(0), self.count(1)])  # SPIT-11
        self.active = [n == 2 or len(self.spit[0]) > 0, n == 2 or len(self.spit[1]) > 0]
        self.centre = [bytearray(), bytearray()]
        self.calls = [False, False]
        self.slaps = [None, None]
        self.last = [None, None]
        self.cleared = None

    # -- queries -------------------------------------------------------------------
    def count(self, p):
        return sum([len(x) for x in self.stock[p]]) + len(self.spit[p])

    def _top(self, p, i):
        x = self.stock[p][i]
        return x[-1] if x and self.up[p][i] else None

    def _moves(self, p):
        out = []
        for i in range(5):
            c = self._top(p, i)
            if c is not None:
                for k in (0, 1):
                    if self.active[k] and fits(c, self.centre[k][-1]):
                        out.append(play_action(i, k))
        for i in range(5):
            if self.stock[p][i] and not self.up[p][i]:
                out.append(turn_action(i))  # SPIT-6
        empty = [j for j in range(5) if not self.stock[p][j]]
        if empty:
            for i in range(5):
                if len(self.stock[p][i]) > 1 and self.up[p][i]:
                    out.append(move_action(i, empty[0]))
        return out

    def legal_actions(self, p):
        if p == CHANCE:
            return [DEAL] if self.phase == "deal" else []
        if p not in (0, 1):
            raise RuleError("SPIT-1", "player must be 0 or 1")
        if self.phase == "spit":
            return [] if self.calls[p] else [SPIT]
        if self.phase == "slap":
            return [] if self.slaps[p] else [slap_action(0), slap_action(1)]
        if self.phase != "play":
            return []
        acts = self._moves(p)
        if not acts and not self.calls[p]:
            acts.append(SPIT)  # SPIT-8: stuck
        return acts

    # -- actions -------------------------------------------------------------------
    def apply(self, p, a, t_us=None):
        if p == CHANCE:
            if self.phase != "deal" or a != DEAL:
                raise RuleError("SPIT-16", "the deal happens once, at the start")
            self._deal()
            return "deal"
        if p not in (0, 1):
            raise RuleError("SPIT-1", "player must be 0 or 1")
        if self.t is not None and ticks_diff(t_us, self.t) < 0:
            raise RuleError("SPIT-7", "actions come in time order (%d is before %d)" % (t_us, self.t))
        if self.phase == "spit":
            if a != SPIT or self.calls[p]:
                raise RuleError("SPIT-4", "a round starts when both call Spit!")
            self.t = t_us
            self.calls[p] = True
            if not (self.calls[0] and self.calls[1]):
                return "spit"
            self.calls = [False, False]
            for k in (0, 1):
                if self.spit[k]:
                    self.centre[k].append(self._pop_spit(k))  # SPIT-4
            self.phase = "play"
            return "start"
        if self.phase == "slap":
            return self._slap(p, a, t_us)
        if self.phase != "play":
            raise RuleError("SPIT-16", "no actions in the %s phase" % self.phase)
        if a == SPIT:
            if self.calls[p] or self._moves(p):
                raise RuleError("SPIT-8", "Spit! again only when you cannot play, turn or move")
            self.t = t_us
            self.calls[p] = True
            if self.calls[0] and self.calls[1]:
                return self._restart()
            return "spit"
        if _TURN <= a < _TURN + 5:
            i = a - _TURN
            if not self.stock[p][i] or self.up[p][i]:
                raise RuleError("SPIT-6", "turn up only a face-down top card")
            self.t = t_us
            self.up[p][i] = True
            return "turn"
        if _MOVE <= a < _MOVE + 40:
            i, j = (a - _MOVE) >> 3, (a - _MOVE) & 7
            if (j > 4 or self.stock[p][j] or len(self.stock[p][i]) < 2 or not self.up[p][i]):
                raise RuleError("SPIT-6", "move a face-up top card, leaving a card, into an empty space")
            self.t = t_us
            src = self.stock[p][i]
            self.stock[p][j] = src[-1:]
            self.up[p][j] = True
            self.stock[p][i] = src[:-1]
            self.up[p][i] = False
            return "move"
        if 0 <= a < 16:
            return self._play(p, a & 7, a >> 3, t_us)
        raise RuleError("SPIT-16", "unknown action %r" % (a,))

    def _play(self, p, i, k, t_us):
        c = self._top(p, i) if i < 5 else None
        if c is None or not self.active[k]:
            raise RuleError("SPIT-5", "play the face-up top card of a stock pile onto a centre pile")
        last = self.last[k]
        if last is not None and last[0] != p and ticks_diff(t_us, last[1]) < RACE_US:
            if not (fits(c, last[2]) or fits(c, self.centre[k][-1])):
                raise RuleError("SPIT-5", "%s does not fit %s" % (C.name(c), C.name(last[2])))
            self.t = t_us
            self.races += 1  # SPIT-7: it goes back to its stock pile
            return "race"
        top = self.centre[k][-1]
        if not fits(c, top):
            raise RuleError("SPIT-5", "%s does not fit %s" % (C.name(c), C.name(top)))
        self.t = t_us
        self.stock[p][i] = self.stock[p][i][:-1]
        self.up[p][i] = False
        self.centre[k].append(c)
        self.last[k] = (p, t_us, top)
        self.calls = [False, False]
        for x in self.stock[p]:
            if x:
                return "play"
        return self._clear(p)

    def _clear(self, p):
        """SPIT-9: p's stock piles are empty."""
        self.cleared = p
        if not self.spit[p]:
            # SPIT-14: no cards left at all: the win.
            self.winner = p
            self.phase = "over"
            self.rounds.append({"cleared": p, "cards": [52, 0] if p else [0, 52]})
            self._gather([1 - p, 1 - p])
            return "out"
        if self.active[0] and self.active[1]:
            self.phase = "slap"  # SPIT-10
            return "play"
        # SPIT-11: one pile; the player who did not clear takes it.
        self._gather([1 - p, 1 - p])
        self._end_round({"cleared": p})
        return "round"

    def _slap(self, p, a, t_us):
        if self.slaps[p] is not None or a not in (_SLAP, _SLAP + 1):
            raise RuleError("SPIT-10", "each player slaps one centre pile, once")
        self.t = t_us
        self.slaps[p] = (t_us, a - _SLAP)
        o = self.slaps[1 - p]
        if o is None:
            return "slap"
        # Both have slapped: the earlier takes the pile they slapped; a tie goes
        # to the player who cleared (SPIT-10).
        d = ticks_diff(self.slaps[0][0], self.slaps[1][0])
        first = 0 if d < 0 else 1 if d > 0 else self.cleared
        k = self.slaps[first][1]
        owner = [first, first]
        owner[1 - k] = 1 - first
        self._gather(owner)
        self._end_round({"cleared": self.cleared, "slap": first})
        return "round"

    def _restart(self):
        """SPIT-8 (and SPIT-13 when nobody has a spit card)."""
        self.calls = [False, False]
        self.last = [None, None]
        if not self.spit[0] and not self.spit[1]:
            owner = [0, 1]
            if not self.active[0]:
                owner[1] = 1
                owner[0] = 1
            elif not self.active[1]:
                owner[1] = 0
            self._gather(owner)
            self._end_round({"blocked": True})
            return "blocked"
        self.restarts += 1
        for k in (0, 1):
            if not self.active[k]:
                continue
            src = k if self.spit[k] else 1 - k  # SPIT-8: one spitter feeds both piles
            if self.spit[src]:
                self.centre[k].append(self._pop_spit(src))
        return "restart"

    def _pop_spit(self, p):
        b = self.spit[p]
        self.spit[p] = b[:-1]
        return b[-1]

    def _gather(self, owner):
        """Centre pile k goes to player owner[k]; it joins their cards (SPIT-12)."""
        self._taken = [bytearray(), bytearray()]
        for k in (0, 1):
            self._taken[owner[k]] += self.centre[k]
            self.centre[k] = bytearray()

    def _end_round(self, rnd):
        # SPIT-12: each shuffles the pile taken with every card on their side.
        for p in (0, 1):
            mine = self._taken[p]
            for x in self.stock[p]:
                mine += x
            mine += self.spit[p]
            self.rng.shuffle(mine)
            self._layout(p, mine)
        rnd["cards"] = [self.count(0), self.count(1)]
        self.rounds.append(rnd)
        self._new_round()

    # -- invariants (tests) ------------------------------------------------------------
    def check(self):
        if self.phase == "deal":
            return
        allc = bytearray()
        for p in (0, 1):
            for x in self.stock[p]:
                allc += x
            allc += self.spit[p]
        if self.phase == "over":
            allc += self._taken[0] + self._taken[1]
        for k in (0, 1):
            allc += self.centre[k]
        if sorted(allc) != sorted(C.standard_deck()):
            raise AssertionError("cards lost or duplicated")
        if sum([1 for p in (0, 1) for x in self.stock[p] if x]) == 0 and self.phase != "over":
            raise AssertionError("no stock piles left and the game goes on")
