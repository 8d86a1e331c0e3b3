# A fake slow UART console for the MicroPython Unix port (and CPython): the
# ESP32's REPL UART as MicroPython drives it (ports/esp32/uart.c,
# uart_stdout_tx_strn).  write() copies what fits into a 128-byte TX FIFO
# that empties at baud/10 bytes a second; while the FIFO is full it waits
# one RTOS tick (10 ms) and tries again, so a long write holds the caller.
# Time is the test's simulated clock, a one-item list of microseconds that
# a blocked write moves forward.
#
# Each byte's time on the wire is 10**7 / baud us (86.8 us at 115200); the
# FIFO is kept exactly, in units of us * baud, so no rounding helps or hurts
# the code under test.
import sys

try:
    import io
    # MicroPython's json.dump writes only into a real stream (an io.IOBase
    # subclass), as it would into sys.stdout
    _Base = io.IOBase if sys.implementation.name == "micropython" else object
except (ImportError, AttributeError):
    _Base = object


class SlowUart(_Base):
    def __init__(self, clock, baud=115200, fifo=128, tick_us=10000, nonblocking=False):
        self.clock = clock
        self.baud = baud
        self.fifo = fifo
        self.tick_us = tick_us
        self.nonblocking = nonblocking  # True: take what fits, return the count, never wait
        self.out = bytearray()  # every byte accepted, in order
        self.writes = []  # (clock at the call, bytes offered, bytes taken)
        self.blocked_us = 0  # time spent waiting for room, in all
        self.longest_block_us = 0
        self._empty = 0  # when the FIFO is empty, in us * baud

    def level(self):
        """Bytes in the FIFO now."""
        left = self._empty - self.clock[0] * self.baud
        if left <= 0:
            return 0
        return (left + 9999999) // 10000000

    def write(self, buf):
        if isinstance(buf, str):
            buf = buf.encode()
        m = len(buf)
        took = 0
        waited = 0
        while True:
            room = self.fifo - self.level()
            k = m - took
            if k > room:
                k = room
            if k > 0:
                self.out.extend(bytes(buf[took:took + k]))
                now = self.clock[0] * self.baud
                if self._empty < now:
                    self._empty = now
                self._empty += k * 10000000
                took += k
            if took == m or self.nonblocking:
                break
            self.clock[0] += self.tick_us  # ulTaskNotifyTake(pdFALSE, 1): one tick
            waited += self.tick_us
        self.blocked_us += waited
        if waited > self.longest_block_us:
            self.longest_block_us = waited
        self.writes.append((self.clock[0], m, took))
        return took
