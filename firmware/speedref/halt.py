# The referee has stopped for good (main.py: it crashed too often in a row).
# It stays here, off the REPL: MicroPython's REPL would run whatever the
# laptop sends (speedref-log's commands, or any program's bytes) as Python.
# Each console line gets the crash_loop error line instead, and the OLED says
# what happened.  Ctrl-C (a person, or mpremote) ends it at the REPL.
# Loaded only when it is needed: the running referee never holds its code.
from micropython import const

# The stopped referee looks at the console this often.  Not a tunable: no
# game runs, and a console line waits at most this long for its answer.
_POLL_MS = const(20)


def _tell_the_table(text):
    """The referee has stopped: say so on the OLED, if it still answers."""
    try:
        import framebuf
        import machine
        from .hw import boards
        from .hw.display import Display
        board = boards.select()
        i2c = machine.I2C(board.I2C_ID, scl=machine.Pin(board.I2C_SCL),
                          sda=machine.Pin(board.I2C_SDA), freq=board.I2C_FREQ)
        buf = bytearray(1024)
        fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
        for i, line in enumerate(text):
            fb.text(line, 0, i * 10, 1)
        Display(i2c, board.OLED_ADDR).show(buf)
    except Exception:  # noqa: BLE001 - the display may be what broke
        pass


def halt(line):
    """Stay stopped: answer each console line with `line` (the log's
    crash_loop error) instead of leaving them to the REPL.  Ctrl-C ends it."""
    import time
    from .log import Log
    log = Log()
    _tell_the_table(("Referee stopped:", "it crashed %d" % line["crashes"], "times in a row.",
                     "", "Power off and on", "to try again."))
    try:
        from .device import UsbConsole
        con = UsbConsole()
    except Exception:  # noqa: BLE001 - then only Ctrl-C is heard
        con = None
    try:
        while True:
            if con is not None:
                try:
                    if con.readline() is not None:
                        log.emit(line)
                except Exception:  # noqa: BLE001 - never back to a reset loop
                    con = None
            time.sleep_ms(_POLL_MS)
    except KeyboardInterrupt:
        print("stopped: at the REPL")
