"""The USB log: one JSON object per line, each with "ev"."""
import json

from speedref.log import Log


def make():
    out = []
    return Log(write=out.append), out


def test_one_json_line_per_event():
    log, out = make()
    log.emit({"ev": "boot", "board": "pico"})
    log.emit({"ev": "game_end", "record": {"game": "speed", "id": "ab-1"}})
    assert out == ['{"ev": "boot", "board": "pico"}\n',
                   '{"ev": "game_end", "record": {"game": "speed", "id": "ab-1"}}\n']
    assert log.lines == 2


def test_malformed_events_become_error_lines_not_crashes():
    log, out = make()
    log.emit({"no": "ev"})
    log.emit({"ev": "slap", "bad": object()})
    log.emit("text")
    for line in out:
        d = json.loads(line)
        assert d["ev"] == "error" and d["what"] == "log"
        assert line.endswith("\n") and line.count("\n") == 1


def test_exception_line_carries_the_traceback():
    log, out = make()
    try:
        {}["missing"]
    except KeyError as e:
        log.exception(e)
    d = json.loads(out[0])
    assert d["ev"] == "error" and d["what"] == "crash"
    assert "KeyError" in d["msg"] and "Traceback" in d["traceback"]


def test_log_under_micropython():
    import mpyrun
    code = """
from speedref.log import Log
out = []
log = Log(write=out.append)
log.error('stuck', 'pad held', button=2)
try:
    1 // 0
except ZeroDivisionError as e:
    log.exception(e)
for l in out:
    print(l, end='')
"""
    r = mpyrun.run(code=code, use_mpy=False)
    lines = [json.loads(l) for l in r.stdout.splitlines()]
    assert lines[0] == {"ev": "error", "what": "stuck", "msg": "pad held", "button": 2}
    assert lines[1]["what"] == "crash" and "ZeroDivisionError" in lines[1]["traceback"]


def test_stream_gets_the_same_line_as_write():
    """Log(stream=...) streams with json.dump; the text is the line write= gets."""
    import io
    obj = {"ev": "hand", "game": "speedrun", "hand": 2, "scores": [10, None, 4], "over": False}
    log, out = make()
    log.emit(obj)
    s = io.StringIO()
    Log(stream=s).emit(obj)
    assert s.getvalue() == out[0]


def test_a_bad_value_never_cuts_a_streamed_line():
    """The object is checked before the first byte is written: a streamed
    bad event is one whole error line, nothing before it."""
    import io
    s = io.StringIO()
    Log(stream=s).emit({"ev": "slap", "ok": [1, 2], "bad": {"x": object()}})
    Log(stream=s).emit({"ev": "slap", 3: "int key"})
    Log(stream=s).emit({"ev": "slap", "t": float("nan")})
    lines = s.getvalue().splitlines()
    assert [json.loads(x)["ev"] for x in lines] == ["error", "error", "error"]


def test_streamed_game_end_needs_no_block_as_big_as_the_line_under_micropython():
    """The default Log streams to sys.stdout: a ~3 KB game_end line goes out
    in a heap whose free blocks are all about 512 bytes, where building the
    line as one string (json.dumps, what write= does) fails.  Also
    MicroPython's json would print a repr for a non-JSON value: the Log
    turns it into an error line there too."""
    import mpyrun
    rec = {"game": "speedrun", "id": "ab-1", "length": "long", "players": ["P1", "P2", "P3"],
           "hands": [{"first": h % 3, "trump": "geckos", "ranking": "bell-1", "tricks": [4, 6, 2],
                      "contracts": ["W9", "PASS", "REDO:W4"], "revealed": [True, False, True]}
                     for h in range(20)]}
    assert len(json.dumps(rec)) > 3000
    code = """
import gc, json
from heapfrag import fragment
from speedref.log import Log
rec = json.loads(%r)
log = Log()
log.emit({"ev": "slap", "bad": object()})
slots = fragment(512)  # no free block much over 512 bytes
try:
    json.dumps({"ev": "game_end", "record": rec})
    r = 'dumps ok'
except MemoryError:
    r = 'dumps: MemoryError'
log.emit({"ev": "game_end", "record": rec})
slots = None
print(r)
""" % json.dumps(rec)
    r = mpyrun.run(code=code, use_mpy=False)
    lines = r.stdout.splitlines()
    assert json.loads(lines[0]) == {"ev": "error", "what": "log", "msg": "log value is not JSON: object"}
    assert json.loads(lines[1]) == {"ev": "game_end", "record": rec}
    assert lines[2] == "dumps: MemoryError"
