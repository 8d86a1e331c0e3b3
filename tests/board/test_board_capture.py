"""Button capture on the emulated Pico: MicroPython's rp2 firmware runs the
board's own capture path (hw/boards.make_capture: one PIO state machine
samples every button, pads and nav, drained by its hard interrupt) while the
host sets pin levels at exact simulated instants.  Timestamps are compared with the
instants injected (SP-17, SPIT-10: the earlier timestamp wins)."""
import json

import pytest

from board_rig import at_repl, needs_board
from emu.board import NS_PER_US

pytestmark = [pytest.mark.board, needs_board]

# The board side: the real capture path, drained by a loop that stalls
# STALL_MS each pass (an OLED frame is ~23.5 ms on a 400 kHz bus), for RUN_MS.
# The board side: the real capture path (afresh each time), then %(before)s,
# then a loop that drains it, stalling STALL_MS each pass (an OLED frame is
# ~23.5 ms on a 400 kHz bus), for RUN_MS.
PROBE = """
import time, machine, json, os, rp2
_sm = rp2.StateMachine(0)
_sm.active(0)
_sm.irq(None)
rp2.PIO(0).remove_program()
from array import array
from speedref.hw import boards, board_pico
from speedref.hw.ring import EventRing
ring = EventRing(64, machine.disable_irq, machine.enable_irq)
cap, mode = boards.make_capture(board_pico, ring, machine)
ts = array('l', [0] * 64)
ms = array('l', [0] * 64)
got = []
print('\\x06')
%(before)s
end = time.ticks_add(time.ticks_us(), %(run_ms)d * 1000)
while time.ticks_diff(end, time.ticks_us()) > 0:
    cap.poll()
    n = ring.drain(ts, ms)
    for i in range(n):
        got.append([ts[i], ms[i]])
    time.sleep_ms(%(stall_ms)d)
pio = cap if mode == 'pio' else None
print(json.dumps({'mode': mode, 'events': got, 'ring_dropped': ring.dropped,
                  'pio_full': pio.full if pio else None,
                  'pio_late': pio.late if pio else None}))
"""


# PIO times are anchored to ticks_us() when the state machine starts; the
# anchor is off by the few microseconds rp2.StateMachine.active() takes.
ANCHOR_US = 10


@pytest.fixture(scope="module")
def pico():
    p = at_repl()
    yield p
    p.close()


def run_probe(pico, edges, stall_ms, run_ms=400):
    """edges: [(us after the start, {button: pressed?})].  Returns the
    board's report and the injected instants in board ticks_us."""
    pico.start(PROBE % {"run_ms": run_ms, "stall_ms": stall_ms, "before": ""})
    pico.wait_for(b"\x06")
    t0 = pico.ns + 5000 * NS_PER_US
    truth = []
    for us, levels in edges:
        pico.run_until(t0 + us * NS_PER_US)
        down = [b for b, v in levels.items() if v]
        up = [b for b, v in levels.items() if not v]
        if down:
            pico.press(*down)
        if up:
            pico.release(*up)
        truth.append((pico.ticks_us(), levels))
    out, err = pico.finish(10000000)
    assert not err, err
    report = json.loads(out.strip().splitlines()[-1])
    return report, truth


def chatter(button, start_us, changes, gap_us=100):
    """A contact that bounces: `changes` level changes gap_us apart,
    starting with a press (an odd count ends pressed)."""
    return [(start_us + i * gap_us, {button: i % 2 == 0}) for i in range(changes)]


def final_mask(report):
    return report["events"][-1][1] if report["events"] else 0


def first_press(report, button):
    for t, mask in report["events"]:
        if mask >> button & 1:
            return t
    return None


def test_bouncing_pad_then_second_pad_during_a_display_stall(pico):
    """SP-17: a pad chattering 9 times, a second pad 2 ms later, while the
    loop is stalled by a full OLED frame: both slaps are seen, at their true
    instants, and the levels the contacts settle on reach the decoder."""
    edges = chatter(0, 0, 9) + [(2000, {1: True})]
    report, truth = run_probe(pico, edges, stall_ms=24)
    assert report["mode"] == "pio"
    assert final_mask(report) == 0b11, report
    # Against the injected instants: within the anchor's offset (docs/timing.md) ...
    p0, p1 = first_press(report, 0), first_press(report, 1)
    assert abs(p0 - truth[0][0]) <= ANCHOR_US, (report, truth)
    assert abs(p1 - truth[-1][0]) <= ANCHOR_US, (report, truth)
    # ... and between the two pads, the race's margin, exact to a sample: within
    # 1 us once each time is floored to the microsecond.
    assert abs((p1 - p0) - (truth[-1][0] - truth[0][0])) <= 1, (report, truth)
    # Let go: both releases arrive too.
    report, _ = run_probe(pico, [(0, {0: False, 1: False})], stall_ms=24)
    assert final_mask(report) == 0, report


# A nav tap made while a flash write holds every interrupt off (a save at the
# end of a hand: each 4 KB erase stalls the CPU ~45 ms).
# Before draining: a file written and removed, which erases and programs flash.
WRITE_FLASH = """
time.sleep_ms(5)
buf = bytearray(4096)
with open('stall.bin', 'wb') as f:
    for i in range(4):
        f.write(buf)
os.remove('stall.bin')
"""


def test_a_nav_tap_during_a_flash_erase_is_not_lost(pico):
    """OK pressed and let go within one flash erase, when no interrupt can
    run: the state machine keeps sampling, the tap waits in its FIFO and
    reaches the decoder with its own instants."""
    pico.start(PROBE % {"run_ms": 100, "stall_ms": 1, "before": WRITE_FLASH})
    pico.wait_for(b"\x06")
    end = pico.ns + 2000000 * NS_PER_US
    while pico.state()["flash_busy"] != "erase":
        assert pico.ns < end, "no flash erase began"
        pico.run_for(100)
    erase = pico.state()["flash_since"]
    pico.run_for(5000)
    pico.press(6)
    t_down = pico.ticks_us()
    pico.run_for(10000)
    pico.release(6)
    t_up = pico.ticks_us()
    st = pico.state()
    assert st["flash_busy"] == "erase" and st["flash_since"] == erase  # the same erase
    out, err = pico.finish(20000000)
    assert not err, err
    report = json.loads(out.strip().splitlines()[-1])
    assert [m for _, m in report["events"]] == [64, 0], report  # OK down, then up
    (t1, _), (t2, _) = report["events"]
    assert abs(t1 - t_down) <= ANCHOR_US and abs(t2 - t_up) <= ANCHOR_US, (report, t_down, t_up)


def bouncing_press(button, at_us, bounces=3, gap_us=150):
    """A press whose contact bounces: `bounces` extra changes gap_us apart
    before it settles down (an odd count of changes in all)."""
    return [(at_us + i * gap_us, {button: i % 2 == 0}) for i in range(2 * bounces + 1)]


@pytest.mark.parametrize("offset_us", [0, 1, 10, 100, 1000, 10000])
def test_slap_race_margin_follows_the_pads_within_a_microsecond_SPIT10(pico, offset_us):
    """SPIT-10 / SP-17: P1 slaps, P2 `offset_us` later, both contacts bouncing,
    while the loop is stalled by a full OLED frame: the first press of each
    pad is dated to its instant (within the anchor's offset), the margin
    between them within 1 us of the true gap (the PIO samples every 136 ns
    and each time is floored to the microsecond), 0 is a tie (the same
    sample), and the
    levels the contacts settle on arrive."""
    edges = sorted(bouncing_press(0, 0) + bouncing_press(1, offset_us), key=lambda e: e[0])
    merged = []
    for t, lv in edges:  # two pads changing at the same instant: one pin update
        if merged and merged[-1][0] == t:
            merged[-1][1].update(lv)
        else:
            merged.append((t, dict(lv)))
    report, truth = run_probe(pico, merged, stall_ms=24, run_ms=150)
    p1, p2 = first_press(report, 0), first_press(report, 1)
    assert abs(p1 - truth[0][0]) <= ANCHOR_US, (report, truth)
    assert abs((p2 - p1) - offset_us) <= 1, (report, truth)
    if offset_us == 0:
        first = [m for _, m in report["events"] if m][0]
        assert first == 0b11  # one word: a tie the rules then break
    assert final_mask(report) == 0b11, report
    run_probe(pico, [(0, {0: False, 1: False})], stall_ms=1, run_ms=30)


def test_nav_presses_are_not_lost_while_the_pads_storm(pico):
    """Four pads toggling 1,000 times a second between them while OK and UP
    are tapped: every nav press and release arrives, at its instant."""
    edges = []
    for i in range(200):  # 200 ms of pad edges, one every 1 ms, round the four pads
        edges.append((i * 1000, {i % 4: (i // 4) % 2 == 0}))
    navs = [(37_300, {6: True}), (57_300, {6: False}), (101_700, {4: True}), (131_700, {4: False})]
    merged = sorted(edges + navs, key=lambda e: e[0])
    report, truth = run_probe(pico, merged, stall_ms=1, run_ms=300)
    nav = [(t, m & 0xF0) for t, m in report["events"]]
    changes = []
    last = 0
    for t, m in nav:
        if m != last:
            changes.append((t, m))
            last = m
    want = [t for t, lv in truth if 6 in lv or 4 in lv]
    assert [m for _, m in changes] == [64, 0, 16, 0], changes
    for (t, _), w in zip(changes, want):
        assert abs(t - w) <= ANCHOR_US, (changes, want)
    assert report["ring_dropped"] == 0 and report["pio_full"] == 0
    run_probe(pico, [(0, {0: False, 1: False, 2: False, 3: False})], stall_ms=1, run_ms=30)
