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
