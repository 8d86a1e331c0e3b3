"""pyflakes' checks over the whole tree (ruff, pinned in requirements-dev.txt;
the rules are chosen in pyproject.toml): no unused import or variable, no
undefined name, in the firmware, the tools, the simulator, the bench and the tests."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = ["firmware", "host_tools", "sim", "emu", "web", "tests", "benchmarks", "tools"]


def test_the_tree_passes_the_linter():
    ruff = Path(sys.executable).parent / "ruff"
    r = subprocess.run([str(ruff), "check", "--output-format", "concise", *TREES],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


WORK_REFS = re.compile(r"\bissues?\s*#?\d|\bthe issue (asks|says|wants)", re.IGNORECASE)


def test_code_and_docs_speak_of_the_code_not_the_work():
    """Comments, names and docs describe the product and the rules: no
    references to the tracker's work items."""
    found = []
    files = [ROOT / "README.md", ROOT / "Makefile"]
    for tree in TREES + ["docs", "seeds"]:
        files += [p for p in (ROOT / tree).rglob("*") if p.suffix in (".py", ".md", ".mjs", ".js", ".html", ".txt")]
    for p in files:
        if "node_modules" in p.parts or not p.is_file():
            continue
        for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if WORK_REFS.search(line):
                found.append("%s:%d: %s" % (p.relative_to(ROOT), n, line.strip()))
    assert not found, "\n".join(found)
