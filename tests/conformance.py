"""What every registered game must do, checked through the common API only.

A game is its registry entry (firmware/speedref/games.py) plus its own files;
these checks use nothing else:

  * the entry: id, seats, prefix, options, defaults, and the modules it names;
  * the flow class, driven through the referee app (press/release/tick, the
    pause menu, power cuts: a new App on the same Store), its `phase` and
    its `PHASES` (phases are 0..PHASES-1);
  * the table level's `replay(record)` (through `records.replay`);
  * the card level's State, seen through `card_level()` below, the one
    function that names its API;
  * the sim script `tests/sim_scripts/<id>.txt` (`<id>_<N>p.txt` at more seats
    than the fewest): a whole game with the default options that passes
    through every phase;
  * the golden playthrough `tests/mpy/<id>_golden.py` (`play(seed, *args, out=None)
    -> (lines, record)`, on CPython and MicroPython) and its transcripts
    `tests/golden/<id>_<seed>[_<arg>].txt`.

tests/test_conformance.py runs every check on every registered game, at
every seat count of its range (the entry's `seats`): the flow's checks at
the counts its flow referees (its SEAT_RANGE, else the whole range), the rules'
checks (card level, golden playthroughs) at every count; check_entry and
check_seats once a game.  tests/test_dummy_game.py runs them on a game
registered only for that test.
Each check is a function of a Subject (the game and where its files are)
that raises AssertionError naming the game, the step and the rule cited.
docs/architecture.md, "Adding a game", says what a game provides.
"""
import copy
import importlib
import inspect
import json
import random
import shutil
from pathlib import Path

import framebuf

import mpyrun
from app_rig import Rig, MS
from rig_steps import press_at, release_at, tick_at
from sim import script as sim_script
from speedref import games
from speedref.app import menu, ui
from speedref.app.core import UP, DOWN, OK, BACK
from speedref.games import flow_class
from speedref.engine import records
from speedref.engine.errors import RuleError
from speedref.ticks import ticks_add

TESTS = Path(__file__).resolve().parent
W, H = 128, 64
TICK_US = 10 * MS      # the app's tick while a script plays (the board's loop is faster)
END_US = 2000 * MS     # after the last event, as speedref-sim --script lets it run
RANDOM_EVENTS = 40     # random presses from each phase the script reaches
RANDOM_TICK_US = 25 * MS  # the app's tick meanwhile (a slow loop: late ticks catch up)
CARD_EXAMPLES = 12     # random card-level games per game
CARD_STEPS = 4000      # actions at most in one of them


class Subject:
    """A game at one of its seat counts (default its fewest), and where its
    own files are."""

    def __init__(self, game, script=None, golden_dir=None, playthrough=None, mpy_path=(), rules_dir=None,
                 seats=None):
        self.game = game
        self.seats = game.seats[0] if seats is None else seats
        self.rules_dir = Path(rules_dir) if rules_dir else TESTS.parent / "seeds"
        self.script = Path(script) if script else TESTS / "sim_scripts" / (script_name(game, self.seats) + ".txt")
        self.golden_dir = Path(golden_dir) if golden_dir else TESTS / "golden"
        self.playthrough = playthrough or game.id + "_golden"
        self.mpy_path = tuple(mpy_path)  # more MICROPYPATH entries for its modules

    def __repr__(self):
        return "Subject(%r, seats=%d)" % (self.game.id, self.seats)


def script_name(g, seats):
    """The sim script's name for `g` at `seats` players: <id> at the fewest,
    <id>_<N>p at more (its '# seats: N' header says so too)."""
    return g.id if seats == g.seats[0] else "%s_%dp" % (g.id, seats)


def seat_counts(g):
    """Every seat count of the entry's range: (2, 4) -> [2, 3, 4]."""
    return list(range(g.seats[0], g.seats[1] + 1))


def flow_seats(g):
    """The seat counts the game's flow referees: its SEAT_RANGE, else the range."""
    lo, hi = getattr(flow_class(g.id), "SEAT_RANGE", g.seats)
    return list(range(lo, hi + 1))


def defaults(g, seats=None):
    """The options the menu starts `g` with when nothing is remembered (with
    `seats` players chosen, for a game with a seat count to choose)."""
    d = dict(menu.merge_settings({})[g.id])
    if seats is not None and "seats" in d:
        d["seats"] = seats
    return d


def _cite(rules):
    return " (%s)" % ", ".join(rules) if rules else ""


# ---- the screen: every drawing call on the 128x64 OLED ---------------------------------
class Screen:
    """Stands in for the frame buffer: notes the small text drawn and any
    call that reaches past the 128x64 screen's edges (what is lit is read
    from the app's own frame buffer, which it has drawn already)."""

    def __init__(self):
        self.texts = []
        self.problems = []
        self._mv = memoryview(bytearray(W * H // 8))  # the bytes big text is scaled into (ui.ptr8)

    def _box(self, what, x, y, w, h):
        if x < 0 or y < 0 or x + w > W or y + h > H:
            self.problems.append("%s at (%d, %d) size %dx%d is off the 128x64 screen" % (what, x, y, w, h))

    def text(self, s, x, y, c=1):
        self.texts.append(s)
        self._box("text %r" % s, x, y, 8 * len(s), 8)

    def fill_rect(self, x, y, w, h, c):
        self._box("fill_rect", x, y, w, h)

    def fill(self, c):
        pass

    def __getattr__(self, k):
        raise AssertionError("the screen is drawn with framebuf.%s, which this check does not know" % k)


def draw(screen):
    """Draw an app screen (a flow, a menu, the pause menu) on a Screen.  Big
    text (ui.big) sets the frame buffer's bytes itself, no framebuf call:
    its box is checked here, each glyph's whole 8x8 cell scaled."""
    s = Screen()
    real = ui.big
    real_text = ui.text

    def big(fb, text, x, y, scale):
        if fb is s:
            s._box("big text %r" % text, x, y, 8 * scale * len(text), 8 * scale)
        return real(fb, text, x, y, scale)

    def text(fb, t, x, y, c=1):
        # text with an accented letter is laid out by ui itself, no
        # framebuf call: noted and checked here
        if fb is s and not t.isascii():
            s.texts.append(t)
            s._box("text %r" % t, x, y, 8 * len(t), 8)
        return real_text(fb, t, x, y, c)
    ui.big = big  # big_center's call too: it finds big in ui's globals
    ui.text = text  # and the helpers' (title, row, center, ...)
    try:
        screen.draw(s)
    finally:
        ui.big = real
        ui.text = real_text
    return s


def screen_problems(app, where):
    """What is wrong with the picture on `app`'s screen now (drawn after its
    last event): nothing lit, or drawn past the edges; a flow on screen with
    a phase it does not have."""
    out = []
    scr = app.screen
    if scr is None:
        return ["%s: the app has no screen" % where]
    f = app.flow
    if f is not None and scr is f and not 0 <= f.phase < f.PHASES:
        out.append("%s: phase %r is not one of the flow's 0..%d" % (where, f.phase, f.PHASES - 1))
    if not any(app.buf):
        out.append("%s: %s draws nothing" % (where, _name(app)))
    out += ["%s: %s: %s" % (where, _name(app), p) for p in draw(scr).problems]
    return out


def _name(app):
    f = app.flow
    if f is not None and app.screen is f:
        return "phase %d" % f.phase
    return type(app.screen).__name__


def _errors(log, since=0):
    return [x for x in log.lines[since:] if x.get("ev") == "error"]


# ---- forks and power cuts -------------------------------------------------------------
class Dirs:
    """Fresh directories for stores: one flash each."""

    def __init__(self, root):
        self.root = Path(root)
        self.n = 0

    def new(self, name):
        self.n += 1
        return self.root / ("%s-%d" % (name, self.n))

    def copy(self, src, name):
        d = self.new(name)
        shutil.copytree(str(src), str(d))
        return d


def fork(rig, dirs):
    """A copy of the rig, its app and its flash, to try something on."""
    buf = bytearray(rig.app.buf)
    fb = framebuf.FrameBuffer(buf, W, H, framebuf.MONO_VLSB)
    blank = framebuf.FrameBuffer(buf, 1024, 1, framebuf.GS8)  # App's fast clear
    r = copy.deepcopy(rig, {id(rig.app.buf): buf, id(rig.app.fb): fb,
                                    id(rig.app._blank): blank})
    r.root = str(dirs.copy(rig.root, "fork"))
    r.store.root = r.root
    return r


def boot(root, t_us):
    """The power comes back: a new App on the flash at `root` (a Rig on it)."""
    return Rig(str(root), t_us=t_us)


def resume(rig):
    """OK on the boot screen (the saved game resumes), and a tick."""
    press_at(rig, OK, rig.t)
    release_at(rig, OK, rig.t)
    tick_at(rig, rig.t)


def pick(rig, item):
    """BACK, then `item` of the pause menu by name (OK)."""
    rig.tap(BACK)
    p = rig.app.screen
    assert type(p).__name__ == "Pause", "BACK during a game opens the pause menu, not %s" % _name(rig.app)
    for _ in range(p.items.index(item)):
        rig.tap(DOWN)
    rig.tap(OK)
    return p


# ---- the sim script, played through the app ----------------------------------------------
class Walk:
    """The game's sim script played through a fresh app with the default
    options (as `speedref-sim --script` starts it), the app ticked every
    TICK_US.  At the start and after every event it looks: the screen, a
    power cut, and from each phase reached for the first time an abandon
    and random presses (on copies).  What it finds is kept per check."""

    def __init__(self, subject, root):
        self.s = subject
        self.g = subject.game
        self.dirs = Dirs(root)
        text = subject.script.read_text(encoding="utf-8")
        assert sim_script.header_game(text) == self.g.id, "%s names its game: '# game: %s'" % (
            subject.script, self.g.id)
        assert (sim_script.header_seats(text) or self.g.seats[0]) == subject.seats, (
            "%s plays %d players: '# seats: %d'" % (subject.script, subject.seats, subject.seats))
        self.events = sim_script.parse(text)
        self.found = {"script": [], "screens": [], "power_cut": [], "abandon": [], "random": []}
        self.phases = set()
        self.record = None

    def note(self, check, msg):
        if len(self.found[check]) < 8:
            self.found[check].append(msg)

    # -- driving ----------------------------------------------------------------------------
    def feed(self, rig, start, first, look=None):
        """Events[first:] into `rig` (its clock `start` + the script's time),
        ticking between them; then END_US more.  look(rig, step) after each."""
        now = self.times[first] if first else 0
        for k in range(first, len(self.events)):
            t_us, b, down, _ = self.events[k]
            while now + TICK_US < t_us:
                now += TICK_US
                tick_at(rig, ticks_add(start, now))
            now = t_us
            rig.t = ticks_add(start, now)
            (rig.press if down else rig.release)(b)
            if look:
                look(rig, k + 1)
        rig.t = ticks_add(start, now)
        rig.wait(END_US)
        if look:
            look(rig, len(self.events) + 1)

    def run(self):
        g = self.g
        self.rig = rig = Rig(str(self.dirs.new("walk")))
        self.start = rig.t
        self.times = [0] + [e[0] for e in self.events]
        rig.app.start(g.id, rig.t, defaults(g, self.s.seats))
        tick_at(rig, rig.t)
        self.writes = None
        self.resumed = None      # (flash copy, screen bytes, phase) the last save resumes to
        self.saves = []          # a copy of the flash after each save
        self.meets = []          # (step, flash copy): the uncut game shows what that save resumes to
        self.last_step = {}      # phase -> first step
        self.look(rig, 0)
        self.feed(rig, self.start, 0, self.look)
        self.finish()
        return self

    def look(self, rig, step):
        app = self.rig.app
        where = "%s step %d" % (self.g.id, step)
        if step and step <= len(self.events):
            where += " (%s line %d)" % (self.s.script.name, self.events[step - 1][3])
        for p in screen_problems(app, where):
            self.note("screens", p)
        f = app.flow
        on = f is not None and app.screen is f
        self.cut(step, where)
        if on and self.resumed is not None and (not self.meets or self.meets[-1][1] != self.resumed[0]):
            if f.phase == self.resumed[2] and bytes(app.buf) == self.resumed[1]:
                self.meets.append((step, self.resumed[0]))
        if on and f.phase not in self.phases:
            self.phases.add(f.phase)
            self.abandon(where)
            self.random(where, "%s:%d" % (self.g.id, f.phase))

    # -- power cuts --------------------------------------------------------------------------
    def cut(self, step, where):
        """The power goes now.  The app reads nothing but its flash, so a cut
        is tried once for each state of the flash the game writes."""
        rig = self.rig
        if rig.store.writes == self.writes:
            return
        self.writes = rig.store.writes
        saved = rig.store.load_game()[0]
        if rig.app.flow is not None and saved is None:
            self.note("power_cut", "%s: a game in progress is not saved" % where)
        if saved is None:
            self.resumed = None
            return
        flash = self.dirs.copy(rig.root, "flash")
        self.saves.append(flash)
        shots = []
        for _ in range(2):  # resume, and cut again right after resuming
            r = boot(self.dirs.copy(flash, "cut"), rig.t)
            b = r.app.screen
            if type(b).__name__ != "Boot" or b.saved is None or b.saved.get("game") != self.g.id:
                self.note("power_cut", "%s: after a cut the boot screen does not offer the game" % where)
                return
            resume(r)
            a = r.app
            if a.flow is None or a.screen is not a.flow or _errors(r.log):
                self.note("power_cut", "%s: the saved game does not resume: %s %r" % (
                    where, _name(a), _errors(r.log)))
                return
            for p in screen_problems(a, where + " resumed"):
                self.note("power_cut", p)
            shots.append((bytes(a.buf), a.flow.phase, r.store.load_game()[0]))
        if shots[0] != shots[1] or shots[0][2] != saved:
            self.note("power_cut", "%s: resuming is not a fixed point: a second cut right after it "
                      "resumes to another screen or save" % where)
        self.resumed = (flash, shots[0][0], shots[0][1])

    def go_on_after_cut(self, step, flash):
        """Resume the flash kept at `step` and play the rest of the script."""
        r = boot(self.dirs.copy(flash, "on"), ticks_add(self.start, self.times[step]))
        resume(r)
        self.feed(r, self.start, step)
        ends = r.log.of("game_end")
        return (ends[-1]["record"] if ends else None), r.store.records()

    # -- from each phase: abandon, random presses ---------------------------------------------
    def abandon(self, where):
        r = fork(self.rig, self.dirs)
        n_records = len(r.store.records())
        n_lines = len(r.log.lines)
        try:
            p = pick(r, "Abandon game")
            if not p.confirm or r.app.screen is not p:
                self.note("abandon", "%s: Abandon was not asked again" % where)
            r.tap(OK)
        except AssertionError as e:
            self.note("abandon", "%s: %s" % (where, e))
            return
        new = r.log.lines[n_lines:]
        if not (type(r.app.screen).__name__ == "Games" and r.app.flow is None):
            self.note("abandon", "%s: abandoning leaves %s, not the game list" % (where, _name(r.app)))
        if r.store.load_game() != (None, None) or len(r.store.records()) != n_records:
            self.note("abandon", "%s: an abandoned game left a save or a record" % where)
        if [x for x in new if x.get("ev") in ("abandon", "game_end", "error")] != [
                {"ev": "abandon", "game": self.g.id}]:
            self.note("abandon", "%s: the log says %r, not one abandon line" % (where, new))

    def random(self, where, seed):
        """Random presses of every button (pads of absent players too),
        taps and holds, alone and together, from here (a copy)."""
        r = fork(self.rig, self.dirs)
        rnd = random.Random(seed)
        since = len(r.log.lines)
        buttons = [0, 1, 2, 3, UP, DOWN, OK, UP, DOWN, OK, 0, 1, 2, 3, BACK]
        done = []
        try:
            for i in range(RANDOM_EVENTS):
                down = [rnd.choice(buttons)]
                if rnd.random() < 0.2:
                    down.append(rnd.choice(range(4)))
                down = sorted(set(down))
                done.append(down)
                for b in down:
                    r.press(b)
                _wait(r, rnd.choice((20, 60, 300, 560, 900)) * MS)
                for b in down:
                    r.release(b)
                _wait(r, rnd.choice((0, 40, 400, 1100, 3200)) * MS)
                if i % 4 == 0:
                    for p in screen_problems(r.app, "%s, random press %d" % (where, i)):
                        self.note("random", p)
        except Exception as e:  # noqa: BLE001 - whatever it is, it is a finding
            self.note("random", "%s: %r after random presses %r" % (where, e, done))
            return
        errs = _errors(r.log, since)
        if errs:
            self.note("random", "%s: random presses made the app refuse an entry %r after %r"
                      % (where, errs[:2], done))

    # -- the end -------------------------------------------------------------------------------
    def finish(self):
        g, rig = self.g, self.rig
        ends = rig.log.of("game_end")
        if len(ends) != 1:
            self.note("script", "%s: the script ends %d game(s), not 1" % (g.id, len(ends)))
            return
        self.record = rec = ends[0]["record"]
        if rig.store.records() != [rec]:
            self.note("script", "%s: the stored records %r are not the logged one" % (g.id, rig.store.records()))
        if rig.store.load_game() != (None, None) or type(rig.app.screen).__name__ != "Games":
            self.note("script", "%s: after the game: a save left, or %s on screen" % (g.id, _name(rig.app)))
        if _errors(rig.log):
            self.note("script", "%s: error lines %r" % (g.id, _errors(rig.log)))
        plain = dict(rec)
        plain.pop("id", None)
        if not isinstance(plain.pop("table", None), str):  # the table's name, beside the game's
            self.note("script", "%s: the record has no table name" % g.id)
        for p in record_problems(g, plain, "%s: the script's record" % g.id):
            self.note("script", p)


def _wait(rig, us):
    """Let `us` pass, the app ticked every RANDOM_TICK_US."""
    while us > 0:
        step = min(us, RANDOM_TICK_US)
        rig.t = ticks_add(rig.t, step)
        us -= step
        tick_at(rig, rig.t)
    rig._drain()


def record_problems(g, rec, what):
    """A finished game's record is canonical: JSON round trip, the game's
    id, and records.replay gives it back (replay(r).to_record() == r)."""
    out = []
    if json.loads(json.dumps(rec)) != rec:
        out.append("%s does not survive JSON" % what)
    if rec.get("game") != g.id:
        out.append("%s names game %r" % (what, rec.get("game")))
    try:
        sheet = records.replay(rec)
    except RuleError as e:
        return out + ["%s is refused by its own rules: %s" % (what, e)]
    if sheet.to_record() != rec:
        out.append("%s replays to another record: %r" % (what, sheet.to_record()))
    if not sheet.over:
        out.append("%s is not over by its rules" % what)
    return out


_WALKS = {}


def walk(subject, root):
    """The script's walk, once per game and registry (several checks read it)."""
    key = (subject.game.id, id(games.GAMES), str(subject.script), subject.seats)
    if key not in _WALKS:
        _WALKS[key] = Walk(subject, root).run()
    return _WALKS[key]


# ---- the checks ----------------------------------------------------------------------------
def check_entry(s, root=None, rules=()):
    """The registry entry: its rules file has its first rule, one pad a
    player, option defaults among their values, labels that fit the menu,
    and every module it names loads: the flow (GAME, PHASES), the table
    level (replay), the card level and the simulator's table."""
    g = s.game
    text = (s.rules_dir / (g.rules + ".md")).read_text(encoding="utf-8")
    assert "**%s-1 " % g.prefix in text, "%s: rule %s-1 is in %s.md%s" % (g.id, g.prefix, g.rules, _cite(rules))
    lo, hi = g.seats
    assert all(type(x) is int for x in g.seats) and 2 <= lo <= hi <= 4, (
        "%s: seats %r: one slap pad a player, four pads" % (g.id, g.seats))
    for key, label, values in g.options:
        assert g.defaults.get(key, values[0]) in values, "%s: option %s's default" % (g.id, key)
    assert set(g.defaults) <= set(k for k, _, _ in g.options), g.id
    flow = flow_class(g.id)
    assert flow.GAME == g.id and isinstance(flow.PHASES, int) and flow.PHASES >= 1, g.id
    assert callable(getattr(games.load(g.engine, "speedref.engine"), "replay", None)), "%s: %s.replay" % (g.id, g.engine)
    games.load(g.cards, "speedref.engine")
    from sim.table.base import Table
    from sim.table.runner import table_class
    t = table_class(g.id)
    assert issubclass(t, Table) and t.GAME == g.id, "%s: its table %s" % (g.id, g.table)


def check_script(s, root, rules=()):
    """The sim script plays a whole game with the default options: one
    record, stored once, logged, canonical; the save cleared, the menu back."""
    w = walk(s, root)
    assert not w.found["script"], "\n".join(w.found["script"]) + _cite(rules)


def check_screens(s, root, rules=()):
    """Every screen the game shows draws something, inside 128x64, and the
    script reaches every phase of the flow."""
    w = walk(s, root)
    assert not w.found["screens"], "\n".join(w.found["screens"]) + _cite(rules)
    missing = set(range(games.load(s.game.flow, "speedref.app").PHASES)) - w.phases
    assert not missing, "%s: phases %s are never reached by %s%s" % (
        s.game.id, sorted(missing), s.script.name, _cite(rules))


def check_power_cut(s, root, rules=()):
    """A power cut at any step (a new App on the same flash) offers the game
    at boot and resumes it onto the last save, the same twice over; from
    where the uncut game shows that screen again, the rest of the game gives
    the same record (once in the middle, once on the final screen)."""
    w = walk(s, root)
    assert not w.found["power_cut"], "\n".join(w.found["power_cut"]) + _cite(rules)
    assert w.meets and w.meets[0][0] == 0, (
        "%s: resumed at once, a new game shows another screen than it started with%s" % (s.game.id, _cite(rules)))
    mid = min(w.meets, key=lambda m: abs(m[0] - len(w.events) // 2))
    for step, flash in sorted(set([mid, w.meets[-1]])):
        rec, stored = w.go_on_after_cut(step, flash)
        assert rec == w.record and stored == [rec], (
            "%s: cut at step %d, resumed and played on: record %r and stored %r, not %r%s"
            % (s.game.id, step, rec, stored, w.record, _cite(rules)))
    assert w.meets[-1][1] == w.saves[-1], (
        "%s: the last save (the game decided, before OK stores it) resumes onto a screen the game "
        "never shows%s" % (s.game.id, _cite(rules)))


def check_abandon(s, root, rules=()):
    """From every phase, Abandon (asked twice) goes back to the game list and
    stores nothing: no save, no record, one abandon line."""
    w = walk(s, root)
    assert not w.found["abandon"], "\n".join(w.found["abandon"]) + _cite(rules)


def check_random_presses(s, root, rules=()):
    """Random presses of every button from every phase never raise, never
    leave the app without a screen or with a bad picture, and never make a
    rule refuse an entry (flows ask only what the rules allow)."""
    w = walk(s, root)
    assert not w.found["random"], "\n".join(w.found["random"]) + _cite(rules)


def _start(g, root, opts):
    """Start `g` with `opts`: (rig, problems); rig.app.flow is None when refused."""
    r = Rig(str(root))
    r.app.start(g.id, r.t, dict(opts))
    tick_at(r, r.t)
    a = r.app
    if a.flow is None:
        errs = _errors(r.log)
        ok = (type(a.screen).__name__ == "Message" and errs and (g.prefix + "-") in errs[-1]["msg"])
        return r, [] if ok else ["%s refused %r without naming one of its rules: %r" % (g.id, opts, errs)]
    probs = screen_problems(a, "%s started with %r" % (g.id, opts))
    saved = r.store.load_game()[0]
    if saved is None or saved.get("game") != g.id or saved.get("opts") != opts:
        probs.append("%s started with %r is not saved at once: %r" % (g.id, opts, saved))
    if a.flow.GAME != g.id or a.screen is not a.flow:
        probs.append("%s started with %r shows %s" % (g.id, opts, _name(a)))
    return r, probs


def check_options(s, root, rules=()):
    """The game starts with its default options and with each value of each
    option (with the others at their defaults, or, where the rules refuse
    that combination by a rule number, with one other option changed), at
    the subject's seat count (the seat count is not varied here)."""
    g = s.game
    dirs = Dirs(root)
    base = defaults(g, s.seats)
    r, probs = _start(g, dirs.new("opts"), base)
    assert r.app.flow is not None and not probs, "%s: defaults %r: %s%s" % (g.id, base, probs, _cite(rules))
    for key, _, values in g.options:
        if key == "seats":
            continue
        for v in values:
            opts = dict(base)
            opts[key] = v
            tries = [opts] + [dict(opts, **{k2: v2}) for k2, _, vs2 in g.options if k2 not in (key, "seats")
                              for v2 in vs2]
            for o in tries:
                r, probs = _start(g, dirs.new("opts"), o)
                assert not probs, "\n".join(probs) + _cite(rules)
                if r.app.flow is not None:
                    break
            else:
                raise AssertionError("%s: option %s=%r starts in no combination%s" % (g.id, key, v, _cite(rules)))


def _to_options(g, root):
    """Boot, OK, DOWN to the game, OK: its options screen (a rig)."""
    r = Rig(str(root))
    r.tap(OK)
    assert type(r.app.screen).__name__ == "Games", "boot, OK: the game list"
    for _ in range(games.IDS.index(g.id)):
        r.tap(DOWN)
    return r


def check_menu(s, root, rules=()):
    """The game is in the menu under its title; its options screen lists its
    options, and every value of each fits on its row; Start starts it with
    the defaults."""
    g = s.game
    dirs = Dirs(root)
    r = _to_options(g, dirs.new("menu"))
    shown = draw(r.app.screen)
    assert g.title in shown.texts and not shown.problems, "%s: the game list shows %r %s%s" % (
        g.id, shown.texts, shown.problems, _cite(rules))
    r.tap(OK)
    shown = draw(r.app.screen)
    assert type(r.app.screen).__name__ == "Options" and g.title in shown.texts, "%s: its options screen" % g.id
    rows = [x.split(":")[0] for x in shown.texts]
    want = ["Start"] + [lab for _, lab, _ in g.options][:4]
    assert rows[1:1 + len(want)] == want, "%s: its options screen lists %r" % (g.id, rows)
    r.tap(OK)
    f = r.app.flow
    assert f is not None and f.GAME == g.id and f.opts == defaults(g), "%s: Start starts it%s" % (g.id, _cite(rules))
    r = _to_options(g, dirs.new("menu"))
    r.tap(OK)
    for _, _, values in g.options:
        r.tap(DOWN)
        for _ in values:
            shown = draw(r.app.screen)
            assert not shown.problems, "%s: its options screen: %s" % (g.id, shown.problems)
            r.tap(OK)


def golden_cases(s):
    """(path, args) of the game's golden transcripts: <id>_<seed>[_<arg>].txt
    is play(seed[, arg]) (a number argument as an int)."""
    out = []
    for p in sorted(s.golden_dir.glob(s.game.id + "_*.txt")):
        args = p.stem[len(s.game.id) + 1:].split("_")
        if args[0].isdigit():
            out.append((p, [int(a) if a.isdigit() else a for a in args]))
    return out


_PLAYED = {}


def _played(s, path, args):
    """play(*args) of the subject's playthrough on CPython, once a transcript."""
    key = (s.playthrough, str(path))
    if key not in _PLAYED:
        _PLAYED[key] = importlib.import_module(s.playthrough).play(*args)
    return _PLAYED[key]


def seated_golden_cases(s):
    """The golden cases whose game is played by the subject's seat count (a
    record names one player a seat); at least one for every seat count."""
    out = [(path, args) for path, args in golden_cases(s)
           if len(_played(s, path, args)[1].get("players", ())) == s.seats]
    assert out, "%s: no golden transcript %s_<seed>[_<arg>].txt in %s for %d players" % (
        s.game.id, s.game.id, s.golden_dir, s.seats)
    return out


def check_golden(s, root=None, rules=()):
    """The golden playthroughs of the subject's seat count come out as
    committed, and each one's record is canonical and over
    (replay(r).to_record() == r, JSON round trip)."""
    for path, args in seated_golden_cases(s):
        lines, rec = _played(s, path, args)
        assert "\n".join(lines) + "\n" == path.read_text(), "%s: %s differs%s" % (
            s.game.id, path.name, _cite(rules))
        probs = record_problems(s.game, rec, "%s %s" % (s.game.id, path.name))
        assert not probs, "\n".join(probs) + _cite(rules)


_GOLDEN_MPY = """
import gc
import %s as m
for args in %r:
    m.play(*args, out=print)
    print("=== end")
    gc.collect()
"""


def check_golden_micropython(s, root=None, rules=()):
    """The same transcripts on the MicroPython Unix port (64 KB heap, the
    compiled .mpy firmware), byte for byte: one run for all of them."""
    cases = seated_golden_cases(s)
    out = mpyrun.run(code=_GOLDEN_MPY % (s.playthrough, [a for _, a in cases]), heap="64wK",
                     extra_path=s.mpy_path).stdout
    got = out.split("=== end\n")
    assert len(got) == len(cases) + 1 and got[-1] == "", out[-2000:]
    for (path, _), text in zip(cases, got):
        assert text == path.read_text(), "%s: %s differs on MicroPython%s" % (s.game.id, path.name, _cite(rules))


# ---- the card level ----------------------------------------------------------------------
class Cards:
    """A card-level game behind one interface: to_act() (players who may act,
    a negative number for chance), legal(p), apply(p, a, t_us), over(),
    record() (None where the card level plays less than a game), scores()
    (the running totals, or None), check()."""


def card_level(g, seed, opts, seats=None):
    """The card level of `g` (its entry's `cards` module), started from `seed`
    with the options its State takes, for `seats` players (default the
    fewest).  This is the one place that names the card level's API
    (docs/architecture.md, "Engine API"): `State(seed, **options)` (with
    `seats=n` where the entry's range has more than one count),
    `current_player()` (CHANCE when a deal is due), `actors()`,
    `legal_actions(p)`, `apply(p, a, t_us)`, `apply(CHANCE, DEAL)`,
    `is_terminal()`; `record()` or `rounds`, `check()`."""
    from speedref.engine import CHANCE
    mod = games.load(g.cards, "speedref.engine")
    cls = mod.State
    params = inspect.signature(cls).parameters
    n = g.seats[0] if seats is None else seats
    opts = dict((k, v) for k, v in opts.items() if k in params)
    if g.seats[0] != g.seats[1]:
        opts["seats"] = n
    st = cls(seed, **opts)
    c = Cards()
    c.state = st
    c.legal = st.legal_actions
    c.check = getattr(st, "check", lambda: None)
    c.to_act = lambda: [] if st.is_terminal() else (
        [CHANCE] if st.current_player() == CHANCE else st.actors())
    c.apply = st.apply
    c.over = st.is_terminal
    if hasattr(st, "record"):
        c.record = st.record
    elif hasattr(st, "rounds"):
        names = ["P%d" % (i + 1) for i in range(n)]
        c.record = lambda: {"game": g.id, "players": names, "rounds": list(st.rounds)}
    else:
        c.record = lambda: None
    c.scores = getattr(st, "scores", lambda: None)
    c.seats = n
    return c


def freeze(o):
    """A comparable copy of an object's whole state (its attributes, deep)."""
    if isinstance(o, (bytes, bytearray)):
        return bytes(o)
    if isinstance(o, (list, tuple)):
        return tuple(freeze(x) for x in o)
    if isinstance(o, dict):
        return tuple(sorted(((repr(k), freeze(v)) for k, v in o.items())))
    if isinstance(o, (set, frozenset)):
        return tuple(sorted(repr(x) for x in o))
    if callable(o) and not hasattr(o, "__dict__"):
        return None
    if hasattr(o, "__dict__") and not isinstance(o, type):
        return (type(o).__name__, freeze(vars(o)))
    if hasattr(type(o), "__slots__"):
        return (type(o).__name__, tuple(freeze(getattr(o, k, None)) for k in type(o).__slots__))
    return o


def card_game(g, seed, rnd, illegal_every=0, seats=None):
    """One random legal card-level game of `seats` players: options drawn
    from the menu's (the defaults where the rules refuse the draw), actions
    drawn by `rnd`.  Checks as it goes; returns the Cards at its end."""
    opts = dict((k, rnd.choice(vs)) for k, _, vs in g.options)
    try:
        c = card_level(g, seed, opts, seats)
    except RuleError:
        c = card_level(g, seed, defaults(g), seats)
    c.check()
    t = 0
    for step in range(CARD_STEPS + 1):
        if c.over():
            break
        assert step < CARD_STEPS, "%s seed %d: not over after %d actions" % (g.id, seed, step)
        who = c.to_act()
        assert who, "%s seed %d: nobody may act in a game that is not over (step %d)" % (g.id, seed, step)
        for q in range(c.seats):
            assert q in who or c.legal(q) == [], "%s seed %d: seat %d is not to act but has legal actions" % (
                g.id, seed, q)
        p = rnd.choice(who)
        acts = c.legal(p)
        assert acts, "%s seed %d: player %d may act but has no legal action" % (g.id, seed, p)
        t += 1 + rnd.randrange(400000)
        if illegal_every and step % illegal_every == 0:
            bad = [a for a in (-7, 0x7FFF, max(acts) + 1) if a not in acts]
            before = freeze(c.state)
            try:
                c.apply(p, bad[0], t)
            except RuleError as e:
                assert e.rule.startswith(g.prefix + "-"), "%s: an illegal action cites %s" % (g.id, e.rule)
            except Exception as e:  # noqa: BLE001
                raise AssertionError("%s seed %d: illegal action %r for player %d raises %r, not RuleError"
                                     % (g.id, seed, bad[0], p, e))
            else:
                raise AssertionError("%s seed %d: illegal action %r accepted" % (g.id, seed, bad[0]))
            assert freeze(c.state) == before, "%s seed %d: a refused action changed the state" % (g.id, seed)
        c.apply(p, rnd.choice(acts), t)
        c.check()
    return c


def check_card_level(s, root=None, rules=()):
    """Random legal play at the card level (options, seeds and choices
    drawn at random) never raises and always ends; only the players to act
    have legal actions; an illegal action raises RuleError with one of the
    game's rules and changes nothing; every card stays in one place (the
    State's check()); the record replays to itself, with the card level's
    scores as its totals, and is over when the game is."""
    g = s.game
    for i in range(CARD_EXAMPLES):
        rnd = random.Random("%s card %d" % (g.id, i) if s.seats == g.seats[0] else
                            "%s card %d seats %d" % (g.id, i, s.seats))
        seed = rnd.randrange(2 ** 32)
        try:
            c = card_game(g, seed, rnd, illegal_every=97, seats=s.seats)
        except AssertionError as e:
            raise AssertionError("%s%s" % (e, _cite(rules)))
        rec = c.record()
        if rec is None:
            continue
        rec = json.loads(json.dumps(rec))
        sheet = records.replay(rec)
        assert sheet.to_record() == rec, "%s seed %d: the record replays to another%s" % (g.id, seed, _cite(rules))
        assert c.scores() in (None, list(sheet.totals)), "%s seed %d: the card level scores %r, its record %r%s" % (
            g.id, seed, c.scores(), sheet.totals, _cite(rules))
        if c.over():
            assert sheet.over, "%s seed %d: over at the card level, not by its record%s" % (
                g.id, seed, _cite(rules))


def check_seats(s, root, rules=()):
    """The seat range is data: a game with a choice of seat counts has a
    "seats" option listing them in order from the fewest (its default), and
    its card level's State takes `seats`; a game with one count has neither.
    Its flow referees counts within the range (its SEAT_RANGE); a count of the
    range the flow does not referee yet is refused when the game starts,
    naming one of the game's rules, with nothing saved or stored."""
    g = s.game
    lo, hi = g.seats
    opts = dict((k, vs) for k, _, vs in g.options)
    params = inspect.signature(games.load(g.cards, "speedref.engine").State).parameters
    if lo < hi:
        assert tuple(opts.get("seats", ())) == tuple(seat_counts(g)), (
            "%s: seats %r, but its \"seats\" option is %r%s" % (g.id, g.seats, opts.get("seats"), _cite(rules)))
        assert defaults(g)["seats"] == lo, "%s: the fewest players by default%s" % (g.id, _cite(rules))
        assert "seats" in params, "%s: its State takes seats%s" % (g.id, _cite(rules))
    else:
        assert "seats" not in opts and "seats" not in params, (
            "%s: seats %r is one count: no seats option%s" % (g.id, g.seats, _cite(rules)))
    refereed = flow_seats(g)
    assert refereed and lo <= refereed[0] and refereed[-1] <= hi, (
        "%s: its flow referees %r, outside seats %r%s" % (g.id, refereed, g.seats, _cite(rules)))
    dirs = Dirs(root)
    for n in seat_counts(g):
        if n in refereed:
            continue
        r, probs = _start(g, dirs.new("seats"), defaults(g, n))
        assert r.app.flow is None, "%s starts with %d players, though its flow referees %r%s" % (
            g.id, n, refereed, _cite(rules))
        assert not probs, "%s, %d players: %s%s" % (g.id, n, probs, _cite(rules))
        assert r.store.load_game() == (None, None) and r.store.records() == [], (
            "%s, %d players: refused, but saved or stored%s" % (g.id, n, _cite(rules)))


CHECKS = (check_entry, check_seats, check_script, check_screens, check_power_cut, check_abandon,
          check_random_presses, check_options, check_menu, check_golden, check_golden_micropython,
          check_card_level)
# once a game; at each seat count the flow referees; at each seat count of the rules
ONCE = (check_entry, check_seats, check_menu)
FLOW = (check_script, check_screens, check_power_cut, check_abandon, check_random_presses, check_options)
RULES = (check_golden, check_golden_micropython, check_card_level)


def seated_checks(g):
    """(check, seats) for every check of CHECKS at the seat counts it runs at."""
    out = []
    for check in CHECKS:
        if check in ONCE:
            counts = [g.seats[0]]
        elif check in FLOW:
            counts = flow_seats(g)
        else:
            counts = seat_counts(g)
        out += [(check, n) for n in counts]
    return out
