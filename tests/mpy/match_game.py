# The match the club's laptop gives a table, through the whole device
# (board_sim.Board: pins, capture, ring, decoder, app, the console's
# command lines), on CPython and on the MicroPython Unix port alike
# (tests/test_match_board.py runs both and compares):
#
#   the match sent over the console -> the menu's Match screen -> OK plays
#   it with the seats named; a re-pairing sent during the game waits for
#   its end, then is offered; "Change seats" picks a seat's player anew;
#   a played match is not offered again, a new one survives a power cut,
#   a clear takes it away.
#
# arg: {"match": {...}, "repaired": {...}, "next": {...}, "deal": {"winner": w, "left": n}}
import json

from board_sim import Board, MS, game_end, report
from speedref.app.core import UP, DOWN, OK
from device_game_speed import start_deal


def send(bd, cmd):
    """One console line; the lines the device answered with (match, match_part, error)."""
    bd.log.kinds = ("match", "match_part", "error")
    n = len(bd.log.keep)
    bd.device.command(json.dumps(cmd))
    bd.wait(20 * MS)
    return bd.log.keep[n:]


def screen(bd):
    """What the table sees: the screen's name, and a Match's title and rows
    (a picker's seat and offers)."""
    s = bd.app.screen
    out = {"screen": type(s).__name__}
    for k in ("head", "items", "cursor", "seat"):
        if hasattr(s, k):
            out[k] = getattr(s, k)
    return out


def finish_deal(bd, deal):
    """The rest of a one-deal Speed game after its start: "I'm out", the
    opponent agrees, the cards left, FINAL (device_game_speed.play_deal)."""
    w = deal["winner"]
    bd.tap(w)
    bd.wait(1200 * MS)
    bd.tap(1 - w, 600 * MS)
    bd.taps(UP, deal["left"] - 1)
    bd.tap(OK)
    bd.tap(OK)


def to_item(bd, text):
    s = bd.app.screen
    while s.items[s.cursor] != text:
        bd.tap(DOWN)
    bd.tap(OK)


def main(root, argf):
    with open(argf) as f:
        arg = json.load(f)
    out = {}
    bd = Board(root)
    bd.tap(OK)  # the boot screen: the menu
    out["menu"] = screen(bd)
    out["sent"] = send(bd, {"cmd": "match", "match": arg["match"]})
    out["offered"] = screen(bd)
    out["shown"] = send(bd, {"cmd": "match"})
    bd.tap(OK)  # Play
    start_deal(bd)
    out["in_game"] = screen(bd)["screen"]
    import sys
    out["in_game_modules"] = sorted([m for m in sys.modules if m.startswith("speedref")])
    out["during"] = send(bd, {"cmd": "match", "match": arg["repaired"]})  # waits for the game's end
    finish_deal(bd, arg["deal"])
    out["record"] = game_end(bd)
    out["after"] = screen(bd)
    to_item(bd, "Change seats")
    out["picker"] = screen(bd)
    bd.taps(DOWN, 2)  # seat 1: past the match's player (and who sat there last) to Bob
    bd.tap(OK)
    out["picker2"] = screen(bd)
    bd.tap(OK)    # seat 2: its player
    start_deal(bd)
    finish_deal(bd, arg["deal"])
    out["record2"] = game_end(bd)
    out["after2"] = screen(bd)
    out["again"] = send(bd, {"cmd": "match", "match": arg["repaired"]})
    out["again_screen"] = screen(bd)
    out["older"] = send(bd, {"cmd": "match", "match": arg["match"]})
    out["next"] = send(bd, {"cmd": "match", "match": arg["next"]})
    out["next_screen"] = screen(bd)
    bd.boot()  # the power goes and comes back
    bd.tap(OK)
    out["rebooted"] = screen(bd)
    out["cleared"] = send(bd, {"cmd": "match", "clear": True})
    out["cleared_screen"] = screen(bd)
    out["bad"] = send(bd, {"cmd": "match", "match": dict(arg["next"], names=["Ann"])})
    report(out)
