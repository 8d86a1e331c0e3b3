"""The table base: a virtual board with fingers on its buttons and a
simulated clock, the kit every game's virtual table (sim/table/<game>_table.py)
is built on.

Each game gets a fresh virtual board (sim/board.py: the firmware's own
capture handler, ring buffer, input decoder, device loop and referee app)
whose clock starts at a random ticks_us value, so games cross the 2**30
wrap.  A table queues its people's presses and its own actions by simulated
time and runs the device loop between them (Table.run); menu_buttons() are
the presses that start a game with chosen options from the game list.

What really happened is kept as the table's *truth*; at the end of a game a
table compares it with what the referee app decided, read only from the
device's USB log lines and the stored record (its compare()).  The people
read the OLED: here that is the app's current screen and the flow's phase
(seen(): what the screen shows), never anything used for the verdicts.
"""
import heapq
import json
import random

from sim import compat

compat.install()

from sim.board import Board  # noqa: E402
from sim.bots import REPRESS_US  # noqa: E402
from sim.hardware import PERIOD, MASK  # noqa: E402

UP, DOWN, OK, BACK = 4, 5, 6, 7
from speedref import games as registry  # noqa: E402
GAME_LIMIT_US = 3600 * 1000000  # one simulated hour: a game that takes longer has stalled


class TableError(Exception):
    """The table itself could not go on (a stalled game, an unexpected screen)."""


def seats_of(game, opts=None):
    """How many players sit at a table of `game`: its "seats" option in
    `opts` where the registry's entry seats a range (Speed's Players), else
    the fewest the entry seats (its one count, for most games).  ValueError
    for a count outside the entry's range."""
    lo, hi = registry.get(game).seats
    n = (opts or {}).get("seats", lo)
    if not lo <= n <= hi:
        raise ValueError("%s seats %d to %d players, not %r" % (game, lo, hi, n))
    return n


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
    (PASS_US unless the table is told otherwise) and right after every edge,
    as the board's loop would see it."""

    # How far apart the device loop's passes are at a table, in simulated
    # time: 5 ms.  The board passes every 1 ms while anything happens
    # (sim/hardware.LOOP_US); here every edge gets a pass at its own microsecond
    # anyway and every verdict comes from the edges' stamps, so between
    # edges a pass only has to see the app's timers run out (a countdown's
    # cue, a hold, a tie window closing), and 5 ms late is well inside what
    # any of them means to a person.  Five times fewer passes keeps a
    # 1,000-game soak quick.  A table whose app times nothing finer says so
    # with its own PASS_US (sim/table/entry.py).
    PASS_US = 5000

    def __init__(self, seed, loop_us=None, start_us=None, realtime=False, store=None):
        self.rng = random.Random(seed)
        self.seed = seed
        self.start_us = self.rng.randrange(PERIOD) if start_us is None else start_us & MASK
        # realtime: a person plays too; the board follows the host clock and
        # pump() runs whatever is due (sim/table/person.py)
        self.realtime = realtime
        # store: the board's flash folder (speedref-sim --store), kept after
        # the table closes; None: a fresh temporary one
        self.board = Board(root=store, start_us=self.start_us, realtime=realtime)
        if self.board.app.seated is None:
            # the computer players never pick names on the device: they sit
            # as P1..Pn, so a roster kept in the store shows them no picker
            from speedref import names as N
            self.board.app.seated = list(N.SEATS)
        self.loop_us = loop_us or self.PASS_US
        # the players at the table, one pad each (pads 0..seats-1): the
        # registry's count; a game seating a range sets it from its options
        self.seats = seats_of(self.GAME)
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

    # -- the seats ----------------------------------------------------------------
    def per_seat(self, value):
        """A list with `value` for each seat (an int, None or a bool: shared)."""
        return [value] * self.seats

    def others(self, p):
        """The seats but p, in turn from p's left (p + 1, p + 2, ...)."""
        return [(p + k) % self.seats for k in range(1, self.seats)]

    def opponent(self, p):
        """The one other player of a two-player game."""
        if self.seats != 2:
            raise TableError("%s: %d players, no one opponent" % (self.GAME, self.seats))
        return self.others(p)[0]

    def someone(self):
        """A seat drawn at random: whoever happens to do it."""
        return self.rng.randrange(self.seats)

    def player_names(self):
        """Who sits at the table, in seat order, as the referee names them:
        the names the board seats (speedref-sim --names: `App.seated`, the
        first `seats` of them as the app takes them), else the seat labels
        P1..Pn (names.label: an unnamed seat's name in the record)."""
        from speedref import names as N
        seated = self.board.app.seated
        if seated is None:
            return [N.label(s) for s in range(self.seats)]
        return list(seated[:self.seats])

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
        self.free_at[b] = t + REPRESS_US + (bounce[-1] if bounce else 0)
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
    rows = len(registry.IDS) + 1  # the game list: every game, then "Check wiring"
    out += [DOWN] * ((want - cur) % rows)
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


def game_seed(seed, i):
    """The seed of the i-th game of a run seeded `seed`."""
    return "%s:%d" % (seed, i)


def play_at(cls, seed, i, **kw):
    """The i-th game of a run seeded `seed` at a fresh table of class `cls`:
    (table, disagreements)."""
    tb = cls(game_seed(seed, i), **kw)
    try:
        try:
            bad = tb.play()
        except TableError as e:
            bad = ["table: %s" % e]
        return tb, bad
    finally:
        tb.close()
