"""Speed Run at the table level (engine/speedrun.py): the edges of each rule,
where a seat off by one or a code range one too wide would still pass the
everyday tests.  Rule numbers from seeds/speedrun.md."""
import pytest

from speedref.engine import records, speedrun
from speedref.engine.errors import RuleError
from speedref.engine.speedrun import SpeedRunGame

NAMES = ["Ann", "Bea", "Cy"]


def raises(rule, fn, *a, **kw):
    with pytest.raises(RuleError) as e:
        fn(*a, **kw)
    assert e.value.rule == rule, str(e.value)
    return str(e.value)


def rec(hands, length="short"):
    return {"game": "speedrun", "length": length, "players": list(NAMES), "hands": hands}


def counted(g, tricks, contracts, trump="none", ranking="10-high"):
    g.set_choices(trump, ranking)
    g.set_tricks(tricks)
    return g.finish_hand(contracts)


def test_sr8_sr29_undoing_a_trick_takes_back_one_winner_only():
    g = SpeedRunGame("short", NAMES)
    g.set_choices("geckos", "10-high")
    assert g.next_leader() == 2  # SR-8: the seat that chose nothing
    for s in (0, 1, 2):
        g.record_trick(s)
    assert g.next_leader() == 2
    g.undo()
    assert g.next_leader() == 1 and g.tricks == [1, 1, 0] and g.tricks_played() == 2
    g.undo_trick()
    assert g.next_leader() == 0 and g.tricks == [1, 0, 0]
    g.undo_trick()
    assert g.next_leader() == 2 and g.tricks == [0, 0, 0]
    raises("SR-12", g.undo_trick)


def test_sr21_undo_trick_skips_the_reveals_after_it():
    g = SpeedRunGame("short", NAMES)
    g.set_choices("none", "1-high")
    g.record_trick(1)
    g.record_trick(0)
    g.reveal(2, "W4")
    g.undo_trick()
    assert g.tricks == [0, 1, 0] and g.revealed == [None, None, "W4"] and g.next_leader() == 1
    g.undo()  # the reveal is now the last entry
    assert g.revealed == [None, None, None] and g.tricks == [0, 1, 0]


def test_sr5_a_record_without_first_starts_at_seat_0_and_passes_clockwise():
    hand = {"tricks": [4, 4, 4], "contracts": ["W4", "W4", "W4"]}
    g = records.replay(rec([dict(hand), dict(hand, contracts=["W5", "W5", "W5"])]))
    assert [h["first"] for h in g.hands] == [0, 1]
    assert g.first == 2 and g.choosers() == (2, 0) and g.leader() == 1
    g = records.replay(rec([dict(hand, first=2), dict(hand, contracts=["W5", "W5", "W5"])]))
    assert [h["first"] for h in g.hands] == [2, 0] and g.first == 1
    msg = raises("SR-5", records.replay, rec([dict(hand, first=1), dict(hand, first=1)]))
    assert "hand 2, all players: the first-player card is with player 3 (Cy) (it passes clockwise), " \
           "not player 2 (Bea)" in msg
    for bad in (3, -1, True, "0"):
        raises("SR-5", records.replay, rec([dict(hand, first=bad)]))


def test_sr5_sr7_sr8_who_chooses_and_who_leads():
    for first, choosers, leader in ((0, (0, 1), 2), (1, (1, 2), 0), (2, (2, 0), 1)):
        g = SpeedRunGame("short", NAMES, first=first)
        assert g.choosers() == choosers and g.leader() == leader and g.next_leader() == leader
    for bad in (3, -1, True):
        raises("SR-5", SpeedRunGame, "short", NAMES, bad)


def test_sr30_a_foul_w0_is_shown_as_a_foul_not_a_redo():
    g = SpeedRunGame("short", NAMES)
    counted(g, [0, 6, 6], ["W0", "W5", "W4"])
    assert g.foul_cards(0) == ["W0"] and g.foul_cards(1) == ["W5"]
    assert SpeedRunGame("short", NAMES).foul_cards(0) == ["REDO"]
    counted(g, [5, 3, 4], ["FOUL:W0", "REDO:W5", "MIDDLE"])
    rows = g.rows()
    assert rows[0] == ("hand 1", ["W0 0: -2", "W5 6: 1", "W4 6: 2"], [-2, 1, 2])
    assert rows[1] == ("hand 2", ["FOUL:W0 5: 12", "REDO:W5 3: 2 keeps 1", "MIDDLE 4: -2"], [10, 1, 0])
    assert g.hand(1)["contracts"] == ["FOUL:W0", "REDO:W5", "MIDDLE"]
    assert records.replay(g.to_record()).rows() == rows


def test_sr30_foul_checks():
    g = SpeedRunGame("short", NAMES)
    g.set_choices("none", "10-high")
    g.set_tricks([4, 4, 4])
    assert "FOUL:W4: W4 may be played, so it is no foul" in raises(
        "SR-30", g.finish_hand, ["FOUL:W4", "W4", "W4"])
    assert "W9 is no contract card of a short game" in raises("SR-30", g.finish_hand, ["FOUL:W9", "W4", "W4"])
    assert g.finish_hand(["FOUL:REDO", "PASS", "W4"]) == [12, None, -2]
    assert g.held[0].count("REDO") == 0 and g.held[1].count("PASS") == 0
    assert g.totals == [12, 0, -2]


def test_sr20_sr23_sr26_a_redo_keeps_the_lower_and_counts_a_kept_perfect_bonus():
    g = SpeedRunGame("medium", NAMES)
    counted(g, [2, 5, 5], ["W4", "W5", "W5"])  # 2, -2, -2
    assert g.perfects == [0, 1, 1]
    counted(g, [4, 4, 4], ["REDO:W4", "W4", "W4"])  # kept -2: a Perfect Bonus now on the sheet
    assert g.totals == [-2, -4, -4] and g.perfects == [1, 2, 2] and g.sheet[0] == {"W4": -2}
    counted(g, [4, 4, 4], ["W1", "REDO:W5", "W1"])  # Bea's redo misses by 1: keeps -2
    assert g.sheet[1] == {"W5": -2, "W4": -2} and g.perfects[1] == 2 and g.totals[1] == -4
    assert g.rows()[2][1][1] == "REDO:W5 4: 1 keeps -2"


def test_sr24_sr25_sr26_sr27_tiebreak_order():
    g = SpeedRunGame("short", NAMES)
    assert g.winners() == [0, 1, 2] and g.tiebreak == "shared"
    counted(g, [4, 4, 4], ["W4", "W5", "PASS"])  # -2, 1, 0
    assert g.winners() == [0] and g.tiebreak == "lowest total"
    counted(g, [4, 6, 2], ["W1", "PASS", "W5"])  # 3, 0, 3 -> 1, 1, 3
    assert g.totals == [1, 1, 3] and g.winners() == [0] and g.tiebreak == "more completed contracts"
    g = SpeedRunGame("short", NAMES)
    counted(g, [4, 5, 3], ["W4", "W4", "W1"])  # -2, 1, 2
    counted(g, [0, 4, 8], ["W1", "W5", "W5"])  # 1, 1, 3 -> -1, 2, 5
    counted(g, [6, 1, 5], ["W5", "W0", "W4"])  # 1, 1, 1 -> 0, 3, 6
    assert g.totals == [0, 3, 6] and g.tiebreak == "lowest total"


def test_sr12_trick_entries_checks():
    g = SpeedRunGame("short", NAMES)
    raises("SR-7", g.record_trick, 0)
    raises("SR-9", g.direction)
    g.set_choices("none", "bell-1")
    assert g.direction() == 1 and g.direction(5) == 10 and g.direction(12) == 1
    raises("SR-12", g.direction, 0)
    raises("SR-12", g.direction, 13)
    for bad in (3, -1):
        raises("SR-11", g.record_trick, bad)
    raises("SR-12", g.set_tricks, [4, 4, 5])
    raises("SR-12", g.set_tricks, [4, 4, True])
    g.record_trick(0)
    assert "tricks already recorded one by one" in raises("SR-12", g.set_tricks, [4, 4, 4])
    for _ in range(11):
        g.record_trick(1)
    assert g.phase == "score" and g.direction(12) == 1
    raises("SR-12", g.record_trick, 2)
    raises("SR-21", g.reveal, 0, "W4")


def test_sr9_direction_of_each_ranking():
    want = {"10-high": [10] * 12, "1-high": [1] * 12,
            "slalom-10": [10, 1] * 6, "slalom-1": [1, 10] * 6,
            "bell-10": [10] * 4 + [1] * 4 + [10] * 4, "bell-1": [1] * 4 + [10] * 4 + [1] * 4}
    for ranking, dirs in want.items():
        assert [speedrun.direction(ranking, n) for n in range(1, 13)] == dirs, ranking


def test_sr14_sr15_sr16_sr21_differences_and_scores():
    assert speedrun.difference("W4", [6, 3, 3], 0) == 2 and speedrun.difference("W4", [3, 6, 3], 0) == 1
    assert speedrun.difference("FEWEST", [5, 5, 2], 2) == 0 and speedrun.difference("MIDDLE", [5, 5, 2], 0) == 0
    assert speedrun.difference("MOST", [5, 5, 2], 2) == 3 and speedrun.difference("FEWEST", [6, 4, 2], 0) == 4
    assert speedrun.difference("MIDDLE", [6, 4, 2], 2) == 2 and speedrun.difference("W0", [12, 0, 0], 0) == 12
    assert speedrun.score(0, False) == -2 and speedrun.score(0, True) == -4
    assert speedrun.score(3, False) == 3 and speedrun.score(3, True) == 6


def test_sr29_replay_refuses_another_games_record():
    for r in ({"game": "speed", "length": "short", "players": NAMES, "hands": []}, [], None):
        assert "not a Speed Run record" in raises("SR-29", speedrun.replay, r)
    raises("SR-29", speedrun.replay, dict(rec([]), hands={}))
    raises("SR-29", speedrun.replay, rec([3]))
    raises("SR-13", speedrun.replay, rec([{"tricks": [4, 4, 4], "contracts": ["W4", "W4"]}]))
    raises("SR-29", speedrun.replay, rec([{"tricks": [4, 4, 4], "contracts": ["W4"] * 3, "revealed": [True]}]))
    raises("SR-29", speedrun.replay, rec([{"tricks": [4, 4, 4], "contracts": ["W4"] * 3, "revealed": [1, 0, 0]}]))
    raises("SR-7", speedrun.replay, rec([{"tricks": [4, 4, 4], "contracts": ["W4"] * 3, "trump": "moles"}]))
    raises("SR-9", speedrun.replay, rec([{"tricks": [4, 4, 4], "contracts": ["W4"] * 3, "ranking": "up"}]))
    raises("SR-30", speedrun.replay, rec([{"tricks": [4, 4, 4], "contracts": ["FOUL:REDO", "W4", "W4"],
                                           "revealed": [True, False, False]}]))
    raises("SR-22", speedrun.replay, rec([{"tricks": [4, 4, 4], "contracts": ["PASS", "W4", "W4"],
                                           "revealed": [True, False, False]}]))


def test_sr28_the_game_is_over_after_its_last_hand_and_not_before():
    g = SpeedRunGame("short", NAMES)
    for c in ("W0", "W1", "W4", "W5", "MIDDLE"):
        counted(g, [4, 4, 4], [c, c, c])
        assert not g.over and g.ended_early
    counted(g, [4, 4, 4], ["PASS", "PASS", "PASS"])
    assert g.over and not g.ended_early and g.phase == "over" and g.hands_played == 6
    raises("SR-28", g.set_choices, "none", "10-high")
    raises("SR-28", g.record_trick, 0)
    raises("SR-28", records.replay, dict(g.to_record(), hands=g.hands + [g.hand(0)]))
    g.undo()
    assert not g.over and g.phase == "score" and g.hands_played == 5


def revealed_by_player_1():
    """A hand with one trick (player 3's) and then player 1's reveal: seat
    0's reveal is the smallest reveal code in the hand's log."""
    g = SpeedRunGame("short", NAMES)
    g.set_choices("none", "10-high")
    g.record_trick(2)
    g.reveal(0, "W0")
    return g


def test_sr21_undo_trick_skips_a_reveal_by_player_1():
    g = revealed_by_player_1()
    g.undo_trick()
    assert g.tricks == [0, 0, 0] and g.revealed == ["W0", None, None] and g.next_leader() == 2


def test_sr19_sr21_a_revealed_redo_names_its_target():
    g = SpeedRunGame("short", NAMES)
    counted(g, [4, 4, 4], ["W4", "W4", "W4"])
    g.set_choices("none", "10-high")
    g.reveal(1, "REDO:W4")
    assert g.redo_targets(1) == ["W4"] and g.legal_contracts(1) == ["REDO"]
    assert g.redo_targets(0) == ["W4"]
    g.reveal(2, "REDO")
    assert g.legal_contracts(2) == ["REDO"] and g.redo_targets(2) == ["W4"]


def test_sr29_sr13_sr30_messages_say_who_and_what():
    assert raises("SR-1", SpeedRunGame, "short", ["a", "b"]) == "SR-1: Speed Run needs exactly three player names"
    assert raises("SR-2", SpeedRunGame, "tiny", NAMES) == "SR-2: length must be short, medium or long, not 'tiny'"
    g = SpeedRunGame("short", NAMES)
    assert raises("SR-29", g.undo) == "SR-29: nothing to undo"
    g.set_choices("none", "10-high")
    assert raises("SR-22", g.reveal, 2, "PASS") == "SR-22: hand 1, player 3 (Cy): a Pass cannot be revealed"
    g.reveal(1, "W1")
    g.set_tricks([4, 4, 4])
    assert raises("SR-21", g.finish_hand, ["W4", "W5", "W4"]) == \
        "SR-21: hand 1, player 2 (Bea): revealed W1 but played 'W5'"
    assert raises("SR-30", g.finish_hand, ["FOUL:W7", "W1", "W4"]) == \
        "SR-30: hand 1, player 1 (Ann): FOUL:W7: W7 is no contract card of a short game"
    assert raises("SR-3", g.finish_hand, [3, "W1", "W4"]) == \
        "SR-3: hand 1, player 1 (Ann): contract 3 is not a contract name"
    assert raises("SR-3", g.finish_hand, ["W2", "W1", "W4"]) == "SR-3: hand 1, player 1 (Ann): 'W2' is not a contract"
    assert raises("SR-13", g.finish_hand, ["W4", "W1"]) == "SR-13: hand 1, all players: one contract per player"
    g.finish_hand(["PASS", "W1", "W4"])
    g.set_choices("none", "10-high")
    g.set_tricks([4, 4, 4])
    assert raises("SR-13", g.finish_hand, ["PASS", "W4", "W1"]) == \
        "SR-13: hand 2, player 1 (Ann): PASS is not in that player's hand"
    assert raises("SR-13", g.finish_hand, ["W4", "W1", "W4"]) == \
        "SR-13: hand 2, player 2 (Bea): W1 was already completed (only a Redo can play it again)"
    assert raises("SR-19", g.finish_hand, ["REDO:W4", "W4", "W1"]) == \
        "SR-19: hand 2, player 1 (Ann): REDO:W4 names W4, which that player has not completed"
    g.finish_hand(["W4", "REDO:W1", "W1"])
    g.set_choices("none", "10-high")
    g.set_tricks([4, 4, 4])
    assert raises("SR-13", g.finish_hand, ["W0", "REDO:W1", "W0"]) == \
        "SR-13: hand 3, player 2 (Bea): REDO is not in that player's hand"
    assert raises("SR-29", speedrun.replay, rec(["x"])) == "SR-29: hand 1, all players: a hand is a JSON object"
    assert raises("SR-13", speedrun.replay, rec([{"tricks": [4, 4, 4], "contracts": "W4"}])) == \
        "SR-13: hand 1, all players: contracts must list one contract per player"


def test_sr11_a_card_of_another_suit_than_the_led_and_the_trump_beats_nothing():
    from speedref.engine import speedrun_cards as sp
    e5, r10, g3, w7 = 0 * 16 + 5, 1 * 16 + 10, 2 * 16 + 3, 3 * 16 + 7
    assert not sp.beats(r10, g3, 0, -1, 10)  # neither is of the led suit: no win
    assert not sp.beats(g3, r10, 0, -1, 1)
    assert sp.beats(e5, r10, 0, -1, 10) and not sp.beats(r10, e5, 0, -1, 10)
    assert sp.beats(w7, e5, 0, 3, 10) and not sp.beats(e5, w7, 0, 3, 1)


def test_sr1_sr2_the_card_levels_defaults_are_a_long_game_of_p1_p2_p3():
    from speedref.engine.speedrun_cards import State
    st = State(1)
    assert st.game.length == "long" and st.game.players == ["P1", "P2", "P3"] and st.game.first == 0
    assert st.contracts == [None, None, None] and st.phase == "deal" and st.actors() == []


def test_sr12_the_words_of_each_impossible_trick_count():
    g = SpeedRunGame("short", NAMES)
    g.set_choices("none", "10-high")
    three = "SR-12: hand 1, all players: tricks must list three counts"
    assert raises("SR-12", g.set_tricks, [4, 8]) == three
    assert raises("SR-12", g.set_tricks, "444") == three
    assert raises("SR-12", g.set_tricks, [4, -1, 9]) == \
        "SR-12: hand 1, all players: trick counts must be whole numbers, not -1"
    assert raises("SR-12", g.set_tricks, [4, 4.0, 4]) == \
        "SR-12: hand 1, all players: trick counts must be whole numbers, not 4.0"
    # each count in its place, and their real sum
    assert raises("SR-12", g.set_tricks, [5, 4, 4]) == "SR-12: hand 1, all players: tricks 5+4+4 add up to 13, not 12"
    assert raises("SR-12", g.set_tricks, [2, 3, 4]) == "SR-12: hand 1, all players: tricks 2+3+4 add up to 9, not 12"
    assert g.tricks == [0, 0, 0] and g.phase == "play"
    assert raises("SR-12", speedrun.replay, rec([{"tricks": [1, 6, 4], "contracts": ["W4"] * 3}])) == \
        "SR-12: hand 1, all players: tricks 1+6+4 add up to 11, not 12"


def test_sr12_counts_at_once_only_in_play_and_before_any_trick():
    g = SpeedRunGame("short", NAMES)
    before = "SR-12: hand 1, all players: trick counts can be entered only before any trick is recorded"
    assert raises("SR-12", g.set_tricks, [4, 4, 4]) == before  # trump and ranking not set yet
    g.set_choices("none", "10-high")
    g.record_trick(0)
    assert raises("SR-12", g.set_tricks, [4, 4, 4]) == "SR-12: hand 1, all players: tricks already recorded one by one"
    for _ in range(11):
        g.record_trick(1)
    assert raises("SR-12", g.set_tricks, [4, 4, 4]) == before  # twelve tricks in: the scoring step
    assert g.tricks == [1, 11, 0] and g.phase == "score"


def test_sr12_sr29_counts_entered_at_once_are_reopened_as_entered():
    g = SpeedRunGame("short", NAMES)
    g.set_choices("none", "10-high")
    g.set_tricks([5, 3, 4])
    assert g.winners_seq is None and g.phase == "score"  # piles counted: no order of winners
    g.finish_hand(["W5", "W1", "W4"])
    g.undo()  # the hand reopens at its scoring step, each count in its seat
    assert g.tricks == [5, 3, 4] and g.winners_seq is None and g.phase == "score" and g.totals == [0, 0, 0]
    g.undo()  # the counts
    assert g.tricks == [0, 0, 0] and g.phase == "play" and g.next_leader() == 2  # SR-8
    g.record_trick(1)  # tricks one by one again
    assert g.tricks == [0, 1, 0] and list(g.winners_seq) == [1] and g.next_leader() == 1


def test_sr21_sr29_undo_takes_back_a_reveal_by_player_1():
    g = revealed_by_player_1()
    g.undo()
    assert g.revealed == [None, None, None] and g.tricks == [0, 0, 1] and g.next_leader() == 2
    assert list(g.winners_seq) == [2]


def test_sr12_undo_trick_with_no_trick_says_so():
    g = SpeedRunGame("short", NAMES)
    g.set_choices("none", "10-high")
    g.reveal(1, "W4")
    assert raises("SR-12", g.undo_trick) == "SR-12: hand 1, all players: no trick to take back"
    assert g.revealed == [None, "W4", None]


def test_sr21_rows_star_the_contract_each_player_revealed():
    g = SpeedRunGame("short", NAMES)
    g.set_choices("none", "10-high")
    g.reveal(1, "W4")
    g.reveal(2, "W5")
    g.set_tricks([4, 4, 4])
    g.finish_hand(["W4", "W4", "W5"])
    g.set_choices("none", "10-high")
    g.reveal(0, "W5")
    g.set_tricks([4, 4, 4])
    g.finish_hand(["W5", "W1", "W4"])
    assert g.rows() == [("hand 1", ["W4 4: -2", "W4* 4: -4", "W5* 4: 2"], [-2, -4, 2]),
                        ("hand 2", ["W5* 4: 2", "W1 4: 3", "W4 4: -2"], [0, -1, 0])]


def test_sr20_a_redo_of_win_0_shows_what_the_sheet_keeps():
    g = SpeedRunGame("short", NAMES)
    counted(g, [0, 6, 6], ["W0", "W5", "W4"])
    counted(g, [1, 5, 6], ["REDO:W0", "W4", "W1"])  # REDO:W0: the first Redo code
    assert g.rows()[1] == ("hand 2", ["REDO:W0 1: 1 keeps -2", "W4 5: 1", "W1 6: 5"], [-2, 2, 7])


def test_sr29_record_refusals_word_for_word():
    assert raises("SR-29", speedrun.replay, []) == "SR-29: record: not a Speed Run record"
    assert raises("SR-29", speedrun.replay, dict(rec([]), hands={})) == "SR-29: record: hands must be a list"
    hand = {"tricks": [4, 4, 4], "contracts": ["W4"] * 3}
    assert raises("SR-29", speedrun.replay, rec([dict(hand, revealed=[True])])) == \
        "SR-29: hand 1, all players: revealed must list three true/false values"
    assert raises("SR-7", speedrun.replay, rec([dict(hand, trump="moles")])) == \
        "SR-7: hand 1, all players: trump 'moles' is not one of earthworms, raccoons, geckos, gorillas, none"
    assert raises("SR-9", speedrun.replay, rec([dict(hand, ranking="up")])) == \
        "SR-9: hand 1, all players: ranking 'up' is not one of 10-high, 1-high, slalom-10, slalom-1, bell-10, bell-1"


def test_sr5_sr29_a_wrong_first_is_quoted_as_written_or_as_a_player():
    hand = {"tricks": [4, 4, 4], "contracts": ["W4"] * 3}
    for bad, said in ((3, "3"), ("0", "'0'"), (True, "True"), (None, "None")):
        assert raises("SR-5", speedrun.replay, rec([dict(hand, first=bad)])) == \
            'SR-5: hand 1, all players: "first" is a seat 0..2 (players 1..3), not ' + said
    # after hand 1 the card is with seat 1; seat 0 written is named as player 1
    second = dict(hand, contracts=["W5"] * 3)
    assert raises("SR-5", speedrun.replay, rec([hand, dict(second, first=0)])) == \
        "SR-5: hand 2, all players: the first-player card is with player 2 (Bea) (it passes clockwise), " \
        "not player 1 (Ann)"
    assert raises("SR-5", speedrun.replay, rec([hand, dict(second, first=7)])) == \
        "SR-5: hand 2, all players: the first-player card is with player 2 (Bea) (it passes clockwise), not 7"
