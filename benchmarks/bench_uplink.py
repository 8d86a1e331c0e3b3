"""Tables on Wi-Fi: game end to database row, to the club's answer back on the
board (the record marked sent), and the heap the uplink costs.

    .venv/bin/python benchmarks/bench_uplink.py [--games 100]

A real Mosquitto on loopback with the club's configuration
(docs/mosquitto/club.conf, tests/mqtt_rig.py ClubBroker), the firmware's uplink under
the MicroPython Unix port (tests/mpy/uplink_board.py: the loop ticks every
1 ms of wall time) and the laptop's listener (host_tools/intake/mqtt.py) storing into
a results database.  Each game: its record is stored on the board's flash
(the game's end), and the clock runs until the listener has its row, then
until the listener's "stored" answer has reached the board.  The
network is loopback: on a club's Wi-Fi add its round trip (a few ms) twice,
and a board's loop at rest passes every 20 ms (device.IDLE_MS).

Heap: gc.mem_alloc() after a collection, before the uplink's module (and
umqtt.simple) is loaded and after it has connected and sent; on the 64-bit
Unix port with the firmware as .mpy, where objects are twice a Pico W's and
the code sits in the heap (frozen, a board's code stays in flash).
"""
import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

import mqtt_rig  # noqa: E402
from host_tools.intake import mqtt  # noqa: E402
from host_tools.club.db import ResultsDB  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100)
    args = ap.parse_args()
    why = mqtt_rig.why_missing()
    if why:
        print(why)
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="bench-uplink-"))
    broker = mqtt_rig.ClubBroker(tmp / "broker", {"listener": "pw-l", "t1": "pw-t1"}).start()
    stop, ready = threading.Event(), threading.Event()
    box = {}

    def listen():
        db = ResultsDB(str(tmp / "r.db"), write=True)
        lst = box["l"] = mqtt.Listener(db, lambda t: ready.set() if t.startswith("connected") else None,
                                       lambda t: None)
        try:
            mqtt.listen(lst, broker.url, password="pw-l", stop=stop)
        finally:
            db.close()
    threading.Thread(target=listen, daemon=True).start()
    ready.wait(30)
    lst = box["l"]
    b = mqtt_rig.BoardProc(tmp / "board", broker.port, table="t1", user="t1", password="pw-t1")
    try:
        b.ask(run={"ticks": 5})  # connected
        times, acks = [], []
        for n in range(1, args.games + 1):
            t0 = time.perf_counter()
            b.proc.stdin.write(b'{"add": 1, "run": {"acks": %d, "ticks": 100000}}\n' % n)
            b.proc.stdin.flush()
            assert lst.wait(lambda: lst.core.stored >= n, 30)
            times.append((time.perf_counter() - t0) * 1000)
            assert b._until(lambda o: "reply" in o, 30)["acks"] == n
            acks.append((time.perf_counter() - t0) * 1000)
        base, now = b.ask(mem=True)["mem"]
    finally:
        b.close()
        stop.set()
        broker.stop()
    times.sort()
    acks.sort()
    print("game end to database row over %d games: median %.1f ms, worst %.1f ms (loopback broker)"
          % (len(times), statistics.median(times), times[-1]))
    print("game end to the club's answer on the board: median %.1f ms, worst %.1f ms"
          % (statistics.median(acks), acks[-1]))
    print("uplink heap on the Unix port (64-bit, .mpy): %d bytes (%d before it was loaded, %d with it connected)"
          % (now - base, base, now))
    return 0


if __name__ == "__main__":
    sys.exit(main())
