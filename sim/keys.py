"""Press and release from a terminal, which sends no key-up.

A terminal delivers one event when a key goes down and then, while it is
held, auto-repeat events (after the repeat delay, typically 250-660 ms, then
every 30-100 ms).  If each event were a press, a held pad would be a slap
storm.  So a key counts as held from its first event until no event for it
has arrived for a while:

- after the first event: `delay_us` (longer than the terminal's repeat delay,
  so the first repeat still finds the key held);
- after a repeat: `interval_us` (longer than the repeat interval).

Then the key is released, at the time of its last event plus that gap.  The
price: tapping the same key twice within `delay_us` counts as one long press.
Both gaps are options of the simulator (--repeat-delay, --repeat-interval).
A desktop window (--window) has real key-up events and does not need this.
"""

DELAY_US = 500000
INTERVAL_US = 150000


class KeyHolds:
    def __init__(self, delay_us=DELAY_US, interval_us=INTERVAL_US):
        self.delay_us = delay_us
        self.interval_us = interval_us
        self._last = {}  # button -> (time of last event, events seen)

    def key(self, button, now_us):
        """A terminal event for `button` at now_us (a monotonic, unwrapped
        time).  Returns True when this is a new press, False for a repeat."""
        prev = self._last.get(button)
        if prev is not None:
            self._last[button] = (now_us, prev[1] + 1)
            return False
        self._last[button] = (now_us, 1)
        return True

    def expired(self, now_us):
        """Buttons whose hold has ended by now_us: [(button, release_us)]."""
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
