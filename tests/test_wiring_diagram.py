"""The wiring diagrams in docs/ are drawn from the board files (host_tools/
wiring_diagram.py): the committed pictures are what the board files draw
now, and every pin the firmware wires is in them."""
import re

import pytest

from tools import wiring_diagram as wd


def texts(svg):
    return [re.sub(r"<[^>]+>", "", t).strip() for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)]


@pytest.mark.parametrize("name", wd.BOARDS)
def test_the_committed_picture_is_what_the_board_file_draws(name):
    drawn = wd.draw(name)
    assert wd.path_of(name).read_text() == drawn, (
        "docs/wiring-%s.svg is out of date: run .venv/bin/python -m tools.wiring_diagram" % name)


@pytest.mark.parametrize("name", wd.BOARDS)
def test_every_pin_the_firmware_wires_is_labelled_with_its_part(name):
    board = wd.load_board(name)
    shown = texts(wd.path_of(name).read_text())
    for gpio, what, _ in wd.connections(board):
        assert wd.pin_name(board, gpio) in shown, (name, gpio)
    for label in wd.BUTTONS + ("LED P1", "LED P4", "buzzer"):
        assert label in shown, (name, label)
    gpios = [g for g, _, _ in wd.connections(board)]
    assert set(board.BUTTON_PINS) | set(board.PAD_LED_PINS) | {board.BUZZER_PIN, board.I2C_SDA,
                                                                  board.I2C_SCL} == set(gpios)
    assert len(gpios) == len(set(gpios)), "one part a pin"


def test_a_pin_moved_in_the_board_file_moves_in_the_picture(monkeypatch):
    board = wd.load_board("pico")
    before = wd.draw("pico")
    monkeypatch.setattr(board, "BUTTON_PINS", (2, 3, 4, 5, 6, 7, 8, 14))  # BACK to GP14
    after = wd.draw("pico")
    assert "GP14" in texts(after) and "GP9" not in texts(after) and "GP9" in texts(before)


def test_check_says_when_a_picture_is_stale(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(wd, "path_of", lambda name: tmp_path / ("wiring-%s.svg" % name))
    assert wd.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert wd.main([]) == 0
    assert wd.main(["--check"]) == 0
