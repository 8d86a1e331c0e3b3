"""The device loop: ring -> inputs -> app -> display/buzzer/log, the USB
console's dump command and garbage lines.  Runs on CPython (as the simulator does)
and under the real MicroPython Unix port from .mpy with the fake machine."""
import importlib.util
import json
import os

import pytest

import mpyrun
from mpyhelp import ROOT, compile_modules
from device_testapp import RaceApp
from idle_app import IdleApp
from speedref.device import Device, UsbConsole
from speedref.hw.buzzer import Buzzer
from speedref.hw.display import Display
from speedref.hw.ring import EventRing
from speedref.log import Log
from speedref.storage import Store
from speedref.ticks import ticks_add

START = (1 << 30) - 2000


def fake_machine():
    spec = importlib.util.spec_from_file_location("fake_machine", ROOT / "tests/fakes/machine.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


class Console:
    got = 0  # bytes read by the last readline (UsbConsole's interface)

    def __init__(self, lines=()):
        self.lines = list(lines)

    def readline(self):
        return self.lines.pop(0) if self.lines else None


def rig(tmp_path, lines=(), window_us=0):
    m = fake_machine()
    out = []
    log = Log(write=out.append)
    store = Store(str(tmp_path), uid="e661")
    ring = EventRing(16)
    app = RaceApp(store, log, window_us)
    i2c = m.I2C(0)
    disp = Display(i2c, 0x3C)
    pwm = m.PWM(None)
    dev = Device(ring, app, log, store=store, display=disp, buzzer=Buzzer(pwm),
                 console=Console(lines))
    return dev, ring, app, disp, i2c, pwm, out


def evs(out):
    return [json.loads(l) for l in out]


def test_pad_edge_to_verdict_in_the_frame_and_on_the_panel(tmp_path):
    """Slap race (seed 001 slap to win): P2 first by 3.2 ms -> verdict drawn, sent, beeped, logged."""
    dev, ring, app, disp, i2c, pwm, out = rig(tmp_path)
    dev.step(START)  # first frame (blank) goes to the panel
    assert disp.updates == 1 and not app.dirty
    app.open(START)
    ring.put(ticks_add(START, 100), 0b10)
    ring.put(ticks_add(START, 3340), 0b11)
    dev.step(ticks_add(START, 3341))  # across the 2**30 wrap
    assert app.verdict.winner == 1 and app.verdict.margin_us == 3240
    assert disp.updates == 2
    assert 0 < disp.last_bytes < 1024 + 13  # only the changed page(s)
    # text rows 28..35 touch pages 3 and 4: their window (one command stream:
    # control byte, column and page ranges), then 0x40 and their 256 bytes
    assert disp.last_bytes == 7 + 1 + 2 * 128
    assert i2c.writes[-2][1] == bytes((0x00, 0x21, 0, 127, 0x22, 3, 4))
    assert ("duty", 32768) in pwm.calls and ("freq", 1760) in pwm.calls
    slap = [e for e in evs(out) if e["ev"] == "slap"]
    assert slap and slap[0]["winner"] == 1 and slap[0]["margin_us"] == 3240
    # the panel RAM got exactly the frame buffer's pages 3..4
    assert i2c.writes[-1][1] == b"\x40" + bytes(app.buf[384:640])
    n = len(i2c.writes)
    dev.step(ticks_add(START, 5000))  # nothing changed: nothing sent
    assert len(i2c.writes) == n
    dev.step(ticks_add(START, 210000))  # the beep ends on time
    assert pwm.calls[-1] == ("duty", 0)


def test_dump_command_prints_every_stored_record(tmp_path):
    dev, ring, app, disp, i2c, pwm, out = rig(tmp_path, ['{"cmd": "dump"}'])
    for i in range(3):
        dev.store.add_record({"game": "speed", "n": i})
    dev.step(START)
    e = evs(out)
    assert [x["record"]["n"] for x in e if x["ev"] == "stored"] == [0, 1, 2]
    assert e[-1] == {"ev": "dump_end", "count": 3}


@pytest.mark.parametrize("line", ["garbage", "{\"cmd\": 5}", "[1, 2]", "{\"cmd\": \"format\"}",
                                  "{\"cmd\": \"dump\"", "\x00\xff"])
def test_garbage_console_lines_get_an_error_line_and_are_ignored(tmp_path, line):
    dev, ring, app, disp, i2c, pwm, out = rig(tmp_path, [line, '{"cmd": "dump"}'])
    dev.step(START)
    dev.step(ticks_add(START, 1000))
    e = evs(out)
    assert e[0]["ev"] == "error" and e[0]["what"] == "command"
    assert e[1] == {"ev": "dump_end", "count": 0}  # the loop carried on


def test_ring_overflow_is_logged_once_per_growth(tmp_path):
    dev, ring, app, disp, i2c, pwm, out = rig(tmp_path)
    for i in range(20):  # ring of 16
        ring.put(ticks_add(START, i * 20000), i & 1)
    dev.step(ticks_add(START, 500000))
    dev.step(ticks_add(START, 600000))
    errs = [e for e in evs(out) if e["ev"] == "error"]
    assert errs == [{"ev": "error", "what": "overflow", "dropped": 4, "new": 4}]
    assert app.presses == 8 and app.releases == 7


def test_stuck_pad_logged_once(tmp_path):
    dev, ring, app, disp, i2c, pwm, out = rig(tmp_path)
    ring.put(START, 1)
    t = 0
    while t < 5 * 60 * 1000000:  # 5 minutes, a step every 100 ms
        dev.step(ticks_add(START, t))
        t += 100000
    stuck = [e for e in evs(out) if e.get("what") == "stuck"]
    assert stuck == [{"ev": "error", "what": "stuck", "button": 0, "held_ms": 60000}]


def test_usb_console_reads_lines_without_blocking():
    r, w = os.pipe()

    class Stream:  # unbuffered bytes, like the board's sys.stdin.buffer
        def fileno(self):
            return r

        def readinto(self, buf):
            data = os.read(r, len(buf))
            buf[:len(data)] = data
            return len(data)

    con = UsbConsole(Stream())
    assert con.readline() is None  # nothing there: returns at once
    os.write(w, b'{"cmd": "du')
    assert con.readline() is None
    os.write(w, b'mp"}\r\n' + b"x" * 300 + b"\nok\n")
    assert con.readline() == '{"cmd": "dump"}' and con.problem is None
    # the over-long line is read to its end and reported once; a call reads at
    # most LINE_MAX + 1 bytes, so that takes this call too
    assert con.readline() is None
    assert con.readline() == "x" * 256 and con.problem == "line too long"
    assert con.readline() == "ok" and con.problem is None
    assert con.readline() is None
    os.close(w)
    os.close(r)


DRIVER = r'''
import gc, json, micropython
import machine
from speedref.hw.ring import EventRing
from speedref.hw.display import Display
from speedref.hw.buzzer import Buzzer
from speedref.device import Device
from speedref.log import Log
from speedref.storage import Store
from device_testapp import RaceApp
out = []
log = Log(write=out.append)
store = Store(ROOT, uid='e661')
ring = EventRing(64, machine.disable_irq, machine.enable_irq)
app = RaceApp(store, log)
i2c = machine.I2C(0)
dev = Device(ring, app, log, store=store, display=Display(i2c),
             buzzer=Buzzer(machine.PWM(None)))
P = 1 << 30
t = P - 5000
dev.step(t)
# a nav button pressed and released many times: the loop must not allocate per event
for i in range(200):
    ring.put((t + 10) % P, 0x40)
    ring.put((t + 20000) % P, 0)
    t = (t + 40000) % P
    micropython.heap_lock()
    try:
        dev.step(t)
    finally:
        micropython.heap_unlock()
app.open(t)
ring.put((t + 50) % P, 0b0101)  # P1 and P3 in one snapshot
dev.step((t + 60) % P)
print(json.dumps({"presses": app.presses, "releases": app.releases,
                  "tie": list(app.verdict.tie), "text": app.verdict.text(),
                  "log": out}))
'''


def test_device_loop_under_micropython_allocates_nothing_per_event(tmp_path):
    mpy = compile_modules(tmp_path / "mpy")
    code = "ROOT = %r\n" % str(tmp_path / "flash") + DRIVER
    r = mpyrun.run(code=code, extra_path=[mpy], use_mpy=False)
    d = json.loads(r.stdout)
    assert d["presses"] == 202 and d["releases"] == 200
    assert d["tie"] == [0, 2] and d["text"] == "Tie"
    assert json.loads(d["log"][0])["ev"] == "slap"


class FlakyI2C:
    """An I2C bus whose writes fail (NACK, timeout) while `fail` is set."""

    def __init__(self, m):
        self.bus = m.I2C(0)
        self.fail = False
        self.writes = self.bus.writes

    def writeto(self, addr, buf, stop=True):
        if self.fail:
            raise OSError(5)  # EIO, as a NACK reads on a board
        return self.bus.writeto(addr, buf)

    def writevto(self, addr, vector, stop=True):
        if self.fail:
            raise OSError(110)  # ETIMEDOUT
        return self.bus.writevto(addr, vector)


def test_display_errors_are_counted_logged_rarely_and_the_panel_redrawn_whole(tmp_path):
    """A glitch on the OLED's I2C bus must not stop (or reset) the referee."""
    dev, ring, app, disp, i2c, pwm, out = rig(tmp_path)
    bus = FlakyI2C(fake_machine())
    disp.drv.i2c = bus
    dev.step(START)
    bus.fail = True
    t = 0
    for i in range(300):  # 3 s of changing frames, a step every 10 ms, all failing
        app.buf[0] = (i + 1) & 0xFF
        app.dirty = True
        t += 10000
        dev.step(ticks_add(START, t))
    errs = [e for e in evs(out) if e["ev"] == "error"]
    assert errs and errs[0]["what"] == "display"
    assert len(errs) == 1  # rate-limited, not one per loop pass
    assert dev.display_errors == 300
    bus.fail = False
    n = len(bus.writes)
    t += 10000
    dev.step(ticks_add(START, t))  # no new frame: the lost one is sent again, whole
    assert bus.writes[-1][1] == b"\x40" + bytes(app.buf)
    assert len(bus.writes) == n + 2  # one window for all eight pages, then their data


def test_usb_console_flood_without_newline_is_read_in_bounded_slices():
    """300 KB with no newline: each readline() call reads at most LINE_MAX + 1
    bytes, the over-long line is reported once, and a line split over calls
    still arrives whole."""
    from speedref.device import LINE_MAX

    class Flood:  # always readable, like a host writing as fast as USB goes
        def __init__(self, data):
            self.data = data
            self.pos = 0
            self.reads = 0

        def readinto(self, buf):
            self.reads += 1
            c = self.data[self.pos:self.pos + len(buf)]
            buf[:len(c)] = c
            self.pos += len(c)
            return len(c)

    class Poller:
        def __init__(self, s):
            self.s = s

        def poll(self, timeout):
            return [1] if self.s.pos < len(self.s.data) else []

    s = Flood(b"x" * 300000 + b"\n" + b'{"cmd": "dump"}\n')
    con = UsbConsole(s, Poller(s))
    calls = 0
    lines = []
    while len(lines) < 2 and calls < 2000:
        before = s.reads
        line = con.readline()
        if line is not None:
            lines.append((line[:3], con.problem))
        assert s.reads - before <= LINE_MAX + 1
        calls += 1
    assert lines == [("xxx", "line too long"), ('{"c', None)]


def test_the_loop_naps_when_nothing_happens_and_hurries_when_something_does():
    """Device.run: a pass every 1 ms while buttons, redraws or sounds keep it busy
    and for BUSY_US after; IDLE_MS between passes at rest (presses are stamped by
    the capture, so a napping loop dates them just as well)."""
    from speedref import device as dev_mod
    from speedref.device import Device
    from speedref.hw.ring import EventRing
    from speedref.log import Log

    class App(IdleApp):
        def press(self, b, t):
            self.dirty = True

    clock = [0]
    sleeps = []
    ring = EventRing(8)
    dev = Device(ring, App(), Log(write=lambda s: None))

    def sleep_ms(ms):
        sleeps.append(ms)
        clock[0] += ms * 1000 + 300  # the pass itself takes 0.3 ms
        if len(sleeps) == 40:
            ring.put(clock[0], 1)  # a pad goes down

    dev.run(lambda: clock[0], sleep_ms, until=lambda now: len(sleeps) >= 120)
    quiet = dev_mod.BUSY_US // 1300 + 1  # passes of 1.3 ms until the loop is at rest
    assert sleeps[:quiet - 1] == [1] * (quiet - 1)
    assert sleeps[quiet + 1:40] == [dev_mod.IDLE_MS] * (40 - quiet - 1)
    assert sleeps[40] == 1  # the press: busy again
    assert dev_mod.IDLE_MS in sleeps[60:]  # and at rest once more after BUSY_US


def test_the_capture_s_late_words_and_full_fifo_are_logged_once_each_time():
    """A PIO capture that read words late (interrupts held off) or found its
    FIFO full says so in the log, once each time a count changes."""
    import json
    from speedref.device import Device
    from speedref.hw.ring import EventRing
    from speedref.log import Log

    class Cap:
        late = 0
        full = 0

        def poll(self):
            pass

    out = []
    cap = Cap()
    dev = Device(EventRing(8), IdleApp(), Log(write=out.append), capture=cap)
    dev.step(0)
    cap.late = 2
    dev.step(1000)
    dev.step(2000)
    cap.full = 1
    dev.step(3000)
    assert [json.loads(l) for l in out] == [
        {"ev": "error", "what": "capture", "late": 2, "full": 0},
        {"ev": "error", "what": "capture", "late": 2, "full": 1}]


@pytest.mark.parametrize("stop", [KeyboardInterrupt, RuntimeError])
def test_a_loop_stopped_by_ctrl_c_or_a_crash_leaves_the_buzzer_quiet(tmp_path, stop):
    """A PWM keeps sounding its tone by itself: when the loop stops on Ctrl-C
    (main.py stays at the REPL) or a crash (main.py logs it, and after the
    third in a row also stays at the REPL), a cue that was sounding must not
    go on for ever.  The queued cues are dropped too."""
    dev, ring, app, disp, i2c, pwm, out = rig(tmp_path)
    app.sound = (1760, 200)
    clock = [START]

    def sleep_ms(ms):
        clock[0] = ticks_add(clock[0], ms * 1000)
        if dev.buzzer.busy():
            dev.buzzer.play(880, 100)  # another cue waiting
            raise stop("stopped while the tone sounds")

    with pytest.raises(stop):
        dev.run(lambda: clock[0], sleep_ms)
    assert ("duty", 32768) in pwm.calls  # the tone did start
    assert pwm.calls[-1] == ("duty", 0) and not dev.buzzer.busy()


class _QuietApp(IdleApp):
    """Nothing going on; a press or a release makes the next pass busy (a
    redraw)."""

    def press(self, b, t):
        self.dirty = True

    def release(self, b, t):
        self.dirty = True


def test_a_nap_with_no_cue_sleeps_to_its_end_and_does_not_spin_its_last_millisecond():
    """Device._nap: machine.idle (1 ms at most, or the next interrupt) until
    the nap ends.  Only a cue (App.wake: a GO, a countdown's digit) is waited
    for awake in its last millisecond, so its pass starts on the instant; a
    plain IDLE_MS nap polling the clock for its last millisecond kept the
    CPU busy a fifth of the time at rest (the Spit round's CPU figure)."""
    from speedref.device import Device, IDLE_MS
    from speedref.hw.ring import EventRing
    from speedref.log import Log

    clock = [0]
    polls = [0]
    naps = [0]

    def ticks_us():
        polls[0] += 1
        clock[0] += 2  # reading the clock takes a little time
        return clock[0]

    def idle():
        naps[0] += 1
        clock[0] += 1000 - clock[0] % 1000  # the 1 ms timeout (no interrupt came)

    app = _QuietApp()
    dev = Device(EventRing(8), app, Log(write=lambda s: None), idle=idle)
    dev._nap(ticks_us, IDLE_MS * 1000)
    assert IDLE_MS * 1000 <= clock[0] <= IDLE_MS * 1000 + 1000, clock[0]
    assert polls[0] <= naps[0] + 2, "%d clock reads for %d naps: the nap spun" % (polls[0], naps[0])

    # a cue: the last millisecond before it awake, its pass on the instant
    clock[0] = 0
    app.due = 3500
    dev._nap(ticks_us, IDLE_MS * 1000)
    assert 3500 <= clock[0] < 3510, clock[0]


def test_quiet_passes_never_walk_the_heap_and_collect_only_after_events(monkeypatch):
    """The loop collects the heap in a quiet pass, at rest, once the passes
    with events since the last collection may have filled it; it never asks
    gc.mem_free() to decide (a walk of the whole heap: 8.8 ms on the emulated
    Pico, every 20 ms of rest, which held a slap's pass back 16 ms and kept
    the CPU busy at rest).  With no events at all it never collects."""
    import sys
    import types
    from speedref import device as dev_mod
    from speedref.device import Device
    from speedref.hw.ring import EventRing
    from speedref.log import Log

    calls = {"mem_free": 0, "mem_alloc": 0, "collect": 0}

    def count(name, value=0):
        def f():
            calls[name] += 1
            return value
        return f

    fake = types.ModuleType("gc")
    fake.mem_free = count("mem_free", 1000)  # little free: a heap check would collect
    fake.mem_alloc = count("mem_alloc", 200000)
    fake.collect = count("collect")
    monkeypatch.setitem(sys.modules, "gc", fake)

    clock = [0]
    ring = EventRing(8)
    dev = Device(ring, _QuietApp(), Log(write=lambda s: None))
    presses = []  # instants of the presses and releases still to come

    def sleep_ms(ms):
        clock[0] += ms * 1000 + 300
        while presses and presses[0] <= clock[0]:
            ring.put(presses[0], len(presses) % 2)  # pad 0 down, then up
            del presses[0]

    # ten seconds at rest: no event, no collection, no heap walk
    dev.run(lambda: clock[0], sleep_ms, until=lambda now: now >= 10000000)
    assert calls == {"mem_free": 0, "mem_alloc": 0, "collect": 0}, calls

    # events: presses and releases 20 ms apart, then rest
    t = clock[0]
    presses.extend(t + i * 20000 for i in range(200))
    end = t + 200 * 20000 + 2 * dev_mod.BUSY_US
    dev.run(lambda: clock[0], sleep_ms, until=lambda now: now >= end)
    assert calls["mem_free"] == 0 and calls["mem_alloc"] == 0, calls
    assert calls["collect"] >= 1, "the events' garbage was never collected at rest"
