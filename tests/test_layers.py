"""The layers (docs/architecture.md, "The layers" and "One rule of
direction"): every import points down a floor or stays on its own, and no
module comes back to itself through its imports (no circle), in the
firmware, the host tools and the simulator.  The floors are listed here,
bottom first; every module of the three is on exactly one of them, so a new
module gets a floor before it gets an import.

Also: the app never imports the hardware edge, the menu never imports the
app's core (the app calls the menu, the menu calls the app's public
methods on the instance it is given), what every screen shares (app/ui.py:
the buttons, the cues, the Screen base, drawing) imports nothing of
speedref but the accented letters' drawing (app/accents.py, which imports
only their glyph table, app/glyphs.py, which imports nothing), nothing imports a command line (host_tools/cli/), and no module
imports another file's private name (a leading underscore).

A module loaded by name through the game registry (a game's flow, table,
person or words module: games.load) is no import here: the registry names
it, the loader takes it when the game starts."""
import ast
import fnmatch
import subprocess
from pathlib import Path

from host_tools.board.build import imports, module_name

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
APP = FIRMWARE / "speedref" / "app"

# Bottom first: a module may import its own floor's modules and those below.
FLOORS = {
    "firmware": [
        # the packages themselves (speedref.forget), the clock's arithmetic,
        # the timings a player feels, names and the registry: any layer's
        ("ground", ["speedref", "speedref.app", "speedref.engine", "speedref.hw", "speedref.ticks",
                    "speedref.tunables", "speedref.names", "speedref.games"]),
        ("the rules", ["speedref.engine.*", "speedref.arbiter"]),
        ("the edge", ["speedref.hw.*"]),
        ("saves and logs", ["speedref.storage", "speedref.log", "speedref.spool", "speedref.roster",
                            "speedref.uplink", "speedref.match"]),
        ("the accented letters' glyphs and drawing", ["speedref.app.glyphs", "speedref.app.accents"]),
        ("what every screen shares", ["speedref.app.ui"]),
        ("a flow's timers", ["speedref.app.timing"]),
        ("the menu's own screens", ["speedref.app.check", "speedref.app.who", "speedref.app.match_menu"]),
        ("the menu", ["speedref.app.menu"]),
        ("the app", ["speedref.app.core"]),
        ("the games' flows", ["speedref.app.*_flow"]),
        ("the loop", ["speedref.inputs", "speedref.device"]),
        ("the boot", ["speedref.wiring", "speedref.halt"]),
        ("main.py", ["main", "manifest"]),
    ],
    "host_tools": [
        ("ground", ["host_tools", "host_tools.jsonin", "host_tools.argtypes", "host_tools.board", "host_tools.club",
                    "host_tools.intake", "host_tools.views", "host_tools.cli"]),
        ("board", ["host_tools.board.*"]),
        ("club", ["host_tools.club.*"]),
        ("intake", ["host_tools.intake.*"]),
        ("views", ["host_tools.views.*"]),
        ("cli", ["host_tools.cli.*"]),
    ],
    "sim": [
        ("ground", ["sim", "sim.font8x8", "sim.framebuf", "sim.compat", "sim.hardware", "sim.oled",
                    "sim.keys", "sim.terminal", "sim.bots", "sim.script", "sim.words", "sim.words.*"]),
        ("the virtual board", ["sim.board"]),
        ("the screens", ["sim.tui", "sim.window"]),
        ("the tables", ["sim.table", "sim.table.*"]),
        ("the command line", ["sim.__main__"]),
    ],
}
# What a tree's modules may import of the other trees: the firmware nothing;
# the host tools the firmware; the simulator the firmware and the host
# tools' board wing (a roster file read and sent as speedref-roster reads
# and sends it), and the host tools never the simulator.
BELOW = {"firmware": (), "host_tools": ("speedref",), "sim": ("speedref", "host_tools.board")}
TREE_OF = {"speedref": "firmware", "main": "firmware", "manifest": "firmware", "host_tools": "host_tools",
           "sim": "sim"}


def _files(tree):
    """{module name: (path relative to its root, root)} of a tree's tracked files."""
    root = FIRMWARE if tree == "firmware" else ROOT
    out = subprocess.run(["git", "ls-files", "firmware" if tree == "firmware" else tree], cwd=str(ROOT),
                         capture_output=True, text=True, check=True).stdout.split()
    mods = {}
    for f in out:
        if f.endswith(".py"):
            rel = Path(f).relative_to("firmware") if tree == "firmware" else Path(f)
            mods[module_name(rel)] = (rel, root)
    return mods


def _graph():
    """{module: set of the product's modules it imports}, every tree."""
    mods = {}
    for tree in FLOORS:
        mods.update(_files(tree))
    graph = {}
    for m, (rel, root) in mods.items():
        got = set()
        for n in imports(rel, root):
            # "speedref.app.ui" is a module; "speedref.ticks.ticks_diff" a name in one
            while n and n not in mods:
                n = n.rpartition(".")[0]
            if n and n != m:
                got.add(n)
        graph[m] = got
    return graph


def _floor(module):
    tree = TREE_OF[module.split(".")[0]]
    for i, (_, patterns) in enumerate(FLOORS[tree]):
        if any(fnmatch.fnmatchcase(module, p) for p in patterns):
            return tree, i
    return tree, None


def test_every_module_has_a_floor():
    missing = sorted(m for m in _graph() if _floor(m)[1] is None)
    assert not missing, "modules on no floor (tests/test_layers.py FLOORS): %s" % missing


def test_every_import_points_down_or_stays_on_its_floor():
    up = []
    for m, deps in sorted(_graph().items()):
        tree, floor = _floor(m)
        for d in sorted(deps):
            dtree, dfloor = _floor(d)
            if dtree != tree and not any(d == b or d.startswith(b + ".") for b in BELOW[tree]):
                up.append("%s -> %s (the %s imports only %s of the other trees)"
                          % (m, d, tree, ", ".join(BELOW[tree]) or "nothing"))
            elif dtree == tree and dfloor is not None and floor is not None and dfloor > floor:
                up.append("%s (%s) -> %s (%s)" % (m, FLOORS[tree][floor][0], d, FLOORS[tree][dfloor][0]))
    assert not up, "imports running up a floor:\n" + "\n".join(up)


def circles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_comes_back_to_itself_through_its_imports():
    assert circles(_graph()) == []


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_nothing_imports_a_command_line():
    """host_tools/cli/ is the top: each command line parses, calls the
    wings below and prints; no library and no other command line imports one."""
    bad = sorted("%s -> %s" % (m, d) for m, deps in _graph().items() for d in deps
                 if d.startswith("host_tools.cli.") and not m == "host_tools.cli")
    assert not bad, bad


def _private_imports(path):
    """(line, name) of each private name (one leading underscore) the file at
    `path` takes from another module: `from m import _x`, or `m._x` on a
    module it imported."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules, found = set(), []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            modules.update(a.asname or a.name.split(".")[0] for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            for a in n.names:
                modules.add(a.asname or a.name)
                if a.name.startswith("_") and not a.name.startswith("__"):
                    found.append((n.lineno, a.name))
    for n in ast.walk(tree):
        if (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in modules
                and n.attr.startswith("_") and not n.attr.startswith("__")
                and not n.value.id[:1].isupper()):    # a class's own: Base._method(self) in a subclass
            found.append((n.lineno, "%s.%s" % (n.value.id, n.attr)))
    return found


def test_no_module_imports_another_files_private_name():
    out = subprocess.run(["git", "ls-files", "firmware", "host_tools", "sim", "emu", "web", "tools",
                          "benchmarks"], cwd=str(ROOT), capture_output=True, text=True, check=True).stdout.split()
    bad = ["%s:%d: %s" % (f, line, name) for f in out if f.endswith(".py")
           for line, name in _private_imports(ROOT / f)]
    assert not bad, bad


def _speedref_imports(path):
    return {n for n in imports(path.relative_to(FIRMWARE)) if n.startswith("speedref")}


def test_the_menu_imports_ui_and_the_registry_never_the_core():
    got = _speedref_imports(APP / "menu.py")
    assert not {n for n in got if n.startswith("speedref.app.core")}, got
    assert "speedref.app.ui" in got and "speedref.games" in got


def test_ui_imports_nothing_of_speedref_but_the_accented_letters():
    assert _speedref_imports(APP / "ui.py") - {"speedref.app"} == {"speedref.app.accents"}  # `from . import accents`
    assert _speedref_imports(APP / "accents.py") - {"speedref.app"} == {
        "speedref.app.glyphs", "speedref.app.glyphs.GLYPHS"}
    assert _speedref_imports(APP / "glyphs.py") == set()


def test_the_app_never_imports_the_hardware():
    bad = {}
    for path in sorted(APP.glob("*.py")):
        hw = {n for n in _speedref_imports(path) if n.startswith("speedref.hw") or n == "speedref.device"}
        if hw:
            bad[path.name] = sorted(hw)
    assert not bad, bad


def test_the_menu_uses_only_the_apps_public_methods():
    """menu.py reaches the app only through its public names (app.resume,
    app.discard, ...), never one with a leading underscore."""
    import re
    src = (APP / "menu.py").read_text(encoding="utf-8")
    assert not re.findall(r"\bapp\._\w+", src), re.findall(r"\bapp\._\w+", src)
