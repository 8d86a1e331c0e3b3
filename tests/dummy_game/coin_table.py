"""Two computer players at a coin game on the virtual board (sim/table):
after each point one of them slaps first; at the end OK stores the record,
which must be what really happened."""
from sim.bots import Person
from sim.table.base import Table, OK


class CoinTable(Table):
    GAME = "coin"

    def __init__(self, seed, loop_us=None, start_us=None, opts=None, realtime=False, store=None):
        Table.__init__(self, seed, loop_us, start_us, realtime, store)
        self.opts = opts or {"target": self.rng.choice((3, 5))}
        self.people = [Person(self.rng, s) for s in range(self.seats)]  # the registry's seats
        self.t_deals = []     # truth: who slapped first, point by point
        self.points_seen = 0
        self.busy = False
        self.done = False
        self.record = None

    def after_step(self):
        f = self.board.app.flow
        if f is None or self.board.app.screen is not f or self.busy:
            return
        if f.phase == 0 and len(f.game.points) == self.points_seen:
            p = self.someone()
            pe = self.people[p]
            self.busy = True
            self.t_deals.append(p)
            t = self.tap(self.t + pe.reaction(), p, pe.tap_us(), pe)[1]
            self.at(t + 50000, self._free)
        elif f.phase == 1 and self.record is None:
            self.busy = True
            self.tap(self.t + self.people[0].reaction(), OK, self.people[0].tap_us())

    def _free(self):
        self.points_seen += 1
        self.busy = False

    def on_line(self, obj):
        if obj.get("ev") == "game_end":
            self.record = obj["record"]
            self.done = True

    def compare(self):
        if self.record is None:
            return ["no game_end record"]
        want = {"game": "coin", "players": ["P1", "P2"], "target": self.opts["target"],
                "points": self.t_deals}
        got = dict(self.record)
        got.pop("id", None)
        got.pop("table", None)  # where it was played: no part of the game
        return [] if got == want else ["record: app %r, table %r" % (got, want)]
