# Entry point on the board: build the device, run its loop forever.  A crash
# is printed as a log line with its traceback, then the board resets, unless
# it crashed CRASH_LIMIT times in a row (or the count cannot be written, so a
# reset could loop for good): then the referee stays stopped and says so, on
# the OLED and on the console, where it answers every line with that error
# line.  It does not return to the REPL, which would run whatever the laptop
# sends as Python; Ctrl-C (a person, or mpremote) takes it there.  A clean
# run of the loop for a minute clears the count.
#
# Safe mode: OK held at power-up skips the app and leaves the REPL free (for
# mpremote, e.g. to replace a main.py that crashes at once).  A chip without
# a board file is refused with a log line, also at the REPL, never reset.
# No watchdog: on rp2 a started WDT cannot be stopped, so it would keep
# resetting a board someone is working on at the REPL.
import micropython

try:
    micropython.alloc_emergency_exception_buf(100)  # lets an IRQ handler's error be reported
except AttributeError:
    pass  # the Unix port (tests) has none

CRASH_FILE = "/crashes"
CRASH_LIMIT = 3
# A run this long without a crash clears the crash count.  Not a tunable:
# the reset-loop guard's, and nobody at the table waits on it.
CLEAN_US = 60000000


def _crashes(n=None):
    try:
        if n is None:
            with open(CRASH_FILE) as f:
                return int(f.read() or 0)
        with open(CRASH_FILE, "w") as f:
            f.write(str(n))
    except (OSError, ValueError):
        return 0
    return n


def safe_mode(board):
    """True when OK (button 6) is held down at power-up."""
    import machine
    p = machine.Pin(board.BUTTON_PINS[6], machine.Pin.IN, machine.Pin.PULL_UP)
    return p.value() == 0


def run():
    import time
    from speedref import wiring
    device = wiring.build()
    del wiring  # built: the boot's own modules can leave the heap (wiring.build)
    start = time.ticks_us()

    def clean(now):  # a minute without a crash: the crash count starts again
        if time.ticks_diff(now, start) > CLEAN_US:
            _crashes(0)
            return True
        return False

    device.run(time.ticks_us, time.sleep_ms, until=clean)
    device.run(time.ticks_us, time.sleep_ms)


def main():
    import machine
    from speedref.log import Log
    from speedref.hw import boards
    try:
        board = boards.select()
    except boards.UnknownBoard as e:
        Log().emit({"ev": "error", "what": "board", "msg": str(e)})
        return
    if safe_mode(board):
        Log().emit({"ev": "safe_mode", "msg": "OK held at power-up: app not started, REPL free"})
        return
    # wiring.build selects the board again; this frame lives as long as the
    # loop, so it keeps no module that only the boot needs
    board = boards = None
    try:
        run()
    except KeyboardInterrupt:
        print("stopped: at the REPL")  # Ctrl-C from mpremote: no reset
        return
    except Exception as e:  # anything: log it, then reset (or stop looping)
        log = Log()
        try:
            log.exception(e)
        except Exception:  # noqa: BLE001 - no heap for the traceback: the exception alone
            log.emit({"ev": "error", "what": "crash", "msg": repr(e)})
        n = _crashes() + 1
        if _crashes(n) != n:
            n = max(n, CRASH_LIMIT)  # not counted: a reset could loop for good
        if n >= CRASH_LIMIT:
            line = {"ev": "error", "what": "crash_loop", "crashes": n,
                    "msg": "crashed %d times in a row: referee stopped; power off and on, or "
                    "Ctrl-C for the REPL and remove %s" % (n, CRASH_FILE)}
            log.emit(line)
            try:
                from speedref import halt  # loaded only now: the loop never holds its code
            except Exception:  # noqa: BLE001 - the firmware itself is broken: the REPL is left
                return
            halt.halt(line)
            return
        machine.reset()


main()
