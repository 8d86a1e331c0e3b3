# Names as people write them, through the app, on CPython and on the
# MicroPython Unix port alike (tests/app/test_names_accented.py runs both): a
# roster of accented names as the laptop sends it, the same person in
# another case, a seat picking one and a walk-in typed on the letter wheel
# with its accented forms (the seat's pad), a game of Speed with them, its
# record, its log lines as written and the screen at its end.
from binascii import hexlify
from app_rig import Rig, ListLog
from speedref.app.core import DOWN, OK
from speedref.roster import Console
from roster_game import command, tap, to_game, pick
import app_rig

ROSTER = ["Zo\u00eb", "Jos\u00e9", "\u00d0\u00f3ra", "\u017b\u00f3\u0142\u0107\u0119\u015b\u0105\u017a\u0144\u0142"]
WALK_IN = "\u0141ukasz"


class RawLog(ListLog):
    """The lines as the Log wrote them (the text a laptop reads), and parsed."""

    def __init__(self):
        self.raw = []
        ListLog.__init__(self)

    def _write(self, s):
        if s.startswith('{"ev": "game_end"') or s.startswith('{"ev": "roster"'):
            self.raw.append(s)  # the lines looked at (the others would fill a board's heap)
        ListLog._write(self, s)


def type_name(rig, text, seat):
    """The letter wheel: each letter's base turned to with DOWN, the seat's
    pad pressed for its accented form, OK; then "end"."""
    from speedref.app import who
    from speedref.app.glyphs import ACCENTS
    pick(rig, who.NEW)
    scr = rig.app.screen
    presses = 0
    for ch in list(text) + [None]:
        k = 0
        if ch is None:
            want = len(who.WHEEL) + 1
        elif ch in who.WHEEL:
            want = who.WHEEL.index(ch)
        else:
            forms = [s for s in ACCENTS if ch in s][0]
            want = who.WHEEL.index(forms[0])
            k = forms.index(ch)
        while scr.wheel != want:
            tap(rig, DOWN)
            presses += 1
        tap(rig, seat, k)
        tap(rig, OK)
        presses += k + 1
    return presses


def report(root):
    log = RawLog()
    rig = Rig(root, log=log)
    con = Console()
    out = {}
    out["add"] = command(rig, con, {"cmd": "roster", "add": ROSTER})
    out["again"] = command(rig, con, {"cmd": "roster", "add": ["ZO\u00cb", "jos\u00c9"]})
    out["long"] = command(rig, con, {"cmd": "roster", "add": [ROSTER[3] + "x"]})
    out["sign"] = command(rig, con, {"cmd": "roster", "add": ["Ann\u00f7"]})
    out["decomposed"] = command(rig, con, {"cmd": "roster", "add": ["Jose\u0301"]})
    out["table"] = command(rig, con, {"cmd": "table", "name": "T\u00e1bla \u00c1rv\u00edzt\u0171r\u0151"})
    # Speed, two seats: the first picks Zoe from the roster, the second is a
    # walk-in typed on the wheel
    rig.app.settings["speed"]["match"] = "single"  # one deal: the match's end (SP-19)
    tap(rig, OK)  # boot screen -> game list
    to_game(rig, "speed")
    out["items"] = list(rig.app.screen.items)
    pick(rig, ROSTER[0])
    out["presses"] = type_name(rig, WALK_IN, 1)
    f = rig.app.flow
    out["names"] = list(f.match.players)
    app_rig.play_deal(rig, 1, 7)  # the walk-in wins
    out["final"] = hexlify(rig.app.buf).decode()
    tap(rig, OK)  # save & end
    ends = log.of("game_end")
    out["record"] = ends[-1]["record"] if ends else None
    out["raw_end"] = [s for s in log.raw if s.startswith('{"ev": "game_end"')][-1]
    out["roster_after"] = command(rig, con, {"cmd": "roster"})
    out["raw_roster"] = log.raw[-1]
    return out
