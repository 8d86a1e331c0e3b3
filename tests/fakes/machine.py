# A fake `machine` for the MicroPython Unix port (first on MICROPYPATH, it
# replaces the port's own small `machine`).  Tests drive pin levels and fire
# the registered handlers; mem32 holds the GPIO input register the pins make.
# Works on CPython too.
#
# mem32 is a dict, not a class with __getitem__: a dict lookup allocates
# nothing, so a hard-IRQ handler reading it runs fine under heap_lock().

GPIO_IN_ADDRS = (0xD0000004, 0x3FF4403C)  # rp2 SIO GPIO_IN, ESP32 GPIO_IN_REG
mem32 = {}
mem16 = {}  # the low half-words of the same registers
for _a in GPIO_IN_ADDRS:
    mem32[_a] = 0
    mem16[_a] = 0
_preset = {}  # pin id -> level it has when created (a button held at power-up)
_reg = [0]  # levels of every fake pin, bit n = GPIOn

_pins = {}
irq_state = [0]  # disable depth, checked by tests
resets = [0]


class ResetCalled(Exception):
    """machine.reset() in tests: ends the program instead of rebooting."""


def _set_reg(v):
    _reg[0] = v
    for a in GPIO_IN_ADDRS:
        mem32[a] = v
        mem16[a] = v & 0xFFFF


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = mode
        self.pull = pull
        self.handler = None
        self.trigger = 0
        self.hard = None
        self.irq_calls = 0
        self._configured = False
        self._flags = 0  # edges latched for the handler now running
        _pins[id] = self
        if value is not None:
            self._level(value)
        elif id in _preset:
            self._level(_preset[id])
        elif pull == Pin.PULL_UP:
            self._level(1)
        else:
            self._level(0)

    def _level(self, v):
        if v:
            _set_reg(_reg[0] | (1 << self.id))
        else:
            _set_reg(_reg[0] & ~(1 << self.id))

    def value(self, v=None):
        if v is None:
            return (_reg[0] >> self.id) & 1
        self._level(v)

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self._level(1)

    def off(self):
        self._level(0)

    def irq(self, handler=None, trigger=12, hard=False):
        """As on a board: with no arguments, the irq object as it is (its
        flags() are the edges latched for the handler now running)."""
        if handler is None and trigger == 12 and hard is False and self._configured:
            return self
        self.handler = handler
        self.trigger = trigger
        self.hard = hard
        self.irq_calls += 1
        self._configured = handler is not None
        return self

    def flags(self):
        return self._flags

    # --- test side ---
    def drive(self, level, fire=True):
        """Set the pin's level like a contact would; fire the handler on a
        matching edge (as the hardware would raise the interrupt)."""
        old = self.value()
        self._level(level)
        if fire and old != level and self.handler:
            edge = Pin.IRQ_RISING if level else Pin.IRQ_FALLING
            if self.trigger & edge:
                self._flags = edge
                self.handler(self)

    def tap_while_held_off(self):
        """Both edges while interrupts were off (a flash erase): the level
        ends where it was and the handler then runs once with both flags."""
        self._flags = (Pin.IRQ_FALLING | Pin.IRQ_RISING) & self.trigger
        if self.handler:
            self.handler(self)


def pin(id):
    """The fake Pin object made for GPIO id (tests)."""
    return _pins[id]


def set_levels(mask_of_pins, level):
    """Change several pins at once WITHOUT firing (pads pressed within one
    handler latency); the test then fires one pin's handler."""
    for i in range(32):
        if mask_of_pins >> i & 1 and i in _pins:
            _pins[i]._level(level)


def preset(id, level):
    """Pin `id` reads `level` from power-up on (e.g. OK held down: 0)."""
    _preset[id] = level


def reset_fakes():
    _pins.clear()
    _preset.clear()
    _set_reg(0)
    irq_state[0] = 0


def disable_irq():
    irq_state[0] += 1
    return irq_state[0]


def enable_irq(state=0):
    irq_state[0] -= 1


def reset():
    resets[0] += 1
    raise ResetCalled()


def soft_reset():
    reset()


def unique_id():
    return b"\xe6\x61\x4c\x31\x03\x2a\x5b\x2e"


def freq(f=None):
    return 125000000


class I2C:
    def __init__(self, id=0, scl=None, sda=None, freq=400000, timeout=None):
        self.id = id
        self.timeout = timeout  # None: the port's default (tests check build() sets it)
        self.writes = []  # (addr, bytes) per transaction, while record is True
        self.record = True  # False: only count, copying nothing (a board's bus keeps nothing)
        self.bytes_sent = 0

    def scan(self):
        return [0x3C]

    def writeto(self, addr, buf, stop=True):
        if self.record:
            self.writes.append((addr, bytes(buf)))
        self.bytes_sent += len(buf)
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        # a whole frame is one transaction: joined only when it is kept (a
        # 1 KB copy a board never makes, in a heap as tight as the board's)
        if self.record:
            b = b"".join(bytes(v) for v in vector)
            self.writes.append((addr, b))
            self.bytes_sent += len(b)
            return len(b)
        n = 0
        for v in vector:
            n += len(v)
        self.bytes_sent += n
        return n

    def writeto_mem(self, addr, memaddr, buf):
        self.writeto(addr, bytes([memaddr]) + bytes(buf))


class SoftI2C(I2C):
    pass


class PWM:
    def __init__(self, pin, freq=0, duty_u16=0):
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16
        self.calls = []

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f
        self.calls.append(("freq", f))

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        self._duty = d
        self.calls.append(("duty", d))

    def deinit(self):
        self.calls.append(("deinit",))
