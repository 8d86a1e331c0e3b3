# The accented letters of names on the screen (U+00C0..U+017F,
# speedref/names.py): ui.text and ui.big hand a string that holds one here.
# framebuf's font is printable ASCII, and framebuf draws every byte of any
# other character as a box (a letter of "Zo\u00eb" takes two bytes of UTF-8):
# the string is drawn by framebuf into ui's line, then lay() puts each
# character's cell in its place, an accented letter's glyph from
# app/glyphs.py, and _put() puts small text's cells on the screen (big text
# scales them with ui._put_cells).  Loaded with the first accented letter
# drawn and let go when the game closes (ui.let_go): a board whose names
# are plain ASCII never holds this code nor the glyphs in its heap.
# It imports only the glyphs: ui hands it its line (`line`, and `lfb`, the
# FrameBuffer over it), so no module comes back to itself through its imports.
import micropython
from .glyphs import GLYPHS

try:
    ptr8
except NameError:
    def ptr8(b):
        """ptr8 for plain Python (the simulator on CPython, the web page), as
        ui's: a str's UTF-8 and the NUL that ends every MicroPython string; a
        frame buffer's bytes (CPython's framebuf keeps them in _mv)."""
        if isinstance(b, str):
            return b.encode() + b"\0"
        mv = getattr(b, "_mv", None)
        return memoryview(b) if mv is None else mv


@micropython.viper
def text(fb, s, x: int, y: int, c: int, line, lfb):
    # ui.text's string with an accented letter, at x, y in colour c; line
    # is ui's (256 bytes), lfb the FrameBuffer over it.
    lfb.text(s, 0, 0, 1)
    _put(fb, line, lay(line, s), x, y, c)


@micropython.viper
def lay(line, s) -> int:
    # Lay out `line`, where framebuf has drawn str s from column 0 (the cell
    # of s's byte i at columns 8i..8i+7), so that character k's cell is at
    # 8k..8k+7; a character of U+00C0..U+017F takes its glyph from GLYPHS,
    # any other non-ASCII one keeps framebuf's box.  Only bytes 0..31 have
    # cells (the line's room: 16 accented letters, a screen's width).  The
    # columns left over after the last character are blanked.  Returns the
    # number of characters laid out.
    dst = ptr8(line)
    src = ptr8(s)
    gl = ptr8(GLYPHS)
    i = 0  # byte of s
    k = 0  # character
    while i < 32:
        b = int(src[i])
        if b == 0:
            break
        d = k << 3
        o = i << 3  # framebuf's cell of this byte
        if b < 0x80:
            i += 1
        else:
            m = 2  # the bytes of this character, and its code point
            cp = b & 0x1F
            if b >= 0xF0:
                m = 4
                cp = b & 0x07
            elif b >= 0xE0:
                m = 3
                cp = b & 0x0F
            j = 1
            while j < m:
                cp = (cp << 6) | (int(src[i + j]) & 0x3F)
                j += 1
            i += m
            if 0xC0 <= cp and cp <= 0x17F:  # the letter's glyph
                o = (cp - 0xC0) << 3
                j = 0
                while j < 8:
                    dst[d + j] = gl[o + j]
                    j += 1
                k += 1
                continue
        if o != d:  # the byte's cell, or framebuf's box for the character
            j = 0
            while j < 8:
                dst[d + j] = dst[o + j]
                j += 1
        k += 1
    j = k << 3
    e = i << 3
    if e > 256:
        e = 256
    while j < e:
        dst[j] = 0
        j += 1
    return k


@micropython.viper
def _put(fb, line, n: int, x: int, y: int, c: int):
    # The first n cells of `line` (8 columns each, a byte a column, bit r row
    # r) onto fb, 128x64 MONO_VLSB (page p, column x at byte 128p + x, row
    # y & 7 its bit), at x, y: each column's byte shifted into the one or
    # two pages it falls on, its set pixels in colour c (1 set, 0 clear: the
    # title bar's dark text), the others left as they are, as framebuf's
    # text does; clipped to the screen.  The line's columns are blanked.
    buf = ptr8(fb)
    src = ptr8(line)
    p = y >> 3
    sh = y & 7
    w = n << 3
    col = 0
    while col < w:
        v = int(src[col])
        src[col] = 0
        dx = x + col
        col += 1
        if v == 0 or dx < 0 or dx >= 128:
            continue
        i = (p << 7) + dx
        if 0 <= p and p < 8:
            lo = (v << sh) & 0xFF
            if c:
                buf[i] = buf[i] | lo
            else:
                buf[i] = buf[i] & (0xFF ^ lo)
        if sh and -1 <= p and p < 7:
            hi = v >> (8 - sh)
            i += 128
            if c:
                buf[i] = buf[i] | hi
            else:
                buf[i] = buf[i] & (0xFF ^ hi)
