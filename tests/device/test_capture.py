"""The interrupt capture path, run under the real MicroPython
Unix port from .mpy with the fake `machine`, every handler call inside
micropython.heap_lock(), and a clock that wraps at 2**30 starting just before the wrap.
The same driver also runs on CPython (the simulator drives this same handler there)."""
import json
import os
import subprocess
import sys


import mpyrun
from mpyhelp import compile_modules

DRIVER = r'''
import sys
import machine
from machine import Pin
try:
    import micropython
    lock, unlock = micropython.heap_lock, micropython.heap_unlock
except (ImportError, AttributeError):
    lock = unlock = lambda: None
from array import array
from speedref.hw import board_pico as board
from speedref.hw.ring import EventRing
from speedref.hw.capture import Capture

PERIOD = 1 << 30
HALF = 1 << 29
def td(a, b):  # a board's ticks_diff: wraps at 2**30
    return ((a - b + HALF) & (PERIOD - 1)) - HALF

clk = [PERIOD - 700]  # 0.7 ms before the wrap
def now():
    return clk[0]
def adv(us):
    clk[0] = (clk[0] + us) & (PERIOD - 1)

def setup(size=64, lockout=10000):
    clk[0] = PERIOD - 700
    machine.reset_fakes()
    pins = [Pin(n, Pin.IN, Pin.PULL_UP) for n in board.BUTTON_PINS]
    ring = EventRing(size, machine.disable_irq, machine.enable_irq)
    cap = Capture(ring, machine.mem32, board.GPIO_IN, board.mask_from, now, pins,
                  trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True, ticks_diff=td,
                  lockout_us=lockout, disable_irq=machine.disable_irq,
                  enable_irq=machine.enable_irq)
    cap.start()
    return pins, ring, cap

TS = array("l", [0] * 64)
MS = array("l", [0] * 64)
def drain(ring):
    n = ring.drain(TS, MS)
    return [(TS[i], MS[i]) for i in range(n)]

def press(pin, level):  # a contact changing, its interrupt fired, heap locked
    lock()
    try:
        pin.drive(level)
    finally:
        unlock()

out = {}
# 1. one press before the wrap, its release after the wrap
pins, ring, cap = setup()
t0 = now()
press(pins[0], 0)
adv(30000)
press(pins[0], 1)
out["single"] = [t0, now(), drain(ring)]
out["handler_registered_hard"] = [p.hard for p in pins] == [True] * 8

# 2. two pads within the handler latency: one snapshot, one timestamp; the
#    second pad's interrupt finds nothing new
pins, ring, cap = setup()
machine.set_levels((1 << 3) | (1 << 4), 0)  # P2 and P3 fall together
lock(); pins[1].handler(pins[1]); pins[2].handler(pins[2]); unlock()
out["tie"] = drain(ring)

# 3. all eight buttons at once
pins, ring, cap = setup()
machine.set_levels(0x3FC, 0)
lock(); pins[7].handler(pins[7]); unlock()
out["all"] = drain(ring)

# 4. bouncing contact: 10 edges in 2 ms, then poll after the lockout
pins, ring, cap = setup()
lvl = 1
for i in range(10):
    lvl ^= 1
    press(pins[1], lvl)
    adv(200)
during = drain(ring)
adv(10000)
lock(); cap.poll(); unlock()
out["bounce"] = [during, drain(ring), now()]

# 5. a pad held for 20 minutes (past a wrap), polled every 50 ms; P2 still works
pins, ring, cap = setup()
press(pins[0], 0)
first = drain(ring)
for i in range(20 * 60 * 20):
    adv(50000)
    cap.poll()
held_events = drain(ring)
press(pins[1], 0)
adv(20000)
press(pins[1], 1)
adv(20000)
press(pins[0], 1)
out["held"] = [first, held_events, drain(ring), machine.irq_state[0]]

# 6. 1,000 presses a second for 10 s, all four pads in turn, ring drained every 250 ms
pins, ring, cap = setup(size=64, lockout=200)
got = 0
for ms in range(10000):
    p = pins[ms & 3]
    press(p, 0)
    adv(400)
    press(p, 1)
    adv(600)
    if ms % 250 == 249:
        got += len(drain(ring))
got += len(drain(ring))
out["flood"] = [got, ring.dropped, cap.taken]
import json
print(json.dumps(out))
'''

START = (1 << 30) - 700


def check(out):
    t0, t1, ev = out["single"]
    assert t0 == START and t1 == 30000 - 700  # wrapped
    assert ev == [[START, 1], [t1, 0]]
    assert out["handler_registered_hard"]
    assert out["tie"] == [[START, 0b0110]]
    assert out["all"] == [[START, 0xFF]]
    during, after, t = out["bounce"]
    assert during == [[START, 0b10]]  # one press, 9 bounces locked out
    assert after == [[t, 0]]  # the contact ended open: resynced by poll
    first, held, later, irq_depth = out["held"]
    assert first == [[START, 1]]
    assert held == []  # 24,000 polls over 20 minutes: no phantom edge
    assert [e[1] for e in later] == [0b11, 0b01, 0]
    assert irq_depth == 0  # every disable_irq was matched
    got, dropped, taken = out["flood"]
    assert dropped > 0  # the ring overflowed and counted it
    assert got + dropped == taken == 20000  # every snapshot accounted for


def test_capture_handler_under_micropython_heap_locked(tmp_path):
    """The handler under heap_lock, wrap at 2**30, ties, bounce, held pad, flood."""
    mpy = compile_modules(tmp_path / "mpy")
    r = mpyrun.run(code=DRIVER, extra_path=[mpy], use_mpy=False)
    check(json.loads(r.stdout))


def test_capture_handler_on_cpython_for_the_simulator():
    env = dict(os.environ)
    root = mpyrun.ROOT
    env["PYTHONPATH"] = os.pathsep.join([str(root / "tests" / "fakes"), str(root / "firmware")])
    r = subprocess.run([sys.executable, "-c", DRIVER], capture_output=True, text=True, env=env,
                       cwd=root, timeout=300)
    assert r.returncode == 0, r.stderr
    check(json.loads(r.stdout))

