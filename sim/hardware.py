"""The virtual parts of the simulated board: clock, pins and GPIO register,
buzzer, display.  sim/board.py wires them to the firmware's own capture
handler, ring buffer, input decoder, device loop and app.

Everything here mimics the board's behaviour where the firmware can see it:
ticks_us wraps at 2**30 like a 32-bit board, pins are pulled up (a pressed
button reads 0), the GPIO input register is one word read all at once.
"""
import time

PERIOD = 1 << 30  # ticks_us wraps here on 32-bit boards (about 17.9 minutes)
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

    def value(self, v=None):
        if v is None:
            return (self.gpio.register >> self.num) & 1
        self.gpio.set_level(self.num, v)
        return None

    def __call__(self, v=None):
        return self.value(v)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False, **kw):
        self.handler = handler
        self.trigger = trigger
        return self

    def __repr__(self):
        return "VirtualPin(%d)" % self.num


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


class VirtualDisplay:
    """The SSD1306 as the device loop sees it: it receives whole frames.

    `frame` is a copy of the last 1024 bytes shown; `frames` counts updates;
    `bytes_sent` counts what an I2C display would have been sent.
    """

    WIDTH = 128
    HEIGHT = 64

    def __init__(self):
        self.frame = bytes(1024)
        self.frames = 0
        self.bytes_sent = 0
        self.on_frame = None  # a viewer's callback(frame)

    def show(self, buf):
        self.frame = bytes(buf)
        self.frames += 1
        self.bytes_sent += len(self.frame)
        if self.on_frame:
            self.on_frame(self.frame)
