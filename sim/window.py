"""speedref-sim --window: the simulator in a desktop window (pygame).

The OLED is drawn scaled up, pixel for pixel; below it the pads (each with
its LED above it, lit as the board lights it) and the navigation buttons are
clickable (held while the mouse button is held) and on
the keyboard, where pygame gives real key-down and key-up events, so a held
key is one long press, as on the board.  Test headless with
SDL_VIDEODRIVER=dummy.
"""
import os

from sim import oled
from sim.tui import describe, pad_names

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

KEYS = {  # pygame key name -> button
    "1": 0, "z": 0, "2": 1, "m": 1, "3": 2, "4": 3,
    "up": 4, "k": 4, "down": 5, "j": 5,
    "return": 6, "space": 6, "backspace": 7, "escape": 7, "b": 7,
}
LABELS = ("P1 [1/z]", "P2 [2/m]", "P3 [3]", "P4 [4]", "UP", "DOWN", "OK [Enter]", "BACK [Esc]")
ON = (120, 200, 255)   # an SSD1306's blue-white pixels
OFF = (8, 8, 16)
LED_ON = (90, 255, 120)   # a pad's LED lit
LED_OFF = (45, 50, 45)


class WindowSim:
    def __init__(self, board, scale=6):
        import pygame
        self.pg = pygame
        self.board = board
        self.scale = scale
        pygame.display.init()  # not pygame.init(): no audio device needed
        pygame.font.init()
        w = oled.WIDTH * scale + 40
        self.oled_rect = pygame.Rect(20, 20, oled.WIDTH * scale, oled.HEIGHT * scale)
        bw = (w - 40 - 7 * 8) // 8
        y = self.oled_rect.bottom + 28  # room above the pads for their LEDs
        self.buttons = [pygame.Rect(20 + i * (bw + 8), y, bw, 48) for i in range(8)]
        self.log_top = y + 64
        self.screen = pygame.display.set_mode((w, self.log_top + 14 * 18 + 10))
        pygame.display.set_caption("speedref simulator")
        self.font = pygame.font.Font(None, 20)
        self.surface = pygame.Surface((oled.WIDTH, oled.HEIGHT))
        self._shown = -1
        self.held = set()  # buttons held by keys or the mouse
        self.mouse_button = None
        self.log = []
        board.on_line = lambda obj: self._add(describe(obj))
        board.pwm.on_tone = lambda f: self._add("buzzer %d Hz" % f)

    def _add(self, text):
        self.log.append("%8.3f s  %s" % (self.board.clock.elapsed_us / 1e6, text))
        del self.log[:-100]

    def set(self, button, down):
        if down == (button in self.held):
            return  # already in that state (two keys for one button)
        (self.held.add if down else self.held.discard)(button)
        self.board.set_button(button, down)
        # named by whoever sits at the pad now (partners: PT-8 seat swaps)
        self._add("%s %s" % (pad_names(self.board.app)[button], "down" if down else "up"))

    def handle(self, ev):
        """One pygame event; returns False to quit."""
        pg = self.pg
        if ev.type == pg.QUIT:
            return False
        if ev.type in (pg.KEYDOWN, pg.KEYUP):
            name = pg.key.name(ev.key)
            if ev.type == pg.KEYDOWN and name == "q":
                return False
            b = KEYS.get(name)
            if b is not None:
                self.set(b, ev.type == pg.KEYDOWN)
        elif ev.type == pg.MOUSEBUTTONDOWN and ev.button == 1:
            for i, r in enumerate(self.buttons):
                if r.collidepoint(ev.pos):
                    self.mouse_button = i
                    self.set(i, True)
        elif ev.type == pg.MOUSEBUTTONUP and ev.button == 1 and self.mouse_button is not None:
            self.set(self.mouse_button, False)
            self.mouse_button = None
        return True

    def draw(self):
        pg = self.pg
        if self._shown != self.board.oled.updates:
            # Repaint the OLED surface only when the device showed a new frame.
            self._shown = self.board.oled.updates
            frame = self.board.screen()
            px = pg.PixelArray(self.surface)
            on = self.surface.map_rgb(ON)
            off = self.surface.map_rgb(OFF)
            for y in range(oled.HEIGHT):
                for x in range(oled.WIDTH):
                    px[x, y] = on if oled.lit(frame, x, y) else off
            del px
        self.screen.fill((30, 30, 34))
        self.screen.blit(pg.transform.scale(self.surface, self.oled_rect.size), self.oled_rect)
        lights = self.board.lights
        for i, r in enumerate(self.buttons):
            pg.draw.rect(self.screen, (200, 80, 60) if i in self.held else (70, 70, 80), r,
                         border_radius=8)
            if i < len(lights):  # the pad's LED: a dot above it, lit or dark
                pg.draw.circle(self.screen, LED_ON if lights[i] else LED_OFF,
                               (r.centerx, r.top - 9), 6)
            t = self.font.render(LABELS[i], True, (240, 240, 240))
            self.screen.blit(t, t.get_rect(center=r.center))
        y = self.log_top
        tones = self.board.pwm.tones
        sounding = tones and tones[-1][2] is None
        cue = "buzzer: " + ("BEEP %d Hz" % tones[-1][1] if sounding else "quiet") + "   last: " + (
            ", ".join("%d Hz %d ms" % (f, n // 1000) for _, f, n in tones[-4:] if n is not None) or "-")
        self.screen.blit(self.font.render(cue, True, (250, 220, 120)), (20, y))
        for line in self.log[-13:]:
            y += 18
            self.screen.blit(self.font.render(line, True, (210, 210, 210)), (20, y))
        pg.display.flip()

    def run(self, max_frames=None):
        pg = self.pg
        clock = pg.time.Clock()
        n = 0
        try:
            while max_frames is None or n < max_frames:
                for ev in pg.event.get():
                    if not self.handle(ev):
                        return
                self.board.step()
                self.draw()
                clock.tick(120)
                n += 1
        finally:
            pg.quit()


def main(board, scale=6):
    WindowSim(board, scale).run()
