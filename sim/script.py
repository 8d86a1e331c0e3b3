"""Event scripts for the simulator's headless mode.

One event a line: `<time_ms> <button> <down|up>`, e.g. `1500.25 p1 down`.
Buttons: p1..p4 (the slap pads), up, down, ok, back.  `#` starts a comment;
blank lines are skipped.  Times are milliseconds from the start of the run and
may have up to three decimals (microseconds); they must not go backwards,
and must not pass MAX_TIME_MS (24 hours: a longer run is a typo, and simulating
it would take hours).

A script names the game it plays in a header line before its first event:

    # game: speed

(a game id of speedref/games.py: speed, spit, ...).  speedref-sim then starts that game with
its default options, as `--game` does; `--game` on the command line wins.
Without either, the script starts at the game menu.  A game that seats a
range of players (Speed: 2 to 4) is played by its fewest unless another
header line says how many:

    # seats: 3

(`--seats` on the command line wins).  Headers are comments, so anything
reading scripts without knowing them skips them.  A UTF-8 byte order mark at
the start is ignored.
"""
import re

# Button numbers as the firmware numbers them (docs/architecture.md).
BUTTONS = {"p1": 0, "p2": 1, "p3": 2, "p4": 3, "up": 4, "down": 5, "ok": 6, "back": 7}
NAMES = {v: k for k, v in BUTTONS.items()}
from speedref import games as registry
MAX_TIME_MS = 24 * 60 * 60 * 1000
# Matched against the lowercased line (MicroPython's re, which the web page
# runs this module on, has no IGNORECASE).
_HEADER = re.compile(r"#\s*game\s*:\s*(\S*)\s*$")
_SEATS = re.compile(r"#\s*seats\s*:\s*(\S*)\s*$")


class ScriptError(ValueError):
    def __init__(self, lineno, line, why):
        ValueError.__init__(self, "line %d: %s: %r" % (lineno, why, line))
        self.lineno = lineno


def parse_time_us(text):
    """'12' -> 12000, '12.5' -> 12500, '0.001' -> 1: exact, no floats."""
    whole, dot, frac = text.partition(".")
    if not whole.isdigit() or (dot and not frac.isdigit()) or len(frac) > 3:
        raise ValueError("time must be milliseconds with at most 3 decimals")
    return int(whole) * 1000 + int((frac + "000")[:3])


def _header(text, pattern):
    """(lineno, raw line, value) of the first header line `pattern` matches
    before the first event, or None."""
    for lineno, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.strip()
        m = pattern.match(line.lower())
        if m:
            return lineno, raw, m.group(1)
        if line.split("#", 1)[0].strip():
            return None      # the events have begun
    return None


def header_game(text):
    """The game a `# game: G` line before the first event names, or None."""
    h = _header(text, _HEADER)
    if h is None:
        return None
    lineno, raw, game = h
    if game not in registry.IDS:
        raise ScriptError(lineno, raw, "unknown game %r (use %s)" % (game, ", ".join(registry.IDS)))
    return game


def header_seats(text):
    """The players a `# seats: N` line before the first event seats, or
    None (the game's fewest).  Whether the game seats that many is the
    game's to say when it starts."""
    h = _header(text, _SEATS)
    if h is None:
        return None
    lineno, raw, n = h
    if not n.isdigit() or not 1 <= int(n) <= 8:
        raise ScriptError(lineno, raw, "seats must be a number of players (2, 3, 4), not %r" % n)
    return int(n)


def parse(text):
    """Return [(t_us, button, is_down, lineno)], raising ScriptError on the
    first malformed line."""
    events = []
    last = 0
    for lineno, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 3:
            raise ScriptError(lineno, raw, "expected '<time_ms> <button> <down|up>'")
        t, name, edge = parts
        try:
            t_us = parse_time_us(t)
        except ValueError as e:
            raise ScriptError(lineno, raw, str(e))
        if t_us > MAX_TIME_MS * 1000:
            raise ScriptError(lineno, raw, "time beyond %d ms (24 hours)" % MAX_TIME_MS)
        if name.lower() not in BUTTONS:
            raise ScriptError(lineno, raw, "unknown button %r (use %s)" % (name, ", ".join(BUTTONS)))
        if edge.lower() not in ("down", "up"):
            raise ScriptError(lineno, raw, "edge must be 'down' or 'up'")
        if t_us < last:
            raise ScriptError(lineno, raw, "time goes backwards")
        last = t_us
        events.append((t_us, BUTTONS[name.lower()], edge.lower() == "down", lineno))
    return events
