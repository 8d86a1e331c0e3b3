"""Figures from the emulated Pico (MicroPython v1.28.0's rp2 firmware in rp2040js,
125 MHz; docs/emulator.md).  A benchmark: it prints numbers, it asserts nothing.

    .venv/bin/python benchmarks/bench_board.py

- boot to menu: simulated time from power-up to the menu complete on the OLED model;
- a slap race (the committed Spit script's first round): from the second pad's edge to
  the verdict in the firmware's frame buffer (in CPU cycles and us: the script is
  played again and SRAM is searched for the verdict frame every 2 us after the edge),
  and to the verdict on the OLED, with the I2C bus time of that frame at 400 kHz;
- CPU: instructions the board ran per simulated second over each game, against the
  125 M cycles a second it has;
- emulation speed: simulated seconds per wall second.
"""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "firmware")]

from emu import images  # noqa: E402
from emu.board import NS_PER_US  # noqa: E402
from emu.referee import Referee  # noqa: E402
from sim import script  # noqa: E402


def sim_menu():
    from sim.board import Board
    b = Board()
    b.step()
    b.run_until(300000)
    frame = b.screen()
    b.close()
    return frame


def boot_to_menu():
    menu = sim_menu()
    ref = Referee()
    p = ref.pico
    done = [None]

    def on_i2c(ns, data):
        if done[0] is None and p.oled.frame == menu:
            done[0] = ns
    p.on_i2c = on_i2c
    ref.boot()
    while done[0] is None and p.ns < 3000000 * NS_PER_US:
        p.run_for(10000)
    ref.close()
    return done[0] / 1e6


def play(game, until_ms=None, watch=None):
    """Play the committed script of `game` on the emulated board.  With
    watch=(edge_index, frame): right after the press at stamps[edge_index],
    step 2 us at a time until SRAM holds `frame` (the firmware's frame buffer
    has the verdict drawn) and record (ns, cycles) of the edge and of then."""
    text = open(os.path.join(ROOT, "tests", "sim_scripts", game + ".txt")).read()
    events = script.parse(text)
    if until_ms is not None:
        events = [e for e in events if e[0] <= until_ms * 1000]
    ref = Referee()
    p = ref.pico
    writes = []
    p.on_i2c = lambda ns, data: writes.append((ns, len(data), p.oled.frame))
    ref.boot()
    ref.start_game(game)
    t0 = p.ns
    s0 = p.state()
    wall = time.monotonic()
    stamps = []
    seen = None
    for t_us, button, down, _ in events:
        p.run_until(max(p.ns, t0 + t_us * NS_PER_US))
        (ref.press if down else ref.release)(button)
        stamps.append((p.ns, button, down))
        if watch and len(stamps) - 1 == watch[0]:
            seen = _watch_ram(p, watch[1])
    p.run_until(t0 + (events[-1][0] + 2000000) * NS_PER_US)
    wall = time.monotonic() - wall
    s1 = p.state()
    ref.close()
    sim_s = (p.ns - t0) / 1e9
    return {"events": events, "stamps": stamps, "writes": writes, "lines": ref.lines,
            "instructions": s1["instructions"] - s0["instructions"], "sim_s": sim_s,
            "wall_s": wall, "seen": seen}


def _watch_ram(p, frame, step_us=2, limit_us=200000):
    at, c0 = p.ram_find(b"")  # the edge: now
    ns0 = p.ns
    while p.ns - ns0 < limit_us * NS_PER_US:
        p.run_for(step_us)
        at, c = p.ram_find(frame)
        if at >= 0:
            return (p.ns - ns0) / 1000.0, c - c0
    return None


def race_edge(run):
    """The index in run["stamps"] of the second pad's edge of the first slap
    race, or None."""
    downs = [i for i, s in enumerate(run["stamps"]) if s[2] and s[1] < 4]
    for a, b in zip(downs, downs[1:]):
        sa, sb = run["stamps"][a], run["stamps"][b]
        if sb[0] - sa[0] < 20000 * NS_PER_US and sa[1] != sb[1]:
            return b
    return None


def verdict_latency(run):
    """The second pad's edge of the first slap race -> the first OLED write after it
    that changes the screen: (edge to the end of that write, its bus time, its
    bytes, the frame it shows)."""
    downs = [s for s in run["stamps"] if s[2] and s[1] < 4]
    slap_t = [l for l in run["lines"] if l.get("ev") == "slap"]
    if not slap_t:
        return None
    # the race: two pad presses within 20 ms of each other
    for a, b in zip(downs, downs[1:]):
        if b[0] - a[0] < 20000 * NS_PER_US and a[1] != b[1]:
            edge = b[0]
            break
    else:
        return None
    before = None
    for ns, n, frame in run["writes"]:
        if ns <= edge:
            before = frame
            continue
        if frame != before:
            bus_us = n * 9 / 400000 * 1e6
            return (ns - edge) / 1000, bus_us, n, frame
    return None


def main():
    why = images.why_missing()
    if why:
        print("bench_board: skipped: %s" % why)
        return 0
    print("emulated Pico (rp2040js, MicroPython v1.28.0 RPI_PICO, 125 MHz)")
    print("  boot to menu on the OLED: %.0f ms of board time" % boot_to_menu())
    for game, until in (("spit", 12800), ("partners", None)):
        run = play(game, until)
        cpu = run["instructions"] / run["sim_s"]
        print("  %s%s: %.1f s of board time, %.1f M instructions/s of board time (%.0f %% of "
              "125 M cycles), emulated at %.2fx real time" % (
                  game, " (first round)" if until else " (a whole game)", run["sim_s"],
                  cpu / 1e6, 100 * cpu / 125e6, run["sim_s"] / run["wall_s"]))
        lat = verdict_latency(run)
        if lat and until:
            again = play(game, until, watch=(race_edge(run), lat[3]))
            if again["seen"]:
                us, cycles = again["seen"]
                print("    second slap's edge to the verdict in the frame buffer: %d cycles, "
                      "%.0f us (seen to 2 us)" % (cycles, us))
        if lat:
            print("    second slap's edge to the verdict on the OLED: %.1f ms (that frame: %d "
                  "bytes, %.1f ms on the 400 kHz bus)" % (lat[0] / 1000, lat[2], lat[1] / 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
