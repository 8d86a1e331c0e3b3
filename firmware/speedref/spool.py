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

from .log import Log
from .ticks import ticks_add, ticks_diff

from micropython import const

_DROPPED_EVS = const(8)  # the evs of dropped lines an overflow report names


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

    put(obj) streams a line into the ring (json.dump calls write() with
    short pieces) and queues it only when it is whole: the port never gets
    part of a line that did not fit.  A line that does not fit in what is
    free is dropped whole and counted in `dropped` / `dropped_bytes`."""

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
        self._byte_us = (10000000 + baud - 1) // baud if baud else 0  # rounded up
        self._fifo = fifo
        self._empty_at = None  # when the modelled FIFO is empty (ticks_us)

    def put(self, obj):
        """Queue obj as one JSON line (True), or count it dropped (False)."""
        self._w = 0
        self._over = False
        json.dump(obj, self)
        self.write(b"\n")
        w = self._w
        self._w = 0
        if self._over:
            self.dropped += 1
            self.dropped_bytes += w
            return False
        self.n += w
        return True

    def write(self, b):
        # json.dump's pieces of the line being put (CPython's are str)
        if isinstance(b, str):
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

    def pump(self, now_us):
        """One loop pass: write whole lines, as many bytes as the port can
        take now without waiting, pass_bytes at most.  Returns the bytes
        written."""
        # Every pass, even with nothing queued: an emptied FIFO is
        # forgotten at once (an instant kept for long would come round
        # again as the ticks wrap).
        budget = self.pass_bytes
        e = self._empty_at
        if e is not None:
            left = ticks_diff(e, now_us)
            if left <= 0 or left > self._fifo * self._byte_us:
                self._empty_at = None  # empty by now
            else:
                free = self._fifo - (left + self._byte_us - 1) // self._byte_us
                if free < budget:
                    budget = free if free > 0 else 0
        done = 0
        while budget and self.n:
            k = self.n if self.n < budget else budget
            w = self._send(k)
            done += w
            if w < k:
                break  # the port is full: try again next pass
            budget -= w
        if done and self._byte_us:
            e = self._empty_at
            self._empty_at = ticks_add(now_us if e is None else e, done * self._byte_us)
        return done

    def _send(self, k):
        # Offer the port up to k queued bytes, up to the ring's end (the rest
        # goes next time); returns how many it took.
        if k > self.size - self.head:
            k = self.size - self.head
        w = self.port.write(self._mv[self.head:self.head + k]) or 0
        self.head += w
        if self.head >= self.size:
            self.head -= self.size
        self.n -= w
        return w

    def drain(self, tries=100000):
        """Everything queued, now, however long the port takes (the loop is
        stopping: a crash line must not land inside a half-sent line)."""
        while self.n and tries:
            if not self._send(self.n):
                tries -= 1
        self._empty_at = None


class SpoolLog(Log):
    """A Log whose lines wait in a Spool: the device loop calls pump(now_us)
    every pass.  A line the spool has no room for is dropped whole; once the
    spool has drained, one error line ("log_dropped") says how many lines
    and bytes were lost and names their evs (the first _DROPPED_EVS)."""

    def __init__(self, spool):
        super().__init__(stream=spool)
        self.spool = spool
        self._dropped_evs = []

    def _put(self, obj):
        if self.spool.put(obj):
            self.lines += 1
        elif len(self._dropped_evs) < _DROPPED_EVS:
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
