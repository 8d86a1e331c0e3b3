"""The referee firmware on the emulated Pico, driven as a person would.

`Referee` boots MicroPython's rp2 firmware with speedref on its flash (the
.mpy files speedref-flash installs, or a frozen image), lets main.py build
the device, and turns script events into pin levels at exact simulated
instants: pads through the PIO capture, nav buttons through the hard pin
interrupt.  What the board says comes back over USB CDC as the log's JSON
lines; what it shows, through the I2C model.

`run_script()` is speedref-emu --script: the same script format, flags and
output as speedref-sim --script.  docs/emulator.md lists what may differ
from the simulator's output, and why.
"""
import json

from emu import fs as emu_fs
from emu import images
from emu.board import Pico, BoardError, NS_PER_US

SHOT_BEFORE_US = 1000  # a screen is taken this long before the next event
BOOT_LIMIT_US = 3000000

# Started in place of main.py's own wiring when a game is named: the same
# device, the same loop (Device.run), the game chosen as the simulator's
# start_game chooses it (its default options).  Built inside a function, as
# main.py builds it: the REPL's globals keep no module the device itself
# lets go of (the boot's wiring, the menu while a game runs).
_START_GAME = """
import time
def _start():
    from speedref import wiring
    from speedref.app import menu
    d = wiring.build()
    d.step(time.ticks_us())
    o = dict(menu.merge_settings({})[%r])
    o.update(%r)
    d.app.start(%r, time.ticks_us(), o)
    return d
_d = _start()
print('\\x06')
_d.run(time.ticks_us, time.sleep_ms)
"""


class Referee:
    def __init__(self, firmware=None, store_files=None, frozen=False, pico=None, trace=False):
        """firmware: a UF2 (default: the stock image, speedref copied onto
        its filesystem; frozen=True: speedref-pico-RPI_PICO.uf2 with only main.py
        on the filesystem).  store_files: extra files for the flash, e.g.
        a store to resume from ({"/data/game.json": b"..."}).  trace: the
        board records what it does in order (emu/board.py Pico.trace)."""
        if pico is not None:
            self.pico = pico
        else:
            if frozen:
                firmware = firmware or images.frozen_firmware()
                files = emu_fs.main_only()
            else:
                files = emu_fs.speedref_files()
            files.update(store_files or {})
            self.pico = Pico(firmware=firmware, fs_image=emu_fs.image(files), trace=trace)
        self.lines = []  # the log, one parsed JSON object a line
        self.other = []  # anything else the board printed (REPL, tracebacks)
        self._partial = b""
        self.pico.on_serial = self._serial
        self.on_line = None

    def _serial(self, data):
        buf = self._partial + data
        *whole, self._partial = buf.split(b"\n")
        for raw in whole:
            text = raw.decode("utf-8", "replace").strip("\r")
            if text.startswith("{"):
                try:
                    obj = json.loads(text)
                except ValueError:
                    self.other.append(text)
                    continue
                self.lines.append(obj)
                if self.on_line:
                    self.on_line(obj)
            elif text:
                self.other.append(text)

    def boot(self):
        """Power up; main.py runs and the menu is shown.  Returns the boot line."""
        self.pico.boot()
        end = self.pico.ns + BOOT_LIMIT_US * NS_PER_US
        while not any(l.get("ev") == "boot" for l in self.lines):
            if self.pico.ns >= end:
                raise BoardError("no boot line from main.py; the board printed: %r" % self.other[-10:])
            self.pico.run_for(10000)
        return [l for l in self.lines if l.get("ev") == "boot"][0]

    def start_game(self, game, **options):
        """Stop main.py and reset to a clean REPL, then build the device and
        start `game` with its default options (as the simulator's --game
        does), changed by `options` (e.g. target=20)."""
        self.pico.clean_repl()
        self.lines.clear()
        self.pico.serial_write(b"\x05")  # paste mode: the code runs as one block
        self.pico.wait_for(b"=== ")
        code = _START_GAME % (game, options, game)
        self.pico.serial_write(code.encode().replace(b"\n", b"\r"))
        self.pico.serial_write(b"\x04")
        self.pico.wait_for(b"\x06", 5000000)

    def press(self, button):
        self.pico.press(button)

    def release(self, button):
        self.pico.release(button)

    def screen(self):
        return self.pico.oled.frame

    def close(self):
        self.pico.close()


def run_script(events, game=None, show=None, shots=None, end_us=2000000, firmware=None,
               frozen=False, progress=None, store_files=None, options=None):
    """Run parsed script events [(t_us, button, is_down, lineno)] on the
    emulated board.  show(obj) gets each log line as it comes; shots (a
    ScreenWriter) gets the OLED after each event; progress(done_us, total_us)
    hears after each event how much of the script's board time has run;
    store_files: files already on its flash (an earlier game's /data, as
    Referee takes them); options: the game's options changed from their
    defaults (a script's seats).  Returns (Referee, flash volume bytes at
    the end)."""
    ref = Referee(firmware=firmware, frozen=frozen, store_files=store_files)
    try:
        ref.on_line = show
        ref.boot()
        if game:
            ref.start_game(game, **(options or {}))
        p = ref.pico
        t0 = ref.t0 = p.ns  # script time 0
        if progress:
            progress(0, (events[-1][0] if events else 0) + end_us)  # booted
        for n, (t_us, button, down, lineno) in enumerate(events, 1):
            # The screen after an event is the one shown just before the
            # next: the board needs ~25 ms to send a frame, longer while it
            # saves to flash, so "right after" is not yet on the OLED.
            if shots:
                p.run_until(max(p.ns, t0 + (t_us - SHOT_BEFORE_US) * NS_PER_US))
                shots.write(ref.screen(), n - 1, "start" if n == 1 else "line%d" % events[n - 2][3])
            p.run_until(max(p.ns, t0 + t_us * NS_PER_US))
            (ref.press if down else ref.release)(button)
            if progress:
                progress(t_us, events[-1][0] + end_us)
        last = events[-1][0] if events else 0
        if shots and events:
            p.run_until(t0 + (last + end_us - SHOT_BEFORE_US) * NS_PER_US)
            shots.write(ref.screen(), len(events), "line%d" % events[-1][3])
        p.run_until(t0 + (last + end_us) * NS_PER_US)
        if shots:
            shots.write(ref.screen(), len(events) + 1, "end")
        if progress:
            progress(last + end_us, last + end_us)
        volume = p.flash_image()
        return ref, volume
    finally:
        ref.close()
