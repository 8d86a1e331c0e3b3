# The SSD1306 128x64 OLED over I2C.  The app draws into its own 1024-byte
# frame buffer (MONO_VLSB: byte = 8 vertical pixels, 8 pages of 128 bytes);
# show() sends only the pages that changed since the last update, so a
# verdict line costs a few hundred bytes on the bus, not a whole frame.
#
# The power-up sequence is our own (INIT below): micropython-lib's `ssd1306`
# driver is not needed, and would keep a second, unused 1 KB frame buffer.
WIDTH = 128
HEIGHT = 64
PAGES = HEIGHT // 8

# SSD1306 commands (datasheet names)
SET_CONTRAST = 0x81
SET_ENTIRE_ON = 0xA4
SET_NORM_INV = 0xA6
SET_DISP = 0xAE
SET_MEM_ADDR = 0x20
SET_COL_ADDR = 0x21
SET_PAGE_ADDR = 0x22
SET_DISP_START_LINE = 0x40
SET_SEG_REMAP = 0xA0
SET_MUX_RATIO = 0xA8
SET_COM_OUT_DIR = 0xC0
SET_DISP_OFFSET = 0xD3
SET_COM_PIN_CFG = 0xDA
SET_DISP_CLK_DIV = 0xD5
SET_PRECHARGE = 0xD9
SET_VCOM_DESEL = 0xDB
SET_CHARGE_PUMP = 0x8D

INIT = (
    SET_DISP,  # off while configuring
    SET_MEM_ADDR, 0x00,  # horizontal addressing: pages fill left to right
    SET_DISP_START_LINE,
    SET_SEG_REMAP | 0x01,  # column 127 mapped to SEG0
    SET_MUX_RATIO, HEIGHT - 1,
    SET_COM_OUT_DIR | 0x08,  # scan from COM[N] to COM0
    SET_DISP_OFFSET, 0x00,
    SET_COM_PIN_CFG, 0x12,  # 128x64 panels
    SET_DISP_CLK_DIV, 0x80,
    SET_PRECHARGE, 0xF1,  # internal charge pump
    SET_VCOM_DESEL, 0x30,
    SET_CONTRAST, 0xFF,
    SET_ENTIRE_ON,  # output follows RAM
    SET_NORM_INV,
    SET_CHARGE_PUMP, 0x14,
    SET_DISP | 0x01,  # on
)


class _Raw:
    """The two primitives we need from a driver: one command byte, data."""

    def __init__(self, i2c, addr):
        self.i2c = i2c
        self.addr = addr
        self.temp = bytearray(2)
        self.write_list = [b"\x40", None]
        for c in INIT:
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
        self._shown = bytearray(WIDTH * PAGES)  # what the panel holds
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
        for p in range(PAGES):
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
            for c in (SET_COL_ADDR, 0, WIDTH - 1, SET_PAGE_ADDR, lo, hi):
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
        self.drv.write_cmd(SET_DISP | (1 if on else 0))
