"""Whole-device proof under the real MicroPython Unix port.

Firmware compiled to .mpy (`make mpy`), the fake `machine` on MICROPYPATH and
`-X heapsize=65wK`.  Pad and button edges enter as fake Pin edges that fire
the capture handler, so every event goes capture -> ring -> input decoder ->
app; the device loop `step(now_us)` runs on a simulated clock that starts
just before the port's ticks wrap; the store is a temp directory.  The game
records the device logs (`game_end` lines on stdout) and stores must equal
exactly the ones the engine computes for the same games.

Heap: every game, the Long Speed Run included, runs with `-X heapsize=` 65wK
for the device (on this 64-bit port the compiled firmware itself sits in the
heap; 64wK was enough until Speed took up to 4 players and the store learned
to make room on a full flash: 100 Speed games in a row then ran out at a
game's start; on a Pico the code is frozen in flash and the figure that
counts is tests/board/test_board_heap.py's) plus HARNESS_WK for the test harness, which a board does not
have (the fake `machine`, board_sim with its log-line buffer, the driver and
the table script it imports).  test_harness_heap_is_within_its_allowance
measures that harness for every driver and prints it; the allowance is the
same for all games.  The harness keeps no log lines: the device streams them
to stdout (log.Log(stream=...)) and this side parses them.
"""
import json
from pathlib import Path
import os
import shutil
import tempfile
import subprocess

import pytest

import mpyrun
import speed_golden
from host_tools.board.build import mpy_cross_path
from mpyhelp import ROOT
from speedref.engine import records

pytestmark = pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")

DEVICE_WK = mpyrun.DEVICE_WK
# The harness's allowance over the device's heap: the biggest driver holds ~22 KB once
# loaded (measured below), and 100 Speed games in a row need 13wK (at 12wK
# they ran out of heap, 2026-12-01).  1wK = 2 KB here.
HARNESS_WK = 13
HARNESS_SLACK_WK = 3  # the allowance may exceed the loaded harness by this much
HEAP = "%dwK" % (DEVICE_WK + HARNESS_WK)
HARNESS = ["tests/fakes/machine.py", "tests/mpy/board_sim.py", "tests/mpy/device_game_speed.py",
           "tests/mpy/device_game_many.py", "tests/mpy/device_game_e2e.py",
           "tests/mpy/device_game_partners.py", "tests/mpy/app_rig.py", "tests/mpy/app_partners_game.py",
           "tests/mpy/device_game_speedrun.py", "tests/mpy/app_speedrun_game.py",
           "tests/mpy/device_game_spit.py", "tests/mpy/app_spit_game.py"]


@pytest.fixture(scope="session")
def harness():
    """The harness precompiled with mpy-cross like the firmware (so compiling
    its source does not fragment the device's heap); first on MICROPYPATH.

    Like the checkout (mpyrun.short_root) and the flash (run_driver), nothing
    here may depend on where the suite runs: each .mpy carries its source's
    name for tracebacks, and the folder is a sys.path entry, both strings in
    the device's heap.  A clone at /check/work/main run under xdist (a
    pytest-N/popen-gw0/ folder) ran out of heap in game 49 of 100.  So each
    module is named by its file name alone, in one fixed-length folder."""
    out = Path(tempfile.mkdtemp(prefix="speedref-harness-"))
    for rel in HARNESS:
        src = ROOT / rel
        subprocess.run([mpy_cross_path(), "-s", src.name, "-o", str(out / (src.stem + ".mpy")), str(src)],
                       check=True)
    yield out
    shutil.rmtree(out, ignore_errors=True)


def run_driver(harness, driver, root, arg, heap=HEAP, files=None):
    """Run `driver.main(flash, file)` under MicroPython, `arg` written to
    that JSON file; returns (RESULT object, the JSON log lines the device
    printed on stdout).  `files` ({name: text}) are written beside the
    argument file, and "{dir}" in a string value of `arg` names that folder.

    Every path the driver sees lives in the device's heap (the store joins
    the flash root into every file name, the driver keeps its argument
    file's name), so no length may depend on how many pytest runs came
    before (pytest-999 vs pytest-1000 moved the heap enough to fail a Long
    Speed Run at 64wK): one fixed-length folder of its own for all of them.
    `root` (pytest's tmp_path) is not used for them."""
    scratch = tempfile.mkdtemp(prefix="speedref-run-")
    try:
        for name, text in (files or {}).items():
            with open(os.path.join(scratch, name), "w") as f:
                f.write(text)
        arg = {k: v.replace("{dir}", scratch) if isinstance(v, str) else v for k, v in arg.items()}
        argf = os.path.join(scratch, "arg.json")
        with open(argf, "w") as f:
            json.dump(arg, f)
        flash = os.path.join(scratch, "flash")
        os.mkdir(flash)
        code = "import %s as d\nd.main(%r, %r)" % (driver, flash, argf)
        r = mpyrun.run(code=code, heap=heap, extra_path=[harness])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    result, lines = None, []
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            k, v = json.loads(line[7:])
            result = result or {}
            result[k] = v
        else:
            lines.append(json.loads(line))
    assert result is not None, r.stdout[-2000:]
    return result, lines


def without_id(rec):
    rec = dict(rec)
    assert rec.pop("id")
    rec.pop("table", None)
    return rec


# ---- Speed: a seeded card-level match reduced to what the referee sees ------
def speed_scenario(seed):
    """Play seed's card-level match (engine/speed_cards via the golden driver)
    and turn it into table events: per deal the stuck events (F flip, R
    rebuild + flip), the winner and the loser's cards left."""
    lines = []
    _, rec = speed_golden.play(seed, out=lines.append)
    layout, match, jokers, doubles, limit, slap = speed_golden.VARIANTS[seed % 3]
    fmt = "single" if "single" in match else ("best_of" if "best_of" in match else "target")
    opts = {"layout": layout, "jokers": jokers, "doubles": doubles, "hand_limit": limit,
            "slap_to_win": slap, "match": fmt}
    if fmt == "target":
        opts["target"] = match["target"]
    deals, events = [], ""
    for line in lines:
        if "both flip a reserve card" in line:
            events += "F"
        elif "reserves rebuilt" in line:
            events += "R"
        elif line.startswith("deal ") and " wins, P" in line:  # the deal's end
            d = rec["deals"][len(deals)]
            deals.append({"events": events, "winner": d["winner"], "left": d["left"]})
            events = ""
    assert len(deals) == len(rec["deals"])
    rec["players"] = ["P1", "P2"]
    return {"opts": opts, "deals": deals}, rec


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_speed_match_through_the_device_equals_the_card_level_game_SP14_SP15_SP18_SP19(harness, tmp_path, seed):
    """A seeded card-level Speed match (one variant per seed: pagat to 25,
    classic best of 3 with jokers/doubles, classic single deal slap-to-win)
    played through pins -> capture -> ring -> decoder -> app: the logged and
    stored record is exactly the engine's, and so are the per-deal flips and
    rebuilds the device counted (SP-14, SP-15)."""
    scenario, expected = speed_scenario(seed)
    got, lines = run_driver(harness, "device_game_speed", tmp_path, scenario)
    ends = [x["record"] for x in lines if x["ev"] == "game_end"]
    assert len(ends) == 1
    assert without_id(ends[0]) == expected
    assert got["record"] == ends[0] and got["stored"] == [ends[0]]
    assert records.replay(expected).to_record() == expected
    deals = [x for x in lines if x["ev"] == "deal"]
    assert [(d["winner"], d["left"]) for d in deals] == \
        [(d["winner"], d["left"]) for d in scenario["deals"]]
    assert [d["flips"] for d in deals] == [len(d["events"]) for d in scenario["deals"]]
    assert [d["rebuilds"] for d in deals] == [d["events"].count("R") for d in scenario["deals"]]
    assert got["wrapped"] and got["dropped"] == 0
    assert got["saved"] is None and got["screen"] == "Games"
    assert not [x for x in lines if x["ev"] == "error"]


# Each driver with the firmware modules it uses loaded first, so only the
# harness itself is counted: fake machine, board_sim (and a TeeLog with its
# line buffer), the driver and the table scripts it imports.
DRIVERS = {"device_game_speed": "speed", "device_game_many": "speed", "device_game_spit": "spit",
           "device_game_partners": "partners", "device_game_speedrun": "speedrun"}
HARNESS_HEAP = """
import gc
from speedref.app.core import App
from speedref.app import menu
import speedref.device, speedref.hw.capture, speedref.hw.display, speedref.hw.buzzer
import speedref.hw.ring, speedref.hw.board_pico, speedref.storage, speedref.log, json, sys, io
import speedref.engine.%s
gc.collect(); a = gc.mem_alloc()
import machine, board_sim, %s
t = board_sim.TeeLog(False)
gc.collect(); print(gc.mem_alloc() - a)
"""


def harness_heap(harness, driver):
    r = mpyrun.run(code=HARNESS_HEAP % (DRIVERS[driver], driver), heap=HEAP, extra_path=[harness])
    return int(r.stdout.split()[-1])


def test_harness_heap_is_within_its_allowance(harness):
    """The extra heap every game gets over the device's 65wK is what the harness holds
    once loaded, for the biggest of the drivers: it must stay within
    HARNESS_WK (the same for all games)."""
    used = {d: harness_heap(harness, d) for d in DRIVERS}
    for d in used:
        print("harness heap with %s: %d bytes" % (d, used[d]))
    # -X heapsize=NwK scales by the word size: 1wK = 2 KB on this 64-bit port.
    print("allowance: %dwK = %d bytes" % (HARNESS_WK, HARNESS_WK * 2048))
    # Within the allowance, and the allowance no bigger than it has to be:
    # every extra wK would be heap the device could silently use.
    assert (HARNESS_WK - HARNESS_SLACK_WK) * 2048 < max(used.values()) <= HARNESS_WK * 2048


def test_100_games_in_a_row_leave_the_heap_where_it_started(harness, tmp_path):
    """100 single-deal Speed games (SP-19) through the device in one process:
    after gc.collect() the heap after the last games is where it was after
    the first ten (the first loaded the Speed flow and engine); and
    every game_end record equals the engine's replay of its deal."""
    from speedref.engine.rng import Rng
    rng = Rng(2024)
    games = [["speed", rng.below(2), 1 + rng.below(15), rng.below(3)] for _ in range(100)]
    got, lines = run_driver(harness, "device_game_many", tmp_path, {"games": games})
    s = got["sizes"]
    print("heap after game 1, 2, 50, 100: %d %d %d %d bytes (free %d)" % (s[0], s[1], s[49], s[99], got["free"]))
    assert len(s) == 100
    # No growth: the last games end where the early ones did.  The first few
    # games may end up to a few 64-byte blocks higher once, never again:
    # strings first seen in them are interned into a qstr pool that is never
    # freed (which game shows it depends on the lengths of the paths and ids
    # the heap held before).  After that the heap stays in one band: single
    # samples may be one 64-byte object higher (the collector is conservative
    # and a stale word on the C stack keeps an object for one collection),
    # and may step up once by one small object for good, most likely a
    # word in a buffer the collector scans that points at it (which game, if
    # any, depends on the heap's size and layout: at 75wK a 32-byte step
    # after game 35, at 76wK after game 69, at 77wK in game 1, before Speed
    # took 4 players).  A leak of
    # even one 16-byte block every other game grows past that over the
    # last 65 games.
    warm = 10
    assert 0 <= s[warm] - s[0] <= 256, s
    assert max(s[warm:]) - min(s[warm:]) <= 128, (s[0], s[warm:])
    assert max(s[75:]) - max(s[warm:35]) <= 64 and min(s[75:]) >= min(s[warm:35]), s
    ends = [x["record"] for x in lines if x["ev"] == "game_end"]
    assert [(r["deals"][0]["winner"], r["deals"][0]["left"]) for r in ends] == [(g[1], g[2]) for g in games]
    for r in ends:
        assert records.replay(without_id(r)).to_record() == without_id(r)
    assert len({r["id"] for r in ends}) == 100
    assert got["records"] == 50  # the store keeps the newest 50 (storage.KEEP)


def test_partners_game_through_the_device_equals_the_engine_PT8_PT16_PT19(harness, tmp_path):
    """The partners game to 100 worked out by hand (app_partners_game.GAME_100:
    seat swaps PT-8, doubled hands PT-16, P1 wins at 105 PT-19) entered
    through pins -> capture -> ring -> decoder -> app: the logged record is the
    stored one and the engine replays it to the same totals and winner."""
    import app_partners_game as pg
    got, lines = run_driver(harness, "device_game_partners", tmp_path, {})
    ends = [x["record"] for x in lines if x["ev"] == "game_end"]
    assert len(ends) == 1 and got["stored"] == ends
    rec = without_id(ends[0])
    g = records.replay(rec)
    assert g.totals == pg.TOTALS_100 and g.winners() == [0] and g.over
    assert g.to_record() == rec
    assert [(h["bid"], h["trump"], h["contractor"], h["partner"]) for h in rec["hands"]] == \
        [(b, t, c, p) for (b, t, c, p, tr) in pg.GAME_100]
    assert got["wrapped"] and got["dropped"] == 0 and got["saved"] is None
    assert not [x for x in lines if x["ev"] == "error"]


@pytest.mark.parametrize("seed", [1, 2])
def test_long_speed_run_through_the_device_equals_the_card_level_game_SR24_SR29(harness, tmp_path, seed):
    """A seeded card-level Long Speed Run game (engine/speedrun_cards), every
    hand entered through pins -> capture -> ring -> decoder -> app (who holds
    the first-player card, trump and ranking, reveals, trick winners,
    contracts), in 65wK + the harness allowance: the logged and stored
    record is exactly the card-level one."""
    import app_speedrun_game as G
    from speedrun_golden import play
    expected = play(seed, "long")[1]
    expected["players"] = ["P1", "P2", "P3"]
    path = tmp_path / "rec.jsonl"
    G.write_record(str(path), expected)
    got, lines = run_driver(harness, "device_game_speedrun", tmp_path, {"path": "{dir}/rec.jsonl"},
                            files={"rec.jsonl": path.read_text()})
    ends = [x["record"] for x in lines if x["ev"] == "game_end"]
    assert len(ends) == 1 and got["stored"] == ends
    assert without_id(ends[0]) == expected
    g = records.replay(expected)
    assert g.to_record() == expected
    assert len([x for x in lines if x["ev"] == "hand"]) == len(expected["hands"])
    assert got["wrapped"] and got["dropped"] == 0 and got["saved"] is None
    assert not [x for x in lines if x["ev"] == "error"]


def test_spit_game_through_the_device_equals_the_engine_SPIT3_SPIT11_SPIT14(harness, tmp_path):
    """app_spit_game.GAME (slaps by timestamp, one pile, blocked round, the
    win) through the device: the logged record is the stored one, the engine
    replays it unchanged, and the CPython app run of the same script (no
    device) gives the same record and slap verdicts."""
    import app_spit_game as G
    got, lines = run_driver(harness, "device_game_spit", tmp_path, {})
    ends = [x["record"] for x in lines if x["ev"] == "game_end"]
    assert len(ends) == 1 and got["stored"] == ends
    rec = without_id(ends[0])
    assert records.replay(rec).to_record() == rec
    cp = G.spit_game_report(str(tmp_path / "cp"))
    assert rec == without_id(cp["record"])
    assert [(s["winner"], s["margin_us"]) for s in lines if s["ev"] == "slap"] == \
        [(s["winner"], s["margin_us"]) for s in cp["slaps"]]
    assert got["wrapped"] and got["dropped"] == 0 and got["saved"] is None
    assert not [x for x in lines if x["ev"] == "error"]
