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


# -- refusals, tags and counters at their edges ------------------------------------------

from speedref.engine import cards as _C  # noqa: E402
from speedref.engine.cards import RACE_US  # noqa: E402
from speedref.engine.spit_cards import move_action, play_action  # noqa: E402


def _H(r):
    return _C.card(2, r)


def _S(r):
    return _C.card(3, r)


def _D(r):
    return _C.card(1, r)


def _table(stocks, centre, spits=(b"", b"")):
    from test_spit import setup, started
    return setup(started(), stocks, centre, spits)


def test_spit16_before_the_deal_nothing_is_laid_out():
    """Before the deal (SPIT-16): no cards, no winner, no clearing, no round,
    nothing counted; the simulator and the referee read `cleared`/`winner`
    with `is None`."""
    st = State(1)
    assert st.count(0) == st.count(1) == 0 and st.legal_actions(0) == []
    assert st.winner is None and st.cleared is None and st.rounds == []
    assert st.races == 0 and st.restarts == 0
    assert st.up == [[False] * 5, [False] * 5]
    assert st.centre == [bytearray(), bytearray()] and st.active == [False, False]
    assert st.calls == [False, False] and st.slaps == [None, None] and st.last == [None, None]


def test_spit2_spit3_a_short_layout_leaves_the_empty_piles_face_down():
    """SPIT-2/SPIT-3 with 3 cards: piles of 1 and 2, the other three empty
    and not face up, no spit card."""
    st = State(1)
    st._layout(0, bytearray([_H(2), _H(3), _H(4)]))
    assert [len(x) for x in st.stock[0]] == [1, 2, 0, 0, 0]
    assert st.up[0] == [True, True, False, False, False] and st.spit[0] == bytearray()


def test_spit5_spit6_spit16_refusals_name_the_rule_and_say_why():
    s = _table([[bytes([_H(4)]), bytes([_H(9), _H(12)])], [bytes([_S(8)])]], [_H(3), _D(13)])
    assert refused(s, 0, play_action(5, 0), 10) == \
        "SPIT-5: play the face-up top card of a stock pile onto a centre pile"
    s.up[0][0] = False
    assert refused(s, 0, play_action(0, 0), 10) == \
        "SPIT-5: play the face-up top card of a stock pile onto a centre pile"  # face down
    s.up[0][0] = True
    assert refused(s, 0, play_action(1, 0), 10) == "SPIT-5: QH does not fit 3H"
    assert refused(s, 0, turn_action(0), 10) == "SPIT-6: turn up only a face-down top card"
    assert refused(s, 0, turn_action(5), 10) == "SPIT-16: unknown action %d" % turn_action(5)
    assert refused(s, 0, move_action(0, 0), 10) == \
        "SPIT-6: move a face-up top card, leaving a card, into an empty space"
    assert refused(s, 0, move_action(1, 5), 10) == \
        "SPIT-6: move a face-up top card, leaving a card, into an empty space"
    assert refused(s, 0, move_action(5, 0), 10) == "SPIT-16: unknown action %d" % move_action(5, 0)
    assert refused(s, 0, 16, 10) == "SPIT-16: unknown action 16"
    s.active[1] = False
    assert refused(s, 1, play_action(0, 1), 10) == \
        "SPIT-5: play the face-up top card of a stock pile onto a centre pile"  # no such pile


def test_spit6_spit7_each_accepted_action_moves_time_on():
    """SPIT-7: after a turn, a move, a play, a Spit! call or a slap at 100,
    an action at 50 is refused."""
    late = "SPIT-7: actions come in time order (50 is before 100)"
    s = _table([[bytes([_H(4)]), bytes([_H(9), _H(12)])], [bytes([_S(8)])]], [_H(3), _D(13)])
    s.up[0][0] = False
    assert s.apply(0, turn_action(0), 100) == "turn"
    assert refused(s, 1, SPIT, 50) == late
    s = _table([[bytes([_H(9), _H(12)])], [bytes([_S(8)])]], [_H(3), _D(13)])
    assert s.apply(0, move_action(0, 1), 100) == "move"
    assert s.up[0] == [False, True, False, False, False]
    assert refused(s, 1, SPIT, 50) == late
    s = _table([[bytes([_H(4)]), bytes([_H(9)])], [bytes([_S(8)])]], [_H(3), _D(13)])
    assert s.apply(0, play_action(0, 0), 100) == "play"
    assert s.up[0][:2] == [False, True]  # the emptied pile is not face up
    assert refused(s, 1, SPIT, 50) == late
    s = _table([[bytes([_H(9)])], [bytes([_S(7)]), bytes([_S(2)])]], [_H(3), _D(13)], (b"", bytes([_D(5)])))
    assert s.apply(0, SPIT, 100) == "spit"  # stuck
    assert refused(s, 1, SPIT, 50) == late


def test_spit7_a_race_is_closer_than_race_us_and_counted():
    """SPIT-7: a card within RACE_US of the other player's card on that pile
    goes back (counted); one RACE_US later it is a play; a card fitting
    neither top is refused, naming the top before."""
    s = _table([[bytes([_H(5)]), bytes([_H(2)]), bytes([_H(9)])], [bytes([_S(4)]), bytes([_S(6)])]],
               [_H(3), _D(13)])
    assert s.apply(1, play_action(0, 0), 1000) == "play"  # 4S on 3H
    assert s.apply(0, play_action(1, 0), 1001) == "race" and s.races == 1  # 2H fitted 3H
    assert refused(s, 0, play_action(2, 0), 1002) == "SPIT-5: 9H does not fit 3H"
    assert s.apply(0, play_action(1, 0), 1003) == "race" and s.races == 2
    assert s.apply(0, play_action(0, 0), 1000 + RACE_US) == "play"  # 5H on 4S, not a race


def test_spit8_a_call_is_cleared_by_a_play_and_one_call_is_no_restart():
    """SPIT-8: player 2 stuck calls Spit! alone: "spit", no restart; player 1
    plays, which clears the call; then player 2 calling again is still
    alone.  A second call while called is refused."""
    s = _table([[bytes([_H(4)]), bytes([_H(6)])], [bytes([_S(9)])]], [_H(3), _D(13)], (b"", bytes([_D(5)])))
    assert s.apply(1, SPIT, 10) == "spit" and s.phase == "play"
    assert refused(s, 1, SPIT, 11) == "SPIT-8: Spit! again only when you cannot play, turn or move"
    assert s.apply(0, play_action(0, 0), 12) == "play"  # 4H on 3H
    assert s.calls == [False, False]
    assert s.apply(1, SPIT, 13) == "spit" and s.restarts == 0


def test_spit8_restarts_are_counted_and_clear_both_calls():
    s = _table([[bytes([_H(9)])], [bytes([_S(9)])]], [_H(3), _D(13)],
               (bytes([_D(2), _D(4)]), bytes([_D(5), _D(7)])))
    assert s.apply(1, SPIT, 10) == "spit"
    assert s.apply(0, SPIT, 11) == "restart" and s.restarts == 1 and s.calls == [False, False]
    assert s.apply(1, SPIT, 12) == "spit"  # still stuck: a call of its own, no restart yet
    assert s.apply(0, SPIT, 13) == "restart" and s.restarts == 2


def test_spit13_blocked_with_one_pile_its_cards_go_to_the_player_who_played_it():
    """SPIT-13 with one centre pile (SPIT-11): the pile goes back to the side
    it was on; nothing is taken from the empty side."""
    for live in (0, 1):
        s = _table([[bytes([_H(9)])], [bytes([_S(9)])]], [_H(3), _D(13)])
        s.active[1 - live] = False
        n = len(s.centre[live])
        s.centre[1 - live] = bytearray()
        s.stock[live][1] = s.stock[live][1] + s.centre[1 - live]
        before = [s.count(0), s.count(1)]
        s.check = lambda: None  # the parked cards were taken off the table above
        assert s.apply(1, SPIT, 10) == "spit"
        assert s.apply(0, SPIT, 11) == "blocked"
        want = list(before)
        want[live] += n
        assert s.rounds[-1] == {"blocked": True, "cards": want}


def test_spit9_spit10_clearing_with_two_piles_is_a_play_then_the_slap():
    from test_spit import setup, started
    s = setup(started(), [[bytes([_H(4)])], [bytes([_S(8)])]], [_H(3), _D(13)], (bytes([_S(5)]), bytes([_S(6)])))
    assert s.apply(0, play_action(0, 0), 10) == "play" and s.phase == "slap" and s.cleared == 0
    assert s.apply(0, slap_action(1), 100) == "slap"
    assert refused(s, 1, slap_action(1), 50) == "SPIT-7: actions come in time order (50 is before 100)"
    assert s.apply(1, slap_action(0), 99 + 2) == "round"
    assert s.rounds[-1]["slap"] == 0
    assert s.cleared is None  # a new round: nobody has cleared yet


def test_spit10_one_microsecond_earlier_wins_the_slap():
    from test_spit import setup, started
    s = setup(started(), [[bytes([_H(4)])], [bytes([_S(8)])]], [_H(3), _D(13)], (bytes([_S(5)]), bytes([_S(6)])))
    s.apply(0, play_action(0, 0), 10)
    s.t = 0  # the slaps may be given in either order of time here
    s.slaps[0] = (101, 0)
    assert s.apply(1, slap_action(1), 100) == "round"
    assert s.rounds[-1]["slap"] == 1  # player 2, 1 us earlier, though player 1 cleared


def test_check_says_what_broke():
    s = _table([[bytes([_H(4)])], [bytes([_S(8)])]], [_H(3), _D(13)])
    s.stock[0][0] = bytearray([_S(8)])
    with pytest.raises(AssertionError) as e:
        s.check()
    assert str(e.value) == "cards lost or duplicated"
    s = _table([[bytes([_H(4)])], [bytes([_S(8)])]], [_H(3), _D(13)])
    s.centre[0] += s.stock[0][0] + s.stock[1][0]
    s.stock[0][0] = bytearray()
    s.stock[1][0] = bytearray()
    with pytest.raises(AssertionError) as e:
        s.check()
    assert str(e.value) == "no stock piles left and the game goes on"
    s.phase = "over"
    s._taken = [bytearray(), bytearray()]
    s.check()  # over: no stock piles is the win
