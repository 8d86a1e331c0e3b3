# The card level's turn order for games where both players act at once
# (Speed, Spit): one chance step, the deal, then both players play together
# until the game is over.  Card level only: the simulator and the tests.
from . import CHANCE, SIMULTANEOUS, TERMINAL


class Simultaneous:
    """Turn order of a State whose `phase` is "deal" before the deal and
    "over" at the end; its legal_actions(p) say who can act in between."""

    def current_player(self):
        if self.phase == "deal":
            return CHANCE
        return TERMINAL if self.phase == "over" else SIMULTANEOUS

    def is_terminal(self):
        return self.phase == "over"

    def actors(self):
        """The players with a legal action now."""
        return [p for p in (0, 1) if self.legal_actions(p)]
