"""speedref-sim --play on the terminal a person has: every game played whole
by a scripted person (the play tests' own), its screen drawn on a fake
curses screen at each moment (sampled every 0.7 s of simulated time):

  * 80x24, a default terminal window: the compact layout, never "too
    small": the OLED pixel for pixel in Braille (not cut), your keys, what is
    down and lit beside it, the game's compact panel under it whole (its
    hand and what to do), the event log under that when there is a row;
  * 120x40 (Speed Run's panel is 65 columns): the whole panel, beside the
    Braille OLED with its lines wrapped to the room there, or under it;
  * wider terminals keep the wide layouts: the panel whole beside the OLED.
"""
import random
import shutil
import sys

import pytest

from sim import compat

compat.install()

from sim.tui import braille_lines  # noqa: E402
from test_sim_person_terminal import FakeScreen  # noqa: E402

SIZES = ((80, 24), (120, 40), (100, 30))


class Sampler:
    """Draws the play terminal at SIZES every 0.7 s of the table's time."""

    def __init__(self, tb, term):
        self.tb, self.term = tb, term
        self.seen = {}          # size -> {layout: count}
        self.most = 0           # the compact panel's most rows
        self.samples = 0

    def tick(self):
        self.sample()
        if not self.tb.done:
            self.tb.at(self.tb.t + 700000, self.tick)

    def sample(self):
        self.samples += 1
        term = self.term
        for size in SIZES:
            scr = FakeScreen(*size)
            term.draw(scr)
            rows = [scr.row(y) for y in range(scr.h)]
            text = "\n".join(rows)
            assert "too small" not in text, (size, text)
            place = term._place(*size)
            self.seen.setdefault(size, {}).setdefault(place[0], 0)
            self.seen[size][place[0]] += 1
            if place[0] == "compact":
                self.check_compact(rows, place[2], size)

    def check_compact(self, rows, lines, size):
        w, h = size
        oled = braille_lines(self.term.board.screen())
        for y, line in enumerate(oled):
            assert rows[y][:len(line)] == line, "the OLED is cut or drawn over at row %d" % y
        strip = "\n".join(r[len(oled[0]):] for r in rows[:len(oled)])
        assert "quit" in strip and "down:" in strip and "lit:" in strip
        keys = self.term.strip()
        assert len(keys) <= len(oled)
        for line in keys[:-3]:   # the keys whole (what is down may be cut)
            assert len(line) <= w - len(oled[0]) - 2 and line in strip, line
        below = [r.rstrip() for r in rows[len(oled):]]
        assert len(lines) <= h - len(oled), "\n".join(lines)   # no line gives way
        self.most = max(self.most, len(lines))
        assert below[:len(lines)] == [line.rstrip() for line in lines]
        assert all(len(line) < w for line in lines)


def _speedrun(seed):
    from test_sim_speedrun_person import SpeedRunPerson
    from sim.table.speedrun_person import SpeedRunPlay, terminal_class
    cls, _ = terminal_class()
    tb = SpeedRunPlay(seed, realtime=False, length="short", reveal_chance=0.3)
    tb.start()
    term = cls(tb, 500000, 150000)
    person = SpeedRunPerson(tb, term, random.Random(seed))
    tb.at(tb.t + 100000, person.tick)
    return tb, term


def _spit(seed):
    from test_sim_spit_person import SpitPerson
    from sim.table.spit_person import SpitPlay, terminal_class
    cls, _ = terminal_class()
    tb = SpitPlay(seed, realtime=False, pace="fast")
    tb.start()
    term = cls(tb, 500000, 150000)
    person = SpitPerson(tb, term, random.Random(seed))
    tb.at(tb.t + 100000, person.tick)
    return tb, term


def _partners(seed):
    from test_sim_partners_person import _start
    tb, term, _ = _start(seed, target=50, pace="fast")
    return tb, term


@pytest.mark.parametrize("game, start", [("speedrun", _speedrun), ("spit", _spit), ("partners", _partners)])
def test_a_whole_game_is_drawn_at_80x24_and_120x40(game, start):
    tb, term = start(2)
    s = Sampler(tb, term)
    tb.at(tb.t + 150000, s.tick)
    try:
        tb.run(lambda: tb.done, limit_us=5 * 3600 * 1000000)
        assert tb.done and s.samples > 50
        s.sample()   # the game over: where its record is, on every layout
        assert s.seen[(80, 24)] == {"compact": s.samples}
        assert "compact" not in s.seen[(120, 40)], s.seen   # the whole panel fits there
        assert 3 <= s.most <= 8
    finally:
        tb.close()


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_speed_is_drawn_at_80x24_with_every_count_of_players_SP27(seats, monkeypatch):
    from test_sim_table import _human_plays_a_match
    from sim.table.speed_person import SpeedPlay, terminal_class
    cls, _ = terminal_class()
    made = []
    advance = SpeedPlay.advance

    def sampled(tb, us):
        if not made:
            made.append(Sampler(tb, cls(tb, 500000, 150000)))
        advance(tb, us)
        if int(tb.t // 120000) % 6 == 0:
            made[0].sample()

    monkeypatch.setattr(SpeedPlay, "advance", sampled)
    tb, _ = _human_plays_a_match("layout%d" % seats, seats=seats)
    s = made[0]
    try:
        assert tb.done and s.samples > 20
        assert s.seen[(80, 24)] == {"compact": s.samples}
        assert 2 <= s.most <= 8
    finally:
        tb.close()


@pytest.mark.parametrize("game, size, half", [("speed", (200, 50), True), ("spit", (160, 30), False),
                                             ("speedrun", (140, 30), False), ("partners", (200, 60), True)])
def test_wide_terminals_keep_the_whole_panel_beside_the_oled(game, size, half):
    from sim.table import person as P
    from sim.__main__ import build_parser
    args = build_parser().parse_args(["--play", game, "--seed", "4"])
    mod = P.play_module(game)
    tb = mod.table(args)
    try:
        tb.start()
        cls, _ = mod.terminal_class()
        term = cls(tb, 500000, 150000)
        tb.advance(3000000)
        mode, got_half, lines = term._place(*size)
        assert (mode, got_half) == ("beside", half) and lines == term.panel()
    finally:
        tb.close()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
@pytest.mark.parametrize("game, text", [("speedrun", "Hand 1/"), ("speed", "Lay out"), ("partners", "first dealer")])
def test_play_opens_in_a_default_80x24_terminal(game, text, tmp_path):
    from test_sim_tui import Tmux, ROOT
    t = Tmux("cd %s && env -u LINES -u COLUMNS %s -m sim --play %s --store %s; echo SIM-EXITED $?; sleep 60"
             % (ROOT, sys.executable, game, tmp_path / "flash"), width=80, height=24)
    try:
        s = t.wait_for("q q   quit")
        assert "too small" not in s
        t.wait_for(text)
        t.keys("q")
        t.wait_for("q again")
        t.keys("q")
        assert "SIM-EXITED 0" in t.wait_for("SIM-EXITED")
    finally:
        t.close()
