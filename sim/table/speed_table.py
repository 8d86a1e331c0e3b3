"""Speed at the virtual table (seeds/speed.md, SP-*): two computer players
play real cards with the card-level engine, and press the virtual board's
pads and buttons as people would.

    speedref-sim --table speed --games 100 --seed 7

Each game gets a fresh virtual board (sim/board.py: the firmware's own
capture handler, ring buffer, input decoder, device loop and referee app)
whose clock starts at a random ticks_us value, so games cross the 2**30
wrap.  The people at the table:

  * navigate the menu to the game and its options (chosen per game from the
    seeded rng), pressing UP/DOWN/OK;
  * play the cards with the card-level engine (speedref.engine.speed_cards),
    each action after a human reaction time (sim/bots.py);
  * press their pads exactly where the rules say a person does: ready taps,
    a held pad when stuck, a tap when out (or a slap with slap-to-win), the
    opponent's confirming tap, UP/DOWN/OK to enter the count;
  * make mistakes: a false start before GO, a stray press in a phase where
    it means nothing, a reflex slap by a player who is not out, a count
    overshot and corrected, bouncy contacts.

What really happened is kept as the table's *truth* (engine scores, press
times, who went out, false starts and by how much).  At the end of a game it
is compared with what the referee app decided, read only from the device's
USB log lines (`false_start`, `slap`, `deal`, `game_end`) and the stored
record.  A slap race whose true margin is inside the tie window is a true
tie: the app must say "tie" and the players slap again; such races are
counted, not treated as disagreements.

The people read the OLED: here that is the app's current screen and the
flow's phase (what the screen shows), never anything used for the verdicts.
"""
import json

from sim.bots import Person, STUCK_HOLD_US
from sim.table.base import Table, TableError, UP, DOWN, OK, seats_of
from speedref import games as registry
from speedref.tunables import SPEED_HOLD_US as HOLD_US, CLAIM_WAIT_US  # (stuck call; SP-16 reflex)
from speedref.tunables import COUNT_GO_US  # GO after the last ready tap (SP-6)

MENU = dict((k, v) for k, _, v in registry.get("speed").options)  # the menu's values


def speed_options(rng, seats=None):
    """Options people might pick from the menu (every menu value is possible;
    long targets are rarer so a soak stays quick); `seats` players, else the
    fewest the rules seat."""
    layout = rng.choice(MENU["layout"])
    return {
        "layout": layout,
        "jokers": layout == "classic" and rng.random() < 0.4,  # SP-4: classic only
        "doubles": rng.random() < 0.25,
        "hand_limit": rng.choice(MENU["hand_limit"]),
        "slap_to_win": rng.random() < 0.5,
        "match": rng.choice(("single", "single", "best_of", "target")),
        "target": rng.choice((15, 15, 25, 25, 50)),
        "tie_ms": rng.choice(MENU["tie_ms"]),
        "seats": seats or seats_of("speed"),
    }


def speed_choice(state, p, rng):
    """What a Speed player does next among the engine's legal actions:
    keep the hand topped up when it is low, otherwise a random legal card,
    otherwise draw; READY/STUCK/SLAP are not chosen here (the table handles
    those as pad presses).  Returns an action or None."""
    from speedref.engine import speed_cards as SP
    acts = state.legal_actions(p)
    plays = [a for a in acts if a < SP.READY]
    if SP.DRAW in acts and (len(state.hands[p]) < 3 or not plays):
        return SP.DRAW
    if plays:
        return plays[rng.randrange(len(plays))]
    return None


class SpeedTable(Table):
    """Computer players at a Speed game (one match), as many as its options
    seat (the registry's fewest unless asked: seats=)."""

    GAME = "speed"

    def __init__(self, seed, loop_us=None, start_us=None, opts=None, mistakes=True,
                 lift_early=True, false_start=0.06, realtime=False, store=None, seats=None):
        Table.__init__(self, seed, loop_us, start_us, realtime, store)
        # lift_early: stuck players may take their hands off the pads once the
        # flip countdown runs (and always to rebuild the reserves), as people do.
        self.lift_early = lift_early
        self.false_start = false_start if mistakes else 0.0  # chance per countdown
        from speedref.app import speed_flow as F
        from speedref.engine import speed_cards as SP
        self.F = F
        self.SP = SP
        rng = self.rng
        self.opts = opts or speed_options(rng, seats)
        self.seats = seats_of(self.GAME, self.opts)
        self.mistakes = mistakes
        self.people = [Person(rng, s, bounce=0.08 if mistakes else 0) for s in range(self.seats)]
        self.window = self.board.app.tie_window_us(self.opts["tie_ms"])  # the referee's own
        # truth
        self.t_deals = []         # (winner, left, flips, rebuilds) per deal
        self.t_false = []         # (deal, seat, early_us)
        self.t_slaps = []         # (deal, winner, tie, margin_us, presses)
        self.ties = 0             # races truly inside the tie window
        # per deal
        self.st = None
        self.deal_no = 0
        self.gen = self.per_seat(0)
        self.planned = self.per_seat(None)   # (t, action) a seat is about to do
        self.stuck_since = self.per_seat(None)
        self.paused = False
        self.winner = None
        self.race = None
        self.tied = ()
        self.ready_t = []
        self.done = False
        self.record = None
        self.stored = []

    # -- the game ---------------------------------------------------------------
    def person(self, p):
        return self.people[p]

    def on_phase(self, old, new):
        F = self.F
        t = self.t
        flow = self.board.app.flow
        if new in ("Pause", "Message"):
            raise TableError("unexpected %s screen" % new)
        if new == "Games" and old is not None and old not in ("Boot",):
            if self.record is None:
                raise TableError("back at the game list without a game_end")
            return
        if new == F.LAYOUT:
            self._new_deal()
            p = self.person(self.someone())
            # laying out takes a moment; most press OK, some tap a pad (both work)
            b = OK if self.rng.random() < 0.8 else p.seat
            self.tap(t + p.reaction() + self.rng.randint(300000, 1500000), b, p.tap_us(), p)
        elif new == F.READY:
            self._ready_taps(t)
        elif new == F.PLAY and old == F.COUNT_DOWN:
            self._go(t)
        elif new == F.PLAY and old == F.FLIP:
            self._flipped(t)
        elif new == F.FLIP:
            if self.lift_early:
                self._lift(t, 0.3)
            # The engine turns (and, if a reserve is empty, first rebuilds) at
            # the flip itself; right after a REBUILD screen the reserves on the
            # table are the freshly rebuilt ones.
            empty = not all(self.st.reserves[:self.seats])
            if flow.deal.reserve_left is None and empty and old != F.REBUILD:
                # "DOWN: none left": the rebuilt reserves really are empty (SP-15)
                p = self.person(self.someone())
                self.tap(t + p.reaction(), DOWN, p.tap_us(), p)
        elif new == F.REBUILD:
            if self.lift_early:
                self._lift(t, 1.0)  # hands are needed to shuffle
            p = self.person(self.someone())
            self.tap(t + p.reaction() + self.rng.randint(500000, 2000000), OK, p.tap_us(), p)
        elif new == F.CLAIM:
            self._claimed(t, flow.deal.claimant)
        elif new == F.LEFT:
            self._count(t, flow.left)
        elif new in (F.NEXT, F.FINAL):
            p = self.person(self.someone())
            if self.mistakes and self.rng.random() < 0.15:
                # a pad tap that means nothing on this screen (ignored)
                q = self.person(self.someone())
                self.tap(t + q.reaction(0.5), q.seat, q.tap_us(), q)
            self.tap(t + p.reaction() + 300000, OK, p.tap_us(), p)

    def on_line(self, obj):
        ev = obj.get("ev")
        if ev == "game_end":
            self.record = obj.get("record")
            self.done = True
        elif ev == "claim" and obj.get("verdict") == "rejected":
            self.tied = ()  # the slap that settled a tie was a wrong claim: every pad again
        elif ev == "slap" and obj.get("winner") is None and self.st is not None:
            # a tie (or an app verdict): whoever is out slaps again (SP-17)
            self.paused = False
            for p in range(self.seats):
                self._plan(p, self.t)

    # -- deal steps ---------------------------------------------------------------
    def _new_deal(self):
        self.deal_no += 1
        o = self.opts
        self.st = self.SP.State(self.rng.getrandbits(32), o["layout"], o["jokers"],
                                o["doubles"], o["hand_limit"], o["slap_to_win"], self.seats)
        self.st.apply(self.SP.CHANCE, self.SP.DEAL)
        self.gen = [g + 1 for g in self.gen]
        self.planned = self.per_seat(None)
        self.stuck_since = self.per_seat(None)
        self.paused = False
        self.winner = None
        self.race = None
        self.tied = ()  # SP-34: the seats tied in the last race, who alone slap again

    def _ready_taps(self, t):
        # SP-6: each player taps their pad when ready; the countdown starts at
        # the last tap and GO is exactly 3 s later.
        times = []
        for p in range(self.seats):
            pe = self.person(p)
            times.append(self.tap(t + pe.reaction() + self.rng.randint(0, 600000), p, pe.tap_us(), pe)[0])
        go = max(times) + COUNT_GO_US
        if self.rng.random() < self.false_start:
            # a false start: a pad slapped before GO (SP-6)
            p = self.someone()
            early = self.rng.randint(3000, 400000)
            if go - early > self.free_at[p]:
                pe = self.person(p)
                self.tap(go - early, p, pe.tap_us(), pe)
                self.t_false.append((self.deal_no, p, early))

    def _go(self, t):
        st = self.st
        for p in range(self.seats):
            st.apply(p, self.SP.READY, self.ticks())
        for p in range(self.seats):
            self._plan(p, t)
        if self.mistakes and self.rng.random() < 0.1:
            # UP pressed during play: means nothing there
            self.at(t + self.rng.randint(200000, 3000000), self._stray, UP)

    def _stray(self, b):
        if self.phase == self.F.PLAY and not self.finger[b]:
            p = self.person(self.someone())
            self.tap(self.t, b, p.tap_us(), p)

    def _flipped(self, t):
        # SP-14/SP-15: the app's FLIP GO; everyone was stuck, now each turns a reserve card
        st = self.st
        SP = self.SP
        for p in range(self.seats):
            if st.legal_actions(p) != [SP.STUCK]:
                raise TableError("flip while P%d was not stuck" % (p + 1))
        for p in range(self.seats):
            st.apply(p, SP.STUCK, self.ticks())
        for p in range(self.seats):
            since = self.stuck_since[p]
            if since is not None:
                r = self.release(max(t + self.person(p).reaction(), since + STUCK_HOLD_US), p)
                self.stuck_since[p] = None
                self._plan(p, r)
            else:
                self._plan(p, t)

    def _lift(self, t, chance):
        """Stuck players take their hands off the pads (the flip is coming)."""
        for p in range(self.seats):
            since = self.stuck_since[p]
            if since is not None and self.rng.random() < chance:
                self.release(max(t + self.person(p).reaction(), since + STUCK_HOLD_US), p)
                self.stuck_since[p] = None

    def _plan(self, p, t):
        """Decide seat p's next move from time t (cancels any older plan)."""
        self.gen[p] += 1
        self.planned[p] = None
        st = self.st
        if st is None or st.phase != "play" or self.paused or self.winner is not None:
            return
        SP = self.SP
        pe = self.person(p)
        acts = st.legal_actions(p)
        g = self.gen[p]
        if acts == [SP.SLAP]:
            self.at(t + pe.reaction(), self._slap, p, g)
            return
        a = speed_choice(st, p, self.rng)
        since = self.stuck_since[p]
        if a is not None:
            when = t + pe.reaction()
            if since is not None:
                when = max(when, since + STUCK_HOLD_US)
            self.planned[p] = (when, a)
            self.at(when, self._act, p, g, a)
        elif SP.STUCK in acts and since is None:
            if st.slap_to_win and any(st.left(q) == 0 for q in self.others(p)):
                return  # another is out and about to slap: just wait
            self.at(t + pe.reaction(), self._stuck, p, g)

    def _act(self, p, g, a):
        if g != self.gen[p]:
            return
        st = self.st
        if a not in st.legal_actions(p):
            self._plan(p, self.t)
            return
        if self.stuck_since[p] is not None:
            self.release(self.t, p)  # the hand leaves the pad to play
            self.stuck_since[p] = None
        tag = st.apply(p, a, self.ticks())
        self._acted(p, a, tag)

    def _acted(self, p, a, tag):
        st = self.st
        if self.trace is not None:
            self.trace.append((self.t, "act", p, a, tag) + tuple(st.left(s) for s in range(self.seats)))
        if tag == "out":  # SP-16: out first; the claim is a tap
            self._over(p)
            self._out_tap(p)
            return
        for q in self.others(p):  # a plan the new top card spoiled is made again
            pl = self.planned[q]
            if pl is None or pl[1] not in st.legal_actions(q):
                self._plan(q, self.t)
        self._plan(p, self.t)

    def _out_tap(self, p):
        pe = self.person(p)
        self.tap(self.t + pe.reaction(), p, pe.tap_us(), pe)

    def _stuck(self, p, g):
        if g != self.gen[p]:
            return
        if self.st.legal_actions(p) != [self.SP.STUCK]:
            self._plan(p, self.t)
            return
        if any(self.stuck_since[q] is not None and self.planned[q] is not None for q in self.others(p)):
            # another player is taking their hand off the pad to play a
            # card: wait and see (their play replans us)
            return
        # SP-14: hold the pad while stuck
        self.stuck_since[p] = self.press(self.t, p, self.person(p).bounces())

    def _slap(self, p, g):
        if g != self.gen[p] or self.finger[p]:
            return
        # SP-17: out, so slap; the others stop playing on hearing it
        pe = self.person(p)
        self.tap(self.t, p, pe.tap_us(), pe)
        self.paused = True
        for q in self.others(p):
            self.gen[q] += 1
            self.planned[q] = None
            if self.st.left(q) == 0:
                self.at(self.t + pe.reaction(), self._slap_again, q)
            elif (self.mistakes and self.stuck_since[q] is None and self.rng.random() < 0.3):
                # a reflex slap by a player who still has cards (after the real one)
                qe = self.person(q)
                self.at(self.t + qe.reaction(0.8), self._reflex, q)
        # if the referee does not take the slap (a stuck hold opened the race and
        # voided it), the player slaps again
        self.at(self.t + 1500000, self._slap_check, p)

    def _slap_again(self, q):
        if self.winner is None and self.st.left(q) == 0 and not self.finger[q]:
            self._slap(q, self.gen[q])

    def _reflex(self, q):
        # a reflex to a slap being judged: once that race is decided (void:
        # a stuck hold opened it, SP-26; a tie of stuck holds) a slap by a
        # player with cards would open a race of its own, which only the
        # claim's answer could put right
        if self.winner is None and not self.finger[q] and self.phase == self.F.PLAY and self.race is not None:
            qe = self.person(q)
            self.tap(self.t, q, qe.tap_us(), qe)

    def _slap_check(self, p):
        if self.winner is None and self.race is None and self.phase == self.F.PLAY:
            self.paused = False
            for s in range(self.seats):
                self._plan(s, self.t)

    def _over(self, w):
        st = self.st
        self.winner = w
        self.gen = [x + 1 for x in self.gen]
        self.planned = self.per_seat(None)
        _, left = st.score()
        self.t_deals.append((w, left, st.flips, st.rebuilds))

    # -- the slap race as it happens at the table (SP-17) ----------------------------
    def on_edge(self, b, down):
        if b >= self.seats or not down or self.phase != self.F.PLAY or not self.opts["slap_to_win"]:
            return
        if self.winner is not None:
            return
        if self.tied and b not in self.tied:
            return  # SP-34: not in the tie, so not in its re-slap
        r = self.race
        if r is None:
            self.race = {"t1": self.t, "in": {b: self.t}}
        elif "v" not in r and b not in r["in"]:
            r["in"][b] = self.t

    def after_step(self):
        r = self.race
        if r is None:
            return
        # The referee decides once the pads are up (or a hold has lasted
        # HOLD_US) and the tie window has passed; a first presser still
        # holding then was making a stuck call: no slap at all.
        t = self.t
        if "v" not in r:
            racing = [s for s in range(self.seats) if not self.tied or s in self.tied]
            if any(self.level[s] for s in racing) and t - r["t1"] < HOLD_US:
                return
            if t - r["t1"] <= self.window:
                return
            order = sorted(r["in"], key=lambda s: (r["in"][s], s))
            first = r["in"][order[0]]
            tie = [s for s in order if r["in"][s] - first <= self.window]
            margin = r["in"][order[1]] - first if len(order) > 1 else None
            w = order[0] if len(tie) == 1 else None
            r["v"] = (self.deal_no, w, tuple(tie) if w is None else (), margin, tuple(order))
        v = r["v"]
        w = v[1]
        if w is not None and self.level[w]:
            if t - self.down_t[w] >= HOLD_US:
                self.race = None  # void: that was a stuck hold
            return
        self.race = None
        self.t_slaps.append(v)
        if w is None:
            self.ties += 1
            taps = tuple(s for s in v[2] if not self.level[s])  # a pad still down: a stuck hold
            self.tied = taps if len(taps) > 1 else ()
            return
        self.tied = ()
        st = self.st
        if st.left(w) != 0:
            raise TableError("deal %d: P%d slapped first with cards left" % (self.deal_no, w + 1))
        st.apply(w, self.SP.SLAP, self.ticks())
        self._over(w)

    def _claimed(self, t, c):
        if c != self.winner:
            raise TableError("the app shows P%d out, the table's winner is %s"
                             % (c + 1, None if self.winner is None else "P%d" % (self.winner + 1)))
        q = self.others(c)[0]  # the player after the claimant answers
        self._hands_off(t, self.others(c)[1:])
        qe = self.person(q)
        r = t + qe.reaction()
        if self.stuck_since[q] is not None:
            r = self.release(max(r, self.stuck_since[q] + STUCK_HOLD_US), q)
            self.stuck_since[q] = None
            r += qe.reaction(0.6)
        # SP-16: the opponent reads the question, then holds their pad: yes
        r = max(r, t + CLAIM_WAIT_US + qe.reaction())
        self.tap(r, q, HOLD_US + 100000 + qe.tap_us(), qe)

    def _hands_off(self, t, seats):
        """SP-33: those of `seats` stuck on their pads let go (someone is out)."""
        for s in seats:
            since = self.stuck_since[s]
            if since is not None:
                self.release(max(t + self.person(s).reaction(), since + STUCK_HOLD_US), s)
                self.stuck_since[s] = None

    def _count(self, t, shown):
        # SP-18, SP-35: the losers' cards are counted and entered with
        # UP/DOWN, OK: with two players the loser's, with more one count a
        # loser in seat order (each starts at the lowest, as `shown`)
        w = self.winner
        left = self.t_deals[-1][1]
        counts = [left] if self.seats == 2 else [left[q] for q in range(self.seats) if q != w]
        pe = self.person(w)
        hi = self.board.app.flow.deal.left_bounds()[1]
        for n in counts:
            keys = [UP] * (n - shown) if n >= shown else [DOWN] * (shown - n)
            if self.mistakes and n >= shown and n < hi and self.rng.random() < 0.2:
                keys = [UP] * (n - shown + 1) + [DOWN]  # one too many, then back
            t += pe.reaction() + self.rng.randint(500000, 2000000)  # counting takes a moment
            for b in keys + [OK]:
                t = self.tap(t, b, pe.tap_us(), pe)[1] + self.rng.randint(80000, 250000)
        if self.mistakes and self.rng.random() < 0.1:
            q = self.person(self.others(w)[0])
            self.tap(self.t + q.reaction(), q.seat, q.tap_us(), q)  # a stray pad tap: ignored

    # -- the verdicts against the truth --------------------------------------------------
    def compare(self):
        """Disagreements between the app's log and record and the table's truth."""
        from speedref.engine import speed
        bad = []
        evs = [o for _, o in self.lines]
        for o in evs:
            if o.get("ev") == "error":
                bad.append("device error line: %s" % json.dumps(o))
        fs = [(o["deal"], o["seat"], o["early_us"]) for o in evs if o.get("ev") == "false_start"]
        if fs != self.t_false:
            bad.append("false starts: app %r, table %r" % (fs, self.t_false))
        sl = [(o["deal"], o["winner"], tuple(o["tie"]), o["margin_us"], tuple(o["presses"]))
              for o in evs if o.get("ev") == "slap"]
        if sl != self.t_slaps:
            bad.append("slaps: app %r, table %r" % (sl, self.t_slaps))
        # a list of counts on the log line (JSON) is the engine's tuple
        dl = [(o["winner"], tuple(o["left"]) if isinstance(o["left"], list) else o["left"], o["flips"],
               o["rebuilds"]) for o in evs if o.get("ev") == "deal"]
        if dl != self.t_deals:
            bad.append("deals: app %r, table %r" % (dl, self.t_deals))
        rec = self.record
        if rec is None:
            bad.append("no game_end record")
        else:
            plain = {k: v for k, v in rec.items() if k not in ("id", "table")}
            want = speed.SpeedMatch(self.opts["layout"], self.F.match_of(self.opts), self.player_names(),
                                    self.opts["jokers"], self.opts["doubles"],
                                    self.opts["hand_limit"], self.opts["slap_to_win"])
            for w, left, _, _ in self.t_deals:
                want.add_deal(w, left)
            if plain != want.to_record():
                bad.append("record: app %r, table %r" % (plain, want.to_record()))
            if rec not in self.stored:
                bad.append("the game_end record is not the stored record")
            got = speed.replay(plain)
            if got.totals != want.totals or got.winners() != want.winners():
                bad.append("scores: app %r, table %r" % (got.totals, want.totals))
        return bad
