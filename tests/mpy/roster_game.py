# The roster and the name picker driven through the app, on CPython and on
# the MicroPython Unix port alike (tests/app/test_roster.py runs both): roster
# commands as the laptop sends them, four seats named on the device (the
# roster, Guest, the letter wheel), a partners game played with seat swaps
# (PT-8) and its record, then the same players again in one press.
from app_rig import Rig, MS
from speedref.app.core import DOWN, OK, BACK
from speedref.roster import Console
import app_partners_game as pg

TAP = 60 * MS


def command(rig, console, cmd):
    """One console command; the lines it answered with."""
    n = len(rig.log.lines)
    console.command(rig.app, rig.log, cmd)
    return rig.log.lines[n:]


def tap(rig, b, n=1):
    for _ in range(n):
        rig.tap(b, TAP, TAP)


def to_game(rig, game):
    """From the game list: the game's options, then Start."""
    from speedref import games
    scr = rig.app.screen
    while scr.cursor != games.IDS.index(game):
        tap(rig, DOWN)
    tap(rig, OK)   # its options
    tap(rig, OK)   # Start


def pick(rig, name):
    """The seat on screen takes `name` from the list (UP/DOWN, OK)."""
    scr = rig.app.screen
    for _ in range(len(scr.items)):
        if scr.items[scr.cursor] == name:
            break
        tap(rig, DOWN)
    tap(rig, OK)


def type_name(rig, text):
    """The letter wheel: each letter turned to with DOWN and added with OK,
    then "end"."""
    from speedref.app import who
    pick(rig, who.NEW)
    scr = rig.app.screen
    for ch in list(text) + [None]:
        want = len(who.WHEEL) + 1 if ch is None else who.WHEEL.index(ch)
        while scr.wheel != want:
            tap(rig, DOWN)
        tap(rig, OK)


def report(root):
    rig = Rig(root)
    con = Console()
    out = {}
    out["empty"] = command(rig, con, {"cmd": "roster"})
    out["add"] = command(rig, con, {"cmd": "roster", "add": ["Ann", " Bob ", "Cat", "Dan"]})
    out["table"] = command(rig, con, {"cmd": "table", "name": "Table 3"})
    bad = {}
    for key, names in (("empty", [""]), ("long", ["Bartholomew"]), ("escape", ["Ann\x1b[31m"]),
                       ("sign", ["Zo\u00d7"]), ("seat", ["p2"]), ("guest", ["GUEST"]),
                       ("notlist", "Ann"), ("many", ["N%d" % i for i in range(101)])):
        bad[key] = command(rig, con, {"cmd": "roster", "add": names})
    bad["remove"] = command(rig, con, {"cmd": "roster", "remove": ["Zed"]})
    bad["table"] = command(rig, con, {"cmd": "table", "name": "x" * 17})
    out["bad"] = bad
    out["after_bad"] = command(rig, con, {"cmd": "roster"})
    # a push in two parts replaces the roster; a part out of order is refused
    out["push1"] = command(rig, con, {"cmd": "roster", "push": ["Ann", "Bob"], "part": 0, "end": False})
    out["push_bad"] = command(rig, con, {"cmd": "roster", "push": ["Cat"], "part": 5})
    out["push_again"] = command(rig, con, {"cmd": "roster", "push": ["Ann", "Bob"], "part": 0,
                                           "end": False})
    out["push2"] = command(rig, con, {"cmd": "roster", "push": ["Cat", "Dan", "ann"], "part": 1,
                                      "end": True})
    # Who is playing: partners, four seats from the game list
    tap(rig, OK)  # boot screen -> game list
    to_game(rig, "partners")
    scr = rig.app.screen
    out["picker"] = type(scr).__name__
    lights = [rig.app.lights]
    out["seat0_items"] = list(scr.items)
    pick(rig, "Ann")
    lights.append(rig.app.lights)
    out["seat1_items"] = list(rig.app.screen.items)  # Ann is not offered again
    pick(rig, "Dan")
    lights.append(rig.app.lights)
    pick(rig, "Guest")
    lights.append(rig.app.lights)
    # the wheel refuses a name already playing, then takes a walk-in's
    type_name(rig, "Ann")
    out["dup_note"] = rig.app.screen.note
    out["dup_screen"] = type(rig.app.screen).__name__
    tap(rig, BACK, 3)  # rub out "Ann"
    tap(rig, BACK)  # out of the wheel
    type_name(rig, "Eve")
    out["lights"] = lights
    f = rig.app.flow
    out["names"] = list(f.names)
    # a game with seat swaps (PT-8): names follow the players
    tap(rig, 0)  # PT-3: the first dealer taps their pad
    table = pg.Table()
    for h in pg.GAME_100:
        pg.play_hand(rig, table, h)
        tap(rig, OK)
    ends = rig.log.of("game_end")
    out["record"] = ends[-1]["record"] if ends else None
    out["stored"] = rig.store.records()[-1]
    out["roster_after"] = command(rig, con, {"cmd": "roster"})
    # the same four again: one press at "Same players?"
    to_game(rig, "partners")
    out["same_screen"] = type(rig.app.screen).__name__
    out["same_lights"] = rig.app.lights
    tap(rig, OK)
    out["names_again"] = list(rig.app.flow.names)
    # the console refuses roster changes while a game runs
    out["in_game"] = command(rig, con, {"cmd": "roster", "add": ["Fay"]})
    return out
