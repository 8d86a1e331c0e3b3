"""The device never raises on a console line, whatever JSON it holds, and the
simulator's USB console applies the board's limits (UsbConsole: a line over
LINE_MAX bytes is read to its end and answered with one error line).  On
CPython and the MicroPython Unix port."""
import json

import pytest

import mpyrun
from speedref.device import LINE_MAX, Device
from speedref.hw.ring import EventRing
from speedref.log import Log
from idle_app import IdleApp

# Built by the same expression on both interpreters (too long for a command line).
DEEP_SRC = ("""["[" * 20000 + "]" * 20000, '{"cmd": ' * 20000 + '"dump"' + "}" * 20000, """
            """"[" * 120 + "]" * 120, '{"a": ' * 40 + "1" + "}" * 40]""")
DEEP = eval(DEEP_SRC)


def device():
    out = []
    return Device(EventRing(4), IdleApp(), Log(write=out.append)), out


@pytest.mark.parametrize("text", DEEP, ids=["list20000", "obj20000", "list120", "obj40"])
def test_device_command_reports_any_json_as_a_bad_command(text):
    dev, out = device()
    dev.command(text)
    e = [json.loads(l) for l in out]
    assert len(e) == 1 and e[0]["ev"] == "error" and e[0]["what"] == "command"
    assert len(e[0]["line"]) <= 60


def test_device_command_survives_recursion_in_the_parser():
    """However the interpreter's recursion limit is set, a parse that runs out of
    stack is a bad command, not an exception out of the loop."""
    import sys
    dev, out = device()
    old = sys.getrecursionlimit()
    depth = 0
    frame = sys._getframe()
    while frame:
        depth += 1
        frame = frame.f_back
    sys.setrecursionlimit(depth + 60)
    try:
        dev.command("[" * 100 + "]" * 100)
    finally:
        sys.setrecursionlimit(old)
    assert json.loads(out[0])["what"] == "command"


MPY_DRIVER = r'''
import json
from speedref.device import Device
from speedref.hw.ring import EventRing
from speedref.log import Log
from idle_app import IdleApp
out = []
dev = Device(EventRing(4), IdleApp(), Log(write=out.append))
for text in DEEP:
    dev.command(text)
print(json.dumps(out))
'''


def test_device_command_never_raises_under_micropython():
    r = mpyrun.run(code="DEEP = %s\n" % DEEP_SRC + MPY_DRIVER, use_mpy=False, heap="4096wK")
    lines = [json.loads(l) for l in json.loads(r.stdout)]
    assert len(lines) == len(DEEP) and all(l["what"] == "command" for l in lines)


def test_simulator_console_reports_an_overlong_line_once_as_the_board_does():
    from sim.board import Board
    b = Board()
    try:
        b.command("[" * 20000 + "]" * 20000)            # read to its end, one error line
        b.command('{"cmd": "dump", "pad": "' + "x" * (LINE_MAX - 10) + '"}')   # just over
        errs = [json.loads(l) for l in b.lines]
        assert [(e["what"], e["msg"]) for e in errs] == [("command", "line too long")] * 2
        assert errs[0]["line"] == "[" * 60
        del b.lines[:]
        b.command({"cmd": "dump"})
        assert [json.loads(l)["ev"] for l in b.lines] == ["dump_end"]
        b.command("[" * 120 + "]" * 120)                # within LINE_MAX: a bad command
        assert json.loads(b.lines[-1])["what"] == "command"
    finally:
        b.close()


MEM_DRIVER = MPY_DRIVER.split("for text in DEEP:")[0] + """dev.command('{"cmd": "mem"}')
print(out[0])
"""


def test_mem_command_reports_the_heap_after_a_collection():
    """{"cmd": "mem"}: the live heap and the free heap after gc.collect(), so a
    host can follow a game's memory on the board (tests/board/test_board_games.py)."""
    r = mpyrun.run(code=MEM_DRIVER, use_mpy=False)
    line = json.loads(r.stdout.strip().splitlines()[-1])
    assert line["ev"] == "mem"
    assert 0 < line["alloc"] and 0 < line["free"]
    # CPython has no such figures: the simulator says so and goes on.
    dev, out = device()
    dev.command('{"cmd": "mem"}')
    assert json.loads(out[0]) == {"ev": "error", "what": "command", "msg": "no heap figures here"}
