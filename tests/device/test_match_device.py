"""The match the club's laptop gives a table, through the whole device: its
console line, the menu's Match screen, the game started from it with the
seats named, its record tagged with the evening and the round, a
re-pairing sent during the game waiting for the game's end, the picker
changing a seat, a played match not offered again, a new one kept over a
power cut, a clear.  tests/mpy/match_game.py drives it (board_sim: pins,
capture, ring, decoder, app) on the MicroPython Unix port (the firmware as
.mpy, the device's heap) and on CPython, which must agree."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import mpyrun
from host_tools.board import match as M
from host_tools.board.build import mpy_cross_path
from mpyhelp import ROOT
from speedref.engine import records

HARNESS = ["tests/fakes/machine.py", "tests/mpy/board_sim.py", "tests/mpy/device_game_speed.py",
           "tests/mpy/match_game.py"]
# the device's heap and the harness's allowance (tests/test_device_games.py)
HEAP = "%dwK" % (mpyrun.DEVICE_WK + 13)

MATCH = M.make_match(3, 2, "Table 3", "speed", ["Ann", "Bob"], {"match": "single"})
REPAIRED = M.make_match(3, 2, "Table 3", "speed", ["Cat", "Ann"], {"match": "single"}, version=2)
NEXT = M.make_match(3, 3, "Table 3", "speed", ["Dan", "Guest"], {"match": "single", "jokers": True})
ARG = {"match": MATCH, "repaired": REPAIRED, "next": NEXT, "deal": {"winner": 0, "left": 3}}


def on_micropython():
    folder = Path(tempfile.mkdtemp(prefix="speedref-harness-"))
    for rel in HARNESS:
        src = ROOT / rel
        subprocess.run([mpy_cross_path(), "-s", src.name, "-o", str(folder / (src.stem + ".mpy")), str(src)],
                       check=True)
    scratch = tempfile.mkdtemp(prefix="speedref-run-")
    argf = os.path.join(scratch, "arg.json")
    with open(argf, "w") as f:
        json.dump(ARG, f)
    flash = os.path.join(scratch, "flash")
    os.mkdir(flash)
    r = mpyrun.run(code="import match_game as d\nd.main(%r, %r)" % (flash, argf), heap=HEAP, extra_path=[folder])
    return results(r.stdout)


def on_cpython(tmp_path):
    argf = tmp_path / "arg.json"
    argf.write_text(json.dumps(ARG))
    flash = tmp_path / "flash"
    flash.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        str(p) for p in (ROOT / "tests" / "fakes", ROOT / "firmware", ROOT / "tests" / "mpy", ROOT)))
    code = "from sim import compat; compat.install(); import match_game as d; d.main(%r, %r)" % (str(flash), str(argf))
    r = subprocess.run([sys.executable, "-c", code],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return results(r.stdout)


def results(stdout):
    out, lines = {}, []
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            k, v = json.loads(line[7:])
            out[k] = v
        elif line.startswith("{"):
            lines.append(json.loads(line))
    return out, lines


def plain(rec):
    return {k: v for k, v in rec.items() if k not in ("id", "table")}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not mpyrun.MICROPYTHON.exists():
        pytest.skip("no micropython binary")
    return on_micropython(), on_cpython(tmp_path_factory.mktemp("cp"))


def test_both_runtimes_agree(runs):
    (mp, mp_lines), (cp, cp_lines) = runs
    skip = ("record", "in_game_modules")  # CPython keeps every module it loaded (speedref.forget)
    assert {k: v for k, v in mp.items() if not k.startswith(skip)} == \
        {k: v for k, v in cp.items() if not k.startswith(skip)}
    assert plain(mp["record"]) == plain(cp["record"]) and plain(mp["record2"]) == plain(cp["record2"])


def test_the_match_is_offered_at_the_menu_with_its_round_table_players_and_options(runs):
    (got, _), _ = runs
    assert got["menu"]["screen"] == "Games"  # no match yet
    assert [(x["ev"], x["state"], x["id"], x["round"]) for x in got["sent"]] == [("match", "offered", "e3r2", 2)]
    assert got["offered"] == {"screen": "Match", "head": "Round 2 Table 3", "cursor": 0,
                              "items": ["Play Speed", "P1 Ann", "P2 Bob", "Match: 1 deal", "Change seats",
                                        "Other game"]}
    assert got["shown"][0]["state"] == "offered" and got["shown"][0]["match"] == MATCH


def test_ok_plays_it_with_the_seats_named_and_its_record_carries_the_evening_and_round(runs):
    (got, lines), _ = runs
    rec = got["record"]
    assert rec["players"] == ["Ann", "Bob"] and rec["evening"] == 3 and rec["round"] == 2
    assert rec["match"] == {"single": True}
    assert records.summary(rec)["winners"] == [0]
    ends = [x["record"] for x in lines if x["ev"] == "game_end"]
    assert ends[0] == rec  # the USB log's record is the stored one, tags and all


def test_the_game_started_from_the_match_holds_neither_the_match_nor_the_menu(runs):
    (got, _), _ = runs  # the Unix port's: a board lets modules go (speedref.forget)
    held = set(got["in_game_modules"])
    assert not held & {"speedref.match", "speedref.app.menu", "speedref.app.match_menu", "speedref.roster",
                       "speedref.app.who"}, held
    assert "speedref.app.speed_flow" in held


def test_a_repairing_during_the_game_waits_for_its_end_then_replaces_the_match(runs):
    (got, lines), _ = runs
    assert got["in_game"] == "SpeedFlow"
    assert [(x["state"], x["version"]) for x in got["during"]] == [("waiting", 2)]
    evs = [x["ev"] for x in lines]
    taken = [i for i, x in enumerate(lines) if x["ev"] == "match" and x.get("state") == "offered"
             and x.get("version") == 2]
    assert len(taken) == 1 and taken[0] > evs.index("game_end"), "taken only once the game was over"
    # the game played was the first pairing's; the re-pairing is offered now
    assert got["after"]["head"] == "Round 2 Table 3"
    assert got["after"]["items"][1:3] == ["P1 Cat", "P2 Ann"]


def test_the_picker_offers_each_seat_its_player_first_and_can_change_one(runs):
    (got, _), _ = runs
    assert got["picker"]["screen"] == "Who" and got["picker"]["seat"] == 0
    assert got["picker"]["items"][:3] == ["Cat", "Ann", "Bob"]  # the match's player for P1, then who sat there
    assert got["picker2"]["seat"] == 1 and got["picker2"]["items"][0] == "Ann"
    rec = got["record2"]
    assert rec["players"] == ["Bob", "Ann"]  # P1 changed at the table
    assert (rec["evening"], rec["round"]) == (3, 2)  # still the round's game


def test_a_played_match_is_not_offered_again_and_an_older_version_changes_nothing(runs):
    (got, _), _ = runs
    assert got["after2"]["screen"] == "Games"
    assert [x["state"] for x in got["again"]] == ["played"] and got["again_screen"]["screen"] == "Games"
    assert [x["state"] for x in got["older"]] == ["older"]


def test_a_new_match_survives_a_power_cut_and_a_clear_takes_it_away(runs):
    (got, _), _ = runs
    assert [x["state"] for x in got["next"]] == ["offered"]
    assert got["next_screen"]["head"] == "Round 3 Table 3"
    assert got["next_screen"]["items"][:5] == ["Play Speed", "P1 Dan", "P2 Guest", "Jokers: on", "Match: 1 deal"]
    assert got["rebooted"]["screen"] == "Match" and got["rebooted"]["head"] == "Round 3 Table 3"
    assert [x["state"] for x in got["cleared"]] == ["cleared"] and got["cleared_screen"]["screen"] == "Games"


def test_a_bad_match_is_refused_in_one_line_and_changes_nothing(runs):
    (got, _), _ = runs
    assert got["bad"] == [{"ev": "error", "what": "match", "msg": "names: 2 wanted, one a seat", "from": "usb"}]
