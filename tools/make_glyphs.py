"""The board's glyphs for the accented Latin letters of names.

    .venv/bin/python -m tools.make_glyphs          # rewrites firmware/speedref/app/glyphs.py
    .venv/bin/python -m tools.make_glyphs --png F  # and a sheet of them, 4x, to look at

MicroPython's framebuf font is 8x8 printable ASCII; a name may also hold the
letters of U+00C0..U+017F (Latin-1's and Latin Extended-A's, speedref/names.py).
Each gets an 8x8 glyph in the font's own style (2-pixel strokes, the x-height
on rows 2-6, the baseline under row 6), made here from:

- the font's own letter (sim/font8x8.py) for a small letter, i and j without
  their dot, a mark above on rows 0-1 (the x-height starts on row 2);
- a capital drawn 5 rows high (rows 2-6, CAPS below) for a capital with a
  mark above: the font's capitals fill rows 0-6, an accent needs two of them;
- the font's own capital or small letter for a mark below (row 7: cedilla,
  ogonek);
- a glyph drawn whole (SPECIAL) for the letters that are no letter plus a
  mark (AE, eth, o with stroke, thorn, sharp s, dotless i, IJ, kra, L with
  middle dot or stroke, 'n, eng, OE, long s, H, D and T with stroke) and for
  the small letters with an ascender that take a mark (d, l and t with
  caron, l with acute, h with circumflex).

Unicode's own decomposition (unicodedata) says which base and which mark a
letter is made of.  The wheel's accented forms (ACCENTS) are every letter
under its base letter, the marks in MARK_ORDER's order (the most used
first), then the letters drawn whole that belong to that base.
"""
import argparse
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "firmware" / "speedref" / "app" / "glyphs.py"
FIRST = 0xC0
LAST = 0x17F

sys.path.insert(0, str(ROOT))
from sim.font8x8 import FONT  # noqa: E402

# Marks above, rows 0 and 1 ("." blank, "#" set), by combining character.
ABOVE = {
    "\u0301": ("....##..", "...##..."),   # acute
    "\u0300": ("..##....", "...##..."),   # grave
    "\u0302": ("...##...", "..#..#.."),   # circumflex
    "\u0308": (".##..##.", "........"),   # diaeresis
    "\u0303": ("..##..#.", ".#..##.."),   # tilde
    "\u030a": ("..####..", "..#..#.."),   # ring: closed by the letter's top
    "\u030c": ("..#..#..", "...##..."),   # caron
    "\u0304": (".######.", "........"),   # macron
    "\u0306": (".#....#.", "..####.."),   # breve
    "\u0307": ("...##...", "........"),   # dot above
    "\u030b": ("...#..#.", "..#..#.."),   # double acute
}
TURNED_COMMA = ("...##...", "...#....")  # a cedilla over a letter with a descender (g)
# Marks below, row 7.
BELOW = {
    "\u0327": "...##...",   # cedilla
    "\u0328": ".....##.",   # ogonek
}
# The wheel's order of the marks: the most used in Europe's names first.
MARK_ORDER = ("\u0301", "\u0300", "\u0302", "\u0308", "\u0303", "\u030a", "\u0327", "\u030c",
              "\u0328", "\u0304", "\u0306", "\u0307", "\u030b")

# Capitals 5 rows high (rows 2-6), for a mark above.
CAPS = {
    "A": ("..####..", ".##..##.", ".######.", ".##..##.", ".##..##."),
    "C": ("..####..", ".##..##.", ".##.....", ".##..##.", "..####.."),
    "D": (".####...", ".##.##..", ".##..##.", ".##.##..", ".####..."),
    "E": (".######.", ".##.....", ".####...", ".##.....", ".######."),
    "G": ("..#####.", ".##.....", ".##.###.", ".##..##.", "..####.."),
    "H": (".##..##.", ".##..##.", ".######.", ".##..##.", ".##..##."),
    "I": ("..####..", "...##...", "...##...", "...##...", "..####.."),
    "J": ("...####.", "....##..", "....##..", ".##.##..", "..###..."),
    "K": (".##..##.", ".##.##..", ".####...", ".##.##..", ".##..##."),
    "L": (".##.....", ".##.....", ".##.....", ".##.....", ".######."),
    "N": (".##..##.", ".###.##.", ".######.", ".##.###.", ".##..##."),
    "O": ("..####..", ".##..##.", ".##..##.", ".##..##.", "..####.."),
    "R": (".#####..", ".##..##.", ".#####..", ".##.##..", ".##..##."),
    "S": ("..#####.", ".##.....", "..####..", ".....##.", ".#####.."),
    "T": (".######.", "...##...", "...##...", "...##...", "...##..."),
    "U": (".##..##.", ".##..##.", ".##..##.", ".##..##.", "..####.."),
    "W": (".##...##", ".##.#.##", ".#######", ".###.###", ".##...##"),
    "Y": (".##..##.", ".##..##.", "..####..", "...##...", "...##..."),
    "Z": (".######.", "....##..", "...##...", "..##....", ".######."),
}

# Letters drawn whole, 8 rows each, and the base letter whose wheel they join.
SPECIAL = {
    "\u00c6": ("A", ("..#####.", ".##.##..", ".##.##..", ".######.", ".##.##..", ".##.##..",
                     ".##.###.", "........")),      # AE
    "\u00e6": ("a", ("........", "........", ".##.##..", "...#..#.", ".######.", "#..#....",
                     ".##.###.", "........")),      # ae
    "\u00d0": ("D", (".####...", ".##.##..", ".##..##.", "####.##.", ".##..##.", ".##.##..",
                     ".####...", "........")),      # Eth
    "\u00f0": ("d", ("..##.#..", "...##...", "..#.##..", ".....##.", "..#####.", ".##..##.",
                     "..####..", "........")),      # eth
    "\u00d8": ("O", ("..####.#", ".##..##.", ".##.###.", ".######.", ".###.##.", ".##..##.",
                     "#.####..", "........")),      # O with stroke
    "\u00f8": ("o", ("........", "........", "..####.#", ".##.###.", ".######.", ".###.##.",
                     "#.####..", "........")),      # o with stroke
    "\u00de": ("T", (".##.....", ".#####..", ".##..##.", ".##..##.", ".#####..", ".##.....",
                     ".##.....", "........")),      # Thorn
    "\u00fe": ("t", (".##.....", ".##.....", ".#####..", ".##..##.", ".##..##.", ".#####..",
                     ".##.....", ".##.....")),      # thorn
    "\u00df": ("s", ("..####..", ".##..##.", ".##.##..", ".##..##.", ".##..##.", ".##.##..",
                     ".##.....", "........")),      # sharp s
    "\u0110": ("D", (".####...", ".##.##..", ".##..##.", "####.##.", ".##..##.", ".##.##..",
                     ".####...", "........")),      # D with stroke (as Eth)
    "\u0111": ("d", (".....##.", "...#####", "..#####.", ".##..##.", ".##..##.", ".##..##.",
                     "..#####.", "........")),      # d with stroke
    "\u0126": ("H", (".##..##.", "########", ".##..##.", ".######.", ".##..##.", ".##..##.",
                     ".##..##.", "........")),      # H with stroke
    "\u0127": ("h", (".##.....", "####....", ".#####..", ".##..##.", ".##..##.", ".##..##.",
                     ".##..##.", "........")),      # h with stroke
    "\u0131": ("i", ("........", "........", "...##...", "...##...", "...##...", "...##...",
                     "..####..", "........")),      # dotless i
    "\u0132": ("I", ("###..##.", ".#...##.", ".#...##.", ".#...##.", ".#...##.", ".#.#.##.",
                     "###.##..", "........")),      # IJ
    "\u0133": ("i", (".#...##.", "........", "##...##.", ".#...##.", ".#...##.", ".#...##.",
                     "###..##.", "...###..")),      # ij
    "\u0138": ("k", ("........", "........", ".##..##.", ".##.##..", ".####...", ".##.##..",
                     ".##..##.", "........")),      # kra
    "\u013f": ("L", (".##.....", ".##.....", ".##.....", ".##..##.", ".##.....", ".##.....",
                     ".######.", "........")),      # L with middle dot
    "\u0140": ("l", ("###.....", ".##.....", ".##.....", ".##..##.", ".##.....", ".##.....",
                     "####....", "........")),      # l with middle dot
    "\u0141": ("L", (".##.....", ".##.....", ".##.##..", ".####...", "###.....", ".##.....",
                     ".######.", "........")),      # L with stroke
    "\u0142": ("l", ("..###...", "...##...", "...####.", "..###...", ".####...", "...##...",
                     "..####..", "........")),      # l with stroke
    "\u0149": ("n", ("##......", ".#......", "#.####..", "..##.##.", "..##.##.", "..##.##.",
                     "..##.##.", "........")),      # 'n
    "\u014a": ("N", (".##..##.", ".###.##.", ".######.", ".######.", ".##.###.", ".##..##.",
                     ".##..##.", "....##..")),      # Eng
    "\u014b": ("n", ("........", "........", ".#####..", ".##..##.", ".##..##.", ".##..##.",
                     ".##..##.", "....##..")),      # eng
    "\u0152": ("O", ("..######", ".##.##..", ".##.##..", ".##.###.", ".##.##..", ".##.##..",
                     "..######", "........")),      # OE
    "\u0153": ("o", ("........", "........", ".##.##..", "#..#..#.", "#..####.", "#..#....",
                     ".##.###.", "........")),      # oe
    "\u017f": ("s", ("...###..", "..##.##.", "..##....", "..##....", "..##....", "..##....",
                     "..##....", "........")),      # long s
    "\u0166": ("T", (".######.", "...##...", "...##...", ".######.", "...##...", "...##...",
                     "...##...", "........")),      # T with stroke
    "\u0167": ("t", ("..##....", "..##....", "######..", "..##....", "#####...", "..##.##.",
                     "...###..", "........")),      # t with stroke
    # small letters with an ascender that take a mark above
    "\u010f": ("d", (".....##.", ".....##.", "..#####.", ".##..##.", ".##..##.", ".##..##.",
                     "..#####.", "........")),      # d with caron, redrawn below
    "\u013e": ("l", ("..###.#.", "...##.#.", "...##...", "...##...", "...##...", "...##...",
                     "..####..", "........")),      # l with caron
    "\u013d": ("L", (".##..##.", ".##...#.", ".##.....", ".##.....", ".##.....", ".##.....",
                     ".######.", "........")),      # L with caron
    "\u0165": ("t", ("..##.##.", "..##..#.", "######..", "..##....", "..##....", "..##.##.",
                     "...###..", "........")),      # t with caron
    "\u013a": ("l", ("....##..", "...##...", "..###...", "...##...", "...##...", "...##...",
                     "..####..", "........")),      # l with acute
    "\u0125": ("h", ("...##...", "..#..#..", ".##.....", ".#####..", ".##..##.", ".##..##.",
                     ".##..##.", "........")),      # h with circumflex
    # not letters, and not in names: the two signs among Latin-1's letters
    "\u00d7": (None, ("........", ".##..##.", "..####..", "...##...", "..####..", ".##..##.",
                      "........", "........")),     # multiplication sign
    "\u00f7": (None, ("........", "...##...", "........", ".######.", "........", "...##...",
                      "........", "........")),     # division sign
}
# d with caron: the caron as an apostrophe beside the ascender
SPECIAL["\u010f"] = ("d", ("....##.#", "....##.#", "..#####.", ".##..##.", ".##..##.", ".##..##.",
                           "..#####.", "........"))


def font_rows(ch):
    """The font's glyph of ASCII `ch` as 8 rows of '.'/'#'."""
    i = (ord(ch) - 32) * 8
    cols = FONT[i:i + 8]
    return ["".join("#" if cols[c] >> r & 1 else "." for c in range(8)) for r in range(8)]


def columns(rows):
    """8 rows of '.'/'#' as MONO_VLSB bytes: byte c is column c, bit r row r."""
    assert len(rows) == 8 and all(len(r) == 8 for r in rows), rows
    return bytes(sum(1 << r for r in range(8) if rows[r][c] == "#") for c in range(8))


def parts(ch):
    """(base letter, mark) of `ch` from Unicode's canonical decomposition,
    or None when it is not one ASCII letter and one mark."""
    d = unicodedata.decomposition(ch)
    if not d or d.startswith("<"):
        return None
    cps = [chr(int(x, 16)) for x in d.split()]
    if len(cps) != 2 or not ("A" <= cps[0] <= "Z" or "a" <= cps[0] <= "z"):
        return None
    return cps[0], cps[1]


def glyph_rows(ch):
    """The 8 rows of `ch`'s glyph."""
    if ch in SPECIAL:
        return list(SPECIAL[ch][1])
    base, mark = parts(ch)
    rows = font_rows(base)
    if mark in BELOW and rows[7] == "........":
        return rows[:7] + [BELOW[mark]]
    # g's cedilla (Latvian) is written above it, a turned comma: g has a descender
    top = list(ABOVE[mark] if mark in ABOVE else TURNED_COMMA)
    if base.isupper():
        return top + list(CAPS[base]) + ["........"]
    if base in "ij":
        rows[0] = rows[1] = "........"  # dotless: the mark takes the dot's place
    assert rows[0] == rows[1] == "........", "%s: %s has an ascender" % (ch, base)
    return top + rows[2:]


def letters():
    """Every code point of the table, in order."""
    return [chr(c) for c in range(FIRST, LAST + 1)]


def accents():
    """For each base letter with accented forms: the base, then its forms
    (marks in MARK_ORDER's order, then the letters drawn whole under it)."""
    forms = {}
    for ch in letters():
        p = parts(ch)
        if p is not None:  # a letter and a mark, drawn whole or not
            forms.setdefault(p[0], []).append((MARK_ORDER.index(p[1]), ch))
        elif SPECIAL[ch][0] is not None:
            forms.setdefault(SPECIAL[ch][0], []).append((len(MARK_ORDER) + ord(ch) / 1e6, ch))
    out = []
    for base in sorted(forms, key=lambda b: (b.lower(), b.islower())):
        out.append(base + "".join(ch for _, ch in sorted(forms[base])))
    return out


def table():
    return b"".join(columns(glyph_rows(ch)) for ch in letters())


def render():
    data = table()
    lines = [
        "# The glyphs of the accented Latin letters a name may hold (speedref/names.py):",
        "# U+00C0..U+017F, Latin-1's letters and Latin Extended-A, 8x8 in the style of",
        "# framebuf's own font, which draws printable ASCII only.  app/ui.py draws",
        "# them (ui.text, ui.big) and the letter wheel (app/who.py) offers ACCENTS.",
        "# Loaded only when such a letter is drawn: frozen into the firmware the",
        "# table stays in flash; installed as .mpy it is %d bytes of heap." % len(data),
        "# GENERATED by tools/make_glyphs.py (which says how each glyph is made);",
        "# do not edit by hand.",
        "",
        "FIRST = 0x%X  # the first letter's code point; GLYPHS has one every code point to 0x%X" % (
            FIRST, LAST),
        "# 8 bytes a letter, in code point order: byte c is column c, bit r row r",
        "# (MONO_VLSB, as framebuf's font), 0x%X..0x%X" % (FIRST, LAST),
        "GLYPHS = (",
    ]
    for i in range(0, len(data), 32):
        chunk = data[i:i + 32]
        lines.append('    b"%s"  # %s' % ("".join("\\x%02x" % b for b in chunk),
                                        "".join(letters()[i // 8:i // 8 + 4])))
    lines.append(")")
    lines += [
        "# The letter wheel's accented forms: each string is a base letter, then",
        "# the letters made from it, the most used first.",
        "ACCENTS = (",
    ]
    for s in accents():
        lines.append('    "%s",  # %s' % ("".join("\\u%04x" % ord(c) if ord(c) > 126 else c for c in s), s))
    lines.append(")")
    lines += [
        "",
        "",
        "def forms(ch):",
        '    """The accented forms of letter `ch`, `ch` first; None when it has',
        '    none."""',
        "    for s in ACCENTS:",
        "        if s[0] == ch:",
        "            return s",
        "    return None",
    ]
    return "\n".join(lines) + "\n"


def sheet(path, scale=4):
    """Every glyph beside its base letter's, 4x, to look at."""
    from PIL import Image
    chars = letters()
    per = 16
    w = per * 9 * 2
    h = ((len(chars) + per - 1) // per) * 10
    im = Image.new("L", (w, h), 0)
    px = im.load()
    for n, ch in enumerate(chars):
        x0 = (n % per) * 18
        y0 = (n // per) * 10
        p = parts(ch) if ch not in SPECIAL else None
        base = SPECIAL[ch][0] if ch in SPECIAL else p[0]
        for k, rows in enumerate((font_rows(base) if base else ["........"] * 8, glyph_rows(ch))):
            for r in range(8):
                for c in range(8):
                    if rows[r][c] == "#":
                        px[x0 + 9 * k + c, y0 + r] = 255
    im = im.resize((w * scale, h * scale), Image.NEAREST)
    im.save(path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--png", help="also write a sheet of the glyphs to look at")
    args = ap.parse_args(argv)
    OUT.write_text(render(), encoding="utf-8")
    print("wrote", OUT)
    if args.png:
        sheet(args.png)
        print("wrote", args.png)


if __name__ == "__main__":
    main()
