"""pyflakes' checks over the whole tree (ruff, pinned in requirements-dev.txt;
the rules are chosen in pyproject.toml): no unused import or variable, no
undefined name, in the firmware, the tools, the simulator, the bench and the tests."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = ["firmware", "host_tools", "sim", "emu", "web", "tests", "benchmarks"]


def test_the_tree_passes_the_linter():
    ruff = Path(sys.executable).parent / "ruff"
    r = subprocess.run([str(ruff), "check", "--output-format", "concise", *TREES],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
