# The menu: offer to resume a saved game at boot, offer the match the
# club's laptop gave this table (speedref/match.py), choose a game, set its
# options.  The options last used are remembered (saved only when changed:
# every save is a flash write).
from . import ui
from .ui import Screen, UP, DOWN, OK, CLICK
from .. import games
from ..storage import MATCH

# Each game's options (key, label, allowed values in the order OK steps
# through them: ascending, BACK steps back) and their defaults are its entry
# in speedref.games; the default is the game's `defaults` value, else the
# first value.  The registry is read when it is needed, never copied at
# import, so the menu lists exactly the games registered.

_GAME_ROWS = 5  # game titles that fit under the title bar (rows from y 14)
_WORDS = {"target": "to target", "best_of": "best of 3", "single": "1 deal"}


def merge_settings(saved):
    """The remembered settings, with defaults for anything missing or no
    longer allowed (a settings file from an older version never breaks us)."""
    ids = games.IDS
    s = {"game": ids[0]}
    if isinstance(saved, dict) and saved.get("game") in ids:
        s["game"] = saved["game"]
    t = saved.get("table") if isinstance(saved, dict) else None
    if isinstance(t, str):
        from ..names import why_not, TABLE_MAX
        if why_not(t, TABLE_MAX) is None:
            s["table"] = t  # the table's name, set from the laptop (roster.py)
    for g in games.GAMES:
        old = saved.get(g.id) if isinstance(saved, dict) else None
        if not isinstance(old, dict):
            old = {}
        d = {}
        for key, label, values in g.options:
            dv = default(g.id, key, values)
            v = old.get(key, dv)
            d[key] = v if _allowed(v, values) else dv
        s[g.id] = d
    return s


def check_save(app, saved):
    """None when `saved` (an intact game.json, a dict) can be offered for
    resuming, else why not (the store then sets it aside).  Its envelope
    against the registry first: the version, a game this device knows, its
    options (each of a type its menu values have: the flow checks the value),
    a state, a game number; then the game's own
    flow is built from it and dropped, which replays every entry through
    the engine's rules (_try_flow)."""
    if saved.get("v") != 1:
        return "not a save of this version"
    g = saved.get("game")
    if g not in games.IDS:
        return "no such game"
    opts = saved.get("opts")
    state = saved.get("state")
    seq = saved.get("seq")
    if not isinstance(opts, dict) or not isinstance(state, dict):
        return "no options or state"
    if seq is not None and (type(seq) is not int or seq < 1):
        return "bad game number"
    for key, label, values in games.get(g).options:
        if key not in opts:
            continue  # an option newer than the save: the flow has its default, or refuses
        v = opts[key]
        for x in values:
            if type(x) is type(v):
                break
        else:
            return "bad option %s" % key
    return _try_flow(app, g, opts, state)


def _try_flow(app, game, opts, state):
    """Build `game`'s flow from a save's options and state, and drop it:
    None when it can be resumed, else why not.  The modules it loaded for
    this are forgotten again (one already loaded stays: whoever loaded it
    holds it, and a second copy would take its room)."""
    import sys
    from .. import forget
    mods = [m for m in games.game_modules(game) if m not in sys.modules]
    try:
        cls = games.flow_class(game)
    except games.MissingGame:
        return None  # resuming says the game is not on this device
    try:
        cls(app, opts, 0, state)
    except MemoryError:
        return None  # no telling now: resuming will
    except Exception as e:  # noqa: BLE001 - a save the flow cannot rebuild is not resumed
        return "cannot resume: %s" % (e,)
    finally:
        while app.pop_sound() is not None:
            pass  # no cue from a flow that never ran
        for name in mods:
            forget(name)
    return None


def default(game, key, values):
    """An option's default value."""
    return games.get(game).defaults.get(key, values[0])


def _allowed(v, values):
    # equal AND of the same type: True == 1, but True is no tie window
    for x in values:
        if x == v and type(x) is type(v):
            return True
    return False


def value_text(v):
    if v is True or v is False:
        return "on" if v else "off"
    if isinstance(v, int):
        return str(v)
    return _WORDS.get(v, v)


class Boot(Screen):
    """First screen: resume a saved game, and/or show what went wrong with
    the save (the store has already set a corrupt file aside)."""

    def __init__(self, app, saved, problem):
        self.app = app
        self.saved = saved if isinstance(saved, dict) and "game" in saved else None
        self.problem = problem
        self.sure = False  # BACK pressed once: "Discard game?" asks for a second
        # nothing to resume, nothing to read: a match that arrives is shown instead
        self.at_home = self.saved is None and not problem

    def press(self, b, t_us):
        app = self.app
        if b == UP or b == DOWN:
            if self.sure:
                self.sure = False  # the question taken back
                app.redraw()
            return
        if b != OK:
            return
        if self.saved is not None:
            app.resume(self.saved, t_us)
        else:
            home(app)

    def back(self, t_us):
        # BACK refuses the saved game, which is then discarded for good:
        # one press only asks (a game is lost to one key nowhere), a second
        # one discards, as the pause menu's Abandon asks for a second OK
        app = self.app
        if self.saved is not None:
            if not self.sure:
                self.sure = True
                app.sound(CLICK)
                app.redraw()
                return
            app.discard(self.saved["game"])
        home(app)

    def draw(self, fb):
        if self.saved is not None:
            ui.title(fb, "Discard game?" if self.sure else "Resume game?")
            fb.text(game_name(self.saved["game"]), 0, 12, 1)
            y = 22
            at = self.saved.get("at")
            if isinstance(at, str):
                # where it goes on ("round 2 start"): a cut after a verdict
                # was shown but before it was saved resumes before it
                fb.text("at " + at[:13], 0, y, 1)
                y += 9
        else:
            ui.title(fb, "speedref")
            y = 12
        if self.problem:
            for line in ui.wrap(self.problem)[:(46 - y) // 9 if self.saved is not None else 3]:
                ui.text(fb, line, 0, y, 1)
                y += 9
        if self.saved is not None:
            fb.text("OK: resume", 0, 46, 1)
            ui.hint(fb, "BACK again: yes" if self.sure else "BACK: discard")
        else:
            ui.hint(fb, "OK: menu")


def game_name(g):
    return games.get(g).title if g in games.IDS else g


_CHECK = "Check wiring"  # the last row: app/check.py, loaded only when chosen


def home(app):
    """The menu's first screen: the match the laptop gave this table when
    one is offered (app/match_menu.py), else the game list.  speedref/match.py is
    loaded only when the flash holds a match, and let go once the screen
    is made."""
    m = None
    if app.store.kept(MATCH):
        from .. import match as M
        m, n = M.offered(app.store)
    if m is None:
        app.show(Games(app))
        return
    from .match_menu import Match
    g = games.get(m["game"])
    rows = ["%s: %s" % (label, value_text(m["opts"][key])) for key, label, values in g.options
            if key in m.get("opts", {})]
    app.show(Match(app, m, n, Games(app, games.IDS.index(g.id)), rows))
    from .. import forget
    forget("speedref.match")  # its code leaves the heap: OK on the match loads it again


class Games(Screen):
    """Choose the game; the last row is "Check wiring" (app/check.py).
    cursor: the row to start on (-1: the last), else the last game played.
    BACK goes to the match offered, if one is."""

    at_home = True  # a match that arrives is shown in its place (home)

    def __init__(self, app, cursor=None):
        self.app = app
        n = len(games.GAMES) + 1
        self.cursor = games.IDS.index(app.settings["game"]) if cursor is None else cursor % n
        self.top = ui.scroll_top(self.cursor, 0, _GAME_ROWS)

    def press(self, b, t_us):
        if b == UP or b == DOWN:
            n = len(games.GAMES) + 1
            self.cursor = (self.cursor + (1 if b == DOWN else n - 1)) % n
            self.top = ui.scroll_top(self.cursor, self.top, _GAME_ROWS)
            self.app.redraw()
        elif b == OK:
            self.app.sound(CLICK)
            if self.cursor == len(games.GAMES):
                from .check import WiringCheck
                self.app.show(WiringCheck(self.app, self))
            else:
                self.app.show(Options(self.app, games.IDS[self.cursor]))

    def back(self, t_us):
        home(self.app)

    def draw(self, fb):
        ui.title(fb, "Choose a game")
        ui.menu_rows(fb, [g.title for g in games.GAMES] + [_CHECK], self.cursor, self.top, 14)


class Options(Screen):
    """The chosen game's options: UP/DOWN move between the rows; on an
    option OK steps to its next value (ascending, round to the first) and
    BACK to the one before; OK on Start starts the game, BACK there returns
    to the game list."""

    def __init__(self, app, game):
        self.app = app
        self.game = game
        self.opts = dict(app.settings[game])
        self.cursor = 0
        self.top = 0

    def _items(self):
        items = ["Start"]
        for key, label, values in games.get(self.game).options:
            items.append("%s: %s" % (label, value_text(self.opts[key])))
        return items

    def press(self, b, t_us):
        app = self.app
        n = 1 + len(games.get(self.game).options)
        if b == UP or b == DOWN:
            self.cursor = (self.cursor + (1 if b == DOWN else n - 1)) % n
            self.top = ui.scroll_top(self.cursor, self.top)
            app.redraw()
        elif b == OK and self.cursor == 0:
            self._remember()
            app.sound(CLICK)
            # who is playing (app/who.py), when there are names to pick
            from .who import offer
            if not offer(app, self.game, dict(self.opts), t_us, self):
                from .. import forget
                forget("speedref.app.who")
                forget("speedref.roster")
                app.start(self.game, t_us, dict(self.opts))
        elif b == OK:
            self._step(1)

    def _step(self, d):
        key, label, values = games.get(self.game).options[self.cursor - 1]
        i = values.index(self.opts[key]) if self.opts[key] in values else (-1 if d > 0 else 0)
        self.opts[key] = values[(i + d) % len(values)]
        self.app.sound(CLICK)
        self.app.redraw()

    def back(self, t_us):
        if self.cursor:
            self._step(-1)  # one value back on an option row
            return
        self._remember()
        self.app.show(Games(self.app))

    def _remember(self):
        app = self.app
        s = app.settings
        if s[self.game] != self.opts or s["game"] != self.game:
            s[self.game] = dict(self.opts)
            s["game"] = self.game
            try:
                app.store.save_settings(s)
            except OSError as e:
                app.emit({"ev": "error", "what": "app", "msg": "settings not saved: %s" % e})

    def draw(self, fb):
        ui.title(fb, game_name(self.game))
        items = self._items()
        ui.menu_rows(fb, items, self.cursor, self.top)
        if len(items) <= 5:  # room for a hint under the rows
            ui.hint(fb, "BACK: game list" if self.cursor == 0 else self._step_hint())

    def _step_hint(self):
        """What OK and BACK do to this row's value: its real steps ("OK:+50
        BACK:-50" on Target 100 of 50..200), the value it goes round to at
        an end, or "change" for a value that is not a number."""
        key, label, values = games.get(self.game).options[self.cursor - 1]
        v = self.opts[key]
        if not _number(v) or v not in values:
            return "OK/BACK: change"
        i = values.index(v)
        n = len(values)
        up = values[(i + 1) % n]
        down = values[(i - 1) % n]
        if not (_number(up) and _number(down)):
            return "OK/BACK: change"
        a = "+%d" % (up - v) if i + 1 < n else str(up)
        b = "-%d" % (v - down) if i > 0 else str(down)
        s = "OK:%s  BACK:%s" % (a, b)
        return s if len(s) <= 16 else "OK:%s BACK:%s" % (a, b)


def _number(v):
    return isinstance(v, int) and v is not True and v is not False

