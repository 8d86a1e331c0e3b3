"""firmware/main.py on the MicroPython Unix port with the fake machine: safe mode
(OK held at power-up) and a chip without a board file both end at the REPL with a
log line, never in the app and never in a reset."""
import json

import mpyrun

DRIVER = r'''
import machine
from speedref import wiring
from speedref.hw import boards
boards.uname_machine = lambda: UNAME
machine.reset_fakes()
if HOLD_OK:
    machine.preset(8, 0)  # OK is GP8 on the Pico, pressed = low
started = []
def build(board=None, root="/data"):
    started.append(1)
    raise KeyboardInterrupt  # leave the loop at once, as Ctrl-C would
wiring.build = build
exec(open("firmware/main.py").read())
print("started", len(started), "resets", machine.resets[0])
'''


def run_main(uname, hold_ok):
    code = "UNAME = %r\nHOLD_OK = %r\n" % (uname, hold_ok) + DRIVER
    r = mpyrun.run(code=code, use_mpy=False)
    lines = r.stdout.splitlines()
    logs = [json.loads(l) for l in lines if l.startswith("{")]
    return logs, lines[-1]


def test_ok_held_at_power_up_is_safe_mode():
    logs, last = run_main("Raspberry Pi Pico with RP2040", True)
    assert [l["ev"] for l in logs] == ["safe_mode"]
    assert last == "started 0 resets 0"


def test_without_ok_the_app_starts():
    logs, last = run_main("Raspberry Pi Pico with RP2040", False)
    assert last == "started 1 resets 0"


def test_an_unknown_chip_is_refused_with_a_log_line_and_no_reset():
    logs, last = run_main("Generic ESP32S3 module with ESP32S3", False)
    assert logs[0]["ev"] == "error" and logs[0]["what"] == "board"
    assert "ESP32S3" in logs[0]["msg"]
    assert last == "started 0 resets 0"


CRASH_DRIVER = r'''
import machine
from speedref import wiring
from speedref.hw import boards
boards.uname_machine = lambda: "Raspberry Pi Pico with RP2040"
machine.reset_fakes()
def build(board=None, root="/data"):
    raise OSError(5)  # the loop crashes at once, every time
wiring.build = build
src = open("firmware/main.py").read().replace('CRASH_FILE = "/crashes"', 'CRASH_FILE = %r' % CRASH)
for boot in range(3):
    try:
        exec(src, {"__name__": "__main__"})
        print("main returned")
    except machine.ResetCalled:
        print("reset")
'''


def test_the_third_crash_stays_off_the_repl_and_answers_every_line(tmp_path):
    """build() raises: a crash line with its traceback and a reset, twice.
    After CRASH_LIMIT crashes in a row main.py does not return to the REPL,
    where the console's lines would run as Python: it stays in a loop that
    answers each line with the crash_loop error line, until Ctrl-C (a person,
    or mpremote) takes the board to the REPL."""
    import os
    import signal
    import subprocess
    import time
    code = "CRASH = %r\n" % str(tmp_path / "crashes") + CRASH_DRIVER
    env = dict(os.environ, MICROPYPATH=mpyrun.micropath(use_mpy=False))
    p = subprocess.Popen([str(mpyrun.MICROPYTHON), "-c", code], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=mpyrun.ROOT, env=env)
    out = []
    try:
        def line():
            raw = p.stdout.readline().decode()
            assert raw, p.stderr.read().decode()[-2000:]
            out.append(raw.strip())
            return out[-1]
        while "crash_loop" not in line():
            pass
        p.stdin.write(b'{"cmd": "dump"}\nprint("run as Python")\n\xf0\xe2\n')
        p.stdin.flush()
        answers = [json.loads(line()) for _ in range(3)]
        time.sleep(0.2)
        p.send_signal(signal.SIGINT)  # Ctrl-C
        rest, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    out += rest.decode().splitlines()
    logs = [json.loads(l) for l in out if l.startswith("{")]
    assert [l["what"] for l in logs if l["ev"] == "error"][:4] == ["crash", "crash", "crash",
                                                                   "crash_loop"]
    assert "OSError" in logs[0]["msg"] and "Traceback" in logs[0]["traceback"]
    assert logs[3]["crashes"] == 3 and "referee stopped" in logs[3]["msg"]
    assert out.count("reset") == 2
    assert all(a["ev"] == "error" and a["what"] == "crash_loop" for a in answers), answers
    assert "run as Python" not in out
    assert "stopped: at the REPL" in out and out[-1] == "main returned"
