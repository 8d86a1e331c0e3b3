# The interrupt path of slap capture: one handler for every button pin.
#
# On an edge of any button, the handler reads the clock and the WHOLE GPIO
# input register once.  Two pads pressed within the handler's latency are
# therefore in the same snapshot with the same timestamp (a tie), whichever
# pin's interrupt ran first; the later pin's interrupt then finds nothing new.
#
# Debounce is a per-button lockout: after a button's level change is taken,
# further changes of that button are ignored for lockout_us.  The main loop
# calls poll() every pass: it ends lockouts and takes a fresh snapshot, so a
# level the lockout held back (a contact that settled during it) still
# reaches the ring.
#
# A lockout whose age reads negative by up to AHEAD_US was stamped after the
# clock reading it is compared with: it holds.  Only an older one (not
# polled for half a tick period, about 9 minutes) is stale and ends, so a
# tick wrap never leaves a button locked.
#
# poll() must not interleave with the handler.  On rp2 the handler is a
# hard IRQ and poll() runs its lockout check and snapshot with interrupts
# off (in try/finally: an exception there, e.g. Ctrl-C, must not leave them
# off and the USB console dead).  On ESP32 pin callbacks are scheduled: they
# run in the main task at the VM's next branch point, which can be inside
# poll() or ring.drain(), and machine.disable_irq does not stop a callback
# already queued from running there.  So on soft-IRQ boards poll() does not
# rely on disable_irq: it hands its check and snapshot to
# micropython.schedule, and scheduled callbacks run one at a time, never
# inside each other.  (The ring needs no lock for that: put() fills the slot
# before it moves head, drain() reads head once and moves tail after copying.)
#
# The handler runs as a hard IRQ on rp2: it must not allocate (no floats, no
# new objects, no bound method created per call: self._isr is made once).
# Everything it touches is injectable (pins, register, clock, ticks_diff) so
# the tests run it under micropython.heap_lock() with a clock that wraps at
# 2**30, and the desktop simulator drives this same handler with virtual
# pins; `machine` is imported only by the board-specific code (hw/boards.py,
# speedref/wiring.py).
from ..ticks import ticks_diff as _ticks_diff
from ..tunables import LOCKOUT_US  # arcade microswitches settle in a few ms

# How far after a clock reading a lockout may have started.  Not a tunable:
# clock arithmetic nobody feels (inputs._AHEAD_US is the same skew, kept in
# each module: hw/ imports nothing above it).
AHEAD_US = 1000000


class Capture:
    late = 0  # (the PIO capture's counters; nothing is ever late or full here)
    full = 0
    def __init__(self, ring, mem, addr, mask_from, ticks_us, pins=(), trigger=0,
                 hard=True, ticks_diff=_ticks_diff, lockout_us=LOCKOUT_US, buttons=8,
                 disable_irq=None, enable_irq=None, watch=0xFF, schedule=None, first=0):
        """ring: an EventRing.  mem[addr]: the GPIO input register (machine.mem32
        on a board; any object indexable without allocating, e.g. a dict, in
        tests and the simulator).  mask_from(reg): the board's register ->
        button mask.  pins: Pin-like objects whose irq() takes the handler;
        pins[i] is button first + i.
        watch: the buttons this capture debounces; other bits of mask_from()
        are passed through as they are (on the Pico the PIO path owns the
        pads and this path only the nav buttons: hw/boards.py)."""
        self._ring = ring
        self._mem = mem
        self._addr = addr
        self._mask_from = mask_from
        self._ticks_us = ticks_us
        self._tdiff = ticks_diff
        self.lockout_us = lockout_us
        self._n = buttons
        self._since = [0] * buttons  # when each button's last change was taken
        self._locked = 0  # bit b: button b is in its lockout
        self.level = mask_from(mem[addr])  # levels last put in the ring
        self.pins = pins
        self._trigger = trigger
        self._hard = hard
        self._off = disable_irq
        self._on = enable_irq
        self.taken = 0  # snapshots put in the ring (or dropped by it)
        self._watch = watch
        self._other = ~watch & ((1 << buttons) - 1)
        self._schedule = None if hard else schedule
        self._first = first
        # Both edges of a pin latched when its hard interrupt finally runs
        # (see _round_trip); soft (scheduled) interrupts report no such flags.
        self._both = trigger if hard and trigger & 12 == 12 else 0
        self._isr = self._handler  # the bound methods, allocated once here
        self._resync_cb = self._resync

    def start(self):
        """Register the handler on every pin (both edges: releases matter to
        the decoder and the app too)."""
        for p in self.pins:
            if self._hard:
                p.irq(handler=self._isr, trigger=self._trigger, hard=True)
            else:
                # ESP32's Pin.irq has no `hard` argument: always scheduled.
                p.irq(handler=self._isr, trigger=self._trigger)

    def stop(self):
        for p in self.pins:
            p.irq(handler=None)

    def _handler(self, pin):
        t = self._ticks_us()  # first: the timestamp is what races are decided on
        raw = self._mask_from(self._mem[self._addr])
        if pin is not None and self._both:
            self._round_trip(pin, t, raw)
        last = self.level
        if raw == last:
            return  # another pin's interrupt already took this snapshot
        diff = (raw ^ last) & self._watch
        new = (last & self._watch) | (raw & self._other)
        b = 0
        while diff and b < self._n:
            if diff & 1:
                if self._locked >> b & 1 and (
                        -AHEAD_US <= self._tdiff(t, self._since[b]) < self.lockout_us):
                    diff >>= 1
                    b += 1
                    continue
                new ^= 1 << b
                self._since[b] = t
                self._locked |= 1 << b
            diff >>= 1
            b += 1
        # Only a change of this capture's own buttons is an event: the other
        # bits (the pads, on the Pico) are carried along so every snapshot
        # is whole, but their changes were put in the ring, better dated, by
        # the path that owns them.
        if (new ^ last) & self._watch:
            self.taken += 1
            self._ring.put(t, new)  # counts ring.dropped when full, never raises
        self.level = new

    def _round_trip(self, pin, t, raw):
        # A flash erase holds every interrupt off for ~45 ms.  A button
        # pressed and let go inside it leaves both edges latched and its level
        # where it was, so the snapshot alone would lose the tap.  The
        # interrupt's flags show both edges: take the first now (dated now,
        # the earliest the board could know), and the way back once the
        # lockout ends (poll()).  Only a watched, unlocked button: a bounce
        # inside its lockout is not a round trip.
        if pin.irq().flags() & self._both != self._both:
            return
        pins = self.pins
        b = -1
        for i in range(len(pins)):
            if pins[i] is pin:
                b = self._first + i
        if b < 0:
            return
        bit = 1 << b
        last = self.level
        if not bit & self._watch or (raw ^ last) & bit:
            return  # its level did change: the usual path takes it
        if self._locked & bit and -AHEAD_US <= self._tdiff(t, self._since[b]) < self.lockout_us:
            return
        self._since[b] = t
        self._locked |= bit
        self.level = last ^ bit
        self.taken += 1
        self._ring.put(t, self.level)

    def poll(self):
        """Main loop, every pass: end lockouts that are over, then take a
        snapshot as the handler would, so a change the lockout held back is
        not lost.  Interrupts are off for that only (hard-IRQ boards); on
        soft-IRQ boards it is scheduled instead (see the header)."""
        if self._schedule is not None:
            try:
                self._schedule(self._resync_cb, None)
            except RuntimeError:
                pass  # the schedule queue is full: the next pass tries again
            return
        st = self._off() if self._off else 0
        try:
            self._resync(None)
        finally:
            if self._on:
                self._on(st)

    def _resync(self, _):
        now = self._ticks_us()
        lk = self._locked
        b = 0
        while lk:  # at rest nothing is locked and this costs nothing
            if lk & 1:
                d = self._tdiff(now, self._since[b])
                if d < -AHEAD_US or d >= self.lockout_us:
                    self._locked &= ~(1 << b)
            lk >>= 1
            b += 1
        self._handler(None)
