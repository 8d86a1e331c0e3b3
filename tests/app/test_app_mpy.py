"""The referee app under the real MicroPython Unix port: firmware compiled to
.mpy (`make mpy`), `-X heapsize=` mpyrun.DEVICE_HEAP (65wK), the same rig and scripts as the
CPython tests, and the results compared with CPython's."""
import json

import pytest

import mpyrun
from app_rig import speed_match_report, speed_opts

pytestmark = pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")

DEALS = [(0, 10), (1, 3), (0, 15)]


def run_mpy(tmp_path, body):
    """Run `body` under MicroPython with `root` (a fresh directory) and the
    rig imported; the last line printed must be one JSON object."""
    code = "import json, gc, os\nimport app_rig\nroot = %r\n%s" % (str(tmp_path), body)
    r = mpyrun.run(code=code, heap=mpyrun.DEVICE_HEAP)
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_complete_speed_match_same_record_as_engine_and_cpython_SP18_SP19(tmp_path):
    (tmp_path / "m").mkdir()
    got = run_mpy(tmp_path / "m", "print(json.dumps(app_rig.speed_match_report(root, %r)))" % (DEALS,))
    rec = dict(got["record"])
    assert rec.pop("id")
    rec.pop("table", None)
    assert rec == got["engine"]
    assert got["stored"] == got["record"]
    cp = speed_match_report(str(tmp_path), DEALS)
    rec_cp = dict(cp["record"])
    rec_cp.pop("id")
    rec_cp.pop("table", None)
    assert rec == rec_cp
    assert got["deal_lines"] == cp["deal_lines"]
    assert got["saved_game"] is None


def test_slap_to_win_match_under_micropython_SP17(tmp_path):
    deals = [(1, 0), (0, 5), (1, 2)]
    body = ("o = app_rig.speed_opts(slap_to_win=True, match='best_of')\n"
            "print(json.dumps(app_rig.speed_match_report(root, %r, o, 7300)))" % (deals,))
    got = run_mpy(tmp_path, body)
    assert [(s["winner"], s["margin_us"]) for s in got["slaps"]] == [(1, 7300), (0, 7300), (1, 7300)]
    cp = speed_match_report(str(tmp_path / "cp"), deals, speed_opts(slap_to_win=True, match="best_of"), 7300)
    assert got["slaps"] == cp["slaps"]


def test_resume_after_power_cut_under_micropython(tmp_path):
    body = """
from app_rig import Rig, play_deal, start_deal, reserve_flip
from speedref.app.core import OK
rig = Rig(root)
rig.app.start("speed", rig.t)
play_deal(rig, 0, 10); rig.tap(OK)
play_deal(rig, 1, 3); rig.tap(OK)
start_deal(rig); reserve_flip(rig)
rig.reboot()
boot = type(rig.app.screen).__name__
rig.tap(OK)
totals = list(rig.app.flow.match.totals)
play_deal(rig, 0, 15); rig.tap(OK)
print(json.dumps({"boot": boot, "totals": totals, "record": rig.log.of("game_end")[-1]["record"]}))
"""
    got = run_mpy(tmp_path, body)
    assert got["boot"] == "Boot" and got["totals"] == [10, 3]
    assert [(d["winner"], d["left"]) for d in got["record"]["deals"]] == DEALS


def test_false_start_and_undo_under_micropython_SP6(tmp_path):
    body = """
from app_rig import Rig, MS, enter_left
from speedref.app.core import OK, BACK, DOWN
rig = Rig(root)
rig.app.start("speed", rig.t, app_rig.speed_opts(match="single"))
rig.tap(OK); rig.tap(0); rig.tap(1); rig.wait(2000 * MS)
rig.press(0)
f = rig.app.flow
out = {"after_false": f.phase, "fs": list(f.false_starts)}
rig.release(0)
rig.wait(1000 * MS)
out["then"] = f.phase
rig.tap(0); rig.tap(1); rig.wait(3100 * MS)
rig.tap(1); rig.wait(600 * MS); rig.tap(0, 600 * MS)
rig.tap(BACK); rig.tap(DOWN); rig.tap(OK)
out["after_undo"] = f.phase
print(json.dumps(out))
"""
    from speedref.app import speed_flow as sf
    got = run_mpy(tmp_path, body)
    # SP-22: the false start calls the countdown off until its GO instant, then READY;
    # SP-16: P1 confirms P2's claim by holding its pad after the question; undo asks again
    assert got == {"after_false": sf.COUNT_DOWN, "fs": [1, 0], "then": sf.READY,
                   "after_undo": sf.CLAIM}


def test_pad_press_in_a_race_allocates_nothing(tmp_path):
    """The hot path: a pad press during play (slap-to-win race open) and a
    tick with nothing to do run inside micropython.heap_lock()."""
    body = """
import micropython
from app_rig import Rig, MS, start_deal
rig = Rig(root)
rig.app.start("speed", rig.t, app_rig.speed_opts(slap_to_win=True))
start_deal(rig)
app = rig.app
t = rig.t
app.tick(t)
gc.collect()
micropython.heap_lock()
try:
    app.press(0, t + 1000)
    app.press(1, t + 4000)
    app.tick(t + 4500)
    ok = True
except MemoryError:
    ok = False
micropython.heap_unlock()
print(json.dumps({"ok": ok, "racing": app.flow.racing}))
"""
    got = run_mpy(tmp_path, body)
    assert got == {"ok": True, "racing": True}


def test_heap_after_speed_matches_returns_to_start(tmp_path):
    """Eight matches in a row leave the heap where the first one left it
    (nothing accumulates per game); prints the peak for the record."""
    body = """
import micropython
from app_rig import Rig, play_match
rig = Rig(root)
sizes = []
for i in range(8):
    play_match(rig, [(0, 10), (1, 3), (0, 15)])
    rig.log.lines = []
    rig.sounds = []
    gc.collect()
    sizes.append(gc.mem_alloc())
print(json.dumps({"sizes": sizes, "peak": micropython.mem_peak() if hasattr(micropython, "mem_peak") else None}))
"""
    got = run_mpy(tmp_path, body)
    s = got["sizes"]
    print("heap after each match:", s, "peak:", got["peak"])
    assert max(s[1:]) - min(s[1:]) <= 512, s


def test_four_players_pad_presses_in_a_race_allocate_nothing_SP34(tmp_path):
    """Speed with 4 players (SP-27): every pad's press into the slap race
    (SP-34) and the ticks while it is judged run inside heap_lock(): the
    pads, the race and the phase handlers are made when the game starts."""
    body = """
import micropython
from app_rig import Rig, MS, start_deal
rig = Rig(root)
rig.app.start("speed", rig.t, app_rig.speed_opts(slap_to_win=True, seats=4))
start_deal(rig, 4)
app = rig.app
t = rig.t
app.tick(t)
gc.collect()
micropython.heap_lock()
try:
    for p in (3, 0, 2, 1):
        app.press(p, t + 1000 + 3000 * p)
        app.tick(t + 1500 + 3000 * p)
    ok = True
except MemoryError:
    ok = False
micropython.heap_unlock()
f = app.flow
print(json.dumps({"ok": ok, "racing": f.racing, "seats": f.seats, "down": [p.down for p in f.pads]}))
"""
    got = run_mpy(tmp_path, body)
    assert got == {"ok": True, "racing": True, "seats": 4, "down": [True] * 4}


def test_heap_after_four_player_matches_returns_to_start_SP27(tmp_path):
    """Four-player matches in a row (one count a loser each deal) leave the
    heap where the first one left it; prints the figures for the record."""
    body = """
import micropython
from app_rig import Rig, play_match, speed_opts
rig = Rig(root)
sizes = []
for i in range(4):
    play_match(rig, [(0, [0, 10, 3, 2]), (3, [1, 3, 15, 0]), (0, [0, 15, 9, 1])], speed_opts(seats=4))
    rig.log.lines = []
    rig.sounds = []
    gc.collect()
    sizes.append(gc.mem_alloc())
print(json.dumps({"sizes": sizes, "free": gc.mem_free()}))
"""
    got = run_mpy(tmp_path, body)
    s = got["sizes"]
    print("heap after each 4-player match:", s, "free:", got["free"])
    assert max(s[1:]) - min(s[1:]) <= 512, s
