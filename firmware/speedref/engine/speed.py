"""Speed at the TABLE level: what the referee device knows (no cards, only counts).

Rules are numbered in seeds/speed.md (SP-1 ...).  Loaded by the referee app.

API
  LAYOUTS                         ("pagat", "classic")
  cards_per_player(layout, jokers=False) -> 15 | 20 | 21        (SP-2, SP-3, SP-4)
  reserve_size(layout) -> 10 | 5                                 (SP-2, SP-3)
  check_options(layout, jokers, doubles, hand_limit, slap_to_win)  RuleError if bad

  SpeedDeal(layout="pagat", jokers=False, hand_limit=5, slap_to_win=False)
    .phase               "ready" (both say ready, SP-6) -> "play" -> "claim" (an out
                         claim is checked, SP-16; rejected: back to "play") -> "over"
    .ready(player) -> bool          True once both are ready          (SP-6)
    .start_flip()                   both start cards turned up        (SP-6)
    .stuck(player) -> bool          True once both are stuck: a flip is due (SP-14)
    .unstuck(player)                a player found a play after all
    .flip_due, .rebuild_due         booleans                          (SP-14, SP-15)
    .flip()                         both reserve cards turned up      (SP-14)
    .rebuild(cards=None)            new reserves from the centre      (SP-15)
    .reserves_out()                 players say the rebuilt reserves are empty
    .flips, .rebuilds, .reserve_left (None when unknown)
    .claim_out(player)              a player says they are out / slapped (SP-16, SP-17)
    .reject()                       the claim was wrong, play on
    .left_bounds() -> (lo, hi)      legal count of the loser's cards  (SP-18)
    .confirm(left)                  claim accepted, loser holds `left` cards
    .result -> (winner, left) | None

  SpeedMatch(layout="pagat", match=None, players=("Player 1", "Player 2"),
             jokers=False, doubles=False, hand_limit=5, slap_to_win=False)
    match: {"single": True} | {"target": N} (default {"target": 25}) | {"best_of": 3}
    .new_deal() -> SpeedDeal        configured like the match
    .add_deal(winner, left)         RuleError("SP-..", "deal 3, player 2: ...")
    .add_result(deal)               add a confirmed SpeedDeal
    .undo_last()
    .phase                          "play" (deals being played) -> "over" (SP-19)
    .over                           phase == "over"
    .players, .totals, .wins, .hands_played, .ended_early
    .winners(), .tiebreak, .rows(), .to_record()
  replay(record) -> SpeedMatch    (records.replay dispatches here)
"""
from .errors import RuleError, is_int, is_names

LAYOUTS = ("pagat", "classic")
DEFAULT_TARGET = 25
HAND_LIMITS = (5, 6, 7)


def cards_per_player(layout, jokers=False):
    # SP-2: pagat deals 15 (the hand is the top 5 of the stock).
    # SP-3/SP-4: classic deals a 5-card hand and a 15-card stock, 16 with jokers.
    if layout == "pagat":
        return 15
    return 21 if jokers else 20


def reserve_size(layout):
    return 10 if layout == "pagat" else 5


def check_options(layout, jokers=False, doubles=False, hand_limit=5, slap_to_win=False):
    if layout not in LAYOUTS:
        raise RuleError("SP-1", "layout must be 'pagat' or 'classic', not %r" % (layout,))
    for name, v in (("jokers", jokers), ("doubles", doubles), ("slap_to_win", slap_to_win)):
        if not isinstance(v, bool):
            raise RuleError("SP-20", "%s must be true or false" % name)
    if jokers and layout != "classic":
        raise RuleError("SP-4", "jokers are played only with the classic layout")
    if not is_int(hand_limit) or hand_limit not in HAND_LIMITS:
        raise RuleError("SP-5", "hand limit must be 5, 6 or 7, not %r" % (hand_limit,))


class SpeedDeal:
    """One deal as the referee sees it: ready, start flip, stuck calls, reserve
    flips and rebuilds, the out claim and the loser's count."""

    def __init__(self, layout="pagat", jokers=False, hand_limit=5, slap_to_win=False):
        check_options(layout, jokers, False, hand_limit, slap_to_win)
        self.layout = layout
        self.jokers = jokers
        self.hand_limit = hand_limit
        self.slap_to_win = slap_to_win
        self.phase = "ready"
        self._ready = [False, False]
        self._stuck = [False, False]
        self.flips = 0
        self.rebuilds = 0
        self.reserve_left = reserve_size(layout)
        self.claimant = None
        self.result = None

    def _need(self, phase, rule, what):
        if self.phase != phase:
            raise RuleError(rule, "%s only in the %s phase (now %s)" % (what, phase, self.phase))

    @staticmethod
    def _player(p):
        if not is_int(p) or p not in (0, 1):
            raise RuleError("SP-1", "player must be 0 or 1, not %r" % (p,))

    # SP-6: nobody plays until both are ready and the start cards are up.
    def ready(self, player):
        self._player(player)
        self._need("ready", "SP-6", "ready")
        self._ready[player] = True
        return self._ready[0] and self._ready[1]

    def is_ready(self, player):
        return self._ready[player]

    def is_stuck(self, player):
        return self._stuck[player]

    def start_flip(self):
        self._need("ready", "SP-6", "the start flip")
        if not (self._ready[0] and self._ready[1]):
            raise RuleError("SP-6", "the start cards are turned only when both players are ready")
        self.phase = "play"

    # SP-14: a reserve flip happens only when both players say they are stuck.
    def stuck(self, player):
        self._player(player)
        self._need("play", "SP-14", "a stuck call")
        self._stuck[player] = True
        return self.flip_due

    def unstuck(self, player):
        self._player(player)
        self._need("play", "SP-14", "taking back a stuck call")
        self._stuck[player] = False

    @property
    def flip_due(self):
        return self.phase == "play" and self._stuck[0] and self._stuck[1]

    @property
    def rebuild_due(self):
        # SP-15: the reserves are empty when a flip is needed.
        return self.flip_due and self.reserve_left == 0

    def flip(self):
        if not self.flip_due:
            raise RuleError("SP-14", "reserve cards are turned only when both players are stuck")
        if self.reserve_left == 0:
            raise RuleError("SP-15", "the reserves are empty: rebuild them first")
        self.flips += 1
        if self.reserve_left is not None:
            self.reserve_left -= 1
        self._stuck[0] = self._stuck[1] = False

    def rebuild(self, cards=None):
        """SP-15: the two top cards stay; the rest of the centre is shuffled and
        dealt alternately into two reserves.  `cards` is how many were gathered,
        if the players counted them (None: the app waits for reserves_out())."""
        if not self.rebuild_due:
            raise RuleError("SP-15", "reserves are rebuilt only when a flip is due and they are empty")
        if cards is not None:
            hi = self._deck() - 2 - 2  # both tops stay; each player still holds a card
            if not is_int(cards) or cards < 2 or cards > hi:
                raise RuleError("SP-15", "a rebuild gathers 2..%d cards, not %r" % (hi, cards))
            self.reserve_left = cards // 2
        else:
            self.reserve_left = None
        self.rebuilds += 1

    def reserves_out(self):
        if self.phase != "play" or self.reserve_left is not None:
            raise RuleError("SP-15", "only rebuilt reserves of unknown size are declared empty")
        self.reserve_left = 0

    def _deck(self):
        return 54 if self.jokers else 52

    # SP-16 / SP-17: the first player with no hand and no stock claims the deal
    # (with slap-to-win, the claim is the slap); the other player checks it.
    def claim_out(self, player):
        self._player(player)
        self._need("play", "SP-16", "an out claim")
        self.claimant = player
        self.phase = "claim"

    def reject(self):
        self._need("claim", "SP-16", "rejecting a claim")
        self.claimant = None
        self.phase = "play"
        self._stuck[0] = self._stuck[1] = False

    def left_bounds(self):
        # SP-18: the loser holds at least one card (else they would have been
        # out first), unless slap-to-win let them empty their hand too (SP-17).
        return (0 if self.slap_to_win else 1), cards_per_player(self.layout, self.jokers)

    def confirm(self, left):
        self._need("claim", "SP-16", "confirming a claim")
        check_left(left, self.left_bounds(), "player %d" % (2 - self.claimant))
        self.result = (self.claimant, left)
        self.phase = "over"


def check_left(left, bounds, who):
    lo, hi = bounds
    if not is_int(left) or left < lo or left > hi:
        raise RuleError("SP-18", "%s: cards left must be %d..%d, not %r" % (who, lo, hi, left))


def _parse_match(match):
    # SP-19: exactly one of the three formats.
    if match is None:
        return "target", DEFAULT_TARGET
    if not isinstance(match, dict) or len(match) != 1:
        raise RuleError("SP-19", "match must be {\"single\": true}, {\"target\": N} or {\"best_of\": 3}")
    if match.get("single") is True:
        return "single", 1
    t = match.get("target")
    if t is not None:
        if not is_int(t) or t < 1:
            raise RuleError("SP-19", "target must be a whole number of points >= 1, not %r" % (t,))
        return "target", t
    b = match.get("best_of")
    if b is not None:
        if not is_int(b) or b < 1 or b % 2 == 0:
            raise RuleError("SP-19", "best_of must be an odd number of deals (3), not %r" % (b,))
        return "best_of", b
    raise RuleError("SP-19", "match must be {\"single\": true}, {\"target\": N} or {\"best_of\": 3}")


class SpeedMatch:
    """A match of deals scored 1 point per card the loser still holds (SP-18)."""

    def __init__(self, layout="pagat", match=None, players=("Player 1", "Player 2"),
                 jokers=False, doubles=False, hand_limit=5, slap_to_win=False):
        check_options(layout, jokers, doubles, hand_limit, slap_to_win)
        self.format, self.goal = _parse_match(match)
        if not is_names(players, 2):
            raise RuleError("SP-1", "Speed needs exactly 2 player names")
        self.layout = layout
        self.jokers = jokers
        self.doubles = doubles
        self.hand_limit = hand_limit
        self.slap_to_win = slap_to_win
        self.players = list(players)
        self.deals = []
        self.totals = [0, 0]
        self.wins = [0, 0]

    def new_deal(self):
        return SpeedDeal(self.layout, self.jokers, self.hand_limit, self.slap_to_win)

    # SP-18: a match's deals have the bounds of its one deal (the same layout,
    # jokers and slap-to-win)
    left_bounds = SpeedDeal.left_bounds

    def add_deal(self, winner, left):
        n = len(self.deals) + 1
        if not is_int(winner) or winner not in (0, 1):
            raise RuleError("SP-20", "deal %d: winner must be 0 or 1, not %r" % (n, winner))
        who = "deal %d, player %d" % (n, 2 - winner)  # the loser holds the cards
        if self.over:
            raise RuleError("SP-19", "deal %d, player %d: the match is already over" % (n, winner + 1))
        check_left(left, self.left_bounds(), who)
        self.deals.append((winner, left))
        self.totals[winner] += left
        self.wins[winner] += 1

    def add_result(self, deal):
        if deal.result is None:
            raise RuleError("SP-16", "deal %d: the deal has no confirmed winner yet" % (len(self.deals) + 1))
        self.add_deal(deal.result[0], deal.result[1])

    def undo_last(self):
        if not self.deals:
            raise RuleError("SP-20", "no deal to undo")
        w, left = self.deals.pop()
        self.totals[w] -= left
        self.wins[w] -= 1

    @property
    def hands_played(self):
        return len(self.deals)

    @property
    def phase(self):
        return "over" if self.over else "play"

    @property
    def over(self):
        if self.format == "single":
            return len(self.deals) >= 1
        if self.format == "target":
            return self.totals[0] >= self.goal or self.totals[1] >= self.goal
        return max(self.wins) > self.goal // 2

    @property
    def ended_early(self):
        return not self.over

    def _measure(self):
        # best_of counts deals won; the other formats count points.
        return self.wins if self.format == "best_of" else self.totals

    def winners(self):
        m = self._measure()
        if m[0] == m[1]:
            return [0, 1]
        return [0] if m[0] > m[1] else [1]

    @property
    def tiebreak(self):
        m = self._measure()
        unit = "deals" if self.format == "best_of" else "points"
        score = "%d-%d %s" % (max(m), min(m), unit)
        if not self.deals:
            return "no deals played"
        if self.ended_early:
            if m[0] == m[1]:
                return "ended early, level at %s" % score
            return "ended early, leading %s" % score
        if self.format == "single":
            return "won the single deal (+%d)" % max(self.totals)
        if self.format == "target":
            return "first to %d points (%s)" % (self.goal, score)
        return "won %d of %d deals (points are not counted)" % (max(self.wins), self.goal)

    def rows(self):
        out = []
        run = [0, 0]
        for i, (w, left) in enumerate(self.deals):
            run[w] += left
            cells = ["", ""]
            cells[w] = "won +%d" % left
            cells[1 - w] = "%d left" % left
            out.append(("deal %d" % (i + 1), cells, list(run)))
        return out

    def to_record(self):
        if self.format == "single":
            match = {"single": True}
        elif self.format == "target":
            match = {"target": self.goal}
        else:
            match = {"best_of": self.goal}
        r = {"game": "speed", "layout": self.layout, "match": match,
             "players": list(self.players),
             "deals": [{"winner": w, "left": left} for (w, left) in self.deals]}
        if self.jokers:
            r["jokers"] = True
        if self.doubles:
            r["doubles"] = True
        if self.hand_limit != 5:
            r["hand_limit"] = self.hand_limit
        if self.slap_to_win:
            r["slap_to_win"] = True
        return r


def replay(record):
    """Validate a canonical Speed record and return its scored SpeedMatch."""
    if not isinstance(record, dict) or record.get("game") != "speed":
        raise RuleError("SP-20", "not a Speed record")
    if "layout" not in record:
        raise RuleError("SP-20", "a Speed record needs a layout")
    deals = record.get("deals")
    if not isinstance(deals, list):
        raise RuleError("SP-20", "deals must be a list")
    m = SpeedMatch(record["layout"], record.get("match"),
                   record.get("players"), record.get("jokers", False),
                   record.get("doubles", False), record.get("hand_limit", 5),
                   record.get("slap_to_win", False))
    for i, d in enumerate(deals):
        if not isinstance(d, dict) or "winner" not in d or "left" not in d:
            raise RuleError("SP-20", "deal %d: needs winner and left" % (i + 1))
        m.add_deal(d["winner"], d["left"])
    return m
