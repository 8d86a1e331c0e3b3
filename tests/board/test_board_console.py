"""Any byte on the USB console, mid-game, on the emulated Pico: the referee
carries on.

main.py boots the referee (the .mpy files speedref-flash installs on the stock
firmware) and a Speed game is started from the menu with the buttons.  Then
the host sends what a broken or hostile program on the laptop might: a lone
UTF-8 lead byte with nothing after it, a lead byte with too few continuation
bytes, every byte value on a line of its own and all of them on one line, and
a 256 KB line with no newline until its end (more than the Pico's whole heap,
so it can only pass through unbuffered).  Through all of it the buttons work
(the game goes from its layout screen to the countdown, a false start is
called), every bad line gets its error line, and the board neither resets
nor stops at the REPL.

Every byte but 0x03: Ctrl-C is how mpremote and speedref-flash take a running
board over (MicroPython's USB stack raises KeyboardInterrupt for it wherever
the program is), and main.py then stops at the REPL on purpose, without a
reset (tests/board/test_board_boot.py installs through it).
"""
import pytest

from board_rig import needs_board
from emu.board import NS_PER_US
from emu.referee import Referee

pytestmark = [pytest.mark.board, needs_board]

MS = 1000 * NS_PER_US
P1, P2, OK = 0, 1, 6
BLANKS = b" \t\x0b\x0c"


def tap(ref, button, hold_ms=60, after_ms=200):
    ref.pico.press(button)
    ref.pico.run_for(hold_ms * 1000)
    ref.pico.release(button)
    ref.pico.run_for(after_ms * 1000)


def errors(ref, since):
    return [l for l in ref.lines[since:] if l.get("ev") == "error"]


def send(ref, data, settle_ms=300, chunk=4096):
    for i in range(0, len(data), chunk):
        ref.pico.serial_write(data[i:i + chunk])
    ref.pico.run_for(settle_ms * 1000)


def wait_errors(ref, since, n, limit_ms=120000):
    end = ref.pico.ns + limit_ms * MS
    while len(errors(ref, since)) < n and ref.pico.ns < end:
        ref.pico.run_for(50000)
    return errors(ref, since)


def start_speed(ref):
    """main.py's menu, through the buttons, to a Speed game's layout screen."""
    ref.boot()
    tap(ref, OK)  # the boot screen: the menu
    tap(ref, OK)  # Speed (the first game)
    tap(ref, OK)  # Start: the layout screen


def still_running(ref):
    """The console still takes commands; the board never reset nor crashed."""
    n = len(ref.lines)
    send(ref, b'{"cmd": "dump"}\n')
    end = ref.pico.ns + 2000 * MS
    while not [l for l in ref.lines[n:] if l.get("ev") == "dump_end"] and ref.pico.ns < end:
        ref.pico.run_for(50000)
    assert [l for l in ref.lines[n:] if l.get("ev") == "dump_end"]
    assert [l["ev"] for l in ref.lines].count("boot") == 1, "the board reset"
    assert not [l for l in ref.lines if l.get("what") in ("crash", "crash_loop")]
    assert not [t for t in ref.other if "Traceback" in t or ">>>" in t], ref.other[-5:]


def test_every_byte_and_lone_lead_bytes_mid_game():
    ref = Referee()
    try:
        start_speed(ref)
        layout = bytes(ref.screen())
        # A lone lead byte: the loop must not wait for the rest of a character.
        n = len(ref.lines)
        send(ref, b"\xf0")
        tap(ref, P1)  # LAYOUT -> READY
        assert bytes(ref.screen()) != layout, "a button did nothing after a lone 0xF0"
        send(ref, b"\xe2\x82\n")  # ends that line: 0xF0 0xE2 0x82, not UTF-8
        assert [e["msg"] for e in wait_errors(ref, n, 1)] == ["not UTF-8"]
        send(ref, b"\xf0\n\xe2\x82\n")
        assert [e["msg"] for e in wait_errors(ref, n, 3)] == ["not UTF-8"] * 3

        # Every byte value (but Ctrl-C) on its own line, then all on one line.
        n = len(ref.lines)
        values = [b for b in range(256) if b not in (3, 10, 13)]
        data = b"".join(bytes([b]) + b"\n" for b in values)
        data += bytes(values) + b"\n"
        want = ["not UTF-8" if b >= 0x80 else "not a JSON command"
                for b in values if bytes([b]) not in BLANKS] + ["not UTF-8"]
        send(ref, data)
        got = wait_errors(ref, n, len(want))
        assert [e["msg"] for e in got] == want
        assert all(e["what"] == "command" and len(e["line"]) <= 60 for e in got)

        # The game goes on: both ready, the countdown, a false start (SP-22).
        n = len(ref.lines)
        ready = bytes(ref.screen())
        tap(ref, P1)
        tap(ref, P2)
        assert bytes(ref.screen()) != ready, "the buttons did nothing after the bytes"
        tap(ref, P1, after_ms=50)
        assert [l for l in ref.lines[n:] if l.get("ev") == "false_start"], ref.lines[n:]
        still_running(ref)
    finally:
        ref.close()


@pytest.mark.long
def test_a_line_longer_than_the_heap_mid_game_SP22():
    """256 KB with no newline, more than the Pico's whole heap (~240 KB): read
    a byte at a time (MicroPython's stdin has no non-blocking bulk read; ~42 us
    a byte on a Pico, so ~11 s of board time: benchmarks/bench_console_flood.py),
    at most LINE_MAX + 1 bytes a loop pass, while the buttons keep working;
    one error line when its newline comes.  (The Unix port's test,
    tests/device/test_console_bytes.py, sends 1 MB.)"""
    ref = Referee()
    try:
        start_speed(ref)
        tap(ref, P1)  # LAYOUT -> READY
        n = len(ref.lines)
        send(ref, b"x" * (1 << 18), settle_ms=1000, chunk=1 << 16)
        ready = bytes(ref.screen())
        tap(ref, P1)  # ready
        tap(ref, P2)  # both ready: the countdown starts
        assert bytes(ref.screen()) != ready, "the buttons did nothing during the flood"
        tap(ref, P1, after_ms=50)  # before GO: a false start (SP-22)
        assert [l for l in ref.lines[n:] if l.get("ev") == "false_start"], ref.lines[n:]
        assert not errors(ref, n), "an error line before the line's end"
        send(ref, b"\n")
        got = wait_errors(ref, n, 1, limit_ms=300000)
        assert [(e["msg"], e["line"]) for e in got] == [("line too long", "x" * 60)]
        still_running(ref)
    finally:
        ref.close()
