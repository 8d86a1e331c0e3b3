"""The tie window's default follows the board's capture path (docs/timing.md):
0.01 ms for PIO, 0.1 ms for the rp2 interrupt path, 5 ms for ESP32.  The
setting stays the players' choice, and a remembered number is kept."""
from app_rig import Rig
from speedref.app.core import App
from speedref.app import menu
from speedref import games
from speedref.hw import boards, board_pico, board_esp32


def test_default_tie_window_is_the_boards_and_the_setting_still_wins(tmp_path):
    rig = Rig(str(tmp_path))
    rig.app = App(rig.store, rig.log, tie_us=100)  # a Pico on the interrupt path
    assert rig.app.settings["spit"]["tie_ms"] == "auto"
    rig.app.start("spit", rig.t)
    assert rig.app.flow.race.window_us == 100
    rig.app.flow = None
    rig.app.start("speed", rig.t)
    assert rig.app.flow.race.window_us == 100
    rig.app.start("spit", rig.t, {"tie_ms": 20})  # chosen in the menu
    assert rig.app.flow.race.window_us == 20000


def test_a_remembered_choice_survives_and_auto_is_the_default():
    s = menu.merge_settings({"spit": {"tie_ms": 20}, "speed": {"tie_ms": True}})
    assert s["spit"]["tie_ms"] == 20
    assert s["speed"]["tie_ms"] == "auto"  # not an allowed value: the default
    values = dict((k, v) for k, _, v in games.get("spit").options)["tie_ms"]
    assert values[0] == "auto" and 0 in values
    # the old default 5 ms is now "auto" (the board's), not a stored 5
    assert menu.merge_settings({"spit": {"tie_ms": 5}})["spit"]["tie_ms"] == "auto"


def test_each_capture_path_has_its_default():
    assert boards.tie_default_us(board_pico, "pio") == 10
    assert boards.tie_default_us(board_pico, "irq") == 100
    assert boards.tie_default_us(board_esp32, "irq") == 5000


def test_without_a_board_the_default_is_5_ms_as_the_simulator_scripts_use(tmp_path):
    rig = Rig(str(tmp_path))
    rig.app.start("spit", rig.t)
    assert rig.app.flow.race.window_us == 5000
