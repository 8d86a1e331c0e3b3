"""MicroPython's `framebuf` module for CPython, byte for byte.

The simulator runs the board's own referee app, which draws with `framebuf`.
CPython has no such module, so this file reimplements the parts the firmware
uses, following MicroPython's extmod/modframebuf.c step by step (same clipping,
same line algorithm, same font) so that every drawing call leaves exactly the
bytes the board would have.  tests/sim/test_sim_framebuf.py checks that against the
real MicroPython Unix port.

Formats: MONO_VLSB (the SSD1306 layout), MONO_HLSB, MONO_HMSB, GS2_HMSB,
GS4_HMSB, GS8, RGB565.  Methods: fill, pixel, hline, vline, line, rect (with
the fill argument), fill_rect, text, scroll, blit (with key and palette).
Not implemented: ellipse and poly (the firmware does not use them); calling
them raises AttributeError, as on a MicroPython build without them.

`sim.compat.install()` makes `import framebuf` find this module.
"""
from sim.font8x8 import FONT, FIRST, LAST

MONO_VLSB = 0
MVLSB = MONO_VLSB
RGB565 = 1
GS4_HMSB = 2
MONO_HLSB = 3
MONO_HMSB = 4
GS2_HMSB = 5
GS8 = 6

# Bits per pixel of each format (for the buffer size check).
_BPP = {MONO_VLSB: 1, MONO_HLSB: 1, MONO_HMSB: 1, GS2_HMSB: 2, GS4_HMSB: 4, GS8: 8, RGB565: 16}


class FrameBuffer:
    def __init__(self, buffer, width, height, format, stride=None):
        if format not in _BPP:
            raise ValueError("invalid format")
        if width < 1 or height < 1:
            raise ValueError("invalid width/height")
        if stride is None:
            stride = width
        # As in modframebuf.c: horizontal mono rows start on a byte; vertical
        # mono needs whole 8-pixel pages; GS2/GS4 rows start on a byte too.
        height_required = height
        if format == MONO_VLSB:
            height_required = (height + 7) & ~7
        elif format in (MONO_HLSB, MONO_HMSB):
            stride = (stride + 7) & ~7
        elif format == GS2_HMSB:
            stride = (stride + 3) & ~3
        elif format == GS4_HMSB:
            stride = (stride + 1) & ~1
        mv = memoryview(buffer)
        if mv.readonly:
            # MicroPython asks for a writable buffer as well.
            raise TypeError("object with buffer protocol required")
        mv = mv.cast("B")
        if height_required * stride * _BPP[format] // 8 > len(mv):
            raise ValueError("buffer too small")
        self._buf = buffer
        self._mv = mv
        self.width = width
        self.height = height
        self.stride = stride
        self.format = format

    # MicroPython's FrameBuffer exposes its buffer (e.g. for an I2C write).
    def __buffer__(self, flags):
        return memoryview(self._buf)

    # -- per-format pixel access (modframebuf.c's setpixel/getpixel) --------
    def _set(self, x, y, c):
        b = self._mv
        f = self.format
        if f == MONO_VLSB:
            i = (y >> 3) * self.stride + x
            o = y & 7
            b[i] = (b[i] & ~(1 << o)) | ((c != 0) << o)
        elif f == MONO_HLSB or f == MONO_HMSB:
            i = (x + y * self.stride) >> 3
            o = (x & 7) if f == MONO_HMSB else 7 - (x & 7)
            b[i] = (b[i] & ~(1 << o)) | ((c != 0) << o)
        elif f == GS8:
            b[x + y * self.stride] = c & 0xFF
        elif f == RGB565:
            i = (x + y * self.stride) * 2
            b[i] = c & 0xFF
            b[i + 1] = (c >> 8) & 0xFF
        elif f == GS4_HMSB:
            i = (x + y * self.stride) >> 1
            c &= 0x0F
            if x & 1:
                b[i] = (c & 0x0F) | (b[i] & 0xF0)
            else:
                b[i] = (c << 4) | (b[i] & 0x0F)
        else:  # GS2_HMSB
            i = (x + y * self.stride) >> 2
            s = (x & 3) << 1
            b[i] = (b[i] & ~(0x03 << s)) | ((c & 0x03) << s)

    def _get(self, x, y):
        b = self._mv
        f = self.format
        if f == MONO_VLSB:
            return (b[(y >> 3) * self.stride + x] >> (y & 7)) & 1
        if f == MONO_HLSB or f == MONO_HMSB:
            i = (x + y * self.stride) >> 3
            o = (x & 7) if f == MONO_HMSB else 7 - (x & 7)
            return (b[i] >> o) & 1
        if f == GS8:
            return b[x + y * self.stride]
        if f == RGB565:
            i = (x + y * self.stride) * 2
            return b[i] | (b[i + 1] << 8)
        if f == GS4_HMSB:
            v = b[(x + y * self.stride) >> 1]
            return v & 0x0F if x & 1 else v >> 4
        return (b[(x + y * self.stride) >> 2] >> ((x & 3) << 1)) & 0x03

    def _fill_rect(self, x, y, w, h, c):
        # Already clipped.  MONO_VLSB gets a byte-wise path: the simulator
        # redraws whole screens often and this is most of the drawing time.
        if self.format == MONO_VLSB:
            b = self._mv
            stride = self.stride
            yend = y + h
            while y < yend:
                page = y >> 3
                top = y & 7
                bot = min(8, top + (yend - y))
                m = ((1 << bot) - 1) & ~((1 << top) - 1)
                i = page * stride + x
                if c:
                    for k in range(i, i + w):
                        b[k] |= m
                else:
                    nm = ~m & 0xFF
                    for k in range(i, i + w):
                        b[k] &= nm
                y += bot - top
            return
        if self.format == GS8:
            # a byte a pixel: each row is one slice (the firmware clears
            # buffers with a 1-row GS8 FrameBuffer's fill, a memset on a board)
            row = bytes((c & 0xFF,)) * w
            b = self._mv
            for yy in range(y, y + h):
                i = x + yy * self.stride
                b[i:i + w] = row
            return
        for yy in range(y, y + h):
            for xx in range(x, x + w):
                self._set(xx, yy, c)

    # -- public API ----------------------------------------------------------
    def fill(self, c):
        self._fill_rect(0, 0, self.width, self.height, c)

    def fill_rect(self, x, y, w, h, c):
        if h < 1 or w < 1 or x + w <= 0 or y + h <= 0 or y >= self.height or x >= self.width:
            return
        xend = min(self.width, x + w)
        yend = min(self.height, y + h)
        x = max(x, 0)
        y = max(y, 0)
        self._fill_rect(x, y, xend - x, yend - y, c)

    def pixel(self, x, y, c=None):
        if 0 <= x < self.width and 0 <= y < self.height:
            if c is None:
                return self._get(x, y)
            self._set(x, y, c)
        return None

    def hline(self, x, y, w, c):
        self.fill_rect(x, y, w, 1, c)

    def vline(self, x, y, h, c):
        self.fill_rect(x, y, 1, h, c)

    def rect(self, x, y, w, h, c, f=False):
        if f:
            self.fill_rect(x, y, w, h, c)
        else:
            self.fill_rect(x, y, w, 1, c)
            self.fill_rect(x, y + h - 1, w, 1, c)
            self.fill_rect(x, y, 1, h, c)
            self.fill_rect(x + w - 1, y, 1, h, c)

    def line(self, x1, y1, x2, y2, c):
        # Bresenham exactly as modframebuf.c (the last point drawn separately).
        dx = x2 - x1
        if dx > 0:
            sx = 1
        else:
            dx = -dx
            sx = -1
        dy = y2 - y1
        if dy > 0:
            sy = 1
        else:
            dy = -dy
            sy = -1
        steep = dy > dx
        if steep:
            x1, y1 = y1, x1
            dx, dy = dy, dx
            sx, sy = sy, sx
        e = 2 * dy - dx
        w = self.width
        h = self.height
        for _ in range(dx):
            if steep:
                if 0 <= y1 < w and 0 <= x1 < h:
                    self._set(y1, x1, c)
            elif 0 <= x1 < w and 0 <= y1 < h:
                self._set(x1, y1, c)
            while e >= 0:
                y1 += sy
                e -= 2 * dx
            x1 += sx
            e += 2 * dy
        if 0 <= x2 < w and 0 <= y2 < h:
            self._set(x2, y2, c)

    def text(self, s, x0, y0, c=1):
        # The C code walks the string's UTF-8 bytes and stops at a NUL; any
        # byte outside 32..127 is drawn as glyph 127.
        w = self.width
        h = self.height
        vlsb = self.format == MONO_VLSB
        for ch in str(s).encode("utf-8"):
            if ch == 0:
                break
            if ch < FIRST or ch > LAST:
                ch = LAST
            base = (ch - FIRST) * 8
            for j in range(8):
                if 0 <= x0 < w:
                    col = FONT[base + j]
                    if vlsb:
                        if col:
                            self._column(x0, y0, col, c)
                    else:
                        y = y0
                        while col:
                            if col & 1 and 0 <= y < h:
                                self._set(x0, y, c)
                            col >>= 1
                            y += 1
                x0 += 1

    def _column(self, x, y, bits, c):
        # MONO_VLSB: bit k of `bits` is pixel (x, y + k); those set are drawn
        # in colour c, clipped to the height, a byte or two at once (the same
        # pixels text's per-pixel loop sets: most of the simulator's drawing).
        h = self.height
        if y < 0:
            if y <= -8:
                return
            bits >>= -y
            y = 0
        if y >= h:
            return
        if y + 8 > h:
            bits &= (1 << (h - y)) - 1
        b = self._mv
        i = (y >> 3) * self.stride + x
        off = y & 7
        lo = (bits << off) & 0xFF
        hi = bits >> (8 - off) if off else 0
        if c:
            b[i] |= lo
            if hi:
                b[i + self.stride] |= hi
        else:
            b[i] &= ~lo & 0xFF
            if hi:
                b[i + self.stride] &= ~hi & 0xFF

    def scroll(self, xstep, ystep):
        # Shift the contents in place; the uncovered strip keeps its pixels.
        if xstep < 0:
            if -xstep >= self.width:
                return
            sx, xend, dx = 0, self.width + xstep, 1
        else:
            if xstep >= self.width:
                return
            sx, xend, dx = self.width - 1, xstep - 1, -1
        if ystep < 0:
            if -ystep >= self.height:
                return
            y, yend, dy = 0, self.height + ystep, 1
        else:
            if ystep >= self.height:
                return
            y, yend, dy = self.height - 1, ystep - 1, -1
        while y != yend:
            x = sx
            while x != xend:
                self._set(x, y, self._get(x - xstep, y - ystep))
                x += dx
            y += dy

    def blit(self, fbuf, x, y, key=-1, palette=None):
        src = _as_framebuffer(fbuf)
        if palette is not None:
            palette = _as_framebuffer(palette)
        if x >= self.width or y >= self.height or -x >= src.width or -y >= src.height:
            return
        x0 = max(0, x)
        y0 = max(0, y)
        x1 = max(0, -x)
        y1 = max(0, -y)
        x0end = min(self.width, x + src.width)
        y0end = min(self.height, y + src.height)
        key &= 0xFFFFFFFF  # the C code compares as uint32_t: key -1 never matches
        while y0 < y0end:
            cx1 = x1
            for cx0 in range(x0, x0end):
                col = src._get(cx1, y1)
                if palette is not None:
                    col = palette._get(col, 0)
                if col != key:
                    self._set(cx0, y0, col)
                cx1 += 1
            y0 += 1
            y1 += 1


def _as_framebuffer(obj):
    # blit() also takes a tuple (buffer, width, height, format[, stride]).
    if isinstance(obj, FrameBuffer):
        return obj
    if isinstance(obj, tuple) and 4 <= len(obj) <= 5:
        return FrameBuffer(*obj)
    raise TypeError("expected FrameBuffer or tuple")


def FrameBuffer1(buffer, width, height, stride=None):
    """Legacy constructor kept by MicroPython: a MONO_VLSB frame buffer."""
    return FrameBuffer(buffer, width, height, MONO_VLSB, stride)
