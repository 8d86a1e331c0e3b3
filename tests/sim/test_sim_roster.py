"""A roster on the virtual board (speedref-sim --roster FILE, and --names
with no game to start): loaded over the board's own USB console with the
roster commands a board answers (speedref/roster.py, docs/serial-protocol.md),
so the name picker the device shows before a game (app/who.py: "P1: who?",
the letter wheel, "Same players?" next time) is the firmware's own, in the
terminal, the window and a script."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim import compat

compat.install()

from sim import board as sim_board  # noqa: E402
from sim.board import Board  # noqa: E402
from test_sim_screen_text import find  # noqa: E402

BIN = Path(sys.executable).parent
SCRIPTS = Path(__file__).resolve().parents[1] / "sim_scripts"
P1, P2, P3, P4, UP, DOWN, OK, BACK = range(8)


def sim(*args, **kw):
    return subprocess.run([str(BIN / "speedref-sim")] + [str(a) for a in args], capture_output=True,
                          text=True, timeout=300, **kw)


def club(tmp_path, text="# the Thursday club\nAnn\n\n  Bob  \nCy\nann\nDee\n"):
    f = tmp_path / "club.txt"
    f.write_text(text, encoding="utf-8")
    return f


class Taps:
    """A person at the virtual board's buttons, in simulated time."""

    def __init__(self, board):
        self.b = board
        self.t = board.clock.elapsed_us

    def tap(self, button, gap_us=300000):
        self.t += gap_us
        self.b.event(self.t, button, True)
        self.t += 80000
        self.b.event(self.t, button, False)

    def shows(self, text):
        return find(self.b.screen(), text) is not None or find(self.b.screen(), text, True) is not None


def test_the_roster_is_loaded_through_the_boards_console_and_the_picker_is_the_firmwares(tmp_path):
    b = Board(root=tmp_path / "flash")
    try:
        b.step()
        answer = b.roster("push", ["Ann", "Bob", "Cy"])
        assert answer["names"] == ["Ann", "Bob", "Cy"]
        # the board answered on its USB console, as it answers speedref-roster
        assert any(json.loads(line).get("ev") == "roster" for line in b.lines)
        assert b.store.load_roster()[0]["names"] == ["Ann", "Bob", "Cy"]
        # the board's own check refuses a name, and nothing changes
        with pytest.raises(ValueError, match="U\\+0416"):
            b.roster("add", ["\u0416enya"])
        assert b.store.load_roster()[0]["names"] == ["Ann", "Bob", "Cy"]
        # a game started as the menu's Start starts it: the seats pick their names
        b.start_game("spit", pick=True)
        p = Taps(b)
        assert type(b.app.screen).__name__ == "Who" and p.shows("P1: who?")
        p.tap(DOWN)                 # Bob
        p.tap(OK)
        assert p.shows("P2: who?")
        p.tap(OK)                   # Ann (Bob is taken)
        p.tap(OK, 600000)
        assert b.app.flow is not None and b.app.flow.GAME == "spit"
        assert list(b.app.flow.opts["names"]) == ["Bob", "Ann"]
        assert b.store.load_roster()[0]["last"] == ["Bob", "Ann"]
    finally:
        b.close()


def test_same_players_next_time(tmp_path):
    root = tmp_path / "flash"
    b = Board(root=root)
    try:
        b.step()
        b.roster("push", ["Ann", "Bob"])
        b.start_game("spit", pick=True)
        p = Taps(b)
        p.tap(OK)
        p.tap(OK)
        assert list(b.app.flow.opts["names"]) == ["Ann", "Bob"]
    finally:
        b.close()
    b = Board(root=root)   # the same flash, a new session
    try:
        b.step()
        b.start_game("spit", pick=True)
        p = Taps(b)
        assert p.shows("Same players?") and p.shows("Ann") and p.shows("Bob")
        p.tap(OK)
        p.tap(OK, 600000)
        assert list(b.app.flow.opts["names"]) == ["Ann", "Bob"]
    finally:
        b.close()


def test_without_a_roster_a_game_starts_at_once(tmp_path):
    b = Board(root=tmp_path / "flash")
    try:
        b.step()
        b.start_game("spit", pick=True)
        assert b.app.flow is not None and list(b.app.flow.players) == ["P1", "P2"]
    finally:
        b.close()


def test_a_script_picks_its_names_from_the_roster(tmp_path):
    """--roster with a script: the game its header names starts at the
    picker, as Start does on the device; the script's first presses pick
    the seats (OK: the first name offered, then the next), and the record
    carries them."""
    events = ["# game: spit", "100 ok down", "160 ok up", "400 ok down", "460 ok up"]
    for line in (SCRIPTS / "spit.txt").read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and not line.startswith("#"):
            events.append("%s %s %s" % (float(parts[0]) + 1000, parts[1], parts[2]))
    script = tmp_path / "picked.txt"
    script.write_text("\n".join(events) + "\n")
    r = sim("--script", script, "--json", "--roster", club(tmp_path))
    assert r.returncode == 0, r.stderr
    recs = [json.loads(l)["record"] for l in r.stdout.splitlines() if '"game_end"' in l]
    assert [x["players"] for x in recs] == [["Ann", "Bob"]]
    roster = [json.loads(l) for l in r.stdout.splitlines() if '"ev": "roster"' in l]
    assert roster and roster[0]["names"] == ["Ann", "Bob", "Cy", "Dee"]


def test_the_terminal_mode_gets_the_roster_and_the_names(tmp_path, monkeypatch):
    """speedref-sim --roster FILE and --names A,B with no game: the terminal
    simulator on a board whose roster holds the file's names, then those."""
    from sim import __main__ as cli
    from sim import tui
    seen = {}

    def fake_main(board, *a, **kw):
        seen["roster"] = board.store.load_roster()[0]["names"]
        seen["screen"] = type(board.app.screen).__name__

    monkeypatch.setattr(tui, "main", fake_main)
    monkeypatch.setitem(sim_board.NAMED, "names", None)
    assert cli.main(["--roster", str(club(tmp_path)), "--names", "Eve,Bob", "--store", str(tmp_path / "f")]) == 0
    assert seen["roster"] == ["Ann", "Bob", "Cy", "Dee", "Eve"]
    assert sim_board.NAMED["names"] is None   # nobody is seated: each seat picks
    seen.clear()
    assert cli.main(["--names", "Ann,Bob"]) == 0
    assert seen["roster"] == ["Ann", "Bob"]
    # --game: the game starts as the menu's Start starts it, at the picker
    seen.clear()
    monkeypatch.setattr(tui, "main", lambda board, *a, **kw: seen.update(
        screen=type(board.app.screen).__name__, flow=board.app.flow))
    assert cli.main(["--roster", str(club(tmp_path)), "--game", "speedrun"]) == 0
    assert seen["screen"] == "Who" and seen["flow"] is None
    # --names with --game seat the players: no picker
    seen.clear()
    assert cli.main(["--roster", str(club(tmp_path)), "--names", "Ann,Bob,Cy", "--game", "speedrun"]) == 0
    assert seen["flow"] is not None and list(seen["flow"].opts["names"]) == ["Ann", "Bob", "Cy"]


def test_names_alone_is_accepted_in_a_real_terminal(tmp_path):
    """README: `speedref-sim --names Ann,Bob` opens the terminal simulator."""
    import shutil
    if shutil.which("tmux") is None:
        pytest.skip("needs tmux")
    from test_sim_tui import Tmux, ROOT
    t = Tmux("cd %s && env -u LINES -u COLUMNS %s -m sim --names Ann,Bob --store %s; echo SIM-EXITED $?;"
             " sleep 60" % (ROOT, sys.executable, tmp_path / "flash"), width=80, height=24)
    try:
        s = t.wait_for("quit [q]")
        assert "SIM-EXITED" not in s
    finally:
        t.close()
    from speedref.storage import Store
    assert Store(str(tmp_path / "flash")).load_roster()[0]["names"] == ["Ann", "Bob"]


@pytest.mark.parametrize("text, why", [
    ("Ann\n\u0416enya\n", "line 2: name \"?enya\": character U+0416 cannot be shown on the board"),
    ("Ann\nGuest\n", "kept for an unnamed seat"),
    ("\n".join("N%d" % i for i in range(150)), "holds 150 names; a board keeps 100 at most"),
    (b"\xff\xfe", "line 1 is not UTF-8 text"),
])
def test_a_bad_roster_file_is_one_line_and_exit_2(tmp_path, text, why):
    f = tmp_path / "club.txt"
    if isinstance(text, bytes):
        f.write_bytes(text)
    else:
        f.write_text(text, encoding="utf-8")
    r = sim("--roster", f, "--script", SCRIPTS / "spit.txt")
    assert r.returncode == 2 and why in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 1 and r.stdout == ""
    assert "nothing sent" not in r.stderr


def test_a_missing_roster_file_is_one_line(tmp_path):
    r = sim("--roster", tmp_path / "nope.txt", "--script", SCRIPTS / "spit.txt")
    assert r.returncode == 2 and "cannot read" in r.stderr and len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("mode", [["--table", "spit"], ["--play", "spit"]])
def test_the_computer_tables_take_no_roster(tmp_path, mode):
    r = sim(*(mode + ["--roster", club(tmp_path)]))
    assert r.returncode == 2 and "--roster" in r.stderr and "--names" in r.stderr, r.stderr


def test_a_computer_table_on_a_store_with_a_roster_still_plays(tmp_path):
    """The computer players sit as P1..Pn (or --names): a roster kept in
    the store never puts the picker in their way."""
    store = tmp_path / "flash"
    b = Board(root=store)
    try:
        b.step()
        b.roster("push", ["Ann", "Bob", "Cy"])
    finally:
        b.close()
    r = sim("--table", "spit", "--games", "2", "--store", store)
    assert r.returncode == 0 and "disagreements 0" in r.stdout, r.stdout[:2000] + r.stderr
