"""The order of what the emulated Pico did, read from its trace.

`Pico(trace=True)` (emu/board.py) records, each at its simulated instant and
CPU cycle: the pad lights' pin writes, every I2C byte as it ends on the bus,
and the start and end of every flash erase and program.  This module reads
that trace back for one moment of a game (an edge, or the instant a GO was
due): when the lights changed, when the OLED's pages showed the new screen
(the bytes replayed through the simulator's own SSD1306 model), which pages
went first, and when the flash first held the CPU.  Benchmarks print these
figures; tests assert their order, never a duration.
"""
from sim.hardware import VirtualSSD1306

BURST_GAP_NS = 2000000  # I2C transfers closer than this belong to one screen update


class Moment:
    """What followed instant `since_ns`: .lights (ns, cycle, mask) of the
    first change of the pad lights or None; .first_pages (lo, hi) and
    .first_ns: the first run of pages the update sent and when its last byte
    was on the bus; .start_ns: the update's first byte on the bus; .pages: per page, when it showed the new frame (since_ns
    for a page that did not change); .frame_ns: the whole new frame on the
    panel; .frame: that frame (1024 bytes); .before: the frame before;
    .flash (ns, cycle, op) of the first flash operation to start, or None."""

    def __init__(self, trace, since_ns, until_ns=None, addr=0x3C):
        ev = sorted(trace, key=lambda e: e[1])
        until_ns = since_ns + 500000000 if until_ns is None else until_ns
        self.since_ns = since_ns
        self.lights = next((e[1:] for e in ev if e[0] == "lights" and since_ns <= e[1] < until_ns),
                           None)
        self.flash = next((e[1:] for e in ev if e[0] == "flash" and since_ns <= e[1] < until_ns),
                          None)
        self._oled(ev, since_ns, until_ns, addr)

    def _oled(self, ev, since_ns, until_ns, addr):
        oled = VirtualSSD1306(addr)
        tx = _transfers(ev)
        k = 0
        while k < len(tx) and tx[k][0][-1] < since_ns:
            oled.writeto(addr, tx[k][1])
            k += 1
        self.before = oled.frame
        self.pages = [None] * 8
        self.first_pages = None
        self.first_ns = None
        self.frame_ns = None
        last = None
        burst = []
        while k < len(tx) and tx[k][0][0] < until_ns:
            if last is not None and tx[k][0][0] - last > BURST_GAP_NS:
                break
            burst.append(tx[k])
            last = tx[k][0][-1]
            k += 1
        if not burst:
            self.frame = self.before
            self.start_ns = None
            return
        self.start_ns = burst[0][0][0]  # the update's first byte
        for times, data in burst:
            if data[0] & 0x40:  # display RAM: one byte at a time, as the panel takes it
                for i in range(1, len(data)):
                    oled.writeto(addr, bytes((0x40, data[i])))
                    p = self._page_written(oled)
                    self.pages[p] = times[i]
                if self.first_pages is None:
                    self.first_pages = self._window
                    self.first_ns = times[-1]
            else:
                oled.writeto(addr, data)
                self._window = (oled._page[0], oled._page[1])
        self.frame = oled.frame
        self.frame_ns = last
        for p in range(8):
            if self.frame[p * 128:(p + 1) * 128] == self.before[p * 128:(p + 1) * 128] \
                    and self.pages[p] is None:
                self.pages[p] = since_ns

    @staticmethod
    def _page_written(oled):
        # the page of the byte just written: the controller's address moved past it
        c, p = oled._c, oled._p
        if c == oled._col[0]:  # wrapped to the next page (or round to the first)
            return oled._page[1] if p == oled._page[0] else p - 1
        return p

    def pages_ns(self, pages):
        """When all of `pages` showed the new frame."""
        times = [self.pages[p] for p in pages]
        return None if None in times else max(times)


def _transfers(ev):
    """The I2C transactions in the trace: [(byte instants, bytes)]."""
    out = []
    for e in ev:
        if e[0] != "i2c":
            continue
        if e[4] == 0:
            out.append(([], bytearray()))
        out[-1][0].append(e[1])
        out[-1][1].append(e[3])
    return [(t, bytes(b)) for t, b in out]
