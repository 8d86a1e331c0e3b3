"""Coin at the CARD level (no cards: a coin), in the card levels' shape:

  s = State(seed, target=3)
  s.apply(CHANCE, DEAL)      the chance step: the coin is tossed
  s.phase                    "deal" -> "play" -> "over"
  s.current_player()         CHANCE, SIMULTANEOUS (both may slap) or TERMINAL
  s.actors(), s.legal_actions(p), s.apply(p, SLAP, t_us), s.is_terminal()
  s.record(), s.check()
"""
from speedref.engine import CHANCE
from speedref.engine.simultaneous import Simultaneous
from speedref.engine.errors import RuleError
from speedref.engine.rng import Rng
from dummy_game.coin import CoinGame

DEAL = 0
SLAP = 1


class State(Simultaneous):
    def __init__(self, seed, target=3):
        self.game = CoinGame(target)
        self.rng = Rng(seed)
        self.phase = "deal"
        self.side = None  # what the coin shows: 0 heads, 1 tails

    def legal_actions(self, p):
        if p == CHANCE:
            return [DEAL] if self.phase == "deal" else []
        return [SLAP] if self.phase == "play" and p in (0, 1) else []

    def apply(self, p, a, t_us=None):
        if p == CHANCE and a == DEAL and self.phase == "deal":
            self.side = self.rng.below(2)
            self.phase = "play"
            return "deal"
        if a not in self.legal_actions(p):
            raise RuleError("CN-2", "seat %r may not do %r now" % (p, a))
        self.game.point(p)
        if self.game.over:
            self.phase = "over"
        else:
            self.side = self.rng.below(2)  # the next toss
        return "point"

    def record(self):
        return self.game.to_record()

    def check(self):
        if sum(self.game.totals) != len(self.game.points):
            raise AssertionError("points lost")
