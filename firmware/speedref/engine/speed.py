"""Speed at the TABLE level: what the referee device knows (no cards, only counts).

Rules are numbered in seeds/speed.md (SP-1 ...).  Loaded by the referee app.

API
  LAYOUTS                         ("pagat", "classic")
  SEATS                           (2, 3, 4): players, one pad each  (SP-1, SP-27)
  cards_per_player(layout, jokers=False) -> 15 | 20 | 21        (SP-2, SP-3, SP-4, SP-28)
  reserve_size(layout) -> 10 | 5                                 (SP-2, SP-3, SP-28)
  deck_size(seats, jokers=False) -> 26 (27 with jokers) a player  (SP-28)
  check_options(layout, jokers, doubles, hand_limit, slap_to_win, seats=2)  RuleError if bad
  points(left) -> int             what a deal's `left` scores (SP-18, SP-35)
  default_target(seats) -> 25 | 50 | 75   the match's default target (SP-19, SP-36)

  `left`, a deal's count of the cards the losers hold: with 2 players the
  loser's count (an int, SP-18); with 3 or 4 a tuple of one count per player
  in seat order, the winner's 0 (SP-35).  confirm() and add_deal() also take
  that per-player form from 2 players and keep the int.

  SpeedDeal(layout="pagat", jokers=False, hand_limit=5, slap_to_win=False, seats=2)
    .phase               "ready" (all say ready, SP-6) -> "play" -> "claim" (an out
                         claim is checked, SP-16; rejected: back to "play") -> "over"
    .seats                          the number of players
    .ready(player) -> bool          True once all are ready           (SP-6, SP-30)
    .start_flip()                   all start cards turned up         (SP-6, SP-30)
    .stuck(player) -> bool          True once all are stuck: a flip is due (SP-14, SP-31)
    .unstuck(player)                a player found a play after all
    .flip_due, .rebuild_due         booleans                          (SP-14, SP-15)
    .flip()                         every reserve card turned up      (SP-14)
    .rebuild(cards=None)            new reserves from the centre      (SP-15, SP-32)
    .reserves_out()                 players say the rebuilt reserves are empty
    .flips, .rebuilds, .reserve_left (None when unknown)
    .claim_out(player)              a player says they are out / slapped (SP-16, SP-17)
    .reject()                       the claim was wrong, play on
    .left_bounds() -> (lo, hi)      legal count of one loser's cards  (SP-18)
    .confirm(left)                  claim accepted, the losers hold `left`
    .result -> (winner, left) | None

  SpeedMatch(layout="pagat", match=None, players=("Player 1", "Player 2"),
             jokers=False, doubles=False, hand_limit=5, slap_to_win=False)
    players: 2 to 4 names, one a seat: their number is the match's seats (SP-35)
    match: {"single": True} | {"target": N} | {"best_of": N}, N odd
           (default {"target": default_target(seats)}: 25, 50, 75)
    .new_deal() -> SpeedDeal        configured like the match
    .add_deal(winner, left)         RuleError("SP-..", "deal 3, player 2: ...")
    .add_result(deal)               add a confirmed SpeedDeal
    .undo_last()
    .phase                          "play" (deals being played) -> "over" (SP-19, SP-36)
    .over                           phase == "over"
    .seats, .players, .totals, .wins, .hands_played, .ended_early
    .winners(), .tiebreak, .rows(), .to_record()
  replay(record) -> SpeedMatch    (records.replay dispatches here)
"""
from .errors import RuleError, is_int, is_names

LAYOUTS = ("pagat", "classic")
SEATS = (2, 3, 4)
TARGET_PER_PLAYER = 25  # the default target for each player a deal's winner beats (SP-36)
HAND_LIMITS = (5, 6, 7)


def cards_per_player(layout, jokers=False):
    # SP-2: pagat deals 15 (the hand is the top 5 of the stock).
    # SP-3/SP-4: classic deals a 5-card hand and a 15-card stock, 16 with jokers.
    if layout == "pagat":
        return 15
    return 21 if jokers else 20


def reserve_size(layout):
    return 10 if layout == "pagat" else 5


def deck_size(seats, jokers=False):
    # SP-28: half a deck a player (13 cards of two suits), one joker each
    return seats * (27 if jokers else 26)


def seat_range(seats):
    # how messages name the players' indices: "0 or 1", "0..3"
    return "0 or 1" if seats == 2 else "0..%d" % (seats - 1)


def default_target(seats):
    """SP-19, SP-36: 25 points for each other player (25, 50, 75): a deal is
    worth the cards of N-1 players, so about as many deals at every table."""
    return TARGET_PER_PLAYER * (seats - 1)


def check_seats(seats):
    if not is_int(seats) or seats not in SEATS:
        raise RuleError("SP-27", "players must be 2, 3 or 4, not %r" % (seats,))


def points(left):
    """SP-18, SP-35: what a deal's `left` scores for its winner."""
    if is_int(left):
        return left
    n = 0
    for x in left:
        n += x
    return n


def check_options(layout, jokers=False, doubles=False, hand_limit=5, slap_to_win=False, seats=2):
    if layout not in LAYOUTS:
        raise RuleError("SP-1", "layout must be 'pagat' or 'classic', not %r" % (layout,))
    for name, v in (("jokers", jokers), ("doubles", doubles), ("slap_to_win", slap_to_win)):
        if not isinstance(v, bool):
            raise RuleError("SP-20", "%s must be true or false" % name)
    if jokers and layout != "classic":
        raise RuleError("SP-4", "jokers are played only with the classic layout")
    if not is_int(hand_limit) or hand_limit not in HAND_LIMITS:
        raise RuleError("SP-5", "hand limit must be 5, 6 or 7, not %r" % (hand_limit,))
    check_seats(seats)


class SpeedDeal:
    """One deal as the referee sees it: ready, start flip, stuck calls, reserve
    flips and rebuilds, the out claim and the loser's count."""

    def __init__(self, layout="pagat", jokers=False, hand_limit=5, slap_to_win=False, seats=2):
        check_options(layout, jokers, False, hand_limit, slap_to_win, seats)
        self.layout = layout
        self.jokers = jokers
        self.hand_limit = hand_limit
        self.slap_to_win = slap_to_win
        self.seats = seats
        self.phase = "ready"
        self._all = (1 << seats) - 1  # a bit a player: who is ready, who is stuck
        self._ready = 0
        self._stuck = 0
        self.flips = 0
        self.rebuilds = 0
        self.reserve_left = reserve_size(layout)
        self.claimant = None
        self.result = None

    def _need(self, phase, rule, what):
        if self.phase != phase:
            raise RuleError(rule, "%s only in the %s phase (now %s)" % (what, phase, self.phase))

    def _player(self, p):
        if not is_int(p) or p < 0 or p >= self.seats:
            raise RuleError("SP-1", "player must be %s, not %r" % (seat_range(self.seats), p))

    # SP-6, SP-30: nobody plays until all are ready and the start cards are up.
    def ready(self, player):
        self._player(player)
        self._need("ready", "SP-6", "ready")
        self._ready |= 1 << player
        return self._ready == self._all

    def is_ready(self, player):
        return self._ready >> player & 1 == 1

    def is_stuck(self, player):
        return self._stuck >> player & 1 == 1

    def start_flip(self):
        self._need("ready", "SP-6", "the start flip")
        if self._ready != self._all:
            raise RuleError("SP-6", "the start cards are turned only when every player is ready")
        self.phase = "play"

    # SP-14, SP-31: a reserve flip happens only when every player says they are stuck.
    def stuck(self, player):
        self._player(player)
        self._need("play", "SP-14", "a stuck call")
        self._stuck |= 1 << player
        return self.flip_due

    def unstuck(self, player):
        self._player(player)
        self._need("play", "SP-14", "taking back a stuck call")
        self._stuck &= ~(1 << player)

    @property
    def flip_due(self):
        return self.phase == "play" and self._stuck == self._all

    @property
    def rebuild_due(self):
        # SP-15: the reserves are empty when a flip is needed.
        return self.flip_due and self.reserve_left == 0

    def flip(self):
        if not self.flip_due:
            raise RuleError("SP-14", "reserve cards are turned only when every player is stuck")
        if self.reserve_left == 0:
            raise RuleError("SP-15", "the reserves are empty: rebuild them first")
        self.flips += 1
        if self.reserve_left is not None:
            self.reserve_left -= 1
        self._stuck = 0

    def rebuild(self, cards=None):
        """SP-15, SP-32: every pile's top card stays; the rest of the centre is
        shuffled and dealt round into a reserve a player.  `cards` is how many
        were gathered, if the players counted them (None: the app waits for
        reserves_out())."""
        if not self.rebuild_due:
            raise RuleError("SP-15", "reserves are rebuilt only when a flip is due and they are empty")
        if cards is not None:
            n = self.seats
            hi = deck_size(n, self.jokers) - 2 * n  # the tops stay; each player still holds a card
            if not is_int(cards) or cards < n or cards > hi:
                raise RuleError("SP-15", "a rebuild gathers %d..%d cards, not %r" % (n, hi, cards))
            self.reserve_left = cards // n
        else:
            self.reserve_left = None
        self.rebuilds += 1

    def reserves_out(self):
        if self.phase != "play" or self.reserve_left is not None:
            raise RuleError("SP-15", "only rebuilt reserves of unknown size are declared empty")
        self.reserve_left = 0

    # SP-16 / SP-17: the first player with no hand and no stock claims the deal
    # (with slap-to-win, the claim is the slap); the others check it (SP-33).
    def claim_out(self, player):
        self._player(player)
        self._need("play", "SP-16", "an out claim")
        self.claimant = player
        self.phase = "claim"

    def reject(self):
        self._need("claim", "SP-16", "rejecting a claim")
        self.claimant = None
        self.phase = "play"
        self._stuck = 0

    def left_bounds(self):
        # SP-18: the loser holds at least one card (else they would have been
        # out first), unless slap-to-win let them empty their hand too (SP-17).
        return (0 if self.slap_to_win else 1), cards_per_player(self.layout, self.jokers)

    def confirm(self, left):
        self._need("claim", "SP-16", "confirming a claim")
        left = check_left(left, self.claimant, self.seats, self.left_bounds(), "")
        self.result = (self.claimant, left)
        self.phase = "over"


def check_left(left, winner, seats, bounds, where, strict=False):
    """SP-18, SP-35: `left` of a deal `winner` won, returned as it is kept:
    the loser's count with 2 players, a tuple of one count a player with
    more (the winner's 0).  2 players may give either form, unless `strict`
    (a record has one way to write a deal).  `where` ("deal 3, ") starts the
    message, which then names the player whose count is wrong."""
    counts = isinstance(left, (list, tuple))
    if (counts and len(left) != seats) or (counts != (seats > 2) and (strict or seats > 2)):
        raise RuleError("SP-35", "%sleft must be %s" % (where, "%d counts" % seats if seats > 2 else "a count"))
    for p in range(seats):
        n = left[p] if counts else (0 if p == winner else left)
        if p == winner:
            if n != 0 or not is_int(n):
                raise RuleError("SP-35", "%splayer %d: the winner holds 0 cards, not %r" % (where, p + 1, n))
            continue
        lo, hi = bounds
        if not is_int(n) or n < lo or n > hi:
            raise RuleError("SP-18", "%splayer %d: cards left must be %d..%d, not %r" % (where, p + 1, lo, hi, n))
    if not counts:
        return left
    return points(left) if seats == 2 else tuple(left)


_FORMATS = "match must be {\"single\": true}, {\"target\": N} or {\"best_of\": N}"


def _parse_match(match, seats):
    # SP-19: exactly one of the three formats; none is the default target (SP-36).
    if match is None:
        return "target", default_target(seats)
    if not isinstance(match, dict) or len(match) != 1:
        raise RuleError("SP-19", _FORMATS)
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
            raise RuleError("SP-19", "best_of must be an odd number of deals (1, 3, 5 ...), not %r" % (b,))
        return "best_of", b
    raise RuleError("SP-19", _FORMATS)


class SpeedMatch:
    """A match of deals scored 1 point per card the losers still hold (SP-18,
    SP-35), for 2 to 4 players: one name a seat."""

    def __init__(self, layout="pagat", match=None, players=("Player 1", "Player 2"),
                 jokers=False, doubles=False, hand_limit=5, slap_to_win=False):
        check_options(layout, jokers, doubles, hand_limit, slap_to_win)
        n = len(players) if isinstance(players, (list, tuple)) else 0
        if n not in SEATS or not is_names(players, n):
            raise RuleError("SP-27", "Speed needs 2, 3 or 4 player names, one a seat")
        self.format, self.goal = _parse_match(match, n)
        self.layout = layout
        self.jokers = jokers
        self.doubles = doubles
        self.hand_limit = hand_limit
        self.slap_to_win = slap_to_win
        self.seats = n
        self.players = list(players)
        self.deals = []
        self.totals = [0] * n
        self.wins = [0] * n

    def new_deal(self):
        return SpeedDeal(self.layout, self.jokers, self.hand_limit, self.slap_to_win, self.seats)

    # SP-18: a match's deals have the bounds of its one deal (the same layout,
    # jokers and slap-to-win)
    left_bounds = SpeedDeal.left_bounds

    def add_deal(self, winner, left, strict=False):
        n = len(self.deals) + 1
        if not is_int(winner) or winner < 0 or winner >= self.seats:
            raise RuleError("SP-20", "deal %d: winner must be %s, not %r" % (n, seat_range(self.seats), winner))
        if self.over:
            raise RuleError("SP-19", "deal %d, player %d: the match is already over" % (n, winner + 1))
        left = check_left(left, winner, self.seats, self.left_bounds(), "deal %d, " % n, strict)
        self.deals.append((winner, left))
        self.totals[winner] += points(left)
        self.wins[winner] += 1

    def add_result(self, deal):
        if deal.result is None:
            raise RuleError("SP-16", "deal %d: the deal has no confirmed winner yet" % (len(self.deals) + 1))
        self.add_deal(deal.result[0], deal.result[1])

    def undo_last(self):
        if not self.deals:
            raise RuleError("SP-20", "no deal to undo")
        w, left = self.deals.pop()
        self.totals[w] -= points(left)
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
            return max(self.totals) >= self.goal
        return max(self.wins) > self.goal // 2

    @property
    def ended_early(self):
        return not self.over

    def _measure(self):
        # best_of counts deals won; the other formats count points.
        return self.wins if self.format == "best_of" else self.totals

    def winners(self):
        # SP-19: a single deal is a complete game, won by the deal's winner
        # (its points may be 0 and every total level, SP-34)
        if self.format == "single" and self.deals:
            return [self.deals[0][0]]
        # SP-36: every player level at the top
        m = self._measure()
        top = max(m)
        return [p for p in range(self.seats) if m[p] == top]

    @property
    def tiebreak(self):
        m = self._measure()
        unit = "deals" if self.format == "best_of" else "points"
        # in seat order, as the sheet's columns and its totals line
        score = "%s %s" % ("-".join([str(x) for x in m]), unit)
        if not self.deals:
            return "no deals played"
        if self.ended_early:
            if len(self.winners()) > 1:
                return "ended early, level at %s" % score
            return "ended early, leading %s" % score
        if self.format == "single":
            return "won the single deal (+%d)" % max(self.totals)
        if self.format == "target":
            return "first to %d point%s (%s)" % (self.goal, "" if self.goal == 1 else "s", score)
        if self.seats == 2:
            return "won %d of %d deal%s (points are not counted)" % (max(self.wins), self.goal,
                                                                      "" if self.goal == 1 else "s")
        w = max(self.wins)
        return "first to %d deal%s, best of %d (points are not counted)" % (w, "" if w == 1 else "s", self.goal)

    def rows(self):
        out = []
        run = [0] * self.seats
        for i, (w, left) in enumerate(self.deals):
            run[w] += points(left)
            cells = []
            for p in range(self.seats):
                if p == w:
                    cells.append("won +%d" % points(left))
                else:
                    cells.append("%d left" % (left if is_int(left) else left[p]))
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
             "deals": [{"winner": w, "left": left if is_int(left) else list(left)}
                       for (w, left) in self.deals]}
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
        m.add_deal(d["winner"], d["left"], True)
    return m
