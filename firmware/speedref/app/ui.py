# What every screen is made of, for the app (core.py), the menu and the
# flows alike: the buttons' numbers, the buzzer cues, the Screen base, and
# drawing helpers for a 128x64 one-bit screen that people read at arm's
# length while their hands are busy with cards: big digits (the 8x8 font
# scaled up), centred lines, an inverted title bar, and text with the
# accented letters of names (text()).  `framebuf` calls, and viper functions
# that read a string's UTF-8 (text, _lay) and set the frame buffer's bytes
# themselves (_put_cells, bar), so the board and the simulator draw the same
# bytes.  Of speedref it imports only its glyph table (app/glyphs.py),
# and that only when an accented letter is drawn: the app and the menu both
# import ui, and neither the other.
#
# The layout every screen shares, top to bottom:
#   title(fb, s)        the inverted bar on rows 0-8: which screen this is
#   row(fb, n, s)       small text on line n = 0..5 under it (y 11, 20, .. 56)
#   big(...), big_center(fb, s, y, scale)   the number or word that matters
#   hint(fb, s)         the bottom line (line 5, y 56): what the keys do now
# Screens put a few things between the lines (a big number, a two-line note);
# those keep their own y.  The line positions are written out in row(),
# hint() and menu_rows(): this module is loaded for every screen, and
# importing const() for three numbers costs more heap than it saves.
import framebuf
import micropython

try:
    ptr8
except NameError:
    def ptr8(fb):
        """What a viper function's ptr8(fb) is, for plain Python (the
        simulator on CPython, the web page, whose MicroPython has no native
        code emitter): the frame buffer's bytes, writable.  CPython's
        framebuf (sim/framebuf.py) keeps them in _mv; MicroPython's has the
        buffer protocol.  A str: its UTF-8 and the NUL that ends every
        MicroPython string (CPython's str has no buffer protocol)."""
        if isinstance(fb, str):
            return fb.encode() + b"\0"
        mv = getattr(fb, "_mv", None)
        return memoryview(fb) if mv is None else mv

# The buttons: 0..3 are the players' pads P1..P4 (a pad is b < UP), then the
# navigation keys (docs/architecture.md, "Input path").
UP = 4
DOWN = 5
OK = 6
BACK = 7

# Buzzer cues (freq_hz, ms).  Module constants, so queueing one allocates nothing.
# Their lengths are not tunables: each is part of its cue's sound, with its
# pitch (a GO long and high, a FOUL long and low).
CLICK = (1320, 25)      # a button was taken
COUNT = (880, 120)      # 3, 2, 1 of a countdown
GO = (1760, 350)        # the exact instant to flip
FOUL = (220, 500)       # false start or an entry refused
CALL = (1175, 60)       # a player's call (ready, stuck) registered
WIN = (1568, 450)       # a deal or game decided
ERROR = (330, 200)      # something refused or went wrong


class Screen:
    """Base for screens and flows: every event ignored unless overridden."""

    pad_lights = 0  # what a screen other than a game lights (App._set_lights)

    def press(self, b, t_us):
        pass

    def release(self, b, t_us):
        pass

    def tick(self, now_us):
        pass

    def back(self, t_us):
        pass

    def draw(self, fb):
        pass


W = 128
H = 64

# A line of text, drawn here by framebuf before it goes to the screen: a
# byte a column (8 rows, MONO_VLSB), room for 32 bytes of UTF-8 (16
# accented letters, a screen's width).  framebuf's font is printable ASCII
# and it draws every byte of any other character as a box (a letter of a
# name like "Zo\u00eb" takes two bytes); _lay then puts each character's
# cell in its place, an accented letter's glyph from app/glyphs.py, and
# _put_cells puts the cells on the screen, big text's scaled.  Blank
# between uses: _lay blanks what it leaves over, _put_cells what it puts.
_LINE = bytearray(256)
_lfb = framebuf.FrameBuffer(_LINE, 256, 8, framebuf.MONO_VLSB)
_glyphs = b""  # app/glyphs.py's table, loaded at the first accented letter drawn


def _table():
    global _glyphs
    if not _glyphs:
        from . import glyphs
        _glyphs = glyphs.GLYPHS
    return _glyphs


def let_go():
    """The glyph table leaves the heap with the names that needed it (the
    app, when a game closes); the next accented letter loads it again."""
    global _glyphs
    _glyphs = b""


@micropython.viper
def text(fb, s, x: int, y: int, c: int):
    # framebuf's text(s, x, y, c), the accented letters of names
    # (U+00C0..U+017F, speedref.names) included, each in one 8x8 cell of
    # the font's style: text that holds one is laid out in _LINE and put on
    # fb by machine code (fb: 128x64 MONO_VLSB; at most 32 bytes of UTF-8
    # are drawn, a screen's width); ASCII text goes straight to framebuf.
    # Machine code itself, as the test for an accented letter reads the
    # string's bytes (to the NUL that ends every MicroPython string, as
    # framebuf's text reads): a Python function in front of framebuf cost
    # 50 us a line on the emulated Pico, this 11 us.  (No default for c:
    # viper has none.)
    p = ptr8(s)
    i = 0
    while True:
        b = int(p[i])
        if b == 0:
            fb.text(s, x, y, c)
            return
        if b >= 0x80:
            break
        i += 1
    _lfb.text(s, 0, 0, 1)
    _put_cells(fb, _LINE, _lay(_LINE, s, _table()), x, y, 1, c)


def center(fb, s, y, c=1):
    """Small text (8 px) centred on the line starting at row y."""
    text(fb, s, (W - 8 * len(s)) // 2, y, c)


def title(fb, s):
    """An inverted bar on the top line: tells which screen this is."""
    bar(fb)
    text(fb, s, (W - 8 * len(s)) // 2, 1, 0)


@micropython.viper
def bar(fb):
    # The title's bar, rows 0-8 lit across the screen (fb: 128x64
    # MONO_VLSB): page 0 whole, row 0 of page 1.  framebuf's fill_rect sets
    # it a pixel at a time, 0.13 ms on the emulated Pico; this takes 0.05.
    b = ptr8(fb)
    i = 0
    while i < 128:
        b[i] = 0xFF
        b[i + 128] = b[i + 128] | 1
        i += 1


def row(fb, n, s, x=0):
    """Small text on line n under the title bar (n = 0..5: y = 11 + 9n),
    from the left edge or from x."""
    text(fb, s, x, 11 + 9 * n, 1)


def hint(fb, s, centred=False):
    """The bottom line: what the keys do now ("OK: next"), or a line of news."""
    text(fb, s, (W - 8 * len(s)) // 2 if centred else 0, 56, 1)


def sides(fb, left, right, y):
    """One line of two players: `left` from the left edge, `right` up to
    the right one ("P1 STUCK    P2 -")."""
    text(fb, left, 0, y, 1)
    text(fb, right, W - 8 * len(right), y, 1)


def big(fb, s, x, y, scale):
    """Text with every font pixel drawn as a scale x scale square (fb: a
    128x64 MONO_VLSB FrameBuffer; set pixels only, clipped to the screen).
    The line is drawn by framebuf at 8x8 first (into _LINE, accented
    letters laid out as text() lays them), then its cells are scaled by
    _put_cells straight into fb's bytes: on a board that is machine code,
    and a glyph takes 0.12-0.19 ms on the emulated Pico (scale 2-5) where a
    rectangle for each run of pixels took 0.55 ms (a big name or count is
    on every verdict's screen).

    Nothing here takes s apart a character at a time: that makes a
    one-character string of each, interned the first time it is seen, and
    that allocates inside a press's redraw."""
    _lfb.text(s, 0, 0, 1)
    n = _lay(_LINE, s, _glyphs)
    if n < 0:
        n = _lay(_LINE, s, _table())
    _put_cells(fb, _LINE, n, x, y, scale, 1)


@micropython.viper
def _lay(line, s, g) -> int:
    # Lay out `line`, where framebuf has drawn str s from column 0 (the cell
    # of s's byte i at columns 8i..8i+7), so that character k's cell is at
    # 8k..8k+7; a character of U+00C0..U+017F takes its glyph from g (8
    # bytes a letter from U+00C0, app/glyphs.py), any other non-ASCII one
    # keeps framebuf's box.  Only bytes 0..31 have cells (the line's room).
    # The columns left over after the last character are blanked.  Returns
    # the number of characters laid out; -1, with nothing moved, when s
    # holds an accented letter and g is empty (the table not loaded yet).
    dst = ptr8(line)
    src = ptr8(s)
    gl = ptr8(g)
    if int(len(g)) == 0:
        i = 0
        while True:
            b = int(src[i])
            if b == 0:
                break
            if b >= 0x80:
                return -1
            i += 1
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
def _put_cells(fb, g, n: int, x: int, y: int, scale: int, c: int):
    # The first n cells of g (8 bytes each, MONO_VLSB: byte c is column c,
    # bit r is row r) into fb, 128x64 MONO_VLSB (page p, column x at byte
    # 128p + x, row y & 7 its bit), from x, y, each pixel scale x scale, in
    # colour c (1 set; 0 clear: the title bar's dark text); the other
    # pixels left as they are (as framebuf's text), clipped to the screen.
    # At scale 1 a column's byte is shifted into the one or two pages it
    # falls on; bigger, a run of set pixels in a column (and the columns
    # after it that are the same) is written into the bytes it covers a
    # page at a time.  The
    # cells are blanked (g is the line: blank for its next text).  Plain
    # Python too (ptr8 above): the same bytes in the simulator and the web
    # page.
    buf = ptr8(fb)
    src = ptr8(g)
    if scale == 1:  # small text: a column's byte shifted into one or two pages
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
                buf[i] = (buf[i] | lo) if c else (buf[i] & (0xFF ^ lo))
            if sh and -1 <= p and p < 7:
                hi = v >> (8 - sh)
                i += 128
                buf[i] = (buf[i] | hi) if c else (buf[i] & (0xFF ^ hi))
        return
    k = 0
    while k < n:
        o = k << 3
        cx = x + o * scale  # the cell's left edge on the screen
        col = 0
        while col < 8:
            bits = int(src[o + col])
            nx = col + 1
            while nx < 8 and int(src[o + nx]) == bits:
                nx += 1
            x0 = cx + col * scale
            x1 = cx + nx * scale
            if x0 < 0:
                x0 = 0
            if x1 > 128:
                x1 = 128
            r = 0
            while bits and x0 < x1:
                if bits & 1:
                    q = r + 1  # the run is rows r .. q - 1 of the glyph
                    bits >>= 1
                    while bits & 1:
                        q += 1
                        bits >>= 1
                    a = y + r * scale  # rows a .. b - 1 of the screen
                    b = y + q * scale
                    if a < 0:
                        a = 0
                    if b > 64:
                        b = 64
                    while a < b:
                        p = a >> 3
                        e = (p << 3) + 8
                        if e > b:
                            e = b
                        v = ((1 << (e - a)) - 1) << (a & 7)
                        i = (p << 7) + x0
                        end = (p << 7) + x1
                        if c:
                            while i < end:
                                buf[i] = buf[i] | v
                                i += 1
                        else:
                            v = 0xFF ^ v
                            while i < end:
                                buf[i] = buf[i] & v
                                i += 1
                        a = e
                    r = q
                else:
                    r += 1
                    bits >>= 1
            while col < nx:
                src[o + col] = 0
                col += 1
        k += 1


def big_center(fb, s, y, scale):
    """Scaled text centred across the screen (shrinks the scale if too wide)."""
    while scale > 1 and 8 * scale * len(s) > W:
        scale -= 1
    big(fb, s, (W - 8 * scale * len(s)) // 2, y, scale)


def menu_rows(fb, items, cursor, top, y0=11):
    """Up to 6 rows of a list from index `top`, the cursor row inverted."""
    y = y0
    i = top
    while i < len(items) and y <= H - 8:
        s = items[i]
        x = 2 if 8 * len(s) + 2 <= W else 0  # a 16-character row needs the whole width
        if i == cursor:
            fb.fill_rect(0, y - 1, W, 9, 1)
            text(fb, s, x, y, 0)
        else:
            text(fb, s, x, y, 1)
        y += 9
        i += 1


def scroll_top(cursor, top, rows=6):
    """Keep the cursor inside the visible window of `rows` rows."""
    if cursor < top:
        return cursor
    if cursor >= top + rows:
        return cursor - rows + 1
    return top


def wrap(s, width=16):
    """Split a message into lines of at most `width` characters (at spaces)."""
    lines = []
    for word in s.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] = lines[-1] + " " + word
        else:
            while len(word) > width:
                lines.append(word[:width])
                word = word[width:]
            lines.append(word)
    return lines
