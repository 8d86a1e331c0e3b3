"""speedref-sim --script: headless, deterministic runs of the board's own app
through the virtual board, checked by the JSON log lines and the records.
Rule numbers from seeds/speed.md."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mpyhelp import one_install

ROOT = Path(__file__).resolve().parents[2]


class Script:
    """Builds a script: taps and holds on a millisecond timeline."""

    def __init__(self, t_ms=500):
        self.t = t_ms
        self.lines = []

    def edge(self, button, down):
        self.lines.append("%d %s %s" % (self.t, button, "down" if down else "up"))

    def tap(self, button, hold=60, gap=60):
        self.edge(button, True)
        self.t += hold
        self.edge(button, False)
        self.t += gap

    def wait(self, ms):
        self.t += ms

    def text(self):
        return "\n".join(self.lines) + "\n"


class SpeedScript(Script):
    """The Speed flow as people play it (the app's own test rig does the same
    with direct calls): layout OK, both ready, countdown, optional reserve
    flips, the winner's out claim, the opponent's confirmation, the count."""

    def deal(self, winner, left, flips=0):
        self.tap("ok")  # the layout is on the table
        self.tap("p1")  # ready
        self.tap("p2")
        self.wait(3100)  # 3-2-1-GO
        for _ in range(flips):  # both stuck: hold both pads (SP-12), then the flip countdown
            self.edge("p1", True)
            self.wait(100)
            self.edge("p2", True)
            self.wait(700)
            self.edge("p1", False)
            self.edge("p2", False)
            self.wait(3000)
        pads = ("p1", "p2")
        self.tap(pads[winner])  # out (SP-16)
        self.wait(600)  # the out question is read (SP-16: a sooner press is a reflex)
        self.tap(pads[1 - winner], 600)  # the opponent confirms: held 0.5 s
        for _ in range(left - 1):  # the count starts at the lower bound, 1 (SP-18)
            self.tap("up", 30, 30)
        self.tap("ok")
        self.tap("ok")  # next deal, or the final screen: store and end


def run_sim(script_text, tmp_path, *args, check=True):
    path = tmp_path / "events.txt"
    path.write_text(script_text)
    r = subprocess.run([sys.executable, "-m", "sim", "--script", str(path)] + list(args),
                       capture_output=True, text=True, cwd=ROOT, timeout=600,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    if check:
        assert r.returncode == 0, r.stderr
    return r


def json_lines(r):
    return [json.loads(line) for line in r.stdout.splitlines()]


@pytest.fixture(scope="module")
def speed_match(tmp_path_factory):
    s = SpeedScript()
    s.deal(0, 15)
    s.deal(1, 5, flips=1)
    s.deal(0, 12)
    tmp = tmp_path_factory.mktemp("speed")
    return s.text(), run_sim(s.text(), tmp, "--json", "--game", "speed")


def test_speed_match_through_the_simulator_matches_the_engine(speed_match):
    """SP-18/SP-19: three deals scored by cards left, first to 25 wins; the
    game_end record the device logs is what the engine computes from it."""
    from speedref.engine import speed
    _, r = speed_match
    lines = json_lines(r)
    ends = [o for o in lines if o["ev"] == "game_end"]
    assert len(ends) == 1
    rec = ends[0]["record"]
    assert rec["game"] == "speed" and rec.get("id")
    plain = dict(rec)
    del plain["id"]
    plain.pop("table", None)
    assert speed.replay(plain).to_record() == plain
    m = speed.replay(plain)
    assert m.deals == [(0, 15), (1, 5), (0, 12)]
    assert m.totals == [27, 5]
    assert len([o for o in lines if o["ev"] == "deal"]) == 3


def test_script_runs_are_deterministic_and_survive_the_tick_wrap(speed_match, tmp_path):
    """The same script gives the same log (but for the install id of its
    fresh store), also when ticks_us starts 2 s before its 2**30 wrap (a
    32-bit board after 17.9 minutes)."""
    text, r = speed_match
    again = run_sim(text, tmp_path, "--json", "--game", "speed")
    assert one_install(json_lines(again)) == one_install(json_lines(r))
    wrapped = run_sim(text, tmp_path, "--json", "--game", "speed", "--start-us", str((1 << 30) - 2000000))
    assert one_install(json_lines(wrapped)) == one_install(json_lines(r))


def test_readable_output_without_json(speed_match, tmp_path):
    text, _ = speed_match
    r = run_sim(text, tmp_path, "--game", "speed")
    assert "GAME END speed" in r.stdout


def test_malformed_line_exits_2_naming_the_line(tmp_path):
    r = run_sim("0 ok down\n10 ok up\n20 p9 down\n", tmp_path, check=False)
    assert r.returncode == 2
    assert "line 3" in r.stderr and "p9" in r.stderr
    assert r.stdout == ""


def test_screens_written_after_each_event(tmp_path):
    from sim import oled
    s = Script()
    s.tap("ok")
    shots = tmp_path / "shots"
    run_sim(s.text(), tmp_path, "--screens", str(shots))
    names = sorted(os.listdir(shots))
    assert names == ["0000-start.png", "0001-line1.png", "0002-line2.png", "0003-end.png"]
    first = oled.from_image(shots / "0000-start.png")
    assert any(first)  # the boot screen is on the OLED
    assert oled.from_image(shots / "0003-end.png") != first  # OK left the boot screen


@pytest.mark.parametrize("gap_us,winner,text", [
    (7240, 1, "SLAP speed out: P2 by 7.2 ms"),
    (3240, None, "SLAP speed out: tie P2 P1 (3.2 ms apart)"),  # inside the default 5 ms tie window
])
def test_slap_to_win_race_decided_by_microsecond_timestamps(tmp_path, gap_us, winner, text):
    """SP-17 (slap-to-win, chosen in the menu): both players slap out; the
    capture timestamps decide it, the default 5 ms tie window applies, and the
    log gives the margin to the microsecond."""
    s = Script()
    s.tap("ok")  # boot -> games
    s.tap("ok")  # Speed -> options
    for _ in range(5):
        s.tap("down")  # to "Slap win"
    s.tap("ok")  # on
    for _ in range(5):
        s.tap("up")  # back to Start
    s.tap("ok")
    s.tap("ok")  # layout done
    s.tap("p1")
    s.tap("p2")
    s.wait(3100)
    s.lines.append("%d p2 down" % s.t)
    s.lines.append("%d.%03d p1 down" % (s.t + gap_us // 1000, gap_us % 1000))
    s.wait(100)
    s.edge("p1", False)
    s.edge("p2", False)
    s.wait(100)
    r = run_sim(s.text(), tmp_path, "--json")
    slaps = [o for o in json_lines(r) if o["ev"] == "slap"]
    assert len(slaps) == 1
    assert slaps[0]["winner"] == winner and slaps[0]["margin_us"] == gap_us
    assert slaps[0]["presses"] == [1, 0]
    readable = run_sim(s.text(), tmp_path)
    assert text in readable.stdout
