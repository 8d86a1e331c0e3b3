"""Play Speed against a computer player, with your cards on screen beside the
referee app's OLED (`speedref-sim --play speed`).

You are P1.  The computer is P2: it plays real cards with the card-level
engine on a clock (sim/table SpeedTable, with human reaction times) and
presses its own pad as a person would.  You do what a player at the table
does, and the referee app referees both of you:

  OK (Enter/Space)        lay out, next deal, rebuild done, save at the end
  your pad (1 or z)       a tap: ready / "I'm out"; P2's claim: hold = yes, tap = no
  Z (or !)                hold your pad down ("I'm stuck"); Z again, z, or
                          playing a card lifts your hand
  (The terminal simulator's keys, sim/tui.py and sim/keys.py: a terminal
  sends no key-up, so a key is a tap and the hold has its own key.)
  a s d f g h l           choose a card from your hand (shown in that order)
  ,  .                    play the chosen card on centre pile 1 / pile 2
  x                       draw from your stock
  UP/DOWN, OK             enter the loser's count when the app asks

The engine checks every card you play (SP-7, SP-11, SP-12) and the panel
says why a card was refused.

This module also holds what every play mode shares (play_spit.py,
play_speedrun.py, play_partners.py): the terminal around a play table
(table_terminal: your keys as fingers on the table's buttons, the event log
saying whose press each edge is, the panel beside the OLED), --pace, and
main() for `speedref-sim --play GAME`.
"""
import sys

from sim.bots import STUCK_HOLD_US
from sim.table.base import TableError, tie_us
from sim.table.speed_table import SpeedTable
from speedref.engine.errors import RuleError
from speedref import games as registry

CARD_KEYS = "asdfghl"
HUMAN = 0
BOT = 1
PLAY_GAMES = tuple(g.id for g in registry.GAMES if g.person)  # speedref-sim --play GAME
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


class SpeedPlay(SpeedTable):
    """A Speed table where seat 0 is a person and seat 1 a computer player."""

    def __init__(self, seed=None, realtime=True, pace=DEFAULT_PACE, **kw):
        SpeedTable.__init__(self, seed, realtime=realtime, mistakes=False, lift_early=False, **kw)
        set_pace([None, self.people[BOT]], pace)
        self.note = "Enter: lay out the cards"
        self.hold_t = 0
        self.opts = None
        self.letters = Letters(CARD_KEYS)

    def start(self):
        """Straight into Speed with the remembered options (like --game)."""
        self.boot()
        self.board.start_game("speed")
        self._observe()

    # -- what the computer does not do for you ---------------------------------------
    def on_phase(self, old, new):
        F = self.F
        flow = self.board.app.flow
        if flow is not None and flow.GAME != "speed":
            # a person may start another game from the menu: the computer sits it out
            self.st = None
            self.gen = [g + 1 for g in self.gen]
            self.note = "The computer plays Speed only"
            return
        if new == F.LAYOUT:
            self.opts = dict(flow.opts)
            self.window = tie_us(self.opts["tie_ms"])
            self._new_deal()
            self.note = "Lay out, then OK (Enter)"
        elif new == F.READY:
            pe = self.person(BOT)
            self.tap(self.t + pe.reaction() + self.rng.randint(0, 600000), BOT, pe.tap_us(), pe)
            self.note = "Tap your pad (1/z) when ready"
        elif new == F.PLAY and old == F.COUNT_DOWN:
            self._go(self.t)
            self.note = "GO! Play on a pile one above or below"
        elif new == F.PLAY and old == F.FLIP:
            self._flipped(self.t)
        elif new == F.FLIP:
            self.note = "Both stuck: flip at GO"
        elif new == F.REBUILD:
            self.note = "Reserves empty: OK to rebuild"
        elif new == F.CLAIM:
            c = flow.deal.claimant
            if c == BOT:
                self.note = "P2 says out: hold your pad = yes, tap = no"
            elif self.winner == HUMAN:
                self._claimed(self.t, c)  # the computer confirms
                self.note = "P2 confirms you are out"
            else:
                self.note = "You still hold cards! Tap again to withdraw"
        elif new == F.LEFT:
            w = self.winner
            left = self.t_deals[-1][1] if self.t_deals else 0
            self.note = ("P2 holds %d: UP/DOWN, OK" if w == HUMAN else "You hold %d: UP/DOWN, OK") % left
        elif new in (F.NEXT, F.FINAL):
            self.note = "OK: next deal" if new == F.NEXT else "OK: save the result"
        elif new == "Games":
            self.note = "Choose Speed again, or q to quit"

    def _ready_taps(self, t):
        pass  # on_phase READY taps only the computer's pad

    def _plan(self, p, t):
        if p == HUMAN:
            self.gen[p] += 1
            self.planned[p] = None
            return
        SpeedTable._plan(self, p, t)

    def _flipped(self, t):
        st = self.st
        SP = self.SP
        if self.finger[HUMAN]:
            # everyone's hands leave the pads to turn a reserve card
            self.release(max(t, self.hold_t + STUCK_HOLD_US), HUMAN)
        if st.legal_actions(HUMAN) != [SP.STUCK] or st.legal_actions(BOT) != [SP.STUCK]:
            # You held your pad but could still play or draw: at a real table
            # that flip would not have happened (SP-14).  The cards stay put.
            self.note = "You were not stuck: no flip"
            since = self.stuck_since[BOT]
            if since is not None:
                self.release(max(t + 200000, since + 700000), BOT)
                self.stuck_since[BOT] = None
            self._plan(BOT, t + 700000)
            return
        SpeedTable._flipped(self, t)
        self.note = "Flipped: play on"

    # -- your actions ------------------------------------------------------------------
    def pad_tap(self):
        """A quick tap on your pad (about 100 ms, far below the 0.5 s hold)."""
        if self.finger[HUMAN]:
            self.release(self.t, HUMAN)
        else:
            self.tap(self.t, HUMAN, 100000)

    def pad_hold(self):
        """Put your hand on your pad and keep it there (stuck), or lift it."""
        if self.finger[HUMAN]:
            self.release(self.t, HUMAN)
        else:
            self.hold_t = self.press(self.t, HUMAN)

    def key_press(self, t, b, hold):
        """A key put a finger on button b at t (sim/keys.py): a tap, or a hold."""
        t = self.press(t, b)
        if b == HUMAN:
            # only a hold is kept down for a stuck call when you play a card
            self.hold_t = t if hold else t - STUCK_HOLD_US
        return t

    def advance(self, us):
        """Simulated time only (tests): let the table run for `us`."""
        end = self.t + us
        self.run(lambda: self.t >= end)

    def human(self, action):
        """Play a card or draw; returns None or the reason it was refused."""
        st = self.st
        if st is None or st.phase != "play" or self.phase != self.F.PLAY:
            return "not now: cards are played after GO"
        try:
            tag = st.apply(HUMAN, action, self.ticks())  # the engine judges it (SP-7..SP-13)
        except RuleError as e:
            return str(e)
        if self.finger[HUMAN]:
            # your hand leaves the pad to play; the pad is let go no sooner
            # than a stuck hold (else the app would take it for a tap: "out")
            self.release(max(self.t, self.hold_t + STUCK_HOLD_US), HUMAN)
        if tag == "race":
            self.note = "Too late: P2's card landed first (SP-13)"
        if tag == "out":
            self._over(HUMAN)
            self.note = "Out! Tap your pad (1/z) to claim"
            return None
        self._acted(HUMAN, action, tag)
        return None

    def _out_tap(self, p):
        if p == BOT:
            SpeedTable._out_tap(self, p)

    def hand(self):
        """Your hand as the panel letters it: [(letter, card)] (Letters)."""
        st = self.st
        return self.letters.update(st.hands[HUMAN] if st is not None else ())

    def play_card(self, index, pile):
        """Play the card of your letter CARD_KEYS[index] on a centre pile."""
        self.hand()
        c = self.letters.card(CARD_KEYS[index]) if index < len(CARD_KEYS) else None
        if self.st is None or c is None:
            return "no card there"
        return self.human(self.SP.play_action(pile, c))

    def draw_card(self):
        return self.human(self.SP.DRAW)

    # -- the panel beside the OLED -------------------------------------------------------
    def panel(self, sel=None):
        from speedref.engine import cards as C
        st = self.st
        out = ["Speed: you (P1) vs computer (P2)"]
        if st is None or st.phase == "deal":
            return out + ["", self.note]
        tops = [C.name(p[-1]) if p else "--" for p in st.piles]
        out.append("Centre piles:  1:[%s]   2:[%s]" % tuple(tops))
        out.append("Reserves:      %d | %d" % (len(st.reserves[0]), len(st.reserves[1])))
        out.append("Computer:      %d in hand, %d in stock" % (len(st.hands[BOT]), len(st.stocks[BOT])))
        out.append("Your stock:    %d" % len(st.stocks[HUMAN]))
        hand = []
        for k, c in self.hand():
            mark = ">" if sel is not None and CARD_KEYS[sel] == k else " "
            hand.append("%s%s:%s" % (mark, k, C.name(c)))
        out.append("Your hand:    " + " ".join(hand))
        if st.phase == "play" and self.phase == self.F.PLAY:
            acts = st.legal_actions(HUMAN)
            if acts == [self.SP.STUCK]:
                out.append("No play: hold your pad (Z)")
            elif acts == [self.SP.SLAP]:
                out.append("No cards: slap your pad!")
        out.append("")
        out.append(self.note)
        out.append("keys: a s d f g h l = card, then , or . = pile 1/2, x = draw")
        return out


def table_terminal():
    """The terminal simulator (sim/tui.py) for a play mode: the keys' button
    edges go to the table as a finger on that button (so the table knows your
    hand is on your pad), and the table's panel is drawn beside the OLED."""
    import curses
    from sim.tui import TerminalSim

    from sim.tui import HALF_W, HALF_H, BRAILLE_W, BRAILLE_H

    class TableTerminal(TerminalSim):
        def __init__(self, tb, delay_us, interval_us, log_buzzer=False):
            TerminalSim.__init__(self, tb.board, delay_us, interval_us, log_buzzer)
            self.tb = tb
            self.mine = set()  # buttons your keys hold a finger on
            self._shown = None  # the panel as last drawn
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

        def panel(self):
            return self.tb.panel()

        def changed(self):
            return self.panel() != self._shown

        def _place(self, w, h):
            """Where the OLED and the panel go on a w x h terminal: (half
            blocks?, the panel beside the OLED?), or None when the panel fits
            nowhere whole.  The half-block OLED with the panel beside it; else
            with the panel under it if that leaves a log row; else the
            Braille OLED with the panel beside it, else under it."""
            lines = self.panel()
            need = max([len(line) for line in lines] + [40])
            bw, bh = self.base_needs()
            if w < bw or h < bh:
                return None
            under = len(lines) + 1  # the panel and a blank row
            half = TerminalSim.half_blocks(self, w, h)
            if half and w - HALF_W - 4 >= need:
                return True, True
            if half and h >= bh - BRAILLE_H + HALF_H + under:
                return True, False
            if w - BRAILLE_W - 4 >= need and h >= max(bh, len(lines)):
                return False, True
            if h >= bh + under and w > need:
                return False, False
            return None

        def sizes(self):
            """The smallest terminals (columns, rows) with the panel beside
            the Braille OLED, and with it under the status line."""
            lines = self.panel()
            need = max([len(line) for line in lines] + [40])
            bw, bh = self.base_needs()
            return ((max(bw, BRAILLE_W + 4 + need), max(bh, len(lines))),
                    (max(bw, need + 1), bh + len(lines) + 1))

        def needs(self):
            return min(self.sizes(), key=lambda s: s[0] * s[1])

        def too_small(self, w, h):
            if self._place(w, h) is not None:
                return None
            beside, under = self.sizes()
            return ("The terminal is %dx%d: too small for the OLED, the key legend and "
                    "the panel. speedref-sim --play needs at least %dx%d (columns x rows) "
                    "with the panel beside the OLED, or %dx%d with it under: make the "
                    "window bigger." % ((w, h) + beside + under))

        def half_blocks(self, w, h):
            return self._place(w, h)[0]

        def log_top(self, h, w, y, oled_w):
            """Where the panel goes: right of the OLED when it fits, else
            under the status line, and the event log below it (_place)."""
            self._shown = lines = self.panel()
            if self._place(w, h)[1]:
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

    return TableTerminal, curses


def terminal_class():
    """The terminal simulator with your Speed cards beside the OLED."""
    Base, curses = table_terminal()

    class PlayTerminal(Base):
        def __init__(self, tb, delay_us, interval_us, log_buzzer=False):
            Base.__init__(self, tb, delay_us, interval_us, log_buzzer)
            self.sel = None

        def feed_key(self, ch, now_us):
            tb = self.tb
            if 0 <= ch < 256 and chr(ch) in CARD_KEYS:
                self.sel = CARD_KEYS.index(chr(ch))
                return
            if ch in (ord(","), ord(".")):
                if self.sel is None:
                    tb.note = "choose a card first (a s d f ...)"
                    return
                why = tb.play_card(self.sel, 0 if ch == ord(",") else 1)
                if why:
                    tb.note = why[:70]
                self.sel = None
                return
            if ch == ord("x"):
                why = tb.draw_card()
                if why:
                    tb.note = why[:70]
                return
            Base.feed_key(self, ch, now_us)

        def panel(self):
            return self.tb.panel(self.sel)

    return PlayTerminal, curses


def table(args):
    """The --play speed table for the command line's options."""
    return SpeedPlay(args.seed, start_us=args.start_us, pace=args.pace or DEFAULT_PACE, store=args.store)


def play_module(game):
    """The module that plays `game` with a person: table(args), terminal_class()."""
    return registry.load(registry.get(game).person, "sim.table")


def main(args):
    """speedref-sim --play GAME [--pace P] [--length L]: GAME against computer players."""
    if args.play not in PLAY_GAMES:
        sys.stderr.write("speedref-sim: --play %s: there is --play %s\n" % (args.play, ", ".join(PLAY_GAMES)))
        return 2
    mod = play_module(args.play)
    cls, curses = mod.terminal_class()
    return run_terminal(mod.table(args), cls, curses, args)


def run_terminal(tb, cls, curses, args):
    """Start the play table `tb` and its curses terminal `cls`; 0 when the
    person quits, 1 if the table had to stop."""
    import os
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
        tb.close()
    store = getattr(args, "store", None)
    if store and os.path.exists(os.path.join(store, "game.json")):
        # quit half way: the board keeps the game, as a real one does at a power cut
        sys.stderr.write("speedref-sim: the game in progress is saved in %s: `speedref-sim --store %s`"
                         " resumes it\n" % (store, store))
    return 0
