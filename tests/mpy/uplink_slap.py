# The slap path with the uplink on (tests/device/test_uplink_slap_path.py): the
# scripted slap-to-win Speed match of tests/mpy/device_game_e2e.py on the
# device loop (tests/mpy/board_sim.py), with or without a Wi-Fi uplink
# whose broker takes the connection and then answers nothing (stalled),
# talks all the time (chatty), or gives the table its match and a
# re-pairing of it every few milliseconds, through the game (match): the
# broker on PORT is the test's.
#
#   micropython uplink_slap.py ROOT PORT MODE      MODE: off | stalled | chatty | usb | match
#
# One record waits on flash before the game (in every mode, so the game's
# number is the same): the uplink has something in flight the whole time.
# In the modes usb and match the game is the match's: given on the console
# (usb, no uplink) or by the broker (match), it is started with its Play.
import json
import sys
import time

from board_sim import Board, MS
from device_game_e2e import slap_match, SLAP_MATCH
from speedref import uplink
from speedref.app.core import OK
from uplink_board import Wlan, record

MATCH = {"id": "e1r1", "evening": 1, "round": 1, "table": "Table 1", "game": "speed", "opts": SLAP_MATCH,
         "names": ["Ann", "Bob"]}


def main(root, port, mode):
    bd = Board(root)
    bd.store.add_record(record(1))
    calls = [0, 0]  # ticks, ticks while a game was in play
    up = None
    if mode not in ("off", "usb"):
        bd.store._write(uplink.CONFIG, {"ssid": "clubnet", "broker": "127.0.0.1", "port": int(port),
                                       "club": "club", "table": "t1"})
        up = uplink.build(bd.store, bd.log, net=Wlan())
        tick = up.tick

        def counted(now):
            calls[0] += 1
            if bd.app.flow is not None and not bd.app.over:  # a game in play
                calls[1] += 1
            tick(now)
        up.tick = counted
        bd.device.attach(up)
    if mode == "usb":
        bd.device.command(json.dumps({"cmd": "match", "match": MATCH}))
    if mode in ("usb", "match"):
        for _ in range(20000):  # the match comes (at rest, on the wall's clock too)
            if type(bd.app.screen).__name__ == "Match":
                break
            bd.wait(20 * MS)
            time.sleep_ms(1)
        bd.tap(OK)  # the match's Play: the game starts with its names
    slap_match(bd, chosen=mode in ("usb", "match"))
    bd.wait(2000000)
    s = bd.app.screen
    print(json.dumps({"result": 1, "ticks": calls[0], "in_play": calls[1],
                      "sends": up.sends if up else 0, "acks": up.acks if up else 0,
                      "matches": up.matches if up else 0, "screen": type(s).__name__,
                      "items": getattr(s, "items", None)}))


main(sys.argv[1], sys.argv[2], sys.argv[3])
