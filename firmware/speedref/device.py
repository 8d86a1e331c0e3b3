# The device loop: ring buffer -> input decoder -> app -> display, buzzer,
# pad lights, log.  The board's main loop and the desktop simulator both call step(now_us)
# on the same Device; only the objects handed in differ (real or virtual
# pins, panel, PWM, console).
#
# step() allocates nothing per input event: the ring is drained into
# preallocated arrays and the decoder works on small ints.
#
# A failed display write (OSError: the OLED's I2C bus NACKed or timed out)
# never stops the referee: it is counted, logged at most once every
# _ERROR_LOG_US, and the whole frame is sent again at the next pass (the
# display forgets what the panel holds when a write fails).
#
# The log may be queued (a Spool, on a board whose console is a slow UART):
# each pass then writes a bounded share of it (SpoolLog.pump), the loop keeps its
# busy pace until it has drained, and a dump of the stored records adds the
# next record only when the queue is empty.  A loop that stops on an
# exception writes out what is queued first, so main.py's crash line starts
# on a line of its own.
import json
from array import array

from .inputs import Inputs
from .ticks import ticks_diff, ticks_add

from micropython import const

_BATCH = const(32)  # ring events handled per drain (the ring is drained until empty)
# The loop's pace: a pass every ~1 ms while anything happens (a button, a
# redraw, a sound) and for BUSY_US after; otherwise every IDLE_MS.  Presses
# are timestamped by the capture, not by the loop, and every verdict and
# count comes from those stamps: the committed game scripts give the same
# log with a pass every 1 ms or every 20 ms (the simulator shows it), so a
# resting loop may nap.  A board given machine.idle (wiring.build) naps
# until the first input arrives or the app's next timed cue is due (App.wake),
# so nothing players react to waits for the nap: IDLE_MS only sets how often
# a resting loop looks at the console and the buzzer.  Without it (tests,
# sleep_ms only) a napping board reacts within IDLE_MS.  A pass at rest
# costs as much CPU as a millisecond's wake from machine.idle: at 5 ms the
# board at its menu was busy 11 % of the time, at 20 ms 5.5 % (the emulated
# Pico's instruction count), and a console command at rest waits 20 ms at most.
IDLE_MS = 20
BUSY_US = 100000  # neither is a tunable: nobody at the table feels the loop's pace
# The heap is collected by the loop while nothing happens: in a pass at
# rest (nothing for BUSY_US) once _GC_PASSES passes with events have gone by
# since the last collection (a save or a quiet moment collects too,
# App.commit).  Otherwise the heap fills with the passes' garbage and the
# allocator collects when it runs out, wherever that is, a verdict's pass
# among them (5-6 ms on a Pico, between the news rows and the rest).  The
# loop never asks how full the heap is: gc.mem_free() walks the whole heap
# (8.8 ms on the emulated Pico, interrupts on but the loop held), which
# every 20 ms of rest kept the CPU busy and held back a slap's pass.  A
# busy pass allocates at most a few KB, far less than the heap has free.
_GC_PASSES = const(16)  # not a tunable: passes with events between collections at rest, felt by nobody
LINE_MAX = 256  # longest console command line we accept
_BLANKS = const(" \t\r\n\x0b\x0c")
_ERROR_LOG_US = const(10000000)  # a repeating display error is logged once per 10 s (not a tunable)


class Device:
    def __init__(self, ring, app, log, store=None, display=None, buzzer=None, capture=None,
                 console=None, inputs=None, leds=None, idle=None):
        self.ring = ring
        self.app = app
        self.log = log
        self.store = store
        self.display = display
        self.buzzer = buzzer
        self.leds = leds  # hw.leds.PadLeds (show(mask), mask), or None
        if leds is not None:
            app.lights_out = leds.show  # a verdict lights its pad the moment it is made
        self.capture = capture  # has poll() (IRQ or PIO path), or None
        # machine.idle (the CPU waits for the next interrupt, 1 ms at most):
        # run() then naps until the first input or the app's next cue.
        self.idle = idle
        # has readline() -> str or None, never blocks; `got`: bytes that call
        # read (any: the loop stays busy); `problem` (optional): why the line
        # it just returned is bad (UsbConsole), else None
        self.console = console
        self.inputs = inputs or Inputs(app, on_stuck=self._stuck)
        app.inputs = self.inputs
        app.capture = capture
        self._ts = array("l", [0] * _BATCH)
        self._ms = array("l", [0] * _BATCH)
        self._dropped = ring.dropped
        self._late = 0  # the capture's late words and full FIFOs, as last logged
        self._full = 0
        self.events = 0  # ring events handled
        self.display_errors = 0
        self._unshown = False  # the last frame did not reach the panel
        self._err_logged = None  # when the last display error line went out
        self._pump = getattr(log, "pump", None)  # SpoolLog.pump; a plain Log has none
        self._dump = None  # the stored records still to send for a dump command
        self._dumped = 0
        self._roster = None  # roster.Console, made at the first roster command
        self._more = False  # the last pass left work for the next (run naps 1 ms then)
        self._since_gc = 0  # passes with events since the heap was last collected
        # True: the owner calls app.commit() itself, once what the pass
        # showed is out (the web page: after it has drawn the canvas)
        self.defer_commit = False
        # speedref/uplink.Uplink (a board with Wi-Fi and an uplink.json), or None
        # (its matches come to take_match: attach() hooks them up)
        self.uplink = None
        self.inbox = None  # match.Inbox: a console match in parts, or one waiting for a game's end

    def attach(self, up):
        """The Wi-Fi uplink (None: none): ticked at rest, the matches it
        receives taken here (take_match)."""
        self.uplink = up
        if up is not None:
            up.on_match = self.take_match

    def step(self, now_us):
        """One pass of the loop at time now_us (ticks_us).  Returns True when
        it did something (an input event, a redraw, a sound)."""
        busy = False
        ring = self.ring
        n = ring.drain(self._ts, self._ms) if ring.head != ring.tail else 0
        if n:
            busy = True
        while n:
            for i in range(n):
                self.inputs.feed(self._ts[i], self._ms[i])
            self.events += n
            n = self.ring.drain(self._ts, self._ms) if n == _BATCH else 0
        self.inputs.tick(now_us)
        app = self.app
        app.tick(now_us)
        # What the players wait for goes out first, quickest first: the pad
        # lights (pin writes), the sound (PWM), the screen (drawn now, the
        # rows with the news sent first); then the log lines and the save
        # (app.commit), which hold the CPU longest.  The order is proven on
        # the emulated Pico's trace (tests/board/test_board_order.py).
        leds = self.leds
        if leds is not None and app.lights != leds.mask:
            leds.show(app.lights)
        sound = app.pop_sound()
        while sound is not None:
            busy = True
            if self.buzzer is not None:
                self.buzzer.play(sound[0], sound[1])
            sound = app.pop_sound()
        if self.buzzer is not None:
            self.buzzer.update(now_us)
        app.render()
        if app.dirty or self._unshown:
            busy = True
            if self.display is not None:
                try:
                    self.display.show(app.buf, app.news)
                    self._unshown = False
                except OSError as e:
                    self._display_failed(e, now_us)
        app.dirty = False
        app.news = 0
        if not self.defer_commit and (app.out[0] is not None or app.pending is not None):
            if app.pending is not None:
                self._since_gc = 0  # the commit collects the heap (a save, a quiet moment)
            app.commit()
        if self.capture is not None:
            # Levels a lockout held back, words the interrupt left: into the
            # ring for the next pass (here, so an edge's pass starts with it).
            self.capture.poll()
        if self.ring.dropped != self._dropped:
            # Rare by design (a 64-slot ring, drained every few ms): say how
            # many snapshots were lost; the decoder resyncs levels anyway.
            self.log.emit({"ev": "error", "what": "overflow", "dropped": self.ring.dropped,
                           "new": self.ring.dropped - self._dropped})
            self._dropped = self.ring.dropped
        cap = self.capture
        if cap is not None and (cap.late != self._late or cap.full != self._full):
            # The PIO capture read words late (interrupts were held off) or
            # found its FIFO full (a change may have waited for room): rare,
            # and worth knowing when a verdict is questioned.
            self._late = cap.late
            self._full = cap.full
            self.log.emit({"ev": "error", "what": "capture", "late": cap.late, "full": cap.full})
        more = self._unshown or self._dump is not None
        if self.console is not None:
            line = self.console.readline()
            if self.console.got:
                busy = more = True  # bytes are coming: keep the 1 ms pace until the line is in
            if line is not None:
                problem = getattr(self.console, "problem", None)
                if problem is None:
                    self.command(line)
                else:
                    self._bad_line(problem, line)
        if self._dump is not None:
            self._dump_more()
            busy = more = True
        if self._pump is not None and self._pump(now_us):
            busy = more = True  # log lines waiting: keep the 1 ms pace until they are out
        self._more = more
        up = self.uplink
        box = self.inbox
        if (up is not None or box is not None) and not busy and (app.flow is None or app.over):
            # the network, and a match the console gave during a game, only
            # in a pass at rest with no game in play: a verdict never waits
            # on them (speedref/uplink.py, speedref/match.py)
            if up is not None:
                up.tick(now_us)
            if box is not None and box.waiting:
                box.release(self)
        return busy

    def run(self, ticks_us, sleep_ms, until=None):
        """The board's main loop: a pass, then a 1 ms sleep, or IDLE_MS when
        nothing has happened for BUSY_US (see IDLE_MS).  Presses are
        timestamped where they are captured (PIO or pin interrupt), so the
        loop only has to keep up, not be on time.  until(now): stop after a
        pass when it says True (None: never).

        Given machine.idle (self.idle), the loop instead naps after every
        pass until the next input, the app's next cue (App.wake) or the
        buzzer's next change, IDLE_MS at most (1 ms while the panel, a dump
        or the log still has work to do): an edge finds no pass under way
        and is taken at once.

        A loop stopped by an exception (a crash, Ctrl-C) silences the buzzer
        on its way out: the PWM would otherwise hold the tone it was playing
        while main.py logs the crash, or for good at the REPL."""
        last = ticks_us()
        try:
            while True:
                now = ticks_us()
                if self.step(now):
                    last = now
                    self._since_gc += 1
                elif self.buzzer is not None and self.buzzer.busy():
                    last = now
                elif self._since_gc >= _GC_PASSES and ticks_diff(now, last) >= BUSY_US:
                    self._since_gc = 0
                    self._collect()
                if until is not None and until(now):
                    return
                if self.idle is None:
                    sleep_ms(1 if ticks_diff(now, last) < BUSY_US else IDLE_MS)
                else:
                    self._nap(ticks_us, 1000 if self._more else IDLE_MS * 1000)
        except BaseException:
            if self.buzzer is not None:
                self.buzzer.silence()
            flush = getattr(self.log, "flush", None)
            if flush is not None:
                try:
                    flush()
                except Exception:  # noqa: BLE001 - the exception on its way out matters more
                    pass
            raise

    def _collect(self):
        """A pass at rest after events: collect the heap now, so the
        allocator never has to inside a pass players wait for."""
        import gc
        if not hasattr(gc, "mem_free"):  # CPython (the simulator) needs no such help
            return
        gc.collect()

    def _nap(self, ticks_us, us):
        """Wait `us`, until the app's next cue (app.due) or the buzzer's next
        change if sooner, or until the first input in the ring, whichever
        comes first.  machine.idle() returns at every interrupt (the
        capture's among them) and after 1 ms at most; the last millisecond
        before a cue is waited out awake, so the cue's pass starts on time.
        A nap with no cue in it sleeps to its end (up to 1 ms past it):
        polling the clock awake for its last millisecond kept the CPU busy
        a fifth of the time at rest."""
        end = ticks_add(ticks_us(), us)
        cue = False
        due = self.app.due
        if due is not None and ticks_diff(due, end) < 0:
            end = due
            cue = True
        bz = self.buzzer
        if bz is not None:
            due = bz.due()
            if due is not None and ticks_diff(due, end) < 0:
                end = due
                cue = True
        ring = self.ring
        idle = self.idle
        while ring.head == ring.tail:
            left = ticks_diff(end, ticks_us())
            if left <= 0:
                return
            if left > 1000 or not cue:
                idle()

    def _dump_more(self):
        """Send stored records while the log takes a whole one at once (all
        of them now without a queued log), then dump_end."""
        ready = getattr(self.log, "ready", None)
        while ready is None or ready():
            try:
                rec = next(self._dump)
            except StopIteration:
                self._dump = None
                self.log.emit({"ev": "dump_end", "count": self._dumped})
                return
            self.log.emit({"ev": "stored", "record": rec})
            self._dumped += 1

    def _display_failed(self, e, now_us):
        self.display_errors += 1
        self._unshown = True
        t = self._err_logged
        if t is None or ticks_diff(now_us, t) >= _ERROR_LOG_US:
            self._err_logged = now_us
            self.log.emit({"ev": "error", "what": "display", "msg": str(e),
                           "count": self.display_errors})

    def _stuck(self, button, held_us):
        self.log.emit({"ev": "error", "what": "stuck", "button": button,
                       "held_ms": held_us // 1000})

    def _bad_line(self, msg, line):
        self.log.emit({"ev": "error", "what": "command", "msg": msg, "line": line[:60]})

    def command(self, line):
        """One line from the USB console: a JSON object with a "cmd".  Never
        raises: anything else (too long, not JSON, nested deeper than the
        parser's stack or heap allows) is reported as a bad command.  A
        blank line is ignored (ASCII blanks: both runtimes strip alike)."""
        line = line.strip(_BLANKS)
        if not line:
            return
        if len(line) > LINE_MAX:  # the console stops at LINE_MAX; callers may not
            self._bad_line("line too long", line)
            return
        try:
            cmd = json.loads(line)
        except (ValueError, RuntimeError, MemoryError):
            # RuntimeError: RecursionError on CPython, recursion depth on
            # MicroPython; MemoryError: MicroPython's parser stack.
            cmd = None
        if not isinstance(cmd, dict) or not isinstance(cmd.get("cmd"), str):
            self._bad_line("not a JSON command", line)
            return
        if cmd["cmd"] == "dump":
            if self._dump is None:  # a dump under way finishes and answers both
                # one record at a time (small heap), as fast as the log takes them
                self._dump = self.store.iter_records() if self.store is not None else iter(())
                self._dumped = 0
                self._dump_more()
        elif cmd["cmd"] == "mem":
            # The heap as a collection leaves it: what a game in progress
            # really holds, and what is left for the rest of it.
            import gc
            if not hasattr(gc, "mem_alloc"):  # CPython (the simulator) keeps no such figures
                self.log.emit({"ev": "error", "what": "command", "msg": "no heap figures here"})
                return
            gc.collect()
            self.log.emit({"ev": "mem", "alloc": gc.mem_alloc(), "free": gc.mem_free()})
        elif cmd["cmd"] == "roster" or cmd["cmd"] == "table":
            # loaded only for these lines: the roster is never in a game's heap
            if self._roster is None:
                from .roster import Console
                self._roster = Console()
            self._roster.command(self.app, self.log, cmd)
            if self._roster.push is None:  # no push under way: its code leaves the heap
                self._roster = None
                from . import forget
                forget("speedref.roster")
        elif cmd["cmd"] == "match":
            from . import match  # loaded only for these lines, as the roster's
            match.console(self, cmd)
            if self.inbox is None:  # no part or match waiting: its code leaves the heap
                from . import forget
                forget("speedref.match")
        else:
            self.log.emit({"ev": "error", "what": "command", "msg": "unknown cmd",
                           "cmd": cmd["cmd"][:20]})

    def take_match(self, m, source):
        """Keep match `m` (None: clear it) from `source` ("wifi": the
        uplink's on_match; "usb"), and show it (speedref/match.py).  Called
        only while no game is in play."""
        from . import match
        match.offer(self, m, source)
        if self.inbox is None:
            from . import forget
            forget("speedref.match")


class UsbConsole:
    """Command lines from the USB serial console without blocking: poll
    sys.stdin with select.poll and read what is there into a fixed buffer
    (the board's REPL channel).

    Bytes, never text: sys.stdin decodes UTF-8 as it reads, so a byte that is
    not UTF-8 raises UnicodeError and a lone lead byte (0xF0) waits for the
    rest of its character, holding the loop up.  Here each byte is read into
    a one-byte buffer (sys.stdin.buffer.readinto: nothing allocated per
    byte), and a whole line is decoded once its newline has come.

    readline() returns a line (str) or None; when the line is bad, `problem`
    says why ("not UTF-8", "line too long") and the line is what can be shown
    of it (its first LINE_MAX bytes, anything not ASCII as "?" when it is not
    UTF-8).  A line longer than LINE_MAX is read to its end and reported once.
    One call reads at most LINE_MAX + 1 bytes, so a host flooding the console
    cannot hold up a loop pass; a line split over calls is kept until its
    newline arrives.  A blank line is skipped."""

    def __init__(self, stream=None, poller=None):
        import sys
        stream = stream or sys.stdin
        if poller is None:
            import select
            poller = select.poll()
            poller.register(stream, select.POLLIN)
        self.poller = poller
        # MicroPython's ipoll() yields from one reused tuple, where poll()
        # builds a list every pass.  The simulator's queue and the tests'
        # streams have only poll(), answering true or false: the same
        # iterable of it (constant tuples, nothing allocated).
        ipoll = getattr(poller, "ipoll", None)
        if ipoll is None:
            poll = poller.poll
            ipoll = lambda timeout: (1,) if poll(timeout) else ()  # noqa: E731
        self._ipoll = ipoll
        self.stream = getattr(stream, "buffer", stream)  # the bytes under the text
        self._read = self.stream.readinto  # bound once: binding allocates
        self.buf = bytearray(LINE_MAX)
        self._one = bytearray(1)
        self.n = 0
        self.overlong = False
        self.problem = None
        self.got = 0  # bytes the last readline() read

    # Bytecode, not @micropython.native: that took 26 % fewer instructions a
    # flood byte, but frozen into the rp2 image its code read a constant from
    # an unaligned flash address (a HardFault on a Cortex-M0+; the emulated
    # Pico stops there), where the .mpy install ran.
    def readline(self):
        self.problem = None
        # a flood is read a byte at a time (MicroPython's stdin has no
        # non-blocking bulk read), so every name the loop uses is a local,
        # the line's length and its overlong flag too (an attribute store a
        # byte was a sixth of a flood's time), the poll done inline
        ipoll = self._ipoll
        read = self._read
        one = self._one
        buf = self.buf
        limit = LINE_MAX
        over = self.overlong
        n = self.n
        left = limit + 1  # counted down: a truth test a byte, not a comparison
        try:  # one handler a call, not one a byte
            while left:
                for _ in ipoll(0):
                    break
                else:
                    break
                if not read(one):
                    break
                left -= 1
                c = one[0]
                if c < 14 and (c == 10 or c == 13):  # one test for a printable byte
                    if not n and not over:
                        continue  # a blank line, or the \n of a \r\n
                    self.n = n
                    self.got = limit + 1 - left
                    self.overlong = over
                    return self._line()
                if over:
                    pass  # the rest of a line too long: read to its end
                elif n < limit:
                    buf[n] = c
                    n += 1
                else:
                    over = True
        except OSError:
            pass  # nothing to read after all: try again next pass
        self.n = n
        self.got = limit + 1 - left
        self.overlong = over
        return None

    def _line(self):
        raw = bytes(self.buf[:self.n])
        self.n = 0
        if self.overlong:
            self.overlong = False
            self.problem = "line too long"
        try:
            return raw.decode()
        except UnicodeError:
            if self.problem is None:
                self.problem = "not UTF-8"
            return "".join(chr(b) if 32 <= b < 127 else "?" for b in raw)
