# A Wi-Fi table for the uplink tests (tests/mqtt_rig.py): the firmware's
# Store, Log and Uplink under the MicroPython Unix port, whose sockets are
# real, talking to a real broker.  Wi-Fi is a stand-in (the Unix port has no
# network.WLAN): `up` says whether it is there.
#
#   micropython uplink_board.py ROOT CONF_FILE UID     (CONF_FILE: the uplink settings, JSON)
#
# Reads one JSON command a line on stdin, answers one line with "reply";
# the firmware's log lines go to stdout as on a board's USB console:
#   {"add": N}                 N finished games stored (records on flash); "full": the
#                              store's SpoolFull message when one more did not fit
#   {"abandon": N}             N games started and abandoned (numbers with no record)
#   {"bad": N}                 N records the rules refuse (a deal won by seat 5)
#   {"wifi": true|false}       the Wi-Fi comes and goes
#   {"run": {"acks": K, "pubacks": P, "sends": S, "ticks": M}}
#                              loop passes until K answers of the club's in all (or P
#                              broker PUBACKs, or S PUBLISHes), or M passes
#   {"cut": true}              loop until a PUBLISH is written, then the power goes
#   {"mem": true}              the heap in use now and before the uplink was loaded
import gc
import json
import sys
import time

from speedref.log import Log
from speedref.storage import SpoolFull, Store
from speedref.ticks import ticks_add

STEP_US = 100000  # the loop's clock moves 100 ms a pass: backoffs and ACK_US count in it


class Wlan:
    def __init__(self):
        self.up = True
        self.joins = 0

    def isconnected(self):
        return self.up

    def active(self, on=None):
        return True

    def connect(self, ssid, password):
        self.joins += 1


def record(n):
    return {"game": "speed", "layout": "pagat", "match": {"single": True}, "players": ["Ann", "Bob"],
            "deals": [{"winner": n % 2, "left": 1 + n % 10}]}


def main(root, conf, uid):
    store = Store(root, uid=uid)
    log = Log()
    net = Wlan()
    gc.collect()
    base = gc.mem_alloc()  # the heap before the uplink's code (and umqtt's) is loaded
    from speedref import uplink
    with open(conf) as f:
        store._write(uplink.CONFIG, json.load(f))
    up = uplink.build(store, log, net=net)
    now = ticks_add(0, -5000000)  # across a ticks wrap
    added = 0
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        cmd = json.loads(line)
        reply = {"reply": 1}
        if "bad" in cmd:
            for _ in range(cmd["bad"]):
                rec = record(0)
                rec["deals"][0]["winner"] = 5
                reply.setdefault("ids", []).append(store.add_record(rec))
        if "abandon" in cmd:
            for _ in range(cmd["abandon"]):
                store.new_game_seq()
        if "add" in cmd:
            ids = []
            for _ in range(cmd["add"]):
                added += 1
                try:
                    ids.append(store.add_record(record(added)))
                except SpoolFull as e:
                    reply["full"] = str(e)
                    break
            reply["ids"] = reply.get("ids", []) + ids
        if "wifi" in cmd:
            net.up = cmd["wifi"]
        if "run" in cmd:
            run = cmd["run"]
            n = 0
            while n < run["ticks"] and not (up.acks >= run.get("acks", 1 << 30) or
                                            up.pubacks >= run.get("pubacks", 1 << 30) or
                                            up.sends >= run.get("sends", 1 << 30)):
                now = ticks_add(now, STEP_US)
                up.tick(now)
                n += 1
                time.sleep_ms(1)
            reply["ticks"] = n
        if "mem" in cmd:
            gc.collect()
            reply["mem"] = [base, gc.mem_alloc()]
        if "cut" in cmd:
            sends = up.sends
            while up.sends == sends:
                now = ticks_add(now, STEP_US)
                up.tick(now)
                time.sleep_ms(1)
            print(json.dumps({"reply": "cut", "sent": up.sent}))
            sys.exit(0)  # the power goes: sent.json as it was, no answer read
        reply.update(acks=up.acks, pubacks=up.pubacks, sends=up.sends, sent=up.sent, backlog=up.backlog(),
                     joins=net.joins, kept=len(store._seqs()), redo=[up.redo_lo, up.redo_hi])
        print(json.dumps(reply))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
