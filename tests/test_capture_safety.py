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
