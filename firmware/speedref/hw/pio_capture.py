# Slap timing by a PIO state machine (rp2 boards).
#
# An interrupt handler timestamps a press tens of microseconds late, and
# later still while another handler runs, so the pad served first can win a
# press that was really simultaneous (SP-17, SPIT-10: "the earlier timestamp
# wins").  Here a PIO state machine reads ALL pads in one cycle every
# LOOP_CYCLES cycles (96 ns at 125 MHz) and counts those samples down in a
# register.  On every change of the pad levels it pushes one word: the count,
# the new levels and the levels it pushed last.  Pads pressed between two
# samples arrive in ONE word: an exact tie, whichever pad "came first" to an
# interrupt controller.  The CPU only turns counts into ticks_us() times, so
# how late poll() runs does not change a timestamp.
#
# Why pioasm text plus assembled words (and not an @rp2.asm_pio function):
# the tests run the very same 16-bit words in the rp2040-pio-emulator, and
# adafruit_pioasm assembles PIO_SOURCE into exactly the words in _PROGRAMS
# (tests/test_pio_program.py checks that, for 1..4 pads).  On the board
# build_program() feeds those words to rp2.asm_pio's documented word()
# instruction, so the board runs the words the emulator ran.  The text is
# the readable source; the words are what the board needs (no assembler on
# the board).
#
# Word layout (shift right, 30 bits pushed on top of two zero bits, read
# with sm.get(None, 2) so the value stays a small int on a 32-bit board):
#   bits 0..21  sample count, low 22 bits of a countdown (decreasing)
#   bits 22..25 raw pad levels now (1 = released: pull-ups, pads to GND)
#   bits 26..29 raw pad levels in the word pushed before this one
# FIFO overflow: `push noblock` drops the NEW word when the RX FIFO is full,
# so the earliest presses (the ones that decide a race) survive and the
# count keeps running (no stall, later times stay exact).  A drop shows up
# on the host as "levels before" != the levels of the last word it got.
# Count wrap: the 22-bit count repeats every 2**22 samples (0.4 s at
# 125 MHz); poll() must run more often than that, and a poll that came too
# late is counted in `late`.

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from speedref.ticks import ticks_add, ticks_diff

# The program, with {npads} and {rest} (= 32 - npads) filled in per board.
PIO_SOURCE = """
.program speedref_pads
; X: raw pad levels in the last word pushed.  Y: the free-running countdown.
; OSR: Y parked while Y holds the new sample for `jmp x!=y`.
    set x, 0                ; no word pushed yet (the first sample is pushed)
    mov y, ~null            ; the countdown starts at 2**32 - 1
    jmp loop
change:                     ; pads changed: push count | now | before
    in osr, 22              ; the count of this sample (low 22 bits)
    in y, 4                 ; pad levels now
    in x, 4                 ; pad levels in the previous word
    push noblock            ; FIFO full: drop this word, keep counting
    mov x, y
    mov y, osr
    jmp y-- loop            ; at 0 falls through to loop as well
.wrap_target
loop:                       ; every pass is LOOP_CYCLES cycles, both ways
    mov osr, y
    in pins, {npads}        ; THE sample: every pad read in the same cycle
    in null, {rest}         ; levels down to bits 0..npads-1, zeros above
    mov y, isr
    jmp x!=y change
    mov y, osr [5]          ; no change: wait as long as a push takes
    jmp y-- loop
.wrap
"""

# adafruit_pioasm.assemble(pio_source(n)) for n = 1..4 pads (index n - 1).
_PROGRAMS = (
    (0xE020, 0xA04B, 0x000A, 0x40F6, 0x4044, 0x4024, 0x8000, 0xA022, 0xA047,
     0x008A, 0xA0E2, 0x4001, 0x407F, 0xA046, 0x00A3, 0xA547, 0x008A),
    (0xE020, 0xA04B, 0x000A, 0x40F6, 0x4044, 0x4024, 0x8000, 0xA022, 0xA047,
     0x008A, 0xA0E2, 0x4002, 0x407E, 0xA046, 0x00A3, 0xA547, 0x008A),
    (0xE020, 0xA04B, 0x000A, 0x40F6, 0x4044, 0x4024, 0x8000, 0xA022, 0xA047,
     0x008A, 0xA0E2, 0x4003, 0x407D, 0xA046, 0x00A3, 0xA547, 0x008A),
    (0xE020, 0xA04B, 0x000A, 0x40F6, 0x4044, 0x4024, 0x8000, 0xA022, 0xA047,
     0x008A, 0xA0E2, 0x4004, 0x407C, 0xA046, 0x00A3, 0xA547, 0x008A),
)
WRAP_TARGET = const(10)  # index of `loop`
WRAP = const(16)  # index of the last `jmp y-- loop`

LOOP_CYCLES = const(12)  # PIO cycles per sample, on both paths
START_CYCLES = const(4)  # cycles from start to the first sample (set, mov, jmp, mov)
COUNT_BITS = const(22)
COUNT_MASK = const(0x3FFFFF)
WRAP_CYCLES = const(50331648)  # (1 << COUNT_BITS) * LOOP_CYCLES: one count period
MAX_PADS = const(4)
# A sample is dated after the previous poll read the clock; allow this much
# for the start anchor being read just before the state machine ran.
SLACK_US = const(2000)


def pio_source(npads):
    """The pioasm text for `npads` pads on consecutive pins (1..4)."""
    _check_pads(npads)
    return PIO_SOURCE.replace("{npads}", str(npads)).replace("{rest}", str(32 - npads))


def program_words(npads):
    """The 16-bit instruction words the board loads for `npads` pads."""
    _check_pads(npads)
    return _PROGRAMS[npads - 1]


def _check_pads(npads):
    if not 1 <= npads <= MAX_PADS:
        raise ValueError("1 to 4 pads")


def build_program(rp2, npads):
    """The rp2.asm_pio program made of program_words(npads), word by word.

    asm_pio runs the decorated function with its globals swapped for the
    PIO names (word, wrap_target, wrap), so the words reach it through a
    closure, not a module global."""
    words = program_words(npads)
    at_target = WRAP_TARGET  # locals: the closure still sees them
    at_wrap = WRAP

    @rp2.asm_pio(in_shiftdir=rp2.PIO.SHIFT_RIGHT, fifo_join=rp2.PIO.JOIN_RX)
    def speedref_pads():
        for i in range(len(words)):
            if i == at_target:
                wrap_target()  # noqa: F821 - injected by asm_pio
            word(words[i])  # noqa: F821
            if i == at_wrap:
                wrap()  # noqa: F821

    return speedref_pads


class PioDecoder:
    """Turns the state machine's words into (t_us, mask) ring events.

    Pure: no rp2, no clock.  anchor(t_us) says when the state machine
    started; feed(v) takes one word shifted right by 2; after_poll(now)
    moves the time reference along.  All arithmetic stays in small ints
    (below 2**30) and nothing allocates, so it can run in a hard IRQ."""

    def __init__(self, ring, npads, cycles_per_us):
        _check_pads(npads)
        if not 1 <= cycles_per_us <= 1000:
            raise ValueError("cycles_per_us")
        self._ring = ring
        self._pads = (1 << npads) - 1
        self._cpu = cycles_per_us
        # One count period, split into whole microseconds and leftover cycles.
        self._wrap_us = WRAP_CYCLES // cycles_per_us
        self._wrap_frac = WRAP_CYCLES % cycles_per_us
        self.samples = 0  # words decoded
        self.dropped = 0  # FIFO overflows seen (each: one or more words lost)
        self.wraps = 0  # count periods (2**22 samples) passed
        self.late = 0  # polls too far apart to date a word for certain
        self.anchor(0)

    def anchor(self, t_us):
        """The state machine started at t_us: the first sample has count
        COUNT_MASK and is taken START_CYCLES later."""
        self._c = COUNT_MASK
        self._t = t_us
        self._frac = 0
        self._add_cycles(START_CYCLES)
        self._polled = t_us
        self._raw = 0  # X starts at 0 in the program
        self._mask = 0

    def _add_cycles(self, cycles):
        # Move the reference time on by `cycles` (< 2**30), keeping the
        # remainder below one microsecond in _frac.
        cycles += self._frac
        us = cycles // self._cpu
        self._frac = cycles - us * self._cpu
        self._t = ticks_add(self._t, us)

    def _add_period(self):
        # Exactly one count period: the count field reads the same again.
        self._t = ticks_add(self._t, self._wrap_us)
        f = self._frac + self._wrap_frac
        if f >= self._cpu:
            f -= self._cpu
            self._t = ticks_add(self._t, 1)
        self._frac = f
        self.wraps += 1

    def feed(self, v):
        """One word (already >> 2).  Returns True if it put a ring event."""
        c = v & COUNT_MASK
        # Samples since the reference, modulo one count period.
        self._add_cycles(((self._c - c) & COUNT_MASK) * LOOP_CYCLES)
        self._c = c
        # The word was pushed after the previous poll read the clock: a date
        # before that means whole count periods passed in between.
        while ticks_diff(self._t, self._polled) < -SLACK_US:
            self._add_period()
        self.samples += 1
        now = (v >> COUNT_BITS) & 0xF
        before = (v >> (COUNT_BITS + 4)) & 0xF
        if before != self._raw:
            self.dropped += 1  # a word the FIFO had no room for
        self._raw = now
        mask = (now ^ self._pads) & self._pads  # pressed = 1
        if mask == self._mask:
            return False
        self._mask = mask
        self._ring.put(self._t, mask)
        return True

    def after_poll(self, now_us):
        """Call once per poll with the clock read BEFORE the FIFO was read
        (so every word still waiting was pushed after now_us)."""
        self._polled = now_us
        # Keep the reference within one count period of now, so the next
        # word's count is dated in the right period.
        while ticks_diff(now_us, self._t) > self._wrap_us:
            self._add_period()


class PioCapture(PioDecoder):
    """The PIO capture on an rp2 board: pads on `npads` consecutive GPIOs
    from `first_pin`, pulled up, pressed = low.

        cap = PioCapture(ring, board.PAD_FIRST, board.PADS)
        cap.start()
        ... every loop: cap.poll()     (at least every 0.3 s)

    rp2 and machine are imported here, not at module level, so this module
    loads on any board and on CPython."""

    def __init__(self, ring, first_pin, npads, sm_id=0, clock=None, freq=None):
        import rp2
        import machine

        if freq is None:
            freq = machine.freq()
        if freq % 1000000:
            raise ValueError("system clock must be a whole number of MHz")
        PioDecoder.__init__(self, ring, npads, freq // 1000000)
        if clock is None:
            from time import ticks_us as clock
        self._clock = clock
        Pin = machine.Pin
        base = None
        for i in range(npads):
            p = Pin(first_pin + i, Pin.IN, Pin.PULL_UP)
            if base is None:
                base = p  # IN_BASE: `in pins` reads from the first pad
        self._sm = rp2.StateMachine(sm_id, build_program(rp2, npads), freq=freq,
                                    in_base=base)
        self.polls = 0

    def start(self):
        t = self._clock()  # read just before the first instruction runs
        self._sm.active(1)
        self.anchor(t)

    def stop(self):
        self._sm.active(0)

    def poll(self):
        """Move waiting words into the ring; returns how many were read.
        Allocates nothing (safe from a hard Timer callback too)."""
        sm = self._sm
        n = sm.rx_fifo()
        now = self._clock()  # after counting, before reading: see after_poll
        self.polls += 1
        if n and ticks_diff(now, self._polled) >= self._wrap_us - SLACK_US:
            self.late += 1  # words may be dated a count period off
        k = n
        while k:
            self.feed(sm.get(None, 2))
            k -= 1
        self.after_poll(now)
        return n
