"""benchmarks/fairness.py keeps running against the firmware's own PIO decoder
(it once broke silently when PioDecoder.feed gained its read time).  A few
hundred pairs, seeded: what it prints is checked, not how fast it runs."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_fairness_benchmark_runs_and_the_pio_path_is_exact():
    r = subprocess.run([sys.executable, "benchmarks/fairness.py", "--pairs", "300", "--seed", "6"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for section in ("1. Timestamp error", "2. Near-simultaneous", "3. Truly simultaneous", "4. Tie window"):
        assert section in out
    pio = [line.split() for line in out.splitlines() if line.strip().startswith("pio ")]
    # table 1: every PIO stamp within 1 us of the true press (the 1 us tick floor)
    assert all(abs(float(x)) <= 1.5 for x in pio[0][1:5])
    # table 3: truly simultaneous presses are always a tie on the PIO path
    assert "tie 100.0" in " ".join(pio[2])
