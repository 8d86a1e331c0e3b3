"""speedref-sim for a newcomer: the README's commands work as written, and every
mistake gets a message and exit status 2 (130 for Ctrl-C), never a traceback."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim import __main__ as simmain
from sim import script

ROOT = Path(__file__).resolve().parents[2]
SIM = Path(sys.executable).parent / "speedref-sim"


def run(args, stdin=None, env=None, timeout=120):
    return subprocess.run([str(SIM)] + args, input=stdin, capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, **(env or {})), timeout=timeout)


def refused(r, must):
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and must in r.stderr, r.stderr


def test_the_readme_example_runs_the_game_its_script_names():
    r = run(["--script", "tests/sim_scripts/speed.txt", "--json"])
    assert r.returncode == 0, r.stderr
    evs = [json.loads(l)["ev"] for l in r.stdout.splitlines()]
    assert "game_end" in evs and r.stderr == ""


@pytest.mark.parametrize("game", ["speed", "spit", "partners", "speedrun"])
def test_every_committed_script_names_its_game(game):
    text = (ROOT / "tests" / "sim_scripts" / (game + ".txt")).read_text()
    assert script.header_game(text) == game


def test_game_header_parsing():
    assert script.header_game("# a comment\n# game: spit\n100 p1 down\n") == "spit"
    assert script.header_game("100 p1 down\n# game: spit\n") is None     # only before the events
    assert script.header_game("# nothing\n") is None
    with pytest.raises(script.ScriptError):
        script.header_game("# game: chess\n")


def test_a_run_that_prints_nothing_says_why(tmp_path):
    p = tmp_path / "s.txt"
    p.write_text("1000 up down\n1050 up up\n")
    r = run(["--script", str(p), "--json"])
    assert r.returncode == 0 and r.stdout == ""
    assert "printed no log lines" in r.stderr and "# game:" in r.stderr


def test_non_utf8_script_is_refused(tmp_path):
    p = tmp_path / "s.txt"
    p.write_bytes(b"# caf\xe9\n1000 p1 down\n")
    refused(run(["--script", str(p)]), "not UTF-8")


def test_a_bom_is_accepted(tmp_path):
    p = tmp_path / "s.txt"
    p.write_bytes(b"\xef\xbb\xbf# game: speed\n1000 p1 down\n1080 p1 up\n")
    r = run(["--script", str(p), "--json"])
    assert r.returncode == 0, r.stderr


def test_screens_into_a_file_or_an_unwritable_place_is_refused(tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    s = tmp_path / "s.txt"
    s.write_text("# game: speed\n1000 p1 down\n")
    refused(run(["--script", str(s), "--screens", str(f)]), "--screens")
    refused(run(["--script", str(s), "--screens", str(f / "sub")]), "--screens")


def test_store_that_cannot_be_made_is_refused(tmp_path):
    s = tmp_path / "s.txt"
    s.write_text("# game: speed\n1000 p1 down\n")
    refused(run(["--script", str(s), "--store", "/proc/nope"]), "--store")


def test_games_below_one_is_refused():
    refused(run(["--table", "speed", "--games", "-3"]), "--games")
    refused(run(["--table", "speed", "--games", "0"]), "--games")


def test_script_times_beyond_a_day_are_refused(tmp_path):
    s = tmp_path / "s.txt"
    s.write_text("# game: speed\n99999999999 p1 down\n")
    refused(run(["--script", str(s)]), "line 2")
    with pytest.raises(script.ScriptError):
        script.parse("%d p1 down\n" % (script.MAX_TIME_MS + 1))
    assert script.parse("%d p1 down\n" % script.MAX_TIME_MS)


def test_window_without_a_display_exits_2(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert simmain.main(["--window"]) == 2
    assert "display" in capsys.readouterr().err


def test_ctrl_c_in_an_interactive_mode_exits_130_quietly(monkeypatch, capsys):
    from sim import tui

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(tui, "main", interrupted)
    assert simmain.main([]) == 130
    assert capsys.readouterr().err == ""


TERMINAL_MODES = [[], ["--game", "spit"], ["--play", "speedrun", "--length", "short"], ["--play", "spit"],
                  ["--play", "speed", "--seats", "3"], ["--play", "partners"]]


@pytest.mark.parametrize("mode", TERMINAL_MODES, ids=lambda m: " ".join(m) or "terminal")
def test_a_terminal_mode_without_a_terminal_is_one_line_and_exit_2(mode):
    # stdin from /dev/null, stdout a pipe: no curses screen is started, so
    # nothing (no screen-reset escape) reaches stdout.
    r = subprocess.run([str(SIM)] + mode, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == "" and "\x1b" not in r.stderr
    assert len(r.stderr.splitlines()) == 1 and "needs a terminal" in r.stderr, r.stderr
    assert "--script" in r.stderr


def test_a_terminal_the_system_does_not_know_is_one_line_and_exit_2():
    import pty
    master, slave = pty.openpty()
    try:
        r = subprocess.run([str(SIM)], stdin=slave, stdout=slave, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT, env=dict(os.environ, TERM="no-such-terminal-xyz"), timeout=120)
        os.set_blocking(master, False)
        try:
            shown = os.read(master, 65536)
        except BlockingIOError:
            shown = b""
    finally:
        os.close(master)
        os.close(slave)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert b"\x1b" not in shown and len(r.stderr.splitlines()) == 1, (shown, r.stderr)
    assert "no-such-terminal-xyz" in r.stderr
