"""The emulated Pico's USB CDC on a pty, for tools that open a serial port.

mpremote, speedref-flash and speedref-log open the pty's path exactly as
they open /dev/ttyACM0 on a real board.  The bridge moves the host's bytes
to the board and the board's bytes to the host, and runs the board in real
time: never ahead of the wall clock (a tool's timeouts are in real time),
behind it only while the emulator is busy.
"""
import os
import select
import termios
import threading
import time
import tty

from emu.board import NS_PER_US

SLICE_US = 2000  # the board runs in slices of this much simulated time


class Bridge:
    def __init__(self, pico):
        self.pico = pico
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        attrs = termios.tcgetattr(self.slave)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(self.slave, termios.TCSANOW, attrs)
        self.path = os.ttyname(self.slave)
        pico.on_serial = self._to_host
        self._stop = threading.Event()
        self._thread = None
        self._wall0 = None
        self._ns0 = None

    def _to_host(self, data):
        try:
            os.write(self.master, data)
        except OSError:
            pass  # nobody has the port open: a real board's bytes go nowhere too

    def pump(self):
        """One turn: the host's bytes to the board, the board up to now."""
        if self._wall0 is None:
            self._wall0 = time.monotonic()
            self._ns0 = self.pico.ns
        r, _, _ = select.select([self.master], [], [], 0)
        if r:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                data = b""
            if data:
                self.pico.serial_write(data)
        wall_ns = self._ns0 + int((time.monotonic() - self._wall0) * 1e9)
        if self.pico.ns + SLICE_US * NS_PER_US <= wall_ns:
            self.pico.run_until(min(wall_ns, self.pico.ns + 50 * SLICE_US * NS_PER_US))
            return True
        return False

    def serve_forever(self):
        while not self._stop.is_set():
            if not self.pump():
                time.sleep(0.001)

    def start(self):
        """Serve in a thread (tests); stop() ends it."""
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self._stop.clear()
        self._wall0 = None

    def close(self):
        self.stop()
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
