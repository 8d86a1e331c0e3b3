"""The device's "Check wiring" screen (app/check.py), on the simulator's
virtual board: the firmware's capture, input decoder and app, with pin
edges at exact microseconds."""
import pytest

from conformance import draw
from sim.board import Board
from speedref.app import check
from speedref.app.core import UP, OK, BACK

MS = 1000


@pytest.fixture
def bd(tmp_path):
    b = Board(root=str(tmp_path / "flash"))
    b.step()
    yield b
    b.close()


def at(bd, ms):
    """The board's elapsed time from now, in ms."""
    return bd.clock.elapsed_us + int(ms * MS)


def tap(bd, button, hold_ms=60):
    t = at(bd, 5)
    bd.event(t, button, True)
    bd.event(t + hold_ms * MS, button, False)
    bd.run_until(t + (hold_ms + 60) * MS)


def open_check(bd):
    tap(bd, OK)  # the boot screen: the game list
    tap(bd, UP)  # round to its last row
    assert "Check wiring" in draw(bd.app.screen).texts
    tap(bd, OK)
    assert isinstance(bd.app.screen, check.WiringCheck)
    return bd.app.screen


def texts(bd):
    return draw(bd.app.screen).texts


def bouncy_press(bd, chatter_us, hold_ms=200):
    """A pad press whose contact chatters for `chatter_us` after it closes
    (edges every ~chatter/4), held, then let go cleanly."""
    t = at(bd, 10)
    edges = [0, chatter_us // 4, chatter_us // 2, (3 * chatter_us) // 4, chatter_us]
    for i, dt in enumerate(edges):
        bd.event(t + dt, 0, i % 2 == 0)
    bd.event(t + hold_ms * MS, 0, False)
    bd.run_until(t + (hold_ms + 100) * MS)


def test_the_last_entry_of_the_game_list_opens_it_and_back_leaves_with_nothing_stored(bd, tmp_path):
    from speedref import games
    flash = tmp_path / "flash"
    before = sorted(str(p.relative_to(flash)) for p in flash.rglob("*"))
    lines = len(bd.lines)
    lockout = bd.capture.lockout_us
    c = open_check(bd)
    assert texts(bd)[0] == "Check wiring"
    assert bd.device.inputs.watch == c.raw
    assert bd.capture.lockout_us == 0, "the pin capture passes every edge while it is open"
    tap(bd, BACK)
    assert type(bd.app.screen).__name__ == "Games" and bd.app.screen.cursor == len(games.GAMES)
    assert bd.device.inputs.watch is None and bd.capture.lockout_us == lockout
    assert sorted(str(p.relative_to(flash)) for p in flash.rglob("*")) == before, "nothing stored"
    import json
    assert [json.loads(l) for l in bd.lines[lines:]] == [
        {"ev": "wiring", "board": "simulator", "bounce_us": [None] * 4, "most_us": [None] * 4,
         "never_closed": [0, 1, 2, 3], "closed_from_start": []}], "only what it measured, on the log"


def test_each_pads_bounce_is_measured_from_the_captures_timestamps(bd):
    open_check(bd)
    assert "P1 never closed" in texts(bd) and "P2 never closed" in texts(bd)
    bouncy_press(bd, 2000)
    assert "P1 2.0/2.0 ms" in texts(bd)
    bouncy_press(bd, 400)
    assert "P1 0.4/2.0 ms" in texts(bd), "the last press's bounce, and the largest seen"
    bouncy_press(bd, 0)  # a clean contact
    assert "P1 0.0/2.0 ms" in texts(bd)
    assert "P2 never closed" in texts(bd)


def test_a_pad_closed_before_the_screen_opened_is_named_as_a_possible_short(bd):
    bd.event(at(bd, 5), 2, True)  # P3 down from the start (a short to GND)
    bd.run_until(at(bd, 100))
    open_check(bd)
    assert "P3 closed: short?" in texts(bd)
    bd.event(at(bd, 5), 2, False)
    bd.run_until(at(bd, 100))
    assert "P3 closed: short?" not in texts(bd) and "P3 never closed" in texts(bd)


def test_a_button_shows_pressed_while_it_is_down(bd):
    c = open_check(bd)
    t = at(bd, 5)
    bd.event(t, 3, True)
    bd.event(t + 5 * MS, UP, True)
    bd.run_until(t + 50 * MS)
    assert c.down == (1 << 3) | (1 << UP)
    # the name is drawn inverted: its box lit, the letters dark
    fb = bd.app.fb
    x = 3 * 32 + 4
    assert fb.pixel(x - 2, 13) == 1 and fb.pixel(x - 1, 12) == 1
    bd.event(t + 60 * MS, 3, False)
    bd.event(t + 60 * MS, UP, False)
    bd.run_until(t + 120 * MS)
    assert c.down == 0 and bd.app.fb.pixel(x - 2, 13) == 0


def test_ok_steps_to_the_board_page_the_oled_pattern_and_the_sound(bd):
    c = open_check(bd)
    tap(bd, OK)
    board = texts(bd)
    assert board[1:] == ["Board: simulator", board[2], board[3], board[4], "records 0"]
    assert board[2].startswith("Python ") and board[3].startswith("heap free")
    assert board[4].startswith("flash free")
    tap(bd, OK)  # the OLED: border and corners; a pad held: all white
    fb = bd.app.fb
    assert fb.pixel(0, 0) == fb.pixel(127, 63) == fb.pixel(64, 0) == fb.pixel(0, 32) == 1
    assert fb.pixel(64, 10) == 0
    t = at(bd, 5)
    bd.event(t, 1, True)
    bd.run_until(t + 30 * MS)
    assert sum(bin(b).count("1") for b in bd.app.buf) == 128 * 64
    bd.event(t + 40 * MS, 1, False)
    bd.run_until(t + 100 * MS)
    tap(bd, OK)  # the sound: a pad press plays the scale, each pad LED in turn
    tones = len(bd.pwm.tones)
    lit = []
    t = at(bd, 5)
    bd.event(t, 0, True)
    bd.event(t + 50 * MS, 0, False)
    for k in range(8):
        bd.run_until(t + (k * 200 + 100) * MS)
        lit.append(bd.app.lights)
    assert lit == [1, 2, 4, 8, 1, 2, 4, 8]
    assert [f for _, f, _ in bd.pwm.tones[tones:]][:8] == [n[0] for n in check._SCALE]
    bd.run_until(t + 2000 * MS)
    assert bd.app.lights == 0
    tap(bd, OK)
    assert c.page == 0


def test_ok_held_leaves_it_too(bd):
    open_check(bd)
    tap(bd, OK, hold_ms=900)
    assert type(bd.app.screen).__name__ == "Games"


def test_bounce_text_is_tenths_of_a_millisecond():
    assert [check.bounce_text(us) for us in (0, 49, 50, 2000, 12340, 99999)] == \
        ["0.0", "0.0", "0.1", "2.0", "12.3", "100.0"]


MPY_WATCH = r'''
import json, micropython
from speedref.inputs import Inputs
from speedref.app.check import WiringCheck
class App:
    inputs = None
    capture = None
    store = None
    board_name = None
    def redraw(self): pass
    def sound(self, cue): pass
    def wake(self, t): pass
    def press(self, b, t): pass
    def release(self, b, t): pass
app = App()
inputs = Inputs(app)
app.inputs = inputs
c = WiringCheck(app, None)
from speedref.ticks import ticks_add
t = ticks_add(0, -3000)  # across the ticks' wrap where they wrap (at 2**30 on a board)
EDGES = ((0, 1), (300, 0), (700, 1), (1500, 0), (2100, 1), (150000, 0))
n = 0
micropython.heap_lock()
try:
    while n < 100:  # (a range() is an allocation)
        for dt, m in EDGES:
            inputs.feed(ticks_add(t, dt), m)
        t = ticks_add(t, 300000)
        n += 1
finally:
    micropython.heap_unlock()
print(json.dumps({"last": c.last, "most": c.most}))
'''


def test_the_bounce_watch_allocates_nothing_under_micropython():
    """Every ring snapshot goes through the watch while the screen is open:
    small ints into preallocated lists, under heap_lock, across the ticks'
    wrap."""
    import json
    import mpyrun
    r = mpyrun.run(code=MPY_WATCH, heap=mpyrun.DEVICE_HEAP)
    got = json.loads(r.stdout)
    assert got["last"][0] == 2100 and got["most"][0] == 2100


@pytest.mark.parametrize("free, shown", [(None, "flash free ?"), (0, "flash free 0K"),
                                         (1408 * 1024, "flash free 1408K"),
                                         (9999 * 1024, "flash free 9999K"),
                                         (10000 * 1024, "flash free 9M"),
                                         (232688252 * 1024, "flash free 221G")])
def test_the_board_page_fits_the_screen_whatever_the_flash_holds(free, shown):
    """A Pico's littlefs holds ~1.4 MB (1408K), a simulator's store lies on a
    desktop disk of hundreds of GB: each line of the board page stays within
    the 16 characters of a 128-pixel row."""
    class Store:
        def free(self):
            return free

        def iter_records(self):
            return iter(())

    class App:
        store = Store()
        board_name = "pico"

    lines = check.board_lines(App())
    assert lines[3] == shown
    assert all(len(x) <= 16 for x in lines), lines
