"""The interactive terminal simulator (curses; works over SSH).

Shows the OLED pixel for pixel (Unicode half blocks: one character = two
pixels stacked; on a terminal too small for 130x34 characters, Braille
cells of 2x4 pixels), the keys, the buzzer cues and a live event log with
slap margins.  Terminals send no key-up, so each button has a TAP key (one
event = down and up 80 ms later; its auto-repeats are swallowed) and a HOLD
key that keeps it down until pressed again: sim/keys.py.
"""
import curses
import json
import os
import time

from sim import oled
from sim.keys import TerminalKeys, DELAY_US, INTERVAL_US, TAP, HOLD, STEP
from sim.words import count

# key -> (kind, button); buttons 0..3 pads P1..P4, 4 UP, 5 DOWN, 6 OK, 7 BACK.
# Lowercase / plain keys tap, the uppercase letter or shifted digit holds.
KEYMAP = {
    ord("1"): (TAP, 0), ord("z"): (TAP, 0), ord("!"): (HOLD, 0), ord("Z"): (HOLD, 0),
    ord("2"): (TAP, 1), ord("m"): (TAP, 1), ord("@"): (HOLD, 1), ord("M"): (HOLD, 1),
    ord("3"): (TAP, 2), ord("#"): (HOLD, 2),
    ord("4"): (TAP, 3), ord("$"): (HOLD, 3),
    curses.KEY_UP: (STEP, 4), ord("k"): (STEP, 4),
    curses.KEY_DOWN: (STEP, 5), ord("j"): (STEP, 5),
    10: (TAP, 6), 13: (TAP, 6), curses.KEY_ENTER: (TAP, 6), ord(" "): (TAP, 6),
    ord("o"): (TAP, 6), ord("O"): (HOLD, 6),
    curses.KEY_BACKSPACE: (TAP, 7), 127: (TAP, 7), 8: (TAP, 7), 27: (TAP, 7), ord("b"): (TAP, 7),
}
NAMES = ("P1", "P2", "P3", "P4", "UP", "DOWN", "OK", "BACK")
TAP_KEYS = ("1/z", "2/m", "3", "4")
HOLD_KEYS = ("!/Z", "@/M", "#", "$")


def legend_lines(names=NAMES, tap_keys=TAP_KEYS, hold_keys=HOLD_KEYS, pads=4):
    """The key legend under the OLED: each of the first `pads` pads by the
    name of who sits at it."""
    count = pads

    def pads(keys):
        return "  ".join("%s [%s]" % (names[i], keys[i]) for i in range(count))
    return ("tap:  %s  OK [Enter/Space/o]   quit [q]" % pads(tap_keys),
            "hold: %s  OK [O]  (same key again: let go)" % pads(hold_keys),
            "UP [Up/k]  DOWN [Down/j]  BACK [Backspace/Esc/b]")


LEGEND = legend_lines()


def pad_names(app):
    """The buttons' names as the table knows them now: P1..P4 for the pads,
    except in a game where players change seats (partners, PT-8): its table
    level keeps the seating (`seats`, seat -> player) and each pad is named
    by the player sitting at it: "P1 (pad 4)" once P1 has moved to pad 4
    ("P1: go to pad 4").  A player at their own pad is just "P2"."""
    flow = getattr(app, "flow", None)
    seats = getattr(getattr(flow, "game", None), "seats", None)
    if seats is None:
        return NAMES
    out = []
    for k in range(4):
        p = seats[k]
        out.append("P%d" % (p + 1) if p == k else "P%d (pad %d)" % (p + 1, k + 1))
    return tuple(out) + NAMES[4:]


def braille_lines(frame):
    """16 strings of 64 Braille cells, each 2 pixels wide and 4 high."""
    dots = ((0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (1, 0, 0x08), (1, 1, 0x10),
            (1, 2, 0x20), (0, 3, 0x40), (1, 3, 0x80))
    out = []
    for cy in range(0, oled.HEIGHT, 4):
        row = []
        for cx in range(0, oled.WIDTH, 2):
            v = 0
            for dx, dy, bit in dots:
                if oled.lit(frame, cx + dx, cy + dy):
                    v |= bit
            row.append(chr(0x2800 + v))
        out.append("".join(row))
    return out


def lights_text(lights):
    """The pad LEDs: "[P1] P2 P3 P4" with the lit pads in brackets (as many
    as `lights` has)."""
    return " ".join(("[%s]" if on else " %s ") % NAMES[i] for i, on in enumerate(lights))


def describe(obj):
    """A log line as a person reads it: slap margins spelled out with the
    firmware's own wording (arbiter.margin_text, what the OLED shows); a
    game's own lines (a deal, a round, a hand...) in the words of the
    module its registry entry names (`words`, sim/words/), else as JSON."""
    from speedref.arbiter import margin_text
    ev = obj.get("ev")
    seat = lambda s: "P%d" % (s + 1) if isinstance(s, int) else "?"
    if ev == "slap":
        w = obj.get("winner")
        m = obj.get("margin_us")
        if w is None:
            who = "tie " + " ".join(seat(s) for s in obj.get("tie") or [])
            verdict = who if m is None else "%s (%s apart)" % (who, margin_text(m))
        else:
            verdict = seat(w) + (" (alone)" if m is None else " by " + margin_text(m))
        return "SLAP %s %s: %s" % (obj.get("game", ""), obj.get("kind", ""), verdict)
    if ev == "false_start":
        return "FALSE START %s (%s early)" % (seat(obj.get("seat")), margin_text(obj.get("early_us") or 0))
    if ev == "roster":
        names = obj.get("names") or []
        return "ROSTER %s: %s%s" % (obj.get("table", "?"), count(len(names), "name"),
                                    (": " + ", ".join(str(n) for n in names)) if names else "")
    if ev == "game_end":
        rec = obj.get("record") or {}
        return "GAME END %s id=%s" % (rec.get("game", "?"), rec.get("id", "?"))
    words = game_words(obj.get("game"))
    text = words.describe(obj, seat) if words is not None else None
    return json.dumps(obj)[:200] if text is None else text


def game_words(game):
    """The module that words `game`'s own lines (its registry entry's
    `words`, in sim.words), or None: an unknown game, or one without."""
    from speedref import games as registry
    try:
        name = registry.get(game).words
    except registry.UnknownGame:
        return None
    return registry.load(name, "sim.words") if name else None


# A second q within this long quits a game in progress (one key must not
# lose a game: the device asks twice before it abandons one, too).
QUIT_US = 3000000

# The OLED's two drawings: half blocks (1x2 pixels a character) and Braille
# (2x4), each in a box one character wider each side.
HALF_W, HALF_H = oled.WIDTH + 2, oled.HEIGHT // 2 + 2
BRAILLE_W, BRAILLE_H = oled.WIDTH // 2 + 2, oled.HEIGHT // 4 + 2


def wrap(text, width):
    """Words of `text` in lines of at most `width` characters."""
    import textwrap
    return textwrap.wrap(text, max(1, width)) or [""]


class TerminalSim:
    def __init__(self, board, delay_us=DELAY_US, interval_us=INTERVAL_US, log_buzzer=False):
        self.board = board
        self.keys = TerminalKeys(delay_us, interval_us)
        self.log = []  # (elapsed_ms, text)
        # button -> (elapsed_us it went down, the name it went down as): a
        # press belongs to who pressed, though seats may change under it (PT-8)
        self._down_at = {}
        self.log_buzzer = log_buzzer  # the buzzer's cues in the event log too
        self.quitting = None  # when q was pressed in a game, asking for a second q
        for line in board.lines:  # what the device said before the terminal opened (boot, roster)
            try:
                self._line(json.loads(line))
            except ValueError:
                self._line({"ev": "?", "text": line})
        board.on_line = self._line
        board.pwm.on_tone = self._tone

    def _line(self, obj):
        self.log.append((self.board.clock.elapsed_us // 1000, describe(obj)))
        del self.log[:-200]

    def _tone(self, freq):
        # the status line shows the buzzer; in the log a beep per countdown
        # second buried the presses and the device's lines
        if self.log_buzzer:
            self.log.append((self.board.clock.elapsed_us // 1000, "buzzer %d Hz" % freq))

    def buzzer_text(self):
        """The sounding tone (if any) and the last few cues."""
        tones = self.board.pwm.tones
        now = "BEEP %d Hz" % tones[-1][1] if tones and tones[-1][2] is None else "quiet"
        past = ["%d Hz %d ms" % (f, (n or 0) // 1000) for _, f, n in tones[-4:] if n is not None]
        return "%s  (last: %s)" % (now, ", ".join(past[-3:]) or "-")

    # -- quitting -------------------------------------------------------------
    def at_stake(self):
        """A game is in progress: quitting leaves it (kept in a --store
        folder to resume, lost with the temporary one)."""
        app = self.board.app
        return app.flow is not None and not app.over

    def quit_key(self, now_us):
        """q at now_us: True to quit.  At the menu, or with a game over, at
        once; in a game the first q asks (quit_prompt) and a second one
        within QUIT_US quits."""
        if not self.at_stake():
            return True
        if self.quitting is not None and now_us - self.quitting <= QUIT_US:
            return True
        self.quitting = now_us
        return False

    def expire(self, now_us):
        """The question goes after QUIT_US; True when it went."""
        if self.quitting is not None and now_us - self.quitting > QUIT_US:
            self.quitting = None
            return True
        return False

    def quit_prompt(self):
        b = self.board
        if b.kept:
            what = "the game stays saved in %s" % b.root
        else:
            what = "the game in progress is lost (no --store)"
        return "Quit? q again to quit: %s. Any other key plays on" % what

    def key(self, ch, now_us):
        """A key typed at now_us: q (quit_key), else the button it is
        (feed_key), which also calls a quit question off.  True to quit."""
        if ch in (ord("q"), ord("Q")):
            return self.quit_key(now_us)
        self.quitting = None  # any other key: play on
        self.feed_key(ch, now_us)
        return False

    def feed_key(self, ch, now_us):
        """One terminal key event at now_us (elapsed, monotonic)."""
        k = KEYMAP.get(ch)
        if k is None:
            return
        self.apply(self.keys.event(k[0], k[1], now_us), now_us)

    def release_due(self, now_us):
        """Let go of the taps whose 80 ms are up."""
        self.apply(self.keys.due(now_us), now_us)

    def button(self, b, down, now_us):
        """A button edge from the keys (the play modes send it to the table)."""
        self.board.set_button(b, down)

    def names(self):
        """Each button's name now (a pad: whoever sits at it, pad_names)."""
        return pad_names(self.board.app)

    def pad_count(self):
        """How many pads the legend and the lights show: all four here (the
        game, and so its seats, is chosen on the device's menu)."""
        return 4

    def legend(self):
        return legend_lines(self.names(), pads=self.pad_count())

    def apply(self, edges, now_us):
        for b, down in edges:
            name = self.names()[b]
            self.button(b, down, now_us)
            if down:
                self._down_at[b] = (now_us, name)
                how = " (hold: %s again to let go)" % name if b in self.keys.holding else ""
                self.log.append((now_us // 1000, "%s down%s" % (name, how)))
            else:
                t, name = self._down_at.pop(b, (now_us, name))
                self.log.append((now_us // 1000, "%s up after %d ms" % (name, (now_us - t) // 1000)))

    def held_text(self):
        """Buttons down now: "P1[hold] OK" (a tap shows for its 80 ms)."""
        k = self.keys
        names = self.names()
        out = [names[b] + ("[hold]" if b in k.holding else "") for b in sorted(k.down)]
        return " ".join(out) or "-"

    def changed(self):
        """Anything else on screen changed since the last draw (play modes)."""
        return False

    def status_lines(self, w):
        """The held buttons, the buzzer and the pad lights, in as many rows of
        fewer than w characters as they need."""
        parts = ["down: " + self.held_text(), "buzzer: " + self.buzzer_text(),
                 "lights: " + lights_text(self.board.lights[:self.pad_count()])]
        out = [parts[0]]
        for part in parts[1:]:
            if len(out[-1]) + 3 + len(part) < w:
                out[-1] += "   " + part
            else:
                out.append(part)
        return out

    def base_needs(self):
        """(columns, rows) for the Braille OLED, the whole key legend, the
        status and one log row (curses never writes a row's last column)."""
        legend = self.legend()
        w = max([len(line) for line in legend] + [BRAILLE_W]) + 1
        return w, BRAILLE_H + len(legend) + len(self.status_lines(w)) + 1

    def needs(self):
        """The smallest terminal (columns, rows) this view is drawn whole in."""
        return self.base_needs()

    def half_blocks(self, w, h):
        """Draw the OLED in half blocks (else Braille) on a w x h terminal."""
        return w > HALF_W and h >= HALF_H + 6

    def too_small(self, w, h):
        """None, or what to say on a terminal too small to draw whole."""
        nw, nh = self.needs()
        if w >= nw and h >= nh:
            return None
        return ("The terminal is %dx%d: too small for the OLED and the key legend. "
                "speedref-sim needs at least %dx%d (columns x rows): make the window "
                "bigger, or use --window." % (w, h, nw, nh))

    def draw(self, scr):
        scr.erase()
        h, w = scr.getmaxyx()
        put = self._put(scr, h, w)
        why = self.too_small(w, h)
        if why:
            # never a cropped OLED or legend: say so, and the size it needs
            for i, line in enumerate(wrap(why, w - 1)):
                put(i, 0, line)
            scr.refresh()
            return
        frame = self.board.screen()
        if self.half_blocks(w, h):
            lines = oled.halfblock_lines(frame)
        else:
            lines = braille_lines(frame)
        ow = len(lines[0])
        put(0, 0, "\u250c" + "\u2500" * ow + "\u2510")
        for i, line in enumerate(lines):
            put(i + 1, 0, "\u2502" + line + "\u2502")
        y = len(lines) + 1
        put(y, 0, "\u2514" + "\u2500" * ow + "\u2518")
        legend = self.legend()
        for i, line in enumerate(legend):
            put(y + 1 + i, 0, line)
        y += len(legend) + 1
        status = self.status_lines(w)
        for i, line in enumerate(status):
            put(y + i, 0, line)
        y = self.log_top(h, w, y + len(status), ow + 2)
        rows = h - y
        for i, (ms, text) in enumerate(self.log[-rows:] if rows > 0 else []):
            line = "%8.3f s  %s" % (ms / 1000.0, text)
            put(y + i, 0, line if len(line) < w else line[:w - 2] + "\u2026")  # cut: say so
        self.draw_beside(put, w)
        self.draw_prompt(scr, put, h, w)
        scr.refresh()

    def draw_prompt(self, scr, put, h, w):
        """The quit question on the screen's last rows (the event log's
        newest), in reverse video, while it is asked."""
        if self.quitting is None:
            return
        lines = wrap(self.quit_prompt(), w - 1)[:2]
        for i, line in enumerate(lines):
            y = h - len(lines) + i
            put(y, 0, line.ljust(w - 1))
            try:
                scr.chgat(y, 0, w - 1, curses.A_REVERSE)
            except (curses.error, AttributeError):
                pass

    def log_top(self, h, w, y, oled_w):
        """The first row of the event log (y: the row under the status line,
        oled_w: the OLED box's width; the play modes put their panel beside
        the OLED, or there)."""
        return y

    def draw_beside(self, put, w):
        """Draw anything else, last (the play modes' panel)."""

    @staticmethod
    def _put(scr, h, w):
        def put(y, x, s):
            if 0 <= y < h:
                try:
                    scr.addstr(y, x, s[:max(0, w - x - 1)])
                except curses.error:
                    pass
        return put

    def run(self, scr):
        curses.curs_set(0)
        scr.nodelay(True)
        scr.keypad(True)
        board = self.board
        dirty = True
        frames = -1
        lines = 0
        lit = None
        while True:
            now = board.clock.elapsed_us
            while True:
                ch = scr.getch()
                if ch == -1:
                    break
                if ch == curses.KEY_RESIZE:
                    dirty = True
                    continue
                if self.key(ch, now):
                    return
                dirty = True
            if self.expire(now):
                dirty = True
            self.release_due(board.clock.elapsed_us)
            board.step()
            if board.oled.updates != frames or len(self.log) != lines or self.changed() \
                    or board.lights != lit:
                frames = board.oled.updates
                lines = len(self.log)
                lit = board.lights
                dirty = True
            if dirty:
                self.draw(scr)
                dirty = False
            time.sleep(0.002)


def main(board, delay_us=DELAY_US, interval_us=INTERVAL_US, log_buzzer=False):
    from sim.terminal import need_terminal
    need_terminal()
    os.environ.setdefault("ESCDELAY", "25")  # Esc is BACK: don't wait a second for it
    sim = TerminalSim(board, delay_us, interval_us, log_buzzer)
    curses.wrapper(sim.run)
