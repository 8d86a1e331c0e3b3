"""Names' accented letters on the OLED (app/ui.text, app/ui.big): each
letter of U+00C0..U+017F in one 8x8 cell from app/glyphs.py, ASCII in
framebuf's own font, the same bytes on every runtime.  On a board the text
is laid out and put on the screen by viper functions (machine code); CPython
(the simulator) and the web page run the same functions as plain Python.
Each is checked against a reference drawn a character at a time with plain
framebuf calls (text for ASCII, a pixel for each set bit of a glyph), over a
background of random bytes, in both colours (the title bar's text is dark),
at positions partly off the screen (clipped) and at any row (a glyph across
two pages)."""
import pytest
from hypothesis import given, settings, strategies as st

import mpyrun
from board_rig import exec_installed, needs_board

# The check, as MicroPython and CPython both run it: `cases` draws text both
# ways and counts the frames that differ.
CHECK = r'''
import framebuf
from speedref.app import ui
from speedref.app.glyphs import GLYPHS, FIRST


def ref_cell(fb, ch, x, y, c, scale):
    o = ord(ch)
    if FIRST <= o <= 0x17F:
        cols = GLYPHS[8 * (o - FIRST):8 * (o - FIRST) + 8]
    else:
        g = bytearray(8)
        gfb = framebuf.FrameBuffer(g, 8, 8, framebuf.MONO_VLSB)
        gfb.text(ch if o < 0x80 else "\x7f", 0, 0, 1)  # framebuf's box for any other
        cols = g
    for col in range(8):
        for r in range(8):
            if cols[col] >> r & 1:
                fb.fill_rect(x + col * scale, y + r * scale, scale, scale, c)


def reference(fb, s, x, y, c, scale):
    for ch in s:
        ref_cell(fb, ch, x, y, c, scale)
        x += 8 * scale


def frames(seed):
    a = bytearray(1024)  # an even seed: a blank screen
    if seed & 1:  # an odd one: random bytes, the same in both frames
        v = seed
        for i in range(1024):
            v = (v * 1103515245 + 12345) & 0x7FFFFFFF
            a[i] = (v >> 16) & 0xFF
    return a, bytearray(a)


def differ(s, x, y, c, seed, scale=0):
    a, b = frames(seed)
    fa = framebuf.FrameBuffer(a, 128, 64, framebuf.MONO_VLSB)
    if scale:
        ui.big(fa, s, x, y, scale)
    else:
        ui.text(fa, s, x, y, c)
    reference(framebuf.FrameBuffer(b, 128, 64, framebuf.MONO_VLSB), s, x, y, c if not scale else 1,
              scale or 1)
    return a != b


ALPHABET = ("".join(chr(k) for k in range(32, 127)) + "".join(chr(k) for k in range(0xC0, 0x180))
            + "\u20ac")


def cases(n):
    bad = 0
    v = 11
    for k in range(n):
        v = (v * 1103515245 + 12345) & 0x7FFFFFFF
        w = v
        s = ""
        for i in range(1 + k % 12):
            w = (w * 1103515245 + 12345) & 0x7FFFFFFF
            s += ALPHABET[(w >> 8) % len(ALPHABET)]
        x = (v >> 7) % 150 - 20
        y = (v >> 13) % 90 - 20
        scale = 0 if k % 3 else 1 + (v >> 19) % 4
        if differ(s, x, y, (v >> 5) & 1, v, scale):
            bad += 1
            print("DIFFER", repr(s), x, y, scale)
    return bad
'''


def _check_ns():
    ns = {}
    exec(CHECK, ns)
    return ns


NAMES = st.characters(min_codepoint=32, max_codepoint=126) | st.characters(min_codepoint=0xC0,
                                                                           max_codepoint=0x17F)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=NAMES, min_size=1, max_size=16), st.integers(-40, 140), st.integers(-40, 80),
       st.integers(0, 1), st.integers(0, 2 ** 20))
def test_text_on_cpython_is_framebufs_ascii_and_a_glyph_a_letter(s, x, y, c, seed):
    assert not _check_ns()["differ"](s, x, y, c, seed)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=NAMES, min_size=1, max_size=6), st.integers(-40, 140), st.integers(-40, 80),
       st.integers(1, 5), st.integers(0, 2 ** 20))
def test_big_text_on_cpython_scales_the_same_cells(s, x, y, scale, seed):
    assert not _check_ns()["differ"](s, x, y, 1, seed, scale)


def test_ascii_text_is_framebufs_own():
    """ASCII is drawn by framebuf itself: the same frame as fb.text, in
    both colours, so every screen that names nobody stays as it was."""
    import framebuf
    from speedref.app import ui
    for c in (0, 1):
        a, b = bytearray(1024), bytearray(1024)
        ui.text(framebuf.FrameBuffer(a, 128, 64, framebuf.MONO_VLSB), "P1 STUCK ~{}", 3, 13, c)
        framebuf.FrameBuffer(b, 128, 64, framebuf.MONO_VLSB).text("P1 STUCK ~{}", 3, 13, c)
        assert a == b


def test_an_accented_letter_takes_one_cell_and_is_no_box():
    """"Zo\u00eb": three cells, the third the glyph of e with diaeresis
    (its dots on row 0 over the x-height, not framebuf's box)."""
    import framebuf
    from speedref.app import ui
    from speedref.app.glyphs import GLYPHS
    buf = bytearray(1024)
    ui.text(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB), "Zo\u00eb", 0, 0, 1)
    assert bytes(buf[16:24]) == GLYPHS[8 * (0xEB - 0xC0):8 * (0xEB - 0xC0) + 8]
    assert not any(buf[24:128]), "a fourth cell: the letter drawn as two bytes"
    assert buf[16 + 2] & 1 and not buf[16 + 3] & 1  # a dot of the diaeresis


@pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")
def test_text_on_the_unix_port_as_machine_code_is_the_same():
    """The firmware's .mpy files for the Unix port carry the viper functions
    as x64 code (build/mpy, -march=host)."""
    r = mpyrun.run(code=CHECK + "\nprint('BAD', cases(400))\n")
    assert "BAD 0" in r.stdout, r.stdout


@pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")
def test_text_with_accented_letters_allocates_nothing():
    """text() and big() draw names inside heap_lock() (a trick winner's
    press redraws the partners grid: PT-13), once the glyph table is
    loaded, in text made at run time (so no one-character string of its
    letters need exist yet)."""
    code = r"""
import framebuf, micropython
from speedref.app import ui
fb = framebuf.FrameBuffer(bytearray(1024), 128, 64, framebuf.MONO_VLSB)
texts = [bytes([0x5a, 0x6f, 0xc3, 0x80 + k, 0x20, 0xc4, 0x80 + k, 0x21]).decode() for k in range(0, 64, 3)]
ui.text(fb, "\u00e9", 0, 0, 1)  # the table loaded (a game's first screen does this)
ok = t = None
micropython.heap_lock()
try:
    for t in texts:
        ui.text(fb, t, 0, 20, 1)
        ui.text(fb, t, 3, 1, 0)
        ui.big(fb, t, 0, 30, 2)
    ok = True
except MemoryError:
    ok = False
micropython.heap_unlock()
print("OK" if ok else "ALLOCATED")
"""
    r = mpyrun.run(code=code)
    assert "OK" in r.stdout, r.stdout


@pytest.mark.board
@needs_board
@pytest.mark.long
@pytest.mark.parametrize("install", ["mpy", "frozen"])
def test_text_on_the_emulated_pico_as_thumb_code_is_the_same(install):
    """On MicroPython's rp2 firmware, the viper functions as Cortex-M0+ code:
    from speedref-flash's .mpy files (-march=armv6m) and frozen into
    speedref-pico-RPI_PICO.uf2 (the port's mpy-cross flags)."""
    out = exec_installed(install, "speedref.app.glyphs", CHECK + "\nprint('BAD', cases(120))\n")
    assert "BAD 0" in out, out
