# A fake `rp2` module for the MicroPython Unix port and CPython tests.
#
# asm_pio behaves like MicroPython's own (ports/rp2/modules/rp2.py): the
# decorated function runs twice with its module globals swapped for the PIO
# names, and the result is the same list layout [array("H") words, offsets,
# EXECCTRL with the wrap, SHIFTCTRL, pins...].  Only word(), label(),
# wrap_target() and wrap() are provided: speedref builds its program from
# assembled words.  StateMachine has an RX FIFO the test fills with
# _push_rx(word); get()/rx_fifo() allocate nothing, like the real ones.
from array import array


class PIO:
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2
    IN_LOW = 0
    IN_HIGH = 1
    OUT_LOW = 2
    OUT_HIGH = 3


class _Emit:
    def __init__(self, in_shiftdir=0, fifo_join=0, autopush=False, push_thresh=32, **kw):
        self.labels = {}
        self.prog = [array("H"), -1, -1, 0,
                     fifo_join << 30 | (push_thresh & 31) << 20 | in_shiftdir << 18 | autopush << 16,
                     None, None, None]
        self.wrap_used = False
        self.pass_ = 0
        self.num_instr = 0

    def start_pass(self, pass_):
        if pass_ == 1 and not self.wrap_used and self.num_instr:
            self.wrap()
        self.pass_ = pass_
        self.num_instr = 0

    def wrap_target(self):
        self.prog[3] |= self.num_instr << 7

    def wrap(self):
        assert self.num_instr
        self.prog[3] |= (self.num_instr - 1) << 12
        self.wrap_used = True

    def label(self, name):
        if self.pass_ == 0:
            self.labels[name] = self.num_instr

    def word(self, instr, label=None):
        self.num_instr += 1
        if self.pass_ > 0:
            self.prog[0].append(instr | (self.labels[label] if label is not None else 0))
        return self


def asm_pio(**kw):
    emit = _Emit(**kw)

    def dec(f):
        gl = f.__globals__
        old = gl.copy()
        gl.clear()
        for name in ("word", "label", "wrap_target", "wrap"):
            gl[name] = getattr(emit, name)
        try:
            emit.start_pass(0)
            f()
            emit.start_pass(1)
            f()
        finally:
            gl.clear()
            gl.update(old)
        return emit.prog

    return dec


def program_wrap(prog):
    """(wrap_target, wrap) as the real rp2 puts them in EXECCTRL."""
    return (prog[3] >> 7) & 31, (prog[3] >> 12) & 31


class StateMachine:
    instances = {}

    def __init__(self, sm_id, prog=None, freq=-1, in_base=None, **kw):
        self.id = sm_id
        self.prog = prog
        self.freq = freq
        self.in_base = in_base
        self.kw = kw
        self.running = False
        self.handler = None  # irq(): the state machine's interrupt handler
        self.hard = False
        # FIFO depth: 8 when the RX FIFO takes the TX FIFO's storage.
        self.depth = 8 if prog is not None and (prog[4] >> 30) == PIO.JOIN_RX else 4
        self._rx = [0] * self.depth
        self._head = 0
        self._n = 0
        StateMachine.instances[sm_id] = self

    def active(self, value=None):
        if value is None:
            return self.running
        self.running = bool(value)

    def rx_fifo(self):
        return self._n

    def irq(self, handler=None, trigger=1, hard=False):
        """The state machine's interrupt (the program's `irq 0 rel`)."""
        self.handler = handler
        self.hard = hard

    def get(self, buf=None, shift=0):
        if not self._n:
            raise RuntimeError("fake rp2: get() on an empty RX FIFO would block forever")
        w = self._rx[self._head]
        self._head = (self._head + 1) % self.depth
        self._n -= 1
        return w >> shift

    def _push_rx(self, word, irq=True):
        """Test hook: the program pushes `word` (False when the FIFO is full
        or the state machine is not running) and, with irq, raises its
        interrupt: the handler runs at once, as a hard IRQ would."""
        if self._n == self.depth or not self.running:
            return False
        self._rx[(self._head + self._n) % self.depth] = word
        self._n += 1
        if irq and self.handler is not None:
            self.handler(self)
        return True
