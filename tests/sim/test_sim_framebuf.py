"""The simulator's framebuf shim leaves exactly the bytes the real MicroPython
framebuf leaves (the OLED the simulator shows is the OLED the board shows).

Each case is a snippet of drawing calls run twice: under the real MicroPython
Unix port (tests/mpyrun.py) and on CPython with sim/framebuf.py; the buffers
must be equal byte for byte.
"""
import pytest

import mpyrun
from sim import framebuf as shim
from sim import font8x8

# name -> (format, width, height, drawing code using `fb` and `framebuf`)
PRINTABLE = "".join(chr(c) for c in range(32, 127))
CASES = {
    "text_all_printable_rows": ("MONO_VLSB", 128, 64,
        "for i in range(6):\n s = %r[i*16:(i+1)*16]\n fb.text(s, 0, i*9 + 1, 1)\n" % PRINTABLE),
    "text_clipped_odd_offsets": ("MONO_VLSB", 128, 64,
        "fb.text(%r, -3, -5)\nfb.text(%r, 70, 60)\nfb.text('Q', 125, 30)\nfb.text('W', -7, 20)\n"
        % (PRINTABLE[:40], PRINTABLE[40:])),
    "text_inverse_on_filled": ("MONO_VLSB", 128, 64,
        "fb.fill(1)\nfb.text('P1 by 3.2 ms', 4, 27, 0)\nfb.fill_rect(0, 40, 128, 9, 0)\nfb.text('GO!', 50, 41, 1)\n"),
    "text_outside_ascii_and_nul": ("MONO_VLSB", 128, 64,
        "fb.text('a\\xe9b\\x7fc\\x01d', 0, 0)\nfb.text('ab\\x00cd', 0, 20)\nfb.text(chr(9824), 0, 40)\n"),
    "lines_all_octants": ("MONO_VLSB", 128, 64,
        "for (a,b,c,d) in [(64,32,127,40),(64,32,70,63),(64,32,60,0),(64,32,0,20),(64,32,0,45),"
        "(64,32,127,0),(64,32,64,32),(10,10,10,50),(5,60,120,60),(0,0,127,63),(127,0,0,63)]:\n"
        " fb.line(a, b, c, d, 1)\n"),
    "lines_clipped": ("MONO_VLSB", 128, 64,
        "fb.line(-20, -10, 150, 80, 1)\nfb.line(140, -5, -10, 70, 1)\nfb.line(-5, 30, 200, 31, 1)\n"
        "fb.fill_rect(20, 20, 30, 20, 1)\nfb.line(10, 10, 60, 50, 0)\n"),
    "rects_and_fill_rects": ("MONO_VLSB", 128, 64,
        "fb.rect(0, 0, 128, 64, 1)\nfb.rect(3, 5, 20, 11, 1, True)\nfb.rect(30, 3, 1, 1, 1)\n"
        "fb.rect(-4, 50, 20, 30, 1)\nfb.fill_rect(100, 7, 40, 13, 1)\nfb.fill_rect(40, 40, 0, 5, 1)\n"
        "fb.fill_rect(50, 9, 17, 3, 1)\nfb.fill_rect(51, 10, 5, 1, 0)\nfb.rect(60, 20, 30, 30, 1, 1)\n"
        "fb.rect(62, 22, 26, 26, 0, False)\nfb.hline(-5, 63, 300, 1)\nfb.vline(127, -9, 30, 1)\n"
        "fb.hline(10, 64, 5, 1)\nfb.vline(128, 0, 5, 1)\n"),
    "pixels_set_and_get": ("MONO_VLSB", 128, 64,
        "for i in range(0, 128, 3):\n fb.pixel(i, (i * 7) % 64, 1)\n"
        "fb.pixel(-1, 0, 1)\nfb.pixel(128, 0, 1)\nfb.pixel(0, 64, 1)\n"
        "v = [fb.pixel(i, (i * 7) % 64) for i in range(0, 128, 3)] + [fb.pixel(1, 0), fb.pixel(200, 0)]\n"
        "fb.text(''.join('1' if x else ('n' if x is None else '0') for x in v)[:16], 0, 56)\n"),
    "scroll_each_direction": ("MONO_VLSB", 128, 64,
        "fb.text('scroll me', 10, 10)\nfb.line(0, 0, 127, 63, 1)\nfb.scroll(5, 3)\nfb.scroll(-2, 0)\n"
        "fb.scroll(0, -9)\nfb.scroll(-7, 4)\nfb.scroll(200, 0)\nfb.scroll(0, -64)\n"),
    "blit_key_palette_clip": ("MONO_VLSB", 128, 64,
        "sb = bytearray(3 * 16)\ns = framebuf.FrameBuffer(sb, 24, 16, framebuf.MONO_VLSB)\n"
        "s.fill(1)\ns.text('Ab', 2, 4, 0)\n"
        "fb.blit(s, 0, 0)\nfb.blit(s, 120, 60)\nfb.blit(s, -10, -5)\nfb.text('xyz', 40, 20)\n"
        "fb.blit(s, 40, 18, 1)\n"
        "pb = bytearray(1)\np = framebuf.FrameBuffer(pb, 2, 1, framebuf.MONO_HLSB)\np.pixel(0, 0, 1)\n"
        "fb.blit(s, 70, 40, -1, p)\n"
        "fb.blit((bytearray(b'\\xff\\x81\\x81\\xff'), 4, 8, framebuf.MONO_VLSB), 100, 2)\n"
        "fb.blit(s, 128, 0)\nfb.blit(s, -24, 0)\n"),
    "mono_hlsb": ("MONO_HLSB", 37, 20,
        "fb.fill(0)\nfb.text('Hl!', 1, 2)\nfb.line(0, 19, 36, 0, 1)\nfb.rect(2, 2, 30, 15, 1)\nfb.scroll(3, -1)\n"),
    "mono_hmsb": ("MONO_HMSB", 37, 20,
        "fb.text('Hm?', -2, 5)\nfb.line(0, 0, 36, 19, 1)\nfb.fill_rect(20, 3, 9, 9, 1)\nfb.scroll(-4, 2)\n"),
    "gs8_and_gs4_and_gs2_and_rgb565": ("GS8", 16, 8,
        "fb.fill(7)\nfb.text('g', 0, 0, 200)\nfb.line(0, 7, 15, 0, 3)\n"
        "g4 = bytearray(40)\nq = framebuf.FrameBuffer(g4, 9, 8, framebuf.GS4_HMSB)\nq.fill(5)\nq.text('4', 0, 0, 12)\n"
        "q.pixel(8, 7, 0x1F)\nfb.blit(q, 4, 0, 5)\n"
        "g2 = bytearray(24)\nr = framebuf.FrameBuffer(g2, 11, 8, framebuf.GS2_HMSB)\nr.text('2', 1, 0, 2)\nr.pixel(10, 7, 7)\n"
        "fb.blit(r, 8, 0, 0)\n"
        "c = bytearray(8 * 4 * 2)\nt = framebuf.FrameBuffer(c, 8, 4, framebuf.RGB565)\nt.fill(0xF81F)\nt.pixel(1, 1, 0x12345)\n"
        "t.line(0, 3, 7, 0, 0x07E0)\nfb.pixel(0, 0, t.pixel(1, 1) & 0xFF)\nfb.pixel(1, 0, t.pixel(2, 2) >> 8)\n"
        "fb.pixel(2, 0, sum(g4) & 0xFF)\nfb.pixel(3, 0, sum(g2) & 0xFF)\nfb.pixel(4, 0, sum(c) & 0xFF)\n"),
}

SIZES = {"MONO_VLSB": lambda w, h: w * ((h + 7) // 8), "MONO_HLSB": lambda w, h: ((w + 7) // 8) * h,
         "MONO_HMSB": lambda w, h: ((w + 7) // 8) * h, "GS8": lambda w, h: w * h}


def _program(name):
    fmt, w, h, code = CASES[name]
    size = SIZES[fmt](w, h)
    return ("buf = bytearray(%d)\nfb = framebuf.FrameBuffer(buf, %d, %d, framebuf.%s)\n" % (size, w, h, fmt)
            + code)


@pytest.fixture(scope="module")
def real_bytes():
    """All cases run once under the real MicroPython framebuf: name -> bytes."""
    parts = ["import framebuf\nimport binascii\n"]
    for name in CASES:
        body = _program(name)
        parts.append("def case():\n" + "".join("    " + line + "\n" for line in body.splitlines())
                     + "    return buf\n")
        parts.append("print(%r, binascii.hexlify(case()).decode())\n" % name)
    r = mpyrun.run(code="".join(parts), use_mpy=False)
    out = {}
    for line in r.stdout.splitlines():
        name, hexdata = line.split()
        out[name] = bytes.fromhex(hexdata)
    assert set(out) == set(CASES)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_shim_bytes_equal_real_micropython(name, real_bytes):
    ns = {"framebuf": shim}
    exec(_program(name), ns)
    assert bytes(ns["buf"]) == real_bytes[name]
    # A case that draws nothing would prove nothing.
    assert any(real_bytes[name])


def test_font_has_96_glyphs_and_A_is_drawn_from_it():
    assert len(font8x8.FONT) == 96 * 8
    buf = bytearray(8)
    shim.FrameBuffer(buf, 8, 8, shim.MONO_VLSB).text("A", 0, 0)
    i = (ord("A") - 32) * 8
    assert bytes(buf) == font8x8.FONT[i:i + 8]


def test_buffer_too_small_is_refused_like_micropython():
    with pytest.raises(ValueError):
        shim.FrameBuffer(bytearray(1023), 128, 64, shim.MONO_VLSB)
    shim.FrameBuffer(bytearray(1024), 128, 64, shim.MONO_VLSB)


def test_compat_install_provides_framebuf_module():
    import sys
    from sim import compat
    compat.install()
    import framebuf
    assert sys.modules["framebuf"] is framebuf
    assert hasattr(framebuf, "FrameBuffer") and framebuf.MONO_VLSB == 0
