"""The known screens compared with tests/golden/screens/*.png.

    .venv/bin/python -m tools.goldens          # rewrite the reference PNGs

Run it only after checking, by looking at the new PNGs, that a screen changed
on purpose (tests/sim/test_sim_screens.py fails until the references match).
"""
from pathlib import Path

from sim import compat

compat.install()

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden" / "screens"
PRINTABLE = "".join(chr(c) for c in range(32, 127))


def font_sheet():
    """Every printable character in MicroPython's font, plus lines and boxes."""
    import framebuf
    buf = bytearray(1024)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    for i in range(6):
        fb.text(PRINTABLE[i * 16:(i + 1) * 16], 0, i * 9)
    fb.rect(0, 55, 128, 9, 1)
    fb.line(0, 63, 127, 55, 1)
    return bytes(buf)


def app_screen(game=None):
    """What the OLED of a fresh virtual board shows (through the device loop,
    hw/display.py and the emulated SSD1306): the boot screen, or the first
    screen of `game` started with its default options."""
    from sim.board import Board
    b = Board()
    try:
        b.step()
        if game:
            b.start_game(game)
        return b.screen()
    finally:
        b.close()


SCREENS = {
    "font_sheet": font_sheet,
    "app_boot": app_screen,
    "app_speed_layout": lambda: app_screen("speed"),
}


def main():
    from sim import oled
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, make in SCREENS.items():
        oled.save_png(make(), GOLDEN / (name + ".png"))
        print("wrote", GOLDEN / (name + ".png"))


if __name__ == "__main__":
    main()
