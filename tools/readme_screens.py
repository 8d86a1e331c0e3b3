"""The README's OLED screenshots, taken from the simulator.

    .venv/bin/python -m tools.readme_screens [DIR]     # default docs/screens

Each screen is reached by playing the device's own app on a virtual board
(sim.board.Board: capture, ring buffer, input decoder, device loop, the
emulated SSD1306), mostly by replaying the committed game scripts in
tests/sim_scripts/ until the flow is in the phase wanted.  The PNGs are the
OLED's 128x64 pixels scaled 3x, each pixel a 2x2 dot with a 1-pixel dark gap
(the grid look of a real OLED panel up close): 384x192.
"""
import sys
from pathlib import Path

from sim import compat

compat.install()

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "tests" / "sim_scripts"
OUT = ROOT / "docs" / "screens"

SCALE = 3
LIT = (150, 220, 255)    # a blue-white SSD1306 pixel
DARK = (16, 20, 28)      # an unlit pixel, just visible
GAP = (0, 0, 0)          # between pixels


def to_png(frame, path):
    """Write the 1024 MONO_VLSB bytes as a SCALE-times PNG with a pixel grid."""
    from PIL import Image
    from sim import oled
    w, h = oled.WIDTH * SCALE, oled.HEIGHT * SCALE
    img = Image.new("RGB", (w, h), GAP)
    px = img.load()
    for y in range(oled.HEIGHT):
        for x in range(oled.WIDTH):
            c = LIT if oled.lit(frame, x, y) else DARK
            for dy in range(SCALE - 1):
                for dx in range(SCALE - 1):
                    px[x * SCALE + dx, y * SCALE + dy] = c
    img.save(str(path), format="PNG")


def from_png(path):
    """Read a PNG written by to_png back into the 1024 frame bytes (the
    centre of each dot decides)."""
    from PIL import Image
    from sim import oled
    img = Image.open(str(path)).convert("RGB")
    if img.size != (oled.WIDTH * SCALE, oled.HEIGHT * SCALE):
        raise ValueError("expected %dx%d, got %r" % (oled.WIDTH * SCALE, oled.HEIGHT * SCALE, img.size))
    px = img.load()
    frame = bytearray(oled.WIDTH * oled.HEIGHT // 8)
    for y in range(oled.HEIGHT):
        for x in range(oled.WIDTH):
            if px[x * SCALE, y * SCALE] == LIT:
                frame[(y >> 3) * oled.WIDTH + x] |= 1 << (y & 7)
    return bytes(frame)


class Player:
    """A virtual board started in `game` (as `speedref-sim --game` does, or
    with other options), fed the events of a script one by one."""

    def __init__(self, game=None, opts=None, script=None):
        from sim.board import Board
        from sim import script as script_mod
        self.board = Board()
        self.board.step()
        if game and opts is None:
            self.board.start_game(game)
        elif game:
            self.board.app.start(game, self.board.now(), dict(opts))
            self.board.step()
        text = (SCRIPTS / script).read_text() if script else ""
        self.events = script_mod.parse(text)
        self.i = 0

    def flow(self):
        app = self.board.app
        return app.flow if app.screen is app.flow else None

    def phase(self):
        f = self.flow()
        return None if f is None else f.phase

    def until(self, done):
        """Play events until done(self) holds after one; the screen then."""
        while self.i < len(self.events):
            t, b, down, _ = self.events[self.i]
            self.board.event(t, b, down)
            self.i += 1
            if done(self):
                return self.board.screen()
        raise RuntimeError("the script ended before the screen was reached")

    def at(self, t_us):
        """Run on without input until t_us (countdowns) and return the screen."""
        self.board.run_until(t_us)
        return self.board.screen()

    def tap(self, b, hold_us=60000, gap_us=60000):
        t = self.board.clock.elapsed_us
        self.board.event(t, b, True)
        self.board.event(t + hold_us, b, False)
        self.board.run_until(t + hold_us + gap_us)


def menu():
    """The game list, after OK on the boot screen."""
    p = Player()
    p.tap(6)
    return p.board.screen()


def speed_countdown():
    """Speed: both players ready, the big 3-2-1 (SP-6), 0.3 s after the second ready."""
    from speedref.app import speed_flow as sf
    p = Player("speed", script="speed.txt")
    p.until(lambda p: p.phase() == sf.COUNT_DOWN and p.flow().false_starts[1] == 1
            and p.flow().countdown.shown() > 0)  # the countdown after the false start (SP-22)
    return p.at(p.board.clock.elapsed_us + 300000)


def slap_race():
    """Speed with slap to win (SP-17): both slap out, P1 first by 7.3 ms.
    Returns the Player on the claim screen, which names the margin while P2
    confirms."""
    from speedref.app import speed_flow as sf, menu as m
    opts = dict(m.merge_settings({})["speed"], slap_to_win=True)
    p = Player("speed", opts=opts)
    for b in (6, 0, 1):  # layout OK, both ready
        p.tap(b)
    t = p.board.clock.elapsed_us + 3100000  # after GO
    p.board.run_until(t)
    p.board.event(t, 0, True)
    p.board.event(t + 7300, 1, True)
    p.board.event(t + 80000, 0, False)
    p.board.event(t + 80000, 1, False)
    p.board.run_until(t + 200000)
    if p.phase() != sf.CLAIM:
        raise RuntimeError("the slap did not reach the claim screen")
    return p


def speed_slap():
    return slap_race().board.screen()


def speedrun_tricks():
    """Speed Run: the trick screen in hand 3 after 7 tricks, all three
    contracts revealed (SR-11, SR-21)."""
    from speedref.app import speedrun_flow as rf

    def done(p):
        return (p.phase() == rf.PLAY and p.flow().g.hands_played == 2
                and p.flow().g.tricks_played() == 7)
    p = Player("speedrun", script="speedrun.txt")
    return p.until(done)


def partners_hand():
    """Partners: the hand's scores, the doubled third hand (PT-16)."""
    from speedref.app import partners_flow as pf
    p = Player("partners", script="partners.txt")
    return p.until(lambda p: p.phase() == pf.HAND and p.flow().game.hands_played == 3)


def partners_final():
    """Partners: the final standings (PT-19), before OK stores the record."""
    from speedref.app import partners_flow as pf
    p = Player("partners", script="partners.txt")
    return p.until(lambda p: p.phase() == pf.FINAL)


def speedrun_final():
    """Speed Run: the final standings and the tie-break (SR-24..SR-27)."""
    from speedref.app import speedrun_flow as rf
    p = Player("speedrun", script="speedrun.txt")
    return p.until(lambda p: p.phase() == rf.FINAL)


SCREENS = {
    "menu": menu,
    "speed_countdown": speed_countdown,
    "speed_slap": speed_slap,
    "speedrun_tricks": speedrun_tricks,
    "partners_hand": partners_hand,
    "partners_final": partners_final,
    "speedrun_final": speedrun_final,
}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else OUT
    out.mkdir(parents=True, exist_ok=True)
    for name, make in SCREENS.items():
        path = out / (name + ".png")
        to_png(make(), path)
        print("wrote", path)


if __name__ == "__main__":
    main()
