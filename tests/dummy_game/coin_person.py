"""Coin against a computer player (`speedref-sim --play coin` while the game
is registered): you are P1, the computer P2 (sim/table/person.py's terminal
and --pace, coin_table's virtual board).  Each point goes to the first slap
(CN-2): yours is your pad (z or 1), the computer's comes after its reaction
time; OK stores the record at the end."""
from sim.table.person import set_pace, DEFAULT_PACE, table_terminal
from dummy_game.coin_table import CoinTable

HUMAN = 0


class CoinPlay(CoinTable):
    """A coin table where seat 0 is a person and every other seat a computer player."""

    def __init__(self, seed=None, realtime=True, pace=DEFAULT_PACE, start_us=None, store=None):
        CoinTable.__init__(self, seed, start_us=start_us, realtime=realtime, store=store)
        set_pace([None] + self.people[HUMAN + 1:], pace)
        self.point_planned = None  # the point the computer's slap is planned for
        self.note = "Slap your pad (z) before the computer"

    def start(self):
        """Straight into coin with the remembered options (like --game)."""
        self.boot()
        self.board.start_game(self.GAME)
        self._observe()

    def advance(self, us):
        """Simulated time only (tests): let the table run for `us`."""
        end = self.t + us
        self.run(lambda: self.t >= end)

    def after_step(self):
        f = self.board.app.flow
        if f is None or f.GAME != self.GAME or self.board.app.screen is not f:
            return
        n = len(f.game.points)
        if f.phase == 0 and self.point_planned != n:
            self.point_planned = n
            for p in self.others(HUMAN):
                self.at(self.t + self.people[p].reaction(), self._slap, p, n)
        elif f.phase == 1:
            self.note = "OK (Enter): save the result"

    def _slap(self, p, n):
        f = self.board.app.flow
        if f is not None and f.GAME == self.GAME and f.phase == 0 and len(f.game.points) == n \
                and not self.finger[p]:
            pe = self.people[p]
            self.tap(self.t, p, pe.tap_us(), pe)

    def key_press(self, t, b, hold):
        """A key put your finger on button b at t (sim/keys.py)."""
        return self.press(t, b)

    def panel(self):
        f = self.board.app.flow
        if f is None or f.GAME != self.GAME:
            return ["Coin: you (P1) vs computer (P2)", "", "(the computer plays coin only)"]
        return ["Coin: you (P1) vs computer (P2)", "Points: %s" % " ".join(
            "P%d" % (p + 1) for p in f.game.points), "", self.note]


def terminal_class():
    """The play terminal with the points beside the OLED."""
    return table_terminal()


def table(args):
    """The --play coin table for the command line's options."""
    return CoinPlay(args.seed, start_us=args.start_us, pace=args.pace or DEFAULT_PACE, store=args.store)
