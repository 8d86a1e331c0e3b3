"""Spit at the virtual table: two computer players play real cards with the
card-level engine (speedref.engine.spit_cards) and press the virtual board's
pads and buttons where the Spit referee flow (app/spit_flow.py) expects a
person to:

  * LAYOUT: OK (or a pad) once the cards are laid out;
  * READY: each taps their pad ("Spit!", SPIT-4); GO is 3 s after the
    second tap, then both turn their spit cards (the engine's SPIT calls);
  * PLAY: cards go on the centre piles after a human reaction time; a
    player with no play, turn or move holds their pad (stuck, SPIT-8) and
    lets go to play again; both stuck: the app counts down to "Spit again"
    (RESTART) or, with no spit cards anywhere, blocks the round (SPIT-13);
    a player whose last stock card went down taps their pad (SPIT-9);
  * SLAP: both slap one second after the clearing tap (SPIT-17), each the
    centre pile they think smaller; the first takes it (SPIT-10);
  * CARDS: P1's count after the relayout entered with UP/DOWN (a tap a
    step, or a held key that repeats and is let go late, then corrected),
    OK (SPIT-12);  FINAL: OK stores the record.

Mistakes: a false start before GO in the start countdown, the restart
countdown (a stuck player who lifted their hands puts one back early) and
the slap (a reflex slap at the clearing tap) (SPIT-18); a second slap on
the same pad; stray presses where they mean nothing (UP in play, pad P3,
a pad on the count or final screen); bouncy contacts (sim/bots.py).

The truth is the card-level engine plus the table's own press times: who
cleared, who really slapped first and by how much (a true margin inside the
tie window is a tie, counted: the rule gives it to the player who cleared),
every false start and how early it was, restarts, blocked rounds, the
counts after each relayout, the winner.  compare() checks them against
the device's USB log (`false_start`, `slap`, `round`, `error`, `game_end`)
and the record on the virtual flash.

    speedref-sim --table spit --games 100 --seed 7
    python -m sim.table.spit_table --games 200 --seed 1     # the same, with a tally of
                                                      # restarts, blocked rounds, ...
"""
import json

from sim.bots import Person, STUCK_HOLD_US
from sim.table.base import Table, TableError, UP, DOWN, OK, play_at
from speedref import games

# The device's own timings, so the people wait for what the referee waits for:
# a stuck hold, GO 3 s after the second ready tap / both stuck (SPIT-4, SPIT-8),
# the slap's GO (SPIT-17, SPIT-18), and how long a second slap still counts.
from speedref.tunables import SPIT_HOLD_US as HOLD_US, SLAP_WAIT_US  # noqa: E402
from speedref.tunables import COUNT_GO_US as COUNTDOWN_US  # noqa: E402
from speedref.engine.spit import SLAP_GO_US  # noqa: E402
SECOND_SLAP_US = 850000   # people slap within this of hearing the first (see _slapped)
STOP_US = 150000          # a slap due sooner than this after a FOUL cannot be held back
MENU = dict((k, v) for k, _, v in games.get("spit").options)  # the menu's values


def spit_options(rng):
    """Every tie window the menu offers; wide ones often, so ties happen."""
    return {"tie_ms": rng.choice(MENU["tie_ms"] + (20, 50, 50))}


class SpitTable(Table):
    """Two computer players at one Spit game."""

    GAME = "spit"
    # The device loop runs every loop_us (PASS_US) only while the app times
    # something the table cannot name in advance: the slap race (GO sound,
    # verdict) and held UP/DOWN/OK (key repeat, long OK).  Otherwise
    # spit_flow.tick times only the countdown cues and a held pad's HOLD_US,
    # and the table adds a loop pass at exactly those instants; between them
    # the loop passes every IDLE_PASS_US.  Every edge still gets its own pass
    # at its exact time, so no verdict changes (passes at the deadlines are
    # the most exact loop).
    IDLE_PASS_US = 50000

    def __init__(self, seed, loop_us=None, start_us=None, opts=None, mistakes=True,
                 lift_early=True, false_start=0.06, realtime=False, idle_us=IDLE_PASS_US, store=None):
        Table.__init__(self, seed, loop_us, start_us, realtime, store)
        self.idle_us = idle_us    # None: the loop every loop_us throughout (Table.run)
        from speedref.app import spit_flow as F
        from speedref.engine import spit_cards as SP
        self.F = F
        self.SP = SP
        rng = self.rng
        self.opts = opts or spit_options(rng)
        self.window = self.board.app.tie_window_us(self.opts["tie_ms"])  # the referee's own
        self.mistakes = mistakes
        # lift_early: stuck players may take their hands off the pads once
        # the "Spit again" countdown runs, as people do.
        self.lift_early = lift_early
        self.false_start = false_start if mistakes else 0.0  # chance per countdown
        self.people = [Person(rng, s, bounce=0.08 if mistakes else 0) for s in range(self.seats)]
        # truth
        self.st = None
        self.t_rounds = []        # (round dict as in the record, restarts in it)
        self.t_deals = self.t_rounds  # the name runner.run() counts
        self.t_false = []         # (round, seat, early_us, when)
        self.t_slaps = []         # (round, winner, tie, margin_us, presses, cleared, takes_smaller)
        self.ties = 0             # slap races truly inside the tie window
        self.restarts = 0
        # this round
        self.restarts_now = 0
        self.go = None            # GO of the running countdown (START / RESTART)
        self.fouled = False       # a false start in the running countdown
        self.slap_go = None
        self.slap_t = {}          # seat -> first counted slap time
        self.slap_pile = {}       # seat -> the centre pile slapped
        self.slap_gen = self.per_seat(0)
        self.up_t = self.per_seat(0)  # when each pad was last let go (the clearing tap's release)
        # players
        self.gen = self.per_seat(0)
        self.planned = self.per_seat(None)   # (t, action) a seat is about to do
        self.stuck_since = self.per_seat(None)
        self.live = False         # cards are being played (the engine's play phase, after GO)
        self.counting = None      # CARDS: [target, key held or 0, release planned, who counts]
        self.done = False
        self.record = None
        self.stored = []

    # -- the game -----------------------------------------------------------------
    def loop_step(self):
        """Every idle_us while the table knows the app's deadlines (see
        IDLE_PASS_US); every loop_us in the slap race and while UP, DOWN or OK
        is held (their repeat is timed by the app's tick)."""
        level = self.level
        if not self.idle_us or self.phase == self.F.SLAP or level[UP] or level[DOWN] or level[OK]:
            return self.loop_us
        return self.idle_us

    def person(self, p):
        return self.people[p]

    def round_no(self):
        return len(self.st.rounds) + 1

    def on_line(self, obj):
        if obj.get("ev") == "game_end":
            self.record = obj.get("record")
            self.done = True

    def on_phase(self, old, new):
        F = self.F
        t = self.t
        if new in ("Pause", "Message"):
            raise TableError("unexpected %s screen" % new)
        if new == "Games" and old is not None and old != "Boot":
            if self.record is None:
                raise TableError("back at the game list without a game_end")
            return
        if new == F.LAYOUT:
            if self.st is None:
                self.st = self.SP.State(self.rng.getrandbits(32))
                self.st.apply(self.SP.CHANCE, self.SP.DEAL)  # SPIT-1, SPIT-2: the shuffle and the first layout
            elif self.st.phase != "spit":
                raise TableError("the app lays out round %d while the table is in %s"
                                 % (self.round_no(), self.st.phase))
            self.restarts_now = 0
            p = self.person(self.someone())
            # laying out takes a while; most press OK, some tap a pad (both work)
            b = OK if self.rng.random() < 0.8 else p.seat
            self.tap(t + p.reaction() + self.rng.randint(1000000, 3000000), b, p.tap_us(), p)
        elif new == F.READY:
            self._ready_taps(t)
        elif new == F.START:
            self._cue_passes()
        elif new == F.PLAY and old == F.START:
            if self.fouled:
                raise TableError("the app went on to play after a false start")
            self._start(t)
        elif new == F.RESTART:
            self._both_stuck(t, "restarted")
            self._restart_countdown(t)
        elif new == F.PLAY and old == F.RESTART:
            self._restart_go(t)
        elif new == F.SLAP:
            if self.st.phase != "slap":
                raise TableError("the app races a slap; at the table %s" % self.st.phase)
            self._slap_race(t)
        elif new == F.CARDS:
            self._cards(t, old)
        elif new == F.FINAL:
            if self.st.phase != "over":
                raise TableError("the app ends the game; at the table %s" % self.st.phase)
            p = self.person(self.someone())
            if self.mistakes and self.rng.random() < 0.15:
                q = self.person(self.opponent(p.seat))
                self.at(t + q.reaction(0.5), self._stray, q.seat, F.FINAL)
            self.tap(t + p.reaction() + 400000, OK, p.tap_us(), p)

    # -- the start and the countdowns (SPIT-4, SPIT-8, SPIT-18) ----------------------------
    def _ready_taps(self, t):
        # SPIT-4: each taps their pad; GO is exactly 3 s after the second tap.
        self.live = False
        self.fouled = False
        times = []
        for p in range(self.seats):
            pe = self.person(p)
            times.append(self.tap(t + pe.reaction() + self.rng.randint(0, 800000), p,
                                  pe.tap_us(), pe)[0])
        self.go = max(times) + COUNTDOWN_US
        self._maybe_false_start()

    def _maybe_false_start(self):
        if self.rng.random() < self.false_start:
            p = self.someone()
            early = self.rng.randint(3000, 400000)
            if self.go - early > self.free_at[p] and not self.finger[p]:
                pe = self.person(p)
                self.tap(self.go - early, p, pe.tap_us(), pe)

    def _all_spit(self):
        """Everyone calls Spit! and turns a spit card (the engine's SPIT, in
        seat order): the last call's tag."""
        for p in range(self.seats):
            tag = self.st.apply(p, self.SP.SPIT, self.ticks())
        return tag

    def _start(self, t):
        if self._all_spit() != "start":
            raise TableError("round %d did not start at GO" % self.round_no())
        self.live = True
        for p in range(self.seats):
            self._plan(p, t)
        if self.mistakes and self.rng.random() < 0.15:
            # UP or pad P3 pressed during play: means nothing in Spit
            self.at(t + self.rng.randint(200000, 4000000), self._stray,
                    self.rng.choice((UP, 2)), self.F.PLAY)

    def _stray(self, b, phase):
        if self.phase == phase and not self.finger[b] and self.free_at[b] <= self.t:
            p = self.person(self.someone())
            self.tap(self.t, b, p.tap_us(), p)

    def _cue_passes(self):
        # the countdown's cues at +1 s, +2 s and GO at +3 s (one loop pass each)
        for k in (2, 1, 0):
            self.at(self.go - k * 1000000, self._step)

    def _both_stuck(self, t, what):
        """The app says both are stuck: check that both really are and have
        held their pads HOLD_US (and that the app took no longer to see it
        than one loop pass)."""
        st = self.st
        for p in range(self.seats):
            if st.phase != "play" or st.legal_actions(p) != [self.SP.SPIT]:
                raise TableError("round %d: the app %s but P%d is not stuck"
                                 % (self.round_no(), what, p + 1))
            if self.stuck_since[p] is None or not self.level[p]:
                raise TableError("round %d: the app %s but P%d is not holding"
                                 % (self.round_no(), what, p + 1))
        late = t - (max(self.stuck_since) + HOLD_US)
        if late < 0 or late > self.loop_us:
            raise TableError("round %d: the app %s %d us after both held %d us"
                             % (self.round_no(), what, late, HOLD_US))

    def _restart_countdown(self, t):
        # SPIT-8: "Spit again!" 3-2-1, GO.  Stuck players may lift their hands.
        self.live = False
        self.fouled = False
        self.go = t + COUNTDOWN_US
        self._cue_passes()
        if self.lift_early:
            for p in range(self.seats):
                if self.rng.random() < 0.5:
                    self._let_go(p, t + self.person(p).reaction())
        self._maybe_false_start()

    def _restart_go(self, t):
        if not self.fouled:
            # GO: both turn spit cards (SPIT-8); the engine must agree it is a restart
            tag = self._all_spit()
            if tag != "restart":
                raise TableError("round %d: the app restarted, the table's Spit! gave %s"
                                 % (self.round_no(), tag))
            self.restarts_now += 1
            self.restarts += 1
        # After GO (or a false start, SPIT-18: still stuck, hold again) every
        # hand leaves its pad: a hold across GO is no stuck call in the app.
        self.live = True
        for p in range(self.seats):
            r = self._let_go(p, t + self.person(p).reaction())
            self._plan(p, t if r is None else r)

    def _let_go(self, p, t):
        """Seat p takes their hand off a held pad (never before a hold is a
        stuck call: a shorter press would be a tap)."""
        since = self.stuck_since[p]
        if since is None:
            return None
        self.stuck_since[p] = None
        return self.release(max(t, since + STUCK_HOLD_US), p)

    # -- playing cards -----------------------------------------------------------------
    def _choose(self, p):
        """A card to play (any that fits), else a face-down card to turn, else
        a move into an empty space (SPIT-5, SPIT-6); None: stuck."""
        SP = self.SP
        acts = self.st.legal_actions(p)
        plays = [a for a in acts if a < 16]
        if plays:
            return plays[self.rng.randrange(len(plays))]
        turns = [a for a in acts if SP.turn_action(0) <= a < SP.turn_action(5)]
        if turns:
            return turns[self.rng.randrange(len(turns))]
        moves = [a for a in acts if SP.move_action(0, 0) <= a < SP.move_action(5, 0)]
        return moves[0] if moves else None

    def _plan(self, p, t):
        """Decide seat p's next move from time t (cancels any older plan)."""
        self.gen[p] += 1
        self.planned[p] = None
        st = self.st
        if not self.live or st.phase != "play":
            return
        g = self.gen[p]
        a = self._choose(p)
        since = self.stuck_since[p]
        if a is not None:
            when = t + self.person(p).reaction()
            if since is not None:
                when = max(when, since + STUCK_HOLD_US)
            self.planned[p] = (when, a)
            self.at(when, self._act, p, g, a)
        elif since is None:
            self.at(t + self.person(p).reaction(), self._stuck, p, g)

    def _act(self, p, g, a):
        if g != self.gen[p]:
            return
        st = self.st
        if not self.live or a not in st.legal_actions(p):
            self._plan(p, self.t)
            q = self.opponent(p)
            if self.planned[q] is None and self.stuck_since[q] is None:
                self._plan(q, self.t)  # a waiting player must not wait forever
            return
        if self.stuck_since[p] is not None:
            self._let_go(p, self.t)  # the hand leaves the pad to play
        tag = st.apply(p, a, self.ticks())
        if self.trace is not None:
            self.trace.append((self.t, "act", p, a, tag, st.phase))
        if tag in ("play", "turn", "move", "race") and st.phase == "play":
            q = self.opponent(p)
            pl = self.planned[q]
            if pl is None or pl[1] not in st.legal_actions(q):
                self._plan(q, self.t)
            self._plan(p, self.t)
            return
        # p's last stock card went down (SPIT-9): the round is over at the table
        self._cleared(p, tag)
        pe = self.person(p)
        self.tap(self.t + pe.reaction(), p, pe.tap_us(), pe)  # "cleared!"

    def _cleared(self, p, tag):
        """Player p has put down their last stock card (SPIT-9): play stops,
        pending plans are dropped and the other player lets go of their pad."""
        if tag == "round":
            self._round_ended()
        elif tag == "out":
            self.t_rounds.append((dict(self.st.rounds[-1]), self.restarts_now))
        self.live = False
        self.gen = [x + 1 for x in self.gen]
        self.planned = self.per_seat(None)
        q = self.opponent(p)
        self._let_go(q, self.t + self.person(q).reaction())

    def _stuck(self, p, g):
        if g != self.gen[p] or not self.live:
            return
        if self.st.legal_actions(p) != [self.SP.SPIT]:
            self._plan(p, self.t)
            return
        q = self.opponent(p)
        if self.stuck_since[q] is not None and self.planned[q] is not None:
            # the other is taking their hand off the pad to play: wait and
            # see (their play replans us)
            return
        if self.finger[p]:
            self.at(self.free_at[p], self._stuck, p, g)
            return
        # SPIT-8: hold the pad while stuck
        self.stuck_since[p] = self.press(self.t, p, self.person(p).bounces())
        self.at(self.stuck_since[p] + HOLD_US, self._step)  # the app's HOLD_US deadline

    def _round_ended(self):
        self.t_rounds.append((dict(self.st.rounds[-1]), self.restarts_now))

    # -- the slap (SPIT-10, SPIT-17, SPIT-18) --------------------------------------------
    def _slap_race(self, t):
        # GO one second after the clearing tap, i.e. after its release (SPIT-17)
        c = self.st.cleared
        self.slap_go = self.up_t[c] + SLAP_GO_US
        self.slap_t = {}
        self.slap_pile = {}
        for p in range(self.seats):
            self._plan_slap(p)
        if self.mistakes and self.rng.random() < 0.2:
            # a reflex slap by the other player at the clearing tap: early
            q = self.opponent(c)
            self.slap_gen[q] += 1
            self.at(t + self.person(q).reaction(0.6), self._slap, q, self.slap_gen[q])

    def _plan_slap(self, p):
        self.slap_gen[p] += 1
        self.at(self.slap_go + self.person(p).reaction(), self._slap, p, self.slap_gen[p])

    def _slap(self, p, g):
        if g != self.slap_gen[p] or self.phase != self.F.SLAP or p in self.slap_t:
            return
        if self.finger[p]:
            self.at(self.free_at[p], self._slap, p, g)
            return
        pe = self.person(p)
        t0, t1 = self.tap(self.t, p, pe.tap_us(), pe)
        if self.mistakes and self.rng.random() < 0.05:
            # a second slap on the same pad: the race counts a seat once
            self.at(t1 + self.rng.randint(50000, 200000), self._stray, p, self.F.SLAP)

    def _pile(self, p):
        """The centre pile p thinks is smaller (SPIT-10), sometimes wrong."""
        n = [len(x) for x in self.st.centre]
        k = 0 if n[0] < n[1] else 1 if n[1] < n[0] else self.rng.randrange(len(n))
        if self.mistakes and self.rng.random() < 0.1:
            k = 1 - k
        return k

    def on_edge(self, b, down):
        if b >= self.seats or not down:
            if b < self.seats and not down:
                self.up_t[b] = self.t
            return
        F = self.F
        ph = self.phase
        t = self.t
        if ph in (F.START, F.RESTART):
            if t < self.go:  # SPIT-18: a pad before GO
                self.fouled = True
                self.t_false.append((self.round_no(), b, self.go - t,
                                     "start" if ph == F.START else "restart"))
        elif ph == F.SLAP and self.st.phase == "slap":
            if t < self.slap_go:  # SPIT-18: GO again one second after it, for both
                self.t_false.append((self.round_no(), b, self.slap_go - t, "slap"))
                self.slap_go = t + SLAP_GO_US
                for p in range(self.seats):
                    if p != b and not self._due_soon(p):
                        self._plan_slap(p)
                self._plan_slap(b)
            elif b not in self.slap_t:
                self._slapped(b, t)

    def _due_soon(self, p):
        """Seat p's slap is due within STOP_US: too late to hold it back."""
        for when, _, _, fn, args in self._q:
            if fn == self._slap and args[0] == p and args[1] == self.slap_gen[p]:
                return when - self.t < STOP_US
        return False

    def _slapped(self, p, t):
        st = self.st
        SP = self.SP
        k = self._pile(p)
        self.slap_t[p] = t
        self.slap_pile[p] = k
        self.slap_gen[p] += 1  # their own later slaps are void
        q = self.opponent(p)
        if len(self.slap_t) == 1:
            st.apply(p, SP.slap_action(k), self.ticks())
            # the other heard it: they slap at once if they have not yet
            self.slap_gen[q] += 1
            when = None
            for w, _, _, fn, args in self._q:
                if fn == self._slap and args[0] == q:
                    when = w if when is None else min(when, w)
            soon = t + self.rng.randint(STOP_US, SECOND_SLAP_US)
            self.at(min(when, soon) if when is not None else soon, self._slap, q, self.slap_gen[q])
            return
        first = [s for s in self.slap_t if s != p][0]
        t1 = self.slap_t[first]
        margin = t - t1
        rnd = self.round_no()
        if margin > SLAP_WAIT_US:
            raise TableError("round %d: P%d slapped %d us after the first" % (rnd, p + 1, margin))
        tie = margin <= self.window  # SPIT-10: a tie goes to the player who cleared
        # The engine ranks the two slaps by time; a tie is the same instant to it.
        st.apply(p, SP.slap_action(k), self.ticks(t1 if tie else t))
        r = st.rounds[-1]
        w = None if tie else first
        if tie:
            self.ties += 1
        order = (first, p) if margin else (min(first, p), max(first, p))  # the arbiter's order
        self.t_slaps.append((rnd, w, order if tie else (), margin, order,
                             r["cleared"], r["slap"]))
        self._round_ended()

    # -- the count (SPIT-12) ----------------------------------------------------------
    def _cards(self, t, old):
        F = self.F
        st = self.st
        if old == F.PLAY and st.phase == "play":
            # SPIT-13: both stuck and no spit cards anywhere: a blocked round
            self._both_stuck(t, "blocked the round")
            tag = self._all_spit()
            if tag != "blocked":
                raise TableError("round %d: the app blocked it, the table's Spit! gave %s"
                                 % (self.round_no() - 1, tag))
            self._round_ended()
        elif st.phase != "spit" or not self.t_rounds or len(self.t_rounds) != len(st.rounds):
            raise TableError("the app asks for the count; at the table %s" % st.phase)
        self.live = False
        for p in range(self.seats):
            self._let_go(p, t + self.person(p).reaction())
        target = st.rounds[-1]["cards"][0]
        w = self.someone()
        self.counting = [target, 0, False, w]
        if self.mistakes and self.rng.random() < 0.1:
            q = self.opponent(w)
            self.at(t + self.person(q).reaction(0.5), self._stray, q, F.CARDS)
        # counting the cards takes a moment
        self.at(t + self.person(w).reaction() + self.rng.randint(500000, 2000000), self._count)

    def _count(self):
        """One step of entering P1's count: read the screen, then a tap, a
        held key (repeats after 0.5 s, let go on seeing the number: late),
        or OK."""
        c = self.counting
        if c is None or self.phase != self.F.CARDS:
            return
        target, _, _, w = c
        pe = self.person(w)
        shown = self.board.app.flow.count
        if shown == target:
            self.counting = None
            self.tap(self.t, OK, pe.tap_us(), pe)
            return
        b = UP if target > shown else DOWN
        if abs(target - shown) >= 6 and self.rng.random() < 0.6:
            c[1] = b
            c[2] = False
            self.press(self.t, b)
            return
        t1 = self.tap(self.t, b, pe.tap_us(), pe)[1]
        self.at(t1 + self.rng.randint(80000, 250000), self._count)

    def after_step(self):
        c = self.counting
        if c is None or not c[1] or c[2] or self.phase != self.F.CARDS:
            return
        shown = self.board.app.flow.count
        if (shown >= c[0]) if c[1] == UP else (shown <= c[0]):
            # seen the number: let go after a reaction (the key repeats on)
            c[2] = True
            r = self.release(self.t + self.person(c[3]).reaction(0.5), c[1])
            c[1] = 0
            self.at(r + self.rng.randint(150000, 400000), self._count)

    # -- the verdicts against the truth ------------------------------------------------
    def compare(self):
        """Disagreements between the app's log and record and the table's truth."""
        from speedref.engine import spit
        bad = []
        evs = [o for _, o in self.lines]
        for o in evs:
            if o.get("ev") == "error":
                bad.append("device error line: %s" % json.dumps(o))
        fs = [(o["round"], o["seat"], o["early_us"], o["when"])
              for o in evs if o.get("ev") == "false_start"]
        if fs != self.t_false:
            bad.append("false starts: app %r, table %r" % (fs, self.t_false))
        sl = [(o["round"], o["winner"], tuple(o["tie"]), o["margin_us"], tuple(o["presses"]),
               o["cleared"], o["takes_smaller"]) for o in evs if o.get("ev") == "slap"]
        if sl != self.t_slaps:
            bad.append("slaps: app %r, table %r" % (sl, self.t_slaps))
        keys = ("cleared", "slap", "blocked", "cards")
        rl = [(o["round"], {k: o[k] for k in keys if k in o}, o["restarts"])
              for o in evs if o.get("ev") == "round"]
        want = [(i + 1, r, n) for i, (r, n) in enumerate(self.t_rounds)]
        if rl != want:
            bad.append("rounds: app %r, table %r" % (rl, want))
        rec = self.record
        if rec is None:
            bad.append("no game_end record")
            return bad
        plain = {k: v for k, v in rec.items() if k not in ("id", "table")}
        truth = {"game": "spit", "players": self.player_names(),
                 "rounds": [dict(r) for r in self.st.rounds]}
        if plain != truth:
            bad.append("record: app %r, table %r" % (plain, truth))
        if rec not in self.stored:
            bad.append("the game_end record is not the stored record")
        try:
            got = spit.replay(plain)
        except ValueError as e:
            bad.append("the record does not replay: %s" % e)
        else:
            if got.winners() != [self.st.winner]:
                bad.append("winner: app %r, table P%d" % (got.winners(), self.st.winner + 1))
        return bad


def tally(tables):
    """Counts over played tables: rounds by how they ended, restarts, ties."""
    s = {"rounds": 0, "slap_rounds": 0, "one_pile_rounds": 0, "blocked_rounds": 0,
         "restarts": 0, "slaps": 0, "ties_in_window": 0, "false_starts": 0,
         "false_starts_slap": 0, "false_starts_restart": 0}
    for tb in tables:
        for r, _ in tb.t_rounds:
            s["rounds"] += 1
            if r.get("blocked"):
                s["blocked_rounds"] += 1
            elif "slap" in r:
                s["slap_rounds"] += 1
            elif r["cards"][r["cleared"]]:
                s["one_pile_rounds"] += 1
        s["restarts"] += tb.restarts
        s["slaps"] += len(tb.t_slaps)
        s["ties_in_window"] += tb.ties
        s["false_starts"] += len(tb.t_false)
        s["false_starts_slap"] += sum(1 for f in tb.t_false if f[3] == "slap")
        s["false_starts_restart"] += sum(1 for f in tb.t_false if f[3] == "restart")
    return s


def main(argv=None):
    import argparse
    import sys
    import time
    ap = argparse.ArgumentParser(description="Spit at the virtual table, with a tally")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    tabs = []
    bad = 0
    t0 = time.perf_counter()
    for i in range(a.games):
        tb, b = play_at(SpitTable, a.seed, i)
        tabs.append(tb)
        if b:
            bad += 1
            sys.stdout.write("game %d DISAGREES:\n  %s\n" % (i, "\n  ".join(b)))
    dt = time.perf_counter() - t0
    s = tally(tabs)
    sys.stdout.write("spit table: games %d, disagreements %d, %.1f s, %.2f games/s\n  %s\n"
                     % (a.games, bad, dt, a.games / dt if dt else 0,
                        ", ".join("%s %d" % kv for kv in s.items())))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
