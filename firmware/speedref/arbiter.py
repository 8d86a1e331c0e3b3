# Who slapped first, and by how much.  Pure: no clock, no hardware.  The app
# opens a race at the GO instant (Speed's slap-to-win out-slap, Spit's race to
# the smaller centre pile), feeds every pad press with its interrupt
# timestamp, and asks for the verdict each tick.  The verdict is ready once
# the tie window after the first press has passed.
#
# Times are ticks_us values and are compared only with ticks_diff, because
# they wrap at 2**30 on a 32-bit board (about every 17.9 minutes).
from .ticks import ticks_diff

from micropython import const

_MAX_SEATS = const(4)  # the most pads a race times (Partners: four)
# The widest tie window a race accepts (the menu's widest choice,
# games.TIE_MS).  Not a tunable: a bound checked, not a time anyone waits
# for; the window players feel is their game's option or the board's auto
# default (tunables.TIE_*).
MAX_WINDOW_US = const(50000)

# What press() says about a press, so the app can react (beep, log).
FALSE_START = const(-1)  # before GO
IGNORED = const(0)  # race not open, seat already pressed, or verdict already given
COUNTED = const(1)  # a valid press in this race


class Verdict:
    """The result of one race.

    winner: the seat that pressed first, or None for a tie.
    tie: the seats tied for first (empty when there is a winner).
    margin_us: the gap from the first press to the second one; None when
      nobody else pressed before the verdict.  Equal timestamps (one input
      snapshot) give 0 and are always a tie.
    order: the seats that pressed in time, earliest first (equal times in
      seat order).
    false_starts: seats that pressed before GO.
    """

    def __init__(self, winner, tie, margin_us, order, false_starts):
        self.winner = winner
        self.tie = tie
        self.margin_us = margin_us
        self.order = order
        self.false_starts = false_starts

    def text(self):
        """The line a person reads: "P1 by 3.2 ms", "Tie 0.4 ms", "P2"."""
        if self.winner is None:
            if self.margin_us:
                return "Tie " + margin_text(self.margin_us)
            return "Tie"
        if self.margin_us is None:
            return "P%d" % (self.winner + 1)
        return margin_text(self.margin_us, self.winner)

    def to_dict(self):
        """The fields the slap log line carries (the app adds game and kind)."""
        return {
            "winner": self.winner,
            "tie": list(self.tie),
            "margin_us": self.margin_us,
            "presses": list(self.order),
            "false_starts": list(self.false_starts),
        }


def margin_text(us, seat=None):
    """A margin for people, in integer arithmetic (no floats on the board).

    3240 -> "3.2 ms"; with seat 0 -> "P1 by 3.2 ms".  Under a millisecond
    the display shows microseconds ("850 us": the OLED font has no mu);
    from 100 ms on, whole milliseconds."""
    if us < 0:
        us = -us
    # one format each (the verdict's line is made while the players wait)
    if us < 1000:
        return "%d us" % us if seat is None else "P%d by %d us" % (seat + 1, us)
    if us < 100000:
        tenths = (us + 50) // 100
        if seat is None:
            return "%d.%d ms" % (tenths // 10, tenths % 10)
        return "P%d by %d.%d ms" % (seat + 1, tenths // 10, tenths % 10)
    ms = (us + 500) // 1000
    return "%d ms" % ms if seat is None else "P%d by %d ms" % (seat + 1, ms)


class Race:
    """One slap race among `seats` players.

    open(go_us, entrants) starts it; presses before go_us are false starts.
    Each seat's first press counts; later presses by the same seat are
    ignored, and so are the presses of seats not among the entrants (a
    bit a seat; 0: every seat), as in a re-slap between tied players.
    Presses at most `window_us` after the first press tie with it: the
    window is measured from the first press alone, never chained from a
    press that is itself tied (seeds/speed.md SP-34).
    """

    def __init__(self, seats=2, window_us=0):
        if not 1 <= seats <= _MAX_SEATS:
            raise ValueError("seats must be 1..%d" % _MAX_SEATS)
        self.seats = seats
        self.set_window(window_us)
        # Preallocated per-seat slots: press() allocates nothing.
        self._t = [0] * _MAX_SEATS
        self._in = [False] * _MAX_SEATS
        self._false = [False] * _MAX_SEATS
        self._nfalse = 0  # false starts pressed in this race
        self.is_open = False
        self.go_us = 0
        self._first = 0
        self._n = 0
        self._may = (1 << seats) - 1  # the entrants: a bit a seat
        self._need = seats  # how many they are
        self.verdict = None

    def set_window(self, window_us):
        if not 0 <= window_us <= MAX_WINDOW_US:
            raise ValueError("tie window must be 0..%d us" % MAX_WINDOW_US)
        self.window_us = window_us

    def open(self, go_us, entrants=0):
        """Start a race at go_us (the GO instant, or now for Spit's slap)
        among `entrants` (a bit a seat; 0: every seat)."""
        may = entrants or (1 << self.seats) - 1
        self._may = may
        self._need = 0
        for s in range(_MAX_SEATS):
            self._in[s] = False
            self._false[s] = False
            if may >> s & 1:
                self._need += 1
        self._nfalse = 0
        self.go_us = go_us
        self._n = 0
        self.verdict = None
        self.is_open = True

    def close(self):
        """Stop listening without a verdict (abandoned race)."""
        self.is_open = False

    def press(self, seat, t_us):
        """Record a press; returns FALSE_START, IGNORED or COUNTED."""
        if not self.is_open or not 0 <= seat < self.seats or self.verdict is not None:
            return IGNORED
        if not self._may >> seat & 1:
            return IGNORED  # not in this race (a re-slap between others)
        if ticks_diff(t_us, self.go_us) < 0:
            self._false[seat] = True
            self._nfalse += 1
            return FALSE_START
        if self._in[seat]:
            return IGNORED
        self._in[seat] = True
        self._t[seat] = t_us
        if self._n == 0 or ticks_diff(t_us, self._first) < 0:
            self._first = t_us
        self._n += 1
        return COUNTED

    def pressed(self):
        """How many seats have a counted press."""
        return self._n

    def all_in(self):
        """Every entrant has a counted press: no later press can change the
        order, so the verdict needs only the tie window."""
        return self._n == self._need

    def is_entrant(self, seat):
        return self._may >> seat & 1 == 1

    def false_starts(self):
        return tuple(s for s in range(self.seats) if self._false[s])

    def decide(self, now_us):
        """The Verdict once the tie window after the first press has passed
        (now strictly later than first + window), else None.  Call it after
        feeding every press drained before now: a press stamped later than
        now cannot be earlier than the deadline, so the verdict is final."""
        if self.verdict is not None:
            return self.verdict
        if not self.is_open or self._n == 0:
            return None
        if ticks_diff(now_us, self._first) <= self.window_us:
            return None
        # Sort the seats that pressed by time (at most 4: insertion sort,
        # equal times keep seat order).  Locals and few objects: the verdict
        # is worked out while the players look at the pads.
        t = self._t
        pressed = self._in
        order = []
        for s in range(self.seats):
            if not pressed[s]:
                continue
            i = len(order)
            while i > 0 and ticks_diff(t[s], t[order[i - 1]]) < 0:
                i -= 1
            order.insert(i, s)
        first = t[order[0]]
        n = len(order)
        k = 1  # the seats tied for first: the sorted order's first k
        while k < n and ticks_diff(t[order[k]], first) <= self.window_us:
            k += 1
        margin = ticks_diff(t[order[1]], first) if n > 1 else None
        if k > 1:
            winner = None
            tie = tuple(order[:k])
        else:
            winner = order[0]
            tie = ()
        self.verdict = Verdict(winner, tie, margin, tuple(order),
                               self.false_starts() if self._nfalse else ())
        self.is_open = False
        return self.verdict
