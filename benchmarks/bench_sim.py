"""How fast the simulator runs the board's code headless (prints numbers;
not a test).  Plays the Speed match of tests/sim/test_sim_script.py through the
virtual board, as `speedref-sim --script` does.

    .venv/bin/python benchmarks/bench_sim.py
"""
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main():
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "sim")]
    from sim import compat
    compat.install()
    from test_sim_script import SpeedScript
    from sim import script
    from sim.board import Board

    s = SpeedScript()
    s.deal(0, 15)
    s.deal(1, 5, flips=1)
    s.deal(0, 12)
    events = script.parse(s.text())
    t0 = time.perf_counter()
    b = Board()
    passes = [0]
    step = b.step

    def counted_step():  # every pass of the device loop goes through Board.step
        passes[0] += 1
        step()
    b.step = counted_step
    b.step()
    b.start_game("speed")
    for t, button, down, _ in events:
        b.event(t, button, down)
    b.run_until(events[-1][0] + 2000000)
    wall = time.perf_counter() - t0
    sim_s = b.clock.elapsed_us / 1e6
    print("Speed match, %d events: %.1f s simulated in %.3f s wall (%.0fx real time); "
          "%d device loop passes (one per simulated ms and per event), %.0f per wall second"
          % (len(events), sim_s, wall, sim_s / wall, passes[0], passes[0] / wall))
    print("OLED: %d updates, %d bytes on the virtual I2C bus (%.0f per update)"
          % (b.oled.updates, b.oled.bytes_received, b.oled.bytes_received / max(1, b.oled.updates)))
    print("log lines: %d, records stored: %d" % (len(b.lines), len(b.records())))
    b.close()


if __name__ == "__main__":
    main()
