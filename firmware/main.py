# Entry point on the board: build the device, run its loop forever.  A crash
# is printed as a log line with its traceback, then the board resets, unless
# it crashed CRASH_LIMIT times in a row: then it stays at the REPL (so a
# person can fix it over USB) and says so.  A clean run of the loop for a
# minute clears the count.
import micropython

try:
    micropython.alloc_emergency_exception_buf(100)  # lets an IRQ handler's error be reported
except AttributeError:
    pass  # the Unix port (tests) has none

CRASH_FILE = "/crashes"
CRASH_LIMIT = 3
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


def run():
    import time
    from speedref.hw import boards
    device = boards.build()
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
    try:
        run()
    except KeyboardInterrupt:
        print("stopped: at the REPL")  # Ctrl-C from mpremote: no reset
        return
    except Exception as e:  # anything: log it, then reset (or stop looping)
        log = Log()
        log.exception(e)
        n = _crashes() + 1
        _crashes(n)
        if n >= CRASH_LIMIT:
            log.emit({"ev": "error", "what": "crash_loop", "crashes": n,
                      "msg": "crashed %d times in a row: staying at the REPL; remove %s to retry"
                      % (n, CRASH_FILE)})
            return
        machine.reset()


main()
