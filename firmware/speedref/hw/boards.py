# Picking the board file and building the real device from it.  This is the
# only code that imports `machine`, `rp2` or `micropython`: everything it
# builds (capture, display, buzzer, device) also runs on CPython in the
# simulator with virtual parts.
import sys

# Chips we have a board file for, by the MCU name MicroPython puts after
# " with " in os.uname().machine (e.g. "Raspberry Pi Pico with RP2040",
# "Generic ESP32 module with ESP32").  sys.platform alone is not enough:
# ESP32-S2/S3/C3/C6 boards also say "esp32", but their GPIO input register
# is elsewhere; they are refused rather than read at the wrong address.
PICO_CHIPS = ("RP2040", "RP2350", "RP2350-RISCV")
ESP32_CHIPS = ("ESP32", "ESP32-PICO-D4", "ESP32-PICO-V3-02")  # the original ESP32


class UnknownBoard(Exception):
    """No board file fits this chip: main.py logs it and stays at the REPL."""


def _uname_machine():
    import os
    return os.uname().machine


def chip(machine):
    """The MCU name in an os.uname().machine string."""
    return machine.rpartition(" with ")[2]


def select(machine=None):
    """The board module for this chip (os.uname().machine, or the string given)."""
    m = machine or _uname_machine()
    c = chip(m)
    if c in PICO_CHIPS:
        from speedref.hw import board_pico as board
    elif c in ESP32_CHIPS:
        from speedref.hw import board_esp32 as board
    else:
        raise UnknownBoard("no board file for %r (chip %r): speedref runs on RP2040, "
                           "RP2350 and the original ESP32; add one in speedref/hw" % (m, c))
    return board


def tie_default_us(board, mode):
    """The tie window a game gets by default on this board and capture path."""
    return board.TIE_US[mode]


def make_capture(board, ring, machine, mode=None):
    """The button capture the board asks for: PIO on the Pico (every button,
    pads and nav, in one state machine; pin interrupts if it cannot start),
    pin interrupts on the ESP32.  Returns (capture, mode)."""
    mode = mode or board.CAPTURE
    if mode == "pio":
        try:
            from speedref.hw.pio_capture import PioCapture
            pins = board.BUTTON_PINS
            if tuple(pins) != tuple(range(pins[0], pins[0] + len(pins))):
                raise ValueError("the PIO capture needs the buttons on consecutive pins")
            pio = PioCapture(ring, pins[0], len(pins))
            pio.start()  # the state machine samples every button from here on
            return pio, "pio"
        except (ImportError, OSError, ValueError, RuntimeError, TypeError):
            mode = board.CAPTURE_FALLBACK
    if mode != "irq":
        raise ValueError("unknown capture mode %r" % mode)
    return _irq_capture(board, ring, machine), "irq"


def _irq_capture(board, ring, machine):
    import time
    from speedref.hw.capture import Capture
    Pin = machine.Pin
    pins = [Pin(n, Pin.IN, Pin.PULL_UP) for n in board.BUTTON_PINS]
    schedule = None
    if not board.HARD_IRQ:
        # Soft pin callbacks: poll() schedules its snapshot (hw/capture.py).
        import micropython
        schedule = micropython.schedule
    mem = getattr(machine, board.GPIO_MEM)  # the width keeps the value a small int
    cap = Capture(ring, mem, board.GPIO_IN, board.mask_from, time.ticks_us, pins,
                  trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=board.HARD_IRQ,
                  disable_irq=machine.disable_irq, enable_irq=machine.enable_irq,
                  schedule=schedule)
    cap.start()
    return cap


def build(board=None, root="/data"):
    """Everything the board needs, wired; returns the Device."""
    import machine
    from speedref.app.core import App
    from speedref.device import Device, UsbConsole
    from speedref.hw.buzzer import Buzzer
    from speedref.hw.display import Display
    from speedref.hw.ring import EventRing
    from speedref.log import Log
    from speedref.storage import Store
    board = board or select()
    log = Log()
    ring = EventRing(64, machine.disable_irq, machine.enable_irq)
    i2c = machine.I2C(board.I2C_ID, scl=machine.Pin(board.I2C_SCL),
                      sda=machine.Pin(board.I2C_SDA), freq=board.I2C_FREQ,
                      timeout=board.I2C_TIMEOUT_US)
    display = Display(i2c, board.OLED_ADDR)
    buzzer = Buzzer(machine.PWM(machine.Pin(board.BUZZER_PIN)))
    leds = None
    if getattr(board, "PAD_LED_PINS", None):
        from speedref.hw import leds as padleds
        leds = padleds.make(machine, board.PAD_LED_PINS)
    store = Store(root)
    capture, mode = make_capture(board, ring, machine)  # the ring holds any early press
    tie = tie_default_us(board, mode)
    app = App(store, log, tie_us=tie)
    log.emit({"ev": "boot", "board": board.NAME, "capture": mode, "tie_us": tie,
              "platform": sys.platform, "chip": chip(_uname_machine())})
    return Device(ring, app, log, store=store, display=display, buzzer=buzzer,
                  capture=capture, console=UsbConsole(), leds=leds)
