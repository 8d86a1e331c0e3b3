"""Speed Run, card level, at its edges: each refusal's rule number and the
words a player reads, the deal order, the trump and direction each trick is
judged by, and the invariant check itself (SR numbers from seeds/speedrun.md)."""
import pytest

from speedref.engine import cards, TERMINAL
from speedref.engine.errors import RuleError
from speedref.engine.rng import Rng
from speedref.engine import speedrun_cards as sp
from speedref.engine.speedrun_cards import State, CHANCE, DEAL, REVEAL, TRUMP, RANK, CONTRACT, PASS, REDO

E, R, G, W = 0, 1, 2, 3


def c(suit, rank):
    return cards.card(suit, rank)


def refused(st, player, action):
    with pytest.raises(RuleError) as e:
        st.apply(player, action)
    return str(e.value)


def to_contracts(st, trump=TRUMP + 4, ranking=RANK + 0):
    st.apply(CHANCE, DEAL)
    st.apply(st.current_player(), trump)
    st.apply(st.current_player(), ranking)


def to_play(st, trump=TRUMP + 4, ranking=RANK + 0, contracts=(CONTRACT + 0, CONTRACT + 0, CONTRACT + 0)):
    to_contracts(st, trump, ranking)
    for a in contracts:
        st.apply(st.current_player(), a)


def play_first_legal(st, until):
    while not until(st):
        p = st.current_player()
        st.apply(p, st.legal_actions(p)[0])


def test_sr11_a_card_never_beats_itself_and_a_worse_later_card_loses():
    """SR-11: "best" is strict: the same card does not beat itself in either
    direction, and in 1 high a later, higher card of the suit led loses."""
    for dirn in (10, 1):
        assert not sp.beats(c(E, 5), c(E, 5), E, -1, dirn)
    assert sp.beats(c(E, 2), c(E, 9), E, -1, 1) and not sp.beats(c(E, 9), c(E, 2), E, -1, 1)
    assert sp.trick_winner(bytearray([c(E, 2), c(E, 9), c(E, 5)]), 1, -1, 1) == 1


def test_sr6_the_deal_goes_one_at_a_time_clockwise_from_the_first_players_left():
    for first in (0, 1, 2):
        st = State(77, "short", first=first)
        st.apply(CHANCE, DEAL)
        deck = Rng(77).shuffle(cards.run_deck())
        for k in range(3):  # the first card to the left of the first player, the next to theirs ...
            seat = (first + 1 + k) % 3
            assert st.hand[seat] == bytearray(sorted(deck[k:36:3]))


def test_sr6_before_the_deal_no_trick_and_no_hand_written():
    """Before the first deal there is no last trick and no last hand's score
    (None: the simulator asks `is None`)."""
    st = State(1, "short")
    assert st.last_trick is None and st.last_scores is None


def test_sr9_sr11_the_trick_is_judged_with_the_chosen_trump_and_direction():
    """SR-11: an off-suit trump wins the trick; SR-9: in 10 high the higher
    card of the suit led wins.  The cards are set by hand for the trick."""
    st = State(5, "short", first=0)
    to_play(st, trump=TRUMP + G, ranking=RANK + 0)  # geckos, 10-high
    assert st.current_player() == 2  # the third player leads (SR-8)
    st.hand[2] = bytearray([c(E, 3)]) + st.hand[2][1:]
    st.hand[0] = bytearray([c(E, 9)]) + st.hand[0][1:]
    st.hand[1] = bytearray([c(G, 1)])  + st.hand[1][1:]
    for h in st.hand:  # no Earthworm elsewhere, so seat 1 may trump
        h[1:] = bytearray(x for x in h[1:] if x >> 4 not in (E,))
    st.apply(2, c(E, 3))
    st.apply(0, c(E, 9))
    st.apply(1, c(G, 1))
    assert st.last_trick == (2, bytes([c(E, 3), c(E, 9), c(G, 1)]), 1)

    st = State(5, "short", first=0)
    to_play(st, trump=TRUMP + 4, ranking=RANK + 0)  # no trump, 10-high
    st.hand[2] = bytearray([c(R, 3)])
    st.hand[0] = bytearray([c(R, 9)])
    st.hand[1] = bytearray([c(R, 5)])
    st.apply(2, c(R, 3))
    st.apply(0, c(R, 9))
    st.apply(1, c(R, 5))
    assert st.last_trick[2] == 0  # the 9 wins in 10 high


def test_sr11_trump_suit_of_each_choice():
    st = State(1, "short")
    assert st._trump_suit() == -1  # not chosen yet: no trump
    for i, name in enumerate(sp.TRUMPS):
        st.game.trump = name
        assert st._trump_suit() == (-1 if name == "none" else i)


def test_sr10_follow_the_suit_led_in_each_suit():
    """SR-10: with Raccoons led (and each suit), only that suit may follow."""
    for suit in (E, R, G, W):
        st = State(5, "short", first=0)
        to_play(st)
        st.hand[2] = bytearray([c(suit, 3)])
        st.hand[0] = bytearray(sorted([c(E, 9), c(R, 9), c(G, 9), c(W, 9)]))
        st.apply(2, c(suit, 3))
        assert st.legal_actions(0) == [c(suit, 9), REVEAL]


def test_sr13_sr19_a_redo_is_offered_beside_the_other_contracts():
    """Hand 2, after a contract was completed in hand 1: the Redo naming it
    and every other legal contract, Pass too (SR-13, SR-19)."""
    st = State(3, "short", first=0)
    to_play(st)
    play_first_legal(st, lambda s: s.phase == "deal")
    to_contracts(st)
    p = st.current_player()
    names = [st.action_name(a) for a in st.legal_actions(p)]
    assert "REDO:W0" in names and "PASS" in names and "W1" in names, names


def test_action_names_of_every_kind():
    st = State(1, "short")
    assert st.action_name(DEAL) == "deal" and st.action_name(REVEAL) == "reveal"
    assert st.action_name(TRUMP) == "trump earthworms" and st.action_name(TRUMP + 4) == "trump none"
    assert st.action_name(RANK) == "10-high" and st.action_name(RANK + 5) == "bell-1"
    assert st.action_name(CONTRACT) == "W0" and st.action_name(PASS) == "PASS"
    assert st.action_name(REDO + 8) == "REDO:MOST" and st.action_name(c(W, 10)) == "W10"


def test_sr6_sr7_sr13_sr8_whose_turn_it_is_not_names_the_rule_of_the_phase():
    """SR-29: players counted from 1; the rule is the phase's: the deal SR-6,
    the choices SR-7, the contracts SR-13, the tricks SR-8."""
    st = State(5, "short", first=0)
    assert refused(st, 0, DEAL) == "SR-6: it is not player 1's turn"
    st.apply(CHANCE, DEAL)
    assert refused(st, 1, TRUMP) == "SR-7: it is not player 2's turn"
    st.apply(0, TRUMP + 4)
    assert refused(st, 0, RANK) == "SR-7: it is not player 1's turn"
    st.apply(1, RANK)
    assert refused(st, 2, CONTRACT) == "SR-13: it is not player 3's turn"
    for _ in range(3):
        st.apply(st.current_player(), CONTRACT)
    assert st.current_player() == 2
    assert refused(st, 0, st.hand[0][0]) == "SR-8: it is not player 1's turn"
    assert refused(st, 1, st.hand[1][0]) == "SR-8: it is not player 2's turn"
    assert refused(st, 5, 0) == "SR-8: it is not 5's turn"
    assert refused(st, "x", 0) == "SR-8: it is not 'x''s turn"


def test_sr13_sr21_sr29_refused_contracts_and_reveals_say_why():
    st = State(5, "short", first=0)
    to_contracts(st)
    assert refused(st, 0, REVEAL) == "SR-13: player 1 may not play reveal now"  # not yet: no Redo
    assert refused(st, 0, REDO + 10) == "SR-19: player 1 may not play 106 now"  # no such contract
    assert refused(st, 0, "x") == "SR-13: player 1 may not play 'x' now"
    for _ in range(3):
        st.apply(st.current_player(), CONTRACT)
    st.apply(2, REVEAL)
    assert refused(st, 2, REVEAL) == "SR-21: player 3 may not play reveal now"  # once


def test_sr28_after_the_game_nothing_is_played():
    st = State(2, "short")
    play_first_legal(st, lambda s: s.is_terminal())
    assert st.legal_actions(TERMINAL) == [] and st.legal_actions(0) == []
    assert refused(st, 0, DEAL) == "SR-28: the game is over"
    e = pytest.raises(RuleError, st.apply, TERMINAL, 0).value
    assert e.rule == "SR-28" and e.msg == "the game is over"


def test_check_names_what_is_wrong():
    """check() (the tests' invariant, SR-6, SR-12, SR-24) says which one broke."""
    def broken(st):
        with pytest.raises(AssertionError) as e:
            st.check()
        return str(e.value)

    st = State(5, "short", first=1)
    st.apply(CHANCE, DEAL)
    assert st.current_player() == 1
    st.check()
    st.hand[0][0] = st.hand[2][0]
    assert broken(st) == "a card is in two places"
    for first in (0, 1):  # seat 0 to act (first=0), and another seat
        st = State(5, "short", first=first)
        st.apply(CHANCE, DEAL)
        st.hand[2] = st.hand[2][1:]
        assert broken(st) == "hands [12, 12, 11] with 0 cards in the trick"
        for s in (0, 1):
            st.hand[s] = st.hand[s][1:]
        assert broken(st) == "cards lost"
    st = State(5, "short")
    st.apply(CHANCE, DEAL)
    st.out = st.out[1:]
    assert broken(st) == "cards lost"
    st = State(5, "short")
    st.apply(CHANCE, DEAL)
    st.game.totals[1] = 3
    assert broken(st) == "totals [0, 3, 0] are not the sheet's sums"
