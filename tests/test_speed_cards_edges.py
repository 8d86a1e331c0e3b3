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
