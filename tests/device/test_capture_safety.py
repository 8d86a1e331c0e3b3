"""The capture path's lockout when the loop's clock reads before a handler's
stamp, and interrupts turned back on even when an exception (Ctrl-C from the
USB console) lands inside an interrupts-off section.  CPython, fake pins."""
import pytest

from speedref.hw.capture import Capture
from speedref.hw.ring import EventRing

PERIOD = 1 << 30
START = PERIOD - 700  # just before the tick wrap
ADDR = 0x100


def td(a, b):  # a board's ticks_diff: wraps at 2**30
    return ((a - b + PERIOD // 2) & (PERIOD - 1)) - PERIOD // 2


class Irq:
    """A fake disable_irq/enable_irq pair that records the nesting depth."""

    def __init__(self):
        self.depth = 0

    def off(self):
        self.depth += 1
        return 7

    def on(self, state):
        assert state == 7
        self.depth -= 1


def rig(**kw):
    clk = [START]
    mem = {ADDR: 0xFF}  # all buttons up (pull-ups)
    irq = Irq()
    ring = EventRing(16, irq.off, irq.on)
    cap = Capture(ring, mem, ADDR, lambda reg: ~reg & 0xFF, lambda: clk[0], ticks_diff=td,
                  lockout_us=10000, disable_irq=irq.off, enable_irq=irq.on, **kw)
    return clk, mem, ring, cap, irq


def events(ring):
    ts, ms = [0] * 16, [0] * 16
    n = ring.drain(ts, ms)
    return list(zip(ts[:n], ms[:n]))


def later(t, us):
    return (t + us) & (PERIOD - 1)


def test_a_press_stamped_after_polls_clock_keeps_its_lockout():
    """poll() read the clock 50 us before a handler stamped P1's press: the
    lockout's age reads -50 us, which is 'not started yet', not 'expired'."""
    clk, mem, ring, cap, _ = rig()
    clk[0] = later(START, 50)
    mem[ADDR] = 0xFE  # P1 down
    cap._handler(None)
    clk[0] = START  # the poll's clock reading, taken before that stamp
    cap.poll()
    clk[0] = later(START, 2000)
    mem[ADDR] = 0xFF  # a bounce 2 ms into the lockout
    cap._handler(None)
    assert events(ring) == [(later(START, 50), 1)]
    clk[0] = later(START, 20000)  # after the lockout the level is resynced
    cap.poll()
    assert events(ring) == [(later(START, 20000), 0)]


def test_a_lock_not_polled_for_half_a_wrap_is_not_stuck():
    clk, mem, ring, cap, _ = rig()
    mem[ADDR] = 0xFE
    cap._handler(None)
    clk[0] = later(START, (1 << 29) + 5000)  # its age now reads negative
    mem[ADDR] = 0xFF
    cap._handler(None)
    assert [m for t, m in events(ring)] == [1, 0]


class Stop(Exception):
    pass


def test_ring_drain_turns_interrupts_back_on_after_an_exception():
    irq = Irq()
    ring = EventRing(16, irq.off, irq.on)
    ring.put(1, 1)

    class Boom(list):
        def __setitem__(self, i, v):
            raise Stop()  # e.g. KeyboardInterrupt from the console

    with pytest.raises(Stop):
        ring.drain(Boom([0] * 4), [0] * 4)
    assert irq.depth == 0


def test_capture_poll_turns_interrupts_back_on_after_an_exception():
    clk, mem, ring, cap, irq = rig()

    def boom(reg):
        raise Stop()

    cap._mask_from = boom
    with pytest.raises(Stop):
        cap.poll()
    assert irq.depth == 0


def test_soft_irq_boards_resync_through_the_scheduler_not_disable_irq():
    """On ESP32 pin callbacks are scheduled and disable_irq does not hold them
    off: poll() schedules its snapshot so it runs serialised with them."""
    queued = []
    clk, mem, ring, cap, irq = rig(hard=False, schedule=lambda f, a: queued.append((f, a)))
    mem[ADDR] = 0xFE
    cap.poll()
    assert irq.depth == 0 and events(ring) == []  # nothing done in the loop itself
    f, a = queued.pop()
    f(a)  # the scheduler runs it
    assert events(ring) == [(START, 1)]


class Pin:
    """A pin as rp2 gives it to a hard handler: irq() with no arguments is the
    irq object, whose flags() are the edges latched since the handler last ran."""

    def __init__(self):
        self.latched = 0

    def irq(self, handler=None, trigger=0, hard=False):
        return self

    def flags(self):
        return self.latched


def test_a_tap_made_while_interrupts_were_off_is_not_lost():
    """A flash erase holds interrupts off ~45 ms; OK pressed and let go inside it
    leaves its level where it was, with both edges latched.  The handler takes the
    press when it finally runs, and poll() the release once the lockout is over."""
    pins = [Pin() for _ in range(4)]
    clk, mem, ring, cap, _ = rig(pins=pins, trigger=4 | 8, first=4, watch=0xF0)
    pins[2].latched = 4 | 8  # OK (button 6): down and up while held off
    clk[0] = later(START, 60_000)
    cap._handler(pins[2])
    assert events(ring) == [(clk[0], 1 << 6)]
    clk[0] = later(clk[0], 10_000)  # the lockout is over: the way back
    cap.poll()
    assert events(ring) == [(clk[0], 0)]


def test_one_edge_latched_is_no_round_trip():
    """A press the handler sees at once (one edge, the level changed) is taken
    as usual, once; a pin that is not one of this capture's buttons is ignored."""
    pins = [Pin() for _ in range(4)]
    clk, mem, ring, cap, _ = rig(pins=pins, trigger=4 | 8, first=4, watch=0xF0)
    pins[1].latched = 4
    mem[ADDR] = 0xFF & ~(1 << 5)  # DOWN pressed
    cap._handler(pins[1])
    assert events(ring) == [(START, 1 << 5)]
    stranger = Pin()
    stranger.latched = 4 | 8
    cap._handler(stranger)
    assert events(ring) == []
