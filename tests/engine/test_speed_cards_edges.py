"""Speed at the card level (engine/speed_cards.py): the doubles option in the
legal plays and in play.  Rule numbers from seeds/speed.md."""
from speedref.engine import CHANCE
from speedref.engine.speed_cards import DEAL, READY, State, play_action


def started(doubles):
    st = State(5, doubles=doubles)
    st.apply(CHANCE, DEAL)
    st.apply(0, READY, 0)
    st.apply(1, READY, 1)
    return st


def test_sp8_with_doubles_a_card_of_the_top_cards_rank_is_a_legal_play():
    for doubles in (False, True):
        st = started(doubles)
        top = st.piles[0][-1]
        same = ((top >> 4) + 1) % 4 * 16 + (top & 15)  # another suit, the same rank
        st.hands[0][0] = same
        plays = st.legal_actions(0)
        assert (play_action(0, same) in plays) is doubles
        if doubles:
            assert st.apply(0, play_action(0, same), 1000) == "play"
            assert st.piles[0][-1] == same


# -- refusals, tags and counters at their edges ------------------------------------------

import pytest  # noqa: E402

from speedref.engine import cards as C  # noqa: E402
from speedref.engine.errors import RuleError  # noqa: E402
from speedref.engine.speed_cards import DRAW, SLAP, STUCK, RACE_US  # noqa: E402
from test_speed_cards import H, S, JK, playing, setup  # noqa: E402


def refused(st, *a):
    with pytest.raises(RuleError) as e:
        st.apply(*a)
    return str(e.value)


def test_sp1_sp5_a_new_deal_takes_the_defaults_and_checks_every_option():
    st = State(1)
    assert (st.layout, st.jokers, st.doubles, st.hand_limit, st.slap_to_win, st.seats) == \
        ("pagat", False, False, 5, False, 2)
    with pytest.raises(RuleError) as e:
        State(1, seats=5)
    assert e.value.rule == "SP-27"


def test_sp1_players_are_0_to_seats_less_1():
    st = State(1, seats=3)
    for p in (-2, 3, "x", True):  # -1 is CHANCE
        with pytest.raises(RuleError) as e:
            st.legal_actions(p)
        assert str(e.value) == "SP-1: player must be 0..2"
    assert refused(State(1), 2, READY, 0) == "SP-1: player must be 0..1"


def test_sp6_sp21_sp13_sp16_the_words_of_each_refusal():
    st = State(5)
    assert refused(st, 0, READY, 0) == "SP-21: no actions in the deal phase"
    with pytest.raises(RuleError) as e:
        st.score()
    assert str(e.value) == "SP-16: the deal is not over"
    st.apply(CHANCE, DEAL)
    assert refused(st, CHANCE, DEAL) == "SP-21: the deal happens once, at the start"
    assert st.apply(0, READY, 10) == "ready"
    assert refused(st, 0, READY, 11) == "SP-6: before the start flip a player can only say ready"
    assert refused(st, 1, READY, 9) == "SP-13: actions come in time order (9 is before 10)"
    st.apply(1, READY, 12)
    assert refused(st, 0, "x", 13) == "SP-12: play a card from your own hand onto pile 1..2"
    assert refused(st, 0, 1.0, 13) == "SP-12: play a card from your own hand onto pile 1..2"


def test_sp7_sp10_sp11_sp14_sp17_the_words_of_each_refusal_in_play():
    s = setup(playing(), [bytes([S(8), S(2)]), bytes([H(6), H(3)])], [bytes([H(7)]), bytes([C.card(0, 12)])],
              stocks=(bytes([S(1)]), b""))
    assert refused(s, 0, play_action(0, S(2)), 5) == "SP-7: 2S does not fit 7H"
    assert refused(s, 0, STUCK, 5) == "SP-14: stuck means no card fits and no card can be drawn"
    assert refused(s, 0, SLAP, 5) == "SP-17: only a player with no cards slaps, with slap-to-win"
    assert refused(s, 1, DRAW, 5) == "SP-11: draw only from your own stock with fewer than 5 in hand"
    assert s.apply(0, play_action(0, S(8)), 1000) == "play"
    assert refused(s, 1, play_action(0, H(3)), 1001) == "SP-7: 3H does not fit 7H"  # inside the race window
    s = setup(playing(layout="classic", jokers=True), [bytes([JK]), bytes([H(9)])],
              [bytes([H(2)]), bytes([C.card(0, 5)])])
    assert refused(s, 0, play_action(0, JK), 5) == "SP-10: a joker cannot be your last card"
    s = setup(playing(layout="classic", slap_to_win=True), [bytes([S(8)]), bytes([H(6)])],
              [bytes([H(7)]), bytes([C.card(0, 12)])])
    s.apply(0, play_action(0, S(8)), 1)
    assert refused(s, 0, DRAW, 2) == "SP-17: a player with no cards can only slap"


def test_sp13_only_another_players_card_makes_a_race():
    """SP-13: the same player's second card soon after the first is a play of
    its own (it fits the new top), not a race."""
    s = setup(playing(), [bytes([S(2)]), bytes([H(8), H(9), S(5)])], [bytes([H(7)]), bytes([C.card(0, 12)])])
    assert s.apply(1, play_action(0, H(8)), 100) == "play"
    assert s.apply(1, play_action(0, H(9)), 200) == "play" and s.races == 0


def test_sp10_sp13_a_lone_joker_racing_is_still_refused():
    """SP-13 with SP-10: a joker that is the player's last card may not be
    played even as a card aimed at the top before."""
    s = setup(playing(layout="classic", jokers=True), [bytes([H(8), S(1)]), bytes([JK])],
              [bytes([H(7)]), bytes([C.card(0, 12)])])
    assert s.apply(0, play_action(0, H(8)), 100) == "play"
    assert refused(s, 1, play_action(0, JK), 101) == "SP-7: JK does not fit 7H"
    s = setup(playing(layout="classic", jokers=True), [bytes([H(8), S(1)]), bytes([JK, S(13)])],
              [bytes([H(7)]), bytes([C.card(0, 12)])])
    s.apply(0, play_action(0, H(8)), 100)
    assert s.apply(1, play_action(0, JK), 101) == "race"


def test_sp8_sp13_with_doubles_a_race_may_double_the_top_before():
    s = setup(playing(doubles=True), [bytes([H(8), S(1)]), bytes([S(7), H(2)])],
              [bytes([H(7)]), bytes([C.card(0, 12)])])
    assert s.apply(0, play_action(0, H(8)), 100) == "play"
    assert s.apply(1, play_action(0, S(7)), 100 + RACE_US - 1) == "race"  # a double of the 7


def test_sp11_sp14_a_draw_is_tagged_and_leaves_the_drawer_not_stuck():
    """After a draw the drawer is not stuck (SP-14): the other player's stuck
    call alone is no flip."""
    s = setup(playing(), [bytes([S(10)]), bytes([H(4)])], [bytes([H(7)]), bytes([C.card(0, 12)])],
              stocks=(bytes([S(1), S(2)]), b""))
    assert s.apply(0, DRAW, 1) == "draw" and s.stuck == [False, False]
    assert s.apply(1, STUCK, 2) == "stuck"


def test_sp14_sp15_flips_and_rebuilds_are_counted():
    s = setup(playing(), [bytes([S(10)]), bytes([H(4)])], [bytes([H(7)]), bytes([C.card(0, 12)])])
    s.apply(0, STUCK, 1)
    assert s.apply(1, STUCK, 2) == "flip" and s.flips == 1
    s._flip()  # all stuck again
    assert s.flips == 2
    s = setup(playing(), [bytes([S(10)]), bytes([H(4)])], [bytes([H(7), H(12)]), bytes([C.card(0, 12), S(12)])],
              reserves=(b"", b""))
    s.apply(0, STUCK, 1)
    assert s.apply(1, STUCK, 2) == "rebuild" and s.rebuilds == 1
    s._rebuild()
    assert s.rebuilds == 2


def test_check_says_what_broke():
    s = setup(playing(), [bytes([S(10)]), bytes([H(4)])], [bytes([H(7)]), bytes([C.card(0, 12)])])
    s.hands[1] = bytearray([S(10)])
    with pytest.raises(AssertionError) as e:
        s.check()
    assert str(e.value) == "cards lost or duplicated"
    s = setup(playing(), [bytes([S(10)]), bytes([H(4)])], [bytes([H(7)]), bytes([C.card(0, 12)])])
    s.hands[0] += s.reserves[0][:5]
    s.reserves[0] = s.reserves[0][5:]
    with pytest.raises(AssertionError) as e:
        s.check()
    assert str(e.value) == "hand over the limit"


def test_sp13_a_play_moves_time_on():
    s = setup(playing(), [bytes([S(8), S(2)]), bytes([H(6), H(3)])], [bytes([H(7)]), bytes([C.card(0, 12)])])
    assert s.apply(0, play_action(0, S(8)), 1000) == "play"
    assert refused(s, 1, DRAW, 999) == "SP-13: actions come in time order (999 is before 1000)"


def test_sp13_sp14_sp17_a_draw_a_stuck_call_and_a_slap_move_time_on():
    late = "SP-13: actions come in time order (999 is before 1000)"
    s = setup(playing(), [bytes([S(10)]), bytes([H(4)])], [bytes([H(7)]), bytes([C.card(0, 12)])],
              stocks=(bytes([S(1), S(2)]), b""))
    assert s.apply(0, DRAW, 1000) == "draw"
    assert refused(s, 1, STUCK, 999) == late
    s = setup(playing(), [bytes([S(10)]), bytes([H(4)])], [bytes([H(7)]), bytes([C.card(0, 12)])])
    assert s.apply(1, STUCK, 1000) == "stuck"
    assert refused(s, 0, STUCK, 999) == late
    s = setup(playing(layout="classic", slap_to_win=True), [bytes([S(8)]), bytes([H(6)])],
              [bytes([H(7)]), bytes([C.card(0, 12)])])
    s.apply(0, play_action(0, S(8)), 1)
    assert s.apply(0, SLAP, 1000) == "slap"
    assert refused(s, 1, DRAW, 999) == late


def test_sp14_stuck_is_refused_while_a_card_fits_even_with_nothing_to_draw():
    s = setup(playing(), [bytes([S(8)]), bytes([H(4)])], [bytes([H(7)]), bytes([C.card(0, 12)])])
    assert refused(s, 0, STUCK, 1) == "SP-14: stuck means no card fits and no card can be drawn"
