"""Each game's own log lines in words, for people: the simulator's event
log (speedref-sim, its window and --log) and the emulator's (speedref-emu).

A game's registry entry names its module here (`words`); the module's
`describe(obj, seat)` words the lines only that game prints (Speed's deals,
Spit's rounds, a Speed Run or partners hand) and returns None for any other,
which sim/tui.py's describe() then shows as JSON.  `seat(s)` names a seat
("P1").  The lines every game prints (slaps, false starts, the game's end)
are worded in sim/tui.py.  What the modules share is here.
"""


def count(n, word):
    """3, "flip" -> "3 flips"; 1 -> "1 flip"."""
    return "%s %s%s" % ("?" if n is None else n, word, "" if n == 1 else "s")


def nums(xs, sep="-"):
    """[15, 0] -> "15-0"; a None (a Pass's score) is "-"."""
    if not isinstance(xs, list):
        return "?"
    return sep.join("-" if x is None else str(x) for x in xs)
