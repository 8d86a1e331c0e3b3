"""The virtual table: computer players play real cards with the card-level
engine, and press the virtual board's pads and buttons as people would.

    speedref-sim --table speed --games 100 --seed 7

Each game gets a fresh virtual board (sim/board.py: the firmware's own
capture handler, ring buffer, input decoder, device loop and referee app)
whose clock starts at a random ticks_us value, so games cross the 2**30
wrap.  The people at the table:

  * navigate the menu to the game and its options (chosen per game from the
    seeded rng), pressing UP/DOWN/OK;
  * play the cards with the card-level engine (speedref.engine.speed_play),
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
import heapq
import json
import random
import time

from sim import compat

compat.install()

from sim.board import Board  # noqa: E402
from sim.bots import Person, speed_choice, STUCK_HOLD_US  # noqa: E402
from sim.hardware import PERIOD, MASK  # noqa: E402

UP, DOWN, OK = 4, 5, 6
LOOP_US = 5000          # the simulated main loop runs every 5 ms (and at every edge)
# Speed's own table (SpeedTable, below) lives in this module next to the Table
# base it grew out of; the registry names it "sim.table:SpeedTable" as it
# names the others' modules, and nothing else here is Speed's.
from speedref.tunables import SPEED_HOLD_US as HOLD_US, CLAIM_WAIT_US  # noqa: E402  (stuck call; SP-16 reflex)
from speedref.tunables import TIE_DEFAULT_US  # noqa: E402
from speedref import games as registry  # noqa: E402
GAME_LIMIT_US = 3600 * 1000000  # one simulated hour: a game that takes longer has stalled


class TableError(Exception):
    """The table itself could not go on (a stalled game, an unexpected screen)."""


def tie_us(tie_ms):
    """The tie window the referee uses for a "tie_ms" option: "auto" is the
    app's default, which the simulated board keeps at 5 ms (app/core.py)."""
    return TIE_DEFAULT_US if tie_ms == "auto" else tie_ms * 1000


def seen(board):
    """What a person reads off the OLED: the running flow's phase, or the
    name of the screen (Boot, Games, Options, Pause, Message)."""
    app = board.app
    if app.flow is not None and app.screen is app.flow:
        return app.flow.phase
    return type(app.screen).__name__


class Table:
    """A virtual board with fingers on its buttons and a simulated clock.

    Edges and the players' own actions are queued by simulated time (elapsed
    microseconds since the game began); the device loop runs every loop_us
    and right after every edge, as the board's loop would see it."""

    def __init__(self, seed, loop_us=LOOP_US, start_us=None, realtime=False, store=None):
        self.rng = random.Random(seed)
        self.seed = seed
        self.start_us = self.rng.randrange(PERIOD) if start_us is None else start_us & MASK
        # realtime: a person plays too; the board follows the host clock and
        # pump() runs whatever is due (sim/table/play.py)
        self.realtime = realtime
        # store: the board's flash folder (speedref-sim --store), kept after
        # the table closes; None: a fresh temporary one
        self.board = Board(root=store, start_us=self.start_us, realtime=realtime)
        self.loop_us = loop_us
        self.t = 0
        self._q = []
        self._n = 0
        self.level = [False] * 8      # buttons as the decoder sees them (first edge)
        self.down_t = [0] * 8         # when each went down
        self.finger = [False] * 8     # a press is planned and its release not yet
        self.free_at = [0] * 8        # a finger can press this button again from then
        self.lines = []               # (t, obj): the device's USB log
        self.phase = None
        self.steps = 0
        self.trace = None             # a list to record what happened (debugging)

    def boot(self):
        """The board's first loop pass (the boot screen)."""
        self.board.step()
        self._observe()

    # -- time -----------------------------------------------------------------
    def ticks(self, t=None):
        return (self.start_us + (self.t if t is None else t)) & MASK

    def at(self, t, fn, *args):
        self._n += 1
        heapq.heappush(self._q, (max(t, self.t), 1, self._n, fn, args))

    def _edge_at(self, t, b, down, logical):
        self._n += 1
        heapq.heappush(self._q, (t, 0, self._n, self._edge, (b, down, logical)))

    # -- fingers ----------------------------------------------------------------
    def press(self, t, b, bounce=()):
        """A finger goes down on button b at t (or when the button is free
        again); returns the time of the press.  bounce: offsets of extra
        contact edges."""
        t = max(t, self.t, self.free_at[b])
        if self.finger[b]:
            raise TableError("button %d pressed twice without a release" % b)
        self.finger[b] = True
        self.free_at[b] = 1 << 62
        self._edge_at(t, b, True, True)
        for i, dt in enumerate(bounce):
            self._edge_at(t + dt, b, i % 2 == 1, False)
        return t

    def release(self, t, b, bounce=()):
        if not self.finger[b]:
            return None
        t = max(t, self.t)
        self.finger[b] = False
        self._edge_at(t, b, False, True)
        for i, dt in enumerate(bounce):
            self._edge_at(t + dt, b, i % 2 == 0, False)
        self.free_at[b] = t + 40000 + (bounce[-1] if bounce else 0)
        return t

    def tap(self, t, b, hold, person=None):
        """Press and release: returns (down_t, up_t)."""
        bd = person.bounces() if person else ()
        bu = person.bounces() if person else ()
        t0 = self.press(t, b, bd)
        t1 = self.release(t0 + max(hold, (bd[-1] + 1000) if bd else 0), b, bu)
        return t0, t1

    # -- running -----------------------------------------------------------------
    def play(self):
        """A person picks the game and its options in the menu, then the table
        plays until the game is done; returns the disagreements (compare())."""
        self.boot()
        t = self.t + 300000
        p = self.people[0]
        for b in menu_buttons(self.board, self.GAME, self.opts):
            t = self.tap(t + p.reaction(0.7), b, p.tap_us())[1]
        self.run(lambda: self.done)
        self.stored = self.board.records()  # the board's flash, read before it is closed
        return self.compare()

    def loop_step(self):
        """How far apart the device loop passes are now (a table may space
        them out where nothing is timed; the app then decides the same)."""
        return self.loop_us

    def idle(self):
        """True when nothing is held or timed, so the table may jump straight
        to the next queued event without the loop passes in between."""
        return False

    def run(self, done, limit_us=GAME_LIMIT_US):
        """Queued events and device loop passes, in simulated-time order, until done()."""
        q = self._q
        while not done():
            loop = self.loop_step()
            nl = (self.t // loop + 1) * loop
            if q and (q[0][0] <= nl or self.idle()):
                t, _, _, fn, args = heapq.heappop(q)
                self.t = max(self.t, t)
                fn(*args)
            else:
                self.t = nl
                self._step()
            if self.t > limit_us:
                raise TableError("game not over after %d simulated s (phase %r)"
                                 % (limit_us // 1000000, self.phase))

    def pump(self):
        """Real time: run what is due by now, then one loop pass."""
        now = self.board.clock.elapsed_us
        while self._q and self._q[0][0] <= now:
            _, _, _, fn, args = heapq.heappop(self._q)
            self.t = now
            fn(*args)
        self.t = now
        self._step()

    def _edge(self, b, down, logical):
        if not self.realtime:
            self.board.clock.advance_to(self.t)
        if self.trace is not None:
            self.trace.append((self.t, "edge", b, down, logical))
        if logical:
            self.level[b] = down
            if down:
                self.down_t[b] = self.t
            self.on_edge(b, down)
        self.board.set_button(b, down)
        self._step(advance=False)

    def _step(self, advance=True):
        if advance and not self.realtime:
            self.board.clock.advance_to(self.t)
        self.board.step()
        self.steps += 1
        self._observe()

    def _observe(self):
        b = self.board
        self.after_step()
        while len(self.lines) < len(b.lines):
            obj = json.loads(b.lines[len(self.lines)])
            self.lines.append((self.t, obj))
            self.on_line(obj)
        ph = seen(b)
        if ph != self.phase:
            old, self.phase = self.phase, ph
            if self.trace is not None:
                self.trace.append((self.t, "phase", old, ph))
            self.on_phase(old, ph)

    # hooks for a game
    def on_edge(self, b, down):
        pass

    def on_line(self, obj):
        pass

    def on_phase(self, old, new):
        pass

    def after_step(self):
        pass

    def close(self):
        self.board.close()


def menu_buttons(board, game, opts):
    """The presses that take the menu from the game list to `game` started
    with `opts` (the OK on Boot first when it is showing); an option `opts`
    does not name stays as the menu shows it."""
    out = []
    if seen(board) == "Boot":
        out.append(OK)
    cur = registry.IDS.index(board.app.settings["game"])
    want = registry.IDS.index(game)
    out += [DOWN] * ((want - cur) % len(registry.IDS))
    out.append(OK)
    row = 0
    shown = board.app.settings[game]
    for i, (key, label, values) in enumerate(registry.get(game).options, 1):
        k = (values.index(opts.get(key, shown[key])) - values.index(shown[key])) % len(values)
        if k:
            out += [DOWN] * (i - row)
            row = i
            out += [OK] * k
    out += [UP] * row
    out.append(OK)  # Start
    return out


# ---------------------------------------------------------------------------
# Speed (seeds/speed.md, SP-*)
# ---------------------------------------------------------------------------
def speed_options(rng):
    """Options people might pick from the menu (every menu value is possible;
    long targets are rarer so a soak stays quick)."""
    layout = rng.choice(("pagat", "classic"))
    return {
        "layout": layout,
        "jokers": layout == "classic" and rng.random() < 0.4,  # SP-4: classic only
        "doubles": rng.random() < 0.25,
        "hand_limit": rng.choice((5, 6, 7)),
        "slap_to_win": rng.random() < 0.5,
        "match": rng.choice(("single", "single", "best_of", "target")),
        "target": rng.choice((15, 15, 25, 25, 50)),
        "tie_ms": rng.choice(("auto", 0, 1, 2, 10, 20, 50)),
        "seats": 2,  # the two computer players of SpeedTable
    }


class SpeedTable(Table):
    """Two computer players at a Speed game (one match)."""

    GAME = "speed"

    def __init__(self, seed, loop_us=LOOP_US, start_us=None, opts=None, mistakes=True,
                 lift_early=True, false_start=0.06, realtime=False, store=None):
        Table.__init__(self, seed, loop_us, start_us, realtime, store)
        # lift_early: stuck players may take their hands off the pads once the
        # flip countdown runs (and always to rebuild the reserves), as people do.
        self.lift_early = lift_early
        self.false_start = false_start if mistakes else 0.0  # chance per countdown
        from speedref.app import speed_flow as F
        from speedref.engine import speed_play as SP
        self.F = F
        self.SP = SP
        rng = self.rng
        self.opts = opts or speed_options(rng)
        self.mistakes = mistakes
        self.people = [Person(rng, 0, bounce=0.08 if mistakes else 0),
                       Person(rng, 1, bounce=0.08 if mistakes else 0)]
        self.window = tie_us(self.opts["tie_ms"])
        # truth
        self.t_deals = []         # (winner, left, flips, rebuilds) per deal
        self.t_false = []         # (deal, seat, early_us)
        self.t_slaps = []         # (deal, winner, tie, margin_us, presses)
        self.ties = 0             # races truly inside the tie window
        # per deal
        self.st = None
        self.deal_no = 0
        self.gen = [0, 0]
        self.planned = [None, None]   # (t, action) a seat is about to do
        self.stuck_since = [None, None]
        self.paused = False
        self.winner = None
        self.race = None
        self.ready_t = []
        self.done = False
        self.record = None
        self.stored = []

    # -- the game ---------------------------------------------------------------
    def person(self, p):
        return self.people[p]

    def someone(self):
        return self.rng.randrange(2)

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
            empty = not self.st.reserves[0] or not self.st.reserves[1]
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
        elif ev == "slap" and obj.get("winner") is None and self.st is not None:
            # a tie (or an app verdict): whoever is out slaps again (SP-17)
            self.paused = False
            for p in (0, 1):
                self._plan(p, self.t)

    # -- deal steps ---------------------------------------------------------------
    def _new_deal(self):
        self.deal_no += 1
        o = self.opts
        self.st = self.SP.State(self.rng.getrandbits(32), o["layout"], o["jokers"],
                                o["doubles"], o["hand_limit"], o["slap_to_win"])
        self.st.apply(self.SP.CHANCE, self.SP.DEAL)
        self.gen = [g + 1 for g in self.gen]
        self.planned = [None, None]
        self.stuck_since = [None, None]
        self.paused = False
        self.winner = None
        self.race = None

    def _ready_taps(self, t):
        # SP-6: each player taps their pad when ready; the countdown starts at
        # the second tap and GO is exactly 3 s later.
        times = []
        for p in (0, 1):
            pe = self.person(p)
            times.append(self.tap(t + pe.reaction() + self.rng.randint(0, 600000), p, pe.tap_us(), pe)[0])
        go = max(times) + 3000000
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
        st.apply(0, self.SP.READY, self.ticks())
        st.apply(1, self.SP.READY, self.ticks())
        for p in (0, 1):
            self._plan(p, t)
        if self.mistakes and self.rng.random() < 0.1:
            # UP pressed during play: means nothing there
            self.at(t + self.rng.randint(200000, 3000000), self._stray, UP)

    def _stray(self, b):
        if self.phase == self.F.PLAY and not self.finger[b]:
            p = self.person(self.someone())
            self.tap(self.t, b, p.tap_us(), p)

    def _flipped(self, t):
        # SP-14/SP-15: the app's FLIP GO; both were stuck, now both turn a reserve card
        st = self.st
        SP = self.SP
        for p in (0, 1):
            if st.legal_actions(p) != [SP.STUCK]:
                raise TableError("flip while P%d was not stuck" % (p + 1))
        st.apply(0, SP.STUCK, self.ticks())
        st.apply(1, SP.STUCK, self.ticks())
        for p in (0, 1):
            since = self.stuck_since[p]
            if since is not None:
                r = self.release(max(t + self.person(p).reaction(), since + STUCK_HOLD_US), p)
                self.stuck_since[p] = None
                self._plan(p, r)
            else:
                self._plan(p, t)

    def _lift(self, t, chance):
        """Stuck players take their hands off the pads (the flip is coming)."""
        for p in (0, 1):
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
            if st.slap_to_win and st.left(1 - p) == 0:
                return  # the other is out and about to slap: just wait
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
            self.trace.append((self.t, "act", p, a, tag, st.left(0), st.left(1)))
        q = 1 - p
        if tag == "out":  # SP-16: out first; the claim is a tap
            self._over(p)
            self._out_tap(p)
            return
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
        q = 1 - p
        if self.stuck_since[q] is not None and self.planned[q] is not None:
            # the other player is taking their hand off the pad to play a
            # card: wait and see (their play replans us)
            return
        # SP-14: hold the pad while stuck
        self.stuck_since[p] = self.press(self.t, p, self.person(p).bounces())

    def _slap(self, p, g):
        if g != self.gen[p] or self.finger[p]:
            return
        # SP-17: out, so slap; the other stops playing on hearing it
        pe = self.person(p)
        self.tap(self.t, p, pe.tap_us(), pe)
        self.paused = True
        q = 1 - p
        self.gen[q] += 1
        self.planned[q] = None
        if self.st.left(q) == 0:
            self.at(self.t + pe.reaction(), self._slap_again, q)
        elif (self.mistakes and self.stuck_since[q] is None and self.rng.random() < 0.3):
            # a reflex slap by the player who still has cards (after the real one)
            qe = self.person(q)
            self.at(self.t + qe.reaction(0.8), self._reflex, q)
        # if the referee does not take the slap (a stuck hold opened the race and
        # voided it), the player slaps again
        self.at(self.t + 1500000, self._slap_check, p)

    def _slap_again(self, q):
        if self.winner is None and self.st.left(q) == 0 and not self.finger[q]:
            self._slap(q, self.gen[q])

    def _reflex(self, q):
        if self.winner is None and not self.finger[q] and self.phase == self.F.PLAY:
            qe = self.person(q)
            self.tap(self.t, q, qe.tap_us(), qe)

    def _slap_check(self, p):
        if self.winner is None and self.race is None and self.phase == self.F.PLAY:
            self.paused = False
            for s in (0, 1):
                self._plan(s, self.t)

    def _over(self, w):
        st = self.st
        self.winner = w
        self.gen = [x + 1 for x in self.gen]
        self.planned = [None, None]
        _, left = st.score()
        self.t_deals.append((w, left, st.flips, st.rebuilds))

    # -- the slap race as it happens at the table (SP-17) ----------------------------
    def on_edge(self, b, down):
        if b > 1 or not down or self.phase != self.F.PLAY or not self.opts["slap_to_win"]:
            return
        if self.winner is not None:
            return
        r = self.race
        if r is None:
            self.race = {"t1": self.t, "in": {b: self.t}}
        elif "v" not in r and b not in r["in"]:
            r["in"][b] = self.t

    def after_step(self):
        r = self.race
        if r is None:
            return
        # The referee decides once both pads are up (or a hold has lasted
        # HOLD_US) and the tie window has passed; a first presser still
        # holding then was making a stuck call: no slap at all.
        t = self.t
        if "v" not in r:
            if (self.level[0] or self.level[1]) and t - r["t1"] < HOLD_US:
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
            return
        st = self.st
        if st.left(w) != 0:
            raise TableError("deal %d: P%d slapped first with cards left" % (self.deal_no, w + 1))
        st.apply(w, self.SP.SLAP, self.ticks())
        self._over(w)

    def _claimed(self, t, c):
        if c != self.winner:
            raise TableError("the app shows P%d out, the table's winner is %s"
                             % (c + 1, None if self.winner is None else "P%d" % (self.winner + 1)))
        q = 1 - c
        qe = self.person(q)
        r = t + qe.reaction()
        if self.stuck_since[q] is not None:
            r = self.release(max(r, self.stuck_since[q] + STUCK_HOLD_US), q)
            self.stuck_since[q] = None
            r += qe.reaction(0.6)
        # SP-16: the opponent reads the question, then holds their pad: yes
        r = max(r, t + CLAIM_WAIT_US + qe.reaction())
        self.tap(r, q, HOLD_US + 100000 + qe.tap_us(), qe)

    def _count(self, t, shown):
        # SP-18: the loser's cards are counted and entered with UP/DOWN, OK
        w = self.winner
        left = self.t_deals[-1][1]
        pe = self.person(w)
        keys = [UP] * (left - shown) if left >= shown else [DOWN] * (shown - left)
        hi = self.board.app.flow.deal.left_bounds()[1]
        if self.mistakes and left >= shown and left < hi and self.rng.random() < 0.2:
            keys = [UP] * (left - shown + 1) + [DOWN]  # one too many, then back
        t += pe.reaction() + self.rng.randint(500000, 2000000)  # counting takes a moment
        for b in keys + [OK]:
            t = self.tap(t, b, pe.tap_us(), pe)[1] + self.rng.randint(80000, 250000)
        if self.mistakes and self.rng.random() < 0.1:
            q = self.person(1 - w)
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
        dl = [(o["winner"], o["left"], o["flips"], o["rebuilds"]) for o in evs if o.get("ev") == "deal"]
        if dl != self.t_deals:
            bad.append("deals: app %r, table %r" % (dl, self.t_deals))
        rec = self.record
        if rec is None:
            bad.append("no game_end record")
        else:
            plain = {k: v for k, v in rec.items() if k != "id"}
            want = speed.SpeedMatch(self.opts["layout"], _match(self.opts), rec["players"],
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


def _match(o):
    m = o["match"]
    return {"single": True} if m == "single" else ({"best_of": 3} if m == "best_of" else
                                                   {"target": o["target"]})


def table_class(game):
    """The game's virtual table, as its registry entry names it (loaded on
    first use: the other games' tables subclass Table, so they load after
    this module); ValueError for a game that is not registered."""
    return registry.load(registry.get(game).table, "sim.table")


def game_seed(seed, i):
    return "%s:%d" % (seed, i)


def play_game(game, seed, i, **kw):
    """One game at a fresh table: (table, disagreements)."""
    tb = table_class(game)(game_seed(seed, i), **kw)
    try:
        try:
            bad = tb.play()
        except TableError as e:
            bad = ["table: %s" % e]
        return tb, bad
    finally:
        tb.close()


def run(game, games, seed, out=None, verbose=False, **kw):
    """Play `games` games; print a summary to `out`; return the summary dict."""
    table_class(game)  # ValueError (no such game) or ImportError (no table) before any game
    s = {"game": game, "games": 0, "agreements": 0, "disagreements": 0, "ties_in_window": 0,
         "deals": 0, "slaps": 0, "false_starts": 0, "sim_seconds": 0, "failed": []}
    t0 = time.perf_counter()
    for i in range(games):
        tb, bad = play_game(game, seed, i, **kw)
        s["games"] += 1
        # what a table kept of the truth: its scored parts (deals, rounds,
        # hands), slap verdicts and false starts; a game without slaps keeps none
        s["ties_in_window"] += getattr(tb, "ties", 0)
        s["deals"] += len(tb.t_deals)
        s["slaps"] += len(getattr(tb, "t_slaps", ()))
        s["false_starts"] += len(getattr(tb, "t_false", ()))
        s["sim_seconds"] += tb.t // 1000000
        if bad:
            s["disagreements"] += 1
            s["failed"].append((i, bad))
            if out:
                out.write("game %d (seed %r) DISAGREES:\n  %s\n" % (i, game_seed(seed, i), "\n  ".join(bad)))
        else:
            s["agreements"] += 1
        if verbose and out:
            out.write("game %d: deals %r ties %d\n" % (i, tb.t_deals, tb.ties))
    s["wall_s"] = time.perf_counter() - t0
    s["games_per_s"] = s["games"] / s["wall_s"] if s["wall_s"] else 0.0
    if out:
        out.write("%s table: games %d, agreements %d, disagreements %d, ties in window %d\n"
                  % (game, s["games"], s["agreements"], s["disagreements"], s["ties_in_window"]))
        unit = registry.get(game).unit + "s"
        out.write("  %s %d, slap verdicts %d, false starts %d, %d simulated s in %.1f s: "
                  "%.2f games/s\n" % (unit, s["deals"], s["slaps"], s["false_starts"], s["sim_seconds"],
                                      s["wall_s"], s["games_per_s"]))
    return s


def main(game, games, seed, out, store=None):
    """speedref-sim --table GAME: `games` games; store: the board's flash
    folder every game's record is kept in (--store), else a fresh one each."""
    try:
        table_class(game)
    except (ValueError, ImportError) as e:
        import sys
        sys.stderr.write("speedref-sim: the table plays the registered games (%s), not %s: %s\n"
                         % (", ".join(registry.IDS), game, e))
        return 2
    s = run(game, games, seed, out, store=store)
    return 1 if s["disagreements"] else 0
