# Picking the board file, and the button capture it asks for.  With
# speedref/wiring.py (which builds the device from the board file), the only
# code that imports `machine`, `rp2` or `micropython`: the parts it makes
# (capture, display, buzzer) also run on CPython in the simulator with
# virtual ones.  Like everything in hw/, it imports nothing above hw/ (the
# app, the device loop, storage, the log).

# Chips we have a board file for, by the MCU name MicroPython puts after
# " with " in os.uname().machine (e.g. "Raspberry Pi Pico with RP2040",
# "Generic ESP32 module with ESP32").  sys.platform alone is not enough:
# ESP32-S2/S3/C3/C6 boards also say "esp32", but their GPIO input register
# is elsewhere; they are refused rather than read at the wrong address.
PICO_CHIPS = ("RP2040", "RP2350", "RP2350-RISCV")
ESP32_CHIPS = ("ESP32", "ESP32-PICO-D4", "ESP32-PICO-V3-02")  # the original ESP32


class UnknownBoard(Exception):
    """No board file fits this chip: main.py logs it and stays at the REPL."""


def uname_machine():
    """This board's os.uname().machine ("Raspberry Pi Pico with RP2040")."""
    import os
    return os.uname().machine


def chip(machine):
    """The MCU name in an os.uname().machine string."""
    return machine.rpartition(" with ")[2]


def select(machine=None):
    """The board module for this chip (os.uname().machine, or the string given)."""
    m = machine or uname_machine()
    c = chip(m)
    if c in PICO_CHIPS:
        from . import board_pico as board
    elif c in ESP32_CHIPS:
        from . import board_esp32 as board
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
            from .pio_capture import PioCapture
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
    from .capture import Capture
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

