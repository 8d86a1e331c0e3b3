"""partners CARD level (engine/partners_cards.py), golden playthroughs on both runtimes.

Rules are PT-n in seeds/partners.md.
"""

import pytest

import mpyrun
import partners_golden
from speedref.engine import cards
from speedref.engine import partners as P
from speedref.engine import partners_cards as pp
from speedref.engine.errors import RuleError
from speedref.engine.rng import Rng

C, D, H, S = 0, 1, 2, 3


def card(text):
    r = "A23456789TJQK".index(text[0]) + 1
    return cards.card("CDHS".index(text[1]), r)


def snapshot(s):
    return (s.phase, s.turn, s.high_bid, s.bidder, s.passes, [bytes(h) for h in s.hands],
            [bytes(d) for d in s.displays], bytes(s.trick), bytes(s.played), bytes(s.table.seats),
            s.table.contract, list(s.table.totals), s.table.tricks_played)


def all_cards(s):
    out = []
    for x in s.hands + s.displays + [s.trick, s.played]:
        out += list(x)
    return sorted(out)


def act(s, a):
    """Apply `a` for whoever is to act (the chance step or the player in turn)."""
    s.apply(s.current_player(), a)


def dealt(seed=5, dealer=0):
    s = pp.State(seed, target=100, players=("Ann", "Bo", "Cy", "Di"), dealer=dealer)
    assert s.current_player() == pp.CHANCE and s.legal_actions(pp.CHANCE) == [pp.DEAL]
    assert s.phase == "deal" and s.actors() == [] and s.legal_actions(dealer) == []
    s.apply(pp.CHANCE, pp.DEAL)
    assert s.phase == "bid" and s.actors() == [dealer] and s.legal_actions(pp.CHANCE) == []
    return s


def to_play(s, bid=pp.bid_action(7, S), partner=2):
    """Dealer bids, three passes, contractor names `partner`."""
    act(s, bid)
    for _ in range(3):
        act(s, pp.PASS)
    act(s, pp.PARTNER + partner)
    return s


# ---- the deal (PT-2) ------------------------------------------------------------

def test_pt2_deal_is_a_chance_step_3_display_10_hand_52_cards():
    """PT-2: 3 face-up cards per seat, 10 per player, every card once."""
    s = dealt(11)
    assert [len(d) for d in s.displays] == [3, 3, 3, 3]
    assert [len(h) for h in s.hands] == [10, 10, 10, 10]
    assert all_cards(s) == sorted(cards.standard_deck())


def test_pt2_same_seed_same_deal_order_starts_left_of_dealer():
    """PT-2: the seeded shuffle and the dealing order (displays first, from the dealer's left)."""
    a, b = dealt(42, dealer=1), dealt(42, dealer=1)
    assert a.hands == b.hands and a.displays == b.displays
    deck = Rng(42).shuffle(cards.standard_deck())
    assert a.displays[2][0] == deck[0] and a.displays[3][0] == deck[1] and a.displays[1][0] == deck[3]
    assert a.hands[2][0] == deck[12] and a.hands[1][0] == deck[15]


# ---- bidding (PT-4..PT-7) -------------------------------------------------------

def test_pt6_dealer_opens_and_may_not_pass():
    """PT-6: the dealer's first call must be a bid of 7 or more."""
    s = dealt(3, dealer=2)
    assert s.current_player() == 2
    legal = s.legal_actions(2)
    assert pp.PASS not in legal and legal[0] == pp.bid_action(7, C) and len(legal) == 7 * 5
    before = snapshot(s)
    with pytest.raises(RuleError) as e:
        act(s, pp.PASS)
    assert e.value.rule == "PT-6" and snapshot(s) == before


def test_pt5_notrump_outranks_suits_at_the_same_number_suits_equal():
    """PT-5: after 8 hearts, 8 spades is not bigger; 8 notrump and 9 clubs are."""
    s = dealt()
    act(s, pp.bid_action(8, H))
    legal = s.legal_actions(1)
    assert pp.bid_action(8, S) not in legal and pp.bid_action(8, H) not in legal
    assert pp.bid_action(8, pp.NOTRUMP) in legal and pp.bid_action(9, C) in legal
    before = snapshot(s)
    with pytest.raises(RuleError) as e:
        act(s, pp.bid_action(8, S))
    assert e.value.rule == "PT-5" and snapshot(s) == before
    with pytest.raises(RuleError) as e:
        act(s, pp.bid_action(14, C))
    assert e.value.rule == "PT-4"


def test_pt7_three_passes_end_and_a_pass_does_not_bar_a_later_bid():
    """PT-7: clockwise calls; passing once, then bidding again; three passes in a row end it."""
    s = dealt(dealer=0)
    act(s, pp.bid_action(7, C))  # Ann
    act(s, pp.PASS)  # Bo
    act(s, pp.bid_action(7, pp.NOTRUMP))  # Cy
    act(s, pp.PASS)  # Di
    act(s, pp.PASS)  # Ann
    assert s.current_player() == 1
    s.apply(1, pp.bid_action(8, D))  # Bo passed before and may bid now
    for p in (2, 3, 0):
        assert s.phase == "bid"
        s.apply(p, pp.PASS)
    assert s.phase == "partner" and s.current_player() == 1 and s.high_bid == (8, D)


def test_pt7_after_13_notrump_only_passes():
    """PT-5/PT-7: 13 notrump is the biggest bid."""
    s = dealt()
    act(s, pp.bid_action(13, pp.NOTRUMP))
    assert s.legal_actions(1) == [pp.PASS]


def test_pt7_out_of_turn_is_refused():
    """PT-7: calls go in turn."""
    s = dealt()
    with pytest.raises(RuleError) as e:
        s.apply(2, pp.bid_action(7, C))
    assert e.value.rule == "PT-7" and s.phase == "bid"


# ---- partner and seats (PT-8, PT-9, PT-11) --------------------------------------

def test_pt8_pt9_partner_swap_hands_move_displays_stay():
    """PT-8/PT-9: partner Bo swaps with Cy; hands go with players, displays stay with seats."""
    s = dealt(9)
    hands = [bytes(h) for h in s.hands]
    displays = [bytes(d) for d in s.displays]
    act(s, pp.bid_action(7, S))
    for _ in range(3):
        act(s, pp.PASS)
    with pytest.raises(RuleError) as e:
        act(s, pp.PARTNER + 0)  # Ann cannot partner herself
    assert e.value.rule == "PT-8"
    act(s, pp.PARTNER + 1)
    assert list(s.table.seats) == [0, 2, 1, 3]
    assert [bytes(h) for h in s.hands] == hands and [bytes(d) for d in s.displays] == displays
    # PT-11: the contractor leads; Bo now plays with seat 2's display
    assert s.current_player() == 0
    act(s, s.legal_actions(0)[0])
    assert s.current_player() == 2  # Cy sits in seat 1 now
    act(s, s.legal_actions(2)[0])
    assert s.current_player() == 1 and s.turn == 2


def auction(s, contractor):
    """The dealer opens 7 clubs; unless `contractor` is the dealer, the players
    before them pass and they bid 8 hearts; then three passes."""
    act(s, pp.bid_action(7, C))
    if s.table.dealer != contractor:
        while s.current_player() != contractor:
            act(s, pp.PASS)
        act(s, pp.bid_action(8, H))
    for _ in range(3):
        act(s, pp.PASS)
    assert s.phase == "partner" and s.bidder == contractor


def opening_lead(s, contractor, partner):
    """After the partner is named: who may play the first card of the hand, and
    from which seat's display."""
    act(s, pp.PARTNER + partner)
    assert s.phase == "play" and not s.trick and s.table.tricks_played == 0
    who = [p for p in range(4) if s.legal_actions(p)]
    assert who == [s.current_player()], who
    return s.current_player(), s.turn


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("contractor", range(4))
def test_pt11_the_contractor_leads_the_first_trick(dealer, contractor):
    """PT-11: whoever deals and whoever is named partner, the contractor (who
    never moves, PT-8) plays the first card, from their own seat's display."""
    for partner in [p for p in range(4) if p != contractor]:
        s = dealt(7, dealer=dealer)
        auction(s, contractor)
        player, seat = opening_lead(s, contractor, partner)
        assert (player, seat) == (contractor, contractor), "PT-11: %s leads from seat %d, not %s" % (
            s.table.who(player), seat, s.table.who(contractor))
        assert s.legal_actions(contractor) == sorted(list(s.hands[contractor]) + list(s.displays[contractor]))
        other = s.hands[(contractor + 1) % 4][0]
        before = snapshot(s)
        with pytest.raises(RuleError) as e:
            s.apply((contractor + 1) % 4, other)
        assert e.value.rule == "PT-10" and snapshot(s) == before


def test_pt11_a_contractor_who_moved_as_partner_leads_from_their_new_seat():
    """PT-11 with PT-9: Bo moves to seat 2 as Ann's partner, deals nothing, and
    contracts the next hand: Bo leads, from seat 2 and its display."""
    s = dealt(7, dealer=0)
    auction(s, 0)
    opening_lead(s, 0, 1)  # Bo and Cy exchange seats
    assert list(s.table.seats) == [0, 2, 1, 3]
    while s.phase == "play":
        act(s, s.legal_actions(s.current_player())[0])
    assert s.phase == "deal" and s.table.dealer == 0  # the contractor deals (PT-3)
    act(s, pp.DEAL)
    auction(s, 1)
    player, seat = opening_lead(s, 1, 3)  # Di: Ann moves opposite Bo
    assert (player, seat) == (1, 2) and s.table.seat_of(1) == 2, "PT-11: %s leads from seat %d" % (
        s.table.who(player), seat)
    assert s.legal_actions(1) == sorted(list(s.hands[1]) + list(s.displays[2]))


# ---- play (PT-10, PT-12, PT-13) ---------------------------------------------------

def rigged(trump=S):
    """A hand in play with chosen cards: Ann leads, partner Cy (no swap)."""
    s = to_play(dealt(1), bid=pp.bid_action(7, trump), partner=2)
    return s


def test_pt10_play_from_hand_or_display_and_not_another_card():
    """PT-10: a card from the hand or the seat's display; anything else is refused."""
    s = rigged()
    mine = sorted(list(s.hands[0]) + list(s.displays[0]))
    assert s.legal_actions(0) == mine  # leading: anything held
    other = s.hands[1][0]
    before = snapshot(s)
    with pytest.raises(RuleError) as e:
        act(s, other)
    assert e.value.rule == "PT-10" and snapshot(s) == before
    d = s.displays[0][0]
    act(s, d)
    assert len(s.displays[0]) == 2 and list(s.trick) == [d]


def test_pt12_must_follow_suit_including_display_cards():
    """PT-12: a player whose only card of the led suit is in the display must play it."""
    s = rigged()
    s.hands[0] = bytearray([card("2C")] + list(s.hands[0][1:]))
    s.hands[1] = bytearray([card("3D"), card("4D"), card("5D"), card("6D"), card("7D"), card("8D"),
                            card("9D"), card("TD"), card("JD"), card("QD")])
    s.displays[1] = bytearray([card("KC"), card("2H"), card("3H")])
    act(s, card("2C"))
    assert s.legal_actions(1) == [card("KC")]
    before = snapshot(s)
    with pytest.raises(RuleError) as e:
        act(s, card("3D"))
    assert e.value.rule == "PT-12" and snapshot(s) == before
    # a player without the led suit may play anything
    s.hands[1] = bytearray([card("3D")])
    s.displays[1] = bytearray([card("2H")])
    assert s.legal_actions(1) == [card("3D"), card("2H")]


@pytest.mark.parametrize("trick,trump,winner", [
    (["2C", "KC", "AC", "3C"], S, 2),        # PT-13: ace high
    (["KC", "2S", "AC", "3S"], S, 3),        # highest trump
    (["KC", "AD", "QC", "2H"], S, 0),        # off-suit never wins
    (["KC", "2S", "AC", "3S"], pp.NOTRUMP, 2),  # notrump: no trumps
    (["5H", "4H", "3H", "2H"], H, 0),
])
def test_pt13_trick_winner(trick, trump, winner):
    """PT-13: highest trump, else highest of the suit led; A above K."""
    s = rigged(trump)
    s.trick = bytearray([card(t) for t in trick])
    assert s.winning_index() == winner


def test_pt13_winner_leads_next_and_trick_recorded_at_table():
    """PT-13: the trick goes to its winner at the table level and they lead next."""
    s = rigged()
    for _ in range(4):
        act(s, s.legal_actions(s.current_player())[0])
    w = s.last_winner
    assert s.table.tricks[w] == 1 and s.current_player() == w and len(s.played) == 4


def test_pt18_terminal_state_refuses_actions():
    """PT-18: nothing is legal once the game is over."""
    s = pp.State(4, target=1)
    rng = Rng(4)
    while not s.is_terminal():
        legal = s.legal_actions(s.current_player())
        act(s, legal[rng.below(len(legal))])
    assert s.current_player() == pp.TERMINAL and s.phase == "over" and s.actors() == []
    assert all(s.legal_actions(p) == [] for p in (pp.CHANCE, pp.TERMINAL, 0, 1, 2, 3))
    with pytest.raises(RuleError) as e:
        s.apply(pp.CHANCE, pp.DEAL)
    assert e.value.rule == "PT-18"


# ---- properties ---------------------------------------------------------------------

# ---- golden playthroughs (both runtimes) ----------------------------------------------

def test_table_level_replay_on_micropython():
    """PT-21: the table level scores a record identically under MicroPython (.mpy)."""
    lines, record = partners_golden.play(2)
    code = ("from speedref.engine import partners\n"
            "g = partners.replay(%r)\n"
            "print(g.totals, g.winners(), g.hands_played, g.over)\n" % (record,))
    out = mpyrun.run(code=code)
    sheet = P.replay(record)
    assert out.stdout.strip() == "%r %r %d True" % (sheet.totals, sheet.winners(), sheet.hands_played)


def test_invalid_record_raises_rule_error_on_micropython():
    """PT-22: an invalid record raises RuleError (a ValueError) on MicroPython too."""
    code = ("from speedref.engine import partners\n"
            "r = {'game': 'partners', 'target': 50, 'players': ['a', 'b', 'c', 'd'], 'hands': ["
            "{'dealer': 0, 'contractor': 0, 'partner': 2, 'bid': 7, 'trump': 'clubs', 'tricks': [1, 2, 3, 4]}]}\n"
            "try:\n    partners.replay(r)\nexcept ValueError as e:\n    print(e.rule, e)\n")
    out = mpyrun.run(code=code, check=False)
    assert out.stdout.strip() == "PT-13 PT-13: hand 1, player 1 (a): the tricks add up to 10, not 13"


def test_undo_on_micropython_takes_back_tricks_and_the_hand():
    """Undo at the table level runs on MicroPython too (bytearray has no pop() there)."""
    code = ("from speedref.engine import partners as P\n"
            "g = P.PartnersGame(50, ['a', 'b', 'c', 'd'])\n"
            "g.set_contract(7, 'spades', 0, 2)\n"
            "for i in range(13):\n    g.trick(i % 4)\n"
            "g.finish_hand()\n"
            "print(g.undo(), g.tricks_played, g.undo(), g.tricks_played, list(g.tricks), g.totals)\n")
    out = mpyrun.run(code=code, use_mpy=False)
    sheet = P.PartnersGame(50, ["a", "b", "c", "d"])
    sheet.set_contract(7, "spades", 0, 2)
    for i in range(13):
        sheet.trick(i % 4)
    sheet.finish_hand()
    want = "%s %d %s %d %s %s" % (sheet.undo(), sheet.tricks_played, sheet.undo(), sheet.tricks_played,
                                  list(sheet.tricks), sheet.totals)
    assert want.startswith("hand 13 trick 12 ")
    assert out.stdout.strip() == want
