"""Play Speed against computer players, with your cards on screen beside the
referee app's OLED (`speedref-sim --play speed [--seats N]`).

You are P1.  The computers are P2 (and P3, P4 with --seats 3 or 4, SP-27):
they play real cards with the card-level engine on a clock (sim/table
SpeedTable, with human reaction times) and press their own pads as people
would.  You do what a player at the table does, and the referee app
referees you all:

  OK (Enter/Space)        lay out, next deal, rebuild done, save at the end
  your pad (1 or z)       a tap: ready / "I'm out"; a computer's claim: hold = yes, tap = no
  Z (or !)                hold your pad down ("I'm stuck"); Z again, z, or
                          playing a card lifts your hand
  (The terminal simulator's keys, sim/tui.py and sim/keys.py: a terminal
  sends no key-up, so a key is a tap and the hold has its own key.)
  a s d f g h l           choose a card from your hand (shown in that order)
  ,  .  /  ;              play the chosen card on centre pile 1 / 2 / 3 / 4 (one a player)
  x                       draw from your stock
  UP/DOWN, OK             enter each loser's count when the app asks

The engine checks every card you play (SP-7, SP-11, SP-12) and the panel
says why a card was refused.
"""
from sim.bots import STUCK_HOLD_US
from sim.table.person import set_pace, DEFAULT_PACE, Letters, Says, table_terminal
from sim.table.speed_table import SpeedTable
from speedref.engine.errors import RuleError

CARD_KEYS = "asdfghl"
PILE_KEYS = ",./;"  # centre pile 1.. (SP-29: one a player)
HUMAN = 0
BOT = 1  # the computer player after you (with two players, the only one)


class SpeedPlay(Says, SpeedTable):
    """A Speed table where seat 0 is a person and every other seat a
    computer player."""

    def __init__(self, seed=None, realtime=True, pace=DEFAULT_PACE, **kw):
        SpeedTable.__init__(self, seed, realtime=realtime, mistakes=False, lift_early=False, **kw)
        self.pace = pace
        set_pace([None] + self.people[1:], pace)
        self.note = "Enter: lay out the cards"
        self.refused = None        # the note, while it says why a key was refused
        self.hold_t = 0
        self.opts = None
        self.letters = Letters(CARD_KEYS)
        self.stored_note = None  # where the game just over is stored, till the menu shows

    def start(self):
        """Straight into Speed with the remembered options (like --game),
        with this table's players."""
        self.boot()
        self.board.start_game("speed", self.seats)
        self._observe()

    def _seat(self, n):
        """The menu's Players chose another count: n people at the table."""
        from sim.bots import Person
        self.seats = n
        self.people = [Person(self.rng, s, bounce=0) for s in range(n)]
        set_pace([None] + self.people[1:], self.pace)
        self.gen = self.per_seat(0)
        self.planned = self.per_seat(None)
        self.stuck_since = self.per_seat(None)

    def bots(self):
        return range(1, self.seats)

    def _names(self, seats):
        return ", ".join("P%d" % (p + 1) for p in seats)

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
            if flow.seats != self.seats:
                self._seat(flow.seats)
            self.window = self.board.app.tie_window_us(self.opts["tie_ms"])
            self._new_deal()
            self.note = "Lay out, then OK (Enter)"
        elif new == F.READY:
            for p in self.bots():
                pe = self.person(p)
                self.tap(self.t + pe.reaction() + self.rng.randint(0, 600000), p, pe.tap_us(), pe)
            self.note = "Tap your pad (1/z) when ready"
        elif new == F.PLAY and old == F.COUNT_DOWN:
            self._go(self.t)
            self.note = "GO! Play on a pile one above or below"
        elif new == F.PLAY and old == F.FLIP:
            self._flipped(self.t)
        elif new == F.FLIP:
            self.note = "All stuck: flip at GO" if self.seats > 2 else "Both stuck: flip at GO"
        elif new == F.REBUILD:
            self.note = "Reserves empty: OK to rebuild"
        elif new == F.CLAIM:
            c = flow.deal.claimant
            if c != HUMAN:
                self._hands_off(self.t, [p for p in self.bots() if p != c])  # you answer
                self.note = "P%d says out: hold your pad = yes, tap = no" % (c + 1)
            elif self.winner == HUMAN:
                self._claimed(self.t, c)  # the computer after you confirms
                self.note = "P2 confirms you are out"
            else:
                self.note = "You still hold cards! Tap again to withdraw"
        elif new == F.LEFT:
            w = self.winner
            left = self.t_deals[-1][1] if self.t_deals else 0
            if self.seats == 2:
                self.note = ("P2 holds %d: UP/DOWN, OK" if w == HUMAN else "You hold %d: UP/DOWN, OK") % left
            else:  # SP-35: one count a loser, in seat order
                held = ["%s %d" % ("you" if p == HUMAN else "P%d" % (p + 1), left[p])
                        for p in range(self.seats) if p != w]
                self.note = "Each holds: %s; UP/DOWN, OK each" % ", ".join(held)
        elif new in (F.NEXT, F.FINAL):
            self.note = "OK: next deal" if new == F.NEXT else "OK: save the result"
        elif new == "Games":
            stored, self.stored_note = self.stored_note, None
            self.note = (stored + ". " if stored else "") + "Choose Speed again, or q to quit"

    def on_line(self, obj):
        SpeedTable.on_line(self, obj)
        if obj.get("ev") == "game_end":
            self.stored_note = self.note = self.board.record_note()

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
        if any(st.legal_actions(p) != [SP.STUCK] for p in range(self.seats)):
            # You held your pad but could still play or draw: at a real table
            # that flip would not have happened (SP-14, SP-31).  The cards stay put.
            self.note = "You were not stuck: no flip"
            for p in self.bots():
                since = self.stuck_since[p]
                if since is not None:
                    self.release(max(t + 200000, since + 700000), p)
                    self.stuck_since[p] = None
                self._plan(p, t + 700000)
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

    def _acted(self, p, a, tag):
        """A computer player's card on a centre pile is in the event log."""
        if p != HUMAN and tag in ("play", "out") and a < self.SP.READY:
            from speedref.engine import cards as C
            self.say("P%d plays %s on pile %d (computer)" % (p + 1, C.name(a & 0xFF), (a >> 8) + 1))
        SpeedTable._acted(self, p, a, tag)

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
        if self.note and self.note == self.refused:
            self.note = "Play on a pile one above or below"  # the refusal is history now
        if tag == "race":
            self.note = "Too late: another card landed first (SP-13)" if self.seats > 2 else \
                "Too late: P2's card landed first (SP-13)"
        if tag == "out":
            self._over(HUMAN)
            self.note = "Out! Tap your pad (1/z) to claim"
            return None
        self._acted(HUMAN, action, tag)
        return None

    def refuse(self, why):
        """Say why a key was refused, until your next card the cards take."""
        self.note = self.refused = why

    def _out_tap(self, p):
        if p != HUMAN:
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
        n = self.seats
        out = ["Speed: you (P1) vs computer (P2)" if n == 2 else
               "Speed: you (P1) vs computers (%s)" % self._names(self.bots())]
        if st is None or st.phase == "deal":
            return out + ["", self.note]
        tops = ["%d:[%s]" % (k + 1, C.name(p[-1]) if p else "--") for k, p in enumerate(st.piles[:n])]
        out.append("Centre piles:  " + "   ".join(tops))
        out.append("Reserves:      " + " | ".join(str(len(r)) for r in st.reserves[:n]))
        for p in self.bots():
            out.append("%s %d in hand, %d in stock" % (("Computer:" if n == 2 else "P%d:" % (p + 1)).ljust(14),
                                                    len(st.hands[p]), len(st.stocks[p])))
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
        out.append("keys: a s d f g h l = card, then %s = pile %s, x = draw" % (
            " ".join(PILE_KEYS[:n]), "/".join(str(k + 1) for k in range(n))))
        return out


    def compact(self, sel=None):
        """The panel in a few lines (the compact layout, an 80x24 terminal):
        the piles and reserves, the others' cards, your hand, what to do."""
        from speedref.engine import cards as C
        st = self.st
        n = self.seats
        if st is None or st.phase == "deal":
            return [self.note]
        tops = " ".join("%d:[%s]" % (k + 1, C.name(p[-1]) if p else "--") for k, p in enumerate(st.piles[:n]))
        out = ["Piles %s   reserves %s" % (tops, "|".join(str(len(r)) for r in st.reserves[:n]))]
        out.append("In hand/stock: %s   your stock %d" % (
            "  ".join("P%d %d/%d" % (p + 1, len(st.hands[p]), len(st.stocks[p])) for p in self.bots()),
            len(st.stocks[HUMAN])))
        hand = " ".join("%s%s:%s" % (">" if sel is not None and CARD_KEYS[sel] == k else "", k, C.name(c))
                        for k, c in self.hand())
        out.append("Your hand: " + hand)
        if st.phase == "play" and self.phase == self.F.PLAY:
            acts = st.legal_actions(HUMAN)
            if acts == [self.SP.STUCK]:
                out.append("No play: hold your pad (Z)")
            elif acts == [self.SP.SLAP]:
                out.append("No cards: slap your pad!")
        out.append(self.note)
        return out

    def short_keys(self):
        """Your keys in a few characters (the compact layout's column)."""
        n = self.seats
        piles = (" " if n == 2 else "").join(PILE_KEYS[:n])
        return ("a-l   a card", "%s pile %s" % (piles.ljust(5), "1-%d" % n if n > 2 else "1 2"),
                "x     draw", "z     tap pad", "Z     hold pad")


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
            if 0 <= ch < 256 and chr(ch) in PILE_KEYS[:tb.seats]:
                if self.sel is None:
                    tb.refuse("choose a card first (a s d f ...)")
                    return
                why = tb.play_card(self.sel, PILE_KEYS.index(chr(ch)))
                if why:
                    tb.refuse(why[:70])
                self.sel = None
                return
            if ch == ord("x"):
                why = tb.draw_card()
                if why:
                    tb.refuse(why[:70])
                return
            Base.feed_key(self, ch, now_us)

    return PlayTerminal, curses


def table(args):
    """The --play speed table for the command line's options."""
    return SpeedPlay(args.seed, start_us=args.start_us, pace=args.pace or DEFAULT_PACE, store=args.store,
                     seats=getattr(args, "seats", None))
