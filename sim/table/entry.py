"""The entry table: the base of the virtual tables whose people enter things
with keys, one person at a time (what trick-taking referee flows need):
key sequences, UP/DOWN navigation of a wrapping cursor, a wrong entry fixed
through the pause menu's "Undo last", the hand lines and the game saved
after each hand read back for compare(), and the device loop spaced out
where nothing is timed.  Speed Run's and partners' tables are built on it
(sim/table/speedrun_table.py, sim/table/partners_table.py).
"""
import json

from sim.table.base import Table, TableError, UP, DOWN, OK, BACK
from sim.bots import Person


class EntryTable(Table):
    """A Table whose people enter things with keys, one person at a time
    (what trick-taking referee flows need), and who fix a wrong entry with
    the pause menu's "Undo last"."""

    # The device loop every 20 ms of simulated time (and at every edge):
    # nothing these flows time is finer than a 0.8 s hold (a reveal, SR-21;
    # OK held for BACK), and a trick tap is a tap at 20 ms as at 5.
    PASS_US = 20000
    # No button down and no edge for this long: nothing is timed, so the
    # loop may sleep until the next queued event (idle()).  Longer than the
    # decoder's bounce lockout after an edge, which ends on a tick.
    QUIET_US = 100000

    def __init__(self, seed, loop_us=None, start_us=None, mistakes=True, realtime=False, store=None,
                 **_ignored):
        Table.__init__(self, seed, loop_us, start_us, realtime, store)
        self.mistakes = mistakes
        self.people = [Person(self.rng, s, bounce=0.08 if mistakes else 0) for s in range(self.seats)]
        self.resume = None       # what to do when the pause menu closes after "Undo last"
        self.quiet = False       # phases passed through while a wrong entry is being undone
        self.done = False
        self.record = None
        self.stored = []
        self.saves = []          # (hand number, saved state) read off the flash at each hand line
        # run()'s summary counts these (sim/table/__init__.py): hands here, no slaps
        self.t_deals = []
        self.t_slaps = []
        self.t_false = []
        self.ties = 0
        self.last_edge = 0
        self.undos = 0           # wrong entries taken back through the pause menu

    # The device loop only where it can matter: every loop_us while a button
    # is down (holds are timed by the app's tick) and for QUIET_US after an
    # edge (the decoder's bounce lockout ends on a tick), otherwise straight to
    # the next queued event.  Between taps nothing is held and nothing is
    # timed, so the app decides exactly the same; a soak runs several times faster.
    def idle(self):
        return self.t - self.last_edge >= self.QUIET_US and not any(self.level)

    def on_edge(self, b, down):
        self.last_edge = self.t

    def chance(self, p):
        return self.mistakes and self.rng.random() < p

    def keys(self, t, person, buttons):
        """Tap `buttons` one after another from t; returns the last release."""
        for b in buttons:
            t = self.tap(t + self.rng.randint(80000, 220000), b, person.tap_us(), person)[1]
        return t

    def nav(self, cur, want, n, plus=DOWN, minus=UP, person=None):
        """The UP/DOWN presses that move a wrapping cursor from cur to want
        the short way; sometimes one too far and back."""
        d = (want - cur) % n
        out = [plus] * d if d <= n - d else [minus] * (n - d)
        if out and n > 2 and self.chance(0.1):
            out = out + [out[0], plus if out[0] == minus else minus]
        return out

    def undo_via_pause(self, t, person, then):
        """Someone notices a wrong entry: BACK, DOWN to "Undo last", OK.
        then(t, phase) runs when the flow is back on screen."""
        self.quiet = True
        self.resume = then
        self.undos += 1
        return self.keys(t + person.reaction(), person, [BACK, DOWN, OK])

    def on_phase(self, old, new):
        if new == "Message":
            raise TableError("the app refused an entry: %r" % (self.board.app.screen.lines,))
        if self.quiet:
            if old == "Pause" and new != "Pause":
                self.quiet = False
                fn, self.resume = self.resume, None
                fn(self.t, new)
            return
        if new == "Pause":
            raise TableError("unexpected pause menu")
        if new == "Games" and old not in (None, "Boot", "Options", "Games"):
            if self.record is None:
                raise TableError("back at the game list without a game_end")
            return
        if not isinstance(new, int):
            return  # Boot, Games, Options: the menu presses are already queued
        self.on_flow(old, new)

    def on_flow(self, old, new):
        pass

    def _observe(self):
        Table._observe(self)
        app = self.board.app
        if not self.quiet and app.flow is not None and app.screen is app.flow:
            self.same_phase()

    def same_phase(self):
        """After every loop pass with the flow on screen: a flow that asks
        the next seat on the same kind of screen changes no phase."""

    def on_line(self, obj):
        ev = obj.get("ev")
        if ev == "game_end":
            self.record = obj.get("record")
            self.done = True
        elif ev == "hand":
            # the flow saved the game right after this line: its entries
            state, _ = self.board.store.load_game()
            self.saves.append((obj["hand"], None if state is None else state.get("state")))

    @staticmethod
    def kept_hands(evs):
        """The `hand` lines that still count: one taken back by an `undo`
        line (what: hand) no longer does."""
        out = []
        for o in evs:
            if o.get("ev") == "hand":
                out.append(o)
            elif o.get("ev") == "undo" and o.get("what") == "hand":
                if not out or out[-1]["hand"] != o["hand"]:
                    return None
                out.pop()
        return out

    def kept_saves(self):
        """The saved entries of each hand that counts (the last save per hand)."""
        d = {}
        for n, st in self.saves:
            d[n] = st
        return d

    @staticmethod
    def errors(evs):
        return ["device error line: %s" % json.dumps(o) for o in evs if o.get("ev") == "error"]

    def compare_hands(self, evs, keys, saved_seq, what):
        """The `hand` lines still standing after undos (their `keys`) and each
        hand's entries as saved (`saved_seq(saved hand)`), against the truth."""
        bad = []
        hands = self.kept_hands(evs)
        if hands is None:
            bad.append("an undo line for a hand that was not the last")
            hands = []
        got = [{k: o.get(k) for k in keys} for o in hands]
        if got != self.t_deals:
            for i in range(max(len(got), len(self.t_deals))):
                a = got[i] if i < len(got) else None
                b = self.t_deals[i] if i < len(self.t_deals) else None
                if a != b:
                    bad.append("hand %d: app %r, table %r" % (i + 1, a, b))
                    break
        saves = self.kept_saves()
        for n, want in sorted(self.t_seqs.items()):
            st = saves.get(n)
            seq = None
            if st is not None and len(st.get("hands", ())) >= n:
                seq = saved_seq(st["hands"][n - 1])
            if seq != want:
                bad.append("hand %d %s: app %r, table %r" % (n, what, seq, want))
        return bad

    def compare_record(self, engine):
        """The game_end record: the card game's own, the one stored, and it
        replays (with `engine`) to the table-level game's result."""
        bad = []
        rec = self.record
        if rec is None:
            return ["no game_end record"]
        plain = {k: v for k, v in rec.items() if k not in ("id", "table")}
        want = self.st.record()
        if getattr(self, "stopped", False):
            want = dict(want, stopped=True)  # PT-20: the table agreed to stop
        if plain != want:
            bad.append("record: app %r, table %r" % (plain, want))
        if rec not in self.stored:
            bad.append("the game_end record is not the stored record")
        g = self.g
        try:
            r = engine.replay(plain)
            if (r.totals, r.winners(), r.tiebreak, r.ended_early) != \
                    (g.totals, g.winners(), g.tiebreak, g.ended_early):
                bad.append("result: app %r, table %r" % (
                    (r.totals, r.winners(), r.tiebreak, r.ended_early),
                    (g.totals, g.winners(), g.tiebreak, g.ended_early)))
        except ValueError as e:
            bad.append("the app's record does not replay: %s" % e)
        return bad
