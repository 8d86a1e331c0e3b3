"""The interactive terminal simulator, driven through a real terminal (tmux):
keys in, the screen captured.  Checks the OLED is drawn, keys reach the
board, and a held key (auto-repeat) is one press, never a slap storm."""
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


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


def test_oled_keys_and_legend_are_shown_and_ok_reaches_the_app(term):
    s = term.screen()
    rows = oled_rows(s)
    assert len(rows) == 32 and any(set(r[1:-1]) - {" "} for r in rows)  # the boot screen is lit
    assert "P1 [1/z]" in s and "OK [Enter/Space]" in s and "BACK [Backspace/Esc/b]" in s
    term.keys("Enter")
    s2 = term.wait_for("OK up")
    assert "OK down" in s2
    assert oled_rows(s2) != rows  # the app left its boot screen


def test_held_key_auto_repeat_is_one_press_and_one_release(term):
    term.keys("1")
    term.wait_for("P1 down")
    for _ in range(30):  # a held key: the terminal repeats it every ~33 ms
        time.sleep(0.033)
        term.keys("1")
    time.sleep(0.1)
    assert "held: P1" in term.screen()
    s = term.wait_for("P1 up")
    assert s.count("P1 down") == 1 and s.count("P1 up") == 1


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


def test_q_quits_cleanly(term):
    term.keys("q")
    assert "SIM-EXITED 0" in term.wait_for("SIM-EXITED")
