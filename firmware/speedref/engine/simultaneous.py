# The card level's turn order for games where all players act at once
# (Speed, Spit): one chance step, the deal, then every player plays at the
# same time until the game is over.  Card level only: the simulator and the tests.
from . import CHANCE, SIMULTANEOUS, TERMINAL


class Simultaneous:
    """Turn order of a State whose `phase` is "deal" before the deal and
    "over" at the end; its legal_actions(p) say who can act in between.
    `seats` players (a State with a seat count sets its own)."""

    seats = 2

    def current_player(self):
        if self.phase == "deal":
            return CHANCE
        return TERMINAL if self.phase == "over" else SIMULTANEOUS

    def is_terminal(self):
        return self.phase == "over"

    def actors(self):
        """The players with a legal action now."""
        return [p for p in range(self.seats) if self.legal_actions(p)]
