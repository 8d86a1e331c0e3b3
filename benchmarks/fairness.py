"""Fairness of slap capture: how each capture path times two pads pressed close together.

Run:  .venv/bin/python benchmarks/fairness.py [--pairs N] [--seed S]

A benchmark script, not a test: it prints numbers (fixed seed, so they reproduce) that
docs/timing.md quotes.  Pad A is the lower GPIO (served first by an interrupt
controller), pad B the higher.  Every press is a pair: A at a random instant, B at A + d.

Paths modelled (latencies from published MicroPython measurements: MicroPython's
"Writing interrupt handlers" docs and micropython/micropython#6957; docs/timing.md
describes each model):
  pio        rp2 PIO sampler (hw/pio_capture.py): pads read together every 17 cycles at
             125 MHz (136 ns); the words are turned into times by the firmware's own
             PioDecoder (floored to 1 us ticks).  One sample seeing both pads = a tie.
  rp2-irq    rp2 hard IRQ, snapshot design (hw/capture.py): entry 20-25 us, 3% of entries
             25-100 us (micropython/micropython#6957); ticks read first (+1 us), then the whole
             GPIO register (+3 us): every pad already down is in that snapshot (a tie);
             handlers are serialised, so a pad pressed during a handler waits for it.
  esp32-irq  ESP32 soft (scheduled) IRQ, same snapshot design, latency 50-200 us
             (70%), 0.2-2 ms (25%), 2-5 ms (5%, main loop busy, e.g. an OLED write).
  rp2-pin / esp32-pin
             the same interrupts WITHOUT the register snapshot (each pin's handler stamps
             only its own pin): what "the pad served first wins" looks like.
"""
import argparse
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))

from speedref.hw import pio_capture as pc  # noqa: E402
from speedref.hw.ring import EventRing  # noqa: E402

CPU_MHZ = 125  # RP2040 default system clock
PERIODS = (100, 1000, 5000)
WINDOWS = (0, 10, 100, 1000, 5000, 10000)  # tie windows tried (us)  # "near-simultaneous": |d| within 0.1, 1, 5 ms


# --- latency models (microseconds) --------------------------------------------------
# An interrupt is two delays: the edge -> the C-level GPIO handler, which takes the set
# of pins pending at that moment and serves them in GPIO order; then, per pin, the C
# handler -> the first line of the Python handler.

def rp2_dispatch(rng):
    if rng.random() < 0.03:  # another interrupt or a critical section in the way
        return rng.uniform(5, 75)
    return rng.uniform(0.5, 2)


def rp2_entry(rng):  # hard IRQ: 20-25 us from edge to handler in all
    return rng.uniform(19, 23)


def rp2_body(rng):  # read ticks, read the register, loop over 8 buttons, put
    return rng.uniform(30, 60)


def esp32_dispatch(rng):  # the C ISR that schedules the callback
    return rng.uniform(1, 5)


def esp32_entry(rng):  # scheduled: runs when the main loop next checks
    r = rng.random()
    if r < 0.70:
        return rng.uniform(50, 200)
    if r < 0.95:
        return rng.uniform(200, 2000)
    return rng.uniform(2000, 5000)


def esp32_body(rng):
    return rng.uniform(60, 150)


# --- capture paths: (tA, tB) true press times (us) -> (stamp A, stamp B) -------------

def pio_path(rng, ta, tb):
    """The firmware's PioDecoder on the words the PIO program pushes (exact model of
    the program: sample k reads the pads at cycle START_CYCLES + LOOP_CYCLES k).  The state
    machine started `base` us before the first press (a random grid phase)."""
    base = 1000 + rng.uniform(0, 1)
    first = min(ta, tb)
    ring = EventRing(8)
    dec = pc.PioDecoder(ring, 2, CPU_MHZ)
    dec.anchor(0)
    read_us = 25  # the state machine's hard interrupt reads a word this long after its push

    def sample_us(k):  # when sample k is taken, on the decoder's clock
        return (pc.START_CYCLES + k * pc.LOOP_CYCLES) / CPU_MHZ

    dec.feed(pc.COUNT_MASK | 0b11 << pc.COUNT_BITS, read_us)  # the start word: both pads up

    def k_of(t_us):
        cycles = (t_us - first + base) * CPU_MHZ
        return -int(-(cycles - pc.START_CYCLES) // pc.LOOP_CYCLES)

    ka, kb = k_of(ta), k_of(tb)
    raw = 0b11
    for k in sorted({ka, kb}):
        new = raw
        if k == ka:
            new &= ~0b01
        if k == kb:
            new &= ~0b10
        dec.feed(((pc.COUNT_MASK - k) & pc.COUNT_MASK) | new << pc.COUNT_BITS,
                 int(sample_us(k)) + read_us)
        raw = new
    ts, ms = [0] * 4, [0] * 4
    n = ring.drain(ts, ms)
    stamps = [None, None]
    for i in range(n):
        for pad in (0, 1):
            if ms[i] >> pad & 1 and stamps[pad] is None:
                stamps[pad] = ts[i] - base + first  # back to the true time axis
    return stamps[0], stamps[1]


def irq_path(rng, ta, tb, dispatch, entry, body, snapshot):
    """Interrupts, one handler at a time.  A dispatch serves every pin pending at that
    moment in GPIO order (pad A first).  snapshot=True: the first handler reads ticks
    (+1 us) then the whole GPIO register (+3 us) and stamps every pad already down with
    that one time (hw/capture.py); False: each handler stamps only its own pin."""
    press = (ta, tb)
    stamps = [None, None]
    free_at = -1e18  # the CPU is in a handler until then
    while stamps[0] is None or stamps[1] is None:
        t_edge = min(press[p] for p in (0, 1) if stamps[p] is None)
        s = max(t_edge + dispatch(rng), free_at)
        pending = [p for p in (0, 1) if stamps[p] is None and press[p] <= s]
        t = s
        for p in pending:
            if stamps[p] is not None:
                continue  # taken by an earlier snapshot in this dispatch
            t += entry(rng)
            if snapshot:
                for q in (0, 1):
                    if stamps[q] is None and press[q] <= t + 3:
                        stamps[q] = t + 1
            else:
                stamps[p] = t + 1
            t += body(rng)
        free_at = t
    return stamps[0], stamps[1]


PATHS = {
    "pio": pio_path,
    "rp2-irq": lambda r, a, b: irq_path(r, a, b, rp2_dispatch, rp2_entry, rp2_body, True),
    "esp32-irq": lambda r, a, b: irq_path(r, a, b, esp32_dispatch, esp32_entry, esp32_body, True),
    "rp2-pin": lambda r, a, b: irq_path(r, a, b, rp2_dispatch, rp2_entry, rp2_body, False),
    "esp32-pin": lambda r, a, b: irq_path(r, a, b, esp32_dispatch, esp32_entry, esp32_body, False),
}


def verdict(sa, sb, window_us=0):
    """'A', 'B' or 'tie', the arbiter's rule: equal stamps (one snapshot) or stamps
    within the tie window are a tie."""
    gap = sb - sa
    if abs(gap) <= window_us:
        return "tie"
    return "A" if gap > 0 else "B"


def pct(x, n):
    return 100.0 * x / n


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def run(pairs, seed):
    out = {}
    for name, path in PATHS.items():
        rng = random.Random(seed)  # the same presses for every path
        res = {"errors": [], "margin_err": [], "near": {}}
        # 1. presses at random offsets up to 5 ms: timestamp error and margin error
        for _ in range(pairs):
            ta = rng.uniform(0, 1e6)
            d = rng.uniform(-5000, 5000)
            tb = ta + d
            sa, sb = path(rng, ta, tb)
            res["errors"] += [sa - ta, sb - tb]
            res["margin_err"].append(abs((sb - sa) - d))
        # 2. near-simultaneous presses: decided wrongly / tied at a 0 tie window
        for span in PERIODS:
            wrong = tie = 0
            for _ in range(pairs):
                ta = rng.uniform(0, 1e6)
                d = rng.uniform(-span, span)
                if d == 0:
                    continue
                v = verdict(*path(rng, ta, ta + d))
                if v == "tie":
                    tie += 1
                elif (v == "A") != (d > 0):
                    wrong += 1
            res["near"][span] = (pct(wrong, pairs), pct(tie, pairs))
        # 3. truly simultaneous presses: who wins?
        wins = {"A": 0, "B": 0, "tie": 0}
        for _ in range(pairs):
            ta = rng.uniform(0, 1e6)
            wins[verdict(*path(rng, ta, ta))] += 1
        res["same"] = wins
        # 4. tie windows: the same +-5 ms presses judged with each window
        trials = []
        for _ in range(pairs):
            ta = rng.uniform(0, 1e6)
            d = rng.uniform(-5000, 5000)
            trials.append((d, path(rng, ta, ta + d)))
        res["windows"] = {}
        for w in WINDOWS:
            wrong = tie = 0
            for d, (sa, sb) in trials:
                v = verdict(sa, sb, w)
                if v == "tie":
                    tie += 1
                elif (v == "A") != (d > 0):
                    wrong += 1
            res["windows"][w] = (pct(wrong, pairs), pct(tie, pairs))
        out[name] = res
    return out


def report(out, pairs, seed):
    print("Slap capture fairness: %d pairs per case, seed %d, RP2040 at %d MHz" % (pairs, seed, CPU_MHZ))
    print()
    print("1. Timestamp error, stamp - true press (us), pads pressed up to 5 ms apart")
    print("   %-10s %9s %9s %9s %9s | margin error |shown - true| (us): %s" % (
        "path", "median", "p99", "max", "min", "p50 / p99 / max"))
    for name, r in out.items():
        e, m = r["errors"], r["margin_err"]
        print("   %-10s %9.1f %9.1f %9.1f %9.1f |  %8.1f / %8.1f / %8.1f" % (
            name, statistics.median(e), quantile(e, 0.99), max(e), min(e),
            statistics.median(m), quantile(m, 0.99), max(m)))
    print()
    print("2. Near-simultaneous presses (B at A + d, d uniform in +-span, tie window 0):")
    print("   % decided wrongly (the later pad wins) / % declared a tie")
    print("   %-10s" % "path" + "".join("   within %-5s" % ("%g ms" % (s / 1000)) for s in PERIODS))
    for name, r in out.items():
        print("   %-10s" % name + "".join("  %5.2f / %5.2f" % r["near"][s] for s in PERIODS))
    print()
    print("3. Truly simultaneous presses (d = 0): pad A (lower GPIO) / pad B / tie, %")
    for name, r in out.items():
        w = r["same"]
        n = sum(w.values())
        # a tie is broken by the rules, not by the board: count it half each
        print("   %-10s A %5.1f  B %5.1f  tie %5.1f   -> win share A %5.1f%% B %5.1f%%" % (
            name, pct(w["A"], n), pct(w["B"], n), pct(w["tie"], n),
            pct(w["A"] + w["tie"] / 2, n), pct(w["B"] + w["tie"] / 2, n)))


def report_windows(out):
    print()
    print("4. Tie window: presses up to 5 ms apart, % decided wrongly / % declared a tie")
    print("   %-10s" % "path" + "".join("  %11s" % ("%g ms" % (w / 1000)) for w in WINDOWS)
          + "   suggested")
    for name, r in out.items():
        p99 = quantile(r["margin_err"], 0.99)
        # the smallest window with no wrong verdict that also covers the p99 margin error
        ok = [w for w in WINDOWS if r["windows"][w][0] == 0 and w >= p99]
        print("   %-10s" % name + "".join("  %5.2f/%5.2f" % r["windows"][w] for w in WINDOWS)
              + "   %s" % ("%g ms" % (ok[0] / 1000) if ok else "none"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=6)
    a = ap.parse_args(argv)
    out = run(a.pairs, a.seed)
    report(out, a.pairs, a.seed)
    report_windows(out)


if __name__ == "__main__":
    main()
