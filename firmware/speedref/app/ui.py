# What every screen is made of, for the app (core.py), the menu and the
# flows alike: the buttons' numbers, the buzzer cues, the Screen base, and
# drawing helpers for a 128x64 one-bit screen that people read at arm's
# length while their hands are busy with cards: big digits (the 8x8 font
# scaled up), centred lines, an inverted title bar, and text with the
# accented letters of names (text()).  `framebuf` calls, and viper functions
# that read a string's UTF-8 (text, _cells) and set the frame buffer's bytes
# themselves (_put_cells, bar), so the board and the simulator draw the same
# bytes.  Of speedref it imports only app/accents.py (the accented letters'
# layout and glyphs), and that only when an accented letter is drawn: the
# app and the menu both import ui, and neither the other.
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
# accented letters, a screen's width).  Big text scales its cells from
# here; a name's accented letters are laid out in it (app/accents.py).
# Blank between uses: what draws from it blanks what it took.
_LINE = bytearray(256)
_lfb = framebuf.FrameBuffer(_LINE, 256, 8, framebuf.MONO_VLSB)
_acc = None  # app/accents.py, loaded at the first accented letter drawn


def _accents():
    global _acc
    if _acc is None:
        from . import accents
        _acc = accents
    return _acc


def _accented(fb, s, x, y, c):
    (_acc or _accents()).text(fb, s, x, y, c, _LINE, _lfb)


def let_go():
    """The accented letters' code and glyphs leave the heap with the names
    that needed them (the app, when a game closes); the next accented
    letter loads them again."""
    global _acc
    _acc = None


@micropython.viper
def text(fb, s, x: int, y: int, c: int):
    # framebuf's text(s, x, y, c), the accented letters of names
    # (U+00C0..U+017F, speedref.names) included, each in one 8x8 cell of
    # the font's style (app/accents.py draws them; fb: 128x64 MONO_VLSB);
    # ASCII text goes straight to framebuf.  Machine code itself, as the
    # test for an accented letter reads the string's bytes (to the NUL that
    # ends every MicroPython string, as framebuf's text reads): a Python
    # function in front of framebuf cost 50 us a line on the emulated Pico,
    # this 11 us.  (No default for c: viper has none.)
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
    _accented(fb, s, x, y, c)


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
    The line is drawn by framebuf at 8x8 first (into _LINE, a name's
    accented letters laid out by app/accents.py), then its cells are
    scaled by _put_cells straight into fb's bytes: on a board that is
    machine code, and a glyph takes 0.12-0.19 ms on the emulated Pico
    (scale 2-5) where a rectangle for each run of pixels took 0.55 ms (a
    big name or count is on every verdict's screen).

    Nothing here takes s apart a character at a time: that makes a
    one-character string of each, interned the first time it is seen, and
    that allocates inside a press's redraw."""
    _lfb.text(s, 0, 0, 1)
    n = _cells(s)
    if n < 0:
        n = _accents().lay(_LINE, s)
    _put_cells(fb, _LINE, n, x, y, scale)


@micropython.viper
def _cells(s) -> int:
    # The cells framebuf drew of str s in _LINE: its bytes, 32 at most (the
    # line's room); -1 when it holds a character outside ASCII (a byte of
    # its UTF-8 >= 0x80: app/accents.py lays those out).
    p = ptr8(s)
    i = 0
    while True:
        b = int(p[i])
        if b == 0:
            return i if i < 32 else 32
        if b >= 0x80:
            return -1
        i += 1


@micropython.viper
def _put_cells(fb, g, n: int, x: int, y: int, scale: int):
    # The first n cells of g (8 bytes each, MONO_VLSB: byte c is column c,
    # bit r is row r) into fb, 128x64 MONO_VLSB (page p, column x at byte
    # 128p + x, row y & 7 its bit), from x, y, each pixel scale x scale;
    # set pixels only, clipped to the screen.  A run of set pixels in a
    # column (and the columns after it that are the same) is OR'ed into
    # the bytes it covers a page at a time.  The cells are blanked (g is
    # the line: blank for its next text).  Plain Python too (ptr8 above):
    # the same bytes in the simulator and the web page.
    buf = ptr8(fb)
    src = ptr8(g)
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
                        while i < end:
                            buf[i] = buf[i] | v
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
