"""The log on a slow UART console (the ESP32's UART0, 115200 baud).

A 2 KB game_end line written at once holds the loop ~170 ms inside the
port's C write, where no scheduled pin callback runs, so soft-IRQ presses
would be stamped that late.  speedref/spool.py queues whole lines and the
loop hands the UART a bounded share each pass, never more than its 128-byte
FIFO has room for.  tests/fakes/slow_uart.py is that UART (its write waits a
10 ms tick while the FIFO is full), on a simulated clock; tests/mpy/log_uart.py
runs the device loop over it under the MicroPython Unix port."""
import importlib.util
import json
import sys

import pytest

import mpyrun

# tests/fakes is not on CPython's path (other tests expect no fake `machine`
# there): load the UART module alone.
_spec = importlib.util.spec_from_file_location("slow_uart", mpyrun.FAKES / "slow_uart.py")
slow_uart = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(slow_uart)
sys.modules.setdefault("slow_uart", slow_uart)
SlowUart = slow_uart.SlowUart

from idle_app import IdleApp  # noqa: E402
from log_uart import script  # noqa: E402
from speedref.device import Device  # noqa: E402
from speedref.hw import board_esp32 as B  # noqa: E402
from speedref.hw.ring import EventRing  # noqa: E402
from speedref.log import Log  # noqa: E402
from speedref.spool import Spool, SpoolLog  # noqa: E402
from speedref.storage import Store  # noqa: E402

BOUND = B.LOG_PASS_BYTES


def run_uart(mode):
    # the driver keeps everything the UART took: a bigger heap than the board's
    r = mpyrun.run(script=mpyrun.SUPPORT / "log_uart.py", args=(mode,), heap="512wK")
    first, _, rest = r.stdout.partition("\n")
    return json.loads(first), rest


def expected(mode):
    s = script(mode)
    return [obj for n in sorted(s) for obj in s[n]]


def parse(text):
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def test_a_game_end_line_written_at_once_holds_the_loop_about_170_ms():
    """The defect, on the plain Log streaming straight into the UART (what
    the ESP32 did): the pass that logs game_end waits ~170 ms for the FIFO."""
    summary, out = run_uart("direct")
    assert summary["max_pass_blocked_us"] >= 150000
    assert parse(out) == expected("direct")


def test_the_spooled_log_writes_at_most_the_bound_a_pass_and_never_waits():
    """The ESP32's SpoolLog: no pass hands the UART more than LOG_PASS_BYTES,
    no write ever waits for the FIFO, and every line arrives whole, in order."""
    summary, out = run_uart("spool")
    assert summary["max_pass_bytes"] <= BOUND
    assert summary["blocked_us"] == 0 and summary["max_pass_blocked_us"] == 0
    assert summary["pending"] == 0
    assert parse(out) == expected("spool")
    assert summary["bytes"] == len(out.encode())


def test_a_burst_bigger_than_the_queue_drops_whole_lines_and_reports_them_when_drained():
    """Five ~2 KB lines in one pass, more than the ESP32's queue holds: those
    that do not fit are dropped whole (no part of them reaches the port,
    nothing else is lost or reordered), and once the queue has drained one
    error line says how many lines and bytes were lost and which evs."""
    assert B.LOG_QUEUE < 5 * 1900
    summary, out = run_uart("overflow")
    assert summary["max_pass_bytes"] <= BOUND and summary["blocked_us"] == 0
    got = parse(out)
    want = expected("overflow")
    burst = script("overflow")[20]
    lost = [o for o in burst if o not in got]
    assert burst[0] in got and len(lost) >= 2
    reports = [i for i, o in enumerate(got) if o.get("what") == "log_dropped"]
    assert len(reports) == 1
    report = got.pop(reports[0])
    assert got == [o for o in want if o not in lost]
    assert reports[0] > got.index(burst[0])  # once what was queued has gone out
    size = sum(len(json.dumps(o)) + 1 for o in lost)  # same separators as the board's json
    assert report == {"ev": "error", "what": "log_dropped", "msg": "log queue full: lines dropped",
                      "lines": len(lost), "bytes": size, "evs": ["game_end"] * len(lost)}


# -- the spool on CPython: the same code the board runs ---------------------------

def _pass_loop(sp, clock, passes, step_us=1300):
    """pump() once per pass; returns the bytes of each pass."""
    sizes = []
    for _ in range(passes):
        sizes.append(sp.pump(clock[0]))
        clock[0] += step_us
    return sizes


def test_a_port_that_takes_fewer_bytes_than_offered_loses_nothing():
    """A non-blocking port (write takes what fits and returns the count, or
    None for nothing): the spool offers the rest at later passes."""
    clock = [0]
    uart = SlowUart(clock, nonblocking=True)

    class NoneWhenFull:
        def write(self, b):
            n = uart.write(b)
            return n or None

    sp = Spool(NoneWhenFull(), size=4096, pass_bytes=200)  # no FIFO model: the port decides
    log = SpoolLog(sp)
    lines = [{"ev": "slap", "n": i, "pad": "x" * (i * 37 % 300)} for i in range(12)]
    for o in lines:
        log.emit(o)
    sizes = _pass_loop(sp, clock, 400, step_us=2000)
    assert max(sizes) <= 128 and uart.blocked_us == 0
    assert sp.n == 0 and parse(uart.out.decode()) == lines


def test_lines_wrap_round_the_ring_intact():
    clock = [0]
    uart = SlowUart(clock)
    sp = Spool(uart, size=300, pass_bytes=BOUND, baud=115200, fifo=128)
    log = SpoolLog(sp)
    sent = []
    for i in range(40):
        o = {"ev": "deal", "n": i, "pad": "y" * (i * 13 % 90)}
        log.emit(o)
        sent.append(o)
        _pass_loop(sp, clock, 12)
    _pass_loop(sp, clock, 200)
    assert sp.dropped == 0 and uart.blocked_us == 0
    assert parse(uart.out.decode()) == sent


def test_the_fifo_model_survives_the_ticks_wrap_and_a_long_idle():
    """Near 2**30 (where a 32-bit board's ticks_us wraps) and after ten idle
    minutes (past half the wrap period) a new line still goes out at once."""
    period = 1 << 30
    clock = [period - 3000]

    class WrapClockUart(SlowUart):  # the FIFO's own clock does not wrap
        pass

    real = [clock[0]]
    uart = WrapClockUart(real)
    sp = Spool(uart, size=2048, pass_bytes=BOUND, baud=115200, fifo=128)
    log = SpoolLog(sp)

    def passes(n, step_us=1300):
        for _ in range(n):
            sp.pump(clock[0] % period)
            clock[0] += step_us
            real[0] += step_us

    log.emit({"ev": "boot", "pad": "z" * 500})
    passes(200)
    assert sp.n == 0
    clock[0] += 600000000
    real[0] += 600000000
    log.emit({"ev": "game_start", "pad": "w" * 300})
    passes(60)
    assert sp.n == 0 and uart.blocked_us == 0
    assert [o["ev"] for o in parse(uart.out.decode())] == ["boot", "game_start"]


class _App(IdleApp):

    def __init__(self):
        self.actions = {}
        self.passes = 0

    def tick(self, now):
        a = self.actions.get(self.passes)
        self.passes += 1
        if a:
            a()

def test_a_crash_writes_out_the_queued_lines_before_the_crash_line():
    """The loop stops on an exception with a game_end still queued: Device.run
    writes it all out, so the crash line main.py prints next starts a line of
    its own and no line is lost."""
    clock = [1000]
    uart = SlowUart(clock)
    log = SpoolLog(Spool(uart, B.LOG_QUEUE, BOUND, B.LOG_BAUD, B.LOG_FIFO))
    app = _App()
    big = {"ev": "game_end", "record": {"hands": [[i, i * 2, "x" * 20] for i in range(60)]}}
    app.actions[2] = lambda: log.emit(big)

    def crash():
        raise RuntimeError("bug")
    app.actions[5] = crash
    dev = Device(EventRing(8), app, log)

    def sleep_ms(ms):
        clock[0] += 1000 * ms + 300

    with pytest.raises(RuntimeError):
        dev.run(lambda: clock[0], sleep_ms)
    assert len(json.dumps(big)) > 3 * BOUND  # still queued when it crashed
    log2 = Log(stream=uart)  # main.py: Log().exception(e) on the console
    log2.error("crash", "RuntimeError('bug',)")
    assert [o["ev"] for o in parse(uart.out.decode())] == ["game_end", "error"]


def test_a_dump_goes_out_a_record_at_a_time_and_none_is_dropped(tmp_path):
    """{"cmd": "dump"} with more records than the queue holds: the device adds
    the next stored record only when the queue is empty, so every record
    arrives, then dump_end with the count."""
    clock = [1000]
    uart = SlowUart(clock)
    log = SpoolLog(Spool(uart, 2048, BOUND, B.LOG_BAUD, B.LOG_FIFO))
    store = Store(str(tmp_path), uid="e661")
    recs = []
    for i in range(6):
        r = {"game": "speed", "n": i, "notes": "n" * 900}
        store.add_record(r)
        recs.append(r)

    class Console:
        lines = ['{"cmd": "dump"}']
        got = 0

        def readline(self):
            return self.lines.pop(0) if self.lines else None

    dev = Device(EventRing(8), _App(), log, store=store, console=Console())
    busy = []
    for _ in range(3000):
        busy.append(dev.step(clock[0]))
        clock[0] += 1300
    got = parse(uart.out.decode())
    assert [o["record"] for o in got[:-1]] == recs and all(o["ev"] == "stored" for o in got[:-1])
    assert got[-1] == {"ev": "dump_end", "count": 6}
    assert log.spool.dropped == 0 and uart.blocked_us == 0
    assert busy[0] and not busy[-1]  # busy (1 ms passes) while it drains, then at rest
