"""Run every benchmark and print its numbers (`make bench`).  Nothing here is a
test: figures vary by machine; the README quotes one run of this script.

    .venv/bin/python benchmarks/run_all.py [--quick]

--quick runs fewer games in the engine and table benchmarks.
"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def run(title, args):
    print("\n== %s ==" % title, flush=True)
    r = subprocess.run([PY] + args, cwd=ROOT)
    if r.returncode:
        print("(%s exited %d)" % (title, r.returncode), flush=True)
    return r.returncode


def main():
    quick = "--quick" in sys.argv[1:]
    games = "5" if quick else "20"
    table_games = "50" if quick else "1000"
    bad = 0
    bad |= run("engine: full games per second, heap", ["benchmarks/bench_engine.py", "--games", games])
    bad |= run("device: heap per game through the whole device", ["benchmarks/bench_heap.py"])
    bad |= run("device: pad edge to verdict, display bytes, .mpy size", ["benchmarks/bench_device.py"])
    bad |= run("Speed Run heap per hand", ["benchmarks/bench_speedrun_heap.py"])
    bad |= run("slap capture fairness (PIO / IRQ)", ["benchmarks/fairness.py"])
    bad |= run("web page: load, touch to verdict, heap (headless Chromium)", ["benchmarks/bench_web.py"])
    bad |= run("emulated Pico: boot, each moment players react to (lights, frame, OLED, flash), CPU per game, emulation speed", ["benchmarks/bench_board.py"])
    bad |= run("emulated Pico: a host flooding the USB console, board time a byte", ["benchmarks/bench_console_flood.py"])
    bad |= run("results page: build time and size, an evening to a season", ["benchmarks/bench_results_page.py"])
    bad |= run("results import: a USB capture of 1 to 100 MB, time and peak memory", ["benchmarks/bench_import.py"])
    bad |= run("tables on Wi-Fi: game end to database row, uplink heap (Mosquitto)", ["benchmarks/bench_uplink.py"])
    bad |= run("simulator speed", ["benchmarks/bench_sim.py"])
    bad |= run("computer-player table soak", ["benchmarks/table_soak.py", "--games", table_games])
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
