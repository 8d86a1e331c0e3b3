# The device loop with its log on a fake slow UART (tests/fakes/slow_uart.py:
# the ESP32 console, 115200 baud, a 128-byte FIFO, a write that waits while
# it is full).  Runs on MicroPython (the Unix port) and CPython.
#
#   micropython log_uart.py direct|spool|overflow
#
# direct: the plain Log streams straight into the UART (what the ESP32 did);
# spool: the board's SpoolLog (speedref/spool.py) with the ESP32's settings;
# overflow: the same with a burst of lines bigger than the queue.
# An app emits lines at fixed loop passes; Device.run runs with a simulated
# clock.  Prints one JSON summary line, then the bytes the UART took.
import json
import sys

from idle_app import IdleApp
from slow_uart import SlowUart
from speedref.device import Device
from speedref.hw import board_esp32 as B
from speedref.hw.ring import EventRing
from speedref.log import Log
from speedref.spool import Spool, SpoolLog

PASS_US = 300  # what a pass itself takes, on the simulated clock


def record(hands, ident="e661-7"):
    return {"game": "speedrun", "id": ident, "length": "long", "players": ["P1", "P2", "P3"],
            "hands": [{"first": h % 3, "trump": "geckos", "ranking": "bell-1", "tricks": [4, 6, 2],
                       "contracts": ["W9", "PASS", "REDO:W4"], "revealed": [True, False, True]}
                      for h in range(hands)]}


def script(mode):
    """{pass number: [lines the app emits in that pass]}"""
    s = {0: [{"ev": "boot", "board": "esp32", "capture": "irq", "tie_us": 5000}],
         3: [{"ev": "slap", "game": "speed", "winner": 1, "margin_us": 3240}],
         10: [{"ev": "game_end", "record": record(12)}],
         11: [{"ev": "deal", "game": "speed", "n": 2}],
         12: [{"ev": "slap", "game": "speed", "winner": 0, "margin_us": 120}],
         400: [{"ev": "game_end", "record": record(13)},
               {"ev": "game_start", "game": "speed", "id": "e661-8"}]}
    if mode == "overflow":
        # five ~2 KB lines in one pass: more than the ESP32's queue holds
        s[20] = [{"ev": "game_end", "record": record(12 + i, "e661-b%d" % i)} for i in range(5)]
    return s


class App(IdleApp):

    def __init__(self, log, lines):
        self.log = log
        self.lines = lines
        self.passes = 0

    def tick(self, now):
        for obj in self.lines.get(self.passes, ()):
            self.log.emit(obj)
        self.passes += 1

def main(mode):
    clock = [1000]
    uart = SlowUart(clock)
    if mode == "direct":
        log = Log(stream=uart)
    else:
        log = SpoolLog(Spool(uart, B.LOG_QUEUE, B.LOG_PASS_BYTES, B.LOG_BAUD, B.LOG_FIFO))
    lines = script(mode)
    app = App(log, lines)
    dev = Device(EventRing(8), app, log)
    per_pass = []  # bytes the UART took in each pass
    blocked = []  # time each pass waited in the UART's write
    state = [0, 0, clock[0]]  # bytes out, blocked, pass start

    def sleep_ms(ms):
        per_pass.append(len(uart.out) - state[0])
        blocked.append(uart.blocked_us - state[1])
        state[0] = len(uart.out)
        state[1] = uart.blocked_us
        clock[0] += PASS_US + ms * 1000
        state[2] = clock[0]

    dev.run(lambda: clock[0], sleep_ms, until=lambda now: app.passes > 1500)
    print(json.dumps({"passes": len(per_pass), "max_pass_bytes": max(per_pass),
                      "max_pass_blocked_us": max(blocked), "blocked_us": uart.blocked_us,
                      "longest_block_us": uart.longest_block_us, "bytes": len(uart.out),
                      "pending": getattr(getattr(log, "spool", None), "n", 0),
                      "sent_by": [n for n in per_pass if n][:3]}))
    sys.stdout.write(uart.out.decode())


if __name__ == "__main__":
    main(sys.argv[1])
