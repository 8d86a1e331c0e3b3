"""The coin referee flow (docs/app.md, "Writing a flow"): a pad press wins
the point; at the target, OK stores the record."""
from speedref.app import ui
from speedref.app.core import OK, CLICK, WIN
from dummy_game.coin import CoinGame

PLAY = 0
FINAL = 1


class CoinFlow:
    GAME = "coin"
    PHASES = FINAL + 1

    def __init__(self, app, opts, now_us, state=None):
        self.app = app
        self.opts = opts
        self.game = CoinGame(opts["target"])
        for p in (state or {}).get("points", ()):
            self.game.point(p)
        self.phase = FINAL if self.game.over else PLAY
        if state is None:
            app.save(self, {"points": []})

    def press(self, b, t_us):
        if self.phase == PLAY and b < 2:  # CN-2: the first slap wins the point
            self.game.point(b)
            self.app.save(self, {"points": list(self.game.points)})
            self.app.light(1 << b)
            if self.game.over:
                self.phase = FINAL
                self.app.sound(WIN)
            else:
                self.app.sound(CLICK)
            self.app.redraw()
        elif self.phase == FINAL and b == OK:
            self.app.finish(self.game.to_record())
            self.app.close()

    def release(self, b, t_us):
        pass

    def tick(self, now_us):
        pass

    def draw(self, fb):
        g = self.game
        ui.title(fb, "Coin to %d" % g.target)
        ui.big_center(fb, "%d-%d" % (g.totals[0], g.totals[1]), 16, 4)
        if self.phase == FINAL:
            ui.center(fb, "P%d wins! OK" % (g.winners()[0] + 1), 52)
        else:
            ui.center(fb, "first slap wins", 52)

    def can_undo(self):
        return bool(self.game.points)

    def undo(self, now_us):
        self.game.undo()
        self.phase = PLAY
        self.app.save(self, {"points": list(self.game.points)})
        self.app.redraw()

    def interrupt(self, now_us):
        pass
