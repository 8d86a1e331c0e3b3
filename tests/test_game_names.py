"""Every game is a peer: no product module outside a game's own files names
a game, but the registry (firmware/speedref/games.py) and the exceptions
below, each with its reason (docs/architecture.md, "Adding a game", lists
the same).  A game's own files carry its id in their name: engine/<id>.py,
engine/<id>_cards.py, app/<id>_flow.py, sim/table/<id>_table.py,
sim/table/<id>_person.py.

Scanned: firmware/, sim/, host_tools/, web/ and emu/.  In Python the code is
read (identifiers, imported names and string constants; not comments or
docstrings); in JavaScript, HTML and templates everything but comments.  A
game is named by its id as a word ("speed", "spit_flow", "SpeedTable") or
its title ("Speed Run")."""
import ast
import re
import subprocess
from pathlib import Path

import pytest

from speedref import games

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("firmware", "sim", "host_tools", "web", "emu")

# path (a file, or a folder ending in "/") -> (the games it may name, why)
EXCEPTIONS = {
    "firmware/speedref/games.py": (games.IDS, "the registry: one entry per game, the only list of games"),
    "firmware/package.json": (games.IDS, "generated: the list of every firmware file (tests/device/test_device_dist.py)"),
    "firmware/speedref/tunables.py": (("speed", "spit", "speedrun"),
                                      "every timing a player feels in one place: each game's pad hold "
                                      "is its own rule's value (SP-14, SPIT-21, SR-32)"),
    "host_tools/club/summary.py": (games.IDS, "the ratings' host-side entry per game: how its result becomes "
                                         "places (docs/ratings.md), worked out when the game is stored"),
}


def _words(text):
    """Lower-case words: "SpeedRunTable" -> speed, run, table; "spit_flow" -> spit, flow."""
    out = []
    for part in re.findall(r"[A-Za-z]+", text):
        out += [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+", part)]
    return out


def named(text):
    """The game ids `text` names (an id as a word, or "Speed Run")."""
    ws = _words(text)
    got = set()
    for i, w in enumerate(ws):
        if w == "speed" and ws[i + 1:i + 2] == ["run"]:
            got.add("speedrun")
        elif w in games.IDS and not (w == "run" and ws[i - 1:i] == ["speed"]):
            got.add(w)
    return got


def _docstrings(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            b = node.body
            if b and isinstance(b[0], ast.Expr) and isinstance(b[0].value, ast.Constant):
                out.add(id(b[0].value))
    return out


def python_names(text):
    """[(line, text)] of the identifiers and string constants in Python
    source that name a game (docstrings and comments are not code)."""
    tree = ast.parse(text)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            texts = [node.id]
        elif isinstance(node, ast.Attribute):
            texts = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            texts = [node.name]
        elif isinstance(node, ast.alias):
            texts = [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            texts = [node.module or ""]
        elif isinstance(node, ast.arg):
            texts = [node.arg]
        elif isinstance(node, ast.keyword):
            texts = [node.arg or ""]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            texts = [node.value]
        else:
            continue
        for t in texts:
            if named(t):
                found.append((getattr(node, "lineno", 0), t))
    return found


_COMMENTS = re.compile(r"/\*.*?\*/|<!--.*?-->|\{#.*?#\}|(?<![:\"'])//[^\n]*", re.S)


def text_names(text):
    """[(line, text)] of the lines of JavaScript, HTML or a template that
    name a game, comments left out."""
    text = _COMMENTS.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if named(line)]


def own(rel):
    """The game whose own file `rel` is, or None."""
    stem = Path(rel).stem
    for g in games.IDS:
        if stem == g or stem.startswith(g + "_"):
            return g
    return None


def excused(rel):
    for path, (ids, _) in EXCEPTIONS.items():
        if rel == path or path.endswith("/") and rel.startswith(path):
            return set(ids)
    return set()


def product_files():
    out = subprocess.run(["git", "ls-files"] + list(SCANNED), cwd=str(ROOT), capture_output=True,
                         text=True, check=True).stdout.split()
    return [f for f in out if f.endswith((".py", ".js", ".mjs", ".html", ".json", ".css"))]


def names_in(rel):
    """[(line, text, games)] in file `rel` naming a game it may not name."""
    text = (ROOT / rel).read_text(encoding="utf-8")
    found = python_names(text) if rel.endswith(".py") else text_names(text)
    allowed = excused(rel) | ({own(rel)} if own(rel) else set())
    out = []
    for n, t in found:
        extra = named(t) - allowed
        # a game's own file may say its title's words ("Speed" in Speed Run's)
        if extra and not (own(rel) == "speedrun" and extra == {"speed"}):
            out.append((n, t, extra))
    return out


def test_no_product_module_names_another_game():
    found = []
    for rel in product_files():
        for n, t, g in names_in(rel):
            found.append("%s:%d: %s  (names %s)" % (rel, n, t[:70], ", ".join(sorted(g))))
    assert not found, ("a module outside a game's own files names a game: move that to the game's "
                       "own files, read it from the registry, or add the file to EXCEPTIONS with "
                       "its reason (and to docs/architecture.md):\n" + "\n".join(found))


def test_every_exception_is_still_needed_and_documented():
    """An exception that names nothing any more goes; each one is in
    docs/architecture.md."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    files = product_files()
    for path, (ids, why) in EXCEPTIONS.items():
        assert "`%s`" % path in doc, "docs/architecture.md does not list the exception %s" % path
        if path == "firmware/speedref/games.py":
            continue
        mine = [f for f in files if f == path or path.endswith("/") and f.startswith(path)]
        assert mine, "%s: no such file" % path
        found = set()
        for f in mine:
            t = (ROOT / f).read_text(encoding="utf-8")
            for _, s in (python_names(t) if f.endswith(".py") else text_names(t)):
                found |= named(s)
        assert found, "%s names no game any more: drop its exception" % path


@pytest.mark.parametrize("text,ids", [
    ("speed_flow", {"speed"}), ("SpeedTable", {"speed"}), ("SpeedRunTable", {"speedrun"}),
    ("speedrun_cards", {"speedrun"}), ("Speed Run", {"speedrun"}), ("spit_person", {"spit"}),
    ("partners", {"partners"}), ("PARTNERS_HOLD", {"partners"}), ("speedref", set()),
    ("spitting image", set()), ("a table", set()), ("SPEED_HOLD_US", {"speed"}),
])
def test_the_scan_knows_a_game_when_it_sees_one(text, ids):
    assert named(text) == ids


def test_the_scan_reads_code_not_comments():
    src = '"""Speed and Spit are games."""\n# partners too\nx = 1\ny = "spit"\nfrom speedref.app import speed_flow\n'
    assert sorted(t for _, t in python_names(src)) == ["speed_flow", "spit"]
    js = "// Speed\nconst a = 1; /* spit */\nlet game = 'partners';\n"
    assert text_names(js) == [(3, "let game = 'partners';")]
