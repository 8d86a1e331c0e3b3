"""A club night's rounds: how long pairing.pair_round takes to make one
round, for clubs of 12 to 100 players, after four rounds already played
(every earlier meeting to avoid, points spread, byes to rotate).

    .venv/bin/python benchmarks/bench_pairing.py

Pairs: networkx's max_weight_matching over every pair of players (and the
byes); threes and fours: the search in standing order.  Each size is timed
over a few evenings (seeds), the median and the slowest printed.  The
organiser waits this long after `speedref-club pair` (plus reading the
database: the standings and ratings of every stored game)."""
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from host_tools.club import pairing  # noqa: E402


def evening(n, size, rounds, seed):
    """Players after `rounds` rounds of groups of `size`, winners at random."""
    r = random.Random(seed)
    ps = [pairing.Player("p%d" % i, 0, r.uniform(-5, 30), 0, 0, "%06d" % r.randrange(10 ** 6)) for i in range(n)]
    history = []
    for _ in range(rounds):
        made = pairing.pair_round(ps, size, n, pairing.meetings(history))
        history += made.groups
        won = set(r.choice(g) for g in made.groups) | set(made.byes)
        ps = [p._replace(points=p.points + (p.key in won), byes=p.byes + (p.key in made.byes)) for p in ps]
    return ps, pairing.meetings(history)


def main():
    print("players  seats  median ms  slowest ms   (the fifth round, after four)")
    for size in (2, 3, 4):
        for n in (12, 24, 48, 100):
            times = []
            for seed in range(5):
                ps, met = evening(n, size, 4, seed)
                t = time.perf_counter()
                made = pairing.pair_round(ps, size, n, met)
                times.append((time.perf_counter() - t) * 1000)
                assert len(made.groups) == n // size
            print("%7d  %5d  %9.1f  %10.1f" % (n, size, statistics.median(times), max(times)))


if __name__ == "__main__":
    main()
