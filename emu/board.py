"""The emulated Pico, driven from Python.

`Pico` starts emu/pico.mjs (rp2040js running MicroPython's own rp2 firmware)
and is the master of its simulated time: nothing happens on the board
between two calls.  Around it, the host-side models of the referee's parts:

  - buttons: GPIO levels set at exact simulated instants (`press`, `release`,
    `set_pins`); a pressed pad drives its pin low against the pull-up;
  - the OLED: the I2C bytes the firmware sends, decoded by the simulator's
    own VirtualSSD1306 (sim/hardware.py), so both show the same pixels;
  - the buzzer: PWM register writes turned into tones (`tones`);
  - flash: a littlefs image in (`fs_image`) and out (`flash_image()`);
  - USB CDC: `serial_write` / `serial_read`, and `raw_repl` on top of them
    (emu/serve.py bridges the same bytes to a pty for mpremote).

The firmware image and the RP2040 bootrom are not part of this repository
(both are built from other projects' sources): emu/images.py finds them.
"""
import base64
import io
import json
import os
import subprocess
import sys

from emu import images

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NS_PER_US = 1000
CYCLES_PER_US = 125  # the RP2040 at MicroPython's default 125 MHz
NS_PER_CYCLE = 8

# Pin map of the referee (firmware/speedref/hw/board_pico.py).
sys.path.insert(0, os.path.join(ROOT, "firmware"))
from speedref.hw import board_pico as PICO  # noqa: E402

sys.path.insert(0, ROOT)
from sim.hardware import VirtualSSD1306  # noqa: E402


class BoardError(RuntimeError):
    pass


class Tone:
    """One tone the piezo sounded: start (ns), frequency (Hz), length (ns or
    None while it sounds)."""

    __slots__ = ("start_ns", "freq", "length_ns")

    def __init__(self, start_ns, freq):
        self.start_ns = start_ns
        self.freq = freq
        self.length_ns = None

    def __repr__(self):
        return "Tone(%d ns, %d Hz, %s)" % (self.start_ns, self.freq, self.length_ns)


def _line_reader(pipe):
    """The emulator's stdout, read a chunk at a time: a flash copy is one
    line of ~2 MB, which an unbuffered readline would take byte by byte.
    readline still returns as soon as a whole line has arrived."""
    return io.BufferedReader(pipe, 1 << 20)



def stop_process(proc, grace):
    """Stop a child that finishes when its stdin closes: close stdin, give it
    `grace` seconds to finish on its own (its last output still flushed), and
    only then kill it."""
    if proc.poll() is None:
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

class Pico:
    def __init__(self, firmware=None, fs_image=None, node=None, exact_pio=None, trace_irq=False,
                 rosc_seed=None, trace=False):
        self.firmware = firmware or images.stock_firmware()
        bootrom = images.bootrom()
        cfg = {"firmware": self.firmware, "bootrom": bootrom,
               "i2c_devices": [PICO.OLED_ADDR]}
        if exact_pio is None:
            exact_pio = os.environ.get("SPEEDREF_EMU_EXACT_PIO") == "1"
        cfg["exact_pio"] = bool(exact_pio)
        cfg["trace_irq"] = bool(trace_irq)  # an "irq" event at every exception entry
        # The ring oscillator's random bit (os.urandom's entropy, as on silicon):
        # fresh at every power-up, or a repeatable run from a seed.
        if rosc_seed is None and os.environ.get("SPEEDREF_EMU_ROSC_SEED"):
            rosc_seed = int(os.environ["SPEEDREF_EMU_ROSC_SEED"])
        if rosc_seed:
            cfg["rosc_seed"] = int(rosc_seed) & 0xFFFFFFFF
        # trace: the order of what the board does, at CPU cycles (`trace`, below)
        cfg["trace"] = bool(trace)
        cfg["trace_pins"] = list(PICO.PAD_LED_PINS)
        self._tmp_fs = None
        if fs_image is not None:
            import tempfile
            fd, path = tempfile.mkstemp(prefix="speedref-fs-", suffix=".img")
            with os.fdopen(fd, "wb") as f:
                f.write(fs_image)
            self._tmp_fs = path
            cfg["flash"] = path
            cfg["flash_offset"] = images.FS_OFFSET
        node = node or images.node()
        self.proc = subprocess.Popen(
            [node, os.path.join(HERE, "pico.mjs"), json.dumps(cfg)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT, bufsize=0)
        self._rfile = _line_reader(self.proc.stdout)
        hello = self._line()
        if not hello.get("ready"):
            raise BoardError("the emulator did not start: %r" % (hello,))
        self.ns = 0
        self.serial = bytearray()  # everything the board wrote to USB CDC
        self._read_pos = 0
        self.oled = VirtualSSD1306(PICO.OLED_ADDR)
        self.i2c_log = []  # (ns, nbytes) of each I2C transaction
        self.flash_ops = []  # flash events
        self.irqs = []  # exception entries, with trace_irq
        # With trace=True, what the board did in order, each at its simulated
        # instant (ns) and CPU cycle since power-up: ("lights", ns, cycle,
        # mask of PAD_LED_PINS driven high, as bit p = pad p), ("i2c", ns,
        # cycle, byte, its place in its transaction: 0 for the SSD1306's control
        # byte) for every byte at the end of its time on the bus, and
        # ("flash", ns, cycle, op) at the start of every erase or program
        # ("flash_end" at its end).  Sorted by instant: trace_sorted().
        self.trace = []
        self.tones = []
        self._pwm = {}
        self.on_serial = None  # callback(bytes) as CDC data arrives
        self.on_i2c = None  # callback(ns, data) after each OLED transaction

    # -- the process protocol -------------------------------------------------
    def _line(self):
        raw = self._rfile.readline()
        if not raw:
            err = self.proc.stderr.read() if self.proc.stderr else b""
            raise BoardError("the emulator exited (%s) %s" % (self.proc.poll(), err[-2000:]))
        return json.loads(raw)

    def _cmd(self, obj):
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())
        self.proc.stdin.flush()
        reply = None
        while True:
            msg = self._line()
            if "done" in msg:
                self.ns = msg["ns"]
                return reply
            ev = msg.get("ev")
            if ev == "cdc":
                data = base64.b64decode(msg["data"])
                self.serial += data
                if self.on_serial:
                    self.on_serial(data)
            elif ev == "i2c":
                data = bytes.fromhex(msg["data"])
                self.i2c_log.append((msg["ns"], len(data)))
                if "byte_cycles" in msg:
                    end_ns, end_c = msg["ns"], msg["cycles"]
                    for i, (b, c) in enumerate(zip(data, msg["byte_cycles"])):
                        self.trace.append(("i2c", end_ns - (end_c - c) * NS_PER_CYCLE, c, b, i))
                if msg["addr"] == self.oled.addr:
                    self.oled.writeto(msg["addr"], data)
                    if self.on_i2c:
                        self.on_i2c(msg["ns"], data)
            elif ev in ("pwm", "pwm_en"):
                self._pwm_event(msg)
            elif ev == "flash":
                self.flash_ops.append(msg)
                if "start_cycles" in msg:
                    self.trace.append(("flash", msg["start_ns"], msg["start_cycles"], msg["op"]))
                    self.trace.append(("flash_end", msg["ns"], msg["cycles"], msg["op"]))
            elif ev == "gpio":
                mask = 0
                for pad, pin in enumerate(PICO.PAD_LED_PINS):
                    if msg["out"] >> pin & 1:
                        mask |= 1 << pad
                self.trace.append(("lights", msg["ns"], msg["cycles"], mask))
            elif ev == "irq":
                self.irqs.append(msg)
            elif ev == "error":
                raise BoardError("emulator: %s" % msg.get("msg"))
            else:
                reply = msg

    def close(self):
        stop_process(self.proc, 5)
        if self._tmp_fs:
            os.remove(self._tmp_fs)
            self._tmp_fs = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def trace_sorted(self):
        """The trace in the order things happened (by instant)."""
        return sorted(self.trace, key=lambda e: e[1])

    # -- time -------------------------------------------------------------------
    def run_until(self, ns, until_text=None):
        self._cmd({"op": "run", "until_ns": int(ns), "until_text": until_text})

    def run_for(self, us):
        self.run_until(self.ns + int(us * NS_PER_US))

    def state(self):
        return self._cmd({"op": "state"})

    def ticks_us(self, ns=None):
        """The board's time.ticks_us() at simulated instant ns (default: now).
        The RP2040's timer counts microseconds from the last power-up or
        reset; ticks_us wraps at 2**30."""
        ns = self.ns if ns is None else ns
        return ((ns - self.state()["epoch"]) // NS_PER_US) & 0x3FFFFFFF

    # -- buttons ------------------------------------------------------------------
    def set_pins(self, levels):
        """levels: {gpio: 0, 1 or None}, all applied at the same simulated
        instant.  None: the host lets go and the pin floats to its pull."""
        self._cmd({"op": "gpio", "pins": [[int(p), None if v is None else (1 if v else 0)]
                                          for p, v in levels.items()]})

    def press(self, *buttons):
        """Buttons pressed: each drives its pin low (a switch to GND)."""
        self.set_pins({PICO.BUTTON_PINS[b]: 0 for b in buttons})

    def release(self, *buttons):
        """Buttons let go: their pins float up to the firmware's pull-ups."""
        self.set_pins({PICO.BUTTON_PINS[b]: None for b in buttons})

    # -- the buzzer -------------------------------------------------------------------
    def _pwm_event(self, msg):
        if msg["ev"] == "pwm":
            self._pwm[msg["slice"]] = msg
        slice_ = PICO.BUZZER_PIN // 2 % 8
        ch = self._pwm.get(slice_)
        b_channel = PICO.BUZZER_PIN & 1
        on = False
        freq = 0
        if ch is not None and ch["csr"] & 1:
            cc = (ch["cc"] >> 16) & 0xFFFF if b_channel else ch["cc"] & 0xFFFF
            div = ch["div"] / 16 or 256
            freq = round(CYCLES_PER_US * 1000000 / div / (ch["top"] + 1))
            on = cc > 0
        last = self.tones[-1] if self.tones else None
        sounding = last is not None and last.length_ns is None
        if on and not sounding:
            self.tones.append(Tone(msg["ns"], freq))
        elif on and sounding and last.freq != freq:
            last.length_ns = msg["ns"] - last.start_ns
            self.tones.append(Tone(msg["ns"], freq))
        elif not on and sounding:
            last.length_ns = msg["ns"] - last.start_ns

    # -- USB CDC ----------------------------------------------------------------------
    def serial_write(self, data):
        if isinstance(data, str):
            data = data.encode()
        self._cmd({"op": "cdc", "data": base64.b64encode(bytes(data)).decode()})

    def serial_read(self):
        """What the board wrote since the last serial_read()."""
        data = bytes(self.serial[self._read_pos:])
        self._read_pos = len(self.serial)
        return data

    def wait_for(self, text, timeout_us=5000000):
        """Run until the board's USB output (since the last serial_read)
        contains text; returns that output."""
        if isinstance(text, str):
            text = text.encode()
        end = self.ns + timeout_us * NS_PER_US
        while text not in self.serial[self._read_pos:]:
            if self.ns >= end:
                raise BoardError("no %r from the board within %d us; it wrote %r" % (
                    text, timeout_us, bytes(self.serial[self._read_pos:])[-400:]))
            self.run_until(end, until_text=text.decode("latin-1"))
        i = self.serial.index(text, self._read_pos) + len(text)
        data = bytes(self.serial[self._read_pos:i])
        self._read_pos = i
        return data

    def boot(self, timeout_us=3000000):
        """Run until USB is up and MicroPython is at its prompt or running main.py."""
        end = self.ns + timeout_us * NS_PER_US
        while not self.state()["connected"]:
            if self.ns >= end:
                raise BoardError("USB did not come up")
            self.run_for(10000)
        return self

    # -- the raw REPL (what mpremote uses) ---------------------------------------------
    def interrupt(self):
        """Ctrl-C twice: stop main.py (or whatever runs) and reach the REPL."""
        self.serial_write(b"\r\x03\x03")
        try:
            self.wait_for(b">>> ", 2000000)
        except BoardError:
            # main.py caught the interrupt and returned (it says so): the
            # REPL may wait for a line before it shows its prompt.
            self.serial_write(b"\r\n")
            self.wait_for(b">>> ", 3000000)

    def clean_repl(self):
        """Stop whatever runs and soft-reset from the raw REPL, as mpremote
        does: PIO programs, state machines and pin interrupts are released,
        and main.py does not run again.  Ends at the friendly REPL."""
        self.interrupt()
        self.serial_write(b"\x01")
        self.wait_for(b"raw REPL; CTRL-B to exit\r\n>")
        self.serial_write(b"\x04")
        self.wait_for(b"soft reboot")
        self.wait_for(b"raw REPL; CTRL-B to exit\r\n>", 5000000)
        self.serial_write(b"\x02")
        self.wait_for(b">>> ")

    def start(self, code):
        """Start code in the raw REPL and return as soon as it runs; the
        caller moves time on (and presses buttons), then calls finish()."""
        self.serial_write(b"\x01")
        self.wait_for(b"raw REPL; CTRL-B to exit\r\n>")
        data = code.encode() if isinstance(code, str) else code
        for i in range(0, len(data), 256):
            self.serial_write(data[i:i + 256])
        self.serial_write(b"\x04")
        self.wait_for(b"OK")

    def finish(self, timeout_us=60000000):
        """Wait for code start()ed to end; returns (stdout, stderr) as str."""
        out = self.wait_for(b"\x04", timeout_us)[:-1]
        err = self.wait_for(b"\x04", timeout_us)[:-1]
        self.wait_for(b">")
        self.serial_write(b"\x02")
        self.wait_for(b">>> ")
        return out.decode("utf-8", "replace"), err.decode("utf-8", "replace")

    def raw_repl(self, code, timeout_us=60000000):
        """Run code in the raw REPL; returns (stdout, stderr) as str."""
        self.start(code)
        return self.finish(timeout_us)

    def exec(self, code, timeout_us=60000000):
        out, err = self.raw_repl(code, timeout_us)
        if err:
            raise BoardError("on the board: %s" % err.strip())
        return out

    # -- flash ------------------------------------------------------------------------------
    def ram_find(self, data):
        """(offset of the first occurrence of `data` in SRAM or -1, the CPU
        cycle count now).  The board is not disturbed."""
        reply = self._cmd({"op": "ram_find", "data": base64.b64encode(bytes(data)).decode()})
        return reply["at"], reply["cycles"]

    def flash_snapshot(self):
        """(volume, op): the filesystem region as a power cut at this instant
        would leave it, and the flash operation that cut would interrupt
        ("erase", "program" or None).  The board runs on unchanged."""
        reply = self._cmd({"op": "flash_snapshot", "offset": images.FS_OFFSET,
                           "size": images.FS_SIZE})
        return base64.b64decode(reply["data"]), reply["busy"]

    def flash_image(self, cut=False, fraction=None):
        """The filesystem region of flash as it is now (bytes).  cut=True: a
        power cut now: a flash operation in progress is left part done."""
        cmd = {"op": "flash_read", "offset": images.FS_OFFSET, "size": images.FS_SIZE,
               "cut": bool(cut)}
        if fraction is not None:
            cmd["fraction"] = fraction
        reply = self._cmd(cmd)
        return base64.b64decode(reply["data"])
