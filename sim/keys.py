"""Press and release from a terminal, which sends no key-up.

A terminal delivers one event when a key goes down and then, while it is
held, auto-repeat events (after the repeat delay, typically 250-660 ms, then
every 30-100 ms), and nothing when it goes up.  The referee cares how long a
pad is down: Speed and Spit take a pad held 0.5 s for "stuck", Speed Run a
pad held 0.8 s for a reveal, and OK held 0.8 s is BACK; anything shorter is a
tap ("ready", "I'm out", "I won the trick").  So a terminal key cannot simply
mean "down until the key is let go".  Instead every button has two keys:

- its TAP key (`1`, `z`, Enter, ...): one event is one tap, the button down
  and up again TAP_US later.  The auto-repeats of a held key are swallowed:
  holding a key is ONE tap, never a slap storm.
- its HOLD key (the uppercase letter or the shifted digit: `Z`, `!`, `O`,
  ...): toggles the button down until the hold key is pressed again (or its
  tap key: lifting the hand).  Its auto-repeats are swallowed too, so a held
  Shift+key is one toggle.  A hold is a real hold: the app sees the button
  down for as long as it stays toggled, so "stuck", a reveal and OK's long
  press (BACK) happen at their own thresholds.
- UP and DOWN are STEP keys: each event is a tap, so a held arrow steps
  through a list like a scroll, at most one tap per TAP_US + STEP_GAP_US (the
  decoder's bounce lockout, 10 ms, must pass between taps).

Which events are auto-repeats: a key's events form a run while they keep
coming within `delay_us` of the first (longer than the terminal's repeat
delay, so its first repeat still belongs to the run) and within
`interval_us` of each other after that (KeyHolds).  The price: the same tap
key pressed twice inside the repeat delay is one tap (tap a different key,
or wait half a second).  Both gaps are options (--repeat-delay,
--repeat-interval).  A desktop window (--window) has real key-up events and
does not need any of this.
"""

DELAY_US = 500000
INTERVAL_US = 150000
TAP_US = 80000       # a tap: down, up 80 ms later (far below every hold threshold)
STEP_GAP_US = 40000  # between two UP/DOWN taps: past the decoder's 10 ms lockout

TAP = "tap"
HOLD = "hold"
STEP = "step"


class KeyHolds:
    """The auto-repeat runs of terminal keys.  A key's run lasts from its
    first event until no event for it has arrived for a while: `delay_us`
    after the first event, `interval_us` after a repeat."""

    def __init__(self, delay_us=DELAY_US, interval_us=INTERVAL_US):
        self.delay_us = delay_us
        self.interval_us = interval_us
        self._last = {}  # key -> (time of last event, events seen)

    def key(self, key, now_us):
        """A terminal event for `key` at now_us (a monotonic, unwrapped
        time).  Returns True when this starts a new run, False for a repeat."""
        prev = self._last.get(key)
        if prev is not None:
            self._last[key] = (now_us, prev[1] + 1)
            return False
        self._last[key] = (now_us, 1)
        return True

    def expired(self, now_us):
        """Keys whose run has ended by now_us: [(key, end_us)]."""
        out = []
        for b, (t, n) in list(self._last.items()):
            gap = self.delay_us if n == 1 else self.interval_us
            if now_us - t >= gap:
                del self._last[b]
                out.append((b, t + gap))
        return sorted(out, key=lambda e: e[1])

    def held(self):
        return sorted(self._last)

    def release_all(self):
        out = sorted(self._last)
        self._last.clear()
        return out


class TerminalKeys:
    """Terminal key events -> button edges.

        k = TerminalKeys()
        k.event(TAP, 0, now_us)   -> [(0, True)]   P1 down now
        k.due(now_us + 80000)     -> [(0, False)]  and up 80 ms later
        k.event(HOLD, 0, t)       -> [(0, True)]   P1 held ...
        k.event(HOLD, 0, t2)      -> [(0, False)]  ... until the second press

    Returns the edges to apply now, in order; `due(now_us)` gives the tap
    releases whose time has come.  Times are monotonic microseconds."""

    def __init__(self, delay_us=DELAY_US, interval_us=INTERVAL_US, tap_us=TAP_US):
        self.runs = KeyHolds(delay_us, interval_us)
        self.tap_us = tap_us
        self.down = set()      # buttons down now (a tap in progress or a hold)
        self.holding = set()   # buttons toggled down by their hold key
        self._up_at = {}       # button -> when its tap ends
        self._free_at = {}     # button -> a STEP key may tap it again from then

    def event(self, kind, button, now_us):
        self.runs.expired(now_us)
        new = self.runs.key((kind, button), now_us)
        if kind == STEP:
            # every event steps, but never while the last tap is still down
            if button in self.down or now_us < self._free_at.get(button, 0):
                return []
            return self._tap(button, now_us)
        if not new:
            return []  # an auto-repeat: the key is being held, not pressed again
        if kind == HOLD:
            if button in self.holding:
                return self._lift(button)
            if button in self.down:
                del self._up_at[button]  # a tap in progress becomes the hold
                self.holding.add(button)
                return []
            self.holding.add(button)
            self.down.add(button)
            return [(button, True)]
        if button in self.holding:
            return self._lift(button)  # the tap key lifts a held hand
        if button in self.down:
            return []
        return self._tap(button, now_us)

    def _tap(self, button, now_us):
        self.down.add(button)
        self._up_at[button] = now_us + self.tap_us
        return [(button, True)]

    def _lift(self, button):
        self.holding.discard(button)
        self.down.discard(button)
        return [(button, False)]

    def due(self, now_us):
        """Tap releases due by now_us: [(button, False)] in time order."""
        out = []
        for b, t in sorted(self._up_at.items(), key=lambda e: e[1]):
            if now_us >= t:
                del self._up_at[b]
                self.down.discard(b)
                self._free_at[b] = t + STEP_GAP_US
                out.append((b, False))
        return out

    def release(self, button):
        """Let go of `button` (a tap in progress or a hold): [(button, False)]
        or [] if it was up."""
        if button not in self.down:
            return []
        self._up_at.pop(button, None)
        return self._lift(button)
