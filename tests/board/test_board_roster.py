"""Players named on the emulated Pico: speedref-roster pushes the club's
roster and sets the table's name over the board's USB (a pty, as
/dev/ttyACM0), four players pick their names on the device with the
buttons, a whole partners game is played
through the pins (tests/sim_scripts/partners.txt: seat swaps, PT-8) and
its record carries the four names and the table's name.  The heap is read
with {"cmd": "mem"} at the menu, with the roster loaded in the name picker
and in the game (the figure in docs/figures.md).  One emulated run, every
check in it (a board test costs minutes).

The same four people then play the same game on the web page (headless
Chromium, its names panel) and in the simulator (`--names`, where the
fourth is typed "Danny").  The board's USB log, the page's record download
and the simulator's store are imported into one results database: the
standings and the ratings show five people, then `speedref-results rename
Danny Dan` makes them four, each with a game from each of the three."""
import os
import subprocess
import sys

import json

import pytest

from board_rig import mem, needs_board
from emu.board import NS_PER_US
from emu.referee import Referee
from emu.serve import Bridge

# the web page's fixtures and its names panel
from test_web import browser, site, open_page, plant, py  # noqa: F401
from test_web_names import fill

pytestmark = [pytest.mark.board, pytest.mark.web, needs_board]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UP, DOWN, OK = 4, 5, 6
CLUB = ["Ann", "Bob", "Cat", "Dan"] + ["Member%02d" % i for i in range(96)]  # a full roster: 100
MS = 1000


def results(db, *args):
    r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", str(db)] + list(args),
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def people_games(db):
    """{person: games} of the partners standings and of the ratings."""
    standings = json.loads(results(db, "--json"))["standings"]
    rated = json.loads(results(db, "ratings", "--game", "partners", "--json"))["ratings"]
    return ({x["player"]: x["games"] for x in standings if x["game"] == "partners" and x.get("person", True)},
            {x["player"]: x["games"] for x in rated if x["game"] == "partners"})


def web_game(drv, site_url, names, text):
    """The partners script on the page's board, its seats named in the names
    panel: the record the page stored."""
    from sim import script
    plant(drv, site_url, None)
    open_page(drv, site_url + "#sw=0")
    assert fill(drv, "Web Table", names, "\n".join(names)) == "saved"
    py(drv, "board.start_game('partners')")
    base = py(drv, "board.clock.elapsed_us") + 1000000
    events = [(base + t, b, d) for t, b, d, _ in script.parse(text)]
    py(drv, "[board.edge(t, b, d) for (t, b, d) in %s] and 1"
       % json.dumps(events).replace("true", "True").replace("false", "False"))
    py(drv, "board.run_until(%d) or 1" % (events[-1][0] + 1000000))
    return json.loads(py(drv, "board.newest_record_json()"))


def test_a_roster_pushed_four_names_picked_and_the_record_carries_them_PT8(tmp_path, browser, site):  # noqa: F811
    from sim import script
    roster = tmp_path / "club.txt"
    roster.write_text("# the club\n" + "\n".join(CLUB) + "\n", encoding="utf-8")
    ref = Referee()
    bridge = Bridge(ref.pico)
    to_pty = ref.pico.on_serial
    ref.pico.on_serial = lambda data: (ref._serial(data), to_pty(data))
    heap = {}
    try:
        ref.boot()  # main.py's device at its boot screen
        p = ref.pico
        p.run_for(500000)
        mem(ref, "menu", heap)
        bridge.start()
        r = subprocess.run([sys.executable, "-m", "host_tools.cli.roster", "--port", bridge.path,
                            "--table-name", "Table 7", "--timeout", "120", "push", str(roster)],
                           capture_output=True, text=True, cwd=ROOT, timeout=240)
        assert r.returncode == 0, r.stderr
        assert "table name: Table 7" in r.stdout and "Table 7: 100 of 100 names" in r.stdout
        r = subprocess.run([sys.executable, "-m", "host_tools.cli.roster", "--port", bridge.path, "--timeout", "120", "pull"],
                           capture_output=True, text=True, cwd=ROOT, timeout=240)
        assert r.stdout.splitlines() == CLUB, r.stderr
        bridge.stop()
        mem(ref, "menu_after_push", heap)

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
        mem(ref, "picker", heap)
        tap(OK)             # P1: Ann, the roster's first
        tap(DOWN)           # P2: past Bob to Cat
        tap(OK)
        tap(UP)             # P3: up from Bob to the list's end, "New name", and on to Bob
        tap(DOWN)
        tap(OK)             # Bob
        tap(OK)             # P4: Dan (Ann, Cat, Bob taken)
        p.run_for(300000)
        started = [l for l in ref.lines if l.get("ev") == "error"]
        assert not started, started
        mem(ref, "game", heap)

        # the partners script's presses from the game's start on (its first: P1 deals)
        text = open(os.path.join(ROOT, "tests", "sim_scripts", "partners.txt")).read()
        t0 = p.ns
        for t_us, button, down, _ in script.parse(text):
            p.run_until(max(p.ns, t0 + t_us * NS_PER_US))
            (p.press if down else p.release)(button)
        p.run_for(500000)
        ended = [l["record"] for l in ref.lines if l["ev"] == "game_end"]
        assert len(ended) == 1, [l for l in ref.lines if l["ev"] == "error"]
        rec = dict(ended[0])  # a copy: the log keeps the whole record
        assert rec["players"] == ["Ann", "Cat", "Bob", "Dan"]
        assert rec["table"] == "Table 7"
        # the same game as the simulator's, but for who played it and where
        from sim.board import Board
        b = Board()
        try:
            b.start_game("partners")
            for t_us, button, down, _ in script.parse(text):
                b.event(t_us, button, down)
            b.run_until(10 ** 8)
            sim = [r for r in b.records()][-1]
        finally:
            b.close()
        for k in ("id", "table", "players"):
            sim.pop(k), rec.pop(k)
        assert rec == sim
        print("heap (bytes after a collection):", heap)
        assert heap["picker"] - heap["menu"] < 16 * 1024  # the roster of 100 and the picker's code
        board_log = tmp_path / "board.jsonl"
        board_log.write_text("".join(json.dumps(l) + "\n" for l in ref.lines))
    finally:
        bridge.close()
        ref.close()

    # the same people on the web page and in the simulator
    web = web_game(browser, site, ["Ann", "Cat", "Bob", "Dan"], text)
    assert web["players"] == ["Ann", "Cat", "Bob", "Dan"] and web["table"] == "Web Table"
    web_file = tmp_path / "web-record.json"
    web_file.write_text(json.dumps(web))
    store = tmp_path / "sim-store"
    r = subprocess.run([sys.executable, "-m", "sim", "--script", os.path.join(ROOT, "tests", "sim_scripts", "partners.txt"),
                        "--json", "--names", "Ann,Cat,Bob,Danny", "--table-name", "Sim Table", "--store", str(store)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    db = tmp_path / "club.db"
    results(db, "import", str(board_log), str(web_file), str(store))
    standings, rated = people_games(db)
    assert standings == {"Ann": 3, "Cat": 3, "Bob": 3, "Dan": 2, "Danny": 1}, standings
    assert rated == standings, rated
    results(db, "rename", "Danny", "Dan")  # one person's history, joined
    standings, rated = people_games(db)
    assert standings == {"Ann": 3, "Cat": 3, "Bob": 3, "Dan": 3}, standings
    assert rated == standings, rated
