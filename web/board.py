"""The referee on a web page: the firmware's own device on a virtual board,
run by MicroPython compiled to WebAssembly.

This is the browser's counterpart of sim/board.py and is wired the same way:
the firmware's capture handler (speedref.hw.capture), ring buffer, input
decoder, device loop, app, display code, buzzer tone queue, storage and log,
unchanged, on the simulator's virtual parts (sim.hardware: the GPIO register
and pins, the SSD1306 controller's display RAM, the buzzer's PWM).  The page's
JavaScript only moves things across the edge: touches and keys in, the
display RAM onto a canvas, tones to WebAudio, the flash files to the
browser's storage.

Time.  `ticks_us` is the board clock (wrapping at 2**30 like a 32-bit board)
and only moves when the page says so: in a replay every 1 ms of simulated
time and at each event, exactly as sim/board.py's run_until/event; on a live
page to the page's clock (performance.now(), the time base of every input
event's timeStamp).  A touch is an edge at the touch's own timestamp: the
capture handler reads that instant as a pin interrupt would read the clock at
the edge, even when the page hands the touch over a little later.
"""
import gc
import os

import binascii
import json

from sim.hardware import GpioRegister, VirtualGPIO, VirtualPWM, VirtualSSD1306, VirtualPin
from sim import script as script_mod
from speedref.hw import board_pico as PICO

from speedref import games as registry

BUTTONS = 8
from sim.hardware import LOOP_US  # noqa: E402  (the virtual boards' loop period, as sim/board.py's)
PERIOD = 1 << 30  # ticks_us wraps here on a 32-bit board
MASK = PERIOD - 1
ROOT = "/flash"  # the board's flash in the WebAssembly file system

# The tie window a game's "auto" setting means on a touchscreen, which the
# live page's JavaScript hands to Board: a touch panel reports contacts once
# per scan (60-240 Hz), so two hands within one 60 Hz scan (16.7 ms) cannot
# be told apart (docs/web.md).  A time a player feels, kept here and not in
# speedref/tunables.py: every real board loads the tunables, and one more
# there cost the Unix port's 64 KB heap a Long Speed Run's record block.
TOUCH_TIE_US = 17000


def game_known(game):
    """Is `game` a game id of the registry (speedref/games.py)?"""
    return game in registry.IDS


def pads_for(game, opts=None):
    """How many pads the page shows for `game`: its seats at the table, the
    count it was started with (its "seats" option, Speed's Players) or else
    the fewest of the registry's seat range (the one place the page reads them)."""
    n = (opts or {}).get("seats")
    return n if isinstance(n, int) else registry.get(game).seats[0]


class Clock:
    """The board's ticks_us, moved only by the page (never backwards)."""

    def __init__(self, start_us=0):
        self.start_us = start_us & MASK
        self.elapsed_us = 0

    def ticks_us(self):
        return (self.start_us + self.elapsed_us) & MASK

    def advance_to(self, elapsed_us):
        if elapsed_us < self.elapsed_us:
            raise ValueError("time cannot go backwards")
        self.elapsed_us = elapsed_us


class Board:
    """The referee device.  uid names its records' device ("<uid>-<install>-<n>"); tie_us is
    what a game's "auto" tie window means here."""

    def __init__(self, root=ROOT, uid="web", tie_us=None, start_us=0):
        from speedref.hw.ring import EventRing
        from speedref.hw.capture import Capture
        from speedref.hw.buzzer import Buzzer
        from speedref.hw.display import Display
        from speedref.storage import Store
        from speedref.log import Log
        from speedref.app.core import App
        from speedref.tunables import TIE_DEFAULT_US
        from speedref.device import Device

        self.clock = Clock(start_us)
        self._edge_ticks = None  # the instant of the edge being taken, or None
        self._last_edge = 0
        self.gpio = VirtualGPIO(30)
        self.pwm = VirtualPWM(self.clock)
        self.buzzer = Buzzer(self.pwm)
        self.oled = VirtualSSD1306(PICO.OLED_ADDR)
        self.display = Display(self.oled, PICO.OLED_ADDR)
        self.lines = []
        self.log = Log(write=self._console)
        self.store = Store(root, uid=uid)
        self.tie_us = TIE_DEFAULT_US if tie_us is None else tie_us
        self.app = App(self.store, self.log, tie_us=self.tie_us)
        self.app.board_name = "web"  # what "Check wiring" calls it (the boot line's board)
        self.ring = EventRing(64)
        self.capture = Capture(self.ring, GpioRegister(self.gpio, PICO.GPIO_IN), PICO.GPIO_IN, PICO.mask_from,
                               self._capture_ticks,
                               pins=[self.gpio.pin(n) for n in PICO.BUTTON_PINS],
                               trigger=VirtualPin.IRQ_FALLING | VirtualPin.IRQ_RISING,
                               hard=PICO.HARD_IRQ)
        self.capture.start()
        self.device = Device(self.ring, self.app, self.log, store=self.store,
                             display=self.display, buzzer=self.buzzer, capture=self.capture)
        # The page draws the canvas and starts the tones first, then calls
        # commit(): the log lines and the save (the board's order: what the
        # players see before the flash, docs/web.md).
        self.device.defer_commit = True
        self._shown = -1  # oled.updates when the page last took the screen
        self._flash = None  # what the flash looked like when the page last saved it
        self._tone = 0  # tones handed to the page so far
        self._flow = None  # the game the page last took from game_started()

    def _capture_ticks(self):
        # A pin interrupt reads the clock at the edge: the edge's own instant.
        t = self._edge_ticks
        return self.clock.ticks_us() if t is None else t

    def _console(self, s):
        for line in s.splitlines():
            if line:
                self.lines.append(line)

    # -- driving it ----------------------------------------------------------
    def step(self):
        self.device.step(self.clock.ticks_us())

    def commit(self):
        """The log lines and the save the passes since the last call made
        (the page calls it once it has drawn what they showed)."""
        self.app.commit()

    def run_until(self, elapsed_us):
        """Run the loop every LOOP_US of board time up to elapsed_us."""
        t = self.clock.elapsed_us
        while t < elapsed_us:
            t = min(elapsed_us, (t // LOOP_US + 1) * LOOP_US)
            self.clock.advance_to(t)
            self.step()

    def edge(self, elapsed_us, button, down):
        """A button edge at board time elapsed_us (the loop is run up to it
        first).  An edge handed over after the loop has passed its instant is
        still captured at that instant (as a pin interrupt's timestamp is
        older than the loop pass that drains it), but never before an edge
        already taken: the ring stays in time order."""
        if not 0 <= button < BUTTONS:
            raise ValueError("no button %r" % (button,))
        if elapsed_us < self._last_edge:
            elapsed_us = self._last_edge
        self._last_edge = elapsed_us
        self.run_until(elapsed_us)
        self._edge_ticks = (self.clock.start_us + elapsed_us) & MASK
        try:
            self.gpio.set_level(PICO.BUTTON_PINS[button], 0 if down else 1)
        finally:
            self._edge_ticks = None
        self.step()

    def start_game(self, game, seats=None):
        """Start a game with its default options, as if chosen from the menu;
        `seats` players where the game has a choice (its "seats" option, the
        menu's Players)."""
        if game not in registry.IDS:
            raise ValueError("unknown game %r" % (game,))
        from speedref.app import menu
        opts = dict(menu.merge_settings({})[game])
        if seats is not None:
            if "seats" not in opts:
                raise ValueError("%s has no choice of seats" % (game,))
            opts["seats"] = seats
        self.app.start(game, self.clock.ticks_us(), opts)
        self.step()

    def boot_line(self):
        self.log.emit({"ev": "boot", "board": "web", "capture": "touch",
                       "tie_us": self.tie_us, "platform": "webassembly"})

    # -- what the page takes from it -------------------------------------------
    def take_lines(self):
        """The log lines printed since the last call, one per line."""
        if not self.lines:
            return ""
        s = "\n".join(self.lines)
        self.lines = []
        return s

    def screen_hex(self):
        """The 1024 bytes the OLED shows (MONO_VLSB), as hex."""
        return binascii.hexlify(self.oled.shown()).decode()

    def new_screen(self):
        """screen_hex() when the panel changed since the last call, else ""."""
        if self.oled.updates == self._shown:
            return ""
        self._shown = self.oled.updates
        return self.screen_hex()

    def take_tones(self):
        """Tones started or ended since the last call: "start_us,freq,len"
        per line (len -1 while sounding); finished ones are forgotten."""
        tones = self.pwm.tones
        out = []
        for t in tones:
            out.append("%d,%d,%d" % (t[0], t[1], -1 if t[2] is None else t[2]))
        while tones and tones[0][2] is not None:
            tones.pop(0)
        return "\n".join(out)

    def flash_changed(self):
        """True once after each change of the flash files (a save, a record,
        a game cleared): then the page copies them to the browser's storage."""
        sig = (self.store.writes, _names(self.store.root))
        if sig == self._flash:
            return False
        self._flash = sig
        return True

    def game_started(self):
        """The pads for a game started (or resumed) since the last call, or 0."""
        f = self.app.flow
        if f is self._flow:
            return 0
        self._flow = f
        return 0 if f is None else pads_for(f.GAME, getattr(f, "opts", None))

    def newest_record_json(self):
        """The newest stored record as JSON ("null" when none is stored)."""
        newest = None
        for rec in self.store.iter_records():
            newest = rec
        return json.dumps(newest)

    def records_jsonl(self):
        """Every stored record as a log line ("stored", as a dump sends them:
        speedref-log reads the file), oldest first."""
        out = []
        for rec in self.store.iter_records():
            out.append(json.dumps({"ev": "stored", "record": rec}))
        return "\n".join(out)

    # -- the players' and the table's names (docs/web.md, "Names") ----------
    def names_json(self):
        """{"table", "default", "roster", "seated"} for the page's name fields."""
        from speedref import names as N
        from speedref import roster as R
        roster = R.load(self.app)
        return json.dumps({"table": R.table_name(self.app), "default": N.table_name({}, self.store.install),
                           "roster": roster["names"], "seated": self.app.seated})

    def set_names(self, table, seated_json, roster_text):
        """The page's name fields: the table's name ("" for the default),
        the seats' names (a JSON list, "" for a seat picked on the device or
        a Guest), the roster (one name a line).  Every name is checked with
        the board's own check (speedref/names.py) before anything changes,
        and a changed roster goes to the device as a board gets it from
        speedref-roster push: its console's roster command
        (speedref/roster.py), which checks and stores it.  "" when all were
        taken, else why not (nothing changed)."""
        from speedref import names as N
        from speedref import roster as R
        try:
            t = N.clean_table(table) if table.strip(" ") else None
            seated = json.loads(seated_json)
            if not isinstance(seated, list) or len(seated) > 4:
                return "seats: four names at most"
            filled = [x.strip(" ") if isinstance(x, str) else x for x in seated]
            if any(filled):
                seated = N.check_game([x or N.GUEST for x in filled])
            else:
                seated = None
            names = []
            seen = set()  # folded: one person whatever the case, found at once in a long paste
            lines = roster_text.splitlines()
            for i in range(len(lines)):
                line = lines[i].strip(" \t")
                if not line:
                    continue
                try:
                    n = N.clean(line)
                except N.BadName as e:
                    return "roster line %d: %s" % (i + 1, e)
                if n.lower() not in seen:
                    seen.add(n.lower())
                    names.append(n)
            if len(names) > N.ROSTER_MAX:
                return "the roster holds %d names at most, not %d" % (N.ROSTER_MAX, len(names))
        except N.BadName as e:
            return str(e)
        if R.load(self.app)["names"] != names:
            why = self._push(names)
            if why:
                return why
        settings = self.app.settings
        if t != settings.get("table"):
            if t is None:
                settings.pop("table", None)
            else:
                settings["table"] = t
            self.store.save_settings(settings)
        self.app.seated = seated
        return ""

    def _push(self, names):
        """`names` become the roster through the device's console, in the
        lines speedref-roster push sends (each within the console's
        LINE_MAX, numbered parts, the last one "end"): "" when the device
        took them, else its refusal (the roster stays as it was)."""
        from speedref.device import LINE_MAX
        parts = [[]]
        for n in names:
            trial = parts[-1] + [n]
            line = json.dumps({"cmd": "roster", "push": trial, "part": 99, "end": False})
            if parts[-1] and len(line) > LINE_MAX - 8:
                parts.append([n])
            else:
                parts[-1] = trial
        for i in range(len(parts)):
            first = len(self.lines)
            self.device.command(json.dumps({"cmd": "roster", "push": parts[i], "part": i,
                                            "end": i == len(parts) - 1}))
            for line in self.lines[first:]:
                obj = json.loads(line)
                if obj.get("ev") == "error":
                    return str(obj.get("msg"))
        return ""

    def heap(self):
        return heap()


def heap():
    """Live MicroPython heap after a collection (bytes)."""
    gc.collect()
    return gc.mem_alloc()


def _names(root):
    out = []
    for d in ("", "/rec"):
        try:
            for n in os.listdir(root + d):
                out.append(d + "/" + n)
        except OSError:
            pass
    out.sort()
    return " ".join(out)


class Replay:
    """A script (the speedref-sim --script format) replayed in simulated
    time, as `speedref-sim --script FILE --game G` runs it: the loop's first
    pass, the game started (with its '# seats: N' header's players), each event at its exact microsecond, then 2 s
    more.  run(n) plays at most n events and says whether it is done, so
    the page stays responsive; measure=True collects and measures the live heap
    after every event (peak in .peak)."""

    def __init__(self, text, game=None, root=ROOT, uid="sim", measure=False):
        self.measure = measure
        self.peak = 0
        self.base = heap() if measure else 0  # the runtime and the script's text
        self.events = script_mod.parse(text)
        self.script = (heap() - self.base) if measure else 0  # the parsed events
        self.board = Board(root=root, uid=uid)
        self.board.step()
        if game:
            # a '# seats: N' header plays N players, as speedref-sim --script does
            self.board.start_game(game, script_mod.header_seats(text))
        self.i = 0
        self.done = False
        self._measure()

    def _measure(self):
        if self.measure:
            h = heap()
            if h > self.peak:
                self.peak = h

    def run(self, n):
        b = self.board
        ev = self.events
        while n > 0 and self.i < len(ev):
            t_us, button, down, _ = ev[self.i]
            b.edge(t_us, button, down)
            b.commit()
            self.i += 1
            n -= 1
            self._measure()
        if self.i >= len(ev) and not self.done:
            b.run_until((ev[-1][0] if ev else 0) + 2000000)
            b.commit()
            self._measure()
            self.done = True
        return self.done
