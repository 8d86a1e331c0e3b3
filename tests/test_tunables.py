"""speedref/tunables.py is the one place for every timing a player feels: the
values the rules state (SP-14, SP-16, SP-22, SP-26, SPIT-18, SPIT-21, SR-32),
each with its reason beside it, and no second copy of one anywhere else in
the firmware."""
import ast
from pathlib import Path

from speedref import tunables as T
from speedref.hw import board_pico, board_esp32

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
SRC = FIRMWARE / "speedref" / "tunables.py"

# Module-level times outside tunables.py, and why they are not tunables: the
# rules' own timings stay with the rules, the rest is machinery nobody at the
# table feels (docs/timing.md, "The tunables").
ELSEWHERE = {
    "main.py": {"CLEAN_US"},                        # a run this long clears the crash count
    "speedref/arbiter.py": {"MAX_WINDOW_US"},       # the range a tie window may be set to
    "speedref/games.py": {"TIE_MS"},                # the tie windows the menu offers (its values)
    "speedref/engine/cards.py": {"RACE_US"},        # SP-13, SPIT-7, card level (the simulator's players)
    "speedref/engine/spit.py": {"SLAP_GO_US"},      # SPIT-17, a rule
    "speedref/inputs.py": {"_STUCK_US", "_AHEAD_US"},  # a jammed pad is logged; clock skew
    "speedref/hw/capture.py": {"AHEAD_US"},         # clock skew of a lockout
    "speedref/hw/pio_capture.py": {"_LATE_US"},     # a FIFO word read this late is counted
    "speedref/hw/board_pico.py": {"I2C_TIMEOUT_US", "TIE_US"},   # TIE_US from tunables
    "speedref/hw/board_esp32.py": {"I2C_TIMEOUT_US", "TIE_US"},
    "speedref/device.py": {"IDLE_MS", "BUSY_US", "_ERROR_LOG_US"},  # the loop's pace, log rate
}


def _times(tree):
    """Module-level names ending in _US or _MS that a module assigns."""
    out = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id.endswith(("_US", "_MS")):
                    out.add(t.id)
    return out


def test_no_module_keeps_its_own_copy_of_a_timing():
    names = {n for n in vars(T) if n.endswith("_US")}
    found = {}
    for path in sorted(FIRMWARE.rglob("*.py")):
        rel = path.relative_to(FIRMWARE).as_posix()
        if path == SRC:
            continue
        own = _times(ast.parse(path.read_text(encoding="utf-8")))
        assert not own & names, "%s redefines %s: import it from speedref.tunables" % (rel, own & names)
        extra = own - ELSEWHERE.get(rel, set())
        if extra:
            found[rel] = sorted(extra)
    assert not found, ("a new timing outside speedref/tunables.py: put it there with its "
                       "reason, or list it in ELSEWHERE with why it is not felt: %r" % found)


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
