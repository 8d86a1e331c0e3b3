# The slap path with the uplink on (tests/test_uplink_slap_path.py): the
# scripted slap-to-win Speed match of tests/mpy/device_game_e2e.py on the
# device loop (tests/mpy/board_sim.py), with or without a Wi-Fi uplink
# whose broker takes the connection and then answers nothing (stalled) or
# talks all the time (chatty): the broker on PORT is the test's.
#
#   micropython uplink_slap.py ROOT PORT MODE      MODE: off | stalled | chatty
#
# One record waits on flash before the game (in both modes, so the game's
# number is the same): the uplink has something in flight the whole time.
import json
import sys

from board_sim import Board
from device_game_e2e import slap_match
from speedref import uplink
from uplink_board import Wlan, record


def main(root, port, mode):
    bd = Board(root)
    bd.store.add_record(record(1))
    calls = [0, 0]  # ticks, ticks while a game was in play
    up = None
    if mode != "off":
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
        bd.device.uplink = up
    slap_match(bd)
    bd.wait(2000000)
    print(json.dumps({"result": 1, "ticks": calls[0], "in_play": calls[1],
                      "sends": up.sends if up else 0, "acks": up.acks if up else 0}))


main(sys.argv[1], sys.argv[2], sys.argv[3])
