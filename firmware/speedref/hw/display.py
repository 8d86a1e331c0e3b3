# The SSD1306 128x64 OLED over I2C.  The app draws into its own 1024-byte
# frame buffer (MONO_VLSB: byte = 8 vertical pixels, 8 pages of 128 bytes);
# show() sends only the pages that changed since the last update, so a
# verdict line costs a few hundred bytes on the bus, not a whole frame.
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
    """The two primitives we need from a driver: one command byte, data."""

    def __init__(self, i2c, addr):
        self.i2c = i2c
        self.addr = addr
        self.temp = bytearray(2)
        self.write_list = [b"\x40", None]
        for c in _INIT:
            self.write_cmd(c)

    def write_cmd(self, cmd):
        self.temp[0] = 0x80  # Co = 1, D/C# = 0: one command byte follows
        self.temp[1] = cmd
        self.i2c.writeto(self.addr, self.temp)

    def write_data(self, buf):
        self.write_list[1] = buf  # 0x40: D/C# = 1, the rest is display RAM
        self.i2c.writevto(self.addr, self.write_list)


class Display:
    def __init__(self, i2c, addr=0x3C):
        self.drv = _Raw(i2c, addr)
        self._shown = bytearray(WIDTH * _PAGES)  # what the panel holds
        self._sv = memoryview(self._shown)
        self.updates = 0
        self.last_bytes = 0  # bytes on the I2C bus for the last update
        self.total_bytes = 0
        self._force = True  # the panel's RAM is unknown after power-up

    def show(self, buf):
        """Send the pages of buf (1024 bytes, MONO_VLSB) that differ from
        the panel; returns the bytes sent (0 when nothing changed)."""
        mv = memoryview(buf)
        lo = -1
        hi = -1
        for p in range(_PAGES):
            a = p * WIDTH
            if self._force or mv[a:a + WIDTH] != self._sv[a:a + WIDTH]:
                if lo < 0:
                    lo = p
                hi = p
        self._force = False
        if lo < 0:
            self.last_bytes = 0
            return 0
        a = lo * WIDTH
        b = (hi + 1) * WIDTH
        try:
            for c in (_SET_COL_ADDR, 0, WIDTH - 1, _SET_PAGE_ADDR, lo, hi):
                self.drv.write_cmd(c)
            self.drv.write_data(mv[a:b])
        except OSError:
            self._force = True  # the panel's RAM is unknown again: all pages next time
            raise
        self._sv[a:b] = mv[a:b]
        sent = 6 * 2 + 1 + (b - a)  # 2 bytes per command, 0x40 + data
        self.updates += 1
        self.last_bytes = sent
        self.total_bytes += sent
        return sent

    def power(self, on):
        self.drv.write_cmd(_SET_DISP | (1 if on else 0))
