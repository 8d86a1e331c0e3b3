"""firmware/main.py on the MicroPython Unix port with the fake machine: safe mode
(OK held at power-up) and a chip without a board file both end at the REPL with a
log line, never in the app and never in a reset."""
import json

import mpyrun

DRIVER = r'''
import machine
from speedref import wiring
from speedref.hw import boards
boards._uname_machine = lambda: UNAME
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
