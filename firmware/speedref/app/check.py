# "Check wiring": the first evening with a new board.  The last entry of the
# game list opens it; BACK (or OK held) returns to the list with nothing
# stored (a `wiring` log line carries the figures measured).  OK steps
# through four pages:
#
#   buttons  every button's live state (its name inverted while pressed) and,
#            a pad a line, the last press's bounce and the largest seen, or
#            "never closed" / "closed: short?" for a pad that never closed or
#            was closed when the screen opened and has stayed so
#   board    the board, MicroPython's version, free heap, flash free, records
#   OLED     a test pattern (border and corners); a pad held: the whole panel white
#   sound    a pad press plays a scale and lights each pad LED in turn
#
# Bounce is how long a pad's contact chattered when it closed: from the
# closing edge to the last change within _BURST_US after it, measured from
# the capture's own timestamps (PIO on the Pico, the pin interrupt on the
# ESP32) as the input decoder receives them, before its lockout hides them
# (Inputs.watch).  A bounce longer than the tie window can make one press
# look like two to a pad's lockout, or hide a second player's press: the
# remedy is in docs/hardware.md ("Bring-up").
#
# The watch runs for every ring snapshot: small ints into preallocated
# lists, nothing allocated (as the games' capture path).
from micropython import const

from ..ticks import ticks_diff, ticks_add
from . import ui
from .ui import Screen, OK, CLICK

_PADS = const(4)
# Neither is a tunable: nobody feels them in a game.  A closing edge's
# chatter is the changes this soon after it (a microswitch settles in a few
# ms; a bounce as long as this is a broken switch) ...
_BURST_US = const(50000)
_NOTE_US = const(200000)  # ... and one note of the test scale, one LED lit
_SCALE = ((523, 150), (587, 150), (659, 150), (698, 150), (784, 150), (880, 150), (988, 150), (1047, 300))
_NAMES = ("P1", "P2", "P3", "P4", "UP", "DN", "OK", "BK")
PAGES = ("buttons", "board", "OLED", "sound")
TITLE = "Check wiring"  # its row in the game list, after the games


def bounce_text(us):
    """12340 -> "12.3": tenths of a millisecond, integer arithmetic."""
    t = (us + 50) // 100
    return "%d.%d" % (t // 10, t % 10)


class WiringCheck(Screen):
    """`back`: the screen it returns to (the game list it was opened from)."""

    def __init__(self, app, back):
        self.app = app
        self.back_to = back
        self.page = 0
        self.down = 0  # debounced levels, bit b = button b
        self.closed = 0  # pads that closed since the screen opened
        self.held_at_open = 0  # pads already down when it opened (a short to GND, or a hand)
        self.t0 = [0] * _PADS  # the current press's closing edge
        self.tl = [0] * _PADS  # its last change inside the burst
        self.last = [-1] * _PADS  # the last press's bounce, us (-1: none yet)
        self.most = [0] * _PADS  # the largest seen
        self._raw = 0
        self._burst = 0  # pads inside a closing edge's burst
        self.info = None  # the board page's lines, read when it is shown
        self.demo_t = None  # the sound page's scale: when it began
        self.demo_step = -1
        inputs = app.inputs
        if inputs is not None:
            self._raw = inputs.raw
            self.held_at_open = inputs.raw & 0xF
            self.down = inputs.level
            inputs.watch = self.raw
        # A pin-interrupt capture drops a contact's chatter inside its lockout
        # (hw/capture.py): off while the screen is open, so the chatter is
        # seen.  The PIO capture has none: every sample reaches the decoder.
        cap = app.capture
        self._lockout = None
        if cap is not None and hasattr(cap, "lockout_us"):
            self._lockout = cap.lockout_us
            cap.lockout_us = 0
        self.pad_lights = 0

    # ---- the capture's snapshots, before the lockout (Inputs.watch) ---------
    def raw(self, t, mask):
        changed = (mask ^ self._raw) & 0xF
        self._raw = mask
        p = 0
        while changed:
            if changed & 1:
                bit = 1 << p
                if self._burst & bit and ticks_diff(t, self.t0[p]) < _BURST_US:
                    self.tl[p] = t
                    d = ticks_diff(t, self.t0[p])
                    self.last[p] = d
                    if d > self.most[p]:
                        self.most[p] = d
                elif mask & bit:  # a closing edge: a new press
                    self._burst |= bit
                    self.t0[p] = t
                    self.tl[p] = t
                    self.last[p] = 0
                else:
                    self._burst &= ~bit
            changed >>= 1
            p += 1
        self.app.redraw()

    # ---- buttons -----------------------------------------------------------
    def press(self, b, t_us):
        bit = 1 << b
        self.down |= bit
        if b < _PADS:
            self.closed |= bit
            self.held_at_open &= ~bit
            if self.page == 3:
                self.demo_t = t_us
                self.demo_step = -1
        if b == OK:
            self.down &= ~bit  # the app passes OK on when it is let go: a tap
            self.page = (self.page + 1) % len(PAGES)
            if self.page == 1:
                self.info = board_lines(self.app)
            self.app.sound(CLICK)
        self.app.redraw()

    def release(self, b, t_us):
        self.down &= ~(1 << b)
        if b < _PADS:
            self.held_at_open &= ~(1 << b)
            # the burst's end: the next change is the release's, not chatter
        self.app.redraw()

    def back(self, t_us):
        self.leave()

    def leave(self):
        app = self.app
        # what was measured goes to the laptop's log (nothing is stored):
        # the figures in microseconds, where the screen shows tenths of ms
        pads = range(_PADS)
        app.emit({"ev": "wiring", "board": app.board_name,
                  "bounce_us": [self.last[p] if self.closed >> p & 1 else None for p in pads],
                  "most_us": [self.most[p] if self.closed >> p & 1 else None for p in pads],
                  "never_closed": [p for p in pads if not (self.closed | self.held_at_open) >> p & 1],
                  "closed_from_start": [p for p in pads if self.held_at_open >> p & 1]})
        inputs = app.inputs
        if inputs is not None:
            inputs.watch = None
        if self._lockout is not None:
            app.capture.lockout_us = self._lockout
        self.pad_lights = 0
        from .. import forget
        back, self.back_to = self.back_to, None
        app.show(back)
        forget(__name__)  # its code leaves the heap once this call is over

    def tick(self, now_us):
        for p in range(_PADS):
            if self._burst >> p & 1 and ticks_diff(now_us, self.t0[p]) >= _BURST_US:
                self._burst &= ~(1 << p)
        if self.demo_t is None:
            return
        k = ticks_diff(now_us, self.demo_t) // _NOTE_US
        if k >= len(_SCALE):
            self.demo_t = None
            self.pad_lights = 0
            self.app.redraw()
            return
        if k != self.demo_step:
            self.demo_step = k
            self.app.sound(_SCALE[k])
            self.pad_lights = 1 << (k % _PADS)
            self.app.redraw()
        self.app.wake(ticks_add(self.demo_t, (k + 1) * _NOTE_US))

    # ---- screens -----------------------------------------------------------
    def draw(self, fb):
        page = self.page
        if page == 2:
            fb.rect(0, 0, 128, 64, 1)
            for x, y in ((0, 0), (120, 0), (0, 56), (120, 56)):
                fb.fill_rect(x, y, 8, 8, 1)
            if self.down & 0xF:
                fb.fill(1)  # a pad held: every pixel on
                return
            ui.center(fb, "OLED test", 20)
            ui.center(fb, "hold a pad: all", 32)
            ui.center(fb, "OK: next", 44)
            return
        ui.title(fb, TITLE)
        if page == 0:
            for b in range(8):
                x = (b % 4) * 32 + 4
                y = 13 if b < _PADS else 23
                on = self.down >> b & 1
                if on:
                    fb.fill_rect(x - 2, y - 1, 20, 10, 1)
                fb.text(_NAMES[b], x, y, 0 if on else 1)
            for p in range(_PADS):
                fb.text(self.pad_line(p), 0, 32 + 8 * p, 1)
        elif page == 1:
            for i, line in enumerate(self.info or ()):
                fb.text(line, 0, 14 + 9 * i, 1)
        else:
            ui.center(fb, "Press a pad:", 22)
            ui.center(fb, "scale and LEDs", 32)
            ui.hint(fb, "OK: next  BACK: out")

    def pad_line(self, p):
        """The pad's line on the buttons page (16 characters at most)."""
        bit = 1 << p
        name = _NAMES[p]
        if self.held_at_open & bit:
            return name + " closed: short?"
        if not self.closed & bit:
            return name + " never closed"
        return "%s %s/%s ms" % (name, bounce_text(self.last[p]), bounce_text(self.most[p]))


def size_text(n):
    """`n` bytes in at most 4 digits and a unit (1408K, 221G): the board
    page's line fits 16 characters, a Pico's flash or a desktop disk."""
    n //= 1024
    for unit in "KMGT":
        if n < 10000 or unit == "T":
            return "%d%s" % (n, unit)
        n //= 1024


def board_lines(app):
    """The board page: what the board is and how full it is."""
    import gc
    import sys
    from speedref import collect
    v = sys.implementation.version
    store = app.store
    free = store.free() if store is not None else None
    try:
        n = sum(1 for _ in store.iter_records()) if store is not None else 0
    except OSError:
        n = 0
    collect()  # a full collection on a board; CPython frees as it goes
    return ["Board: %s" % (getattr(app, "board_name", None) or sys.platform),
            "%s %d.%d.%d" % ("MicroPython" if sys.implementation.name == "micropython" else "Python",
                             v[0], v[1], v[2]),
            "heap free %d KB" % (gc.mem_free() // 1024 if hasattr(gc, "mem_free") else 0),
            "flash free %s" % ("?" if free is None else size_text(free)),
            "records %d" % n]
