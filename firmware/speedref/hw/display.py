# The SSD1306 128x64 OLED over I2C.  The app draws into its own 1024-byte
# frame buffer (MONO_VLSB: byte = 8 vertical pixels, 8 pages of 128 bytes);
# show() sends only the pages that changed since the last update, so a
# verdict line costs a few hundred bytes on the bus, not a whole frame.  A
# byte takes 22.5 us at 400 kHz (a whole frame 23 ms), so the pages with
# the news (App.news: a verdict's line, a false start's note) go first and
# are on the glass while the rest of the frame is still on its way.
#
# Each run of consecutive pages is two transfers: the window (one command
# stream: control byte 0x00, then the column and page ranges) and the data,
# sent straight from the copy of the panel's RAM kept here, with the data
# control byte (0x40) written for the moment into the byte just before the
# run (a spare byte in front of page 0): no buffer is built per update
# (rp2's I2C.writevto copies its pieces into a new one).
#
# The power-up sequence is our own (_INIT below): micropython-lib's `ssd1306`
# driver is not needed, and would keep a second, unused 1 KB frame buffer.
from micropython import const

WIDTH = const(128)
HEIGHT = const(64)
_PAGES = const(HEIGHT // 8)

# SSD1306 commands (datasheet names; private consts: no names kept on the heap)
_SET_CONTRAST = const(0x81)
_SET_ENTIRE_ON = const(0xA4)
_SET_NORM_INV = const(0xA6)
_SET_DISP = const(0xAE)
_SET_MEM_ADDR = const(0x20)
_SET_COL_ADDR = const(0x21)
_SET_PAGE_ADDR = const(0x22)
_SET_DISP_START_LINE = const(0x40)
_SET_SEG_REMAP = const(0xA0)
_SET_MUX_RATIO = const(0xA8)
_SET_COM_OUT_DIR = const(0xC0)
_SET_DISP_OFFSET = const(0xD3)
_SET_COM_PIN_CFG = const(0xDA)
_SET_DISP_CLK_DIV = const(0xD5)
_SET_PRECHARGE = const(0xD9)
_SET_VCOM_DESEL = const(0xDB)
_SET_CHARGE_PUMP = const(0x8D)

_INIT = (
    _SET_DISP,  # off while configuring
    _SET_MEM_ADDR, 0x00,  # horizontal addressing: pages fill left to right
    _SET_DISP_START_LINE,
    _SET_SEG_REMAP | 0x01,  # column 127 mapped to SEG0
    _SET_MUX_RATIO, HEIGHT - 1,
    _SET_COM_OUT_DIR | 0x08,  # scan from COM[N] to COM0
    _SET_DISP_OFFSET, 0x00,
    _SET_COM_PIN_CFG, 0x12,  # 128x64 panels
    _SET_DISP_CLK_DIV, 0x80,
    _SET_PRECHARGE, 0xF1,  # internal charge pump
    _SET_VCOM_DESEL, 0x30,
    _SET_CONTRAST, 0xFF,
    _SET_ENTIRE_ON,  # output follows RAM
    _SET_NORM_INV,
    _SET_CHARGE_PUMP, 0x14,
    _SET_DISP | 0x01,  # on
)


class _Raw:
    """The power-up sequence, one command byte at a time; and the bus."""

    def __init__(self, i2c, addr):
        self.i2c = i2c
        self.addr = addr
        self.temp = bytearray(2)
        for c in _INIT:
            self.write_cmd(c)

    def write_cmd(self, cmd):
        self.temp[0] = 0x80  # Co = 1, D/C# = 0: one command byte follows
        self.temp[1] = cmd
        self.i2c.writeto(self.addr, self.temp)


class Display:
    def __init__(self, i2c, addr=0x3C):
        self.drv = _Raw(i2c, addr)
        # What the panel holds, from byte 1; byte 0 is room for the data
        # control byte in front of page 0.
        self._shown = bytearray(1 + WIDTH * _PAGES)
        self._sv = memoryview(self._shown)
        # The window command stream: control 0x00 (commands follow), columns
        # 0..127, pages lo..hi (bytes 5 and 6).
        self._win = bytearray((0x00, _SET_COL_ADDR, 0, WIDTH - 1, _SET_PAGE_ADDR, 0, _PAGES - 1))
        self.updates = 0
        self.last_bytes = 0  # bytes on the I2C bus for the last update
        self.total_bytes = 0
        self._force = True  # the panel's RAM is unknown after power-up

    def show(self, buf, first=0):
        """Send the pages of buf (1024 bytes, MONO_VLSB) that differ from
        the panel, those in `first` (bit p = page p) before the others;
        returns the bytes sent (0 when nothing changed)."""
        mv = memoryview(buf)
        try:
            sent = self._pages(mv, first) + self._pages(mv, ~first)
        except OSError:
            self._force = True  # the panel's RAM is unknown again: all pages next time
            raise
        self._force = False
        self.last_bytes = sent
        if sent:
            self.updates += 1
            self.total_bytes += sent
        return sent

    def _pages(self, mv, mask):
        # Each run of consecutive pages of `mask` that changed, in one window.
        sent = 0
        lo = -1
        sv = self._sv
        force = self._force
        for p in range(_PAGES + 1):
            a = p * WIDTH
            if p < _PAGES and mask >> p & 1 and (force or mv[a:a + WIDTH] != sv[a + 1:a + 1 + WIDTH]):
                if lo < 0:
                    lo = p
            elif lo >= 0:
                sent += self._write(mv, lo, p - 1)
                lo = -1
        return sent

    def _write(self, mv, lo, hi):
        i2c = self.drv.i2c
        addr = self.drv.addr
        w = self._win
        w[5] = lo
        w[6] = hi
        i2c.writeto(addr, w)
        a = lo * WIDTH
        b = (hi + 1) * WIDTH
        sv = self._sv
        sv[a + 1:b + 1] = mv[a:b]
        keep = sv[a]  # the last byte of page lo - 1 (or the spare byte)
        sv[a] = 0x40  # Co = 0, D/C# = 1: display RAM follows
        try:
            i2c.writeto(addr, sv[a:b + 1])
        finally:
            sv[a] = keep
        return len(w) + 1 + b - a

    def power(self, on):
        self.drv.write_cmd(_SET_DISP | (1 if on else 0))
