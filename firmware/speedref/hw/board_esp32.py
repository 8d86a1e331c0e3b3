# ESP32 DevKit (ESP32-WROOM-32): every pin number lives here.
#
# Pads on CONSECUTIVE GPIO16..GPIO19 (same layout idea as the Pico; on a
# WROVER module GPIO16/17 belong to PSRAM: move the pads, e.g. to 25..27+).
# Avoided: strapping pins 0, 2, 5, 12, 15 (a pull-up on GPIO12 at reset
# selects 1.8 V flash), 6..11 (SPI flash) and 34..39 (input only, no
# internal pull-ups).
from ..tunables import TIE_ESP32_IRQ_US

NAME = "esp32"
PLATFORM = "esp32"

PAD_FIRST = 16  # GPIO16..19: pads P1..P4 (buttons 0..3)
PADS = 4
UP_PIN = 25
DOWN_PIN = 26
OK_PIN = 27
BACK_PIN = 13
BUTTON_PINS = (16, 17, 18, 19, UP_PIN, DOWN_PIN, OK_PIN, BACK_PIN)

I2C_ID = 0
I2C_SDA = 21
I2C_SCL = 22
I2C_FREQ = 400000
# Whole-transfer timeout: a full 1024-byte frame takes ~23 ms at 400 kHz,
# and a NACK or a hung bus raises OSError after at most this long.  Not a
# tunable: the bus's figure (from the frame's time on it), felt only when
# the OLED fails.
I2C_TIMEOUT_US = 50000
OLED_ADDR = 0x3C

BUZZER_PIN = 23
PAD_LED_PINS = (32, 33, 4, 14)  # optional

# GPIO_IN_REG: bit n = level of GPIOn for GPIO0..31 (32..39 are in
# GPIO_IN1_REG; no button uses them).
GPIO_IN = 0x3FF4403C
# Read whole: the handler is a scheduled (soft) callback here, where an
# allocation is allowed, and GPIO28..31 do not exist on the ESP32, so the
# value stays below 2**28 anyway.
GPIO_MEM = "mem32"

# The console is UART0 (the DevKit's USB-serial bridge), 115200 baud: a byte
# takes 87 us and MicroPython's write waits, in the C code where no pin
# callback runs, whenever its 128-byte TX FIFO is full.  So log lines are
# queued (speedref.log.Spool) and each loop pass hands the UART at most
# LOG_PASS_BYTES, never more than the FIFO has room for (docs/timing.md).
LOG_QUEUE = 4096  # bytes of whole lines waiting: a game_end line (~2 KB) and what follows it
LOG_PASS_BYTES = 64
LOG_BAUD = 115200
LOG_FIFO = 128
# Firmware files no other board loads: speedref-flash copies them, and this
# file, to ESP32 boards only.
OWN_FILES = ("speedref/spool.py",)

CAPTURE = "irq"  # no PIO on the ESP32
CAPTURE_FALLBACK = None
HARD_IRQ = False  # ESP32 pin interrupts are always soft (scheduled)
# Default tie window (docs/timing.md, speedref/tunables.py): soft IRQ stamps
# are off by up to ~5 ms.  Not a tunable itself: the tunable's value, by
# capture path.
TIE_US = {"irq": TIE_ESP32_IRQ_US}


def mask_from(reg):
    """GPIO_IN_REG snapshot -> button mask (bit 1 << button, pressed = 1).
    Buttons pull to GND against pull-ups, so pressed reads 0: invert."""
    inv = ~reg
    return (((inv >> 16) & 0xF)  # pads GPIO16..19 -> bits 0..3
            | (((inv >> 25) & 0x7) << 4)  # UP, DOWN, OK GPIO25..27 -> bits 4..6
            | (((inv >> 13) & 1) << 7))  # BACK GPIO13 -> bit 7
