# Button timing by a PIO state machine (rp2 boards): the slap pads and the
# nav buttons, every one of them sampled in the same cycle.
#
# An interrupt handler timestamps a press tens of microseconds late, and
# later still while another handler runs, so the pad served first can win a
# press that was really simultaneous (SP-17, SPIT-10: "the earlier timestamp
# wins").  Here a PIO state machine reads ALL buttons in one cycle every
# LOOP_CYCLES cycles (136 ns at 125 MHz) and counts those samples down in a
# register.  On every change of the levels it pushes one word, the count and
# the new levels, and raises its interrupt; the handler moves the word into
# the ring at once.  Pads pressed between two samples arrive in ONE word: an
# exact tie, whichever pad "came first" to an interrupt controller.  The nav
# buttons ride along: a tap made while a flash erase holds every interrupt
# off (~45 ms at the end of each hand) waits in the FIFO with its own time.
# The CPU only turns counts into ticks_us() times, so how late the handler
# runs does not change a timestamp.
#
# Nothing is lost while the CPU cannot drain (a flash erase holds off every
# interrupt for tens of ms; a bouncing contact makes an edge every ~100 us):
# the program pushes only while the RX FIFO has room (MOV from STATUS), and
# when it is full it keeps the change pending instead of forgetting it: X,
# the levels of the last word pushed, stays as it was, so the next sample
# still differs and is pushed as soon as there is room.  The first 8 changes
# of a stall keep their exact times; later ones are dated when there was
# room again (counted in `full`); the levels a contact settles on always
# arrive.
#
# Why pioasm text plus assembled words (and not an @rp2.asm_pio function):
# the tests run the very same 16-bit words in the rp2040-pio-emulator, and
# adafruit_pioasm assembles the program's text, pio_capture.pio beside this
# module (read there; it is not installed on the board, where it would be
# a 1.5 KB string on the heap), into exactly the words program_words(n)
# gives (tests/device/test_pio_program.py checks that, for 1..8 buttons).  On the board
# build_program() feeds those words to rp2.asm_pio's documented word()
# instruction, so the board runs the words the emulator ran.
#
# Word layout (shift right, 30 bits pushed on top of two zero bits, read
# with sm.get(None, 2) so the value stays a small int on a 32-bit board):
#   bits 0..21   sample count, low 22 bits of a countdown (decreasing)
#   bits 22..29  raw button levels (1 = released: pull-ups, buttons to GND)
# Count wrap: the 22-bit count repeats every 2**22 samples (570 ms at
# 125 MHz).  A word is dated as the latest instant at or before the moment
# it was read that its count allows, so it is exact as long as it is read
# within one count period of its push: the interrupt reads it within
# microseconds, and the longest stalls with interrupts off (a 4 KB flash
# erase: 45 ms typical, 400 ms at worst) stay inside it.

from micropython import const


from ..ticks import ticks_add, ticks_diff


# What adafruit_pioasm assembles pio_capture.pio into: the same words for
# every n but the sample's two (index SAMPLE_PC: `in pins, n`; the next:
# `in null, 32 - n`).
_WORDS = (0xE020, 0xA04B, 0x0010, 0xA847, 0x0090, 0x0010, 0xA045, 0x0063, 0xA046,
          0x40F6, 0x4048, 0x8000, 0xC010, 0xA222, 0xA047, 0x0090, 0xA0E2, 0x4000,
          0x4060, 0xA046, 0x00A6, 0xAA47, 0x0090)
WRAP_TARGET = const(16)  # index of `loop`
WRAP = const(22)  # index of the last `jmp y-- loop`
SAMPLE_PC = const(17)  # index of `in pins`

LOOP_CYCLES = const(17)  # PIO cycles per sample, on every path
START_CYCLES = const(4)  # cycles from start to the first sample (set, mov, jmp, mov)
COUNT_BITS = const(22)
COUNT_MASK = const(0x3FFFFF)
LEVEL_SHIFT = const(2)  # sm.get(None, LEVEL_SHIFT): the word without its two zero bits
_MAX_BUTTONS = const(8)
_FIFO_DEPTH = const(8)  # the RX FIFO joined with the TX FIFO's storage
# EXECCTRL: STATUS_SEL = RX FIFO level, STATUS_N = _FIFO_DEPTH: `mov y, status`
# reads all ones while fewer than _FIFO_DEPTH words wait.
_STATUS_RX_ROOM = const((1 << 4) | _FIFO_DEPTH)
# rp2.asm_pio's program list ends with execctrl, shiftctrl, out_init,
# set_init, sideset_init (its length differs between ports and versions).
_PROG_EXECCTRL = const(-5)
# A word read this long after its push came close to being dated a period
# off (half the 570 ms count period): counted in `late`.  Words that wait out
# a flash erase (~45 ms) keep exact times and are not late.  Not a tunable:
# the PIO program's figure (2**22 samples of 17 cycles at 125 MHz, halved).
_LATE_US = const(285000)


def program_words(n):
    """The 16-bit instruction words the board loads for `n` buttons."""
    _check_buttons(n)
    w = list(_WORDS)
    w[SAMPLE_PC] |= n  # in pins, n
    w[SAMPLE_PC + 1] |= 32 - n  # in null, 32 - n
    return tuple(w)


def _check_buttons(n):
    if not 1 <= n <= _MAX_BUTTONS:
        raise ValueError("1 to 8 buttons")


def build_program(rp2, n):
    """The rp2.asm_pio program made of program_words(n), word by word,
    with STATUS reading the RX FIFO's room.

    asm_pio runs the decorated function with its globals swapped for the
    PIO names (word, wrap_target, wrap), so the words reach it through a
    closure, not a module global."""
    words = program_words(n)
    at_target = WRAP_TARGET  # locals: the closure still sees them
    at_wrap = WRAP

    @rp2.asm_pio(in_shiftdir=rp2.PIO.SHIFT_RIGHT, fifo_join=rp2.PIO.JOIN_RX)
    def speedref_buttons():
        for i in range(len(words)):
            if i == at_target:
                wrap_target()  # noqa: F821 - injected by asm_pio
            word(words[i])  # noqa: F821
            if i == at_wrap:
                wrap()  # noqa: F821

    speedref_buttons[_PROG_EXECCTRL] |= _STATUS_RX_ROOM
    return speedref_buttons


class PioDecoder:
    """Turns the state machine's words into (t_us, mask) ring events.

    Pure: no rp2, no clock.  anchor(t_us) says when the state machine
    started; feed(v, now_us) takes one word (shifted right by LEVEL_SHIFT)
    read at now_us.  All arithmetic stays in small ints (below 2**30) and
    nothing allocates, so it runs in a hard IRQ."""

    def __init__(self, ring, n, cycles_per_us):
        _check_buttons(n)
        if not 1 <= cycles_per_us <= 1000:
            raise ValueError("cycles_per_us")
        self._ring = ring
        self._all = (1 << n) - 1
        self._cpu = cycles_per_us
        # One count period, split into whole microseconds and leftover cycles.
        period = (COUNT_MASK + 1) * LOOP_CYCLES  # 71,303,168 cycles: a small int
        self._wrap_us = period // cycles_per_us
        self._wrap_frac = period % cycles_per_us
        self.samples = 0  # words decoded
        self.wraps = 0  # count periods passed between two words
        self.late = 0  # words read more than _LATE_US after their push (nearly misdated)
        self.full = 0  # drains that found the FIFO full (changes may have waited)
        self.anchor(0)

    def anchor(self, t_us):
        """The state machine started at t_us: the first sample has count
        COUNT_MASK and is taken START_CYCLES later."""
        self._c = COUNT_MASK
        self._t = t_us
        self._frac = 0
        self._add_cycles(START_CYCLES)
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

    def feed(self, v, now_us):
        """One word (already >> LEVEL_SHIFT), read from the FIFO at now_us.
        Returns True if it put a ring event."""
        c = v & COUNT_MASK
        # Samples since the last word, modulo one count period: the earliest
        # date the count allows.  Whole periods are added while the word
        # would still be dated a period or more before it was read.
        self._add_cycles(((self._c - c) & COUNT_MASK) * LOOP_CYCLES)
        self._c = c
        while ticks_diff(now_us, self._t) >= self._wrap_us:
            self._add_period()
        if ticks_diff(now_us, self._t) > _LATE_US:
            self.late += 1
        self.samples += 1
        raw = (v >> COUNT_BITS) & 0xFF
        mask = (raw ^ self._all) & self._all  # pressed = 1
        if mask == self._mask:
            return False
        self._mask = mask
        self._ring.put(self._t, mask)
        return True


class PioCapture(PioDecoder):
    """The PIO capture on an rp2 board: `n` buttons on consecutive GPIOs
    from `first_pin`, pulled up, pressed = low.

        cap = PioCapture(ring, board.BUTTON_PINS[0], len(board.BUTTON_PINS))
        cap.start()      # the state machine runs; its interrupt fills the ring
        ... cap.poll()   # optional: drains what the interrupt has not

    The words are drained by a hard interrupt from the state machine (`irq`
    after each push), so they reach the ring within microseconds, in push
    order.  disable_irq/enable_irq: machine's, for poll()'s drain (the
    interrupt is the other reader).  rp2 and machine are imported here, not
    at module level, so this module loads on any board and on CPython."""

    def __init__(self, ring, first_pin, n, sm_id=0, clock=None, freq=None,
                 disable_irq=None, enable_irq=None):
        import rp2
        import machine

        if freq is None:
            freq = machine.freq()
        if freq % 1000000:
            raise ValueError("system clock must be a whole number of MHz")
        PioDecoder.__init__(self, ring, n, freq // 1000000)
        if clock is None:
            from time import ticks_us as clock
        self._clock = clock
        self._off = disable_irq or machine.disable_irq
        self._on = enable_irq or machine.enable_irq
        Pin = machine.Pin
        base = None
        for i in range(n):
            p = Pin(first_pin + i, Pin.IN, Pin.PULL_UP)
            if base is None:
                base = p  # IN_BASE: `in pins` reads from the first button
        self._sm = rp2.StateMachine(sm_id, build_program(rp2, n), freq=freq,
                                    in_base=base)
        self._isr = self._drained  # the bound method, allocated once here

    def start(self):
        # Read just before: active(1) enables the state machine early in the
        # call, and the call can take ~0.2 ms the first time.  Measured on
        # the emulated Pico, pad times come out ~7 us early against
        # ticks_us(); between pads (a race's margin) they are exact to a
        # sample.  The interrupt is attached once the anchor is set: the
        # first word (the levels at start) waits in the FIFO until then.
        t = self._clock()
        self._sm.active(1)
        self.anchor(t)
        self._sm.irq(self._isr, hard=True)

    def stop(self):
        self._sm.active(0)
        self._sm.irq(None)

    def _drained(self, sm):
        # Hard IRQ: the clock first, then every waiting word.
        self._drain(self._clock())

    def _drain(self, now):
        sm = self._sm
        n = sm.rx_fifo()
        if n >= _FIFO_DEPTH:
            self.full += 1
        while n:
            self.feed(sm.get(None, LEVEL_SHIFT), now)
            n -= 1
        return n

    def poll(self):
        """From the main loop: drain anything the interrupt left (none, when
        it runs), with interrupts off so the two readers never interleave.
        Allocates nothing."""
        if not self._sm.rx_fifo():
            return  # the usual case: the interrupt has read everything
        st = self._off()
        try:
            self._drain(self._clock())
        finally:
            self._on(st)
