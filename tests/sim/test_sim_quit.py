"""Leaving the simulator without losing a game by one key, and knowing what
is kept: in a game `q` asks first (a second `q` within 3 s quits, any other
key plays on), in the simulator's own style of a second press; a game over
says where its record is (a --store folder, or a temporary one gone when the
simulator closes); on quitting the simulator says where the records went, or
that they are discarded and how to keep them (--store DIR)."""
import sys

import pytest

from sim import compat

compat.install()

from sim.board import Board  # noqa: E402
from test_sim_tui import KeyDriver, Tmux, ROOT, needs_tmux  # noqa: E402
from test_sim_person_terminal import FakeScreen  # noqa: E402
from test_sim_roster import SCRIPTS  # noqa: E402

Q = ord("q")


def test_at_the_menu_q_quits_at_once():
    d = KeyDriver(None)
    try:
        assert d.sim.key(Q, d.t) is True
    finally:
        d.close()


def test_in_a_game_q_asks_and_a_second_q_quits():
    d = KeyDriver("spit")
    try:
        assert d.sim.key(Q, d.t) is False            # the first q: asked
        scr = FakeScreen(80, 24)
        d.sim.draw(scr)
        text = "\n".join(scr.row(y) for y in range(scr.h))
        assert "q again" in text and "no --store" in text and "lost" in text, text
        d.run_to(d.t + 1000000)
        assert d.sim.key(Q, d.t) is True             # the second, within 3 s
    finally:
        d.close()


def test_another_key_or_3_s_call_the_quit_off():
    d = KeyDriver("spit")
    try:
        assert d.sim.quit_key(d.t) is False
        assert d.sim.key(10, d.t) is False           # OK: play goes on
        assert d.sim.quitting is None
        assert d.sim.quit_key(d.t) is False          # asked again
        d.run_to(d.t + 3100000)
        d.sim.expire(d.t)
        assert d.sim.quitting is None
        scr = FakeScreen(80, 24)
        d.sim.draw(scr)
        assert not any("q again" in scr.row(y) for y in range(scr.h))
        assert d.sim.quit_key(d.t) is False          # too late for the first: asked again
    finally:
        d.close()


def test_with_a_store_the_question_says_the_game_stays(tmp_path):
    from sim.tui import TerminalSim
    b = Board(root=tmp_path / "flash")
    try:
        b.step()
        b.start_game("spit")
        term = TerminalSim(b)
        assert term.quit_key(0) is False
        assert "saved in %s" % (tmp_path / "flash") in term.quit_prompt()
    finally:
        b.close()


def _spit_game(board):
    from sim import script
    board.step()
    board.start_game("spit")
    t0 = board.clock.elapsed_us
    for t, button, down, _ in script.parse((SCRIPTS / "spit.txt").read_text()):
        board.event(t0 + t, button, down)
    board.run_until(board.clock.elapsed_us + 2000000)
    assert board.records()


def test_farewell_says_what_goes_and_what_stays(tmp_path):
    b = Board()
    try:
        assert b.farewell() is None                  # nothing to lose: nothing to say
        _spit_game(b)
        words = b.farewell()
        assert "temporary" in words and "1 game record" in words and "discarded" in words
        assert "--store DIR" in words
        b.start_game("spit")
        assert "1 game record and the game in progress" in b.farewell()
    finally:
        b.close()
    store = tmp_path / "flash"
    b = Board(root=store)
    try:
        _spit_game(b)
        words = b.farewell()
        assert "1 game record in %s" % store in words and "speedref-results import %s" % store in words
        b.start_game("spit")
        assert "`speedref-sim --store %s` resumes it" % store in b.farewell()
    finally:
        b.close()


@pytest.mark.parametrize("game", ["speed", "spit", "speedrun", "partners"])
def test_a_play_modes_game_over_says_where_its_record_is(game, tmp_path):
    from sim.table import person as P
    from sim.__main__ import build_parser
    for store in (None, tmp_path / game):
        argv = ["--play", game, "--seed", "2"] + (["--store", str(store)] if store else [])
        args = build_parser().parse_args(argv)
        tb = P.play_module(game).table(args)
        try:
            tb.start()
            tb.on_line({"ev": "game_end", "record": {"game": game}})
            note = tb.note
        finally:
            tb.close()
        if store:
            assert str(store) in note and "lost" not in note, note
        else:
            assert "no --store" in note and "saved" not in note.lower(), note


@needs_tmux
def test_q_in_a_real_terminal_asks_then_quits_and_says_what_is_kept(tmp_path):
    store = tmp_path / "flash"
    t = Tmux("cd %s && env -u LINES -u COLUMNS %s -m sim --game spit --store %s; echo SIM-EXITED $?; sleep 60"
             % (ROOT, sys.executable, store), width=100, height=30)
    try:
        t.wait_for("quit [q]")
        t.keys("q")
        s = t.wait_for("q again")
        assert "SIM-EXITED" not in s
        t.keys("q")
        s = t.wait_for("SIM-EXITED")
        assert "SIM-EXITED 0" in s
        assert "resumes it" in s.replace("\n", "")
    finally:
        t.close()
