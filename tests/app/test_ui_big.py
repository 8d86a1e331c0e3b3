"""Big text (app/ui.big): every font pixel a scale x scale square, the same
bytes on every runtime.  On a board the glyphs are scaled by a viper
function (machine code) writing the frame buffer's bytes itself; CPython (the
simulator) and the web page run the same function as plain Python.  Each is
checked against the plain framebuf drawing it replaces: the glyph drawn 8x8,
then one fill_rect per set pixel, over a background of random bytes (big
text only sets pixels) and at positions partly off the screen (clipped)."""
import pytest
from hypothesis import given, settings, strategies as st

import mpyrun
from board_rig import exec_installed, needs_board

# The check, as MicroPython and CPython both run it: `cases` draws big text
# both ways and counts the frames that differ.
CHECK = r'''
import framebuf
from speedref.app import ui


def reference(fb, s, x, y, scale):
    g = bytearray(8)
    gfb = framebuf.FrameBuffer(g, 8, 8, framebuf.MONO_VLSB)
    for ch in s:
        gfb.fill(0)
        gfb.text(ch, 0, 0, 1)
        for c in range(8):
            for r in range(8):
                if gfb.pixel(c, r):
                    fb.fill_rect(x + c * scale, y + r * scale, scale, scale, 1)
        x += 8 * scale


def differ(s, x, y, scale, seed):
    a = bytearray(1024)  # an even seed: a blank screen
    if seed & 1:  # an odd one: random bytes, the same in both frames
        v = seed
        for i in range(1024):
            v = (v * 1103515245 + 12345) & 0x7FFFFFFF
            a[i] = (v >> 16) & 0xFF
    b = bytearray(a)
    ui.big(framebuf.FrameBuffer(a, 128, 64, framebuf.MONO_VLSB), s, x, y, scale)
    reference(framebuf.FrameBuffer(b, 128, 64, framebuf.MONO_VLSB), s, x, y, scale)
    return a != b


def cases(n):
    bad = 0
    v = 7
    for k in range(n):
        v = (v * 1103515245 + 12345) & 0x7FFFFFFF
        s = "".join(chr(32 + (v >> (3 * i)) % 95) for i in range(1 + k % 4))
        x = (v >> 7) % 150 - 20
        y = (v >> 13) % 90 - 20
        scale = 1 + (v >> 19) % 6
        if differ(s, x, y, scale, v):
            bad += 1
            print("DIFFER", repr(s), x, y, scale)
    return bad
'''


def _check_ns():
    ns = {}
    exec(CHECK, ns)
    return ns


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=4),
       st.integers(-40, 140), st.integers(-40, 80), st.integers(1, 6), st.integers(0, 2 ** 20))
def test_big_text_on_cpython_is_a_square_for_each_font_pixel(s, x, y, scale, seed):
    assert not _check_ns()["differ"](s, x, y, scale, seed)


def test_the_big_digits_and_words_screens_use_are_whole_and_in_place():
    """What the screens draw big (a count, a name, GO, FOUL), at their own
    scales: a spot check that the comparison above can see a glyph at all."""
    import framebuf
    from speedref.app import ui
    buf = bytearray(1024)
    ui.big(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB), "1", 0, 0, 2)
    # the font's "1": columns 2-5 of rows 0-6 set somewhere; at scale 2 each
    # set pixel is a 2x2 square: page 0 (rows 0-7) and page 1 (rows 8-15)
    assert any(buf[0:16]) and any(buf[128:144]) and not any(buf[16:128]) and not any(buf[256:])
    ns = _check_ns()
    for s, scale in (("26", 3), ("P2", 2), ("GO", 5), ("FOUL", 4), ("SPIT", 4)):
        assert not ns["differ"](s, 3, 17, scale, 5)


@pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")
def test_big_text_on_the_unix_port_as_machine_code_is_the_same():
    """The firmware's .mpy files for the Unix port carry the viper function
    as x64 code (build/mpy, -march=host)."""
    r = mpyrun.run(code=CHECK + "\nprint('BAD', cases(400))\n")
    assert "BAD 0" in r.stdout, r.stdout


@pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")
def test_big_text_allocates_nothing_whatever_its_characters():
    """big() draws inside heap_lock() (a trick winner's press redraws the
    partners grid: PT-13), whatever characters it is given: every printable
    ASCII character, in text made at run time (so no one-character string
    of it need exist yet: taking a str apart a character at a time would
    intern each new one)."""
    code = r"""
import framebuf, micropython
from speedref.app import ui
fb = framebuf.FrameBuffer(bytearray(1024), 128, 64, framebuf.MONO_VLSB)
texts = [bytes(range(c, c + 5)).decode() for c in range(32, 127, 5)]
ok = t = None
micropython.heap_lock()
try:
    for t in texts:
        ui.big(fb, t, 0, 0, 2)
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
def test_big_text_on_the_emulated_pico_as_thumb_code_is_the_same(install):
    """On MicroPython's rp2 firmware, the viper function as Cortex-M0+ code:
    from speedref-flash's .mpy files (-march=armv6m) and frozen into
    speedref-pico-RPI_PICO.uf2 (the port's mpy-cross flags)."""
    out = exec_installed(install, "speedref.app.ui", CHECK + "\nprint('BAD', cases(150))\n")
    assert "BAD 0" in out, out
