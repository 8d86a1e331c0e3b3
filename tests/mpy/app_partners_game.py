# Drives the partners referee flow (firmware/speedref/app/partners_flow.py)
# with button taps, on CPython and on the MicroPython Unix port, the way the
# people at a table would: the winner of each trick taps the pad in front of
# the seat they sit in.  The driver keeps its OWN seat map (PT-1, PT-8: the
# partner swaps with whoever sits opposite the contractor), so a flow that
# loses track of the seats sends tricks to the wrong player and the test sees it.
#
# A hand is (bid, trump, contractor, partner, [tricks of P1..P4]); players
# are 0..3.  The trick winners are interleaved (not all of P1's first), so
# the trick order in the save and in undo is exercised.
from app_rig import Rig, MS
from speedref.app.core import UP, OK

TRUMPS = ("clubs", "diamonds", "hearts", "spades", "notrump")
TAP = 20 * MS

# A complete game to 100 (worked out by hand from seeds/partners.md):
#  1. P1 deals; P2 bids 9 hearts with P3 (P3 and P4 swap); made 10: 2 15 13 1
#  2. P2 deals; P1 bids 10 notrump with P2 (P2 and P4 swap); made: 17 13 2 1
#  3. P1 deals; P4 bids 8 spades with P3 (already opposite); failed 7, and
#     P1's 8 + 4*4 = 24 >= 20 doubles the hand (PT-16): 48 24 0 0
#  4. P4 deals; P3 bids 13 diamonds with P1 (P1 and P4 swap); all 13 taken,
#     doubled (PT-16): 38 0 40 0.  Totals 105 52 55 2: P1 wins (PT-19).
GAME_100 = [
    (9, "hearts", 1, 2, [2, 6, 4, 1]),
    (10, "notrump", 0, 1, [7, 3, 2, 1]),
    (8, "spades", 3, 2, [4, 2, 3, 4]),
    (13, "diamonds", 2, 0, [6, 0, 7, 0]),
]
TOTALS_100 = [105, 52, 55, 2]

# PT-19: after hand 1 P1 and P3 share the top (11) past the target 10, so
# play goes on; after hand 2 P4 alone leads: 12 13 12 17.
GAME_TIE = [
    (7, "clubs", 0, 2, [4, 2, 4, 3]),
    (7, "notrump", 1, 3, [1, 4, 1, 7]),
]
TOTALS_TIE = [12, 13, 12, 17]


class Table:
    """Who sits where, kept by the test (seat k = pad k)."""

    def __init__(self):
        self.seats = [0, 1, 2, 3]

    def pad(self, player):
        return self.seats.index(player)

    def name_partner(self, contractor, partner):
        """PT-8: returns the swapped pair or None."""
        opp_seat = (self.pad(contractor) + 2) % 4
        other = self.seats[opp_seat]
        if other == partner:
            return None
        a = self.pad(partner)
        self.seats[a], self.seats[opp_seat] = other, partner
        return (partner, other)


def winners(tricks):
    """The 13 trick winners, round robin over who still has tricks to take."""
    left = list(tricks)
    out = []
    while len(out) < 13:
        for p in range(4):
            if left[p]:
                left[p] -= 1
                out.append(p)
    return out


def tap(rig, b, n=1):
    for _ in range(n):
        rig.tap(b, TAP, TAP)


def start(rig, target=100, dealer=0):
    rig.app.start("partners", rig.t, {"target": target})
    tap(rig, dealer)  # PT-3: the first dealer taps their pad


def enter_contract(rig, table, bid, trump, contractor, partner):
    tap(rig, UP, bid - 7)
    tap(rig, OK)
    tap(rig, UP, TRUMPS.index(trump))
    tap(rig, OK)
    tap(rig, table.pad(contractor))
    tap(rig, table.pad(partner))
    swap = table.name_partner(contractor, partner)
    if swap is not None:
        tap(rig, OK)  # the players have changed seats
    return swap


def play_tricks(rig, table, seq):
    for p in seq:
        tap(rig, table.pad(p))


def play_hand(rig, table, hand):
    bid, trump, c, p, tricks = hand
    enter_contract(rig, table, bid, trump, c, p)
    play_tricks(rig, table, winners(tricks))
    tap(rig, OK)  # HAND -> TOTALS (or FINAL)


def play_game(rig, hands, target=100, table=None):
    """Start, play every hand, OK past the totals; OK on FINAL stores the
    record.  Returns the logged record (None if the game did not end)."""
    table = table or Table()
    start(rig, target)
    for i in range(len(hands)):
        play_hand(rig, table, hands[i])
        tap(rig, OK)  # TOTALS: next hand, or FINAL: save and end
    ends = rig.log.of("game_end")
    return ends[-1]["record"] if ends else None


def game_report(root, hands=None, target=100):
    """The facts the tests compare across runtimes, as one JSON-able dict."""
    from speedref.engine import partners
    hands = hands or GAME_100
    rig = Rig(root)
    rec = play_game(rig, hands, target)
    plain = {}
    for k in rec:
        if k not in ("id", "table"):
            plain[k] = rec[k]
    g = partners.replay(plain)
    return {
        "record": rec,
        "engine": g.to_record(),
        "totals": g.totals,
        "winners": g.winners(),
        "over": g.over,
        "stored": rig.store.records()[-1],
        "hand_lines": rig.log.of("hand"),
        "contract_lines": rig.log.of("contract"),
        "screen": rig.screen_name(),
        "saved_game": rig.store.load_game()[0],
    }
