"""The USB log: one JSON object per line, each with "ev" (issue 3 "Power cuts, storage and the log")."""
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
