"""The interactive terminal simulator.

Driven through a real terminal (tmux): keys in, the screen captured.  Checks
the OLED is drawn, the key legend is shown, a tap is a tap (down, then up by
itself), a held key (auto-repeat) is ONE tap, never a slap storm, and a hold
key keeps a pad down until it is pressed again.  No real-time window is
asserted there (a loaded machine runs the loop late).

And in simulated time (TerminalSim on a virtual board, key events at exact
times): a tap lasts 80 ms, a hold as long as it is held; Speed's "stuck" (a pad held 0.5 s, SP-14) and "I'm out" (a tap,
SP-16) are both reachable from the keyboard, and a held tap key never
becomes a stuck call."""
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from sim import compat

compat.install()

from sim.keys import TerminalKeys, TAP, HOLD, STEP  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


class Tmux:
    def __init__(self, cmd, width=140, height=50):
        self.sock = "speedref-sim-test-" + uuid.uuid4().hex[:8]
        self._tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), cmd)

    def _tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.sock] + list(args), capture_output=True,
                              text=True, timeout=30)

    def keys(self, *keys):
        self._tmux("send-keys", "-t", "t", *keys)

    def screen(self):
        return self._tmux("capture-pane", "-p", "-t", "t").stdout

    def wait_for(self, text, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            s = self.screen()
            if text in s:
                return s
            time.sleep(0.1)
        raise AssertionError("%r never appeared on screen:\n%s" % (text, self.screen()))

    def close(self):
        self._tmux("kill-server")


@pytest.fixture
def term(tmp_path):
    # env -u: curses would believe LINES/COLUMNS from the test runner's environment.
    cmd = "cd %s && env -u LINES -u COLUMNS %s -m sim --store %s; echo SIM-EXITED $?; sleep 60" % (
        ROOT, sys.executable, tmp_path / "flash")
    t = Tmux(cmd)
    try:
        t.wait_for("quit [q]")
        yield t
    finally:
        t.close()


def oled_rows(screen):
    return [line for line in screen.splitlines() if line.startswith("\u2502")]


def log_lines(screen, what):
    return [line for line in screen.splitlines() if what in line]


@needs_tmux
def test_oled_keys_and_legend_are_shown_and_ok_reaches_the_app(term):
    s = term.screen()
    rows = oled_rows(s)
    assert len(rows) == 32 and any(set(r[1:-1]) - {" "} for r in rows)  # the boot screen is lit
    assert "P1 [1/z]" in s and "OK [Enter/Space/o]" in s and "BACK [Backspace/Esc/b]" in s
    assert "hold: P1 [!/Z]" in s and "OK [O]" in s  # the hold keys are on screen too
    term.keys("Enter")
    s2 = term.wait_for("OK up after")
    assert "OK down" in s2
    assert oled_rows(s2) != rows  # the app left its boot screen


def _up_ms(line):
    return int(line.split("up after ")[1].split()[0])


# Through tmux the simulator runs on the real clock, and a loaded machine
# may run its loop late: these tests only wait for what must happen and
# check bounds that lateness cannot break (a release is never early).  The
# exact durations are checked in simulated time below (TerminalSim on a
# virtual board, the same key handling without a terminal).
@needs_tmux
def test_a_tap_is_a_tap(term):
    """One key event: the pad goes down, then up again by itself (80 ms
    later: test_tap_hold_and_repeats_in_simulated_time)."""
    term.keys("1")
    s = term.wait_for("P1 up after")
    ups = log_lines(s, "P1 up after")
    assert len(log_lines(s, "P1 down")) == 1 and len(ups) == 1
    assert _up_ms(ups[0]) >= 80
    assert "down: -" in term.wait_for("down: -")


@needs_tmux
def test_held_key_with_30_repeats_is_one_tap(term):
    """31 events of one key arriving together (a held key's repeats, however
    late the loop reads them) are one tap: one down, one up."""
    term.keys(*["1"] * 31)
    s = term.wait_for("P1 up after")
    term.keys("Enter")  # a later event: everything before it has been read
    s = term.wait_for("OK up after")
    assert len(log_lines(s, "P1 down")) == 1
    assert len(log_lines(s, "P1 up after")) == 1


@needs_tmux
def test_hold_key_holds_across_2_s_and_lets_go_on_the_second_press(term):
    term.keys("Z")
    term.wait_for("P1 down (hold")
    time.sleep(2.0)  # nothing lets go of a hold by itself, however long it is
    s = term.screen()
    assert "down: P1[hold]" in s and "P1 up" not in s
    term.keys("Z")
    s = term.wait_for("P1 up after")
    assert _up_ms(log_lines(s, "P1 up after")[0]) >= 2000  # sent 2 s after the down was shown
    assert "down: -" in term.wait_for("down: -")


def test_tap_hold_and_repeats_in_simulated_time():
    """The same TerminalSim as the terminal, key events at exact simulated
    times: a tap is down for 80 ms; a key held with 30 auto-repeats (the
    first 400 ms in, then every 33 ms) is one 80 ms tap; a hold key keeps
    the pad down for exactly as long as it stays toggled (2 s here)."""
    d = KeyDriver(None)
    try:
        n = len(d.sim.log)
        d.key("1")
        d.run_to(d.t + 200000)
        assert [txt for _, txt in d.sim.log[n:]] == ["P1 down", "P1 up after 80 ms"]
        d.run_to(d.t + 1000000)  # the key's run is over: a new event is a new tap
        n = len(d.sim.log)
        d.key("1")
        d.key("1", 400)
        for _ in range(29):
            d.key("1", 33)
        d.run_to(d.t + 600000)
        assert [txt for _, txt in d.sim.log[n:]] == ["P1 down", "P1 up after 80 ms"]
        n = len(d.sim.log)
        d.key("Z")
        d.run_to(d.t + 2000000)
        assert d.sim.held_text() == "P1[hold]"
        d.key("Z")
        assert [txt for _, txt in d.sim.log[n:]] == ["P1 down (hold: P1 again to let go)",
                                                      "P1 up after 2000 ms"]
        assert d.sim.held_text() == "-"
    finally:
        d.close()


@needs_tmux
def test_small_terminal_draws_the_oled_in_braille(tmp_path):
    """80x24 (a default SSH window): 2x4 pixels per Braille cell, 64x16 cells."""
    t = Tmux("cd %s && env -u LINES -u COLUMNS %s -m sim --store %s; sleep 60" % (
        ROOT, sys.executable, tmp_path / "flash"), width=80, height=24)
    try:
        s = t.wait_for("quit [q]")
        rows = oled_rows(s)
        assert len(rows) == 16 and all(len(r) == 66 for r in rows)
        assert any(ord(c) > 0x2800 for r in rows for c in r[1:-1])
    finally:
        t.close()


@needs_tmux
def test_q_quits_cleanly(term):
    term.keys("q")
    assert "SIM-EXITED 0" in term.wait_for("SIM-EXITED")


# -- the key model on its own (sim/keys.py) ------------------------------------------
def test_key_model_tap_hold_and_step():
    k = TerminalKeys(delay_us=500000, interval_us=150000)
    assert k.event(TAP, 0, 0) == [(0, True)]
    assert k.due(79999) == [] and k.due(80000) == [(0, False)]
    # auto-repeat of the tap key: first repeat 400 ms later, then every 33 ms
    t = 400000
    while t < 2000000:
        assert k.event(TAP, 0, t) == []
        t += 33000
    assert k.due(t) == [] and k.down == set()
    assert k.event(TAP, 0, t + 200000) == [(0, True)]  # the key was let go: a new tap
    k.due(t + 300000)
    # hold: toggled down, its own repeats swallowed, up on the second press
    assert k.event(HOLD, 1, 3000000) == [(1, True)]
    assert k.event(HOLD, 1, 3400000) == [] and k.event(HOLD, 1, 3433000) == []
    assert k.due(6000000) == [] and k.holding == {1}
    assert k.event(HOLD, 1, 6000000) == [(1, False)] and k.down == set()
    # the tap key lifts a held pad
    k.event(HOLD, 1, 7000000)
    assert k.event(TAP, 1, 8000000) == [(1, False)]
    # UP/DOWN step: every event is a tap, but never while the last is down
    assert k.event(STEP, 4, 9000000) == [(4, True)]
    assert k.event(STEP, 4, 9033000) == []
    assert k.due(9080000) == [(4, False)]
    assert k.event(STEP, 4, 9100000) == []          # inside the 40 ms gap
    assert k.event(STEP, 4, 9120000) == [(4, True)]


# -- Speed from the keyboard, in simulated time ------------------------------------
class KeyDriver:
    """TerminalSim on a simulated virtual board: key events at exact times,
    the device loop every millisecond, tap releases when due."""

    def __init__(self, game):
        from sim.board import Board
        from sim.tui import TerminalSim
        self.board = Board()
        self.board.step()
        if game is not None:  # None: stay at the menu
            self.board.start_game(game)
        self.sim = TerminalSim(self.board)
        self.t = self.board.clock.elapsed_us

    def run_to(self, t):
        while self.t < t:
            self.t = min(t, self.t + 1000)
            self.board.clock.advance_to(self.t)
            self.sim.release_due(self.t)
            self.board.step()

    def key(self, ch, after_ms=0):
        self.run_to(self.t + after_ms * 1000)
        self.sim.feed_key(ord(ch) if isinstance(ch, str) else ch, self.t)
        self.board.step()

    def close(self):
        self.board.close()


def _speed_in_play():
    d = KeyDriver("speed")
    F = __import__("speedref.app.speed_flow", fromlist=["x"])
    flow = d.board.app.flow
    assert flow.phase == F.LAYOUT
    d.key("\n")             # OK: laid out
    d.key("1", 300)         # SP-6: P1 taps ready
    d.key("2", 300)         # P2 too
    d.run_to(d.t + 3100000)  # 3-2-1 GO
    assert flow.phase == F.PLAY
    return d, flow, F


def test_speed_stuck_and_out_are_both_reachable_from_the_keyboard():
    """SP-14: Shift+z holds P1's pad: after 0.5 s P1 is stuck, and stays
    stuck across 2 s; z again lets go (no longer stuck).  SP-16: a tap of
    `z` is "I'm out": the claim screen for P1."""
    d, flow, F = _speed_in_play()
    try:
        d.key("Z", 200)
        d.run_to(d.t + 450000)
        assert not flow.deal.is_stuck(0)   # 0.45 s: not yet a stuck call
        d.run_to(d.t + 100000)
        assert flow.deal.is_stuck(0)       # past 0.5 s: stuck
        d.run_to(d.t + 2000000)
        assert flow.deal.is_stuck(0) and flow.phase == F.PLAY
        d.key("Z")                         # the second press lets go
        assert not flow.deal.is_stuck(0)
        d.key("z", 500)                    # a tap: "I'm out"
        d.run_to(d.t + 300000)
        assert flow.phase == F.CLAIM and flow.deal.claimant == 0
    finally:
        d.close()


def test_speed_both_holding_is_a_flip_and_a_held_tap_key_is_not_stuck():
    """A tap key held down with 30 auto-repeats is one 80 ms tap ("I'm out"),
    never a stuck call; both hold keys (Z and M) make both stuck: FLIP (SP-14)."""
    d, flow, F = _speed_in_play()
    try:
        d.key("M", 100)
        d.key("Z", 100)
        d.run_to(d.t + 600000)
        assert flow.phase == F.FLIP
    finally:
        d.close()
    d, flow, F = _speed_in_play()
    try:
        n = len(d.sim.log)
        d.key("z", 100)
        d.run_to(d.t + 400000)               # the terminal's repeat delay
        for _ in range(30):
            d.key("z", 33)
        assert not flow.deal.is_stuck(0)
        d.run_to(d.t + 300000)
        assert flow.phase == F.CLAIM and flow.deal.claimant == 0
        assert sum(1 for _, txt in d.sim.log[n:] if txt.startswith("P1 down")) == 1
    finally:
        d.close()


def test_ok_long_press_is_reachable_with_the_hold_key():
    """O holds OK: after 0.8 s the app takes it as BACK (core LONG_OK_US):
    the pause menu opens over a running game."""
    d = KeyDriver("speed")
    try:
        assert d.board.app.screen is d.board.app.flow
        d.key("O")
        d.run_to(d.t + 900000)
        d.key("O")
        d.run_to(d.t + 50000)
        assert type(d.board.app.screen).__name__ == "Pause"
    finally:
        d.close()


def test_pt8_a_press_belongs_to_who_pressed_even_when_the_seats_swap_under_it():
    """partners: P3 (at pad 3) taps as P2's partner; the press's down names P3,
    and so does its up, though the tap itself swapped P3 to pad 4 (PT-8):
    never "P3 down", then "P4 (pad 3) up"."""
    from speedref.app import partners_flow as F
    d = KeyDriver("partners")
    try:
        d.key("1", 600)                    # PT-3: P1 deals
        d.key(10, 600)                     # bid 7
        d.key("j", 600)                    # clubs -> notrump (PT-24: 7NT by anyone)
        d.key(10, 600)
        d.key("2", 600)                    # P2 won the bid
        d.run_to(d.t + 300000)
        n = len(d.sim.log)
        d.key("3", 300)                    # P3 is the partner: P3 and P4 swap (PT-8)
        d.run_to(d.t + 300000)
        flow = d.board.app.flow
        assert flow.phase == F.SWAP and list(flow.game.seats) == [0, 1, 3, 2]
        presses = [txt for _, txt in d.sim.log[n:] if " down" in txt or " up after" in txt]
        assert presses == ["P3 down", "P3 up after 80 ms"], presses
    finally:
        d.close()


class _Screen:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.erase()

    def erase(self):
        self.rows = [[" "] * self.w for _ in range(self.h)]

    def getmaxyx(self):
        return self.h, self.w

    def addstr(self, y, x, s):
        if len(s) + x > self.w:
            raise AssertionError("drawn past the right edge: %r" % s)
        for i, ch in enumerate(s):
            self.rows[y][x + i] = ch

    def refresh(self):
        pass

    def text(self):
        return "\n".join("".join(r).rstrip() for r in self.rows)


@pytest.mark.parametrize("size", [(60, 24), (80, 12), (40, 10)])
def test_a_terminal_too_small_says_so_and_what_size_it_needs(size):
    """Too narrow for the OLED's Braille box or the key legend, or too low for
    them: the terminal says so and gives the size it needs, instead of
    drawing a cropped OLED and legend."""
    d = KeyDriver(None)
    try:
        scr = _Screen(*size)
        d.sim.draw(scr)
        text = scr.text()
        need_w, need_h = d.sim.needs()
        assert (size[0] < need_w or size[1] < need_h) and need_w <= 80 and need_h <= 24
        assert "too small" in text and ("%dx%d" % (need_w, need_h)) in text.replace("\n", " "), text
        assert "\u2502" not in text and "tap:" not in text  # no cropped OLED, no cropped legend
    finally:
        d.close()


def test_a_terminal_of_the_size_it_needs_shows_the_oled_and_the_whole_legend():
    d = KeyDriver(None)
    try:
        w, h = d.sim.needs()
        scr = _Screen(w, h)
        d.sim.draw(scr)
        text = scr.text()
        assert "too small" not in text
        for line in d.sim.legend():
            assert line in text, line
    finally:
        d.close()


def test_the_event_log_keeps_the_buzzer_out_unless_asked():
    """The buzzer's cues are on the status line; the event log has presses and
    the device's lines (a tone per beep buried them), unless the buzzer is
    asked for (speedref-sim --log-buzzer)."""
    from sim.tui import TerminalSim
    d = KeyDriver("speed")
    try:
        d.key(10, 100)                     # laid out
        d.key("1", 100)                    # both ready (SP-6): 3-2-1 beeps
        d.key("2", 100)
        d.run_to(d.t + 1500000)
        assert d.board.pwm.tones, "the countdown beeped"
        assert not [t for _, t in d.sim.log if t.startswith("buzzer")], d.sim.log
        assert [t for _, t in d.sim.log if t.startswith("P2 up")], d.sim.log
        assert "buzzer: " in "\n".join(d.sim.status_lines(200))
        loud = TerminalSim(d.board, log_buzzer=True)
        d.sim = loud
        d.run_to(d.t + 2500000)
        assert [t for _, t in loud.log if t.startswith("buzzer")], loud.log
    finally:
        d.close()
