"""Seat counts written into code: the literals that mean "two players" (or
three, or four) where a game's seat count should be read from data (the
registry's seats, a game's `seats` option, its table's `seats`).

find(paths, allow) -> ["path:line: code   (what)"] for every seat literal in
the Python files `paths`, but those `allow` excuses.  It reads the code
(ast), not comments or strings, and knows these forms:

    range(2)  range(3)  range(4)           every seat, counted out
    randrange(2)  randrange(1, 4)          someone, some other seat
    (0, 1)  (0, 1, 2)  [0, 1, 2, 3]        every seat, listed
    (1, 2)  (1, 2, 3)                      every seat but the first
    ("P1", "P2", "P3")                     every seat, named
    1 - p                                  "the other player" of two
    "01"[p]                                a seat's digit
    [0, 0]  [None, None, None]  [x] * 2    one item per seat
    x % 3   x % 4                          round the table
    (Pad(h), Pad(h))                       one object per seat, made by hand
    Race(2, w)  f(seats=2)                 a seat count passed on
    b >= 2   p < 2   seat == 3             a pad or seat against a count

A literal that counts something else (two centre piles, four suits, five
trumps) is named for what it counts (`SUITS = 4`), or excused in `allow`:
(path suffix, a piece of the line's code, why it is not a seat count).
The simulator's tables and the flows of games that seat a range of
players (Speed: app/speed_flow.py) are checked by tests/sim/test_sim_seats.py."""
import ast
from pathlib import Path

SEAT_COUNTS = (2, 3, 4)
# what a pad, a seat or a player is called in the code, when compared with a count
SEAT_NAMES = ("b", "p", "q", "s", "pad", "seat", "button", "player")
# the arbiter's race, which counts the pads it times from its first argument
SEATED = ("Race",)


def _int(node, values=SEAT_COUNTS):
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value in values


def _simple(node):
    """A constant item of a per-seat list: a number, None, a bool, a string,
    an empty list or bytearray()."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.List) and not node.elts:
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args
            and node.func.id in ("bytearray", "list", "dict", "set"))


def _what(node):
    """What kind of seat literal `node` is, or None."""
    if isinstance(node, ast.Call):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        args = node.args
        if name == "range" and len(args) == 1 and _int(args[0]):
            return "every seat, counted out"
        if name == "randrange" and (len(args) == 1 and _int(args[0])
                                    or len(args) == 2 and _int(args[0], (1,)) and _int(args[1])):
            return "a seat drawn from a fixed count"
        if name in SEATED and args and _int(args[0]) or any(
                k.arg == "seats" and _int(k.value) for k in node.keywords):
            return "a seat count passed on"
    if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id in SEAT_NAMES \
            and any(_int(c) for c in node.comparators):
        return "a pad or seat against a count"
    if isinstance(node, (ast.Tuple, ast.List)) and 2 <= len(node.elts) <= 4:
        elts = node.elts
        values = [e.value if isinstance(e, ast.Constant) else None for e in elts]
        if all(type(v) is int for v in values) and values == list(range(len(elts))):
            return "every seat, listed"
        if all(type(v) is int for v in values) and values == list(range(1, len(elts) + 1)) \
                and len(elts) <= 3:
            return "every seat but the first"
        if values == ["P%d" % (i + 1) for i in range(len(elts))]:
            return "every seat, named"
        if isinstance(node, ast.List) and all(_simple(e) for e in elts) and \
                len(set(ast.dump(e) for e in elts)) == 1:
            return "one item per seat"
        if all(isinstance(e, ast.Call) for e in elts) and len(set(ast.dump(e) for e in elts)) == 1:
            return "one object per seat"
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Sub) and _int(node.left, (1,)) and isinstance(node.right, ast.Name):
            return "the other player of two"
        if isinstance(node.op, ast.Mult) and isinstance(node.left, ast.List) and len(node.left.elts) == 1 \
                and _int(node.right):
            return "one item per seat"
        if isinstance(node.op, ast.Mod) and _int(node.right, (3, 4)):
            return "round a table of fixed size"
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Constant) and \
            node.value.value in ("01", "012", "0123"):
        return "a seat's digit"
    return None


def in_source(text, name="<code>"):
    """[(line, code, what)] of the seat literals in Python source `text`."""
    lines = text.splitlines()
    out = []
    for node in ast.walk(ast.parse(text, name)):
        what = _what(node)
        if what:
            out.append((node.lineno, lines[node.lineno - 1].strip(), what))
    return sorted(set(out))


def find(paths, allow=(), root=None):
    """Every seat literal in the files `paths` that `allow` does not excuse:
    ["path:line: code   (what)"], paths relative to `root` if given."""
    found = []
    for path in paths:
        path = Path(path)
        rel = (path.relative_to(root) if root else path).as_posix()
        for n, code, what in in_source(path.read_text(encoding="utf-8"), rel):
            if any(rel.endswith(f) and piece in code for f, piece, _ in allow):
                continue
            found.append("%s:%d: %s   (%s)" % (rel, n, code, what))
    return found
