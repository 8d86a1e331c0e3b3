# The games this referee knows: one entry each, and the only list of games.
# Everything that lists the games or picks a game's code reads it: the menu,
# the app, game records, the simulator, the host tools, the benchmarks and the
# conformance tests.
#
# An entry names its modules as strings, so importing this module loads no
# game's code: the board imports a game's table level and flow only when that
# game starts (heap), and never its card level or simulator table.
#
# Adding a game is one entry here plus the game's own files
# (docs/architecture.md, "Adding a game").
from collections import namedtuple


# One game, as the rest of the product sees it (a named tuple: no dict per
# entry on the board's heap):
#   id        the name in records, settings, scripts and command lines
#   title     what the OLED menu and the score sheets call it
#   seats     (fewest, most) players the rules seat, one slap pad each: (2, 4)
#             for Speed, (2, 2) for Spit.  A game with a choice has a "seats"
#             option listing the counts in order (the menu's "Players" row),
#             which its flow and its card level's State take as `seats`
#   prefix    its rule numbers in seeds/<rules>.md ("SP" for SP-1, SP-2 ...)
#   rules     the seeds file, without ".md"
#   unit      what one scored part of the game is called: deal, round, hand
#   engine    the table level (in speedref.engine): what the referee knows at a
#             real table, scoring, replay(record) -> sheet
#   cards     the card level (in speedref.engine): full play with real cards,
#             for the simulator's computer players and the tests
#   flow      "module:Class" of the referee app's flow (in speedref.app)
#   table     "module:Class" of the simulator's virtual table (in sim.table;
#             desktop only)
#   options   the menu's options: (key, label, values in OK's ascending order)
#   defaults  {key: value} for options whose default is not their first value
#   person    the simulator's module where a person plays it against computer
#             players (in sim.table; `speedref-sim --play`; desktop only), or None
#   bonus     the table level's per-seat count of bonuses the standings add up
#             in their "perfect" column (a sheet attribute: Speed Run's
#             "perfects", SR-26), or None: a game without that column
#   words     the module that words the game's own log lines for people (in
#             sim.words: the simulator's and the emulator's event log;
#             desktop only), or None: its lines are shown as JSON
# A module named without a dot is in the package its field names (module()
# and load() take it): "speed_flow:SpeedFlow" is speedref.app.speed_flow.
# A dotted name is itself (a game kept outside these packages, as the tests'
# "dummy_game.coin_table:CoinTable").  Short names cost the board's heap least: a string of
# more than 10 characters is a heap object when the module is loaded.
Game = namedtuple("Game", ("id", "title", "seats", "prefix", "rules", "unit", "engine", "cards",
                           "flow", "table", "options", "defaults", "person", "bonus", "words"))


# Speed's Target "auto": 25 points for each other player (25, 50, 75 with
# 2, 3, 4 players: speed.default_target, SP-36).
#
# Tie window "auto": the board's own default, which follows its capture path
# (App.tie_default_us, docs/timing.md: 0.01 ms PIO, 0.1 ms rp2 pin interrupts,
# 5 ms ESP32); a number is milliseconds.  "auto" took the place of the old
# default 5, so a settings file holding 5 now gets "auto".  Not tunables:
# the choices a game's option offers (the players pick one), kept with the
# option; the auto defaults are the tunables' TIE_*.
TIE_MS = ("auto", 0, 1, 2, 10, 20, 50)

GAMES = (
    Game("speed", "Speed", (2, 4), "SP", "speed", "deal",
         "speed", "speed_cards",
         "speed_flow:SpeedFlow", "speed_table:SpeedTable",
         (("layout", "Layout", ("pagat", "classic")),
          ("jokers", "Jokers", (False, True)),
          ("doubles", "Doubles", (False, True)),
          ("hand_limit", "Hand", (5, 6, 7)),
          ("slap_to_win", "Slap win", (False, True)),
          ("match", "Match", ("target", "best_of", "single")),
          ("target", "Target", ("auto", 15, 25, 50, 75, 100)),
          ("tie_ms", "Tie ms", TIE_MS),
          ("seats", "Players", (2, 3, 4))),
         {"target": "auto"}, "speed_person", None, "speed"),
    Game("spit", "Spit", (2, 2), "SPIT", "spit", "round",
         "spit", "spit_cards",
         "spit_flow:SpitFlow", "spit_table:SpitTable",
         (("tie_ms", "Tie ms", TIE_MS),), {}, "spit_person", None, "spit"),
    Game("speedrun", "Speed Run", (3, 3), "SR", "speedrun", "hand",
         "speedrun", "speedrun_cards",
         "speedrun_flow:SpeedRunFlow", "speedrun_table:SpeedRunTable",
         (("length", "Length", ("short", "medium", "long")),),
         {"length": "long"}, "speedrun_person", "perfects", "speedrun"),
    Game("partners", "Partners", (4, 4), "PT", "partners", "hand",
         "partners", "partners_cards",
         "partners_flow:PartnersFlow", "partners_table:PartnersTable",
         (("target", "Target", (50, 100, 150, 200)),),
         {"target": 100}, "partners_person", None, "partners"),
)

IDS = tuple(g.id for g in GAMES)


class UnknownGame(ValueError):
    """A name that is no game of this registry (a record, a script, a save)."""


def get(game_id):
    """The entry for `game_id`; UnknownGame (a ValueError) names the games."""
    for g in GAMES:
        if g.id == game_id:
            return g
    raise UnknownGame("unknown game %r (expected one of %s)" % (game_id, ", ".join(IDS)))


def module(path, package=None):
    """The module an entry's `path` ("module" or "module:Name") names: a
    name without a dot is in `package`, a dotted one is itself."""
    mod = path.partition(":")[0]
    return package + "." + mod if package and "." not in mod else mod


def load(path, package=None):
    """Import the module `path` names (module()) and return it, or its
    `Name` for "module:Name".  Only the import of that module itself is
    turned into MissingGame: an ImportError raised from inside it (a typo in
    a flow) is a defect and propagates as it is."""
    import sys
    mod = module(path, package)
    try:
        __import__(mod)
    except ImportError as e:
        # CPython: ModuleNotFoundError.name is the missing module; MicroPython:
        # ImportError("no module named 'speedref.app.x_flow'").  Either way the
        # missing one must be `mod` itself (or a package above it), not a
        # module that `mod` imports.
        missing = getattr(e, "name", None)
        if missing is None:
            missing = str(e).split("'")
            missing = missing[1] if len(missing) > 2 else ""
        if missing == mod or mod.startswith(missing + "."):
            raise MissingGame(mod)
        raise
    m = sys.modules[mod]
    name = path.partition(":")[2]
    return getattr(m, name) if name else m


def flow_class(game):
    """Import a game's flow (and so its engine) only when that game starts.
    UnknownGame for no such game, MissingGame when its flow is not on this
    device."""
    return load(get(game).flow, "speedref.app")


def game_modules(game):
    """The modules a game's flow brings into the heap: its flow, its table
    level, and what flows share (the arbiter, the timers).  App.close()
    forgets them (the tunables they read as they loaded are gone by then:
    App._run), so playing all four games in turn never holds more than one
    game's code in a 64 KB heap, and the menu after a game holds what it
    held at boot (speedref.forget: only on MicroPython)."""
    g = get(game)
    return (module(g.flow, "speedref.app"), module(g.engine, "speedref.engine"),
            "speedref.arbiter", "speedref.app.timing")


class MissingGame(ImportError):
    """A registered game whose code is not on this device (a small board may
    carry only some games)."""
