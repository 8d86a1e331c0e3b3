"""Coin at the TABLE level (rules: tests/dummy_game/coin.md, CN-*): what the
referee knows, the score, and replay(record) -> sheet (records.py's sheet
interface).  MicroPython compatible, like every table level."""
from speedref.engine.errors import RuleError

TARGETS = (3, 5)


class CoinGame:
    def __init__(self, target=3, players=None):
        if target not in TARGETS:
            raise RuleError("CN-3", "the target is 3 or 5, not %r" % (target,))
        self.target = target
        self.players = list(players or ["P1", "P2"])
        if len(self.players) != 2:
            raise RuleError("CN-1", "two players")
        self.points = []
        self.totals = [0, 0]

    @property
    def hands_played(self):
        return len(self.points)

    @property
    def over(self):
        return max(self.totals) >= self.target

    @property
    def ended_early(self):
        return not self.over

    @property
    def tiebreak(self):
        return "first to %d" % self.target

    def point(self, p):
        if self.over:
            raise RuleError("CN-3", "point %d: the game is over" % (len(self.points) + 1))
        if p not in (0, 1):
            raise RuleError("CN-2", "point %d: seat %r is no player" % (len(self.points) + 1, p))
        self.points.append(p)
        self.totals[p] += 1

    def undo(self):
        if not self.points:
            raise RuleError("CN-2", "no point to take back")
        self.totals[self.points.pop()] -= 1

    def winners(self):
        best = max(self.totals)
        return [p for p in (0, 1) if self.totals[p] == best]

    def rows(self):
        out = []
        run = [0, 0]
        for i, p in enumerate(self.points):
            run[p] += 1
            out.append(("Point %d" % (i + 1), ["1" if q == p else "-" for q in (0, 1)], list(run)))
        return out

    def to_record(self):
        return {"game": "coin", "players": list(self.players), "target": self.target,
                "points": list(self.points)}


def replay(record):
    """The sheet of a coin record; RuleError (CN-*) for an invalid one."""
    try:
        players, target, points = record["players"], record["target"], record["points"]
    except (KeyError, TypeError):
        raise RuleError("CN-4", "a coin record has players, target and points")
    if not isinstance(players, list) or not isinstance(points, list):
        raise RuleError("CN-4", "players and points are lists")
    g = CoinGame(target, players)
    for p in points:
        g.point(p)
    return g
