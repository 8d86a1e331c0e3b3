"""Speed Run, TABLE level: what the referee device knows at a real table.

No cards here: the referee is told the trump and ranking, who won each trick
and, at the end of the hand, the three contracts.  It keeps the scoresheet.
Rule numbers (SR-n) are those of seeds/speedrun.md.

    g = SpeedRunGame("long", ["Ann", "Bob", "Cy"], first=0)
    g.first, g.choosers(), g.leader()    seat with the first-player card, the two
                                         seats that choose, the seat that leads trick 1
    g.set_choices("geckos", "slalom-10") trump (TRUMPS) and ranking (RANKINGS)
    g.direction(n)                       10 or 1: which card ranks highest in trick n
    g.record_trick(seat) / g.undo_trick() / g.set_tricks([a, b, c])
    g.tricks, g.tricks_played(), g.next_leader()
    g.reveal(seat, contract)             "W4", "REDO" (target kept secret) or "REDO:W4"
    g.legal_contracts(seat)              offer only these; "REDO" then needs
    g.redo_targets(seat)                 one of these completed contracts
    g.foul_cards(seat)                   cards turned over that break SR-13/SR-19:
                                         entered as "FOUL:<card>", they score FOUL_SCORE (SR-30)
    g.finish_hand([c0, c1, c2]) -> [score written or None (Pass)] * 3
    g.undo()                             take back the last entry (a finished hand too)
    g.phase                              "choose" (trump and ranking, SR-7) -> "play" (tricks,
                                         SR-12) -> "score" (twelve tricks in: the three
                                         contracts, SR-14) -> "choose" ... -> "over" (SR-28)
    g.over                               phase == "over"
    g.hand(i)                            finished hand i (negative counts from the
                                         end) as its record dict; g.hands: all of them
    sheet interface (records.py): players, totals, hands_played, ended_early,
    winners(), tiebreak, rows(), to_record();  replay(record) -> SpeedRunGame

Memory: a Long game runs in a 64 KB heap next to the app, so a finished hand
is kept as one short bytearray (a "row" of small ints, layout below), not as
dicts and lists: the record's dicts are built only when asked for
(hand(), to_record()).  The hand being played keeps its entries as a list of
small ints (no allocation per entry beyond the list's growth).
"""
from .errors import RuleError, is_int, is_names

from micropython import const

HANDS = {"short": 6, "medium": 9, "long": 12}
TRUMPS = ("earthworms", "raccoons", "geckos", "gorillas", "none")
RANKINGS = ("10-high", "1-high", "slalom-10", "slalom-1", "bell-10", "bell-1")
NORMAL = ("W0", "W1", "W4", "W5", "W7", "W9", "FEWEST", "MIDDLE", "MOST")
PLACES = ("FEWEST", "MIDDLE", "MOST")

# A contract in a row: its index in CONTRACTS, or _REDO_CODE + the index in
# NORMAL of the contract a Redo plays again (SR-19).
CONTRACTS = NORMAL + ("PASS",)
_REDO_CODE = const(16)
# An illegal contract card turned over (SR-30): _FOUL_CODE + its index in CARDS.
CARDS = NORMAL + ("PASS", "REDO")
_FOUL_CODE = const(32)
FOUL_SCORE = const(12)  # the most an unrevealed contract can miss by (SR-30)
_NOT_SET = const(255)  # trump or ranking missing from a record's hand
# SR-30: reveals go through the device, which offers only the legal cards
_NO_FOUL_REVEAL = const("a foul cannot be revealed: only a card that may be played is turned face up")

# A finished hand's row: byte offsets.  Scores are stored plus _SCORE_BIAS
# (a score is -4..24, SR-16/SR-21; a total changes by at most that).
_FIRST = const(0)      # seat holding the first-player card (SR-5)
_TRUMP = const(1)      # index in TRUMPS or _NOT_SET
_RANKING = const(2)    # index in RANKINGS or _NOT_SET
_TRICKS = const(3)     # 3 bytes: tricks won per seat
_CONTRACTS = const(6)  # 3 bytes: contract codes
_REVEALED = const(9)   # bit s set: seat s played its contract face up (SR-21)
_WRITTEN = const(10)   # 3 bytes: score written this hand (a Pass: 0, unused)
_KEPT = const(13)      # 3 bytes: what the sheet keeps (a Redo keeps the lower, SR-20)
_DELTA = const(16)     # 3 bytes: how much the seat's total moved
_LOG = const(19)       # the hand's entries in order, one code each (for undo)
_SCORE_BIAS = const(64)

# Entry codes, in the log of the hand being played and in a row.
_E_TRICK = const(0)    # + seat: that seat won a trick
_E_REVEAL = const(3)   # + seat: revealed the contract it then played
_E_REVEAL_REDO = const(6)  # + seat: revealed "REDO", target kept secret
_E_CHOICES = const(9)  # trump and ranking set
_E_COUNTS = const(10)  # the three trick counts entered at once


def contract_code(c):
    """A valid contract name as its code in a row."""
    if c[:5] == "FOUL:":
        return _FOUL_CODE + CARDS.index(c[5:])
    if c[:5] == "REDO:":
        return _REDO_CODE + NORMAL.index(c[5:])
    return CONTRACTS.index(c)


def contract_name(code):
    if code >= _FOUL_CODE:
        return "FOUL:" + CARDS[code - _FOUL_CODE]
    if code >= _REDO_CODE:
        return "REDO:" + NORMAL[code - _REDO_CODE]
    return CONTRACTS[code]


def contract_cards(length):
    """The contract cards each player starts with (SR-3): one more than hands (SR-4)."""
    c = ["W0", "W1", "W4", "W5", "MIDDLE", "PASS", "REDO"]
    if length != "short":
        c += ["W7", "MOST", "PASS"]
    if length == "long":
        c += ["W9", "FEWEST", "REDO"]
    return c


def direction(ranking, n):
    """10 if the 10 ranks highest in trick n (1..12), 1 if the 1 does (SR-9)."""
    if ranking == "10-high":
        return 10
    if ranking == "1-high":
        return 1
    start = 10 if ranking[-3:] == "-10" else 1
    if ranking[0] == "s":  # Slalom: switches after every trick
        same = n % 2 == 1
    else:  # Bell Curve: tricks 1-4 and 9-12 one way, 5-8 the other
        same = (n - 1) // 4 != 1
    return start if same else 11 - start


def difference(contract, tricks, seat):
    """Distance between the seat's tricks and what `contract` promised (SR-14, SR-15)."""
    if contract[0] == "W":
        target = int(contract[1:])
    else:
        # Fewest/Middle/Most aim at the lowest/median/highest count, so a
        # player who shares that place (a tie) is exactly on it.
        target = sorted(tricks)[PLACES.index(contract)]
    t = tricks[seat]
    return t - target if t >= target else target - t


def score(diff, revealed):
    """What the sheet gets: the difference, -2 when exact (SR-16), doubled if revealed (SR-21)."""
    s = -2 if diff == 0 else diff
    return s * 2 if revealed else s


class SpeedRunGame:
    def __init__(self, length, players, first=0):
        if length not in HANDS:
            raise RuleError("SR-2", "length must be short, medium or long, not %r" % (length,))
        if not is_names(players, 3):
            raise RuleError("SR-1", "Speed Run needs exactly three player names")
        if not is_int(first) or first not in (0, 1, 2):
            raise RuleError("SR-5", "the first-player card is held by seat 0, 1 or 2 (players 1..3)")
        self.length = length
        self.players = list(players)
        self.hands_total = HANDS[length]
        self.first0 = first
        self._restart()

    def _restart(self):
        self._rows = []      # finished hands, one bytearray each (layout above)
        self.held = [contract_cards(self.length) for _ in range(3)]
        self.completed = [[], [], []]   # normal contracts played, in order (SR-17)
        self.sheet = [{}, {}, {}]       # contract -> score on the sheet
        self.perfects = [0, 0, 0]       # Perfect Bonuses on the sheet (SR-26)
        self.totals = [0, 0, 0]
        self.over = False
        self.first = self.first0
        self._new_hand()

    def _new_hand(self):
        self.trump = None
        self.ranking = None
        self.winners_seq = bytearray()  # seat that won each trick, in order
        self.tricks = [0, 0, 0]
        self.revealed = [None, None, None]  # contract shown face up, per seat
        self._log = []  # this hand's entry codes (_E_...), in order

    # -- who does what -------------------------------------------------------
    def choosers(self):
        """(first player, next clockwise): one picks trump or ranking, the other the rest (SR-7)."""
        return (self.first, (self.first + 1) % 3)

    def leader(self):
        """The player who chose nothing leads the first trick (SR-8)."""
        return (self.first + 2) % 3

    def next_leader(self):
        """Who leads the next trick: the last trick's winner (SR-8)."""
        if self.winners_seq:
            return self.winners_seq[-1]
        return self.leader()

    def tricks_played(self):
        return self.tricks[0] + self.tricks[1] + self.tricks[2]

    @property
    def phase(self):
        if self.over:
            return "over"
        if self.tricks_played() == 12:
            return "score"
        if self.ranking is not None or self.tricks_played():
            return "play"
        return "choose"

    @property
    def hands_played(self):
        return len(self._rows)

    def _who(self, seat):
        # seats as people count them, from 1 (SR-29): seat 0 is "player 1 (Ann)"
        return "player %d (%s)" % (seat + 1, self.players[seat])

    def _where(self, seat=None):
        n = len(self._rows) + 1
        if seat is None:
            return "hand %d, all players: " % n
        return "hand %d, %s: " % (n, self._who(seat))

    def _error(self, rule, msg, seat=None):
        # the RuleError to raise, its message saying where (hand, seat)
        return RuleError(rule, self._where(seat) + msg)

    def _need(self, phase, rule, what):
        if self.over:
            raise self._error("SR-28", "the game is over")
        if self.phase != phase:
            raise RuleError(rule, self._where() + what)

    # -- the hand as it is played -------------------------------------------
    def set_choices(self, trump, ranking):
        self._need("choose", "SR-7", "trump and ranking are already set")
        if trump not in TRUMPS:
            raise self._error("SR-7", "trump %r is not one of %s" % (trump, ", ".join(TRUMPS)))
        if ranking not in RANKINGS:
            raise self._error("SR-9", "ranking %r is not one of %s" % (ranking, ", ".join(RANKINGS)))
        self.trump = trump
        self.ranking = ranking
        self._log.append(_E_CHOICES)

    def direction(self, n=None):
        """10 or 1 for trick n (default: the next trick), under the ranking set."""
        if self.ranking is None:
            raise self._error("SR-9", "no ranking set yet")
        if n is None:
            n = self.tricks_played() + 1
        if n < 1 or n > 12:
            raise self._error("SR-12", "a hand has tricks 1 to 12, not %r" % (n,))
        return direction(self.ranking, n)

    def record_trick(self, seat):
        if self.ranking is None and not self.over:
            raise self._error("SR-7", "set trump and ranking before the first trick")
        self._need("play", "SR-12", "all twelve tricks are already in")
        if seat not in (0, 1, 2):
            raise self._error("SR-11", "a trick is won by seat 0, 1 or 2 (players 1..3)")
        self.winners_seq.append(seat)
        self.tricks[seat] += 1
        self._log.append(_E_TRICK + seat)

    def undo_trick(self):
        """Take back the last trick recorded (reveals made since then stay)."""
        i = len(self._log) - 1
        while i >= 0 and self._log[i] >= _E_REVEAL:
            i -= 1
        if i < 0:
            raise self._error("SR-12", "no trick to take back")
        seat = self._log.pop(i) - _E_TRICK
        self.winners_seq = self.winners_seq[:-1]
        self.tricks[seat] -= 1

    def set_tricks(self, counts):
        """Enter the three trick counts at once (the referee counted the piles)."""
        self._need("play", "SR-12", "trick counts can be entered only before any trick is recorded")
        if self.tricks_played():
            raise self._error("SR-12", "tricks already recorded one by one")
        bad = _bad_tricks(counts)
        if bad:
            raise self._error("SR-12", bad)
        self.tricks = list(counts)
        self.winners_seq = None
        self._log.append(_E_COUNTS)

    def reveal(self, seat, contract):
        """Turn a contract face up during the hand: it will score double (SR-21)."""
        if seat not in (0, 1, 2):
            raise self._error("SR-1", "seats are 0, 1 and 2 (players 1..3)")
        if self.ranking is None and not self.over:
            raise self._error("SR-21", "contracts go down after trump and ranking are set", seat)
        self._need("play", "SR-21", "reveals end when the twelfth trick is played")
        if self.revealed[seat] is not None:
            raise self._error("SR-21", "already revealed", seat)
        if contract == "PASS":
            raise self._error("SR-22", "a Pass cannot be revealed", seat)
        if isinstance(contract, str) and contract[:5] == "FOUL:":
            raise self._error("SR-30", _NO_FOUL_REVEAL, seat)
        if contract != "REDO":
            self._check(seat, contract, False, self._where(seat))
        elif not self._redo_ok(seat):
            raise self._error("SR-19", "no Redo card, or nothing completed to redo", seat)
        self.revealed[seat] = contract
        self._log.append((_E_REVEAL_REDO if contract == "REDO" else _E_REVEAL) + seat)

    # -- contracts ------------------------------------------------------------
    def _redo_ok(self, seat):
        return "REDO" in self.held[seat] and len(self.completed[seat]) > 0

    def legal_contracts(self, seat):
        """The contracts this seat may play this hand (SR-13, SR-19, SR-21)."""
        r = self.revealed[seat]
        if r is not None:
            return ["REDO"] if r[:4] == "REDO" else [r]
        out = []
        for c in self.held[seat]:
            if c not in out and (c != "REDO" or self._redo_ok(seat)):
                out.append(c)
        return out

    def foul_cards(self, seat):
        """Contract cards of this length that `seat` may not play now (SR-30):
        turned over at scoring, one is a foul, never replaced by a legal one.
        (A completed normal contract has left the hand.)"""
        out = []
        for c in contract_cards(self.length):
            if c not in out and (not self._redo_ok(seat) if c == "REDO" else c not in self.held[seat]):
                out.append(c)
        return out

    def redo_targets(self, seat):
        """The completed contracts a Redo may name (SR-19)."""
        r = self.revealed[seat]
        if r is not None and r[:5] == "REDO:":
            return [r[5:]]
        return list(self.completed[seat])

    def _check(self, seat, c, revealed, where):
        """RuleError if `c` is not a contract `seat` may play now."""
        if not isinstance(c, str):
            raise RuleError("SR-3", where + "contract %r is not a contract name" % (c,))
        if c[:5] == "FOUL:":
            if revealed:
                raise RuleError("SR-30", where + _NO_FOUL_REVEAL)
            if c[5:] not in self.foul_cards(seat):
                if c[5:] in contract_cards(self.length):
                    raise RuleError("SR-30", where + "%s: %s may be played, so it is no foul" % (c, c[5:]))
                raise RuleError("SR-30", where + "%s: %s is no contract card of a %s game"
                                % (c, c[5:], self.length))
        elif c == "PASS":
            if "PASS" not in self.held[seat]:
                raise RuleError("SR-13", where + "PASS is not in that player's hand")
            if revealed:
                raise RuleError("SR-22", where + "a Pass cannot be revealed")
        elif c[:5] == "REDO:":
            if "REDO" not in self.held[seat]:
                raise RuleError("SR-13", where + "REDO is not in that player's hand")
            if c[5:] not in self.completed[seat]:
                raise RuleError("SR-19", where + "%s names %s, which that player has not completed" % (c, c[5:]))
        elif c in NORMAL:
            if c in self.completed[seat]:
                raise RuleError("SR-13", where + "%s was already completed (only a Redo can play it again)" % c)
            if c not in self.held[seat]:
                raise RuleError("SR-13", where + "%s is not in that player's hand" % c)
        else:
            raise RuleError("SR-3", where + "%r is not a contract" % (c,))

    def finish_hand(self, contracts):
        """Score the hand: the three contracts, as turned over (SR-14..SR-23)."""
        self._need("score", "SR-12", "the hand has %d of 12 tricks" % self.tricks_played())
        if not isinstance(contracts, (list, tuple)) or len(contracts) != 3:
            raise self._error("SR-13", "one contract per player")
        for s in range(3):
            r = self.revealed[s]
            c = contracts[s]
            if r is not None and not (c == r or (r == "REDO" and isinstance(c, str) and c[:5] == "REDO:")):
                raise self._error("SR-21", "revealed %s but played %r" % (r, c), s)
        flags = [r is not None for r in self.revealed]
        return self._score(self.tricks, list(contracts), flags, self.trump, self.ranking, self._log)

    def _score(self, tricks, contracts, revealed, trump, ranking, log, first=None):
        # Check all three first: a RuleError leaves the game unchanged.
        for s in range(3):
            if revealed[s] is not True and revealed[s] is not False:
                raise self._error("SR-29", "revealed must be true or false", s)
            self._check(s, contracts[s], revealed[s], self._where(s))
        if first is not None and first != self.first:
            self.first0 = self.first = first  # hand 1 of a record: whoever got the card
        row = bytearray(_LOG + len(log))
        results = [None, None, None]
        for s in range(3):
            c = contracts[s]
            row[_TRICKS + s] = tricks[s]
            row[_CONTRACTS + s] = contract_code(c)
            if revealed[s]:
                row[_REVEALED] |= 1 << s
            row[_WRITTEN + s] = row[_KEPT + s] = row[_DELTA + s] = _SCORE_BIAS
            if c == "PASS":  # writes nothing (SR-18)
                self.held[s].remove("PASS")
                continue
            if c[:5] == "FOUL:":  # SR-30: the worst unrevealed score, nothing completed
                if c[5:] in self.held[s]:
                    self.held[s].remove(c[5:])  # the card played leaves the hand
                self.totals[s] += FOUL_SCORE
                results[s] = FOUL_SCORE
                row[_WRITTEN + s] = row[_KEPT + s] = row[_DELTA + s] = FOUL_SCORE + _SCORE_BIAS
                continue
            name = c[5:] if c[:5] == "REDO:" else c
            d = difference(name, tricks, s)
            new = score(d, revealed[s])
            if c[:5] != "REDO:":
                if d == 0:
                    self.perfects[s] += 1  # SR-26: a Perfect Bonus on the sheet
                self.held[s].remove(c)
                self.completed[s].append(c)
                self.sheet[s][c] = new
                kept = delta = new
            else:  # Redo: the sheet keeps the lower of old and new (SR-20, SR-23)
                self.held[s].remove("REDO")
                old = self.sheet[s][name]
                kept = new if new < old else old
                self.sheet[s][name] = kept
                if kept < 0 <= old:
                    self.perfects[s] += 1  # SR-26: the sheet now holds a Perfect Bonus
                delta = kept - old
            self.totals[s] += delta
            results[s] = new
            row[_WRITTEN + s] = new + _SCORE_BIAS
            row[_KEPT + s] = kept + _SCORE_BIAS
            row[_DELTA + s] = delta + _SCORE_BIAS
        row[_FIRST] = self.first
        row[_TRUMP] = _NOT_SET if trump is None else TRUMPS.index(trump)
        row[_RANKING] = _NOT_SET if ranking is None else RANKINGS.index(ranking)
        for i in range(len(log)):
            row[_LOG + i] = log[i]
        self._rows.append(row)
        if len(self._rows) == self.hands_total:
            self.over = True
        elif self._only_passes():  # SR-28
            self.over = True
        self.first = (self.first + 1) % 3  # the first-player card moves clockwise (SR-5)
        self._new_hand()
        return results

    def _only_passes(self):
        for s in range(3):
            for c in self.held[s]:
                if c != "PASS":
                    return False
        return True

    # -- undo ----------------------------------------------------------------
    def undo(self):
        """Take back the last entry: a reveal, trick, the choices, or a finished hand."""
        if self._log:
            e = self._log.pop()
            if e == _E_CHOICES:
                self.trump = None
                self.ranking = None
            elif e == _E_COUNTS:
                self.tricks = [0, 0, 0]
                self.winners_seq = bytearray()
            elif e < _E_REVEAL:
                self.winners_seq = self.winners_seq[:-1]
                self.tricks[e - _E_TRICK] -= 1
            else:
                self.revealed[(e - _E_REVEAL) % 3] = None
            return
        if not self._rows:
            raise RuleError("SR-29", "nothing to undo")
        # Reopen the last hand at its scoring step: rebuild the sheet from the
        # hands before it (all checked once), then put back that hand's entries.
        rows = self._rows[:-1]
        last = self._rows[-1]
        self._restart()
        for row in rows:
            h = _unrow(row)
            self._score(h[0], h[1], h[2], h[3], h[4], row[_LOG:], row[_FIRST])
        trump, ranking = _choices(last)
        for e in last[_LOG:]:
            if e == _E_CHOICES:
                self.trump = trump
                self.ranking = ranking
            elif e == _E_COUNTS:
                self.tricks = [last[_TRICKS], last[_TRICKS + 1], last[_TRICKS + 2]]
                self.winners_seq = None
            elif e < _E_REVEAL:
                self.winners_seq.append(e - _E_TRICK)
                self.tricks[e - _E_TRICK] += 1
            elif e < _E_REVEAL_REDO:
                s = e - _E_REVEAL
                self.revealed[s] = contract_name(last[_CONTRACTS + s])
            else:
                self.revealed[e - _E_REVEAL_REDO] = "REDO"
        self._log = list(last[_LOG:])

    # -- the sheet -----------------------------------------------------------
    @property
    def ended_early(self):
        """Fewer hands than the length (SR-28): the all-Pass end, or a record
        that stops before the last hand (then the game is not over)."""
        return len(self._rows) < self.hands_total

    def winners(self):
        return self._decide()[0]

    @property
    def tiebreak(self):
        return self._decide()[1]

    def _decide(self):
        """Lowest total (SR-24), then more completed contracts (SR-25), then more
        Perfect Bonuses (SR-26), then shared (SR-27)."""
        best = min(self.totals)
        seats = [s for s in range(3) if self.totals[s] == best]
        if len(seats) == 1:
            return seats, "lowest total"
        keys = (("more completed contracts", [len(c) for c in self.completed]),
                ("more Perfect Bonuses", self.perfects))
        for why, k in keys:
            top = max(k[s] for s in seats)
            seats = [s for s in seats if k[s] == top]
            if len(seats) == 1:
                return seats, why
        return seats, "shared"

    def rows(self):
        out = []
        running = [0, 0, 0]
        for i in range(len(self._rows)):
            row = self._rows[i]
            cells = []
            for s in range(3):
                code = row[_CONTRACTS + s]
                c = contract_name(code)
                star = "*" if row[_REVEALED] >> s & 1 else ""
                t = row[_TRICKS + s]
                written = row[_WRITTEN + s] - _SCORE_BIAS
                running[s] += row[_DELTA + s] - _SCORE_BIAS
                if c == "PASS":
                    cells.append("PASS")
                elif _REDO_CODE <= code < _FOUL_CODE:
                    cells.append("%s%s %d: %d keeps %d" % (c, star, t, written, row[_KEPT + s] - _SCORE_BIAS))
                else:
                    cells.append("%s%s %d: %d" % (c, star, t, written))
            out.append(("hand %d" % (i + 1), cells, list(running)))
        return out

    def hand(self, i):
        """Finished hand i (0-based; -1 is the last) as its record dict."""
        row = self._rows[i]
        tricks, contracts, revealed, trump, ranking = _unrow(row)
        h = {"tricks": tricks, "contracts": contracts, "revealed": revealed, "first": row[_FIRST]}
        if trump is not None:
            h["trump"] = trump
        if ranking is not None:
            h["ranking"] = ranking
        return h

    @property
    def hands(self):
        """Every finished hand as its record dict (built on each call)."""
        return [self.hand(i) for i in range(len(self._rows))]

    def to_record(self):
        return {"game": "speedrun", "length": self.length, "players": list(self.players),
                "hands": self.hands}

    def _replay_hand(self, h):
        """Score one record hand; RuleError (state unchanged) if it is invalid."""
        where = self._where()
        if self.over:
            raise RuleError("SR-28", where + "the game was already over")
        if not isinstance(h, dict):
            raise RuleError("SR-29", where + "a hand is a JSON object")
        tricks = h.get("tricks")
        bad = _bad_tricks(tricks)
        if bad:
            raise RuleError("SR-12", where + bad)
        contracts = h.get("contracts")
        if not isinstance(contracts, list) or len(contracts) != 3:
            raise RuleError("SR-13", where + "contracts must list one contract per player")
        revealed = h.get("revealed", [False, False, False])
        if not isinstance(revealed, list) or len(revealed) != 3:
            raise RuleError("SR-29", where + "revealed must list three true/false values")
        first = h.get("first", self.first)
        if not is_int(first) or first not in (0, 1, 2) or (self._rows and first != self.first):
            # players counted from 1 (SR-29); "first" itself is a seat index 0..2
            said = self._who(first) if is_int(first) and first in (0, 1, 2) else repr(first)
            if not self._rows:
                raise RuleError("SR-5", where + '"first" is a seat 0..2 (players 1..3), not %s' % said)
            raise RuleError("SR-5", where + "the first-player card is with %s (it passes clockwise), "
                            "not %s" % (self._who(self.first), said))
        trump = h.get("trump")
        if trump is not None and trump not in TRUMPS:
            raise RuleError("SR-7", where + "trump %r is not one of %s" % (trump, ", ".join(TRUMPS)))
        ranking = h.get("ranking")
        if ranking is not None and ranking not in RANKINGS:
            raise RuleError("SR-9", where + "ranking %r is not one of %s" % (ranking, ", ".join(RANKINGS)))
        # The entries a referee would have made for this hand (for undo).
        log = []
        if ranking is not None:
            log.append(_E_CHOICES)
        for s in range(3):
            if revealed[s] is True:
                log.append(_E_REVEAL + s)
        log.append(_E_COUNTS)
        self._score(tricks, contracts, revealed, trump, ranking, log, first)


def _choices(row):
    """(trump, ranking) of a row, None where the record had none."""
    t = row[_TRUMP]
    r = row[_RANKING]
    return (None if t == _NOT_SET else TRUMPS[t]), (None if r == _NOT_SET else RANKINGS[r])


def _unrow(row):
    """A row's (tricks, contracts, revealed, trump, ranking), as the record has them."""
    trump, ranking = _choices(row)
    return ([row[_TRICKS], row[_TRICKS + 1], row[_TRICKS + 2]],
            [contract_name(row[_CONTRACTS + s]) for s in range(3)],
            [row[_REVEALED] >> s & 1 == 1 for s in range(3)],
            trump, ranking)


def _bad_tricks(t):
    """Why a list of trick counts is impossible (SR-12), or None."""
    if not isinstance(t, (list, tuple)) or len(t) != 3:
        return "tricks must list three counts"
    for n in t:
        if not is_int(n) or n < 0:
            return "trick counts must be whole numbers, not %r" % (n,)
    if t[0] + t[1] + t[2] != 12:
        return "tricks %d+%d+%d add up to %d, not 12" % (t[0], t[1], t[2], t[0] + t[1] + t[2])
    return None


def replay(record):
    """Check a canonical record and return its scored game (the sheet)."""
    if not isinstance(record, dict) or record.get("game") != "speedrun":
        raise RuleError("SR-29", "record: not a Speed Run record")
    hands = record.get("hands")
    if not isinstance(hands, list):
        raise RuleError("SR-29", "record: hands must be a list")
    g = SpeedRunGame(record.get("length"), record.get("players"))
    for h in hands:
        g._replay_hand(h)
    return g
