# The "board" of the end-to-end test (tests/host/test_host_e2e.py): the firmware's
# device loop under the MicroPython Unix port, its USB console on this
# process's stdin/stdout (a pseudo-terminal the test connects to speedref-log),
# games played by scripted pad and button edges (board_sim).
#
#   micropython device_game_e2e.py PLAYED_FILE FLASH_FILE SESSION
#
# The flash is a Store in FLASH_FILE + ".d"; FLASH_FILE itself is kept as a
# JSON list of the stored records for the test to read.  Session 1 first plays
# a game with no laptop attached (echo off: only the flash keeps it), then
# boots, answers speedref-log's {"cmd": "dump"} through the firmware's own
# UsbConsole, and plays a slap-to-win Speed match (SP-17); session 2 plays a
# partners game.  Line noise (not UTF-8, a cut line, a record that fails the
# rules) is injected on the wire by this harness, never by the firmware.
import json
import sys
import time

from board_sim import Board, MS, choose_game, game_end
from speedref.app.core import UP, OK
from speedref.device import UsbConsole

WAIT_CMD_MS = 30000


def speed_single(bd, winner, left):
    from device_game_speed import play_deal
    opts = {"match": "single"}
    choose_game(bd, "speed", opts)
    play_deal(bd, {"events": "F", "winner": winner, "left": left}, opts)


def slap(bd, first, gap_us):
    """Both slap, `first` gap_us earlier (SP-17), then both let go."""
    bd.press(first)
    bd.wait(gap_us)
    bd.press(1 - first)
    bd.wait(60 * MS)
    bd.release(0)
    bd.release(1)
    bd.wait(600 * MS)  # the verdict: once both pads are up


SLAP_MATCH = {"slap_to_win": True, "match": "best_of", "tie_ms": 1}


def slap_match(bd, chosen=False):
    """Best of 3, slap to win, tie window 1 ms: deal 1 a tie (0.2 ms, play
    on) then P1 by 3.2 ms; deal 2 P1 by 1.8 ms.  P1 wins 2-0.  chosen: the
    game has been started already (SLAP_MATCH's options: a match's Play)."""
    from device_game_speed import start_deal
    if not chosen:
        choose_game(bd, "speed", SLAP_MATCH)
    for gaps, left in (((200, 3200), 4), ((1800,), 2)):
        start_deal(bd)
        for g in gaps:
            slap(bd, 0, g)
        bd.wait(600 * MS)    # SP-16: a press sooner after the question is a reflex
        bd.tap(1, 600 * MS)  # P2 confirms the claim: held 0.5 s
        bd.taps(UP, left)    # slap-to-win: the count starts at 0
        bd.tap(OK)
        bd.tap(OK)           # NEXT / FINAL


def partners(bd):
    import app_partners_game as pg
    choose_game(bd, "partners", {"target": 100})
    pg.tap(bd, 0)  # PT-3: P1 deals first
    table = pg.Table()
    for hand in pg.GAME_100:
        pg.play_hand(bd, table, hand)
        pg.tap(bd, OK)  # TOTALS: next hand, or FINAL: store and end


def wire(b):
    sys.stdout.buffer.write(b)


def main(played_file, flash_file, session):
    root = flash_file + ".d"
    try:
        import os
        os.stat(root)
    except OSError:
        bd = Board(root, echo=False)  # no laptop attached: the flash keeps it
        speed_single(bd, 1, 6)
    bd = Board(root)
    console = UsbConsole()
    bd.device.console = console
    bd.log.emit({"ev": "boot", "board": "sim", "capture": "irq", "platform": sys.platform})
    waited = 0
    while not bd.log.counts.get("dump_end") and waited < WAIT_CMD_MS:
        bd.wait(1 * MS)       # the device loop idles, polling the console
        time.sleep_ms(1)
        waited += 1
    wire(b"\x00\xffnoise on the line\n")
    wire(b'{"ev": "game_end", "rec\n')
    if session == 1:
        slap_match(bd)
    else:
        partners(bd)
    played = [game_end(bd)]
    if session != 1:
        bad = dict(played[0])
        bad["id"] = "bad-1"
        bad["target"] = -1  # fails PT- validation: speedref-log must refuse it
        wire(json.dumps({"ev": "game_end", "record": bad}).encode() + b"\n")
    with open(played_file, "w") as f:
        json.dump(played, f)
    with open(flash_file, "w") as f:
        json.dump(bd.store.records(), f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
