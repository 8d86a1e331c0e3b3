"""Spit at the table level (engine/spit.py): the edges of each rule, where a
player swapped or a count one off would still pass the everyday tests.  Rule
numbers from seeds/spit.md."""
import pytest

from speedref.engine import records, spit
from speedref.engine.errors import RuleError
from speedref.engine.spit import SLAP_GO_US, SpitGame


def raises(rule, fn, *a):
    with pytest.raises(RuleError) as e:
        fn(*a)
    assert e.value.rule == rule, str(e.value)
    return str(e.value)


def rec(rounds):
    return {"game": "spit", "players": ["Ann", "Bob"], "rounds": rounds}


def game_at(a, b):
    """A SpitGame whose second round starts with counts [a, b]."""
    return records.replay(rec([{"cleared": 0, "slap": 1, "cards": [a, b]}]))


def both_spit(g):
    return g.spit(0), g.spit(1)


def test_spit4_spit8_player_2_calling_first_waits_for_player_1():
    g = SpitGame()
    assert g.spit(1) is False and g.phase == "spit" and g.spits == 0 and g.spit_left == [11, 11]
    assert g.spit(1) is False and g.phase == "spit"  # a second call by the same player is one call
    assert g.spit(0) is True and g.phase == "play" and g.spits == 1 and g.spit_left == [10, 10]
    assert g.spit(1) is False and g.restarts == 0 and g.spit_left == [10, 10]
    assert g.spit(0) is True and g.restarts == 1 and g.spits == 2 and g.spit_left == [9, 9]


def test_spit1_a_player_must_be_0_or_1():
    g = SpitGame()
    for bad in (-1, 2, True, None, "0"):
        assert "round 1: player must be 0 or 1" in raises("SPIT-1", g.spit, bad)
    both_spit(g)
    raises("SPIT-1", g.clear, -1)
    raises("SPIT-1", g.clear, True)
    raises("SPIT-1", g.clear, None)
    assert g.phase == "play" and g.cleared is None
    g.clear(1, 0)
    raises("SPIT-1", g.slap, 2)
    raises("SPIT-1", g.false_start, -1, 5)
    raises("SPIT-1", g.false_start, None, 5)


def test_spit13_spit8_block_is_refused_while_one_spit_card_is_held():
    g = game_at(40, 12)  # 25 spit cards and none: one pile, turned one card at a time
    assert g.piles == 1
    both_spit(g)
    while g.spit_left[0] > 1:
        raises("SPIT-8", g.block)
        both_spit(g)
    assert g.spit_left == [1, 0] and g.can_spit()
    assert "a player still has spit cards" in raises("SPIT-8", g.block)
    both_spit(g)
    assert g.spit_left == [0, 0] and not g.can_spit()
    assert "nobody has spit cards left" in raises("SPIT-13", g.spit, 1)
    g.block()
    assert g.blocked and g.phase == "relayout" and g.taker() == 0


def test_spit13_block_only_in_play():
    g = SpitGame()
    raises("SPIT-13", g.block)
    assert g.phase == "spit" and not g.blocked


def test_spit8_a_lone_spitters_last_card_covers_one_of_two_piles():
    g = game_at(17, 35)  # 2 and 20 spit cards, two piles
    both_spit(g)
    both_spit(g)
    assert g.spit_left == [0, 18]
    for _ in range(8):
        both_spit(g)
    assert g.spit_left == [0, 2]
    both_spit(g)
    assert g.spit_left == [0, 0]
    g = game_at(16, 36)  # 1 and 21 spit cards
    both_spit(g)
    assert g.spit_left == [0, 20]
    for _ in range(10):
        both_spit(g)
    assert g.spit_left == [0, 0] and g.restarts == 10


def test_spit15_an_unfinished_game_names_the_leader_or_both_level():
    g = game_at(20, 32)
    assert g.winners() == [0] and g.ended_early and not g.over
    assert g.tiebreak == "ended early: fewer cards (20-32)"
    g = game_at(32, 20)
    assert g.winners() == [1] and g.tiebreak == "ended early: fewer cards (20-32)"
    g = game_at(26, 26)
    assert g.winners() == [0, 1] and g.tiebreak == "ended early: fewer cards (26-26)"
    g = SpitGame()
    assert g.winners() == [0, 1] and g.tiebreak == "no rounds played" and g.hands_played == 0


def test_spit14_the_win_by_player_2_and_its_tiebreak():
    g = game_at(40, 12)  # player 2 has no spit cards: clearing wins
    both_spit(g)
    g.clear(1)
    assert g.over and g.winner == 1 and g.winners() == [1] and g.phase == "over"
    assert g.totals == [52, 0] and g.tiebreak == "got rid of all cards in round 2"
    assert g.rows()[-1] == ("round 2", ["", "out"], [52, 0])
    r = g.to_record()
    assert r["rounds"][-1] == {"cleared": 1, "cards": [52, 0]}
    assert "the game was already won by player 2" in raises(
        "SPIT-14", records.replay, dict(r, rounds=r["rounds"] + [{"blocked": True, "cards": [26, 26]}]))


def test_spit15_rows_of_cleared_and_slapped_rounds():
    g = records.replay(rec([{"cleared": 0, "slap": 0, "cards": [20, 32]},
                            {"cleared": 1, "slap": 0, "cards": [30, 22]},
                            {"cleared": 0, "slap": 1, "cards": [25, 27]}]))
    assert g.rows() == [("round 1", ["cleared won slap", ""], [20, 32]),
                        ("round 2", ["won slap", "cleared"], [30, 22]),
                        ("round 3", ["cleared", "won slap"], [25, 27])]
    g = game_at(40, 12)  # one pile: no slap
    both_spit(g)
    g.clear(0)
    assert g.taker() == 1
    g.relayout(5, 47)
    assert g.rows()[-1] == ("round 2", ["cleared", ""], [5, 47])
    assert g.to_record()["rounds"][-1] == {"cleared": 0, "cards": [5, 47]}


def test_spit10_spit17_spit18_slap_go_and_false_starts():
    g = SpitGame()
    both_spit(g)
    raises("SPIT-17", g.arm_slap, 0)
    raises("SPIT-10", g.slap, 0)
    raises("SPIT-10", g.slap, None)
    g.clear(1, 1000)
    assert g.phase == "slap" and g.slap_go == 1000 + SLAP_GO_US and g.taker() is None
    assert "not a false start" in raises("SPIT-18", g.false_start, 0, 1000 + SLAP_GO_US)
    assert g.false_start(0, 1000 + SLAP_GO_US - 7) == 7
    assert g.slap_go == 1000 + 2 * SLAP_GO_US - 7
    raises("SPIT-18", g.slap, 1, 1000 + 2 * SLAP_GO_US - 8)
    assert g.slap(None, 1000 + 2 * SLAP_GO_US - 7) == 1  # a tie: the clearer takes it
    assert g.slap_winner == 1 and g.phase == "relayout" and g.taker() == 1


def test_spit18_a_false_start_before_any_go_is_refused():
    g = SpitGame()
    both_spit(g)
    g.clear(0)  # no time given: no GO armed yet
    assert g.slap_go is None
    raises("SPIT-18", g.false_start, 1, 0)
    assert g.slap(1) == 1


def test_spit12_spit14_relayout_counts():
    g = SpitGame()
    both_spit(g)
    g.clear(0)
    g.slap(0)
    assert g.count_range() == (11, 40)
    assert "add up to 52" in raises("SPIT-12", g.relayout, 20, 31)
    raises("SPIT-12", g.relayout, -1, 53)
    raises("SPIT-12", g.relayout, True, 51)
    assert "leaves 11..40 cards, not 10" in raises("SPIT-22", g.relayout, 10, 42)
    raises("SPIT-22", g.relayout, 41, 11)
    g.relayout(40, 12)
    assert g.cards == [40, 12] and g.phase == "spit" and g.piles == 1
    assert spit.relayout_ok(1) and spit.relayout_ok(51) and not spit.relayout_ok(0) and not spit.relayout_ok(52)
    assert spit.centre_piles([16, 36]) == 2 and spit.centre_piles([15, 37]) == 1 and spit.centre_piles([37, 15]) == 1


def test_spit15_replay_refuses_another_games_record_and_bad_rounds():
    for r in ({"game": "speed", "players": ["a", "b"], "rounds": []}, [], None):
        assert "not a Spit record" in raises("SPIT-15", spit.replay, r)
    raises("SPIT-15", spit.replay, {"game": "spit", "players": ["a", "b"], "rounds": {}})
    raises("SPIT-15", spit.replay, rec([{"cleared": 0, "slap": 0, "cards": [26]}]))
    raises("SPIT-15", spit.replay, rec(["x"]))
    raises("SPIT-15", spit.replay, rec([{"cleared": True, "slap": 0, "cards": [26, 26]}]))
    raises("SPIT-13", spit.replay, rec([{"blocked": True, "cleared": 0, "cards": [26, 26]}]))
    raises("SPIT-13", spit.replay, rec([{"blocked": True, "slap": 0, "cards": [26, 26]}]))
    assert "going out ends the game" in raises("SPIT-14", spit.replay, rec([{"cleared": 1, "slap": 1, "cards": [52, 0]}]))
    raises("SPIT-12", spit.replay, rec([{"cleared": 1, "cards": [51, 0]}]))
    raises("SPIT-10", spit.replay, rec([{"cleared": 1, "slap": True, "cards": [26, 26]}]))
    r = records.replay(rec([{"cleared": 0, "slap": 1, "cards": [40, 12]}, {"cleared": 1, "cards": [52, 0]}]))
    assert r.winner == 1
    assert "one centre pile, so there is no slap" in raises(
        "SPIT-11", spit.replay, rec([{"cleared": 0, "slap": 1, "cards": [40, 12]}, {"cleared": 0, "slap": 0, "cards": [5, 47]}]))


def test_spit13_spit15_a_blocked_round_is_followed_by_the_next_round():
    g = records.replay(rec([{"blocked": True, "cards": [20, 32]}, {"cleared": 0, "slap": 0, "cards": [18, 34]}]))
    assert g.hands_played == 2 and g.cards == [18, 34]
    assert g.rows() == [("round 1", ["blocked", "blocked"], [20, 32]),
                        ("round 2", ["cleared won slap", ""], [18, 34])]


def test_spit15_replay_messages_name_the_round():
    cases = [
        (rec([{"cleared": 0, "slap": 0, "cards": 5}]), "SPIT-15", "round 1: needs cards [a, b]"),
        (rec([{"blocked": True, "slap": 1, "cards": [20, 32]}]), "SPIT-13",
         "round 1: a blocked round has no clearing and no slap"),
        (rec([{"cleared": 1, "slap": 0, "cards": [52, 0]}]), "SPIT-14",
         "round 1, player 2: going out ends the game; there is no slap"),
    ]
    for r, rule, msg in cases:
        assert raises(rule, spit.replay, r) == rule + ": " + msg
    g = SpitGame()
    assert raises("SPIT-17", g.arm_slap, 0) == "SPIT-17: round 1: the slap's GO only in the slap phase (now spit)"
    assert raises("SPIT-18", g.false_start, 1, 0) == \
        "SPIT-18: round 1, player 2: a false start only in the slap phase (now spit)"


def test_spit22_a_count_out_of_range_names_how_the_round_ended():
    g = SpitGame()
    both_spit(g)
    g.clear(0)
    g.slap(0)
    assert raises("SPIT-22", g.relayout, 10, 42) == \
        "SPIT-22: round 1, player 1: a clearing with two piles leaves 11..40 cards, not 10"
    g = game_at(40, 12)  # player 2 has no spit cards: one centre pile
    both_spit(g)
    g.clear(0)
    assert raises("SPIT-22", g.relayout, 30, 22) == \
        "SPIT-22: round 2, player 1: a clearing with one pile leaves 1..24 cards, not 30"
    g = game_at(40, 12)
    while g.can_spit():
        both_spit(g)
    g.block()
    assert raises("SPIT-22", g.relayout, 39, 13) == \
        "SPIT-22: round 2, player 1: a blocked round leaves 40..51 cards, not 39"
    g.relayout(40, 12)
    assert g.rows()[-1] == ("round 2", ["blocked", "blocked"], [40, 12])


def test_spit18_a_slap_at_or_after_go_is_no_false_start_word_for_word():
    g = SpitGame()
    both_spit(g)
    g.clear(1)  # no time: no GO yet
    assert raises("SPIT-18", g.false_start, 1, 0) == \
        "SPIT-18: round 1, player 2: a slap at or after GO is not a false start"
    g.arm_slap(0)
    assert raises("SPIT-18", g.false_start, 0, SLAP_GO_US) == \
        "SPIT-18: round 1, player 1: a slap at or after GO is not a false start"
    assert g.slap_go == SLAP_GO_US and g.phase == "slap"


def test_spit15_replay_refusals_word_for_word():
    assert raises("SPIT-15", spit.replay, None) == "SPIT-15: not a Spit record"
    assert raises("SPIT-15", spit.replay, {"game": "spit", "players": ["a", "b"], "rounds": {}}) == \
        "SPIT-15: rounds must be a list"
    for bad, said in ((True, "True"), (2, "2"), (None, "None")):
        assert raises("SPIT-15", spit.replay, rec([{"cleared": bad, "slap": 0, "cards": [26, 26]}])) == \
            "SPIT-15: round 1: cleared must be 0 or 1, not " + said
    assert raises("SPIT-12", spit.replay, rec([{"cleared": 1, "cards": [51, 0]}])) == \
        "SPIT-12: round 1, player 2: the two counts must add up to 52"
    for slap, said in ((True, "True"), (None, "None")):
        r = {"cleared": 1, "cards": [26, 26]}
        if slap is not None:
            r["slap"] = slap
        assert raises("SPIT-10", spit.replay, rec([r])) == \
            "SPIT-10: round 1: two centre piles need the slap winner (0 or 1), not " + said
    one_pile = {"cleared": 0, "slap": 1, "cards": [40, 12]}
    assert raises("SPIT-11", spit.replay, rec([one_pile, {"cleared": 0, "slap": 0, "cards": [5, 47]}])) == \
        "SPIT-11: round 2: one centre pile, so there is no slap"


def test_spit14_a_clearer_without_spit_cards_went_out():
    # round 2 starts 12-40: player 1 has no spit cards, so clearing is the win (cards 0)
    first = {"cleared": 0, "slap": 0, "cards": [12, 40]}
    assert raises("SPIT-14", spit.replay, rec([first, {"cleared": 0, "cards": [5, 47]}])) == \
        "SPIT-14: round 2, player 1: had no spit cards left after Spit!, so clearing the piles is going " \
        "out (cards must be 0)"
    # round 2 starts 16-36: player 1's one spit card goes up at Spit!
    first = {"cleared": 1, "slap": 0, "cards": [16, 36]}
    assert raises("SPIT-14", spit.replay, rec([first, {"cleared": 0, "slap": 1, "cards": [10, 42]}])) == \
        "SPIT-14: round 2, player 1: had no spit cards left after Spit!, so clearing the piles is going " \
        "out (cards must be 0)"
    g = records.replay(rec([first, {"cleared": 0, "cards": [0, 52]}]))
    assert g.over and g.winner == 0 and g.winners() == [0]
