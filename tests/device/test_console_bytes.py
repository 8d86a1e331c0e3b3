"""The USB console takes any byte and keeps the referee running.

The console reads bytes, never text: a text stream decodes UTF-8 as it reads,
so on MicroPython one byte that is not UTF-8 raised UnicodeError out of the
device loop (the board reset) and a lone lead byte (0xF0) blocked the loop
until more bytes came.  Every bad line now gets one error line, an over-long
one too, and the loop reads a bounded number of bytes a pass.

Driven through the real sys.stdin of the MicroPython Unix port (select.poll
and sys.stdin.buffer, as on the board) and on CPython through a pipe; the
emulated Pico does the same mid-game in tests/board/test_board_console.py.
"""
import json
import os

import mpyrun
from speedref.device import LINE_MAX, UsbConsole

# Every line a host could send that is not a command, then one that is.
BLANKS = b" \t\x0b\x0c"  # a line of only these is ignored (an Enter at a terminal)


def attack_bytes():
    """(the bytes, the bad lines among them in order, as (msg, line) pairs)."""
    out = bytearray()
    bad = []
    every = bytes(b for b in range(256) if b not in (10, 13))
    out += every + b"\n"
    bad.append(("not UTF-8", None))
    for b in range(256):
        if b in (10, 13):
            continue
        out += bytes([b]) + b"\n"
        if bytes([b]) in BLANKS:
            continue
        bad.append(("not UTF-8" if b >= 0x80 else "not a JSON command", None))
    out += b"\xf0\n"  # a lone lead byte, ended
    bad.append(("not UTF-8", None))
    out += b"\xe2\x82\n"  # a lead byte and one of its two continuation bytes
    bad.append(("not UTF-8", None))
    out += b"\xe2\x82\xac\n"  # the euro sign, whole: UTF-8, not JSON
    bad.append(("not a JSON command", "\u20ac"))
    out += b"x" * (1 << 20) + b"\n"  # 1 MB, one line
    bad.append(("line too long", "x" * 60))
    out += b'{"cmd": "dump", "pad": "' + b"y" * LINE_MAX + b'"}\n'  # just over LINE_MAX
    bad.append(("line too long", ('{"cmd": "dump", "pad": "' + "y" * LINE_MAX)[:60]))
    out += b'{"cmd": "dump"}\r\n'
    return bytes(out), bad


DRIVER = r'''
import json, micropython
from speedref.device import Device, UsbConsole, LINE_MAX
from speedref.hw.ring import EventRing
from speedref.log import Log
from idle_app import IdleApp

out = []
con = UsbConsole()  # the real sys.stdin, polled
dev = Device(EventRing(4), IdleApp(), Log(write=out.append), console=con)
passes = 0
locked = 0
flood = 0
while not out or '"dump_end"' not in out[-1]:
    passes += 1
    if passes > 200000:
        break
    if con.overlong:
        flood += 1
    # inside the 1 MB line (well before its newline) a pass allocates nothing
    if con.overlong and 100 < flood < 3500:
        micropython.heap_lock()
        try:
            dev.step(passes * 1000)
        finally:
            micropython.heap_unlock()
        locked += 1
    else:
        dev.step(passes * 1000)
print(json.dumps({"out": out, "passes": passes, "locked": locked}))
'''


def test_every_byte_lead_bytes_and_a_1mb_line_on_micropython_s_stdin(tmp_path):
    data, bad = attack_bytes()
    path = tmp_path / "stdin.bin"
    path.write_bytes(data)
    # the lines are kept in a list (a board streams them): room for them
    r = mpyrun.run(code=DRIVER, use_mpy=False, stdin=str(path), timeout=900, heap="1024wK")
    got = json.loads(r.stdout.strip().splitlines()[-1])
    lines = [json.loads(l) for l in got["out"]]
    assert lines[-1] == {"ev": "dump_end", "count": 0}, lines[-3:]
    errors = lines[:-1]
    assert all(e["ev"] == "error" and e["what"] == "command" for e in errors), errors[:3]
    assert [e["msg"] for e in errors] == [m for m, _ in bad]
    for e, (msg, line) in zip(errors, bad):
        assert len(e["line"]) <= 60
        if line is not None:
            assert e["line"] == line, (e, line)
    assert got["locked"] > 3000  # the flood was read with the heap locked
    # a pass reads at most LINE_MAX + 1 bytes: the 1 MB line took thousands
    assert got["passes"] > (1 << 20) // (LINE_MAX + 1)


class PipeStream:
    """A pipe as the board's stdin: bytes only through readinto, and no
    text layer (so nothing is decoded as it is read)."""

    def __init__(self):
        self.r, self.w = os.pipe()
        self.reads = 0

    def fileno(self):
        return self.r

    def readinto(self, buf):
        self.reads += 1
        data = os.read(self.r, len(buf))
        buf[:len(data)] = data
        return len(data)

    def send(self, data):
        os.write(self.w, data)

    def close(self):
        os.close(self.w)
        os.close(self.r)


def test_a_lone_lead_byte_never_holds_the_console_up():
    s = PipeStream()
    try:
        con = UsbConsole(s)
        s.send(b"\xf0")
        assert con.readline() is None  # returns at once: the byte waits in the buffer
        assert con.readline() is None
        s.send(b"\xe2\x82\n")
        assert con.readline() == "???"  # shown as ASCII, the bytes it could not read
        assert con.problem == "not UTF-8"
        s.send(b'{"cmd": "dump"}\n')
        assert con.readline() == '{"cmd": "dump"}' and con.problem is None
    finally:
        s.close()


def test_every_bad_line_gets_one_error_line_and_the_loop_goes_on_CPython():
    from speedref.device import Device
    from speedref.hw.ring import EventRing
    from speedref.log import Log
    from idle_app import IdleApp

    data, bad = attack_bytes()
    s = PipeStream()
    out = []
    try:
        con = UsbConsole(s)
        dev = Device(EventRing(4), IdleApp(), Log(write=out.append), console=con)
        for i in range(0, len(data), 4096):
            s.send(data[i:i + 4096])
            while con.poller.poll(0):
                before = s.reads
                dev.step(0)
                assert s.reads - before <= LINE_MAX + 1
    finally:
        s.close()
    lines = [json.loads(l) for l in out]
    assert lines[-1] == {"ev": "dump_end", "count": 0}
    assert [e["msg"] for e in lines[:-1]] == [m for m, _ in bad]
