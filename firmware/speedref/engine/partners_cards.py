# partners (seed 003), CARD level: full play with real cards, in the OpenSpiel
# spirit (phases, a current player, legal actions, apply, an explicit chance
# step for the deal, terminal and scores).  Used by the simulator's computer
# players, tests and golden playthroughs; never imported by the app on the
# board.  Scoring, seats and the end of the game are NOT done here: every hand
# is fed into the table-level PartnersGame, so one set of rules scores both
# levels and `record()` is exactly what the table level replays.
"""Card-level partners.

The Engine API of every card-level game (docs/architecture.md):

  s = State(seed, target=100, players=("P1", "P2", "P3", "P4"), dealer=0)
  s.phase               "deal" (the chance step, PT-2) -> "bid" (PT-5..PT-7) ->
                        "partner" (PT-8) -> "play" (13 tricks) -> "deal" ... -> "over"
                        (PT-18, PT-19)
  s.current_player()    CHANCE before a deal, a player index, or TERMINAL
  s.is_terminal()       phase == "over"
  s.actors()            [the player to act], or [] (chance step, game over)
  s.legal_actions(p)    sorted list of ints (empty if it is not p's turn);
                        legal_actions(CHANCE) == [DEAL] when a deal is due
  s.apply(player, action, t_us=None)   RuleError (state unchanged) if illegal; t_us
                        is not used (turn-based); apply(CHANCE, DEAL) deals
  s.action_name(a)      spells an action for transcripts
  s.scores() (running totals), s.record() (canonical record)
  s.table               the PartnersGame keeping seats and score
  s.hands[player], s.displays[seat], s.trick, s.played   the 52 cards

Actions: DEAL (chance), PASS, bid_action(number, trump_index), PARTNER + player,
or a card (cards.py int).
"""
from . import CHANCE, TERMINAL
from . import cards
from .cards import has
from .errors import RuleError, is_int
from .partners import MIN_BID, TRICKS, TRUMPS, PartnersGame
from .rng import Rng

from micropython import const

# Action numbers: cards are 17..61, so the other actions sit above them.
PASS = const(64)
BID = const(128)  # BID + number * 8 + trump index (0..3 suits, 4 notrump)
PARTNER = const(256)  # PARTNER + player
DEAL = const(512)
NOTRUMP = const(4)


# What a player's final score counts, and which way is better: the results
# page says so beside the standings' "avg score" (host_tools/views/results_page.py).
# Here, in the card level, which stays on the laptop: no board heap for it.
SCORE = "points at the end of the game, higher is better"


def bid_action(number, trump):
    return BID + number * 8 + trump


def bid_strength(number, trump):
    # PT-5: number first; at the same number notrump beats the (equal) suits.
    return number * 2 + (1 if trump == NOTRUMP else 0)


def high(c):
    # PT-13: the ace ranks above the king (cards.py numbers it 1).
    r = c & 15
    return 14 if r == 1 else r


def beats(c, best, trump):
    """Does card c beat `best`, the card now winning the trick (PT-13)?"""
    if c >> 4 == best >> 4:
        return high(c) > high(best)
    return c >> 4 == trump


class State:
    def __init__(self, seed, target=100, players=("P1", "P2", "P3", "P4"), dealer=0):
        self.table = PartnersGame(target, players, dealer)
        self.rng = Rng(seed)
        self.phase = "deal"
        self.hands = [bytearray() for _ in range(4)]  # by player (PT-9)
        self.displays = [bytearray() for _ in range(4)]  # by seat (PT-2)
        self.trick = bytearray()  # cards of the trick in play, in order
        self.played = bytearray()  # cards of finished tricks this hand
        self.turn = 0  # seat whose turn it is
        self.high_bid = None  # (number, trump index) of the last bid
        self.bidder = -1
        self.passes = 0
        self.last_scores = None  # the last finished hand's scores
        self.last_winner = -1  # the player who won the last complete trick

    # ---- whose turn ---------------------------------------------------------
    def current_player(self):
        if self.phase == "deal":
            return CHANCE
        if self.phase == "over":
            return TERMINAL
        if self.phase == "partner":
            return self.bidder
        return self.table.seats[self.turn]

    def is_terminal(self):
        return self.phase == "over"

    def actors(self):
        p = self.current_player()
        return [p] if p >= 0 else []

    def action_name(self, a):
        if a == PASS:
            return "pass"
        if a == DEAL:
            return "deal"
        if a >= PARTNER:
            return "partner %d" % (a - PARTNER)
        if a >= BID:
            return "%d%s" % ((a - BID) >> 3, "CDHSN"[(a - BID) & 7])
        return cards.name(a)

    def scores(self):
        return list(self.table.totals)

    def record(self):
        return self.table.to_record()

    def trump(self):
        return self.high_bid[1]

    def winning_index(self):
        """Index in self.trick of the card winning so far (PT-13)."""
        best = 0
        for i in range(1, len(self.trick)):
            if beats(self.trick[i], self.trick[best], self.high_bid[1]):
                best = i
        return best

    # ---- legal actions --------------------------------------------------------
    def legal_actions(self, player):
        if player != self.current_player() or self.phase == "over":
            return []
        if self.phase == "deal":
            return [DEAL]
        if self.phase == "bid":
            return self._bids()
        if self.phase == "partner":
            return [PARTNER + p for p in range(4) if p != self.bidder]
        return self._cards(player)

    def _bids(self):
        out = [] if self.high_bid is None else [PASS]  # PT-6: the dealer must open
        floor = bid_strength(MIN_BID, 0) if self.high_bid is None else bid_strength(*self.high_bid) + 1
        for n in range(MIN_BID, TRICKS + 1):
            for t in range(5):
                if bid_strength(n, t) >= floor:
                    out.append(bid_action(n, t))
        return out

    def _cards(self, player):
        # PT-10: from the player's hand or the display of the seat they occupy.
        own = list(self.hands[player]) + list(self.displays[self.turn])
        if self.trick:
            led = self.trick[0] >> 4
            follow = [c for c in own if c >> 4 == led]
            if follow:  # PT-12
                own = follow
        own.sort()
        return own

    # ---- apply ----------------------------------------------------------------
    def apply(self, player, action, t_us=None):
        cur = self.current_player()
        if self.phase == "over":
            raise RuleError("PT-18", "the game is over")
        if player != cur:
            raise RuleError("PT-10" if self.phase == "play" else "PT-7",
                            "it is not player %d's turn" % (player + 1))
        if action not in self.legal_actions(cur):
            try:  # a number that names nothing (a trump index above notrump) is shown as it is
                what = self.action_name(action) if is_int(action) else repr(action)
            except IndexError:
                what = repr(action)
            raise RuleError(self._why(action), "%s is not legal for %s"
                            % (what, "the deal" if cur == CHANCE else self.table.who(cur)))
        if self.phase == "deal":
            self._deal()
        elif self.phase == "bid":
            self._call(action)
        elif self.phase == "partner":
            self.table.set_contract(self.high_bid[0], TRUMPS[self.high_bid[1]],
                                    self.bidder, action - PARTNER)
            self.phase = "play"
            self.turn = self.table.seat_of(self.bidder)  # PT-11: the contractor leads
        else:
            self._play(action)

    def _why(self, a):
        # The rule an illegal action breaks, for the error message.
        if self.phase == "bid":
            if a == PASS:
                return "PT-6"
            if is_int(a) and BID + MIN_BID * 8 <= a <= bid_action(TRICKS, NOTRUMP) and (a - BID) & 7 <= 4:
                return "PT-5"
            return "PT-4"
        if self.phase == "partner":
            return "PT-8"
        if self.phase == "play":
            p = self.current_player()
            if is_int(a) and (has(self.hands[p], a) or has(self.displays[self.turn], a)):
                return "PT-12"
            return "PT-10"
        return "PT-2"

    def _deal(self):
        # PT-2: one chance step; 3 face up to each seat, then 10 to each player,
        # one card at a time starting at the dealer's left.
        deck = self.rng.shuffle(cards.standard_deck())
        left = self.table.seat_of(self.table.dealer) + 1
        for i in range(4):
            self.displays[i] = bytearray()
            self.hands[i] = bytearray()
        for i in range(12):
            self.displays[(left + i) % 4].append(deck[i])
        for i in range(40):
            self.hands[self.table.seats[(left + i) % 4]].append(deck[12 + i])
        self.played = bytearray()
        self.high_bid = None
        self.bidder = -1
        self.passes = 0
        self.phase = "bid"
        self.turn = left - 1  # PT-6: the dealer opens

    def _call(self, a):
        if a == PASS:
            self.passes += 1
            if self.passes == 3:  # PT-7: three passes in a row end the auction
                self.phase = "partner"
                return
        else:
            self.high_bid = ((a - BID) >> 3, (a - BID) & 7)
            self.bidder = self.table.seats[self.turn]
            self.passes = 0
        self.turn = (self.turn + 1) % 4

    def _play(self, c):
        p = self.table.seats[self.turn]
        if has(self.hands[p], c):
            self.hands[p] = _without(self.hands[p], c)
        else:  # a display card, face up until now (PT-10)
            self.displays[self.turn] = _without(self.displays[self.turn], c)
        self.trick.append(c)
        if len(self.trick) < 4:
            self.turn = (self.turn + 1) % 4
            return
        # The 4th card: the winner takes the trick and leads the next (PT-13).
        lead_seat = (self.turn + 1) % 4
        self.turn = (lead_seat + self.winning_index()) % 4
        self.last_winner = self.table.seats[self.turn]
        self.table.trick(self.last_winner)
        self.played.extend(self.trick)
        self.trick = bytearray()
        if self.table.tricks_played == TRICKS:
            self.last_scores = self.table.finish_hand()
            self.phase = "over" if self.table.over else "deal"

    # ---- invariants (tests) -------------------------------------------------
    def check(self):
        """Raise AssertionError unless, once dealt, each of the 52 cards is in
        exactly one place: a hand, a display, the trick or the tricks played
        (PT-2, PT-10)."""
        if self.current_player() == CHANCE:
            return
        allc = bytearray()
        for x in self.hands + self.displays:
            allc += x
        allc += self.trick
        allc += self.played
        if sorted(allc) != sorted(cards.standard_deck()):
            raise AssertionError("cards lost or duplicated")


def _without(cs, c):
    return bytearray([x for x in cs if x != c])
