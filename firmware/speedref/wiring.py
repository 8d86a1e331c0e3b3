# The real device, wired from a board file: the ring, the capture, the OLED,
# the buzzer, the pad lights, the store, the app, the log and the loop that
# joins them.  main.py calls build(); hw/ (pin maps and drivers) never
# reaches up into the app, the loop, storage or the log: this module does.
import sys

from . import forget
from .hw import boards

BOOT_GC_BYTES = 8192  # the boot collects the heap each time this much was allocated (build)


def make_log(board):
    """The log on the console: streamed straight out over USB (the Pico's
    CDC takes a line at once), queued and written a little each loop pass
    when the board says its console is a slow UART (LOG_QUEUE)."""
    size = getattr(board, "LOG_QUEUE", 0)
    if not size:
        from .log import Log
        return Log()
    from .spool import Spool, SpoolLog
    port = getattr(sys.stdout, "buffer", sys.stdout)  # bytes out, no text layer
    return SpoolLog(Spool(port, size, board.LOG_PASS_BYTES, board.LOG_BAUD, board.LOG_FIFO))


def build(board=None, root="/data"):
    """Everything the board needs, wired; returns the Device.

    While it builds, the heap is collected every BOOT_GC_BYTES allocated:
    the boot makes garbage as it goes (module loading, the settings file,
    the first frame), and without a collection the long-lived objects land
    above it, spread through the heap once it is collected, which leaves
    no room in one piece for a big block later (a saved game's JSON, the
    log's record lines).  Collected as it goes, they stay packed low."""
    import gc
    threshold = gc.threshold()
    gc.threshold(BOOT_GC_BYTES)
    try:
        dev = _build(board, root)
    finally:
        # also when the boot is stopped midway (Ctrl-C, a failing part): on
        # rp2 the threshold outlives a soft reset, and left at BOOT_GC_BYTES
        # every 8 KB allocated after it would be a collection, in verdicts'
        # passes too
        gc.threshold(threshold)
    gc.collect()
    return dev


def _uplink(store, log, root):
    """The Wi-Fi uplink (speedref/uplink.py) when the flash holds its
    settings, else None; its module is loaded only then."""
    import os
    try:
        os.stat(root + "/uplink.json")
    except OSError:
        return None
    from . import uplink
    return uplink.build(store, log)


def _build(board, root):
    import machine
    from .app.core import App
    from .device import Device, UsbConsole
    from .hw.buzzer import Buzzer
    from .hw.display import Display
    from .hw.ring import EventRing
    from .storage import Store
    board = board or boards.select()
    log = make_log(board)
    ring = EventRing(64, machine.disable_irq, machine.enable_irq)
    i2c = machine.I2C(board.I2C_ID, scl=machine.Pin(board.I2C_SCL),
                      sda=machine.Pin(board.I2C_SDA), freq=board.I2C_FREQ,
                      timeout=board.I2C_TIMEOUT_US)
    display = Display(i2c, board.OLED_ADDR)
    buzzer = Buzzer(machine.PWM(machine.Pin(board.BUZZER_PIN)))
    leds = None
    if getattr(board, "PAD_LED_PINS", None):
        from .hw import leds as padleds
        leds = padleds.make(machine, board.PAD_LED_PINS)
    store = Store(root)
    capture, mode = boards.make_capture(board, ring, machine)  # the ring holds any early press
    tie = boards.tie_default_us(board, mode)
    app = App(store, log, tie_us=tie)
    app.board_name = board.NAME
    log.emit({"ev": "boot", "board": board.NAME, "capture": mode, "tie_us": tie,
              "platform": sys.platform, "chip": boards.chip(boards.uname_machine())})
    dev = Device(ring, app, log, store=store, display=display, buzzer=buzzer,
                 capture=capture, console=UsbConsole(), leds=leds,
                 idle=getattr(machine, "idle", None))
    dev.attach(_uplink(store, log, root))
    # The boot is over: this module, the board chooser and the board file
    # (unless the capture uses its mask_from) are not needed again and leave
    # the heap once the caller lets go of them (main.py does); so do the
    # tunables, which every module copies when it is imported (a game's
    # modules load them again, and forget them with the game: App.close).
    for name in (__name__, boards.__name__, board.__name__, "speedref.tunables"):
        forget(name)
    return dev
