"""The real wiring (hw/boards.build): every board boots on the fake machine under
MicroPython and its input path reaches the app (issue 3: one board file each)."""
import json

import mpyrun


def boot(which, tmp_path):
    r = mpyrun.run(script=mpyrun.SUPPORT / "boards_boot.py", args=(which, str(tmp_path)))
    lines = r.stdout.splitlines()
    boot_line = next(json.loads(l) for l in lines if l.startswith("{") and '"boot"' in l)
    got = next(l for l in lines if l.startswith("got"))
    boot.i2c_timeout = next(l for l in lines if l.startswith("i2c_timeout")).split()[1]
    return boot_line, got


def test_esp32_boots_with_soft_pin_interrupts_and_sees_a_two_pad_tie(tmp_path):
    b, got = boot("esp32", tmp_path)
    assert b["board"] == "esp32" and b["capture"] == "irq"
    # both pads from one register snapshot, then OK pressed and released
    assert got == "got [('press', 0), ('press', 1), ('press', 6), ('release', 6)]"


def test_pico_falls_back_to_pin_interrupts_when_asked(tmp_path):
    b, got = boot("pico-irq", tmp_path)
    assert b["board"] == "pico" and b["capture"] == "irq"
    assert got == "got [('press', 0), ('press', 1), ('press', 6), ('release', 6)]"


def test_pico_boots_with_pio_pads_and_interrupt_nav_buttons(tmp_path):
    b, got = boot("pico", tmp_path)
    assert b["board"] == "pico" and b["capture"] == "pio"
    assert got == "got [('press', 6), ('release', 6)]"


def test_the_oled_bus_gets_an_explicit_timeout(tmp_path):
    """A hung I2C bus costs at most the board's I2C_TIMEOUT_US per write, not
    whatever the port defaults to."""
    for which in ("esp32", "pico"):
        boot(which, tmp_path / which)
        assert boot.i2c_timeout == "50000"
