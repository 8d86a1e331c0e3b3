"""The virtual table for Speed Run (seeds/speedrun.md, SR-*): three computer
players play real cards with the card-level engine
(speedref.engine.speedrun_cards) and tell the referee app what a real table
tells it, with the pads and buttons of the virtual board:

  * hand 1: the holder of the first-player card taps their pad (SR-5), then
    OK; the two choosers enter the trump and the ranking with UP/DOWN/OK
    (SR-7, SR-9);
  * after each trick the winner taps their pad (SR-11, SR-12);
  * a player who turns their contract face up holds their pad (0.8 s) and
    picks it on the REVEAL screen (SR-21);
  * after the 12th trick each player whose contract is still face down
    enters it, a Redo with its target (SR-13, SR-19);
  * OK on the result and final screens.

Mistakes, as people make them: a trick pad tapped by the wrong player and
taken back through the pause menu (BACK, "Undo last"), a wrong contract
entered and taken back the same way (when it was the last one, the scored
hand itself is undone), the wrong player tapping for the first-player card
before the holder does, a reveal begun and cancelled, a hold by a player who
has already revealed (refused by the app), a cursor overshot and stepped
back, stray presses where they mean nothing, bouncy contacts.

The table's truth is the card engine's game (its own table-level
SpeedRunGame scores the real cards).  After the game it is compared with
what the app decided, read only from the device's USB log (`reveal`, `hand`,
`undo`, `error`, `game_end`) and its flash: the record, and the saved game
written after every hand (its packed entries give the order of the trick
winners and reveals the referee recorded).

Its base, EntryTable (sim/table/entry.py), holds what tables of key entries
share: key sequences, UP/DOWN navigation and undo through the pause menu.
"""
from sim.table.base import TableError
from sim.table.entry import EntryTable, UP, DOWN, OK

HOLD_MIN_US = 1000000   # a reveal hold: well past tunables.SPEEDRUN_HOLD_US (0.8 s)
HOLD_MAX_US = 1500000


def speedrun_options(rng):
    """Every length the menu offers; Long (12 hands) rarer so a soak stays quick."""
    return {"length": rng.choice(("short", "short", "medium", "medium", "long"))}


class SpeedRunTable(EntryTable):
    """Three computer players at a Speed Run game."""

    GAME = "speedrun"

    def __init__(self, seed, loop_us=None, start_us=None, opts=None, mistakes=True,
                 reveal=0.06, wrong_contract=0.05, store=None, **kw):
        EntryTable.__init__(self, seed, loop_us, start_us, mistakes, store=store)
        from speedref.app import speedrun_flow as F
        from speedref.engine import speedrun_cards as SP
        self.F = F
        self.SP = SP
        rng = self.rng
        self.opts = opts or speedrun_options(rng)
        self.reveal_p = reveal        # chance a player reveals on one of their turns
        self.wrong_p = wrong_contract  # chance a contract is first entered wrong (then undone)
        self.first = self.someone()  # who gets the first-player card (SR-5)
        self.st = SP.State(rng.randrange(1, 1 << 30), self.opts["length"], self.player_names(),
                           first=self.first)
        self.g = self.st.game
        # truth, per hand: the hand line's fields, and the entries in their order
        self.t_reveals = []           # (hand, seat, contract as the app names it, trick)
        self.t_seq = []               # this hand's [seat | [seat, contract]] in order
        self.t_seqs = {}              # hand -> its entries
        self.asked = None             # (hand, phase, seat) whose contract entry is under way
        self.revealing = None         # (seat, choice the person wants on the REVEAL screen)
        self.cancels = 0
        self.refused = 0

    # -- phases -------------------------------------------------------------------
    def on_flow(self, old, new):
        F = self.F
        t = self.t
        flow = self.board.app.flow
        if new == F.HAND:
            self._hand(t)
        elif new == F.TRUMP:
            p = self.people[self.chose[0]]
            i = self.SP.TRUMPS.index(self.g.trump)
            self.keys(t + p.reaction(), p, self.nav(flow.cursor, i, len(flow.choices)) + [OK])
        elif new == F.RANK:
            p = self.people[self.chose[1]]
            i = self.SP.RANKINGS.index(self.g.ranking)
            self.keys(t + p.reaction(), p, self.nav(flow.cursor, i, len(flow.choices)) + [OK])
        elif new == F.PLAY and old in (F.RANK, F.REVEAL):
            self._next(t)
        elif new == F.REVEAL:
            self._revealing(t, flow)
        elif new in (F.CONTRACT, F.TARGET):
            self._enter(t, new)
        elif new in (F.RESULT, F.FINAL):
            p = self.people[self.someone()]
            ks = [OK]
            if self.chance(0.15):
                ks = [self.someone()] + ks  # a pad tap that means nothing here
            self.keys(t + p.reaction() + self.rng.randint(300000, 1500000), p, ks)
        else:
            raise TableError("unexpected phase %r after %r" % (new, old))

    def _hand(self, t):
        """A new hand: the card engine deals, the two choosers choose, all
        three put a contract face down (SR-6, SR-7, SR-13); then OK."""
        st, SP, rng = self.st, self.SP, self.rng
        if st.current_player() != SP.CHANCE:
            raise TableError("the app shows a new hand, the table is in phase %s" % st.phase)
        st.apply(SP.CHANCE, SP.DEAL)
        self.t_seq = []
        self.chose = [None, None]     # who chose the trump, who the ranking
        while st.phase == "choose":   # SR-7: the first chooser takes either, the next the other
            p = st.current_player()
            a = rng.choice(st.legal_actions(p))
            self.chose[0 if a < SP.RANK else 1] = p
            st.apply(p, a)
        while st.phase == "contract":  # SR-13: a contract each, face down
            p = st.current_player()
            acts = st.legal_actions(p)
            real = [a for a in acts if a != SP.PASS]
            # a Pass is kept for later mostly (so games also end early, SR-28)
            a = rng.choice(real) if real and rng.random() > 0.1 else rng.choice(acts)
            st.apply(p, a)
        holder = self.people[self.g.first]
        ks = [OK]
        if self.g.hands_played == 0:
            ks = [holder.seat, OK]    # SR-5: the holder taps their pad
            if self.chance(0.2):      # someone else tapped first; the holder taps after
                ks = [(holder.seat + rng.randrange(1, self.seats)) % self.seats] + ks
        elif self.chance(0.1):
            ks = [self.someone()] + ks  # a pad tap that means nothing after hand 1
        self.keys(t + holder.reaction() + rng.randint(500000, 2000000), holder, ks)

    # -- the play: one action at a time, as the cards go round ----------------------
    def _next(self, t):
        st, SP = self.st, self.SP
        if st.phase != "play":
            return  # the 12th trick is in: the contract screens take over
        p = st.current_player()
        pe = self.people[p]
        acts = st.legal_actions(p)
        if SP.REVEAL in acts and self.rng.random() < self.reveal_p:
            self.at(t + pe.reaction(1.5), self._reveal, p, True)
            return
        if SP.REVEAL in acts and self.chance(0.01):
            self.at(t + pe.reaction(1.5), self._reveal, p, False)  # begun, then cancelled
            return
        if self.g.revealed[p] is not None and self.chance(0.02):
            # holds the pad to reveal again: the app refuses (SR-21 once)
            self.refused += 1
            self.at(t + pe.reaction(), self._hold, p)
            return
        if self.chance(0.01):
            # UP or DOWN during play: means nothing there
            self.at(t + pe.reaction(), self._stray, p)
            return
        cards = [a for a in acts if a < SP.TRUMP]
        self.at(t + pe.reaction(), self._card, p, self.rng.choice(cards))

    def _check_play(self):
        if self.phase != self.F.PLAY:
            raise TableError("the table plays on, the app shows phase %r" % (self.phase,))

    def _stray(self, p):
        self._check_play()
        t = self.keys(self.t, self.people[p], [self.rng.choice((UP, DOWN))])
        self._next(t)

    def _hold(self, p):
        self._check_play()
        pe = self.people[p]
        t0 = self.press(self.t, p, pe.bounces())
        t1 = self.release(t0 + self.rng.randint(HOLD_MIN_US, HOLD_MAX_US), p, pe.bounces())
        self._next(t1)

    def _reveal(self, p, really):
        """SR-21: hold the pad, then pick the contract (or Cancel) on screen."""
        self._check_play()
        SP, g = self.SP, self.g
        if really:
            c = self.st.contracts[p]
            named = "REDO" if c[:5] == "REDO:" else c  # a Redo's target stays secret
            self.st.apply(p, SP.REVEAL)
            self.t_reveals.append((g.hands_played + 1, p, named, g.tricks_played() + 1))
            self.t_seq.append([p, named])
            self.revealing = (p, named)
        else:
            self.cancels += 1
            self.revealing = (p, self.F.CANCEL)
        pe = self.people[p]
        t0 = self.press(self.t, p, pe.bounces())
        self.revealing_up = self.release(t0 + self.rng.randint(HOLD_MIN_US, HOLD_MAX_US), p, pe.bounces())

    def _revealing(self, t, flow):
        if self.revealing is None or flow.seat != self.revealing[0]:
            raise TableError("the app opened a reveal for P%d, nobody meant it" % (flow.seat + 1))
        p, want = self.revealing
        self.revealing = None
        if want not in flow.choices:
            raise TableError("P%d cannot pick %s to reveal: %r" % (p + 1, want, flow.choices))
        pe = self.people[p]
        t = max(t, self.revealing_up) + pe.reaction()
        self.keys(t, pe, self.nav(flow.cursor, flow.choices.index(want), len(flow.choices)) + [OK])

    def _card(self, p, c):
        self._check_play()
        st, g = self.st, self.g
        n = g.tricks_played() + 1
        st.apply(p, c)
        if st.trick:
            self._next(self.t)
            return
        w = st.last_trick[2]
        self.t_seq.append(w)
        if st.phase != "play":  # the 12th trick: the card engine scored the hand
            self._scored()
        we = self.people[w]
        t = self.t + we.reaction()
        if n < 12 and self.chance(0.04):
            # the wrong player taps for the trick; someone takes it back
            q = self.people[(w + self.rng.randrange(1, self.seats)) % self.seats]
            t = self.keys(t, q, [q.seat])
            self.undo_via_pause(t, self.people[self.someone()], self._right_winner)
            self.pending = w
            return
        t = self.keys(t, we, [w])
        if n < 12:
            self._next(t)

    def _right_winner(self, t, phase):
        if phase != self.F.PLAY:
            raise TableError("undoing a trick left the app in phase %r" % (phase,))
        we = self.people[self.pending]
        self._next(self.keys(t + we.reaction(), we, [we.seat]))

    def _scored(self):
        g, st = self.g, self.st
        h = g.hand(-1)
        n = g.hands_played
        self.t_deals.append({
            "hand": n, "first": h["first"], "trump": h["trump"], "ranking": h["ranking"],
            "tricks": h["tricks"], "contracts": h["contracts"], "revealed": h["revealed"],
            "scores": list(st.last_scores), "totals": list(g.totals), "over": g.over,
            "ended_early": g.over and g.ended_early})
        self.t_seqs[n] = self.t_seq

    # -- contracts after the 12th trick (SR-13, SR-19) -----------------------------
    def same_phase(self):
        flow = self.board.app.flow
        if self.phase in (self.F.CONTRACT, self.F.TARGET) and \
                self.asked != (flow.g.hands_played, self.phase, flow.seat):
            self._enter(self.t, self.phase)  # the next seat's contract, same screen

    def _enter(self, t, phase, fixing=False):
        flow = self.board.app.flow
        s = flow.seat
        self.asked = (flow.g.hands_played, phase, s)
        h = self.t_deals[-1]
        if h["hand"] != self.g.hands_played or h["hand"] != flow.g.hands_played + 1:
            raise TableError("the app asks for a contract of hand %d" % (flow.g.hands_played + 1))
        c = h["contracts"][s]
        if phase == self.F.CONTRACT:
            want = "REDO" if c[:5] == "REDO:" else c
        else:
            if c[:5] != "REDO:":
                raise TableError("the app asks P%d for a Redo's target; they played %s" % (s + 1, c))
            want = c[5:]
        pe = self.people[s]
        ch = flow.choices
        if want not in ch:
            raise TableError("P%d played %s, the app offers %r" % (s + 1, c, ch))
        t += pe.reaction() + self.rng.randint(200000, 1000000)
        wrong = [x for x in ch if x != want and x != "REDO"]
        if phase == self.F.CONTRACT and wrong and not fixing and self.chance(self.wrong_p):
            # a wrong contract entered, noticed, taken back (SR-13)
            x = self.rng.choice(wrong)
            t = self.keys(t, pe, self.nav(flow.cursor, ch.index(x), len(ch)) + [OK])
            self.undo_via_pause(t, pe, lambda t2, ph: self._enter(t2, ph, True))
            return
        self.keys(t, pe, self.nav(flow.cursor, ch.index(want), len(ch)) + [OK])

    # -- the verdicts against the truth ------------------------------------------------
    def compare(self):
        from speedref.app.speedrun_flow import unpack
        from speedref.engine import speedrun
        bad = []
        evs = [o for _, o in self.lines]
        bad += self.errors(evs)
        rv = [(o["hand"], o["seat"], o["contract"], o["trick"]) for o in evs if o.get("ev") == "reveal"]
        if rv != self.t_reveals:
            bad.append("reveals: app %r, table %r" % (rv, self.t_reveals))
        keys = ("hand", "first", "trump", "ranking", "tricks", "contracts", "revealed", "scores",
                "totals", "over", "ended_early")
        bad += self.compare_hands(evs, keys, lambda h: unpack(h[2]), "trick winners and reveals")
        bad += self.compare_record(speedrun)
        if not self.st.is_terminal():
            bad.append("the card game is not over (hand %d)" % self.g.hands_played)
        return bad
