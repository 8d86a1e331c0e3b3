"""Soak: computer players at the virtual table, many games of each game that
has a table (sim/table), the referee app's verdicts checked against what
really happened.  Prints games, agreements, disagreements, ties inside the
tie window and games per second; exits 1 on any disagreement.

    .venv/bin/python benchmarks/table_soak.py                 # 1000 games of each
    .venv/bin/python benchmarks/table_soak.py --games 200 --seed 9 --game speed
    .venv/bin/python benchmarks/table_soak.py --no-lift        # see below

--no-lift: stuck players keep their hands on the pads through the flip
countdown.  By default they may lift them then (as people do), which is
how the table found a slap-to-win bug in speed_flow (since fixed, and
pinned by tests/sim/test_sim_table.py); --no-lift leaves that path out.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from sim.table import runner  # noqa: E402
from speedref import games as registry  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--game", choices=registry.IDS, action="append")
    p.add_argument("--no-lift", action="store_true")
    a = p.parse_args(argv)
    bad = 0
    for g in a.game or registry.IDS:
        kw = {"lift_early": False} if a.no_lift else {}
        s = runner.run(g, a.games, a.seed, out=sys.stdout, **kw)
        bad += s["disagreements"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
