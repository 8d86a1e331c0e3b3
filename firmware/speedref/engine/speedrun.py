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
    g.finish_hand([c0, c1, c2]) -> [score written or None (Pass)] * 3
    g.undo()                             take back the last entry (a finished hand too)
    g.phase()                            CHOOSE, PLAY, SCORE or OVER
    sheet interface (records.py): players, totals, hands_played, ended_early,
    winners(), tiebreak, rows(), to_record();  replay(record) -> SpeedRunGame
"""
from speedref.engine.errors import RuleError

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

CHOOSE = const(0)  # waiting for trump and ranking
PLAY = const(1)    # contracts are down, tricks being played
SCORE = const(2)   # twelve tricks in: waiting for the three contracts
OVER = const(3)

HANDS = {"short": 6, "medium": 9, "long": 12}
TRUMPS = ("earthworms", "raccoons", "geckos", "gorillas", "none")
RANKINGS = ("10-high", "1-high", "slalom-10", "slalom-1", "bell-10", "bell-1")
NORMAL = ("W0", "W1", "W4", "W5", "W7", "W9", "FEWEST", "MIDDLE", "MOST")
PLACES = ("FEWEST", "MIDDLE", "MOST")


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
        if not isinstance(players, (list, tuple)) or len(players) != 3:
            raise RuleError("SR-1", "Speed Run needs exactly three players")
        for p in players:
            if not isinstance(p, str):
                raise RuleError("SR-1", "player names are strings")
        if first not in (0, 1, 2) or first is True or first is False:
            raise RuleError("SR-5", "the first-player card is held by seat 0, 1 or 2")
        self.length = length
        self.players = list(players)
        self.hands_total = HANDS[length]
        self.first0 = first
        self._restart()

    def _restart(self):
        self.hands = []      # finished hands, canonical record dicts
        self._logs = []      # each finished hand's entry log (for undo)
        self._results = []   # per finished hand: [(diff, written, kept) or None] * 3
        self._running = []   # running totals after each finished hand
        self.held = [contract_cards(self.length) for _ in range(3)]
        self.completed = [[], [], []]   # normal contracts played, in order (SR-17)
        self.sheet = [{}, {}, {}]       # contract -> score on the sheet
        self.perfects = [0, 0, 0]       # hands hit exactly, Redo included (SR-26)
        self.totals = [0, 0, 0]
        self.ended_early = False
        self.over = False
        self.first = self.first0
        self._new_hand()

    def _new_hand(self):
        self.trump = None
        self.ranking = None
        self.winners_seq = bytearray()  # seat that won each trick, in order
        self.tricks = [0, 0, 0]
        self.revealed = [None, None, None]  # contract shown face up, per seat
        self._log = []

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

    def phase(self):
        if self.over:
            return OVER
        if self.tricks_played() == 12:
            return SCORE
        if self.ranking is not None or self.tricks_played():
            return PLAY
        return CHOOSE

    @property
    def hands_played(self):
        return len(self.hands)

    def _where(self, seat=None):
        n = len(self.hands) + 1
        if seat is None:
            return "hand %d, all players: " % n
        return "hand %d, player %d (%s): " % (n, seat + 1, self.players[seat])

    def _need(self, phase, rule, what):
        if self.over:
            raise RuleError("SR-28", self._where() + "the game is over")
        if self.phase() != phase:
            raise RuleError(rule, self._where() + what)

    # -- the hand as it is played -------------------------------------------
    def set_choices(self, trump, ranking):
        self._need(CHOOSE, "SR-7", "trump and ranking are already set")
        if trump not in TRUMPS:
            raise RuleError("SR-7", self._where() + "trump %r is not one of %s" % (trump, ", ".join(TRUMPS)))
        if ranking not in RANKINGS:
            raise RuleError("SR-9", self._where() + "ranking %r is not one of %s" % (ranking, ", ".join(RANKINGS)))
        self.trump = trump
        self.ranking = ranking
        self._log.append(("c", trump, ranking))

    def direction(self, n=None):
        """10 or 1 for trick n (default: the next trick), under the ranking set."""
        if self.ranking is None:
            raise RuleError("SR-9", self._where() + "no ranking set yet")
        if n is None:
            n = self.tricks_played() + 1
        if n < 1 or n > 12:
            raise RuleError("SR-12", self._where() + "a hand has tricks 1 to 12, not %r" % (n,))
        return direction(self.ranking, n)

    def record_trick(self, seat):
        if self.ranking is None and not self.over:
            raise RuleError("SR-7", self._where() + "set trump and ranking before the first trick")
        self._need(PLAY, "SR-12", "all twelve tricks are already in")
        if seat not in (0, 1, 2):
            raise RuleError("SR-11", self._where() + "a trick is won by seat 0, 1 or 2")
        self.winners_seq.append(seat)
        self.tricks[seat] += 1
        self._log.append(("t", seat))

    def undo_trick(self):
        """Take back the last trick recorded (reveals made since then stay)."""
        i = len(self._log) - 1
        while i >= 0 and self._log[i][0] != "t":
            i -= 1
        if i < 0:
            raise RuleError("SR-12", self._where() + "no trick to take back")
        seat = self._log.pop(i)[1]
        self.winners_seq = self.winners_seq[:-1]
        self.tricks[seat] -= 1

    def set_tricks(self, counts):
        """Enter the three trick counts at once (the referee counted the piles)."""
        self._need(PLAY, "SR-12", "trick counts can be entered only before any trick is recorded")
        if self.tricks_played():
            raise RuleError("SR-12", self._where() + "tricks already recorded one by one")
        bad = _bad_tricks(counts)
        if bad:
            raise RuleError("SR-12", self._where() + bad)
        self.tricks = list(counts)
        self.winners_seq = None
        self._log.append(("k", list(counts)))

    def reveal(self, seat, contract):
        """Turn a contract face up during the hand: it will score double (SR-21)."""
        if seat not in (0, 1, 2):
            raise RuleError("SR-1", self._where() + "seats are 0, 1 and 2")
        if self.ranking is None and not self.over:
            raise RuleError("SR-21", self._where(seat) + "contracts go down after trump and ranking are set")
        self._need(PLAY, "SR-21", "reveals end when the twelfth trick is played")
        if self.revealed[seat] is not None:
            raise RuleError("SR-21", self._where(seat) + "already revealed")
        if contract == "PASS":
            raise RuleError("SR-22", self._where(seat) + "a Pass cannot be revealed")
        if contract != "REDO":
            self._check(seat, contract, False, self._where(seat))
        elif not self._redo_ok(seat):
            raise RuleError("SR-19", self._where(seat) + "no Redo card, or nothing completed to redo")
        self.revealed[seat] = contract
        self._log.append(("r", seat, contract))

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
        if c == "PASS":
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
        self._need(SCORE, "SR-12", "the hand has %d of 12 tricks" % self.tricks_played())
        if not isinstance(contracts, (list, tuple)) or len(contracts) != 3:
            raise RuleError("SR-13", self._where() + "one contract per player")
        for s in range(3):
            r = self.revealed[s]
            c = contracts[s]
            if r is not None and not (c == r or (r == "REDO" and isinstance(c, str) and c[:5] == "REDO:")):
                raise RuleError("SR-21", self._where(s) + "revealed %s but played %r" % (r, c))
        flags = [r is not None for r in self.revealed]
        return self._score(self.tricks, list(contracts), flags, self.trump, self.ranking, self._log)

    def _score(self, tricks, contracts, revealed, trump, ranking, log, first=None):
        # Check all three first: a RuleError leaves the game unchanged.
        for s in range(3):
            if revealed[s] is not True and revealed[s] is not False:
                raise RuleError("SR-29", self._where(s) + "revealed must be true or false")
            self._check(s, contracts[s], revealed[s], self._where(s))
        if first is not None and first != self.first:
            self.first0 = self.first = first  # hand 1 of a record: whoever got the card
        results = []
        for s in range(3):
            c = contracts[s]
            if c == "PASS":  # writes nothing (SR-18)
                self.held[s].remove("PASS")
                results.append(None)
                continue
            name = c[5:] if c[:5] == "REDO:" else c
            d = difference(name, tricks, s)
            new = score(d, revealed[s])
            if d == 0:
                self.perfects[s] += 1
            if c[:5] != "REDO:":
                self.held[s].remove(c)
                self.completed[s].append(c)
                self.sheet[s][c] = new
                kept = new
                self.totals[s] += new
            else:  # Redo: the sheet keeps the lower of old and new (SR-20, SR-23)
                self.held[s].remove("REDO")
                old = self.sheet[s][name]
                kept = new if new < old else old
                self.sheet[s][name] = kept
                self.totals[s] += kept - old
            results.append((d, new, kept))
        h = {"tricks": list(tricks), "contracts": list(contracts), "revealed": list(revealed),
             "first": self.first}
        if trump is not None:
            h["trump"] = trump
        if ranking is not None:
            h["ranking"] = ranking
        self.hands.append(h)
        self._logs.append(log)
        self._results.append(results)
        self._running.append(list(self.totals))
        if len(self.hands) == self.hands_total:
            self.over = True
        elif self._only_passes():  # SR-28
            self.over = True
            self.ended_early = True
        self.first = (self.first + 1) % 3  # the first-player card moves clockwise (SR-5)
        self._new_hand()
        return [None if r is None else r[1] for r in results]

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
            k = e[0]
            if k == "c":
                self.trump = None
                self.ranking = None
            elif k == "t":
                self.winners_seq = self.winners_seq[:-1]
                self.tricks[e[1]] -= 1
            elif k == "k":
                self.tricks = [0, 0, 0]
                self.winners_seq = bytearray()
            else:
                self.revealed[e[1]] = None
            return
        if not self.hands:
            raise RuleError("SR-29", "nothing to undo")
        # Reopen the last hand at its scoring step: rebuild the sheet from the
        # hands before it, then put back that hand's entries (all checked once).
        hands = self.hands[:-1]
        logs = self._logs[:-1]
        last = self._logs[-1]
        self._restart()
        for i in range(len(hands)):
            self._replay_hand(hands[i], logs[i])
        for e in last:
            k = e[0]
            if k == "c":
                self.trump = e[1]
                self.ranking = e[2]
            elif k == "t":
                self.winners_seq.append(e[1])
                self.tricks[e[1]] += 1
            elif k == "k":
                self.tricks = list(e[1])
                self.winners_seq = None
            else:
                self.revealed[e[1]] = e[2]
        self._log = list(last)

    # -- the sheet -----------------------------------------------------------
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
        for i in range(len(self.hands)):
            h = self.hands[i]
            cells = []
            for s in range(3):
                c = h["contracts"][s]
                r = self._results[i][s]
                star = "*" if h["revealed"][s] else ""
                if r is None:
                    cells.append("PASS")
                elif c[:5] == "REDO:":
                    cells.append("%s%s %d: %d keeps %d" % (c, star, h["tricks"][s], r[1], r[2]))
                else:
                    cells.append("%s%s %d: %d" % (c, star, h["tricks"][s], r[1]))
            out.append(("hand %d" % (i + 1), cells, self._running[i]))
        return out

    def to_record(self):
        return {"game": "speedrun", "length": self.length, "players": list(self.players),
                "hands": [dict(h) for h in self.hands]}

    def _replay_hand(self, h, log=None):
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
        if isinstance(first, bool) or first not in (0, 1, 2) or (self.hands and first != self.first):
            raise RuleError("SR-5", where + "first player is seat %d (the card passes clockwise), not %r"
                            % (self.first, first))
        trump = h.get("trump")
        if trump is not None and trump not in TRUMPS:
            raise RuleError("SR-7", where + "trump %r is not one of %s" % (trump, ", ".join(TRUMPS)))
        ranking = h.get("ranking")
        if ranking is not None and ranking not in RANKINGS:
            raise RuleError("SR-9", where + "ranking %r is not one of %s" % (ranking, ", ".join(RANKINGS)))
        if log is None:
            log = []
            if ranking is not None:
                log.append(("c", trump, ranking))
            for s in range(3):
                if revealed[s] is True:
                    log.append(("r", s, contracts[s]))
            log.append(("k", list(tricks)))
        self._score(tricks, contracts, revealed, trump, ranking, log, first)


def _bad_tricks(t):
    """Why a list of trick counts is impossible (SR-12), or None."""
    if not isinstance(t, (list, tuple)) or len(t) != 3:
        return "tricks must list three counts"
    for n in t:
        if not isinstance(n, int) or n is True or n is False or n < 0:
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
