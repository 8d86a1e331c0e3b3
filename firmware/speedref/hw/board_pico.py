# Raspberry Pi Pico / Pico W / Pico 2 (rp2 port): every pin number lives here.
#
# All eight buttons sit on CONSECUTIVE GPIOs GP2..GP9 in button order, so
#  - the PIO capture samples every button with one `in pins, 8`, and
#  - one shift turns the SIO input register into the button mask (the pin
#    interrupt path, when the PIO cannot start).
# GP23, GP24, GP25 and GP29 are avoided: the Pico W's radio uses them.
from ..tunables import TIE_PIO_US, TIE_RP2_IRQ_US

NAME = "pico"
PLATFORM = "rp2"

PAD_FIRST = 2  # GP2..GP5: pads P1..P4 (buttons 0..3)
PADS = 4
NAV_FIRST = 6  # GP6 UP, GP7 DOWN, GP8 OK, GP9 BACK (buttons 4..7)
BUTTON_PINS = (2, 3, 4, 5, 6, 7, 8, 9)  # index = button number

I2C_ID = 0  # I2C0 on GP16 (SDA) / GP17 (SCL), the OLED
I2C_SDA = 16
I2C_SCL = 17
I2C_FREQ = 400000
# Whole-transfer timeout: a full 1024-byte frame takes ~23 ms at 400 kHz,
# and a NACK or a hung bus raises OSError after at most this long.  Not a
# tunable: the bus's figure (from the frame's time on it), felt only when
# the OLED fails.
I2C_TIMEOUT_US = 50000
OLED_ADDR = 0x3C

BUZZER_PIN = 15  # piezo through PWM slice 7B
PAD_LED_PINS = (10, 11, 12, 13)  # optional, one per pad

# SIO GPIO_IN: bit n = level of GPIOn.  On an RP2350B (48 GPIOs) bits 30 and
# 31 can be set, and machine.mem32 returns a big int (an allocation, which
# fails in a hard IRQ) for any value >= 2**30.  Every button is below GPIO16,
# so the handler reads only the low half-word with machine.mem16: at most
# 0xFFFF, a small int on every port.  (GPIO_IN has no read side effects; a
# half-word read of it returns bits 0..15.)
GPIO_IN = 0xD0000004
GPIO_MEM = "mem16"

CAPTURE = "pio"  # every button sampled by a PIO state machine (hw/pio_capture.py)
CAPTURE_FALLBACK = "irq"  # pin interrupts if the PIO path cannot start
HARD_IRQ = True  # rp2 supports hard pin interrupts
# Firmware files no other board loads: speedref-flash copies them, and this
# file, to rp2 boards only.
OWN_FILES = ("speedref/hw/pio_capture.py",)
# Default tie window per capture path (docs/timing.md, speedref/tunables.py):
# PIO margins are exact to 1 us; the hard IRQ's are off by up to ~75 us.
# Not a tunable itself: the tunables' values, by capture path.
TIE_US = {"pio": TIE_PIO_US, "irq": TIE_RP2_IRQ_US}


def mask_from(reg):
    """GPIO_IN snapshot -> button mask (bit 1 << button, pressed = 1).
    Buttons pull to GND against pull-ups, so pressed reads 0: invert."""
    return (~reg >> PAD_FIRST) & 0xFF
