"""The screens' layout vocabulary (app/ui.py) and the flows' one-screen-per-phase
tables.  The pixels themselves are checked by the screen tests
(tests/sim/test_sim_screens.py, tests/sim/test_sim_screen_text.py)."""
import framebuf
import pytest

from speedref.app import ui
from speedref.app import speed_flow, spit_flow, speedrun_flow, partners_flow


def _frame(draw):
    buf = bytearray(1024)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    draw(fb)
    return bytes(buf)


@pytest.mark.parametrize("mod, cls", [
    (speed_flow, speed_flow.SpeedFlow), (spit_flow, spit_flow.SpitFlow),
    (speedrun_flow, speedrun_flow.SpeedRunFlow), (partners_flow, partners_flow.PartnersFlow)])
def test_every_phase_has_a_screen(mod, cls):
    # FINAL is each flow's last phase: a phase added without a screen fails here
    assert len(cls._SCREENS) == mod.FINAL + 1
    assert all(callable(f) for f in cls._SCREENS)


def test_rows_are_the_lines_under_the_title():
    for n in range(6):
        assert _frame(lambda fb: ui.row(fb, n, "Row")) == _frame(lambda fb: fb.text("Row", 0, 11 + 9 * n, 1))
    assert _frame(lambda fb: ui.row(fb, 3, "x", 64)) == _frame(lambda fb: fb.text("x", 64, 38, 1))


def test_the_hint_is_the_bottom_line():
    assert _frame(lambda fb: ui.hint(fb, "OK: next")) == _frame(lambda fb: ui.row(fb, 5, "OK: next"))
    assert (_frame(lambda fb: ui.hint(fb, "UP/DOWN  OK", centred=True))
            == _frame(lambda fb: fb.text("UP/DOWN  OK", 20, 56, 1)))


def test_sides_puts_the_second_player_against_the_right_edge():
    assert (_frame(lambda fb: ui.sides(fb, "P1 STUCK", "P2 -", 40))
            == _frame(lambda fb: (fb.text("P1 STUCK", 0, 40, 1), fb.text("P2 -", 96, 40, 1))))
