"""What every play mode shares (`speedref-sim --play GAME`, a person at the
virtual table against computer players; each game's own part is its
sim/table/<game>_person.py, the registry entry's `person`):

  * main(): --play GAME, the person module the registry names, its table
    and terminal, run until the person quits;
  * table_terminal(): the terminal simulator (sim/tui.py) around a play
    table: your keys as fingers on the table's buttons, the event log saying
    whose press each edge is, the panel beside the OLED;
  * Letters: the letters of your cards on the panel;
  * --pace: how quickly the computer players play (PACES, set_pace).
"""
import sys

from sim.table.base import TableError
from speedref import games as registry


def play_games():
    """The games `speedref-sim --play` plays: those whose registry entry
    names a person module."""
    return tuple(g.id for g in registry.GAMES if g.person)


# --pace: how much slower than a quick person the computer players react
# (sim/bots.py Person.pace scales every reaction; Speed Run's think time too).
# fast is the computer tables' own pace (a median 250-400 ms per move, as
# people at a real table), too quick for a person choosing cards by keys.
PACES = {"slow": 5, "normal": 2.5, "fast": 1}
DEFAULT_PACE = "normal"


class Letters:
    """The letters of your cards on the panel: a card keeps its letter while
    it stays in your hand; a card that leaves frees its letter, and a card
    that comes in (drawn, or a display taken over) gets the first free one.
    (Numbering the hand afresh after each card gave the same key another
    card: `w` was R10, then G2.)"""

    def __init__(self, keys):
        self.keys = keys
        self.of = {}  # card -> its letter

    def update(self, cards):
        """The cards held now, in the order new ones take letters; returns
        [(letter, card)] in the order of the keys."""
        cards = list(cards)
        for c in list(self.of):
            if c not in cards:
                del self.of[c]
        used = set(self.of.values())
        free = [k for k in self.keys if k not in used]
        for c in cards:
            if c not in self.of and free:
                self.of[c] = free.pop(0)
        out = [(k, c) for c, k in self.of.items()]
        out.sort(key=lambda kc: self.keys.index(kc[0]))
        return out

    def card(self, letter):
        """The card `letter` picks, or None."""
        for c, k in self.of.items():
            if k == letter:
                return c
        return None

    def letter(self, card):
        return self.of.get(card)


def set_pace(people, pace):
    """The computer players (None: your seat) react at `pace` (PACES)."""
    if pace not in PACES:
        raise ValueError("pace is one of %s, not %r" % (", ".join(PACES), pace))
    for pe in people:
        if pe is not None:
            pe.pace = PACES[pace]


# The play layouts (TableTerminal._place).  A panel beside the OLED narrower
# than MIN_BESIDE columns wraps too much to be read.  COMPACT: the smallest
# terminal the compact layout takes, a default terminal window: the Braille
# OLED (64x16 characters) and the keys column beside it in 80 columns, the
# compact panel in the 8 rows under it.
MIN_BESIDE = 40
COMPACT = (80, 24)

# The device's keys in the compact layout's column (sim/tui.py KEYMAP);
# each game's own come first (its table's short_keys()).
SHORT_KEYS = ("Enter OK", "O     hold OK", "k j   UP DOWN", "b     BACK", "q q   quit")


def wrap_lines(lines, width):
    """Panel lines cut into lines of at most `width` characters at spaces, a
    continuation indented two more than its line (a blank line stays)."""
    import textwrap
    out = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip(" "))
        out += textwrap.wrap(line, width, subsequent_indent=" " * (lead + 2), break_on_hyphens=False) or [""]
    return out


class Says:
    """A play table's own lines for the terminal's event log (who played
    what: the piles and tricks change with a line saying so)."""
    on_say = None    # set by the terminal: text -> None

    def say(self, text):
        if self.on_say is not None:
            self.on_say(text)


def table_terminal():
    """The terminal simulator (sim/tui.py) for a play mode: the keys' button
    edges go to the table as a finger on that button (so the table knows your
    hand is on your pad), and the table's panel is drawn beside the OLED."""
    import curses
    from sim.tui import TerminalSim

    from sim.tui import HALF_W, HALF_H, BRAILLE_W, BRAILLE_H, NAMES, braille_lines

    class TableTerminal(TerminalSim):
        def __init__(self, tb, delay_us, interval_us, log_buzzer=False):
            TerminalSim.__init__(self, tb.board, delay_us, interval_us, log_buzzer)
            self.tb = tb
            self.mine = set()  # buttons your keys hold a finger on
            self._shown = None  # the panel as last drawn
            self._shown_src = None  # the lines it was drawn from
            self._mode = None  # the layout it was drawn in (_place)
            # Whose finger each press is: the table queues presses (yours and
            # the computer players') and lands them in order, one finger per
            # button at a time, so a queue per button says whose each edge is.
            self._whose = [[] for _ in range(8)]
            self._by = [None] * 8      # whose finger is down on each button now
            self._down_t = [0] * 8
            self._down_name = [None] * 8  # who pressed it: their name when it went down
            self._yours = False        # a press from your keys is being queued
            self._lag = [0] * 8        # how much later than its key each press of yours lands
            press = tb.press

            def tagged_press(t, b, bounce=()):
                r = press(t, b, bounce)
                self._whose[b].append(self._yours)
                return r
            tb.press = tagged_press
            seen = tb.on_edge

            def on_edge(b, down):  # every press and release in the event log, as it lands
                seen(b, down)
                self.log_edge(b, down)
            tb.on_edge = on_edge
            tb.on_say = self.log_said

        def log_said(self, text):
            """A line of the table's own (a computer player's card) in the event log."""
            self.log.append((self.tb.t // 1000, text))
            del self.log[:-200]

        def pad_count(self):
            """The pads someone sits at: the table's seats (P1 and P2 in Spit)."""
            return self.tb.seats

        def log_edge(self, b, down):
            """One edge on the board: "P1 down (you)", "P2 up after 95 ms (computer)"."""
            tb = self.tb
            if down:
                q = self._whose[b]
                self._by[b] = q.pop(0) if q else False
                self._down_t[b] = tb.t
                self._down_name[b] = self.names()[b]
            yours = self._by[b]
            # a press belongs to who pressed, though the seats may change
            # between its down and its up (partners, PT-8)
            name = self._down_name[b] or self.names()[b]
            who = "you" if yours else "computer"
            if down:
                if yours and b in self.keys.holding:
                    who += ", hold: the same key again lets go"
                text = "%s down (%s)" % (name, who)
            else:
                text = "%s up after %d ms (%s)" % (name, (tb.t - self._down_t[b]) // 1000, who)
            self.log.append((tb.t // 1000, text))
            del self.log[:-200]

        def apply(self, edges, now_us):
            # the keys' edges go to the table; they are logged when they land (log_edge)
            for b, down in edges:
                self.button(b, down, now_us)

        def button(self, b, down, now_us):
            tb = self.tb
            if down:
                if tb.finger[b]:
                    return  # a computer player's finger is on it right now
                self._yours = True
                try:
                    t = tb.key_press(now_us, b, b in self.keys.holding)
                finally:
                    self._yours = False
                if t is None:  # the table refused it (the panel says why)
                    self.keys.release(b)
                else:
                    self.mine.add(b)
                    # the press lands when the button is free again (a finger
                    # just left it): the release keeps the key's length
                    self._lag[b] = t - now_us
            elif b in self.mine:
                self.mine.discard(b)
                getattr(tb, "key_release", tb.release)(now_us + self._lag[b], b)

        def release_due(self, now_us):
            TerminalSim.release_due(self, now_us)
            for b in list(self.mine):
                if not self.tb.finger[b]:
                    # the table lifted your hand (you played a card): up for the keys too
                    self.keys.release(b)
                    self.mine.discard(b)
            if self.tb.realtime:
                self.tb.pump()  # the computer's moves and a loop pass

        # the card or pile your keys have chosen (Speed, Spit), marked on the panel
        sel = None

        def panel(self):
            return self.tb.panel() if self.sel is None else self.tb.panel(self.sel)

        def compact_panel(self):
            """The game's panel in a few lines, for the compact layout."""
            return self.tb.compact() if self.sel is None else self.tb.compact(self.sel)

        def strip(self):
            """The compact layout's column beside the OLED: your keys (the
            game's, then the device's), then what is down, lit and sounding."""
            out = list(self.tb.short_keys()) + list(SHORT_KEYS)
            down = self.held_text()
            lit = [NAMES[i] for i, on in enumerate(self.board.lights[:self.pad_count()]) if on]
            tones = self.board.pwm.tones
            beep = "%d Hz" % tones[-1][1] if tones and tones[-1][2] is None else "quiet"
            return out + ["", "down: " + down, "lit: " + (" ".join(lit) or "-"), "beep: " + beep]

        def changed(self):
            src = self._src() if self._mode is not None else self.panel()
            return src != self._shown_src

        def _src(self):
            return self.compact_panel() if self._mode == "compact" else self.panel()

        def _place(self, w, h):
            """How the OLED and the panel share a w x h terminal: (layout,
            half blocks?, the panel's lines as drawn), the first that fits,
            or None when none does:
              "beside": the half-block OLED with the panel beside it, whole;
              "under": the half-block OLED, the panel under it, a log row left;
              "beside": the Braille OLED with the panel beside it, whole;
              "under": the Braille OLED with the panel under it;
              "beside": the Braille OLED with the panel beside it, its lines
                wrapped to the room there (MIN_BESIDE columns or more);
              "compact": the Braille OLED bare at the top left, your keys and
                the status in the column beside it, the game's compact panel
                under it (COMPACT: a default 80x24 terminal)."""
            lines = self.panel()
            need = max([len(line) for line in lines] + [40])
            bw, bh = self.base_needs()
            if w >= bw and h >= bh:
                under = len(lines) + 1  # the panel and a blank row
                half = TerminalSim.half_blocks(self, w, h)
                if half and w - HALF_W - 4 >= need:
                    return "beside", True, lines
                if half and h >= bh - BRAILLE_H + HALF_H + under:
                    return "under", True, lines
                if w - BRAILLE_W - 4 >= need and h >= max(bh, len(lines)):
                    return "beside", False, lines
                if h >= bh + under and w > need:
                    return "under", False, lines
                room = w - BRAILLE_W - 4
                if room >= MIN_BESIDE:
                    wrapped = wrap_lines(lines, room)
                    if h >= max(bh, len(wrapped)):
                        return "beside", False, wrapped
            if w >= COMPACT[0] and h >= COMPACT[1]:
                return "compact", False, wrap_lines(self.compact_panel(), w - 1)
            return None

        def sizes(self):
            """The smallest terminals (columns, rows) with the whole panel
            beside the Braille OLED, with it under the status line, and the
            compact layout's."""
            lines = self.panel()
            need = max([len(line) for line in lines] + [40])
            bw, bh = self.base_needs()
            return ((max(bw, BRAILLE_W + 4 + need), max(bh, len(lines))),
                    (max(bw, need + 1), bh + len(lines) + 1), COMPACT)

        def needs(self):
            return min(self.sizes(), key=lambda s: s[0] * s[1])

        def too_small(self, w, h):
            if self._place(w, h) is not None:
                return None
            beside, under, compact = self.sizes()
            return ("The terminal is %dx%d: too small for the OLED, the keys and your cards. "
                    "speedref-sim --play needs at least %dx%d (columns x rows), or %dx%d "
                    "with the panel beside the OLED, or %dx%d with it under: make the "
                    "window bigger." % ((w, h) + compact + beside + under))

        def half_blocks(self, w, h):
            return self._place(w, h)[1]

        def log_top(self, h, w, y, oled_w):
            """Where the panel goes: right of the OLED when it fits, else
            under the status line, and the event log below it (_place)."""
            mode, _, lines = self._place(w, h)
            self._mode = mode
            self._shown_src = self._src()
            self._shown = lines
            if mode == "beside":
                self._at = (0, oled_w + 3)
                return y
            self._at = (y, 0)
            return y + len(lines) + 1

        def draw_beside(self, put, w):
            """The panel, every line padded to the edge of the screen: nothing
            of an older, longer line, of the legend or of the log stays
            beside a shorter one."""
            y, x = self._at
            for i, line in enumerate(self._shown):
                put(y + i, x, line.ljust(w - x))

        def draw(self, scr):
            h, w = scr.getmaxyx()
            place = self._place(w, h)
            if place is None or place[0] != "compact":
                return TerminalSim.draw(self, scr)
            self._mode = "compact"
            self._shown_src = self._src()
            scr.erase()
            put = self._put(scr, h, w)
            rows = braille_lines(self.board.screen())
            for i, line in enumerate(rows):
                put(i, 0, line)
            x = len(rows[0]) + 1
            for i, line in enumerate(self.strip()[:len(rows)]):
                put(i, x, line)
            # the panel under the OLED; its first lines give way when the
            # terminal is too low for all of them (the hand, what to do and
            # the note come last)
            y = len(rows)
            lines = place[2]
            room = h - y - (1 if h - y > len(lines) else 0)
            lines = lines[max(0, len(lines) - room):]
            self._shown = lines
            for i, line in enumerate(lines):
                put(y + i, 0, line.ljust(w - 1))
            y += len(lines)
            n = h - y
            for i, (ms, text) in enumerate(self.log[-n:] if n > 0 else []):
                line = "%8.3f s  %s" % (ms / 1000.0, text)
                put(y + i, 0, line if len(line) < w else line[:w - 2] + "\u2026")
            self.draw_prompt(scr, put, h, w)
            scr.refresh()

    return TableTerminal, curses


def play_module(game):
    """The module that plays `game` with a person: table(args), terminal_class()."""
    return registry.load(registry.get(game).person, "sim.table")


def main(args):
    """speedref-sim --play GAME [--pace P] [--length L]: GAME against computer players."""
    if args.play not in play_games():
        sys.stderr.write("speedref-sim: --play %s: there is --play %s\n" % (args.play, ", ".join(play_games())))
        return 2
    mod = play_module(args.play)
    cls, curses = mod.terminal_class()
    return run_terminal(mod.table(args), cls, curses, args)


def run_terminal(tb, cls, curses, args):
    """Start the play table `tb` and its curses terminal `cls`; 0 when the
    person quits, 1 if the table had to stop."""
    import os
    from sim.terminal import need_terminal
    need_terminal("--play %s" % args.play)
    try:
        tb.start()
        os.environ.setdefault("ESCDELAY", "25")
        sim = cls(tb, args.repeat_delay * 1000, args.repeat_interval * 1000,
                  getattr(args, "log_buzzer", False))
        curses.wrapper(sim.run)
    except TableError as e:
        sys.stderr.write("speedref-sim: %s\n" % e)
        return 1
    finally:
        # quit half way: a --store keeps the game, as a board does at a power
        # cut; a temporary flash goes, and the person is told either way
        words = tb.board.farewell()
        tb.close()
        if words:
            sys.stderr.write("speedref-sim: %s\n" % words)
    return 0
