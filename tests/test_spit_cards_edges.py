"""Spit at the card level (engine/spit_cards.py): what each refusal says, and
player 2 calling Spit! first.  Rule numbers from seeds/spit.md."""
import pytest

from speedref.engine import CHANCE
from speedref.engine.errors import RuleError
from speedref.engine.spit_cards import DEAL, SPIT, State, slap_action, turn_action


def refused(st, *a):
    with pytest.raises(RuleError) as e:
        st.apply(*a)
    return str(e.value)


def test_spit4_spit16_the_deal_and_the_start_refuse_what_is_out_of_turn():
    st = State(3)
    assert refused(st, 0, SPIT, 0) == "SPIT-16: no actions in the deal phase"
    assert st.apply(CHANCE, DEAL) == "deal"
    assert refused(st, CHANCE, DEAL) == "SPIT-16: the deal happens once, at the start"
    assert refused(st, 2, SPIT, 0) == "SPIT-1: player must be 0 or 1"
    assert refused(st, 0, turn_action(0), 0) == "SPIT-4: a round starts when both call Spit!"
    assert st.apply(1, SPIT, 10) == "spit" and st.phase == "spit"  # player 2 first: nothing yet
    assert refused(st, 1, SPIT, 11) == "SPIT-4: a round starts when both call Spit!"
    assert refused(st, 0, SPIT, 9) == "SPIT-7: actions come in time order (9 is before 10)"
    assert st.apply(0, SPIT, 12) == "start" and st.phase == "play"
    assert refused(st, 0, 200, 13) == "SPIT-16: unknown action 200"
    assert refused(st, 0, slap_action(0), 13) == "SPIT-16: unknown action %d" % slap_action(0)
    with pytest.raises(RuleError) as e:
        st.legal_actions(2)
    assert str(e.value) == "SPIT-1: player must be 0 or 1"


def test_spit10_a_tie_goes_to_player_2_when_player_2_cleared():
    from speedref.engine import cards as C
    from speedref.engine.spit_cards import play_action
    from test_spit import H, S, setup, started
    s = setup(started(), [[bytes([H(4)])], [bytes([S(8)])]], [H(7), C.card(0, 12)],
              (bytes([S(5)]), bytes([S(6)])))
    s.apply(1, play_action(0, 0), 10)
    assert s.phase == "slap" and s.cleared == 1
    assert s.apply(0, slap_action(1), 20) == "slap"
    assert refused(s, 0, slap_action(0), 21) == "SPIT-10: each player slaps one centre pile, once"
    assert s.apply(1, slap_action(1), 20) == "round"
    assert s.rounds[-1]["slap"] == 1 and s.rounds[-1]["cleared"] == 1


def test_spit10_player_1_slapping_first_takes_the_pile():
    from speedref.engine import cards as C
    from speedref.engine.spit_cards import play_action
    from test_spit import H, S, setup, started
    s = setup(started(), [[bytes([H(4)])], [bytes([S(8)])]], [H(7), C.card(0, 12)],
              (bytes([S(5)]), bytes([S(6)])))
    s.apply(1, play_action(0, 0), 10)
    assert s.apply(0, slap_action(0), 25) == "slap"
    assert s.apply(1, slap_action(0), 30) == "round"  # player 1 first, though player 2 cleared
    assert s.rounds[-1]["slap"] == 0
