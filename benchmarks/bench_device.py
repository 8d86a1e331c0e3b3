"""Device-loop numbers, printed, never asserted:

- time from a pad edge (ring.put, what the IRQ handler does) to the verdict being in
  the app's frame buffer, through the real device loop, decoder and arbiter, measured
  in the real MicroPython Unix port from .mpy with a 64 KB-equivalent heap (a desktop
  CPU: a Pico at 125 MHz is roughly 30-60x slower; the handler itself is separate);
- bytes sent to the SSD1306 for that update (page diff) and for a full frame;
- the .mpy size of the firmware: all of it, and what speedref-flash installs on each board.

First with the small race app from tests/mpy/device_testapp.py (tie window 0):
the loop's own cost; then through the real referee app (a Spit slap race on the
whole device path), which also logs the verdict, saves the round to flash and
redraws the whole screen.
Run: .venv/bin/python benchmarks/bench_device.py
"""
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import mpyrun  # noqa: E402
from host_tools.board import flash  # noqa: E402
from host_tools.board.build import FIRMWARE, compile_tree  # noqa: E402
from mpyhelp import compile_modules  # noqa: E402

DRIVER = r'''
import gc, json, time
import machine
from speedref.hw.ring import EventRing
from speedref.hw.display import Display
from speedref.hw.buzzer import Buzzer
from speedref.device import Device
from speedref.log import Log
from speedref.storage import Store
from device_testapp import RaceApp

store = Store(ROOT, uid="bench")
log = Log(write=lambda s: None)
i2c = machine.I2C(0)
disp = Display(i2c)
ring = EventRing(64, machine.disable_irq, machine.enable_irq)
dev = None
lat = []
sent = []
full = 0
for i in range(300):
    del i2c.writes[:]
    app = RaceApp(store, log)
    dev = Device(ring, app, log, store=store, display=disp, buzzer=Buzzer(machine.PWM(None)))
    now = time.ticks_us()
    dev.step(now)           # first frame
    if i == 0:
        full = disp.last_bytes
    app.open(now)
    gc.collect()
    t0 = time.ticks_us()
    ring.put(t0, 0b01)      # the ISR's work: a pad edge lands in the ring
    dev.step(time.ticks_add(t0, 1))  # the next loop pass decides (window 0) and shows
    t1 = time.ticks_us()
    assert app.verdict is not None and app.verdict.winner == 0
    lat.append(time.ticks_diff(t1, t0))
    sent.append(disp.last_bytes)
lat.sort()
print(json.dumps({"median_us": lat[len(lat) // 2], "p99_us": lat[len(lat) * 99 // 100],
                  "max_us": lat[-1], "bytes_verdict": sent[-1], "bytes_full_frame": full}))
'''


# The same measurement through the real referee app: a Spit slap race (tie
# window 0) on the whole device path of tests/device/test_device_games.py (fake pins
# fire the capture handler, ring, decoder, app, SSD1306 page diff).  The clock
# is the scripted one; the latency is measured with the port's real clock
# around the work the board does for the deciding edge.
REAL_APP = r'''
import gc, json, time
from board_sim import Board
from app_spit_game import start_round, SLAP_GO_US
from app_rig import MS
lat = []
sent = []
bd = Board(ROOT, echo=False)
bd.app.start("spit", bd.t, {"tie_ms": 0})
for i in range(20):
    start_round(bd)
    bd.tap(0)                 # P1: my stock piles are empty
    bd.wait(SLAP_GO_US)       # the slap's GO
    bd.press(0)
    bd.wait(2 * MS)
    gc.collect()
    t0 = time.ticks_us()
    bd.press(1)               # the deciding edge: the ISR puts it in the ring
    bd.t = time.ticks_add(bd.t, 1)
    bd.device.step(bd.t)      # the next loop pass: decoder, race, verdict, frame, display
    t1 = time.ticks_us()
    assert bd.app.flow.slap_text.startswith("P1 by 2.0 ms"), bd.app.flow.slap_text
    lat.append(time.ticks_diff(t1, t0))
    sent.append(bd.display.last_bytes)
    bd.release(0)
    bd.release(1)
    bd.wait(100 * MS)
    f = bd.app.flow
    bd.tap(6)                 # OK: the suggested card counts
    bd.wait(200 * MS)
lat.sort()
print(json.dumps({"median_us": lat[len(lat) // 2], "max_us": lat[-1], "bytes": sent[len(sent) // 2]}))
'''


def main():
    with tempfile.TemporaryDirectory() as tmp:
        mpy = compile_modules(Path(tmp) / "mpy")
        code = "ROOT = %r\n" % str(Path(tmp) / "flash") + DRIVER
        r = mpyrun.run(code=code, extra_path=[mpy], use_mpy=False)
        d = json.loads(r.stdout.strip().splitlines()[-1])
        built = compile_tree(Path(tmp) / "all")
        code = "ROOT = %r\n" % str(Path(tmp) / "flash2") + REAL_APP
        r2 = mpyrun.run(code=code, extra_path=[Path(tmp) / "all"], use_mpy=False, heap="128wK")
        real = json.loads(r2.stdout.strip().splitlines()[-1])
    total = sum(s for _, s in built)
    size = dict((str(p.with_suffix(".py")) if p.suffix == ".mpy" else str(p), s) for p, s in built)
    installed = {}  # what speedref-flash puts on each kind of board (main.py as source)
    for platform in ("rp2", "esp32", None):
        files = flash.firmware_files(FIRMWARE, platform)
        installed[platform] = (sum(size[str(rel)] for rel in files), len(files))
    print("pad edge -> verdict in frame buffer (Unix port, .mpy, 64wK heap, 300 runs):")
    print("  median %d us, p99 %d us, max %d us" % (d["median_us"], d["p99_us"], d["max_us"]))
    print("through the real app (Spit slap race, tie window 0, 20 races):")
    print("  median %d us, max %d us, %d bytes to the SSD1306 for that update"
          % (real["median_us"], real["max_us"], real["bytes"]))
    print("bytes to the SSD1306: verdict update %d, full frame %d"
          % (d["bytes_verdict"], d["bytes_full_frame"]))
    print("firmware .mpy size: %d bytes in %d files (the card level too)" % (total, len(built)))
    print("as speedref-flash installs it: a Pico %d bytes in %d files, an ESP32 %d in %d;"
          " package.json (every board's files) %d in %d" % (installed["rp2"] + installed["esp32"] + installed[None]))


if __name__ == "__main__":
    main()
