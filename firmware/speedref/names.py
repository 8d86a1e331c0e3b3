# Players' and tables' names: the one check every place a name is entered
# uses (the board's picker and letter wheel, its console commands, the host
# tool, the simulator, the web page), so a name refused in one is refused
# in all, for the same reason in the same words.
#
# A name is what the OLED can draw: printable ASCII (0x20..0x7E, framebuf's
# 8x8 font) and the accented Latin letters a European club's members are
# written with, U+00C0..U+017F (Latin-1's letters, Latin Extended-A's:
# "Zo\u00eb", "Jos\u00e9", "\u0141ukasz"; app/glyphs.py draws them), but
# the two signs among them (U+00D7, U+00F7).  Anything else (a control or
# escape character, a combining accent, another script, an emoji) is
# refused, never transliterated: a name the board cannot show is a name
# nobody at the table can read.  Lengths count characters, not bytes: in
# UTF-8 (the console, the flash, the log) each accented letter is 2 bytes,
# so a 10-character name is at most 20 bytes.  Spaces around a name are
# dropped; its case is kept for display, and two names that differ only in
# case are one person (fold(); the results database folds case too).  The
# seat labels P1..P4 and "Guest" stand for an unnamed seat, so they are no
# one's name.  On CPython (host_tools, the simulator) a name is first
# composed (Unicode NFC: "e" and a combining acute become one letter, as a
# laptop's file may spell it); a board has no unicodedata and refuses the
# combining accent instead, so what reaches it from the laptop is NFC.
#
# Also imported on CPython (host_tools, sim): plain Python, no const().
import sys

if sys.implementation.name == "micropython":
    _nfc = None
else:
    from unicodedata import normalize as _normalize

    def _nfc(name):
        return _normalize("NFC", name)

NAME_MAX = 10     # characters in a player's name: 10 x 8 px fit any screen row with room
TABLE_MAX = 16    # characters in a table's name: one full OLED row
ROSTER_MAX = 100  # names a board's roster keeps (heap: docs/figures.md)
GUEST = "Guest"
SEATS = ("P1", "P2", "P3", "P4")  # the seat labels: an unnamed seat's name in records


class BadName(ValueError):
    """A name refused at entry; str() says why, for people."""


def label(seat):
    """Seat `seat`'s label (0 -> "P1"): the name of an unnamed seat."""
    return SEATS[seat] if 0 <= seat < len(SEATS) else "P%d" % (seat + 1)


def why_not(name, limit=NAME_MAX, what="name"):
    """None when `name` (already stripped) can be a name, else why not."""
    if not isinstance(name, str):
        return "%s must be text" % what
    if not name:
        return "empty %s" % what
    for ch in name:
        c = ord(ch)
        if not shown(c):
            return "%s %s: character %s cannot be shown on the board (ASCII and Latin letters only)" % (
                what, _quote(name), _char(c))
    if len(name) > limit:
        return "%s %s is %d characters, %d at most" % (what, _quote(name), len(name), limit)
    return None


def clean(name, limit=NAME_MAX, what="name"):
    """`name` with the spaces around it dropped; BadName saying why
    when it cannot be a player's name (or a table's, with limit TABLE_MAX)."""
    if isinstance(name, str):
        name = name.strip(" ")
        if _nfc is not None:
            name = _nfc(name)
    why = why_not(name, limit, what)
    if why is None and what == "name" and reserved(name):
        why = "name %s is kept for an unnamed seat" % _quote(name)
    if why is not None:
        raise BadName(why)
    return name


def clean_table(name):
    return clean(name, TABLE_MAX, "table name")


def shown(c):
    """Code point c can be in a name: printable ASCII, or a Latin letter of
    U+00C0..U+017F (not the signs U+00D7 and U+00F7)."""
    return 0x20 <= c <= 0x7E or (0xC0 <= c <= 0x17F and c != 0xD7 and c != 0xF7)


def fold(name):
    """`name` without case, as names are compared: ASCII by str.lower, an
    accented capital by its small letter (Unicode's simple lowercase; the
    dotted capital I by i).  MicroPython's str.lower() folds ASCII only: this
    folds "ZO\u00cb" to "zo\u00eb" on a board as on a laptop."""
    for ch in name:
        if ord(ch) >= 0xC0:
            break
    else:
        return name.lower()
    out = ""
    for ch in name:
        c = ord(ch)
        out += ch.lower() if c < 0xC0 else chr(_lower(c))
    return out


def _lower(c):
    # the small letter of a letter of U+00C0..U+017F: Latin-1's capitals
    # are 0x20 below theirs; Latin Extended-A's pairs are capital-small,
    # from an even code point (U+0100, U+014A) or an odd one (U+0139, U+0179)
    if c <= 0xDE:
        return c if c == 0xD7 else c + 0x20
    if c == 0x130:
        return 0x69
    if c == 0x178:
        return 0xFF
    if 0x100 <= c <= 0x137 or 0x14A <= c <= 0x177:
        return c | 1 if c != 0x131 else c
    if 0x139 <= c <= 0x148 or 0x179 <= c <= 0x17E:
        return c + (c & 1)
    return c


def reserved(name):
    """A seat label or Guest, in any case."""
    low = fold(name)
    if low == "guest":
        return True
    return len(low) == 2 and low[0] == "p" and "1" <= low[1] <= "4"


def same(a, b):
    """The same person: names equal but for case."""
    return fold(a) == fold(b)


def find(names, name):
    """The index in `names` of the same person as `name`, or -1."""
    low = fold(name)
    for i in range(len(names)):
        if fold(names[i]) == low:
            return i
    return -1


def check_game(players):
    """The names of one game's seats, in seat order: each a seat label (a
    Guest) or a clean name, none twice.  Returns the list; BadName says
    which is wrong."""
    out = []
    for i in range(len(players)):
        p = players[i]
        if isinstance(p, str) and p.strip(" ") in (GUEST, label(i)):
            out.append(label(i))
            continue
        p = clean(p)
        if find(out, p) >= 0:
            raise BadName("%s is playing already: one seat each" % p)
        out.append(p)
    return out


def short(name, n):
    """The first n characters of a name, for a screen with room for n."""
    return name if len(name) <= n else name[:n]


def _quote(name):
    # shown in an error: never the character that is refused itself (it
    # may be an escape sequence), and never more than a screen's width
    out = ""
    for ch in name[:16]:
        out += ch if shown(ord(ch)) else "?"
    return '"' + out + ('..."' if len(name) > 16 else '"')


def _char(c):
    return "U+%04X" % c


def for_game(opts, n):
    """The names of a game's n seats from its options' "names" (the
    picker's, the simulator's --names), else the seat labels.  BadName (a
    ValueError: the game is not started, and says why) for a wrong list."""
    v = opts.get("names")
    if v is None:
        return SEATS[:n]
    if not isinstance(v, (list, tuple)) or len(v) != n:
        raise BadName("%d names wanted, one a seat" % n)
    return tuple(check_game(v))


def table_name(settings, install):
    """This table's name: the one set (settings "table"), else one made
    from the store's install id ("Table 9f3c2a71"), so no two stores
    (boards, simulator folders, browser profiles) share a default."""
    t = settings.get("table")
    return t if isinstance(t, str) else "Table " + (install or "00000000")


def fit(pre, name, post="", width=16):
    """pre + name + post in `width` characters, the name cut to make room."""
    room = width - len(pre) - len(post)
    return pre + (name if len(name) <= room else name[:max(room, 1)]) + post
