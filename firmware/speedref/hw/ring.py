# A ring buffer of (timestamp, input snapshot) events, filled by an interrupt
# handler (or the PIO drain, or the simulator's virtual board) and emptied by
# the main loop.  Preallocated arrays: put() allocates nothing, so it is safe
# in a hard IRQ.  One writer (the ISR) and one reader (the main loop); the
# reader drains with interrupts off so a half-written slot is never read.
# The order of the writes makes that lock a second line of defence only:
# put() fills the slot before it moves head, drain() reads head once and
# moves tail after copying, so a writer that runs inside drain() (ESP32's
# scheduled pin callbacks, which disable_irq does not hold off) is safe.
from array import array


class EventRing:
    def __init__(self, size=64, disable_irq=None, enable_irq=None):
        if size & (size - 1):
            raise ValueError("ring size must be a power of two")
        self._t = array("l", [0] * size)
        self._m = array("l", [0] * size)
        self._mask = size - 1
        self.head = 0  # next slot to write (ISR side)
        self.tail = 0  # next slot to read (main-loop side)
        self.dropped = 0  # events lost to overflow, reported in the log
        self._off = disable_irq
        self._on = enable_irq

    def put(self, t, mask):
        # ISR side: no allocation, ints only.  Full ring: count and drop the
        # newest event (the earliest presses are the ones that decide races).
        h = self.head
        if ((h - self.tail) & 0x3FFFFFFF) > self._mask:
            self.dropped += 1
            return False
        i = h & self._mask
        self._t[i] = t
        self._m[i] = mask
        self.head = (h + 1) & 0x3FFFFFFF
        return True

    def drain(self, ts, masks):
        """Copy up to len(ts) waiting events into the caller's preallocated
        arrays, oldest first; returns how many.  Interrupts are off only for
        the copy."""
        if self.head == self.tail:
            # Nothing waits (most passes): no interrupts-off section at all.
            # An event put right after this check is drained next pass.
            return 0
        st = self._off() if self._off else 0
        try:  # an exception here (Ctrl-C) must not leave interrupts off
            n = 0
            cap = len(ts)
            tail = self.tail
            head = self.head
            while tail != head and n < cap:
                i = tail & self._mask
                ts[n] = self._t[i]
                masks[n] = self._m[i]
                tail = (tail + 1) & 0x3FFFFFFF
                n += 1
            self.tail = tail
        finally:
            if self._on:
                self._on(st)
        return n

    def __len__(self):
        return (self.head - self.tail) & 0x3FFFFFFF
