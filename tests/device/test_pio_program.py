"""The PIO slap sampler, run instruction by instruction in the rp2040-pio-emulator.

The words under test are the words the board loads (hw/pio_capture.program_words), and
adafruit_pioasm must assemble the program's pioasm text (hw/pio_capture.pio, beside the
module and not installed on the board) into exactly those words.  Pad
edges are simulated by the emulator's input_source.  In the emulator the pads sit on
GPIO 0..n-1: `in pins, n` reads from IN_BASE, which the board sets to the first pad.

pioemu 0.88 decodes neither `mov ..., status` nor `irq`: both are added here (STATUS
reads the RX FIFO's room as the board's EXECCTRL sets it up; `irq` raises a flag the
tests count).  Its RX FIFO is 4 words deep, so STATUS compares against 4 here; the
board's joined FIFO is 8 deep and its EXECCTRL compares against 8 (the program does
not depend on the depth).  The same words also run on MicroPython's rp2 port in the
emulated Pico (tests/board/test_board_capture.py), where nothing is patched.

Rules served: SP-17 (slap to win: the first to slap wins) and SPIT-10 (the earlier
timestamp wins; the same instant is a tie the rules break) need exact, fair times.
"""
from collections import deque
from dataclasses import replace
from pathlib import Path

import adafruit_pioasm
import pytest
from pioemu import State, emulate
from pioemu import instruction_decoder as _decoder

from fakes import rp2 as fake_rp2
from speedref.hw import pio_capture as pc
from speedref.hw.ring import EventRing

PIO_TEXT = Path(pc.__file__).with_suffix(".pio")
ALL_UP = 0b1111  # pull-ups: released pads read 1
CPU = 125  # cycles per microsecond at 125 MHz
EMU_FIFO = 4  # pioemu's RX FIFO depth
IRQS = []  # clock of every `irq` the program raised


def _with_status_and_irq(init):
    def patched(self, *args, **kwargs):
        init(self, *args, **kwargs)
        # MOV source 5: STATUS, all ones while the RX FIFO has room.
        self.mov_sources[5] = lambda st: 0xFFFFFFFF if len(st.receive_fifo) < EMU_FIFO else 0

        def irq(opcode):
            def raise_flag(supplier, st):
                IRQS.append(st.clock)
                return st
            return _decoder.Emulation(_decoder.always, _decoder.partial(raise_flag, None),
                                      _decoder.ProgramCounterAdvance.ALWAYS)
        self.decoding_functions[6] = irq
    return patched


_decoder.InstructionDecoder.__init__ = _with_status_and_irq(_decoder.InstructionDecoder.__init__)


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
        if s.program_counter == pc.SAMPLE_PC:
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
    """(count, levels of buttons 0..3) of a word as pushed (two zero bits below);
    these tests drive four buttons (the pads), the others read as released."""
    v = word >> pc.LEVEL_SHIFT
    return v & pc.COUNT_MASK, (v >> pc.COUNT_BITS) & 0xF


def pressed_from(clocks):
    """levels(clock) for pads pressed (pulled low) from the given cycles: {pad: cycle}."""
    def levels(clock):
        raw = ALL_UP
        for pad, at in clocks.items():
            if clock >= at:
                raw &= ~(1 << pad)
        return raw
    return levels


def decode(words, read_at, t0=(1 << 30) - 40):
    """Host side: the board's decoder, anchored just before the 2**30 ticks wrap,
    every word read at cycle read_at."""
    ring = EventRing(64)
    dec = pc.PioDecoder(ring, 4, CPU)
    dec.anchor(t0)
    for w in words:
        dec.feed(w >> pc.LEVEL_SHIFT, t_at(read_at, t0))
    ts, ms = [0] * 64, [0] * 64
    n = ring.drain(ts, ms)
    return dec, list(zip(ts[:n], ms[:n]))


def t_at(cycle, t0=(1 << 30) - 40):
    return (t0 + cycle // CPU) & ((1 << 30) - 1)


def first_sample_at(cycle):
    """Index of the first sample taken at or after `cycle`."""
    return -(-(cycle - pc.START_CYCLES) // pc.LOOP_CYCLES)


# --- the words: one source, the same words on the board and in the emulator ---------

def pio_source(n):
    """The pioasm text for `n` buttons on consecutive pins (1..8)."""
    text = PIO_TEXT.read_text(encoding="utf-8")
    return text.replace("{n}", str(n)).replace("{rest}", str(32 - n))


@pytest.mark.parametrize("n", range(1, 9))
def test_pioasm_text_assembles_to_the_words_the_board_loads(n):
    prog = adafruit_pioasm.Program(pio_source(n))
    assert list(prog.assembled) == list(pc.program_words(n))
    assert prog.pio_kwargs["wrap_target"] == pc.WRAP_TARGET
    assert prog.pio_kwargs["wrap"] == pc.WRAP
    assert prog.assembled[pc.SAMPLE_PC] >> 13 == 0b010 and prog.assembled[pc.SAMPLE_PC] & 0x1F == n


@pytest.mark.parametrize("npads", [2, 8])
def test_board_builds_its_program_from_those_words(npads):
    """build_program goes through asm_pio's word(), with asm_pio's globals swap, and
    sets STATUS to the RX FIFO's room (the program pushes only when there is room)."""
    prog = pc.build_program(fake_rp2, npads)
    assert list(prog[0]) == list(pc.program_words(npads))
    assert fake_rp2.program_wrap(prog) == (pc.WRAP_TARGET, pc.WRAP)
    assert (prog[4] >> 18) & 1 == fake_rp2.PIO.SHIFT_RIGHT  # the word layout needs it
    assert prog[4] >> 30 == fake_rp2.PIO.JOIN_RX  # 8-deep RX FIFO
    assert prog[3] & 0x1F == (1 << 4) | 8  # STATUS_SEL = RX level, STATUS_N = 8
    assert pc.program_words is not None  # module globals restored after asm_pio


def test_program_words_refuses_a_ninth_button():
    with pytest.raises(ValueError):
        pc.program_words(9)
    with pytest.raises(ValueError):
        pc.program_words(0)


# --- timing --------------------------------------------------------------------------

def test_pads_are_sampled_every_loop_on_every_path():
    """Every sample is LOOP_CYCLES after the last, whether a word was pushed, the FIFO
    was full, or nothing changed, so count differences are exact times."""
    def levels(clock):  # toggles pad 0 every 30 cycles: pushes, full FIFO, idle passes
        return ALL_UP ^ ((clock // 30) & 1)
    read, left, sampled, _ = emulate_pads(levels, 3000, drain_at=range(600, 3000, 600))
    assert sampled[:3] == [sample_clock(0), sample_clock(1), sample_clock(2)]
    assert all(b - a == pc.LOOP_CYCLES for a, b in zip(sampled, sampled[1:]))
    assert len(read) > 10


def test_first_word_reports_the_start_state_and_nothing_is_pressed():
    IRQS.clear()
    read, left, _, _ = emulate_pads(pressed_from({}), 400)
    assert read == [] and len(left) == 1
    assert fields(left[0]) == (pc.COUNT_MASK, ALL_UP)
    assert left[0] & 3 == 0  # two zero bits: sm.get(None, 2) stays a small int
    assert len(IRQS) == 1  # each push raises the interrupt that drains it
    dec, events = decode(left, 400)
    assert events == [] and dec.late == 0


def test_single_press_and_release_SP17():
    """One pad: one word at the press, one at the release, each dated to its sample."""
    press, release = 1000, 9000
    levels = lambda c: ALL_UP & ~(1 << 2) if press <= c < release else ALL_UP  # noqa: E731
    read, left, _, _ = emulate_pads(levels, 9200, drain_at=[5000])
    words = read + left
    assert len(words) == 3
    k_press, k_rel = first_sample_at(press), first_sample_at(release)
    assert fields(words[1]) == (pc.COUNT_MASK - k_press, 0b1011)
    assert fields(words[2]) == (pc.COUNT_MASK - k_rel, ALL_UP)
    dec, events = decode(words, 9200)
    assert events == [(t_at(sample_clock(k_press)), 0b0100), (t_at(sample_clock(k_rel)), 0)]
    # error against the true edge: under one sample period plus the 1 us tick floor
    assert sample_clock(k_press) - press < pc.LOOP_CYCLES


def test_two_pads_in_the_same_cycle_are_one_word_SPIT10():
    """Pressed in the same cycle: one sample sees both, so the ring gets ONE event with
    both bits, the exact tie the rules then break (SPIT-10)."""
    read, left, _, _ = emulate_pads(pressed_from({0: 777, 3: 777}), 1200)
    words = read + left
    assert [fields(w)[1] for w in words] == [ALL_UP, 0b0110]
    _, events = decode(words, 1200)
    assert len(events) == 1 and events[0][1] == 0b1001


def test_two_pads_one_cycle_apart_SPIT10():
    """One cycle apart across a sampling instant: two words one count apart (the first
    pad wins by one sample).  One cycle apart inside one sample period: one word (a tie
    at 136 ns resolution)."""
    s = sample_clock(40)
    read, left, _, _ = emulate_pads(pressed_from({1: s, 2: s + 1}), s + 200)
    words = (read + left)[1:]
    assert [fields(w)[1] for w in words] == [0b1101, 0b1001]
    assert fields(words[0])[0] - fields(words[1])[0] == 1
    _, events = decode(read + left, s + 200)
    assert [m for _, m in events] == [0b0010, 0b0110]

    read, left, _, _ = emulate_pads(pressed_from({1: s - 1, 2: s}), s + 200)
    assert [fields(w)[1] for w in (read + left)[1:]] == [0b1001]


def test_bouncing_contact_every_level_reported_in_order():
    """10 edges of a bouncing pad, each level held a few samples, host draining as it
    goes: every level arrives, in order, dated to its sample."""
    edges = [2000 + 70 * i for i in range(10)]  # 10 edges, 560 ns apart

    def levels(clock):
        n = sum(1 for e in edges if clock >= e)
        return ALL_UP & ~1 if n % 2 else ALL_UP
    read, left, _, _ = emulate_pads(levels, 3000, drain_at=range(2100, 3000, 120))
    words = read + left
    assert [fields(w)[1] for w in words] == [ALL_UP] + [0b1110, ALL_UP] * 5
    dec, events = decode(words, 3000)
    assert [m for _, m in events] == [1, 0] * 5
    assert [t for t, _ in events] == [t_at(sample_clock(first_sample_at(e))) for e in edges]


def test_counter_wraps_without_a_gap():
    """The 22-bit count field wraps every 2**22 samples and the 32-bit register at 0;
    both are invisible to the host: consecutive words keep exact spacing."""
    for y in (0x00400003, 0x00000003):  # low 22 bits about to wrap; whole register too
        start = State(program_counter=pc.WRAP_TARGET, x_register=ALL_UP, y_register=y)
        toggle = lambda c: ALL_UP ^ ((c // 34) & 1)  # noqa: E731  a change every 2 samples
        read, left, sampled, _ = emulate_pads(toggle, 200, drain_at=[60, 120], state=start)
        counts = [fields(w)[0] for w in read + left]
        # sample k reads count (y - k) mod 2**22; pad 0 flips at samples 2, 4, 6, 8
        assert counts[:4] == [1, pc.COUNT_MASK, pc.COUNT_MASK - 2, pc.COUNT_MASK - 4]
        assert all(b - a == pc.LOOP_CYCLES for a, b in zip(sampled, sampled[1:]))
        ring = EventRing(8)
        dec = pc.PioDecoder(ring, 4, 1)  # 1 cycle per "us": times are cycle counts
        dec.anchor(100)
        dec._c = 3  # the reference: sample 0 (count 3)
        dec._mask = 0
        dec._t = 100 + pc.START_CYCLES
        for w in read + left:
            dec.feed(w >> pc.LEVEL_SHIFT, 100 + 200)
        ts, ms = [0] * 8, [0] * 8
        n = ring.drain(ts, ms)
        assert n == len(read + left) >= 4
        assert ts[:n] == [100 + pc.START_CYCLES + pc.LOOP_CYCLES * k for k in range(2, 2 + 2 * n, 2)]
        assert dec.wraps == 0


def test_full_fifo_keeps_the_change_pending_and_loses_no_level():
    """With nobody draining, a bouncing pad fills the FIFO.  The first words keep their
    exact samples (the earliest presses decide a race); the state machine never stalls;
    the change it had no room for stays pending (X is not updated) and is pushed at the
    first sample after the drain, so the level the contact settled on arrives, and a
    second pad pressed meanwhile is in that word too."""
    edges = [500 + 100 * i for i in range(9)]  # 9 changes of pad 3: ends pressed

    def levels(clock):
        n = sum(1 for e in edges if clock >= e)
        return ALL_UP & ~8 if n % 2 else ALL_UP
    late_press = 1800  # pad 0, while the FIFO is still full
    drain = 2500
    lv = lambda c: levels(c) & ~1 if c >= late_press else levels(c)  # noqa: E731
    read, left, sampled, _ = emulate_pads(lv, 3000, drain_at=[drain])
    assert len(read) == EMU_FIFO  # start word + the first three changes
    assert [fields(w)[1] for w in read] == [ALL_UP, 0b0111, ALL_UP, 0b0111]
    assert [fields(w)[0] for w in read[1:]] == [pc.COUNT_MASK - first_sample_at(e) for e in edges[:3]]
    assert all(b - a == pc.LOOP_CYCLES for a, b in zip(sampled, sampled[1:]))  # no stall
    # After the drain: ONE word, the settled state (pad 3 and pad 0 down), dated at the
    # first sample after the FIFO had room again, never a level that was not there.
    assert len(left) == 1 and fields(left[0])[1] == 0b0110
    k = first_sample_at(drain)
    assert fields(left[0])[0] == pc.COUNT_MASK - k
    dec, events = decode(read + left, 3000)
    assert [m for _, m in events] == [0b1000, 0, 0b1000, 0b1001]
    assert events[-1][0] == t_at(sample_clock(k))
