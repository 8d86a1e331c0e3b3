"""partners at the card level (engine/partners_cards.py): its defaults, action
names and the trick's winner at its edges.  Rule numbers from seeds/partners.md."""
import pytest

from speedref.engine import cards, CHANCE
from speedref.engine import partners_cards as pc
from speedref.engine.errors import RuleError


def test_pt3_pt18_the_card_levels_defaults():
    st = pc.State(1)
    assert st.table.target == 100 and st.table.dealer == 0 and st.table.players == ["P1", "P2", "P3", "P4"]
    assert st.last_scores is None and st.last_winner == -1 and st.bidder == -1 and st.phase == "deal"


def test_pt4_pt8_action_names():
    st = pc.State(1)
    assert st.action_name(pc.PASS) == "pass" and st.action_name(pc.DEAL) == "deal"
    assert st.action_name(pc.bid_action(8, 2)) == "8H" and st.action_name(pc.bid_action(13, pc.NOTRUMP)) == "13N"
    assert st.action_name(pc.bid_action(7, 0)) == "7C" and st.action_name(pc.PARTNER + 2) == "partner 2"
    assert st.action_name(3 * 16 + 1) == cards.name(3 * 16 + 1)


def test_pt13_the_second_card_can_win_the_trick():
    st = pc.State(1)
    st.high_bid = (8, pc.NOTRUMP)
    st.trick = bytearray([0 * 16 + 2, 0 * 16 + 10])
    assert st.winning_index() == 1
    st.trick = bytearray([0 * 16 + 1, 0 * 16 + 13, 0 * 16 + 12])  # the ace is high
    assert st.winning_index() == 0
    st.high_bid = (8, 3)
    st.trick = bytearray([0 * 16 + 1, 3 * 16 + 2, 1 * 16 + 1])  # a trump beats the ace led
    assert st.winning_index() == 1
    assert pc.beats(0 * 16 + 1, 0 * 16 + 13, -1) and not pc.beats(0 * 16 + 13, 0 * 16 + 1, -1)


def test_pt2_an_illegal_action_in_the_deal_names_the_deal():
    st = pc.State(1)
    with pytest.raises(RuleError) as e:
        st.apply(CHANCE, pc.PASS)
    assert str(e.value).endswith("pass is not legal for the deal")
    with pytest.raises(RuleError) as e:
        st.apply(CHANCE, "x")
    assert str(e.value).endswith("'x' is not legal for the deal")


# -- bids, tricks and refusals at their edges ---------------------------------------------

from speedref.engine import TERMINAL  # noqa: E402


def _refused(st, player, action):
    with pytest.raises(RuleError) as e:
        st.apply(player, action)
    return e.value


def _bidding(seed=1):
    st = pc.State(seed)
    st.apply(CHANCE, pc.DEAL)
    return st


def test_pt13_a_card_never_beats_itself():
    for c in (0 * 16 + 1, 2 * 16 + 9):
        assert not pc.beats(c, c, c >> 4) and not pc.beats(c, c, -1)


def test_pt4_pt8_action_names_at_the_first_number_of_each_kind():
    st = pc.State(1)
    assert st.action_name(pc.BID) == "0C" and st.action_name(pc.PARTNER) == "partner 0"


def test_pt5_pt4_which_rule_an_illegal_bid_breaks():
    """PT-5: a real bid (7..13, a suit or notrump) below the auction's best;
    PT-4: no such bid (a number below 7, a trump index above notrump)."""
    st = _bidding()
    p = st.current_player()
    st.apply(p, pc.bid_action(9, 2))
    q = st.current_player()
    for a in (pc.bid_action(7, 0), pc.bid_action(9, 2), pc.bid_action(8, pc.NOTRUMP), pc.bid_action(9, 0)):
        assert _refused(st, q, a).rule == "PT-5", st.action_name(a)
    for a in (pc.bid_action(6, pc.NOTRUMP), pc.bid_action(3, 0), pc.bid_action(9, 5), pc.bid_action(10, 7)):
        assert _refused(st, q, a).rule == "PT-4", a
    assert str(_refused(st, q, pc.bid_action(9, 5))) == "PT-4: %d is not legal for %s" % (
        pc.bid_action(9, 5), st.table.who(q))  # no such trump: the number as it is, a RuleError
    assert _refused(st, q, 100).rule == "PT-4"  # not a card, not a bid
    st.apply(q, pc.bid_action(13, pc.NOTRUMP))
    r = st.current_player()
    e = _refused(st, r, pc.bid_action(13, pc.NOTRUMP))
    assert e.rule == "PT-5" and str(e) == "PT-5: 13N is not legal for %s" % st.table.who(r)


def test_pt7_pt10_pt18_the_words_of_each_refusal():
    st = _bidding()
    p = st.current_player()
    e = _refused(st, (p + 1) % 4, pc.PASS)
    assert str(e) == "PT-7: it is not player %d's turn" % ((p + 1) % 4 + 1)
    e = _refused(st, p, pc.PASS)  # the dealer must open
    assert str(e) == "PT-6: pass is not legal for %s" % st.table.who(p)


def test_pt12_follow_the_suit_led_in_each_suit_and_a_display_card_too():
    """PT-12 with each suit led, and PT-10's display card: one that does not
    follow when the player can is PT-12, not PT-10."""
    for led in range(4):
        st = _bidding(3)
        st.phase = "play"
        st.high_bid = (8, pc.NOTRUMP)
        seat = st.turn
        p = st.current_player()
        st.trick = bytearray([led * 16 + 5])
        st.hands[p] = bytearray([s * 16 + 9 for s in range(4)])
        st.displays[seat] = bytearray([((led + 1) % 4) * 16 + 3])
        assert st.legal_actions(p) == [led * 16 + 9]
        assert _refused(st, p, ((led + 1) % 4) * 16 + 3).rule == "PT-12"  # display card, off suit
        assert _refused(st, p, ((led + 2) % 4) * 16 + 9).rule == "PT-12"


def test_pt11_pt13_the_trick_winner_takes_it_and_leads():
    """PT-13: whoever played the best card (here the second card of the
    trick) wins it and leads the next, counted from the seat that led."""
    for lead in range(4):
        st = _bidding(3)
        st.apply(st.current_player(), pc.bid_action(8, pc.NOTRUMP))
        for _ in range(3):
            st.apply(st.current_player(), pc.PASS)
        st.apply(st.current_player(), st.legal_actions(st.current_player())[0])
        assert st.phase == "play"
        st.turn = lead
        hearts = [2 * 16 + r for r in (4, 12, 6, 3)]  # the queen, played second, wins
        for k in range(4):
            seat = (lead + k) % 4
            pl = st.table.seats[seat]
            st.hands[pl] = bytearray([hearts[k]]) + bytearray(x for x in st.hands[pl] if x >> 4 != 2)
            st.displays[seat] = bytearray(x for x in st.displays[seat] if x >> 4 != 2)
        for k in range(4):
            st.apply(st.current_player(), hearts[k])
        assert st.last_winner == st.table.seats[(lead + 1) % 4] and st.turn == (lead + 1) % 4


def test_pt6_a_new_hand_starts_with_no_bidder_and_no_passes():
    st = pc.State(2)
    assert st.played == bytearray() and st.turn == 0 and st.high_bid is None and st.passes == 0
    while st.phase != "deal" or st.table.hands_played == 0:
        p = st.current_player()
        st.apply(p, st.legal_actions(p)[0] if st.phase != "bid" or st.high_bid is None
                 else pc.PASS)
    st.apply(CHANCE, pc.DEAL)
    assert st.bidder == -1 and st.passes == 0 and st.high_bid is None and st.played == bytearray()


def test_pt18_after_the_game_nothing_is_played():
    st = pc.State(2, target=10) if True else None
    while not st.is_terminal():
        p = st.current_player()
        st.apply(p, st.legal_actions(p)[0] if st.phase != "bid" or st.high_bid is None else pc.PASS)
    assert st.legal_actions(TERMINAL) == []
    e = _refused(st, TERMINAL, pc.DEAL)
    assert str(e) == "PT-18: the game is over"


def test_check_says_what_broke():
    st = _bidding()
    st.check()
    st.hands[0][0] = st.hands[1][0]
    with pytest.raises(AssertionError) as e:
        st.check()
    assert str(e.value) == "cards lost or duplicated"
