"""Mutation testing of the rules engine, the arbiter and the referee app's
verdicts (`make mutate`, docs/testing.md).

mutmut (pinned in requirements-mutate.txt) changes one thing at a time in
firmware/speedref/engine/*.py, firmware/speedref/arbiter.py and the
verdict methods of each game's flow (firmware/speedref/app/*_flow.py: the
methods whose `def` line ends in `# verdict`, those that decide a slap, a
race, a false start or a claim and what the players are told about it):
a `<` for a `<=`, a `+= 1` for a `-= 1`, a string for another.  It runs
the fast CPython tests that cover the changed function against each such
mutant.  A mutant that no test notices is a rule that could be wrong
without a test failing.

mutmut wants the code under src/, so the run happens in a staged copy,
build/mutate/: src/speedref is firmware/speedref, tests/ is tests/.  The
tests run with SPEEDREF_MUTATE=1: hypothesis derandomized, no example
database, no deadline (tests/conftest.py), and the checks that run
MicroPython itself skipped (they run the unmutated firmware).

    python -m tools.mutate [--files PATH ...] [--sample N] [--seed S] [--workers W]

prints, per file, the mutants run, killed, survived, the equivalent ones
(listed in docs/testing.md, "Equivalent mutants") and the score: killed
over the non-equivalent mutants run.  With --sample N it runs N mutants of
each file drawn with --seed (the same N each time for the same code).
"""
import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

from speedref.games import GAMES, module

ROOT = Path(__file__).resolve().parent.parent
STAGE = ROOT / "build" / "mutate"
DOC = ROOT / "docs" / "testing.md"

ENGINE = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "firmware" / "speedref" / "engine").glob("*.py")
                if p.name != "__init__.py") + ["firmware/speedref/arbiter.py"]
# Each registered game's flow (the registry names it: no game is named here).
FLOWS = ["firmware/" + module(g.flow, "speedref.app").replace(".", "/") + ".py" for g in GAMES]
DEFAULT_FILES = ENGINE + FLOWS

# The fast CPython tests of the engine and the arbiter (tests/engine/: each
# registered game's rules and the shared ones): no emulated Pico, no
# browser.  Their MicroPython checks skip under SPEEDREF_MUTATE.  The
# conformance suite replays every game's golden playthrough at the card level.
ENGINE_TESTS = ["engine/test_*.py", "test_conformance.py"]
# The flows' tests: the referee app on a fake board (tests/app/test_app_*.py,
# CPython; the test_app_*_mpy.py files run MicroPython and would only skip)
# and the conformance suite, which plays every game's golden playthrough
# through its flow.
FLOW_TESTS = ["app/test_app_*.py", "test_conformance.py"]


def tests_for(files):
    """The test files run against the mutants of `files`: the engine's for
    engine files, the app's for flows."""
    pats = (ENGINE_TESTS if any(f not in FLOWS for f in files) else []) + (
        FLOW_TESTS if any(f in FLOWS for f in files) else [])
    return sorted(set(str(p.relative_to(ROOT)) for pat in pats for p in (ROOT / "tests").glob(pat)
                      if not p.name.endswith("_mpy.py")))


# A flow is mostly screens, menus and timing; only its verdicts are mutated:
# the functions whose `def` line ends in `# verdict`.  The mark sits on the
# method in the game's own flow file, not in a list kept here or in the
# registry: it names no game outside that game's files, it moves and is
# renamed with its method, and as a comment it costs the board nothing
# (mpy-cross drops it: no string, no tuple on the heap).
MARK = "# verdict"


def verdicts(f):
    """mutmut's keys ("x\u01c1SpeedFlow\u01c1_settle_slap", "x_func") of the
    functions of file f marked MARK."""
    text = (ROOT / f).read_text(encoding="utf-8")
    lines = text.split("\n")
    out = set()

    def walk(node, cls):
        for n in ast.iter_child_nodes(node):
            if isinstance(n, ast.ClassDef):
                walk(n, n.name)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if marked(lines, n.lineno - 1):
                    out.add("x\u01c1%s\u01c1%s" % (cls, n.name) if cls else "x_" + n.name)
    walk(ast.parse(text), None)
    return out


def marked(lines, i):
    """Does the signature starting at lines[i] (a `def`) end in MARK?  Its
    lines run to the one whose code ends in the colon."""
    for line in lines[i:]:
        code, _, comment = line.partition("#")
        if code.rstrip().endswith(":"):
            return ("#" + comment).rstrip().endswith(MARK)
    return False


KILLED = {1, 3, 36, 24, -24, 152, 255, 37}  # a failing test, or a timeout (an endless loop)


def equivalent():
    """{mutant name: reason} from docs/testing.md's "Equivalent mutants"
    section: lines `- `name`: reason`."""
    out = {}
    text = DOC.read_text(encoding="utf-8")
    m = re.search(r"^## Equivalent mutants\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if m:
        for name, reason in re.findall(r"^- `([^`]+)`: (.+)$", m.group(1), re.M):
            out[name] = reason
    return out


def stage(files):
    src = STAGE / "src" / "speedref"
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(ROOT / "firmware" / "speedref", src, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "compat" / "micropython.py", STAGE / "src" / "micropython.py")
    if (STAGE / "tests").exists():
        shutil.rmtree(STAGE / "tests")
    shutil.copytree(ROOT / "tests", STAGE / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    for d in ("firmware", "seeds", "docs", "compat"):  # read as files by some tests
        if (STAGE / d).exists():
            shutil.rmtree(STAGE / d)
        shutil.copytree(ROOT / d, STAGE / d, ignore=shutil.ignore_patterns("__pycache__"))
    only = ["src/" + f[len("firmware/"):] for f in files]
    conf = (
        "[tool.mutmut]\n"
        'source_paths = ["src/speedref"]\n'
        'also_copy = ["firmware", "seeds", "docs", "compat"]\n'
        "only_mutate = %s\n"
        "pytest_add_cli_args_test_selection = %s\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:random_order"]\n'
        "use_git_change_detection = false\n"
        "timeout_multiplier = 5.0\n"
        "\n[tool.pytest.ini_options]\n"
        'markers = ["board: emulated Pico", "web: browser", "long: long"]\n'
    ) % (json.dumps(only), json.dumps(tests_for(files)))
    (STAGE / "pyproject.toml").write_text(conf, encoding="utf-8")


LOG = STAGE / "mutmut.log"


def mutmut(args, env):
    """mutmut's own output (a line per mutant) goes to build/mutate/mutmut.log."""
    with open(LOG, "w") as log:
        return subprocess.run([sys.executable, "-m", "mutmut"] + args, cwd=STAGE, env=env,
                              stdout=log, stderr=subprocess.STDOUT)


def names_of(files, env):
    """Every mutant of the files, by file ({path: [name]}): mutmut makes
    them (mutants/ and its .meta files) without running anything."""
    code = ("from mutmut.__main__ import copy_src_dir, copy_also_copy_files, create_mutants\n"
            "import os\nos.makedirs('mutants', exist_ok=True)\n"
            "copy_src_dir(); copy_also_copy_files(); create_mutants(2)\n")
    subprocess.run([sys.executable, "-c", code], cwd=STAGE, env=env, check=True, stdout=subprocess.DEVNULL)
    return {f: sorted(n for n in meta(f) if f not in FLOWS or key(n) in verdicts(f)) for f in files}


def key(name):
    """A mutant's function key: "speedref.app.x.xǁCǁm__mutmut_3" -> "xǁCǁm"."""
    return name.rpartition("__mutmut_")[0].rpartition(".")[2]


def meta(f):
    path = STAGE / "mutants" / ("src/" + f[len("firmware/"):] + ".meta")
    return json.loads(path.read_text(encoding="utf-8"))["exit_code_by_key"]


def report(chosen, show, env):
    """The score per file of the mutants run ({file: [name]})."""
    eq = equivalent()
    print()
    print("%-42s %6s %6s %8s %6s %7s" % ("file", "run", "killed", "survived", "equiv", "score"))
    survivors = []
    total_k = total_n = 0
    for f, names in chosen.items():
        codes = meta(f)
        killed = [n for n in names if codes.get(n) in KILLED]
        alive = [n for n in names if codes.get(n) not in KILLED]
        eqs = [n for n in alive if n in eq]
        real = [n for n in alive if n not in eq]
        survivors += real
        n = len(names) - len(eqs)
        total_k += len(killed)
        total_n += n
        score = "%.1f %%" % (100.0 * len(killed) / n) if n else "-"
        print("%-42s %6d %6d %8d %6d %7s" % (f, len(names), len(killed), len(real), len(eqs), score))
    if total_n:
        print("%-42s %6s %6d %8s %6s %7s" % ("all", "", total_k, "", "", "%.1f %%" % (100.0 * total_k / total_n)))
    if survivors:
        print("\nsurvivors (not listed as equivalent in docs/testing.md):")
        for n in survivors:
            print("  " + n)
            if show:
                subprocess.run([sys.executable, "-m", "mutmut", "show", n], cwd=STAGE, env=env)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", nargs="*", default=None, help="firmware files (default: engine/*.py, arbiter.py and each game's flow)")
    ap.add_argument("--sample", type=int, default=0, help="mutants drawn from each file (0: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--survivors", action="store_true", help="print each survivor's diff")
    ap.add_argument("--recheck", action="store_true",
                    help="run the last run's survivors again against the tests as they are now")
    ap.add_argument("--report", action="store_true",
                    help="only the scores of the last run's mutants that have a result (no run)")
    a = ap.parse_args(argv)
    files = [str(Path(f).resolve().relative_to(ROOT)) if Path(f).exists() else f for f in (a.files or DEFAULT_FILES)]
    # pytest's temporary folders under build/mutate/tmp: another pytest on
    # this machine (in /tmp) then never removes a folder a test is using.
    tmp = STAGE / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, SPEEDREF_MUTATE="1", PYTHONDONTWRITEBYTECODE="1", PYTEST_DEBUG_TEMPROOT=str(tmp))
    if a.report:
        report({f: sorted(n for n, c in meta(f).items() if c is not None) for f in files}, a.survivors, env)
        return 0
    if a.recheck:
        done = {f: sorted(n for n, c in meta(f).items() if c is not None) for f in files}
        again = [n for f in files for n in done[f] if meta(f)[n] not in KILLED]
        stage(files)
        stats = STAGE / "mutants" / "mutmut-stats.json"
        if stats.exists():
            stats.unlink()  # which tests cover what: the tests have changed
        print("%d survivors to run again, mutmut's output in %s" % (len(again), LOG.relative_to(ROOT)))
        if again:
            r = mutmut(["run", "--max-children", str(a.workers)] + again, env)
            if r.returncode:
                print("mutmut failed (exit %d): see %s" % (r.returncode, LOG.relative_to(ROOT)))
                return r.returncode
        report(done, a.survivors, env)
        return 0
    STAGE.mkdir(parents=True, exist_ok=True)
    if (STAGE / "mutants").exists():  # every run is measured afresh
        shutil.rmtree(STAGE / "mutants")
    stage(files)
    by_file = names_of(files, env)
    chosen = {}
    for f, names in by_file.items():
        if a.sample and len(names) > a.sample:
            names = sorted(random.Random("%s:%s" % (a.seed, f)).sample(names, a.sample))
        chosen[f] = names
    run = [n for names in chosen.values() for n in names]
    print("%d mutants to run (%s), mutmut's output in %s" % (len(run), ", ".join(
        "%s: %d of %d" % (Path(f).name, len(chosen[f]), len(by_file[f])) for f in files), LOG.relative_to(ROOT)))
    if run:
        r = mutmut(["run", "--max-children", str(a.workers)] + run, env)
        if r.returncode:
            print("mutmut failed (exit %d): see %s" % (r.returncode, LOG.relative_to(ROOT)))
            return r.returncode
    report(chosen, a.survivors, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
