"""The virtual parts of the simulated board: clock, pins and GPIO register,
buzzer, display.  sim/board.py wires them to the firmware's own capture
handler, ring buffer, input decoder, device loop and app.

Everything here mimics the board's behaviour where the firmware can see it:
ticks_us wraps at 2**30 like a 32-bit board, pins are pulled up (a pressed
button reads 0), the GPIO input register is one word read all at once.
"""
import time

PERIOD = 1 << 30  # ticks_us wraps here on 32-bit boards (about 17.9 minutes)
# How often a virtual board's main loop runs in simulated time (this
# simulator's and the web page's replays): every 1 ms, the board's own pace
# while anything happens (speedref.device.Device.run: a pass, then a 1 ms
# sleep).  Finer than any timing the app shows (countdowns, tie windows);
# events are stepped at their own exact microsecond in addition.  The
# virtual tables pass less often where nothing is timed finer
# (sim/table/base.Table.PASS_US).
LOOP_US = 1000
MASK = PERIOD - 1


class VirtualClock:
    """ticks_us for the simulated board.

    Simulated (the default): time only moves when the simulator says so
    (`advance_to`, `advance`), so scripts and tests are deterministic.
    Real time (`realtime=True`): ticks follow the host's monotonic clock, for
    a person playing.  `elapsed_us` never wraps; `ticks_us()` does, starting
    at `start_us` (start just before the wrap to prove the firmware copes).
    """

    def __init__(self, start_us=0, realtime=False):
        self.start_us = start_us & MASK
        self.realtime = realtime
        self._elapsed = 0
        self._t0 = time.monotonic_ns()

    @property
    def elapsed_us(self):
        if self.realtime:
            return (time.monotonic_ns() - self._t0) // 1000
        return self._elapsed

    def ticks_us(self):
        return (self.start_us + self.elapsed_us) & MASK

    def ticks_ms(self):
        return (self.ticks_us() // 1000) & MASK

    def advance_to(self, elapsed_us):
        if self.realtime:
            raise RuntimeError("a real-time clock cannot be moved")
        if elapsed_us < self._elapsed:
            raise ValueError("time cannot go backwards")
        self._elapsed = elapsed_us

    def advance(self, us):
        self.advance_to(self._elapsed + us)


class VirtualPin:
    """The part of machine.Pin the capture path uses: value() and irq()."""

    IN = 0
    OUT = 1
    PULL_UP = 1
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, gpio, num):
        self.gpio = gpio
        self.num = num
        self.handler = None
        self.trigger = 0
        self.edge = 0

    def value(self, v=None):
        if v is None:
            return (self.gpio.register >> self.num) & 1
        self.gpio.set_level(self.num, v)
        return None

    def __call__(self, v=None):
        return self.value(v)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False, **kw):
        """As on a board: with no arguments, the irq object as it is."""
        if handler is None and not kw and trigger == self.IRQ_FALLING | self.IRQ_RISING \
                and hard is False and self.handler is not None:
            return self
        self.handler = handler
        self.trigger = trigger
        return self

    def flags(self):
        """The edges latched for the handler now running: the virtual GPIO
        runs it at every edge, so only that one."""
        return self.edge

    def __repr__(self):
        return "VirtualPin(%d)" % self.num


class GpioRegister:
    """machine.mem32 (or mem16) for the capture handler on a virtual board:
    reading the GPIO input address gives the virtual register, as the
    handler reads it on a Pico."""

    def __init__(self, gpio, addr):
        self._gpio = gpio
        self._addr = addr

    def __getitem__(self, addr):
        if addr != self._addr:
            raise ValueError("the virtual board maps only GPIO_IN, not 0x%x" % addr)
        return self._gpio.register


class VirtualGPIO:
    """A bank of pulled-up input pins and the input register that shows them.

    Setting a level changes the register first and then runs the pin's
    interrupt handler (if one is registered for that edge), as the hardware
    does: the handler then reads the register and sees the new level.
    """

    def __init__(self, npins=32):
        self.pins = [VirtualPin(self, n) for n in range(npins)]
        self.register = (1 << npins) - 1  # pull-ups: every input reads 1
        self.irq_calls = 0

    def read_register(self):
        return self.register

    def pin(self, num):
        return self.pins[num]

    def set_level(self, num, level):
        bit = 1 << num
        old = self.register & bit
        self.register = (self.register | bit) if level else (self.register & ~bit)
        if old == (self.register & bit):
            return  # no edge, no interrupt
        p = self.pins[num]
        edge = VirtualPin.IRQ_RISING if level else VirtualPin.IRQ_FALLING
        if p.handler is not None and p.trigger & edge:
            self.irq_calls += 1
            p.edge = edge
            p.handler(p)


class VirtualPWM:
    """The buzzer's PWM pin (machine.PWM's freq() and duty_u16()).

    The firmware's own tone queue (speedref.hw.buzzer.Buzzer) drives it; this
    records what a piezo would sound: `tones` is a list of
    [start_elapsed_us, freq_hz, length_us or None while sounding].
    """

    def __init__(self, clock):
        self.clock = clock
        self._freq = 0
        self._duty = 0
        self.tones = []
        self.on_tone = None  # a viewer's callback(freq_hz) when a tone starts

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f
        return None

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        now = self.clock.elapsed_us
        if d and not self._duty:
            self.tones.append([now, self._freq, None])
            if self.on_tone:
                self.on_tone(self._freq)
        elif self._duty and not d and self.tones and self.tones[-1][2] is None:
            self.tones[-1][2] = now - self.tones[-1][0]
        self._duty = d
        return None

    def deinit(self):
        self.duty_u16(0)


# SSD1306 commands that take argument bytes, and how many.
_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0xA8: 1, 0xD3: 1, 0xDA: 1, 0xD5: 1,
         0xD9: 1, 0xDB: 1, 0x8D: 1}


class VirtualSSD1306:
    """An SSD1306 128x64 on a virtual I2C bus (machine.I2C's writeto and
    writevto), driven by the firmware's own display code (hw/display.py).

    It keeps the controller's display RAM: commands set the column and page
    window (horizontal addressing, as the firmware configures it), data bytes
    land in RAM and advance the address with wrap-around, as the chip does.
    `frame` is the 1024-byte RAM in MONO_VLSB layout, what the panel shows
    (a standard module: column and COM remap undo each other).  Also tracked:
    display on/off and inverse, bytes received, data updates.
    """

    WIDTH = 128
    HEIGHT = 64

    def __init__(self, addr=0x3C):
        self.addr = addr
        self.ram = bytearray(1024)
        self.on = False
        self.inverse = False
        self.bytes_received = 0
        self.updates = 0  # data transfers
        self._cmd = []  # a command waiting for its argument bytes
        self._col = (0, 127)
        self._page = (0, 7)
        self._c = 0
        self._p = 0
        self.on_frame = None  # a viewer's callback(frame) after each data transfer

    @property
    def frame(self):
        return bytes(self.ram)

    # -- machine.I2C ---------------------------------------------------------
    def writeto(self, addr, buf, stop=True):
        self.writevto(addr, [buf], stop)
        return None

    def writevto(self, addr, vector, stop=True):
        if addr != self.addr:
            raise OSError(19, "ENODEV: no device at 0x%x" % addr)  # a NACK, as on a board
        data = b"".join(bytes(v) for v in vector)
        self.bytes_received += len(data)
        if not data:
            return None
        ctrl = data[0]
        rest = data[1:]
        if ctrl & 0x40:  # D/C# = 1: display RAM
            self._data(rest)
        elif ctrl & 0x80:  # Co = 1: one command byte per control byte
            for i in range(0, len(rest)):
                if i % 2 == 0:
                    self._command(rest[i])
        else:  # a stream of command bytes
            for c in rest:
                self._command(c)
        return None

    # -- the controller --------------------------------------------------------
    def _command(self, c):
        self._cmd.append(c)
        need = _ARGS.get(self._cmd[0], 0)
        if len(self._cmd) <= need:
            return
        op = self._cmd[0]
        args = self._cmd[1:]
        self._cmd = []
        if op == 0x21:
            self._col = (args[0] & 0x7F, args[1] & 0x7F)
            self._c = self._col[0]
        elif op == 0x22:
            self._page = (args[0] & 7, args[1] & 7)
            self._p = self._page[0]
        elif op in (0xAE, 0xAF):
            self.on = op == 0xAF
        elif op in (0xA6, 0xA7):
            self.inverse = op == 0xA7

    def _data(self, data):
        for b in data:
            self.ram[self._p * 128 + self._c] = b
            if self._c >= self._col[1]:
                self._c = self._col[0]
                self._p = self._page[0] if self._p >= self._page[1] else self._p + 1
            else:
                self._c += 1
        self.updates += 1
        if self.on_frame:
            self.on_frame(self.frame)

    def shown(self):
        """What a person sees: the RAM, dark when off, inverted when inverse."""
        if not self.on:
            return bytes(1024)
        if self.inverse:
            return bytes(b ^ 0xFF for b in self.ram)
        return bytes(self.ram)
