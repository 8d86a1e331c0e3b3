"""Accented names on the emulated Pico: speedref-roster pushes a club's
roster of accented names over the board's USB (a pty; one of them spelt
with a combining accent in the file, sent composed), four players pick
theirs on the device with the buttons, the OLED shows them pixel for
pixel as the simulator does (the firmware's own drawing on both: the
picker's list and the partners screens), a partners game is played
through the pins (tests/sim_scripts/partners.txt, seat swaps: PT-8) and
its record carries the names, written on USB as UTF-8.  The heap is read
with {"cmd": "mem"} at the menu, with the picker on screen and in the game
(the glyph table's cost: docs/figures.md), for the .mpy install and the
frozen image."""
import os
import subprocess
import sys
import unicodedata

import pytest

from board_rig import needs_board
from emu.board import NS_PER_US
from emu.referee import Referee
from emu.serve import Bridge

pytestmark = [pytest.mark.board, needs_board, pytest.mark.long]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UP, DOWN, OK = 4, 5, 6
CLUB = ["Zo\u00eb", "Jos\u00e9", "\u0141ukasz", "\u00d0\u00f3ra", "Ann"]
PLAYERS = ["Zo\u00eb", "\u0141ukasz", "Jos\u00e9", "\u00d0\u00f3ra"]
MS = 1000


def mem(ref, label, out):
    n = len(ref.lines)
    ref.pico.serial_write(b'{"cmd": "mem"}\n')
    for _ in range(50):
        ref.pico.run_for(100000)
        got = [l for l in ref.lines[n:] if l.get("ev") == "mem"]
        if got:
            break
    assert got, (label, ref.lines[-5:], ref.other[-5:])
    out[label] = got[-1]["alloc"]


def picks():
    """The presses that name the four seats from the picker's lists: each
    seat's list is the roster without the names taken, Guest, New name."""
    out = []
    left = list(CLUB)
    for name in PLAYERS:
        out += [DOWN] * left.index(name) + [OK]
        left.remove(name)
    return out


def sim_frames(presses):
    """The simulator's OLED at the same steps: the roster as pushed, the
    same presses; {label: frame}."""
    from sim.board import Board
    b = Board()
    frames = {}
    try:
        b.step()
        for line in ('{"cmd": "roster", "push": %s}' % _names_json(),):
            b.command(line)
        b.run_until(b.now() + 500000)
        t = b.now()

        def tap(btn):
            nonlocal t
            b.event(t + 10000, btn, True)
            b.event(t + 70000, btn, False)
            t += 190000
            b.run_until(t)
        for btn in (OK, DOWN, DOWN, DOWN, OK, OK):
            tap(btn)
        frames["picker"] = b.screen()
        for btn in presses:
            tap(btn)
        b.run_until(t + 300000)
        frames["game"] = b.screen()
    finally:
        b.close()
    return frames


def _names_json():
    import json
    return json.dumps(CLUB)


@pytest.mark.parametrize("install", ["mpy", "frozen"])
def test_accented_names_pushed_picked_drawn_and_recorded_on_the_board_PT8(tmp_path, install):
    from emu import images
    from sim import script
    roster = tmp_path / "club.txt"
    spelt = [unicodedata.normalize("NFD", n) if n == "Jos\u00e9" else n for n in CLUB]
    roster.write_text("# the club\n" + "\n".join(spelt) + "\n", encoding="utf-8")
    ref = Referee(frozen=install == "frozen",
                  firmware=images.frozen_firmware() if install == "frozen" else None)
    bridge = Bridge(ref.pico)
    to_pty = ref.pico.on_serial
    raw = []
    ref.pico.on_serial = lambda data: (raw.append(bytes(data)), ref._serial(data), to_pty(data))
    heap = {}
    try:
        ref.boot()
        p = ref.pico
        p.run_for(500000)
        mem(ref, "menu", heap)
        bridge.start()
        r = subprocess.run([sys.executable, "-m", "host_tools.cli.roster", "--port", bridge.path,
                            "--table-name", "T\u00e1bla 7", "--timeout", "120", "push", str(roster)],
                           capture_output=True, text=True, cwd=ROOT, timeout=240)
        assert r.returncode == 0, r.stderr
        assert "T\u00e1bla 7: 5 of 100 names" in r.stdout, r.stdout
        r = subprocess.run([sys.executable, "-m", "host_tools.cli.roster", "--port", bridge.path,
                            "--timeout", "120", "pull"],
                           capture_output=True, text=True, cwd=ROOT, timeout=240)
        assert r.stdout.splitlines() == CLUB, r.stdout + r.stderr
        bridge.stop()

        def tap(b, hold_ms=60, gap_ms=120):
            p.press(b)
            p.run_for(hold_ms * MS)
            p.release(b)
            p.run_for(gap_ms * MS)

        tap(OK)             # the boot screen: the game list
        for _ in range(3):  # Speed, Spit, Speed Run, Partners
            tap(DOWN)
        tap(OK)             # Partners' options
        tap(OK)             # Start: who is playing?
        p.run_for(100000)
        picker = p.oled.frame
        mem(ref, "picker", heap)
        for b in picks():
            tap(b)
        p.run_for(300000)
        assert not [l for l in ref.lines if l.get("ev") == "error"]
        game = p.oled.frame
        mem(ref, "game", heap)
        want = sim_frames(picks())
        assert picker == want["picker"], "the picker's list as the simulator draws it"
        assert game == want["game"], "the game's first screen as the simulator draws it"

        text = open(os.path.join(ROOT, "tests", "sim_scripts", "partners.txt")).read()
        t0 = p.ns
        for t_us, button, down, _ in script.parse(text):
            p.run_until(max(p.ns, t0 + t_us * NS_PER_US))
            (p.press if down else p.release)(button)
        p.run_for(500000)
        ended = [l["record"] for l in ref.lines if l["ev"] == "game_end"]
        assert len(ended) == 1, [l for l in ref.lines if l["ev"] == "error"]
        assert ended[0]["players"] == PLAYERS and ended[0]["table"] == "T\u00e1bla 7"
        usb = b"".join(raw)
        assert "\u0141ukasz".encode() in usb and b"\\u0141" not in usb, "UTF-8 as it is on USB"
        print("heap (%s, bytes after a collection):" % install, heap)
    finally:
        bridge.close()
        ref.close()
