"""The virtual board: the firmware's own device loop, app, input path and
storage, wired to virtual hardware (sim/hardware.py) instead of `machine`.

What is the board's code here (imported from firmware/, never copied):
  the capture handler (speedref.hw.capture), the ring buffer (hw.ring), the
  input decoder (speedref.inputs), the device loop (speedref.device), the
  referee app (speedref.app), the buzzer's tone queue (speedref.hw.buzzer),
  the SSD1306 update code (speedref.hw.display), storage (speedref.storage)
  and the log (speedref.log).
What is virtual: the clock, the pins and the GPIO input register the capture
handler reads, the buzzer's PWM pin, the SSD1306 controller on its I2C bus
(sim.hardware.VirtualSSD1306 keeps its display RAM) and the USB console.

A button press is a pin level change: the virtual GPIO updates the register
and runs the capture handler exactly as a pin interrupt would, so debounce,
snapshots and ties behave as on the board.  The simulator then calls the
device loop's `step(now_us)` as the board's main loop does.
"""
import collections
import json
import os
import tempfile

from sim import compat

compat.install()

from sim.hardware import GpioRegister, VirtualClock, VirtualGPIO, VirtualPWM, VirtualSSD1306  # noqa: E402

# The virtual board is a Pico: its pin map, GPIO input register address and
# register -> button mask conversion come from the Pico board file itself
# (buttons pulled up, pressed = low).
from speedref.hw import board_pico as PICO  # noqa: E402
from speedref.device import UsbConsole  # noqa: E402

BUTTONS = 8
from speedref import games as registry  # noqa: E402

from sim.hardware import LOOP_US  # noqa: E402,F401  (the loop period; Board.run_until's default)


class VirtualConsole(UsbConsole):
    """The USB console's input side: lines the host sends (e.g. {"cmd": "dump"}),
    handed to the device loop one per readline(), never blocking.

    It is the board's own `speedref.device.UsbConsole` (a fixed LINE_MAX
    buffer; a longer line is read to its end and reported once), reading
    bytes from a queue instead of polling sys.stdin: this object is its
    stream and poller."""

    def __init__(self):
        self.pending = collections.deque()  # byte values
        UsbConsole.__init__(self, stream=self, poller=self)

    def send(self, line):
        """A line (str or bytes; the newline is added when missing)."""
        data = line.encode() if isinstance(line, str) else bytes(line)
        self.pending.extend(data if data.endswith(b"\n") else data + b"\n")

    # the stream and poller UsbConsole reads
    def poll(self, timeout_ms):
        return bool(self.pending)

    def readinto(self, buf):
        if not self.pending:
            return 0
        buf[0] = self.pending.popleft()
        return 1


# What speedref-sim's --names and --table-name give every board the run
# makes (sim/__main__.py sets them): the players' names, seat order, and
# the table's name (kept in the store's settings, as the laptop sets a board's).
NAMED = {"names": None, "table_name": None}


class Board:
    """A simulated referee device.

    root: the flash directory for the store (default: a fresh temp dir).
    realtime: follow the host clock (a person playing) instead of simulated time.
    start_us: the first ticks_us value (set it just below 2**30 to cross the wrap).
    """

    def __init__(self, root=None, realtime=False, start_us=0, seed=None, uid="sim"):
        from speedref.hw.ring import EventRing
        from speedref.storage import Store
        from speedref.log import Log
        from speedref.app.core import App

        self._tmp = None
        if root is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="speedref-sim-")
            root = self._tmp.name
        self.root = str(root)
        os.makedirs(self.root, exist_ok=True)
        self.seed = seed
        self.clock = VirtualClock(start_us=start_us, realtime=realtime)
        self.gpio = VirtualGPIO(30)  # GPIO0..29 as on an RP2040
        from speedref.hw.buzzer import Buzzer
        self.pwm = VirtualPWM(self.clock)  # what the piezo sounds: pwm.tones
        self.buzzer = Buzzer(self.pwm)  # the firmware's own non-blocking tone queue
        from speedref.hw.display import Display
        # The OLED on its I2C bus; the firmware's own display code drives it.
        self.oled = VirtualSSD1306(PICO.OLED_ADDR)
        self.display = Display(self.oled, PICO.OLED_ADDR)
        from speedref.hw.leds import PadLeds
        # The pad LEDs on the Pico's PAD_LED_PINS; the firmware's own driver sets them.
        self.leds = PadLeds([self.gpio.pin(n) for n in PICO.PAD_LED_PINS])
        self.lines = []  # the USB console: one JSON string per line
        self.on_line = None  # a viewer's callback(obj)
        self.log = Log(write=self._console)
        self.store = Store(self.root, uid=uid)
        self.app = App(self.store, self.log)
        self.app.board_name = "simulator"  # what "Check wiring" calls it
        if NAMED["table_name"] is not None:
            self.app.settings["table"] = NAMED["table_name"]
            self.store.save_settings(self.app.settings)
        if NAMED["names"] is not None:
            self.app.seated = list(NAMED["names"])  # the games start with them, no picker
        self.ring = EventRing(64)
        self.console = VirtualConsole()  # lines typed to the device over USB
        self.capture = self._make_capture()
        self.device = self._make_device()

    # -- wiring to the firmware's own modules ---------------------------------
    def _make_capture(self):
        from speedref.hw.capture import Capture
        from sim.hardware import VirtualPin
        cap = Capture(self.ring, GpioRegister(self.gpio, PICO.GPIO_IN), PICO.GPIO_IN, PICO.mask_from,
                      self.clock.ticks_us,
                      pins=[self.gpio.pin(n) for n in PICO.BUTTON_PINS],
                      trigger=VirtualPin.IRQ_FALLING | VirtualPin.IRQ_RISING,
                      hard=PICO.HARD_IRQ)
        cap.start()
        return cap

    def _make_device(self):
        try:
            from speedref import device
        except ImportError:
            return None  # step() says what is missing
        return device.Device(self.ring, self.app, self.log, store=self.store,
                             display=self.display, buzzer=self.buzzer, capture=self.capture,
                             console=self.console, leds=self.leds)

    def _console(self, s):
        for line in s.splitlines():
            if line:
                self.lines.append(line)
                if self.on_line:
                    try:
                        obj = json.loads(line)
                    except ValueError:
                        obj = {"ev": "?", "text": line}
                    self.on_line(obj)

    # -- driving it -------------------------------------------------------------
    def screen(self):
        """The 1024 bytes the OLED shows now (MONO_VLSB)."""
        return self.oled.shown()

    @property
    def lights(self):
        """The pad LEDs now, one bool per pad P1..P4 (the pins' levels)."""
        reg = self.gpio.register
        return tuple(bool((reg >> n) & 1) for n in PICO.PAD_LED_PINS)

    def now(self):
        return self.clock.ticks_us()

    def set_button(self, button, down):
        """A person presses (down=True) or lets go of a button now: the pin
        level changes and the capture interrupt runs."""
        if not 0 <= button < BUTTONS:
            raise ValueError("no button %r" % (button,))
        self.gpio.set_level(PICO.BUTTON_PINS[button], 0 if down else 1)

    def step(self):
        """One pass of the device loop at the current time."""
        if self.device is None:
            raise RuntimeError("firmware/speedref/device.py (the device loop) is missing: "
                               "the simulator runs the board's own loop and has no other")
        self.device.step(self.clock.ticks_us())

    def run_until(self, elapsed_us, loop_us=LOOP_US):
        """Simulated time: run the loop every loop_us up to elapsed_us."""
        t = self.clock.elapsed_us
        while t < elapsed_us:
            t = min(elapsed_us, (t // loop_us + 1) * loop_us)
            self.clock.advance_to(t)
            self.step()

    def event(self, elapsed_us, button, down):
        """A scripted edge at an exact simulated time."""
        self.run_until(elapsed_us)
        self.set_button(button, down)
        self.step()

    def start_game(self, game, seats=None, options=None, pick=False):
        """Start a game directly with its default options (the app's own
        entry point for it), as if chosen from the menu; `seats` players
        where the game has a choice (its "seats" option, the menu's
        Players); `options` ({key: value}) changes others, as the menu
        would.  pick: as the menu's Start starts it, through the name
        picker (app/who.py) when the board has names to offer and nobody
        seated the players; else at once."""
        if game not in registry.IDS:
            raise ValueError("unknown game %r" % (game,))
        from speedref.app import menu
        opts = dict(menu.merge_settings({})[game])
        if seats is not None:
            if "seats" not in opts:
                raise ValueError("%s seats %d players: no choice of seats" % (game, registry.get(game).seats[0]))
            opts["seats"] = seats
        for key in options or {}:
            if key not in opts:
                raise ValueError("%s has no option %r" % (game, key))
            opts[key] = options[key]
        if pick:
            from speedref.app.who import offer
            back = menu.Options(self.app, game)  # BACK at the first seat: this game's options, as set
            back.opts = dict(opts)
            if offer(self.app, game, opts, self.clock.ticks_us(), back):
                self.step()
                return
        self.app.start(game, self.clock.ticks_us(), opts)
        self.step()

    def roster(self, verb, names):
        """Put `names` on the board's roster over its USB console, in the
        lines speedref-roster sends (host_tools/board/roster.py): verb "push" makes
        them the roster, "add" adds them.  The board's own roster commands
        (speedref/roster.py) check and store them, as on a board.  Returns
        the board's roster line; ValueError with the board's refusal
        (then nothing is changed)."""
        from host_tools.board.roster import batches
        parts = batches(verb, list(names))
        answer = None
        for i, part in enumerate(parts):
            cmd = {"cmd": "roster", verb: part}
            if verb == "push":
                cmd["part"] = i
                cmd["end"] = i == len(parts) - 1
            n = len(self.lines)
            self.command(cmd)
            for line in self.lines[n:]:
                obj = json.loads(line)
                if obj.get("ev") == "error" and obj.get("what") in ("roster", "command"):
                    raise ValueError(obj.get("msg"))
                if obj.get("ev") == "roster":
                    answer = obj
        return answer

    def command(self, obj):
        """Send a command line to the device over the virtual USB console; the
        loop reads at most LINE_MAX + 1 bytes a pass, so it takes as many
        passes (at this instant) as the line needs."""
        self.console.send(json.dumps(obj) if isinstance(obj, dict) else obj)
        self.step()
        while self.console.pending:
            self.step()

    def records(self):
        return self.store.records()

    @property
    def kept(self):
        """True when the flash is the person's folder (--store DIR), False
        for the fresh temporary one that goes when the board closes."""
        return self._tmp is None

    def in_progress(self):
        """A game is saved on the flash, not over: quitting leaves it."""
        from speedref import storage
        return os.path.exists(os.path.join(self.root, storage.GAME))

    def farewell(self):
        """What a person leaving the simulator should know of the flash, in
        one line: where its records and the game in progress are (--store),
        or that they go with the temporary folder and how to keep them; None
        when it holds neither."""
        n = len(self.store.records())
        game = self.in_progress()
        recs = "%d game record%s" % (n, "" if n == 1 else "s")
        if not self.kept:
            if not n and not game:
                return None
            what = " and ".join(([recs] if n else []) + (["the game in progress"] if game else []))
            return ("the virtual board's flash was a temporary folder: %s discarded with it "
                    "(speedref-sim --store DIR keeps them)" % what)
        out = []
        if n:
            out.append("%s in %s (speedref-results import %s)" % (recs, self.root, self.root))
        if game:
            out.append("the game in progress is saved in %s: `speedref-sim --store %s` resumes it"
                       % (self.root, self.root))
        return "; ".join(out) or None

    def record_note(self):
        """Where a game's record just stored is, for a screen beside the OLED."""
        if self.kept:
            return "Game over: its record is stored in %s" % os.path.join(self.root, "rec")
        return "Game over: its record is lost when you quit (no --store: a temporary folder)"

    def close(self):
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
