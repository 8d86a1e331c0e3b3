"""Play Spit against a computer player, with your cards on screen beside the
referee app's OLED (`speedref-sim --play spit`).

You are P1.  The computer is P2: it plays real cards with the card-level
engine (speedref.engine.spit_cards) on a clock (sim/table/spit_table.py SpitTable,
human reaction times at the chosen --pace) and presses its own pad as a
person would.  You do what a player at the table does, and the referee app
referees both of you:

  OK (Enter/Space)        laid out; save the result at the end
  your pad (1 or z)       a tap: "Spit!" when ready (SPIT-4), "cleared" when
                          your last stock card went down (SPIT-9), the slap
                          on the smaller centre pile (SPIT-10, after its GO)
  Z (or !)                hold your pad down: stuck (SPIT-8); Z again, z, or
                          playing a card lifts your hand
  a s d f g               choose one of your five stock piles (a face-down
                          top card is turned up at once, SPIT-6)
  ,  .                    play the chosen card on centre pile 1 / pile 2;
                          in the slap: slap that pile (SPIT-10)
  e                       move the chosen card into an empty space (SPIT-6)

The engine checks every card you play (SPIT-5, SPIT-6, SPIT-7) and the panel
says why a card was refused.  The table also knows your cards, so it does
not let your pad say what is not true: no stuck call while you can still
play, turn or move, and no "cleared" tap with stock cards left.  The
computer enters your count after each relayout (SPIT-12): the cards you
hold, which the panel shows.  The referee's verdicts (false starts, the
slap race, who takes which pile) are the app's own, read off its USB log.
"""
from sim.bots import STUCK_HOLD_US
from sim.table.base import TableError, UP, DOWN, OK
from sim.table.person import set_pace, DEFAULT_PACE, PACES, Says
from sim.table.spit_table import SpitTable, HOLD_US, COUNTDOWN_US, SLAP_GO_US, STOP_US, SECOND_SLAP_US
from speedref.engine.errors import RuleError

HUMAN = 0
BOT = 1
PILE_KEYS = "asdfg"     # your five stock piles


class SpitPlay(Says, SpitTable):
    """A Spit table where seat 0 is a person and seat 1 a computer player."""

    def __init__(self, seed=None, realtime=True, pace=DEFAULT_PACE, start_us=None, **kw):
        SpitTable.__init__(self, seed, start_us=start_us, mistakes=False, lift_early=False,
                           realtime=realtime, idle_us=None, **kw)
        set_pace([None, self.people[BOT]], pace)
        self.pace = PACES[pace]
        self.flow = None           # the Spit game the cards belong to
        self.note = "Enter: lay out the cards"
        self.refused = None        # the note, while it says why a key was refused
        self.cleared_tap = False   # your last stock card went down: tap your pad
        self.slap_in = {}          # seat -> the centre pile they slapped (this race)
        self.slap_pile = None      # the pile your next slap goes on (None: the smaller)

    def start(self):
        """Straight into Spit with the remembered options (like --game)."""
        self.boot()
        self.board.start_game("spit")
        self._observe()

    def advance(self, us):
        """Simulated time only (tests): let the table run for `us`."""
        end = self.t + us
        self.run(lambda: self.t >= end)

    # -- the game the cards belong to ----------------------------------------------
    def after_step(self):
        f = self.board.app.flow
        if f is not None and f.GAME == "spit" and f is not self.flow:
            self._new_game(f)
        SpitTable.after_step(self)

    def _new_game(self, f):
        self.flow = f
        self.opts = dict(f.opts)
        self.st = None
        self.t_rounds = []
        self.t_deals = self.t_rounds
        self.record = None
        self.done = False
        self.live = False
        self.gen = [g + 1 for g in self.gen]
        self.planned = self.per_seat(None)
        self.stuck_since = self.per_seat(None)
        self.counting = None

    def on_line(self, obj):
        ev = obj.get("ev")
        if ev == "game_end":
            self.record = obj.get("record")
            self.done = True
            self.note = "%s. Spit again from the menu (Enter), or q to quit" % self.board.record_note()
        elif ev == "false_start" and obj.get("game") == "spit":
            self._false_start(obj)
        elif ev == "slap" and obj.get("game") == "spit" and self.st is not None:
            self._slap_verdict(obj)

    # -- what the referee shows, and what the computer does about it ------------------
    def on_phase(self, old, new):
        F = self.F
        t = self.t
        flow = self.board.app.flow
        if flow is not None and flow.GAME != "spit":
            # a person may start another game from the menu: the computer sits it out
            self.live = False
            self.gen = [g + 1 for g in self.gen]
            self.note = "The computer plays Spit only"
            return
        if new == "Pause":
            self.note = "Paused: Continue, Undo last (the referee's entry, not the cards), Abandon"
            return
        if new == "Games":
            if self.record is None and self.st is not None:
                self.note = "Game abandoned. Spit again from the menu (Enter), or q to quit"
            return
        if not isinstance(new, int) or old == "Pause":
            return
        if new == F.LAYOUT:
            if self.st is None:
                self.st = self.SP.State(self.rng.getrandbits(32))
                self.st.apply(self.SP.CHANCE, self.SP.DEAL)  # SPIT-1, SPIT-2: the shuffle and the first layout
            self.restarts_now = 0
            self.note = "Lay out your cards, then OK (Enter)"
        elif new == F.READY:
            self.live = False
            self.fouled = False
            pe = self.person(BOT)
            if not self.finger[BOT]:
                self.tap(t + pe.reaction() + self.rng.randint(0, 800000), BOT, pe.tap_us(), pe)
            self.note = "Tap your pad (z) when ready: Spit!"
        elif new == F.START:
            self.go = t + COUNTDOWN_US
            self.note = "3-2-1: hands off your pad until GO (SPIT-18)"
        elif new == F.PLAY and old == F.START:
            self._start_play(t)
        elif new == F.RESTART:
            self.live = False
            self.fouled = False
            self.go = t + COUNTDOWN_US
            self.note = "Both stuck: Spit! again at GO (SPIT-8)"
        elif new == F.PLAY and old == F.RESTART:
            self._restart_go(t)
            if not self.fouled:
                self.note = "GO! Spit cards are up: play on"
        elif new == F.SLAP:
            self._slap_race(t)
        elif new == F.CARDS:
            self._cards(t, old)
        elif new == F.FINAL:
            self.live = False
            self.note = "OK (Enter): save the result"

    def _start_play(self, t):
        st = self.st
        SP = self.SP
        if st.phase == "spit":
            st.apply(HUMAN, SP.SPIT, self.ticks())
            if st.apply(BOT, SP.SPIT, self.ticks()) != "start":
                raise TableError("the round did not start at GO")
        self.live = True
        self._plan(BOT, t)
        self.note = "GO! Play on a centre pile one above or below"

    def _restart_go(self, t):
        st = self.st
        SP = self.SP
        if not self.fouled and st.phase == "play":
            try:
                # GO: both turn spit cards (SPIT-8)
                st.apply(HUMAN, SP.SPIT, self.ticks())
                st.apply(BOT, SP.SPIT, self.ticks())
                self.restarts_now += 1
                self.restarts += 1
            except RuleError as e:
                self.note = "the cards say: %s" % e
        # every hand leaves its pad to turn a spit card (or, after a false
        # start, to hold it again: still stuck)
        self.live = True
        since = self.stuck_since[HUMAN]
        if since is not None:
            self.stuck_since[HUMAN] = None
            self.release(max(t, since + STUCK_HOLD_US), HUMAN)
        r = self._let_go(BOT, t + self.person(BOT).reaction())
        self._plan(BOT, t if r is None else r)
        if self.fouled:
            self.note = "False start: no spit cards. Still stuck? Hold your pad again (Z)"

    def _false_start(self, obj):
        """The referee saw a pad before GO (SPIT-18): its verdict, not ours."""
        self.fouled = True
        self.t_false.append((obj.get("round"), obj.get("seat"), obj.get("early_us"), obj.get("when")))
        who = "You" if obj.get("seat") == HUMAN else "P2"
        if obj.get("when") == "slap":
            # the engine puts the slap's GO one second after it, for both; the
            # race starts over
            self.slap_go = self.t + SLAP_GO_US
            self.slap_in = {}
            if not self._due_soon(BOT):
                self._plan_slap(BOT)
            self.note = "%s slapped before GO: GO again in 1 s" % who
        else:
            self.note = "%s pressed before GO: false start (SPIT-18)" % who

    # -- the computer player ----------------------------------------------------------
    def _plan(self, p, t):
        if p == HUMAN:
            self.gen[p] += 1
            self.planned[p] = None
            return
        SpitTable._plan(self, p, t)

    def _stuck(self, p, g):
        if g != self.gen[p] or not self.live:
            return
        if self.finger[HUMAN] and self.st.legal_actions(HUMAN) != [self.SP.SPIT]:
            # your hand is on your pad but you can play: a person waits for
            # you to see it (both holding would start a "Spit!" again)
            self.at(self.t + int(300000 * self.pace), self._stuck, p, g)
            return
        SpitTable._stuck(self, p, g)

    def _plan_slap(self, p):
        if p == HUMAN:
            return
        SpitTable._plan_slap(self, p)

    def _slap(self, p, g):
        if p == HUMAN or p in self.slap_in:
            return
        SpitTable._slap(self, p, g)

    def _slap_race(self, t):
        self.live = False
        self.slap_in = {}
        c = self.st.cleared
        if c is None:
            # the referee took a tap for a clearing the cards never made
            self.note = "The referee and the cards disagree: BACK, Undo last"
            return
        self.slap_go = self.up_t[c] + SLAP_GO_US
        self._plan_slap(BOT)
        self.note = "Slap at GO! z: the smaller pile, or , . for pile 1 / 2 (SPIT-10)"

    def on_edge(self, b, down):
        if b > 1:
            return
        if not down:
            self.up_t[b] = self.t
            if b == HUMAN and self.live and self.planned[BOT] is None and self.stuck_since[BOT] is None:
                self._plan(BOT, self.t)  # you let go: the computer looks again
            return
        F = self.F
        if self.phase == F.SLAP and self.st is not None and self.st.phase == "slap":
            if self.t < self.slap_go or b in self.slap_in:
                return  # a false start (the referee says so) or a second slap
            self.slap_in[b] = self._pile(b)
            if self.opponent(b) == BOT and BOT not in self.slap_in:
                # the computer heard your slap: it slaps at once if it has not yet
                self.slap_gen[BOT] += 1
                when = self.t + self.rng.randint(STOP_US, SECOND_SLAP_US)
                for w, _, _, fn, args in self._q:
                    if fn == self._slap and args[0] == BOT:
                        when = min(when, w)
                self.at(when, self._slap, BOT, self.slap_gen[BOT])

    def _pile(self, p):
        """The centre pile seat p slaps: yours as chosen (, or .), else the smaller."""
        if p == HUMAN and self.slap_pile is not None:
            return self.slap_pile
        n = [len(x) for x in self.st.centre]
        return 0 if n[0] <= n[1] else 1

    def _slap_verdict(self, obj):
        """The referee decided the race: who slapped first takes the pile they
        slapped, the other the other one (SPIT-10).  The cards follow the
        app's verdict (a slap you never made goes on the other pile)."""
        st = self.st
        if st.phase != "slap":
            return
        w = obj.get("takes_smaller")
        o = self.opponent(w)
        kw = self.slap_in.get(w, self._pile(w))
        ko = self.slap_in.get(o, 1 - kw)  # the other centre pile
        st.apply(w, self.SP.slap_action(kw), self.ticks())
        st.apply(o, self.SP.slap_action(ko), self.ticks(self.t + 1))
        self._round_ended()
        self.slap_pile = None
        taken = "you take" if (w == HUMAN) == (kw == 0) else "P2 takes"
        self.note = "%s first: %s pile 1" % ("You" if w == HUMAN else "P2", taken)

    def _cards(self, t, old):
        F = self.F
        st = self.st
        if old == F.PLAY and st.phase == "play":
            # SPIT-13: both stuck and no spit cards anywhere: a blocked round
            try:
                st.apply(HUMAN, self.SP.SPIT, self.ticks())
                st.apply(BOT, self.SP.SPIT, self.ticks())
                self._round_ended()
            except RuleError as e:
                self.note = "the cards say: %s" % e
        self.live = False
        self.cleared_tap = False
        for p in (HUMAN, BOT):
            self._let_go(p, t + self.person(BOT).reaction())
        if st.phase not in ("spit", "over") or not st.rounds:
            self.note = "The referee and the cards disagree: BACK, Undo last"
            return
        target = st.rounds[-1]["cards"][0]
        self.counting = [target, 0, False, BOT]
        self.note = "P2 enters your count after the relayout: %d cards (SPIT-12)" % target
        self.at(t + self.person(BOT).reaction() + self.rng.randint(500000, 2000000), self._count)

    def _count(self):
        c = self.counting
        if c is not None and not c[1] and (self.finger[UP] or self.finger[DOWN] or self.finger[OK]):
            self.at(self.t + 200000, self._count)  # your finger is on the button it needs
            return
        SpitTable._count(self)

    # -- your actions ------------------------------------------------------------------
    def key_press(self, t, b, hold):
        """A key puts your finger on button b at t (sim/keys.py); None when the
        table refuses it (self.note says why)."""
        F = self.F
        st = self.st
        if b == BOT:
            self.note = "That is the computer's pad (P2); yours is z or 1"
            return None
        if b == HUMAN and self.phase == F.PLAY and st is not None:
            if self.cleared_tap and not hold:
                self.cleared_tap = False
                self.note = "Cleared!"
                return self.press(t, b)
            if not self.live:
                return self.press(t, b)
            if not hold:
                self.refuse("Your stock piles are not empty: no 'cleared' tap (SPIT-9)")
                return None
            if st.legal_actions(HUMAN) != [self.SP.SPIT]:
                self.refuse("You can still play, turn or move: no stuck call (SPIT-8)")
                return None
            t = self.press(t, b)
            self.stuck_since[HUMAN] = t
            self.at(t + HOLD_US, self._step)  # the app's HOLD_US deadline
            self.note = "Stuck: your hand is on your pad (Z again lifts it)"
            return t
        return self.press(t, b)

    def key_release(self, t, b):
        """Your key lets go of button b: a stuck hold is let go no sooner than
        a stuck call (a shorter press would be a tap: "cleared")."""
        since = self.stuck_since[HUMAN] if b == HUMAN else None
        if since is not None:
            self.stuck_since[HUMAN] = None
            t = max(t, since + STUCK_HOLD_US)
        return self.release(t, b)

    def refuse(self, why):
        """Say why a key was refused, until your next move the cards take."""
        self.note = self.refused = why

    def _act(self, p, g, a):
        """A computer player's card on a centre pile is in the event log."""
        st = self.st
        n = [len(c) for c in st.centre] if st is not None else None
        SpitTable._act(self, p, g, a)
        k = a >> 3     # play_action(stock pile, centre pile): a play is below the turns
        if (p != HUMAN and st is self.st and n is not None and a < 0x20 and k < len(n)
                and len(st.centre) == len(n) and len(st.centre[k]) == n[k] + 1):
            from speedref.engine import cards as C
            self.say("P%d plays %s on pile %d (computer)" % (p + 1, C.name(st.centre[k][-1]), k + 1))

    def human(self, action):
        """Play, turn or move; returns None or the reason it was refused."""
        st = self.st
        if st is None or st.phase != "play" or self.phase != self.F.PLAY or not self.live:
            return "not now: cards are played after GO"
        try:
            tag = st.apply(HUMAN, action, self.ticks())  # the engine judges it (SPIT-5..SPIT-7)
        except RuleError as e:
            return str(e)
        since = self.stuck_since[HUMAN]
        if since is not None:
            # your hand leaves the pad to play; the pad is let go no sooner
            # than a stuck hold (else the app would take it for a tap: "cleared")
            self.stuck_since[HUMAN] = None
            self.release(max(self.t, since + STUCK_HOLD_US), HUMAN)
        if self.note and self.note == self.refused:
            self.note = "Play on a centre pile one above or below"   # the refusal is history now
        if tag in ("play", "turn", "move", "race") and st.phase == "play":
            if tag == "race":
                self.note = "Too late: P2's card landed first; yours goes back (SPIT-7)"
            pl = self.planned[BOT]
            if pl is None or pl[1] not in st.legal_actions(BOT):
                self._plan(BOT, self.t)
            return None
        # your last stock card went down (SPIT-9)
        self._cleared(HUMAN, tag)
        self.cleared_tap = True
        self.note = "Cleared! Tap your pad (z)"
        return None

    def pile(self, i):
        """Your letter for stock pile i: a face-down top card is turned up at
        once (SPIT-6); otherwise the pile is chosen (returns "chosen")."""
        st = self.st
        if st is None or st.phase != "play":
            return "not now: cards are played after GO"
        if not st.stock[HUMAN][i]:
            return "pile %d is empty" % (i + 1)
        if not st.up[HUMAN][i]:
            return self.human(self.SP.turn_action(i))
        return "chosen"

    def play_card(self, i, centre):
        return self.human(self.SP.play_action(i, centre))

    def move_card(self, i):
        st = self.st
        if st is None:
            return "not now"
        empty = [j for j in range(5) if not st.stock[HUMAN][j]]
        if not empty:
            return "no empty space to move into (SPIT-6)"
        return self.human(self.SP.move_action(i, empty[0]))

    # -- the panel beside the OLED -------------------------------------------------------
    @staticmethod
    def _cards_text(st, p, letters=None):
        from speedref.engine import cards as C
        out = []
        for i in range(5):
            x = st.stock[p][i]
            top = "--" if not x else (C.name(x[-1]) if st.up[p][i] else "##")
            n = "(%d)" % len(x) if len(x) > 1 else ""
            out.append((letters[i] + ":" if letters else "") + top + n)
        return "  ".join(out)

    def panel(self, sel=None):
        from speedref.engine import cards as C
        st = self.st
        out = ["Spit: you (P1) vs computer (P2)"]
        if st is None or st.phase == "deal":
            return out + ["", self.note]
        tops = []
        for k in range(len(st.centre)):
            c = st.centre[k]
            tops.append("%d:[%s] %d" % (k + 1, C.name(c[-1]) if c else "--", len(c)))
        out.append("Centre piles:  %s   %s" % tuple(tops))
        out.append("Computer:      %s   spit %d" % (self._cards_text(st, BOT), len(st.spit[BOT])))
        out.append("Your piles:    %s   spit %d" % (self._cards_text(st, HUMAN, PILE_KEYS),
                                                   len(st.spit[HUMAN])))
        out.append("You hold %d cards, P2 %d  (## face down: its letter turns it up)" % (
            st.count(HUMAN), st.count(BOT)))
        if sel is not None:
            out.append("Chosen: %s  then , or . = centre pile 1/2, e = into an empty space" % PILE_KEYS[sel])
        if st.phase == "play" and self.phase == self.F.PLAY and self.live:
            if st.legal_actions(HUMAN) == [self.SP.SPIT]:
                out.append("No play, turn or move: hold your pad (Z)")
        out.append("")
        out.append(self.note)
        out.append("keys: a s d f g = your pile, , . = centre pile 1/2, e = empty space")
        out.append("      z = tap your pad, Z = hold it (stuck)")
        return out


    def compact(self, sel=None):
        """The panel in a few lines (the compact layout, an 80x24 terminal):
        the centre piles, both players' stock piles, what to do."""
        from speedref.engine import cards as C
        st = self.st
        if st is None or st.phase == "deal":
            return [self.note]
        tops = "  ".join("%d:[%s] %d" % (k + 1, C.name(c[-1]) if c else "--", len(c))
                         for k, c in enumerate(st.centre))
        out = ["Centre %s   you hold %d, P2 %d  (##: face down)" % (tops, st.count(HUMAN), st.count(BOT))]
        out.append("P2:  %s   spit %d" % (self._cards_text(st, BOT), len(st.spit[BOT])))
        out.append("You: %s   spit %d" % (self._cards_text(st, HUMAN, PILE_KEYS), len(st.spit[HUMAN])))
        if sel is not None:
            out.append("Chosen: %s  then , or . = centre pile 1/2, e = into an empty space" % PILE_KEYS[sel])
        if st.phase == "play" and self.phase == self.F.PLAY and self.live:
            if st.legal_actions(HUMAN) == [self.SP.SPIT]:
                out.append("No play, turn or move: hold your pad (Z)")
        out.append(self.note)
        return out

    def short_keys(self):
        """Your keys in a few characters (the compact layout's column)."""
        return ("a-g   a pile", ", .   centre", "e     to empty", "z     tap pad", "Z     hold pad")


def terminal_class():
    """The terminal simulator with your Spit cards beside the OLED."""
    from sim.table.person import table_terminal
    from sim.keys import TAP
    Base, curses = table_terminal()

    class SpitTerminal(Base):
        def __init__(self, tb, delay_us, interval_us, log_buzzer=False):
            Base.__init__(self, tb, delay_us, interval_us, log_buzzer)
            self.sel = None

        def feed_key(self, ch, now_us):
            tb = self.tb
            c = chr(ch) if 0 <= ch < 256 else ""
            if c and c in PILE_KEYS:
                i = PILE_KEYS.index(c)
                why = tb.pile(i)
                self.sel = i if why == "chosen" else None
                if why and why != "chosen":
                    tb.refuse(why[:80])
                return
            if c in (",", "."):
                k = 0 if c == "," else 1
                if tb.phase == tb.F.SLAP:
                    tb.slap_pile = k   # SPIT-10: slap that pile (your pad)
                    self.apply(self.keys.event(TAP, HUMAN, now_us), now_us)
                    return
                if self.sel is None:
                    tb.note = "choose a pile first (a s d f g)"
                    return
                why = tb.play_card(self.sel, k)
                if why:
                    tb.refuse(why[:80])
                self.sel = None
                return
            if c == "e":
                if self.sel is None:
                    tb.note = "choose a pile first (a s d f g)"
                    return
                why = tb.move_card(self.sel)
                if why:
                    tb.refuse(why[:80])
                self.sel = None
                return
            Base.feed_key(self, ch, now_us)

    return SpitTerminal, curses


def table(args):
    """The --play spit table for the command line's options."""
    return SpitPlay(args.seed, start_us=args.start_us, pace=args.pace or DEFAULT_PACE, store=args.store)
