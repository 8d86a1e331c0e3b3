"""Computer players for the simulator's virtual table (sim/table/).

A `Person` is how one player behaves in time: how fast they react (a
log-normal reaction time, as measured for people: a long right tail, never
instant), how long a finger stays on a pad, whether a press bounces.  Each
game's table (sim/table/<game>_table.py) has its own card policy for what
they play; the card-level engines (speedref.engine.*_cards) say what is
legal.  All randomness comes from one
seeded `random.Random`, so a table run is reproducible from its seed.

Host code only (CPython): the board never runs the computer players.
"""
import math

# Reaction times: people answer a new card or a beep in roughly 200-600 ms,
# median 250-400 ms depending on the person (sigma 0.3 gives the usual
# skewed spread).  Clamped so one freak draw cannot stall a countdown.
MIN_REACTION_US = 140000
MAX_REACTION_US = 1200000
# A tap: the finger is on the pad 60-160 ms (a "slap" is a tap too).  Always
# longer than the largest tie window (50 ms) and far shorter than the 0.5 s
# that makes a hold a stuck call.
TAP_MIN_US = 60000
TAP_MAX_US = 160000
# A stuck call is a hold; people hold well past the 0.5 s threshold.
STUCK_HOLD_US = 700000
# A finger that left a button comes down on it again no sooner than this:
# a person's fastest double tap, and past the input decoder's 10 ms lockout.
REPRESS_US = 40000
# A card player at a trick-taking game thinks this long (from .. to) on top
# of a reaction before choosing, bidding or leading (the play modes' computer
# players: a person at the keyboard can follow them).
THINK_US = (300000, 1200000)


class Person:
    def __init__(self, rng, seat, bounce=0.08, median_us=None):
        self.rng = rng
        self.seat = seat
        # Each person has their own speed: median 250-400 ms.
        self.median_us = median_us or rng.randint(250000, 400000)
        self.bounce = bounce  # chance that a press or release bounces
        # pace: every reaction takes this many times as long (the play modes'
        # --pace: a computer player a person at a keyboard can keep up with)
        self.pace = 1

    def reaction(self, scale=1.0):
        us = int(self.median_us * scale * math.exp(0.3 * self.rng.gauss(0.0, 1.0)))
        return int(max(MIN_REACTION_US, min(MAX_REACTION_US, us)) * self.pace)

    def tap_us(self):
        return self.rng.randint(TAP_MIN_US, TAP_MAX_US)

    def bounces(self):
        """Extra contact edges after an edge (microseconds after it), as a
        worn microswitch gives: () most of the time, else 2 or 4 edges
        within 3 ms."""
        if self.rng.random() >= self.bounce:
            return ()
        n = self.rng.choice((2, 4))
        return tuple(sorted(self.rng.sample(range(100, 3000), n)))
