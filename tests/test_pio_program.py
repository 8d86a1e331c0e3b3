"""The PIO slap sampler, run instruction by instruction in the rp2040-pio-emulator.

The words under test are the words the board loads (hw/pio_capture.program_words), and
adafruit_pioasm must assemble the module's pioasm text into exactly those words.  Pad
edges are simulated by the emulator's input_source.  In the emulator the pads sit on
GPIO 0..n-1: `in pins, n` reads from IN_BASE, which the board sets to the first pad.

Rules served: SP-17 (slap to win: the first to slap wins) and SPIT-10 (the earlier
timestamp wins; the same instant is a tie the rules break) need exact, fair times.
"""
from collections import deque
from dataclasses import replace

import adafruit_pioasm
import pytest
from pioemu import State, emulate

from fakes import rp2 as fake_rp2
from speedref.hw import pio_capture as pc
from speedref.hw.ring import EventRing

ALL_UP = 0b1111  # pull-ups: released pads read 1
IN_PINS_PC = 11  # address of `in pins, n` (the sampling instruction)
CPU = 125  # cycles per microsecond at 125 MHz


def sample_clock(i):
    """Cycle at which sample i reads the pads (state machine started at cycle 0)."""
    return pc.START_CYCLES + pc.LOOP_CYCLES * i


def emulate_pads(levels, until, npads=4, drain_at=(), state=None):
    """Run the board's words until cycle `until`.

    levels(clock) -> raw pad levels.  drain_at: cycles at which the host empties the
    RX FIFO.  Returns (words read by the host in order, words left in the FIFO, the
    cycles at which the pads were sampled, final state)."""
    words = list(pc.program_words(npads))
    sampled = []

    def source(s: State) -> int:
        if s.program_counter == IN_PINS_PC:
            sampled.append(s.clock)
        return levels(s.clock)

    state = state or State()
    read = []
    for stop in sorted(drain_at) + [until]:
        last = None
        for _, last in emulate(words, stop_when=lambda _, s: s.clock >= stop, initial_state=state,
                               input_source=source, shift_isr_right=True,
                               wrap_target=pc.WRAP_TARGET, wrap_top=pc.WRAP):
            pass
        state = last if last is not None else state
        if stop != until:
            read.extend(state.receive_fifo)
            state = replace(state, receive_fifo=deque())
    return read, list(state.receive_fifo), sampled, state


def fields(word):
    v = word >> 2
    return v & pc.COUNT_MASK, (v >> 22) & 0xF, (v >> 26) & 0xF


def pressed_from(clocks):
    """levels(clock) for pads pressed (pulled low) from the given cycles: {pad: cycle}."""
    def levels(clock):
        raw = ALL_UP
        for pad, at in clocks.items():
            if clock >= at:
                raw &= ~(1 << pad)
        return raw
    return levels


def decode(words, t0=(1 << 30) - 40):
    """Host side: the board's decoder, anchored just before the 2**30 ticks wrap."""
    ring = EventRing(64)
    dec = pc.PioDecoder(ring, 4, CPU)
    dec.anchor(t0)
    for w in words:
        dec.feed(w >> 2)
    ts, ms = [0] * 64, [0] * 64
    n = ring.drain(ts, ms)
    return dec, list(zip(ts[:n], ms[:n]))


def t_at(cycle, t0=(1 << 30) - 40):
    return (t0 + cycle // CPU) & ((1 << 30) - 1)


# --- the words: one source, the same words on the board and in the emulator ---------

@pytest.mark.parametrize("npads", [1, 2, 3, 4])
def test_pioasm_text_assembles_to_the_words_the_board_loads(npads):
    prog = adafruit_pioasm.Program(pc.pio_source(npads))
    assert list(prog.assembled) == list(pc.program_words(npads))
    assert prog.pio_kwargs["wrap_target"] == pc.WRAP_TARGET
    assert prog.pio_kwargs["wrap"] == pc.WRAP


@pytest.mark.parametrize("npads", [2, 4])
def test_board_builds_its_program_from_those_words(npads):
    """build_program goes through asm_pio's word(), with asm_pio's globals swap."""
    prog = pc.build_program(fake_rp2, npads)
    assert list(prog[0]) == list(pc.program_words(npads))
    assert fake_rp2.program_wrap(prog) == (pc.WRAP_TARGET, pc.WRAP)
    assert (prog[4] >> 18) & 1 == fake_rp2.PIO.SHIFT_RIGHT  # the word layout needs it
    assert prog[4] >> 30 == fake_rp2.PIO.JOIN_RX  # 8-deep RX FIFO
    assert pc.program_words is not None  # module globals restored after asm_pio


def test_program_words_refuses_a_fifth_pad():
    with pytest.raises(ValueError):
        pc.program_words(5)


# --- timing --------------------------------------------------------------------------

def test_pads_are_sampled_every_loop_on_both_paths():
    """Every sample is LOOP_CYCLES after the last, whether a word was pushed or not, so
    count differences are exact times."""
    def levels(clock):  # toggles pad 0 every 30 cycles: many pushes, many idle passes
        return ALL_UP ^ ((clock // 30) & 1)
    read, _, sampled, _ = emulate_pads(levels, 2000, drain_at=range(100, 2000, 100))
    assert sampled[:3] == [sample_clock(0), sample_clock(1), sample_clock(2)]
    assert all(b - a == pc.LOOP_CYCLES for a, b in zip(sampled, sampled[1:]))
    assert len(read) > 30


def test_first_word_reports_the_start_state_and_nothing_is_pressed():
    read, left, _, _ = emulate_pads(pressed_from({}), 400)
    assert read == [] and len(left) == 1
    assert fields(left[0]) == (pc.COUNT_MASK, ALL_UP, 0)
    assert left[0] & 3 == 0  # two zero bits: sm.get(None, 2) stays a small int
    dec, events = decode(left)
    assert events == [] and dec.dropped == 0


def test_single_press_and_release_SP17():
    """One pad: one word at the press, one at the release, each dated to its sample."""
    press, release = 1000, 9000
    levels = lambda c: ALL_UP & ~(1 << 2) if press <= c < release else ALL_UP  # noqa: E731
    read, left, _, _ = emulate_pads(levels, 9200, drain_at=[5000])
    words = read + left
    assert len(words) == 3
    k_press = -(-(press - pc.START_CYCLES) // pc.LOOP_CYCLES)  # first sample at/after the press
    k_rel = -(-(release - pc.START_CYCLES) // pc.LOOP_CYCLES)
    assert fields(words[1]) == (pc.COUNT_MASK - k_press, 0b1011, ALL_UP)
    assert fields(words[2]) == (pc.COUNT_MASK - k_rel, ALL_UP, 0b1011)
    dec, events = decode(words)
    assert events == [(t_at(sample_clock(k_press)), 0b0100), (t_at(sample_clock(k_rel)), 0)]
    # error against the true edge: under one sample period plus the 1 us tick floor
    assert sample_clock(k_press) - press < pc.LOOP_CYCLES


def test_two_pads_in_the_same_cycle_are_one_word_SPIT10():
    """Pressed in the same cycle: one sample sees both, so the ring gets ONE event with
    both bits, the exact tie the rules then break (SPIT-10)."""
    read, left, _, _ = emulate_pads(pressed_from({0: 777, 3: 777}), 1200)
    words = read + left
    assert [fields(w)[1] for w in words] == [ALL_UP, 0b0110]
    _, events = decode(words)
    assert len(events) == 1 and events[0][1] == 0b1001


def test_two_pads_one_cycle_apart_SPIT10():
    """One cycle apart across a sampling instant: two words one count apart (the first
    pad wins by one sample).  One cycle apart inside one sample period: one word (a tie
    at 96 ns resolution)."""
    s = sample_clock(40)
    read, left, _, _ = emulate_pads(pressed_from({1: s, 2: s + 1}), s + 200)
    words = (read + left)[1:]
    assert [fields(w)[1] for w in words] == [0b1101, 0b1001]
    assert fields(words[0])[0] - fields(words[1])[0] == 1
    _, events = decode(read + left)
    assert [m for _, m in events] == [0b0010, 0b0110]

    read, left, _, _ = emulate_pads(pressed_from({1: s - 1, 2: s}), s + 200)
    assert [fields(w)[1] for w in (read + left)[1:]] == [0b1001]


def test_bouncing_contact_every_level_reported_in_order():
    """10 edges of a bouncing pad, each level held a few samples, host draining as it
    goes: every level arrives, in order, with 'before' chaining the words."""
    edges = [2000 + 60 * i for i in range(10)]  # 10 edges, 480 ns apart

    def levels(clock):
        n = sum(1 for e in edges if clock >= e)
        return ALL_UP & ~1 if n % 2 else ALL_UP
    read, left, _, _ = emulate_pads(levels, 3000, drain_at=range(2100, 3000, 150))
    words = read + left
    states = [fields(w)[1] for w in words]
    assert states == [ALL_UP] + [0b1110, ALL_UP] * 5
    assert all(fields(b)[2] == fields(a)[1] for a, b in zip(words, words[1:]))
    dec, events = decode(words)
    assert dec.dropped == 0 and [m for _, m in events] == [1, 0] * 5
    assert [t for t, _ in events] == sorted(t for t, _ in events)


def test_counter_wraps_without_a_gap():
    """The 22-bit count field wraps every 2**22 samples and the 32-bit register at 0;
    both are invisible to the host: consecutive words keep exact spacing."""
    for y in (0x00400003, 0x00000003):  # low 22 bits about to wrap; whole register too
        start = State(program_counter=pc.WRAP_TARGET, x_register=ALL_UP, y_register=y)
        toggle = lambda c: ALL_UP ^ ((c // 24) & 1)  # noqa: E731  a change every 2 samples
        read, left, sampled, _ = emulate_pads(toggle, 150, drain_at=[70], state=start)
        counts = [fields(w)[0] for w in read + left]
        # sample k reads count (y - k) mod 2**22; pad 0 flips at samples 2, 4, 6, 8
        assert counts[:4] == [1, pc.COUNT_MASK, pc.COUNT_MASK - 2, pc.COUNT_MASK - 4]
        assert all(b - a == pc.LOOP_CYCLES for a, b in zip(sampled, sampled[1:]))
        ring = EventRing(8)
        dec = pc.PioDecoder(ring, 4, 1)  # 1 cycle per "us": times are cycle counts
        dec.anchor(100)
        dec._c, dec._raw = 3, ALL_UP  # the reference: sample 0 (count 3)
        for w in read + left:
            dec.feed(w >> 2)
        ts, ms = [0] * 8, [0] * 8
        n = ring.drain(ts, ms)
        assert n == len(read + left) >= 4
        assert ts[:n] == [100 + pc.START_CYCLES + 12 * k for k in range(2, 2 + 2 * n, 2)]
        assert dec.wraps == 0 and dec.dropped == 0


def test_full_fifo_drops_new_words_keeps_counting_and_is_detected():
    """With nobody draining, a press storm fills the 4-word FIFO: the OLDEST words are
    kept (the first press decides a race), the state machine never stalls, and the next
    word after a drain shows the loss ('before' is not what the host saw last)."""
    edges = [500 + 100 * i for i in range(8)]  # 8 changes of pad 3, no drain until 1500

    def levels(clock):
        n = sum(1 for e in edges if clock >= e)
        return ALL_UP & ~8 if n % 2 else ALL_UP
    late_press = 2000
    lv = lambda c: levels(c) & ~1 if c >= late_press else levels(c)  # noqa: E731
    read, left, sampled, _ = emulate_pads(lv, 2100, drain_at=[1500])
    assert len(read) == 4  # start word + the first three changes; four were lost
    assert [fields(w)[1] for w in read] == [ALL_UP, 0b0111, ALL_UP, 0b0111]
    assert all(b - a == pc.LOOP_CYCLES for a, b in zip(sampled, sampled[1:]))  # no stall
    assert len(left) == 1 and fields(left[0])[1:] == (0b1110, ALL_UP)
    dec, events = decode(read + left)
    assert dec.dropped == 1  # last seen 0b0111 but the word says it came from 0b1111
    k = -(-(late_press - pc.START_CYCLES) // pc.LOOP_CYCLES)
    assert events[-1] == (t_at(sample_clock(k)), 0b0001)  # still dated exactly
