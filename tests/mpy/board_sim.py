# A scripted "board" for whole-device tests: the real device loop
# (speedref.device.Device) wired the way speedref/wiring.build() wires a board,
# except that time is a simulated clock the script moves forward.
#
#   fake machine Pins (tests/fakes/machine.py, GPIO numbers from board_pico)
#     -> hw/capture.Capture's handler (fired by Pin.drive, reading the whole
#        fake GPIO_IN register and this clock) -> hw/ring.EventRing
#     -> Device.step(now_us): ring drain -> inputs.Inputs -> app.core.App
#     -> Display (SSD1306 page diff over the fake I2C), Buzzer (fake PWM),
#        Log (JSON lines on stdout), Store (a directory given by the test).
#
# Runs under the MicroPython Unix port (firmware as .mpy) and on CPython.
# The clock starts just before THIS runtime's ticks wrap (ticks_add(0, -x)):
# 2**62 on the 64-bit Unix port, 2**30 on CPython's speedref.ticks, like a
# 32-bit board), so every game crosses a wrap.
import io
import json
import sys

import machine
from speedref.ticks import ticks_add
from speedref.hw import board_pico as board
from speedref.hw.capture import Capture
from speedref.hw.ring import EventRing
from speedref.hw.display import Display
from speedref.hw.buzzer import Buzzer
from speedref.device import Device
from speedref.storage import Store
from speedref.log import Log
from speedref.app.core import App, UP, DOWN, OK

MS = 1000
STEP_US = 4 * MS        # one device loop pass every 4 ms of simulated time
TAP_US = 40 * MS        # a tap: pressed this long (the debounce is 10 ms) ...
GAP_US = 40 * MS        # ... then released this long
START_BEFORE_WRAP_US = 2500 * MS
LINE = 512              # the harness reads this much of each log line


class TeeLog(io.IOBase):
    """The firmware's Log streaming JSON lines to stdout (what speedref-log
    reads on the USB serial port; the test parses them there).  The script
    itself keeps only what it needs to follow the game, in a fixed buffer:
    the first LINE bytes of the current line, the count of lines per "ev",
    and the parsed lines of the kinds in `keep_kinds` (none by default:
    anything the harness keeps is heap the device would not have)."""

    def __init__(self, echo=True, keep_kinds=()):
        self.echo = echo
        self.kinds = keep_kinds
        self.keep = []
        self.counts = {}
        self._line = bytearray(LINE)
        self._n = 0
        self._log = Log(stream=self)  # streamed, exactly as on the board

    def write(self, piece):
        # json.dump hands MicroPython streams short bytearrays it reuses
        # (copy now or never), CPython streams str pieces.
        if isinstance(piece, str):
            piece = piece.encode()
        if self.echo:
            sys.stdout.buffer.write(piece)
        if piece == b"\n":  # raw newlines only end lines: JSON escapes its own
            self._end_line()
            return 1
        n, m = self._n, len(piece)
        if n + m <= LINE:
            self._line[n:n + m] = piece
        self._n = n + m
        return m

    def _end_line(self):
        n = self._n
        self._n = 0
        head = bytes(self._line[:min(n, LINE)])
        i = head.find(b'"ev": "')
        ev = head[i + 7:head.find(b'"', i + 7)].decode() if i >= 0 else "?"
        self.counts[ev] = self.counts.get(ev, 0) + 1
        if ev in self.kinds and n <= LINE:
            self.keep.append(json.loads(head))

    def emit(self, obj):
        self._log.emit(obj)

    def of(self, ev):
        return [x for x in self.keep if x.get("ev") == ev]


class Board:
    def __init__(self, root, uid="e6614c31", t_us=None, echo=True, step_us=STEP_US):
        self.t = t_us if t_us is not None else ticks_add(0, -START_BEFORE_WRAP_US)
        self.t0 = self.t
        self.step_us = step_us
        self.root = root
        self.uid = uid
        machine.reset_fakes()
        Pin = machine.Pin
        # Pull-ups: a released button reads 1, board_pico.mask_from inverts.
        self.pins = [Pin(n, Pin.IN, Pin.PULL_UP) for n in board.BUTTON_PINS]
        self.ring = EventRing(64, machine.disable_irq, machine.enable_irq)
        self.capture = Capture(self.ring, machine.mem32, board.GPIO_IN, board.mask_from,
                               self._clock, self.pins, trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING,
                               hard=board.HARD_IRQ, disable_irq=machine.disable_irq,
                               enable_irq=machine.enable_irq)
        self.capture.start()
        self.i2c = machine.I2C(board.I2C_ID)
        self.i2c.record = False  # a board's bus copies nothing into the heap
        self.display = Display(self.i2c, board.OLED_ADDR)
        self.pwm = machine.PWM(machine.Pin(board.BUZZER_PIN))
        self.buzzer = Buzzer(self.pwm)
        self.log = TeeLog(echo)
        self.boot()

    def _clock(self):
        return self.t  # the capture handler's ticks_us()

    def boot(self):
        """Power on (or a power cut): a new Store, App and Device on the same
        flash directory, pins and clock."""
        self.store = Store(self.root, uid=self.uid)
        self.app = App(self.store, self.log)
        self.device = Device(self.ring, self.app, self.log, store=self.store,
                             display=self.display, buzzer=self.buzzer, capture=self.capture)
        self.device.step(self.t)

    # ---- time ---------------------------------------------------------------
    def wait(self, us):
        """Let `us` pass, the device loop running every step_us."""
        while us > 0:
            d = self.step_us if us > self.step_us else us
            self.t = ticks_add(self.t, d)
            us -= d
            self.device.step(self.t)
        # The fake PWM keeps every call; a board keeps none.
        del self.pwm.calls[:]

    # ---- a person at the table ---------------------------------------------
    def press(self, b):
        self.pins[b].drive(0)  # to GND: the interrupt fires, the handler reads the clock

    def release(self, b):
        self.pins[b].drive(1)

    def tap(self, b, hold_us=TAP_US, gap_us=GAP_US):
        self.press(b)
        self.wait(hold_us)
        self.release(b)
        self.wait(gap_us)

    def taps(self, b, n):
        for _ in range(n):
            self.tap(b)

    def hold_both(self, a, b, us=700 * MS):
        """Two pads held together (stuck calls), then both let go."""
        self.press(a)
        self.wait(100 * MS)
        self.press(b)
        self.wait(us)
        self.release(a)
        self.release(b)
        self.wait(GAP_US)

    # ---- what is on screen (read like a person reads the OLED) --------------
    def screen_name(self):
        return type(self.app.screen).__name__

    def settings(self, game):
        return self.app.settings[game]


def choose_game(bd, game, opts):
    """From the boot screen or the game list, through the menu to `game`
    with `opts` (a person stepping the option values with OK), then Start."""
    from speedref import games
    if bd.screen_name() == "Boot":
        bd.tap(OK)
    if bd.screen_name() != "Games":
        raise RuntimeError("not on the game list: " + bd.screen_name())
    n = len(games.IDS)
    steps = (games.IDS.index(game) - bd.app.screen.cursor) % n
    bd.taps(DOWN, steps)
    bd.tap(OK)
    cur = bd.settings(game)
    row = 0
    for i, (key, label, values) in enumerate(games.get(game).options):
        want = opts.get(key, cur[key])
        k = (values.index(want) - values.index(cur[key])) % len(values)
        if k:
            bd.taps(DOWN, i + 1 - row)
            row = i + 1
            bd.taps(OK, k)
    if row:
        bd.taps(UP, row)  # back to "Start" (the list wraps, UP is the short way)
    bd.tap(OK)


def game_end(bd):
    """The newest record on the flash (the test compares it with the
    game_end line the device printed on stdout), read one at a time."""
    rec = None
    for rec in bd.store.iter_records():
        pass
    return rec


def report(obj):
    """Lines the pytest side picks out of stdout: one per key, so no single
    huge string has to fit the heap."""
    for k in obj:
        sys.stdout.write("RESULT ")
        sys.stdout.write(json.dumps([k, obj[k]]))
        sys.stdout.write("\n")
