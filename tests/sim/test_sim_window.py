"""speedref-sim --window, headless (SDL_VIDEODRIVER=dummy): real key-down and
key-up events and mouse clicks on the drawn buttons reach the virtual board;
the OLED is drawn scaled up, pixel for pixel."""
import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
pygame = pytest.importorskip("pygame")

from sim import oled  # noqa: E402
from sim.board import Board  # noqa: E402
from sim.window import WindowSim, ON, OFF  # noqa: E402


@pytest.fixture
def win(tmp_path):
    b = Board(root=str(tmp_path / "flash"))
    w = WindowSim(b, scale=4)
    b.step()
    w.draw()
    yield w
    pygame.quit()
    b.close()


def key(w, name, down):
    ev = pygame.event.Event(pygame.KEYDOWN if down else pygame.KEYUP, key=pygame.key.key_code(name))
    return w.handle(ev)


def test_oled_is_drawn_scaled_pixel_for_pixel(win):
    frame = win.board.screen()
    assert any(frame)
    surf = win.screen
    r = win.oled_rect
    for (x, y) in [(0, 0), (5, 3), (64, 32), (127, 63), (40, 60)]:
        want = ON if oled.lit(frame, x, y) else OFF
        for dx, dy in [(0, 0), (3, 3)]:  # both corners of the 4x4 block
            assert tuple(surf.get_at((r.x + x * 4 + dx, r.y + y * 4 + dy)))[:3] == want


def test_keyboard_has_real_key_up_and_a_held_key_is_one_press(win):
    b = win.board
    key(win, "1", True)
    for _ in range(5):  # SDL may repeat KEYDOWN while held: still one press
        key(win, "1", True)
    assert b.gpio.irq_calls == 1 and 0 in win.held
    b.clock.advance(50000)
    key(win, "1", False)
    assert b.gpio.irq_calls == 2 and not win.held
    assert sum("P1 down" in line for line in win.log) == 1


def test_clicking_a_drawn_button_presses_it_until_the_mouse_is_released(win):
    b = win.board
    ok = win.buttons[6]
    before = win.board.screen()
    win.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=ok.center))
    assert 6 in win.held
    b.clock.advance(60000)
    b.step()
    win.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, button=1, pos=ok.center))
    assert 6 not in win.held
    b.clock.advance(60000)
    b.step()
    assert win.board.screen() != before  # OK (acting on release) left the boot screen


def test_quit_key_and_run_loop_end(win):
    assert key(win, "q", True) is False
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    win.run(max_frames=50)  # returns on QUIT
