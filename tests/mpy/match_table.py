# A Wi-Fi table for the match tests (tests/test_match_push.py): the whole
# device (board_sim.Board: pins, capture, ring, decoder, app, the device
# loop) with the firmware's uplink on it, under the MicroPython Unix port,
# whose sockets are real, talking to a real broker.  Wi-Fi is a stand-in
# (uplink_board.Wlan): `wifi` says whether it is there.
#
#   micropython match_table.py ROOT CONF_FILE UID     (CONF_FILE: the uplink settings, JSON)
#
# One JSON command a line on stdin, one reply line with "reply"; the
# firmware's log lines go to stdout as on a board's USB console:
#   {"run": {"until": "match" | "games", "acks": K, "ticks": M}}
#                        device loop passes (20 ms of the board's clock, 1 ms of
#                        the wall's) until the menu shows a match ("match", or
#                        a match of round R: "round": R) or the game list, or the
#                        club has answered K records, or M passes
#   {"play": {"winner": w, "left": n}}
#                        OK on the match's Play, then its one-deal Speed game
#   {"wifi": true|false} the Wi-Fi comes and goes
#   {"mem": true}        the heap in use now
# Every reply has the screen ("screen", and a match's "head" and "items"),
# and the uplink's counts.
import gc
import json
import sys
import time

from board_sim import Board, MS
from device_game_speed import start_deal
from match_game import finish_deal, screen
from speedref import uplink
from speedref.app.core import OK
from uplink_board import Wlan

PASS_US = 20 * MS


def main(root, conf, uid):
    bd = Board(root, uid=uid)
    with open(conf) as f:
        bd.store._write(uplink.CONFIG, json.load(f))
    net = Wlan()
    up = uplink.build(bd.store, bd.log, net=net)
    bd.device.attach(up)
    bd.tap(OK)  # the boot screen gives way to the menu
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        cmd = json.loads(line)
        reply = {"reply": 1}
        if "wifi" in cmd:
            net.up = cmd["wifi"]
        if "run" in cmd:
            run = cmd["run"]
            n = 0
            while n < run["ticks"]:
                s = bd.app.screen
                name = type(s).__name__
                if run.get("until") == "match" and name == "Match" and \
                        (run.get("round") is None or s.m["round"] == run["round"]):
                    break
                if run.get("until") == "games" and name == "Games":
                    break
                if up.acks >= run.get("acks", 1 << 30):
                    break
                bd.wait(PASS_US)
                time.sleep_ms(1)
                n += 1
            reply["ticks"] = n
        if "play" in cmd:
            bd.tap(OK)  # Play
            start_deal(bd)
            finish_deal(bd, cmd["play"])
        if "mem" in cmd:
            gc.collect()
            reply["mem"] = gc.mem_alloc()
        reply.update(screen(bd))
        reply.update(acks=up.acks, sends=up.sends, matches=up.matches, backlog=up.backlog())
        print(json.dumps(reply))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
