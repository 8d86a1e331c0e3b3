# The menu: offer to resume a saved game at boot, choose a game, set its
# options.  The options last used are remembered (saved only when changed:
# every save is a flash write).
from speedref.app import ui
from speedref.app.core import Screen, UP, DOWN, OK, CLICK

GAMES = ("speed", "spit", "speedrun", "partners")
GAME_NAMES = ("Speed", "Spit", "Speed Run", "Partners")

# Per game: (key, label, allowed values in the order OK steps through them:
# ascending, BACK steps back).  The default is the game's DEFAULTS value,
# else the first.
# Tie window "auto": the board's own default, which follows its capture
# path (App.tie_default_us, docs/timing.md: 0.01 ms PIO, 0.1 ms rp2 pin
# interrupts, 5 ms ESP32); a number is milliseconds.  "auto" took the place
# of the old default 5, so a settings file holding 5 now gets "auto".
TIE_MS = ("auto", 0, 1, 2, 10, 20, 50)
DEFAULTS = {"speed": {"target": 25}, "speedrun": {"length": "long"}, "partners": {"target": 100}}
OPTIONS = {
    "speed": (
        ("layout", "Layout", ("pagat", "classic")),
        ("jokers", "Jokers", (False, True)),
        ("doubles", "Doubles", (False, True)),
        ("hand_limit", "Hand", (5, 6, 7)),
        ("slap_to_win", "Slap win", (False, True)),
        ("match", "Match", ("target", "best_of", "single")),
        ("target", "Target", (15, 25, 50, 100)),
        ("tie_ms", "Tie ms", TIE_MS),
    ),
    "spit": (
        ("tie_ms", "Tie ms", TIE_MS),
    ),
    "speedrun": (
        ("length", "Length", ("short", "medium", "long")),
    ),
    "partners": (
        ("target", "Target", (50, 100, 150, 200)),
    ),
}

_WORDS = {"target": "to target", "best_of": "best of 3", "single": "1 deal"}


def merge_settings(saved):
    """The remembered settings, with defaults for anything missing or no
    longer allowed (a settings file from an older version never breaks us)."""
    s = {"game": GAMES[0]}
    if isinstance(saved, dict) and saved.get("game") in GAMES:
        s["game"] = saved["game"]
    for g in GAMES:
        old = saved.get(g) if isinstance(saved, dict) else None
        if not isinstance(old, dict):
            old = {}
        d = {}
        for key, label, values in OPTIONS[g]:
            dv = default(g, key, values)
            v = old.get(key, dv)
            d[key] = v if _allowed(v, values) else dv
        s[g] = d
    return s


def default(game, key, values):
    """An option's default value."""
    d = DEFAULTS.get(game)
    return d[key] if d and key in d else values[0]


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

    def press(self, b, t_us):
        if b != OK:
            return
        app = self.app
        if self.saved is not None:
            app.resume(self.saved, t_us)
        else:
            app.show(Games(app))

    def back(self, t_us):
        # BACK refuses the saved game: it is discarded for good
        app = self.app
        if self.saved is not None:
            app.emit({"ev": "abandon", "game": self.saved["game"]})
            app._clear_game()
        app.show(Games(app))

    def draw(self, fb):
        if self.saved is not None:
            ui.title(fb, "Resume game?")
            fb.text(game_name(self.saved["game"]), 0, 12, 1)
            y = 22
        else:
            ui.title(fb, "speedref")
            y = 12
        if self.problem:
            for line in ui.wrap(self.problem)[:3]:
                fb.text(line, 0, y, 1)
                y += 9
        if self.saved is not None:
            fb.text("OK: resume", 0, 46, 1)
            ui.hint(fb, "BACK: discard")
        else:
            ui.hint(fb, "OK: menu")


def game_name(g):
    return GAME_NAMES[GAMES.index(g)] if g in GAMES else g


class Games(Screen):
    """Choose the game."""

    def __init__(self, app):
        self.app = app
        self.cursor = GAMES.index(app.settings["game"])

    def press(self, b, t_us):
        if b == UP or b == DOWN:
            self.cursor = (self.cursor + (1 if b == DOWN else len(GAMES) - 1)) % len(GAMES)
            self.app.redraw()
        elif b == OK:
            self.app.sound(CLICK)
            self.app.show(Options(self.app, GAMES[self.cursor]))

    def draw(self, fb):
        ui.title(fb, "Choose a game")
        ui.menu_rows(fb, GAME_NAMES, self.cursor, 0, 14)


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
        for key, label, values in OPTIONS[self.game]:
            items.append("%s: %s" % (label, value_text(self.opts[key])))
        return items

    def press(self, b, t_us):
        app = self.app
        n = 1 + len(OPTIONS[self.game])
        if b == UP or b == DOWN:
            self.cursor = (self.cursor + (1 if b == DOWN else n - 1)) % n
            self.top = ui.scroll_top(self.cursor, self.top)
            app.redraw()
        elif b == OK and self.cursor == 0:
            self._remember()
            app.sound(CLICK)
            app.start(self.game, t_us, dict(self.opts))
        elif b == OK:
            self._step(1)

    def _step(self, d):
        key, label, values = OPTIONS[self.game][self.cursor - 1]
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
            ui.hint(fb, "BACK: game list" if self.cursor == 0 else "OK:+1  BACK:-1")
