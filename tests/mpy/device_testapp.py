# A small stand-in for the referee app, used by the device-loop tests and
# benchmarks/bench_device.py (runs on CPython and MicroPython): a slap race
# opened at the first tick; the verdict is drawn in the frame buffer, logged
# and beeped.  Its press/tick paths allocate nothing until the verdict.
import framebuf
from speedref.arbiter import Race

from idle_app import IdleApp


class RaceApp(IdleApp):
    def __init__(self, store, log, window_us=0):
        self.store = store
        self.log = log
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)
        self.dirty = True
        self.race = Race(seats=4, window_us=window_us)
        self.sound = None
        self.verdict = None
        self.presses = 0
        self.releases = 0

    def press(self, button, t_us):
        self.presses += 1
        if button < 4:
            if not self.race.is_open and self.verdict is None:
                return
            self.race.press(button, t_us)

    def release(self, button, t_us):
        self.releases += 1

    def open(self, go_us):
        self.race.open(go_us)

    def tick(self, now_us):
        if self.race.is_open and self.verdict is None:
            v = self.race.decide(now_us)
            if v is not None:
                self.verdict = v
                self.fb.fill(0)
                self.fb.text(v.text(), 0, 28, 1)
                self.dirty = True
                self.sound = (1760, 200)
                d = v.to_dict()
                d["ev"] = "slap"
                d["game"] = "test"
                self.log.emit(d)

    def pop_sound(self):
        s = self.sound
        self.sound = None
        return s
