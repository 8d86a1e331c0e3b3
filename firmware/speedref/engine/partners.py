# partners (seed 003), TABLE level: what the referee knows at a real table.
# No cards here: the table tells the referee the contract, the partner and who
# won each trick; this module keeps the seats, scores each hand (PT-14..PT-16),
# keeps the running totals and says when the game is over (PT-18..PT-20).
# The rules are numbered in seeds/partners.md.
"""Table-level referee for partners, the seed-003 display-card game.

API (all indices are PLAYER indices into `players`, except where "seat" is said):

  g = PartnersGame(target, players, dealer=0)
  g.players, g.target        the 4 names, the target score
  g.dealer                   player who deals the current hand (PT-3, PT-17)
  g.seats                    bytearray: g.seats[seat] = player sitting there
  g.seat_of(player)          the seat a player sits in
  g.swap_for(contractor, partner)
                             None if the partner already sits opposite, else
                             (partner, other): those two exchange seats (PT-8)
  g.contract_possible(bid, trump, contractor)
                             can an auction the dealer opened end so (PT-24)?
  g.set_contract(bid, trump, contractor, partner)
                             enter the final bid (bid 7..13, trump one of
                             TRUMPS) and the partner; applies the seat swap
                             and returns the same value as swap_for
  g.contract                 None or (bid, trump, contractor, partner)
  g.trick(player)            record one trick won by a player
  g.trick_at_seat(seat)      the same, by the seat the winner sits in
  g.tricks                   list of 4 trick counts in the current hand
  g.tricks_played            how many tricks so far this hand (0..13)
  g.finish_hand()            after 13 tricks: score the hand, add to the totals,
                             next dealer = contractor; returns the 4 scores
  g.undo()                   undo the last entry (a trick, the contract with its
                             seat swap, or a finished hand); returns what it undid
  g.last_hand()              (hand dict, 4 scores, doubled) of the last hand
  g.phase                    "contract" (the bid and partner, PT-7, PT-8) -> "play"
                             (tricks, PT-13) -> "score" (13 tricks in: finish_hand(),
                             PT-14) -> "contract" ... -> "over" (PT-18, PT-19)
  g.over                     phase == "over"
  sheet interface (records.py): players, totals, hands_played, ended_early,
  winners(), tiebreak, rows(), to_record()

  hand_scores(bid, contractor, partner, tricks) -> (4 scores, doubled)
  replay(record) -> PartnersGame   (RuleError "hand N, player i (name): ...")

Every illegal entry raises RuleError and leaves the game unchanged.
"""
from .errors import RuleError, is_int

# Trump names in suit order (cards.py suits 0..3), then notrump (index 4).
TRUMPS = ("clubs", "diamonds", "hearts", "spades", "notrump")
MIN_BID = 7
TRICKS = 13
DOUBLE_AT = 20


def hand_scores(bid, contractor, partner, tricks):
    """The 4 players' scores for one hand and whether they were doubled.

    PT-14 made: contractor and partner score the bid; everyone scores 1 a trick.
    PT-15 failed: contractor and partner 0; defenders the bid plus tricks squared.
    PT-16 doubled when the contract side took all 13, or any score is 20+.
    """
    side = tricks[contractor] + tricks[partner]
    scores = [0, 0, 0, 0]
    for p in range(4):
        mine = p == contractor or p == partner
        if side >= bid:
            scores[p] = tricks[p] + (bid if mine else 0)
        elif not mine:
            scores[p] = bid + tricks[p] * tricks[p]
    doubled = side == TRICKS or max(scores) >= DOUBLE_AT
    if doubled:
        for p in range(4):
            scores[p] *= 2
    return scores, doubled


class PartnersGame:
    def __init__(self, target, players, dealer=0):
        if not is_int(target) or target < 1:
            raise RuleError("PT-18", "the target must be a positive whole number, not %r" % (target,))
        if not isinstance(players, (list, tuple)) or len(players) != 4:
            raise RuleError("PT-1", "partners needs exactly 4 players")
        for n in players:
            if not isinstance(n, str) or not n:
                raise RuleError("PT-21", "player names must be non-empty strings, not %r" % (n,))
        if not is_int(dealer) or not 0 <= dealer < 4:
            raise RuleError("PT-3", "the dealer must be a player index 0..3")
        self.target = target
        self.players = list(players)
        self.totals = [0, 0, 0, 0]
        self.seats = bytearray(range(4))  # PT-1: player i starts in seat i
        self.dealer = dealer
        self.contract = None
        self.swap = None
        self.winners_seq = bytearray()  # trick winners (players) of the current hand
        self.tricks = [0, 0, 0, 0]
        self.over = False
        # One entry per finished hand: (hand dict, scores, doubled, swap, winners_seq).
        self._done = []

    # ---- seats -------------------------------------------------------------
    def who(self, p):
        """Player index p as people count them, from 1 (PT-22): "player 1 (Ann)"."""
        return "player %d (%s)" % (p + 1, self.players[p])

    def seat_of(self, player):
        for s in range(4):
            if self.seats[s] == player:
                return s
        raise RuleError("PT-1", "no player %r at the table" % (player,))

    def swap_for(self, contractor, partner):
        opposite = self.seats[(self.seat_of(contractor) + 2) % 4]
        if opposite == partner:
            return None
        return (partner, opposite)

    def _exchange(self, swap):
        if swap is not None:
            a = self.seat_of(swap[0])
            b = self.seat_of(swap[1])
            self.seats[a], self.seats[b] = self.seats[b], self.seats[a]

    # ---- entries -----------------------------------------------------------
    @property
    def hands_played(self):
        return len(self._done)

    @property
    def tricks_played(self):
        return len(self.winners_seq)

    @property
    def phase(self):
        if self.over:
            return "over"
        if self.contract is None:
            return "contract"
        return "score" if len(self.winners_seq) == TRICKS else "play"

    def _player(self, p, rule, what, by=None):
        if not is_int(p) or not 0 <= p < 4:
            raise RuleError(rule, "%sthe %s must be a player index 0..3 (players 1..4), not %r"
                            % ("" if by is None else self.who(by) + ": ", what, p))

    def contract_possible(self, bid, trump, contractor):
        """PT-24: the dealer opens at 7 or more (PT-6) and every later bid is
        bigger (PT-5), so 7 in a suit is the dealer's contract only."""
        return bid != MIN_BID or trump == TRUMPS[4] or contractor == self.dealer

    def set_contract(self, bid, trump, contractor, partner):
        """The auction's result (PT-7) and the partner (PT-8); returns the seat swap."""
        if self.over:
            raise RuleError("PT-18", "the game is over: no more hands")
        self._player(contractor, "PT-7", "contractor")
        if self.contract is not None:
            raise RuleError("PT-7", self.who(contractor) + ": this hand already has a contract")
        if not is_int(bid) or not MIN_BID <= bid <= TRICKS:
            raise RuleError("PT-4", "%s: a bid is 7..13 tricks, not %r" % (self.who(contractor), bid))
        if trump not in TRUMPS:
            raise RuleError("PT-4", "%s: trump must be one of %s, not %r"
                            % (self.who(contractor), ", ".join(TRUMPS), trump))
        self._player(partner, "PT-8", "partner", contractor)
        if partner == contractor:
            raise RuleError("PT-8", self.who(contractor) + ": the contractor cannot be their own partner")
        if not self.contract_possible(bid, trump, contractor):
            raise RuleError("PT-24", "%s: only the dealer, %s, can win the auction at 7 %s: the "
                            "dealer opens at 7 or more and a later bid must be bigger (7 notrump "
                            "or 8+)" % (self.who(contractor), self.who(self.dealer), trump))
        swap = self.swap_for(contractor, partner)
        self._exchange(swap)
        self.contract = (bid, trump, contractor, partner)
        self.swap = swap
        return swap

    def trick(self, player):
        """One trick won by `player` (PT-13)."""
        if self.contract is None:
            raise RuleError("PT-11", "enter the contract before the tricks")
        self._player(player, "PT-13", "trick winner")
        if len(self.winners_seq) >= TRICKS:
            raise RuleError("PT-10", "%s: a hand has only 13 tricks" % self.who(player))
        self.winners_seq.append(player)
        self.tricks[player] += 1

    def trick_at_seat(self, seat):
        if not is_int(seat) or not 0 <= seat < 4:
            raise RuleError("PT-1", "a seat is 0..3 (pads 1..4), not %r" % (seat,))
        self.trick(self.seats[seat])

    def finish_hand(self):
        """Score the hand (PT-14..PT-16), next dealer (PT-17), game over (PT-18/19)."""
        if self.contract is None:
            raise RuleError("PT-11", "no contract entered for this hand")
        bid, trump, contractor, partner = self.contract
        if len(self.winners_seq) != TRICKS:
            raise RuleError("PT-13", "%s: the tricks add up to %d, not 13"
                            % (self.who(contractor), len(self.winners_seq)))
        scores, doubled = hand_scores(bid, contractor, partner, self.tricks)
        hand = {"dealer": self.dealer, "contractor": contractor, "partner": partner,
                "bid": bid, "trump": trump, "tricks": list(self.tricks)}
        self._done.append((hand, scores, doubled, self.swap, self.winners_seq))
        for p in range(4):
            self.totals[p] += scores[p]
        self.dealer = contractor
        self._new_hand()
        self._update_over()
        return scores

    def _new_hand(self):
        self.contract = None
        self.swap = None
        self.winners_seq = bytearray()
        self.tricks = [0, 0, 0, 0]

    def _update_over(self):
        # PT-18: someone reached the target; PT-19: and the top total is not shared.
        top = max(self.totals)
        self.over = top >= self.target and self.totals.count(top) == 1

    def undo(self):
        """Undo the last entry; returns "trick", "contract" or "hand"."""
        if self.winners_seq:
            # bytearray has no pop() on MicroPython
            self.tricks[self.winners_seq[-1]] -= 1
            self.winners_seq = self.winners_seq[:-1]
            return "trick"
        if self.contract is not None:
            self._exchange(self.swap)  # an exchange undoes itself
            self.contract = None
            self.swap = None
            return "contract"
        if not self._done:
            raise RuleError("PT-18", "nothing to undo")
        hand, scores, doubled, swap, seq = self._done.pop()
        for p in range(4):
            self.totals[p] -= scores[p]
        self.dealer = hand["dealer"]
        self.contract = (hand["bid"], hand["trump"], hand["contractor"], hand["partner"])
        self.swap = swap
        self.winners_seq = seq
        self.tricks = list(hand["tricks"])
        self._update_over()
        return "hand"

    # ---- the sheet (records.py) ---------------------------------------------
    @property
    def ended_early(self):
        return not self.over

    def last_hand(self):
        """(hand dict, 4 scores, doubled) of the last finished hand, or None."""
        if not self._done:
            return None
        d = self._done[-1]
        return d[0], d[1], d[2]

    def winners(self):
        top = max(self.totals)
        return [p for p in range(4) if self.totals[p] == top]

    @property
    def tiebreak(self):
        w = self.winners()
        top = self.totals[w[0]]
        if self.over:
            return "highest total: %s with %d (target %d)" % (self.players[w[0]], top, self.target)
        if top >= self.target:
            return "tied at %d at the top past the target: play on until one leads (PT-19)" % top
        if len(w) > 1:
            return "stopped before the target: shared by the highest total %d (PT-20)" % top
        return "stopped before the target: highest total %d (PT-20)" % top

    def rows(self):
        out = []
        run = [0, 0, 0, 0]
        for k in range(len(self._done)):
            hand, scores, doubled, swap, seq = self._done[k]
            t = hand["tricks"]
            side = t[hand["contractor"]] + t[hand["partner"]]
            label = "%d. %s deals; %s bids %d %s with %s: %s%s" % (
                k + 1, self.players[hand["dealer"]], self.players[hand["contractor"]],
                hand["bid"], hand["trump"], self.players[hand["partner"]],
                "made" if side >= hand["bid"] else "failed", ", doubled" if doubled else "")
            cells = []
            for p in range(4):
                run[p] += scores[p]
                cells.append("%d (%d tr)" % (scores[p], t[p]))
            out.append((label, cells, list(run)))
        return out

    def to_record(self):
        return {"game": "partners", "target": self.target, "players": list(self.players),
                "hands": [_copy_hand(d[0]) for d in self._done]}


def _copy_hand(h):
    c = {}
    for k in h:
        c[k] = h[k]
    c["tricks"] = list(h["tricks"])
    return c


def _replay_hand(g, h):
    if not isinstance(h, dict):
        raise RuleError("PT-21", "a hand is a JSON object")
    for key in ("dealer", "contractor", "partner", "bid", "trump", "tricks"):
        if key not in h:
            raise RuleError("PT-21", "the hand has no %r" % key)
    d = h["dealer"]
    g._player(d, "PT-3", "dealer")
    if g.over:
        raise RuleError("PT-18", "%s deals a hand after the game is over" % g.who(d))
    if g.hands_played == 0:
        g.dealer = d  # PT-3: the table chose the first dealer
    elif d != g.dealer:
        raise RuleError("PT-17", "%s deals, but the previous contractor %s must deal"
                        % (g.who(d), g.who(g.dealer)))
    c = h["contractor"]
    g._player(c, "PT-7", "contractor")
    t = h["tricks"]
    if not isinstance(t, list) or len(t) != 4:
        raise RuleError("PT-21", "%s: tricks must be a list of 4 counts" % g.who(c))
    for p in range(4):
        if not is_int(t[p]) or t[p] < 0:
            raise RuleError("PT-13", "%s: %r is not a trick count" % (g.who(p), t[p]))
    if sum(t) != TRICKS:
        raise RuleError("PT-13", "%s: the tricks add up to %d, not 13" % (g.who(c), sum(t)))
    g.set_contract(h["bid"], h["trump"], c, h["partner"])
    for p in range(4):
        for i in range(t[p]):
            g.trick(p)
    g.finish_hand()


def replay(record):
    """Check a canonical partners record (PT-21/PT-22) and return its scored game."""
    if not isinstance(record, dict) or record.get("game") != "partners":
        raise RuleError("PT-21", "not a partners record")
    hands = record.get("hands")
    if not isinstance(hands, list):
        raise RuleError("PT-21", "the record has no list of hands")
    g = PartnersGame(record.get("target"), record.get("players"))
    for k in range(len(hands)):
        try:
            _replay_hand(g, hands[k])
        except RuleError as e:
            raise RuleError(e.rule, "hand %d, %s" % (k + 1, e.msg))
    return g
