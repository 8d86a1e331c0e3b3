"""speedref/tunables.py is the one place for every timing a player feels: the
values the rules state (SP-14, SP-16, SP-22, SP-26, SPIT-18, SPIT-21, SR-32),
each with its reason beside it, and no second copy of one anywhere else in
the firmware."""
import ast
import re
from pathlib import Path

from test_sim_timings import microseconds

from speedref import tunables as T
from speedref.hw import board_pico, board_esp32

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
SRC = FIRMWARE / "speedref" / "tunables.py"

DOC = FIRMWARE.parent / "docs" / "timing.md"
_REASON = re.compile(r"\bnot\s+(a\s+)?tunables?\b|\bneither\s+is\s+a\s+tunable\b", re.I)


def elsewhere():
    """docs/timing.md's "Times in the firmware that are not tunables":
    {(file, name): value text}, the file relative to firmware/."""
    text = DOC.read_text(encoding="utf-8")
    part = text.split("## Times in the firmware that are not tunables", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`(\w+)`", cells[0])
        values = [v.strip() for v in cells[2].split(",")]
        for where in re.findall(r"`([\w/.]+)`", cells[1]):
            for i, n in enumerate(names):
                rows[(where, n)] = values[i] if len(values) == len(names) else cells[2]
    return rows


def _times(tree):
    """{name: (line, value node)} of the times (names ending in _US, _MS or
    _S) a module assigns at module or class level."""
    out = {}

    def scan(body):
        for node in body:
            if isinstance(node, ast.ClassDef):
                scan(node.body)
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name) and re.search(r"_(US|MS|S)$", t.id):
                        out[t.id] = (node.lineno, node.value)
    scan(tree.body)
    return out


def _assigned(tree):
    return {t.id: node for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}


def _int_value(node):
    """A literal int, or const(int): else None."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "const":
        node = node.args[0]
    try:
        v = ast.literal_eval(node)
    except ValueError:
        return None
    return v if type(v) is int else None


def _reason(lines, lineno):
    """The comment at a definition: on its own line or in the block of
    comments and definitions it sits in (no blank line between: a block of
    definitions shares one)."""
    lo = hi = lineno - 1
    while lo > 0 and lines[lo - 1].strip() and lo > lineno - 16:
        lo -= 1
    while hi + 1 < len(lines) and lines[hi + 1].strip() and hi < lineno + 4:
        hi += 1
    text = " ".join(l.split("#", 1)[1] for l in lines[lo:hi + 1] if "#" in l)
    return bool(_REASON.search(text))


def test_no_module_keeps_its_own_copy_of_a_timing():
    names = {n for n in vars(T) if n.endswith("_US")}
    rows = elsewhere()
    found, wrong, silent = {}, [], []
    for path in sorted(FIRMWARE.rglob("*.py")):
        rel = path.relative_to(FIRMWARE).as_posix()
        if path == SRC:
            continue
        text = path.read_text(encoding="utf-8")
        own = _times(ast.parse(text))
        assert not set(own) & names, "%s redefines %s: import it from speedref.tunables" % (rel, set(own) & names)
        extra = sorted(n for n in own if (rel, n) not in rows)
        if extra:
            found[rel] = extra
        lines = text.splitlines()
        for n, (lineno, value) in own.items():
            if (rel, n) not in rows:
                continue
            if not _reason(lines, lineno):
                silent.append("%s %s" % (rel, n))
            v = _int_value(value)
            if v is not None and microseconds(rows[(rel, n)], n) != v:
                wrong.append("%s %s = %d, the table says %s" % (rel, n, v, rows[(rel, n)]))
    assert not found, ("a new timing outside speedref/tunables.py: put it there with its reason, "
                       "or give it a row in docs/timing.md (Times in the firmware that are not "
                       "tunables) and a comment saying why it is not one: %r" % found)
    assert not wrong, wrong
    assert not silent, "no comment saying why it is not a tunable at its definition: %s" % silent


def test_no_row_names_a_time_that_is_gone():
    gone = []
    for (where, n) in elsewhere():
        path = FIRMWARE / where
        if not path.exists() or n not in _assigned(ast.parse(path.read_text(encoding="utf-8"))):
            gone.append((where, n))
    assert not gone, gone


def test_the_buzzer_cues_lengths_are_the_rows():
    """The cues' lengths (app/ui.py) keep their reason there and their
    range in the table."""
    from speedref.app import ui
    rows = {n: v for (where, n), v in elsewhere().items() if where == "speedref/app/ui.py"}
    ms = [getattr(ui, n)[1] for n in rows]
    lo, hi = microseconds(rows["CLICK"], "X_MS")
    assert (min(ms), max(ms)) == (lo, hi)
    src = (FIRMWARE / "speedref/app/ui.py").read_text(encoding="utf-8")
    lines = src.splitlines()
    for n, node in _assigned(ast.parse(src)).items():
        if n in rows:
            assert _reason(lines, node.lineno), "%s: no reason beside it" % n


def test_every_tunable_says_why():
    """Each constant has its own comment: on its line or in the lines just above."""
    lines = SRC.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if "= const(" not in line or line.startswith(" "):
            continue
        above = lines[i - 1].lstrip()
        assert "#" in line or above.startswith("#"), "%s has no reason beside it" % line.split()[0]


def test_sp14_sp16_sp26_speed_holds_and_the_claim_reflex():
    assert T.SPEED_HOLD_US == 500000   # SP-14/SP-26: held 0.5 s is a stuck call
    assert T.CLAIM_WAIT_US == 500000   # SP-16: a press within 0.5 s of the question is a reflex
    assert T.LONG_OK_US == 800000      # SP-26: OK held 0.8 s is BACK


def test_spit21_sr32_holds():
    assert T.SPIT_HOLD_US == 500000       # SPIT-21
    assert T.SPEEDRUN_HOLD_US == 800000   # SR-32


def test_sp22_spit18_countdown():
    assert T.FOUL_US == 500000  # called off at least 0.5 s after the false start
    assert T.COUNT_GO_US == 3 * T.COUNT_STEP_US == 3000000


def test_sp17_spit10_board_tie_windows_come_from_the_tunables():
    assert board_pico.TIE_US == {"pio": T.TIE_PIO_US, "irq": T.TIE_RP2_IRQ_US}
    assert board_esp32.TIE_US == {"irq": T.TIE_ESP32_IRQ_US}


def test_users_copy_the_tunables_when_they_are_imported():
    """The board forgets speedref.tunables once the device is built and when a
    game closes: a module may only copy names out of it when it is imported
    (`from ..tunables import X`), never keep the module to read later."""
    found = []
    for path in sorted(FIRMWARE.rglob("*.py")):
        if path == SRC:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import) and any(a.name.endswith("tunables") for a in node.names):
                found.append(path.name)
            elif isinstance(node, ast.ImportFrom) and any(a.name == "tunables" for a in node.names):
                found.append(path.name)  # `from speedref import tunables`, `from .. import tunables`
    assert not found, found
