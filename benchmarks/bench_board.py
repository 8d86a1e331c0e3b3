"""Figures from the emulated Pico (MicroPython v1.28.0's rp2 firmware in rp2040js,
125 MHz; docs/emulator.md).  A benchmark: it prints numbers, it asserts nothing.

    .venv/bin/python benchmarks/bench_board.py [--frozen]

- boot to menu: simulated time from power-up to the menu complete on the OLED model;
- every moment players react to, from its deciding instant (a pad's edge, or the
  instant a GO was due): the pad lights set (the pin write), the new screen in the
  firmware's frame buffer (the script is played again and SRAM is searched for the
  frame every 2 us from that instant), the first rows the display sent (the news:
  a verdict's line, a false start's note) on the OLED, the whole screen on the
  OLED (400 kHz I2C), the tone started, and when the flash first held the CPU
  after it (a save);
- every board the bench starts has the same ROSC seed (SPEEDREF_EMU_ROSC_SEED,
  default 1), so both plays of a script are the same run, instant for instant;
- CPU: instructions the board ran per simulated second over each game, against the
  125 M cycles a second it has;
- emulation speed: simulated seconds per wall second.

The moments: Speed's start GO, a false start in its countdown, a reserve flip's GO
and a slap to win (tests/sim_scripts/speed.txt and a slap-to-win deal below);
Spit's start GO, a false start, "Spit again"'s GO and the slap for the smaller
pile (tests/sim_scripts/spit.txt); the two slaps again with named players,
accented letters among them, and a partners trick won with four of them
(tests/sim_scripts/partners.txt).  A GO's instant is the one the rules set: 3 s
after the press that made both ready (as the PIO stamps it, a few us before the
host's edge), or 3 s after the instant both pads had been held 0.5 s (stuck).
"""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "firmware")]

from emu import images  # noqa: E402
from emu.board import NS_PER_US, CYCLES_PER_US  # noqa: E402
from emu.referee import Referee  # noqa: E402
from emu.trace import Moment  # noqa: E402
from sim import script  # noqa: E402

MS = 1000
# A Speed deal with slap to win (SP-17): ready, 3-2-1-GO, then P2 slaps and P1
# 3.2 ms later; the verdict waits until both pads are up (the later release).
SPEED_SLAP = """
500 ok down
560 ok up
620 p1 down
680 p1 up
740 p2 down
800 p2 up
5000 p2 down
5003.200 p1 down
5060 p1 up
5061 p2 up
"""

# Four names with accented letters (drawn from app/glyphs.py), as long as a
# screen's cut shows them.
NAMED = ["Zo\u00eb", "\u0141ukasz", "Jos\u00e9", "\u00d0\u00f3ra"]

# (label, game, script text or committed script name, its options, until ms,
#  [(moment, how its instant is found)]): ("edge", i) is the i-th event's
# edge; ("go", i) 3 s after the i-th event; ("stuck", i) 3.5 s after it (the
# i-th event is the second pad held into a stuck call).
SCENARIOS = [
    ("speed", "speed", None, {}, 11200, [
        ("Speed: false start", ("edge", 6)),
        ("Speed: start GO", ("go", 10)),
        ("Speed: reserve flip GO", ("stuck", 13)),
    ]),
    ("speed slap", "speed", SPEED_SLAP, {"slap_to_win": True}, 5100, [
        ("Speed: slap to win", ("edge", 9)),
    ]),
    ("spit", "spit", None, {}, 12800, [
        ("Spit: false start", ("edge", 6)),
        ("Spit: start GO", ("go", 10)),
        ("Spit: Spit again GO", ("stuck", 13)),
        ("Spit: slap for the smaller pile", ("edge", 19)),
    ]),
    # the same moments with named players, accented letters among them
    # (Speed and Spit show the pads' labels in play: what names cost there is
    # what every string's drawing pays to look for an accented letter)
    ("speed slap named", "speed", SPEED_SLAP, {"slap_to_win": True, "names": NAMED[:2]}, 5100, [
        ("Speed: slap to win, named", ("edge", 9)),
    ]),
    ("spit named", "spit", None, {"names": NAMED[:2]}, 12800, [
        ("Spit: slap for the smaller pile, named", ("edge", 19)),
    ]),
    # partners draws the names: the second trick's press (PT-13) redraws the
    # grid of four names and counts
    ("partners named", "partners", None, {"names": NAMED}, 1000, [
        ("partners: a trick won, named", ("edge", 22)),
    ]),
]


def sim_menu():
    from sim.board import Board
    b = Board()
    b.step()
    b.run_until(300000)
    frame = b.screen()
    b.close()
    return frame


def boot_to_menu(frozen):
    menu = sim_menu()
    ref = Referee(frozen=frozen)
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


def events_of(game, text, until_ms):
    if text is None:
        text = open(os.path.join(ROOT, "tests", "sim_scripts", game + ".txt")).read()
    events = script.parse(text)
    return [e for e in events if until_ms is None or e[0] <= until_ms * 1000]


def instant(stamps, how):
    kind, i = how
    ns = stamps[i]
    if kind == "go":
        return ns + 3000000 * NS_PER_US
    if kind == "stuck":
        return ns + 3500000 * NS_PER_US
    return ns


def play(game, events, options, frozen, trace=False, watch=None):
    """Play `events` on the emulated board.  watch: {instant ns: frame}: from
    that instant step 2 us at a time until SRAM holds the frame, and note
    (us, cycles) it took."""
    ref = Referee(frozen=frozen, trace=trace)
    p = ref.pico
    ref.boot()
    ref.start_game(game, **options)
    t0 = p.ns
    s0 = p.state()
    wall = time.monotonic()
    stamps = []
    seen = {}
    todo = sorted((watch or {}).items())
    for t_us, button, down, _ in events:
        at = t0 + t_us * NS_PER_US
        while todo and todo[0][0] < at:  # a GO due before this event
            ns, frame = todo.pop(0)
            p.run_until(max(p.ns, ns))
            seen[ns] = _watch_ram(p, frame)
        p.run_until(max(p.ns, at))
        (ref.press if down else ref.release)(button)
        stamps.append(p.ns)
        while todo and todo[0][0] <= p.ns:  # an edge's own moment: watched from the edge
            ns, frame = todo.pop(0)
            seen[ns] = _watch_ram(p, frame)
    for ns, frame in todo:
        p.run_until(max(p.ns, ns))
        seen[ns] = _watch_ram(p, frame)
    p.run_until(max(p.ns, t0 + (events[-1][0] + 1000000) * NS_PER_US))
    wall = time.monotonic() - wall
    s1 = p.state()
    ref.close()
    sim_s = (p.ns - t0) / 1e9
    return {"stamps": stamps, "pico": p, "seen": seen, "sim_s": sim_s, "wall_s": wall,
            "instructions": s1["instructions"] - s0["instructions"]}


def _watch_ram(p, frame, step_us=2, limit_us=100000):
    at, c0 = p.ram_find(frame)
    if at >= 0:
        print("    (a frame was in SRAM before its moment: not timed)")
        return None
    ns0 = p.ns
    while p.ns - ns0 < limit_us * NS_PER_US:
        p.run_for(step_us)
        at, c = p.ram_find(frame)
        if at >= 0:
            return (p.ns - ns0) / 1000.0, c - c0
    print("    (a frame never appeared in SRAM: not timed)")
    return None


def ms(ns, since):
    return "-" if ns is None else "%.1f" % ((ns - since) / 1e6)


def moments(frozen):
    rows = []
    for label, game, text, options, until, kinds in SCENARIOS:
        events = events_of(game, text, until)
        run = play(game, events, options, frozen, trace=True)
        p = run["pico"]
        found = []
        for name, how in kinds:
            t = instant(run["stamps"], how)
            m = Moment(p.trace, t, t + 400000 * NS_PER_US)
            tone = next((x.start_ns for x in p.tones if t <= x.start_ns < t + 400000 * NS_PER_US), None)
            found.append((name, how, t, m, tone))
        # again, to see each new frame arrive in the frame buffer
        again = play(game, events, options, frozen,
                     watch={instant(run["stamps"], how): m.frame for _, how, _, m, _ in found})
        for name, how, t, m, tone in found:
            fb = again["seen"].get(t)  # the emulator is deterministic: the same instants
            rows.append((name, t, m, tone, fb))
    return rows


def report(rows):
    print("  from the deciding instant, in ms of board time (400 kHz I2C):")
    print("    %-33s %7s %10s %18s %11s %6s %11s" % (
        "moment", "lights", "frame buf", "first rows on OLED", "whole OLED", "tone",
        "flash after"))
    for name, t, m, tone, fb in rows:
        lights = "-" if m.lights is None else ms(m.lights[0], t)
        if m.lights is not None and (m.lights[0] - t) > 50 * MS * NS_PER_US:
            lights = "-"
        fbuf = "-" if fb is None else "%.2f" % (fb[0] / 1000)
        first = "-" if m.first_ns is None else "%s (pages %d-%d)" % (
            ms(m.first_ns, t), m.first_pages[0], m.first_pages[1])
        flash = "-" if m.flash is None else ms(m.flash[0], t)
        print("    %-33s %7s %10s %18s %11s %6s %11s" % (
            name, lights, fbuf, first, ms(m.frame_ns, t), ms(tone, t), flash))
    print("    (frame buffer in cycles: %s)" % ", ".join(
        "%s %d" % (name.split(": ")[1], fb[1]) for name, t, m, tone, fb in rows if fb))


def cpu(frozen):
    for game, until in (("spit", 12800), ("partners", None)):
        run = play(game, events_of(game, None, until), {}, frozen)
        c = run["instructions"] / run["sim_s"]
        print("  %s%s: %.1f s of board time, %.1f M instructions/s of board time (%.0f %% of "
              "125 M cycles), emulated at %.2fx real time" % (
                  game, " (first round)" if until else " (a whole game)", run["sim_s"],
                  c / 1e6, 100 * c / (CYCLES_PER_US * 1e6), run["sim_s"] / run["wall_s"]))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # Each script is played twice (once traced, once to watch SRAM): they must
    # be the same run.  The ROSC's random bits differ at every power-up, and
    # with them the install id the store draws at its first start, the heap
    # and every instant after it: unseeded, the second play never held the
    # first play's frame.  One seed for every board the bench starts.
    os.environ.setdefault("SPEEDREF_EMU_ROSC_SEED", "1")
    frozen = "--frozen" in argv
    why = images.why_missing()
    if why:
        print("bench_board: skipped: %s" % why)
        return 0
    print("emulated Pico (rp2040js, MicroPython v1.28.0 RPI_PICO, 125 MHz), speedref %s" % (
        "frozen in (speedref-pico.uf2)" if frozen else "installed as .mpy (speedref-flash)"))
    print("  boot to menu on the OLED: %.0f ms of board time" % boot_to_menu(frozen))
    report(moments(frozen))
    cpu(frozen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
