"""The desktop's own timings in one place: every named time in the simulator,
the web board and the emulator (a module or class constant ending in _US,
_MS or _S) is a row of docs/timing.md's "Timings outside the firmware"
table, with its value and why; none of them redefines a tunable (a time a
player feels is speedref/tunables.py's, imported, never copied)."""
import ast
import re
from pathlib import Path

from speedref import tunables

ROOT = Path(__file__).resolve().parents[2]
SCANNED = sorted((ROOT / "sim").rglob("*.py")) + sorted((ROOT / "web").glob("*.py")) + \
    sorted((ROOT / "emu").glob("*.py"))
DOC = ROOT / "docs" / "timing.md"
_UNITS = {"ms": 1000, "s": 1000000, "hour": 3600000000, "hours": 3600000000, "us": 1}


def times(path):
    """{(name, class or None): value} of the times `path` assigns at module
    or class level (a number or a pair of numbers)."""
    out = {}
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def scan(body, cls):
        for node in body:
            if isinstance(node, ast.ClassDef):
                scan(node.body, node.name)
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name) and re.search(r"_(US|MS|S)$", t.id):
                        try:
                            out[(t.id, cls)] = ast.literal_eval(node.value)
                        except ValueError:  # an expression: 3600 * 1000000
                            out[(t.id, cls)] = eval(compile(ast.Expression(node.value), "", "eval"), {})
    scan(tree.body, None)
    return out


def doc_rows():
    """{name: (where, value text)} from the table."""
    text = DOC.read_text(encoding="utf-8")
    part = text.split("## Timings outside the firmware", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`(\w+)`", cells[0])
        where = re.findall(r"`([\w/.]+)`", cells[1])[0]
        values = [v.strip() for v in cells[2].split(",")]
        for i, n in enumerate(names):
            rows.setdefault(n, []).append((where, values[i] if len(values) == len(names) else cells[2]))
    return rows


def microseconds(text, name):
    """A value as the table writes it ("140 ms", "1.2 s", "0.3-1.2 s", "1000") in
    the constant's own unit."""
    m = re.match(r"^([\d.]+)(?:-([\d.]+))? ?([a-z]*)$", text)
    assert m, "%s: %r is no value" % (name, text)
    scale = _UNITS.get(m.group(3) or "us", 1)
    if name.endswith("_MS"):
        scale //= 1000
    vals = [round(float(x) * scale) for x in m.groups()[:2] if x]
    return tuple(vals) if len(vals) > 1 else vals[0]


def test_every_desktop_timing_is_in_the_table_with_its_value():
    rows = doc_rows()
    missing, wrong = [], []
    for path in SCANNED:
        rel = path.relative_to(ROOT).as_posix()
        for (name, cls), value in times(path).items():
            mine = [v for where, v in rows.get(name, ()) if where == rel]
            if not mine:
                missing.append("%s %s%s" % (rel, cls + "." if cls else "", name))
                continue
            if name in ("NS_PER_US", "CYCLES_PER_US"):
                continue  # units, written as plain numbers
            if not any(microseconds(v, name) == value for v in mine):
                wrong.append("%s %s = %r, the table says %s" % (rel, name, value, mine))
    assert not missing, ("a time without its row in docs/timing.md (Timings outside the firmware): "
                         "add it with why it has that value: %s" % missing)
    assert not wrong, wrong


def test_no_row_names_a_time_that_is_gone():
    have = set()
    for path in SCANNED:
        have |= {(path.relative_to(ROOT).as_posix(), n) for n, _ in times(path)}
    gone = [(where, n) for n, places in doc_rows().items() for where, _ in places if (where, n) not in have]
    assert not gone, gone


def test_no_desktop_module_copies_a_tunable():
    names = {n for n in vars(tunables) if n.endswith("_US")}
    for path in SCANNED:
        own = {n for n, _ in times(path)}
        assert not own & names, "%s redefines %s: import it from speedref.tunables" % (path.name, own & names)


def test_the_table_reads_its_values():
    assert microseconds("140 ms", "X_US") == 140000 and microseconds("1.2 s", "X_US") == 1200000
    assert microseconds("0.3-1.2 s", "X_US") == (300000, 1200000) and microseconds("24 hours", "X_MS") == 86400000
