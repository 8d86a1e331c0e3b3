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
