# The input decoder: between the ring buffer and the app.
#
# Every ring event is a full snapshot of the buttons that are held (bit
# 1 << button, pressed = 1) and the time it was taken.  The decoder compares
# each snapshot with the levels it has already told the app about and turns
# the differences into app.press(button, t_us) / app.release(button, t_us).
# Because a snapshot carries every level, not just one edge, a missed edge
# (ring overflow, an interrupt swallowed by the lockout) heals itself at the
# next snapshot or at the next tick: the decoder resynchronises.
#
# Bounce: after an edge is passed on, that button's changes are ignored for
# bounce_us (BOUNCE_US in speedref/tunables.py; the capture path may already
# debounce, the PIO path does not).
# The loop reads its clock before it drains the ring, so an edge may be
# stamped a little after the `now` that tick() gets: a lockout whose age
# reads negative by up to _AHEAD_US has not started yet and holds.  Only an
# age beyond that (more than half a tick period, about 9 minutes, without a
# tick) means the lockout is long over, so a wrap never leaves one stuck.
# When the lockout ends and the last snapshot disagrees with what the app
# was told (a tap shorter than the lockout), tick() passes the change on with
# the time the level really changed.
#
# Two pads in one snapshot reach the app with the same timestamp: a tie.
# A button held for stuck_us (default one minute: a jammed pad, a cup on it)
# is reported once through on_stuck(button, held_us) and not again until it
# is released.  Nothing here allocates per event: lists of small ints only.
from .ticks import ticks_diff
from .tunables import BOUNCE_US

from micropython import const

BUTTONS = 8  # 0..3 pads P1..P4, 4 UP, 5 DOWN, 6 OK, 7 BACK
# Neither is a tunable, because nobody at the table feels either: a pad down
# this long is jammed (a cup on it), logged once ...
_STUCK_US = const(60000000)
# ... and how far after `now` an event may be stamped (the loop reads its
# clock before it drains the ring; the pin capture's AHEAD_US is the same
# skew), clock arithmetic: any value from a pass's length to half the tick
# period works.
_AHEAD_US = const(1000000)


class Inputs:
    def __init__(self, app, buttons=BUTTONS, bounce_us=BOUNCE_US, stuck_us=_STUCK_US,
                 on_stuck=None):
        self.app = app
        self.n = buttons
        self.bounce_us = bounce_us
        self.stuck_us = stuck_us
        self.on_stuck = on_stuck
        self.level = 0  # levels the app has been told about
        self.raw = 0  # levels in the latest snapshot
        self._raw_t = [0] * buttons  # when each raw level last changed
        self._edge_t = [0] * buttons  # when each passed-on edge happened
        self._locked = 0  # bit b: button b is inside its bounce lockout
        self._stuck = [False] * buttons  # already reported as stuck
        self.edges = 0  # edges passed to the app (for tests and the log)
        # watch(t, mask): every snapshot as it comes, before the lockout
        # ("Check wiring" times a contact's bounce with it), or None
        self.watch = None

    def feed(self, t, mask):
        """One snapshot from the ring: pass on every settled change."""
        changed = (mask ^ self.raw) & ((1 << self.n) - 1)
        if self.watch is not None:
            self.watch(t, mask)
        if changed:
            b = 0
            while changed:
                if changed & 1:
                    self._raw_t[b] = t
                changed >>= 1
                b += 1
            self.raw = mask & ((1 << self.n) - 1)
        self._settle(t)

    def tick(self, now):
        """Every loop: end lockouts, resync levels the lockout held back,
        report stuck buttons."""
        if not (self._locked | self.level | self.raw):
            return  # at rest (nothing held, locked or waiting): most passes
        lk = self._locked
        b = 0
        while lk:  # at rest nothing is locked and this costs nothing
            if lk & 1 and not self._holds(b, now):
                self._locked &= ~(1 << b)
            lk >>= 1
            b += 1
        self._settle(now)
        held = self.level
        b = 0
        while held:
            if held & 1 and not self._stuck[b]:
                d = ticks_diff(now, self._edge_t[b])
                if d >= self.stuck_us:
                    self._stuck[b] = True
                    if self.on_stuck:
                        self.on_stuck(b, d)
            held >>= 1
            b += 1

    def _settle(self, now):
        diff = self.raw ^ self.level
        b = 0
        while diff:
            if diff & 1:
                if not (self._locked >> b & 1 and self._holds(b, now)):
                    self._pass_on(b, self._raw_t[b])
            diff >>= 1
            b += 1

    def _holds(self, b, now):
        # Button b's lockout is still on at `now` (see the header).
        return -_AHEAD_US <= ticks_diff(now, self._edge_t[b]) < self.bounce_us

    def _pass_on(self, b, t):
        bit = 1 << b
        self.level ^= bit
        self._edge_t[b] = t
        self._locked |= bit
        self.edges += 1
        if self.level & bit:
            self._stuck[b] = False
            self.app.press(b, t)
        else:
            self.app.release(b, t)

    def held(self, button):
        return bool(self.level >> button & 1)
