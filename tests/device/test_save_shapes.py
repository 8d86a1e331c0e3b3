"""A save with a good CRC but the wrong shape never crashes the boot or the
resume (every game).

The saves a real game makes (each game's committed script played in the
simulator, every save it wrote) are mutated: a key deleted, a value replaced
by another type or a value out of range, a list grown or emptied, JSON nested
deep.  Each one is written as an intact file (its CRC matches) and the app
boots on it, as after a power cut.  Then, if it is offered ("Resume game?"),
OK resumes it and every button is pressed, time goes by and the pause menu's
undo is used again and again.  Nothing may raise.  A save the app will not
resume is set aside (game.json.bad, as a damaged file is) with a message on
the boot screen; a save it offers resumes.

Property-tested with hypothesis on CPython; the same mutations, drawn with a
seeded random, run on the MicroPython Unix port too.
"""
import copy
import json
import os
import random
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mpyrun
from mpyhelp import ROOT

GAMES = ("speed", "spit", "speedrun", "partners")
DEEP = json.loads("[" * 60 + "]" * 60)
WEIRD = [None, True, False, 0, -1, 1, 2, 3, 13, 99, 2 ** 31, -2 ** 40, 1.5, -0.5, "", "x", "0",
         "01", "FRX01E", "ZZ", "W4", "REDO:W4", "spades", "auto", [], [0], [0, 1], [1, 0, 0],
         [[0, 1]], [["S01a", 20, 32]], ["W4", "PASS", "MIDDLE"], {}, {"a": 1}, DEEP]


def valid_saves(game):
    """Every save the simulator wrote while playing the game's script."""
    from sim import script
    from sim.board import Board
    events = script.parse((ROOT / "tests" / "sim_scripts" / ("%s.txt" % game)).read_text())
    b = Board()
    saves = []
    real = b.store.save_game

    def spy(d):
        saves.append(json.loads(json.dumps(d)))
        real(d)

    b.store.save_game = spy
    try:
        b.step()
        b.start_game(game)
        for t_us, button, down, _ in events:
            b.event(t_us, button, down)
    finally:
        b.close()
    out = []
    for s in saves:
        if s not in out:
            out.append(s)
    return out


SAVES = {}


def saves_of(game):
    if game not in SAVES:
        SAVES[game] = valid_saves(game)
    return SAVES[game]


def paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k in sorted(obj):
            yield from paths(obj[k], prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths(v, prefix + (i,))


def mutate(save, choose):
    """A copy of save with 1 to 3 changes; choose(seq) picks one element."""
    obj = copy.deepcopy(save)
    for _ in range(choose([1, 1, 2, 3])):
        where = choose(list(paths(obj))[1:])
        parent = obj
        for k in where[:-1]:
            parent = parent[k]
        key = where[-1]
        op = choose(["replace", "replace", "delete", "grow", "shrink"])
        value = parent[key]
        if op == "delete":
            del parent[key]
        elif op == "grow" and isinstance(value, list):
            value.append(copy.deepcopy(choose(value) if value and choose([0, 1]) else choose(WEIRD)))
        elif op == "grow" and isinstance(value, dict):
            value[choose(["x", "seq", "state", "opts", "v"])] = copy.deepcopy(choose(WEIRD))
        elif op == "shrink" and isinstance(value, (list, str)) and value:
            parent[key] = value[:-1]
        else:
            parent[key] = copy.deepcopy(choose(WEIRD))
    return obj


def boot_and_play(save):
    """Boot the app on `save` (an intact file), resume it if offered, play on.
    Returns (offered, resumed, the boot screen's problem, the files once
    the boot is over)."""
    from app_rig import Rig
    from speedref import storage
    with tempfile.TemporaryDirectory(prefix="speedref-shape-") as root:
        storage.write_file(os.path.join(root, "game.json"), save)
        rig = Rig(root)
        boot = rig.app.screen
        offered = getattr(boot, "saved", None) is not None
        problem = getattr(boot, "problem", None)
        rig.tap(6)  # OK: resume (or the menu)
        resumed = rig.app.flow is not None
        files = sorted(os.listdir(root))  # before the pokes, which may start a game of their own
        poke(rig.app, rig.t)
        return offered, resumed, problem, files


POKE = """
def poke(app, t):
    # every button, time going by (holds, countdowns), the pause menu's Undo
    # again and again (or Abandon, asked twice); a few ticks a tap
    from speedref.ticks import ticks_add
    def tap(b, t):
        app.press(b, t)
        t = ticks_add(t, 60000)
        app.tick(t)
        app.release(b, t)
        t = ticks_add(t, 60000)
        app.tick(t)
        return t
    for _ in range(2):
        for b in (0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3):
            t = tap(b, t)
        app.press(0, t)
        for _ in range(15):  # 1.5 s: a hold (stuck, a reveal)
            t = ticks_add(t, 100000)
            app.tick(t)
        app.release(0, t)
        for _ in range(40):  # 4 s: countdowns run out
            t = ticks_add(t, 100000)
            app.tick(t)
        for _ in range(4):
            for b in (7, 5, 6, 6):
                t = tap(b, t)
        while app.pop_sound() is not None:
            pass
    return t
"""
_POKE = {}
exec(POKE, _POKE)  # the same code the MicroPython driver runs
poke = _POKE["poke"]


def check(save):
    offered, resumed, problem, files = boot_and_play(save)
    if offered:
        assert resumed, "offered, then it could not start"
    elif isinstance(save, dict) and save.get("game") in GAMES:
        assert "game.json" not in files, "neither offered nor set aside"
        assert problem, "set aside without a word"


@pytest.mark.parametrize("game", GAMES)
def test_every_valid_save_is_offered_and_resumes(game):
    saves = saves_of(game)
    assert len(saves) >= 3
    for s in saves:
        offered, resumed, problem, _ = boot_and_play(s)
        assert offered and resumed and not problem, s


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_mutated_save_never_crashes_the_boot_or_the_resume(game, data):
    base = data.draw(st.sampled_from(saves_of(game)))
    check(mutate(base, lambda seq: data.draw(st.sampled_from(seq))))


MPY_DRIVER = r'''
import json, os, sys
sys.path.insert(0, "tests/mpy")
from app_rig import Rig
from speedref import storage
''' + POKE + r'''
with open(CASES) as f:
    cases = json.load(f)
bad = []
for i, save in enumerate(cases):
    root = BASE + "/c%d" % i
    os.mkdir(root)
    storage.write_file(root + "/game.json", save)
    try:
        rig = Rig(root)
        offered = getattr(rig.app.screen, "saved", None) is not None
        rig.tap(6)
        if offered and rig.app.flow is None:
            bad.append([i, "offered, then it could not start"])
        poke(rig.app, rig.t)
    except Exception as e:
        bad.append([i, repr(e)])
print(json.dumps(bad))
'''


def test_mutated_saves_never_crash_under_micropython(tmp_path):
    rng = random.Random(19)
    cases = []
    for game in GAMES:
        for _ in range(40):
            cases.append(mutate(rng.choice(saves_of(game)), rng.choice))
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    (tmp_path / "roots").mkdir()
    code = "CASES = %r\nBASE = %r\n" % (str(path), str(tmp_path / "roots")) + MPY_DRIVER
    r = mpyrun.run(code=code, use_mpy=True, heap="2048wK", timeout=1200)
    bad = json.loads(r.stdout.strip().splitlines()[-1])
    assert not bad, [(cases[i], why) for i, why in bad[:3]]
