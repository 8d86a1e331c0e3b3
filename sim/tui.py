"""The interactive terminal simulator (curses; works over SSH).

Shows the OLED pixel for pixel (Unicode half blocks: one character = two
pixels stacked; on a terminal too small for 130x34 characters, Braille
cells of 2x4 pixels), the keys, the buzzer cues and a live event log with
slap margins.  Keys are pressed and released through the key hold model of
sim/keys.py (terminals send no key-up).
"""
import curses
import json
import os
import time

from sim import oled
from sim.keys import KeyHolds, DELAY_US, INTERVAL_US

# key -> button (0..3 pads P1..P4, 4 UP, 5 DOWN, 6 OK, 7 BACK)
KEYMAP = {
    ord("1"): 0, ord("z"): 0,
    ord("2"): 1, ord("m"): 1,
    ord("3"): 2,
    ord("4"): 3,
    curses.KEY_UP: 4, ord("k"): 4,
    curses.KEY_DOWN: 5, ord("j"): 5,
    10: 6, 13: 6, curses.KEY_ENTER: 6, ord(" "): 6,
    curses.KEY_BACKSPACE: 7, 127: 7, 8: 7, 27: 7, ord("b"): 7,
}
LEGEND = ("Pads: P1 [1/z]  P2 [2/m]  P3 [3]  P4 [4]   quit [q]",
          "UP [Up/k]  DOWN [Down/j]  OK [Enter/Space]  BACK [Backspace/Esc/b]")
NAMES = ("P1", "P2", "P3", "P4", "UP", "DOWN", "OK", "BACK")


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


def describe(obj):
    """A log line as a person reads it: slap margins spelled out with the
    firmware's own wording (arbiter.margin_text, what the OLED shows)."""
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
    if ev == "game_end":
        rec = obj.get("record") or {}
        return "GAME END %s id=%s" % (rec.get("game", "?"), rec.get("id", "?"))
    return json.dumps(obj)[:200]


class TerminalSim:
    def __init__(self, board, delay_us=DELAY_US, interval_us=INTERVAL_US):
        self.board = board
        self.holds = KeyHolds(delay_us, interval_us)
        self.log = []  # (elapsed_ms, text)
        self.held_keys = set()
        board.on_line = self._line
        board.pwm.on_tone = self._tone

    def _line(self, obj):
        self.log.append((self.board.clock.elapsed_us // 1000, describe(obj)))
        del self.log[:-200]

    def _tone(self, freq):
        self.log.append((self.board.clock.elapsed_us // 1000, "buzzer %d Hz" % freq))

    def buzzer_text(self):
        """The sounding tone (if any) and the last few cues."""
        tones = self.board.pwm.tones
        now = "BEEP %d Hz" % tones[-1][1] if tones and tones[-1][2] is None else "quiet"
        past = ["%d Hz %d ms" % (f, (n or 0) // 1000) for _, f, n in tones[-4:] if n is not None]
        return "%s  (last: %s)" % (now, ", ".join(past[-3:]) or "-")

    def feed_key(self, ch, now_us):
        b = KEYMAP.get(ch)
        if b is None:
            return
        if self.holds.key(b, now_us):
            self.board.set_button(b, True)
            self.log.append((now_us // 1000, "%s down" % NAMES[b]))
        self.held_keys = set(self.holds.held())

    def release_due(self, now_us):
        for b, t in self.holds.expired(now_us):
            self.board.set_button(b, False)
            self.log.append((now_us // 1000, "%s up" % NAMES[b]))
        self.held_keys = set(self.holds.held())

    def draw(self, scr):
        scr.erase()
        h, w = scr.getmaxyx()
        frame = self.board.screen()
        if w >= oled.WIDTH + 3 and h >= 34 + 6:
            lines = oled.halfblock_lines(frame)
        else:
            lines = braille_lines(frame)
        ow = len(lines[0])
        put = self._put(scr, h, w)
        put(0, 0, "\u250c" + "\u2500" * ow + "\u2510")
        for i, line in enumerate(lines):
            put(i + 1, 0, "\u2502" + line + "\u2502")
        y = len(lines) + 1
        put(y, 0, "\u2514" + "\u2500" * ow + "\u2518")
        put(y + 1, 0, LEGEND[0])
        put(y + 2, 0, LEGEND[1])
        held = " ".join(NAMES[b] for b in sorted(self.held_keys)) or "-"
        put(y + 3, 0, "held: %s   buzzer: %s" % (held, self.buzzer_text()))
        y += 4
        rows = h - y
        for i, (ms, text) in enumerate(self.log[-rows:] if rows > 0 else []):
            put(y + i, 0, "%8.3f s  %s" % (ms / 1000.0, text))
        scr.refresh()

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
        while True:
            now = board.clock.elapsed_us
            while True:
                ch = scr.getch()
                if ch == -1:
                    break
                if ch in (ord("q"), ord("Q")):
                    return
                if ch == curses.KEY_RESIZE:
                    dirty = True
                    continue
                self.feed_key(ch, now)
                dirty = True
            self.release_due(board.clock.elapsed_us)
            board.step()
            if board.oled.updates != frames or len(self.log) != lines:
                frames = board.oled.updates
                lines = len(self.log)
                dirty = True
            if dirty:
                self.draw(scr)
                dirty = False
            time.sleep(0.002)


def main(board, delay_us=DELAY_US, interval_us=INTERVAL_US):
    os.environ.setdefault("ESCDELAY", "25")  # Esc is BACK: don't wait a second for it
    sim = TerminalSim(board, delay_us, interval_us)
    curses.wrapper(sim.run)
