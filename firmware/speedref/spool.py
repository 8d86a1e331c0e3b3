# A queue of whole log lines in front of a slow port (Spool) and the log that
# writes into it (SpoolLog), for a board whose console is a UART: the ESP32's UART0 at 115200
# baud takes 87 us a byte, and MicroPython's write waits in C, where no
# scheduled pin callback runs, whenever the 128-byte TX FIFO is full.  A 2 KB
# game_end line written at once held the loop ~170 ms, so presses on the
# soft pin interrupts were stamped that late.  Here lines are streamed into
# a fixed ring (json.dump writes into it piece by piece, so a line never
# exists as one string) and the loop hands the port a bounded share each
# pass, never more than its FIFO has room for (docs/timing.md).  Only a
# board that asks for it (LOG_QUEUE in its board file) loads this module.
import io
import json

from speedref.log import Log
from speedref.ticks import ticks_add, ticks_diff

DROPPED_EVS = 8  # the evs of dropped lines an overflow report names


class Spool(io.IOBase):
    """Whole log lines queued in a fixed ring of `size` bytes in front of a
    slow port, written out by pump() at most `pass_bytes` a loop pass.

    port.write(buf) may take fewer bytes than offered (returns how many; None
    means none: a non-blocking port with no room).  With `baud` and `fifo`
    (a UART whose write blocks when its hardware FIFO is full, like the
    ESP32 console) pump() also keeps a model of that FIFO, emptying at one
    byte per 10 bits, and never offers more than it has room for, so the
    write only copies into the FIFO and returns at once.

    An io.IOBase: MicroPython's json.dump writes only into a real stream
    (CPython's into anything with write()).  Its drain() is not IOBase's
    flush(), which CPython calls when the object is collected.

    A line is written into the ring (json.dump streams into write()) and
    counts only when it is whole (end_line()): the port never gets part of
    a line that did not fit.  A line that does not fit in what is free is
    dropped whole and counted in `dropped` / `dropped_bytes`."""

    def __init__(self, port, size=8192, pass_bytes=64, baud=None, fifo=0):
        self.port = port
        self.size = size
        self.pass_bytes = pass_bytes
        self.buf = bytearray(size)
        self._mv = memoryview(self.buf)
        self.head = 0  # the next byte the port gets
        self.n = 0  # bytes of whole lines waiting
        self._w = 0  # bytes of the line being written (not whole yet)
        self._over = False  # the line being written does not fit: dropped
        self.dropped = 0  # lines dropped since the owner last reported them
        self.dropped_bytes = 0
        self.sent = 0  # bytes the port took, in all
        self.last_pass = 0  # bytes the last pump() wrote
        self._byte_us = (10000000 + baud - 1) // baud if baud else 0  # rounded up
        self._fifo = fifo
        self._empty_at = None  # when the modelled FIFO is empty (ticks_us)

    # -- the line being written (json.dump calls write with short pieces) --
    def begin_line(self):
        self._w = 0
        self._over = False

    def write(self, b):
        if isinstance(b, str):  # CPython's json writes str pieces
            b = b.encode()
        m = len(b)
        if self._over or self.n + self._w + m > self.size:
            self._over = True  # the line is dropped: only its size is kept
            self._w += m
            return m
        i = self.head + self.n + self._w
        if i >= self.size:
            i -= self.size
        k = self.size - i
        if m <= k:
            self.buf[i:i + m] = b
        else:  # the ring wraps inside this piece
            mv = memoryview(b)
            self.buf[i:] = mv[:k]
            self.buf[:m - k] = mv[k:]
        self._w += m
        return m

    def end_line(self):
        """The line is whole: queue it (True), or count it dropped (False)."""
        w = self._w
        self._w = 0
        if self._over:
            self._over = False
            self.dropped += 1
            self.dropped_bytes += w
            return False
        self.n += w
        return True

    # -- the port side --
    def room(self, now_us):
        """Bytes the port can take now without waiting (pass_bytes at most)."""
        k = self.pass_bytes
        e = self._empty_at
        if e is not None:
            left = ticks_diff(e, now_us)
            if left <= 0 or left > self._fifo * self._byte_us:
                # empty by now (forgotten at once: an instant kept for long
                # would come round again as the ticks wrap)
                self._empty_at = None
            else:
                free = self._fifo - (left + self._byte_us - 1) // self._byte_us
                if free < k:
                    k = free if free > 0 else 0
        return k

    def pump(self, now_us):
        """One loop pass: write at most room(now_us) bytes of whole lines.
        Returns the bytes written."""
        budget = self.room(now_us)  # every pass: it also forgets an emptied FIFO
        if not self.n:
            budget = 0
        done = 0
        while budget and self.n:
            k = self.n
            if k > budget:
                k = budget
            if k > self.size - self.head:
                k = self.size - self.head  # up to the ring's end; the rest next loop
            w = self.port.write(self._mv[self.head:self.head + k]) or 0
            self._took(w)
            done += w
            if w < k:
                break  # the port is full: try again next pass
            budget -= w
        if done and self._byte_us:
            e = self._empty_at
            if e is None:
                e = now_us
            self._empty_at = ticks_add(e, done * self._byte_us)
        self.last_pass = done
        return done

    def _took(self, w):
        self.head += w
        if self.head >= self.size:
            self.head -= self.size
        self.n -= w
        self.sent += w

    def drain(self, tries=100000):
        """Everything queued, now, however long the port takes (the loop is
        stopping: a crash line must not land inside a half-sent line)."""
        while self.n and tries:
            k = self.size - self.head
            if k > self.n:
                k = self.n
            w = self.port.write(self._mv[self.head:self.head + k]) or 0
            if not w:
                tries -= 1
            self._took(w)
        self._empty_at = None


class SpoolLog(Log):
    """A Log whose lines wait in a Spool: the device loop calls pump(now_us)
    every pass.  A line the spool has no room for is dropped whole; once the
    spool has drained, one error line ("log_dropped") says how many lines
    and bytes were lost and names their evs (the first DROPPED_EVS)."""

    def __init__(self, spool):
        super().__init__(stream=spool)
        self.spool = spool
        self._dropped_evs = []

    def _put(self, obj):
        sp = self.spool
        sp.begin_line()
        json.dump(obj, sp)
        sp.write(b"\n")
        if sp.end_line():
            self.lines += 1
        elif len(self._dropped_evs) < DROPPED_EVS:
            self._dropped_evs.append(obj["ev"])

    def pump(self, now_us):
        """One loop pass: the spool writes its share; once it has drained
        after dropping lines, the report.  True while lines are waiting (the
        loop keeps its busy pace)."""
        sp = self.spool
        sp.pump(now_us)
        if sp.dropped and not sp.n:
            d = {"ev": "error", "what": "log_dropped", "msg": "log queue full: lines dropped",
                 "lines": sp.dropped, "bytes": sp.dropped_bytes, "evs": self._dropped_evs}
            sp.dropped = 0
            sp.dropped_bytes = 0
            self._dropped_evs = []
            self.emit(d)
        return sp.n > 0

    def ready(self):
        """True when nothing waits, so a line as big as the spool is queued
        whole: the device adds a dump's next stored record only then."""
        return not self.spool.n

    def flush(self):
        """Write out everything queued, waiting for the port (the loop is
        stopping: main.py's crash line must start on a line of its own)."""
        self.spool.drain()
