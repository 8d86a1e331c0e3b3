"""Speed Run, table level: rule by rule (SR numbers from seeds/speedrun.md)."""
import pytest

from speedref.engine import records
from speedref.engine import speedrun as sr
from speedref.engine.errors import RuleError
from speedref.engine.speedrun import SpeedRunGame, replay

P = ["Ann", "Bob", "Cy"]


def rec(hands, length="short", players=P):
    return {"game": "speedrun", "length": length, "players": list(players), "hands": hands}


def H(tricks, contracts, revealed=None, **kw):
    h = {"tricks": list(tricks), "contracts": list(contracts)}
    if revealed is not None:
        h["revealed"] = list(revealed)
    h.update(kw)
    return h


def raises(rule, fn, *a):
    with pytest.raises(RuleError) as e:
        fn(*a)
    assert e.value.rule == rule, str(e.value)
    return str(e.value)


def snapshot(g):
    return (g.to_record(), g.phase, list(g.tricks), list(g.revealed), g.trump, g.ranking,
            [list(h) for h in g.held], [dict(s) for s in g.sheet], list(g.totals), g.first, list(g._log))


def live_hand(g, winners, contracts, trump="none", ranking="10-high", reveals=()):
    g.set_choices(trump, ranking)
    for seat, c in reveals:
        g.reveal(seat, c)
    for w in winners:
        g.record_trick(w)
    return g.finish_hand(contracts)


# -- players, lengths, contract cards ----------------------------------------

def test_sr1_exactly_three_players():
    raises("SR-1", SpeedRunGame, "short", ["A", "B"])
    raises("SR-1", SpeedRunGame, "short", ["A", "B", "C", "D"])
    raises("SR-1", replay, rec([], players=["A", "B"]))
    assert SpeedRunGame("short", P).players == P


@pytest.mark.parametrize("length,hands", [("short", 6), ("medium", 9), ("long", 12)])
def test_sr2_lengths_and_sr4_one_card_more_than_hands(length, hands):
    g = SpeedRunGame(length, P)
    assert g.hands_total == hands
    assert [len(h) for h in g.held] == [hands + 1] * 3  # SR-4


def test_sr2_unknown_length_is_rejected():
    raises("SR-2", SpeedRunGame, "huge", P)
    raises("SR-2", replay, rec([], length="Long"))


def test_sr3_contract_sets_per_length():
    short = ["W0", "W1", "W4", "W5", "MIDDLE", "PASS", "REDO"]
    assert sorted(sr.contract_cards("short")) == sorted(short)
    assert sorted(sr.contract_cards("medium")) == sorted(short + ["W7", "MOST", "PASS"])
    assert sorted(sr.contract_cards("long")) == sorted(short + ["W7", "MOST", "PASS", "W9", "FEWEST", "REDO"])


def test_sr3_unknown_contract_names_are_invalid():
    msg = raises("SR-3", replay, rec([H([4, 4, 4], ["W3", "W4", "W4"])]))
    assert msg.startswith("SR-3: hand 1, player 1 (Ann):")
    raises("SR-3", replay, rec([H([4, 4, 4], ["W4", "REDO", "W4"])]))  # a Redo must name its contract
    raises("SR-3", replay, rec([H([4, 4, 4], ["W4", 4, "W4"])]))


# -- each hand ----------------------------------------------------------------

def test_sr5_first_player_card_passes_clockwise():
    g = SpeedRunGame("short", P, first=2)
    seen = []
    for c in ("PASS", "W4", "W0"):
        seen.append(g.first)
        g.set_choices("none", "10-high")
        g.set_tricks([4, 4, 4])
        g.finish_hand([c] * 3)
    assert seen == [2, 0, 1]
    assert [h["first"] for h in g.hands] == [2, 0, 1]


def test_sr5_record_first_is_free_on_hand_1_then_must_follow_the_card():
    g = replay(rec([H([4, 4, 4], ["W4"] * 3, first=1), H([4, 4, 4], ["W0"] * 3, first=2)]))
    assert g.first == 0 and g.hands[0]["first"] == 1
    msg = raises("SR-5", replay, rec([H([4, 4, 4], ["W4"] * 3, first=1), H([4, 4, 4], ["W0"] * 3, first=1)]))
    assert "hand 2" in msg
    raises("SR-5", replay, rec([H([4, 4, 4], ["W4"] * 3, first=3)]))
    raises("SR-5", replay, rec([H([4, 4, 4], ["W4"] * 3, first=True)]))


def test_sr5_first_player_is_a_json_int_not_a_float():
    # A float seat was let through and crashed the row (TypeError), not a RuleError.
    raises("SR-5", replay, rec([H([4, 4, 4], ["W4"] * 3, first=2.0)]))
    raises("SR-5", replay, rec([H([4, 4, 4], ["W4"] * 3, first=1), H([4, 4, 4], ["W0"] * 3, first=2.0)]))
    raises("SR-5", SpeedRunGame, "short", P, 1.0)


def test_sr7_sr8_who_chooses_and_who_leads():
    g = SpeedRunGame("short", P, first=1)
    assert g.choosers() == (1, 2) and g.leader() == 0
    assert g.next_leader() == 0
    g.set_choices("geckos", "1-high")
    g.record_trick(2)
    assert g.next_leader() == 2  # SR-8: the winner leads the next trick
    g.record_trick(1)
    assert g.next_leader() == 1


def test_sr7_choices_are_checked_and_needed_before_tricks():
    g = SpeedRunGame("short", P)
    raises("SR-7", g.record_trick, 0)
    raises("SR-7", g.set_choices, "hearts", "10-high")
    raises("SR-9", g.set_choices, "none", "slalom")
    assert g.phase == "choose" and g.trump is None
    g.set_choices("none", "slalom-1")
    raises("SR-7", g.set_choices, "geckos", "10-high")
    raises("SR-7", replay, rec([H([4, 4, 4], ["W4"] * 3, trump="clubs")]))
    raises("SR-9", replay, rec([H([4, 4, 4], ["W4"] * 3, ranking="10 high")]))


DIRECTIONS = {
    "10-high": [10] * 12,
    "1-high": [1] * 12,
    "slalom-10": [10, 1] * 6,
    "slalom-1": [1, 10] * 6,
    "bell-10": [10] * 4 + [1] * 4 + [10] * 4,
    "bell-1": [1] * 4 + [10] * 4 + [1] * 4,
}


@pytest.mark.parametrize("ranking", sr.RANKINGS)
def test_sr9_direction_of_every_trick(ranking):
    assert [sr.direction(ranking, n) for n in range(1, 13)] == DIRECTIONS[ranking]
    g = SpeedRunGame("short", P)
    g.set_choices("none", ranking)
    for n in range(12):
        assert g.direction() == DIRECTIONS[ranking][n]  # the trick about to be played
        g.record_trick(n % 3)
    raises("SR-12", g.direction)  # no thirteenth trick
    raises("SR-12", g.direction, 0)


def test_sr12_tricks_must_add_up_to_12():
    msg = raises("SR-12", replay, rec([H([4, 4, 3], ["W4"] * 3)]))
    assert msg == "SR-12: hand 1, all players: tricks 4+4+3 add up to 11, not 12"
    raises("SR-12", replay, rec([H([13, -1, 0], ["W4"] * 3)]))
    raises("SR-12", replay, rec([H([4, 4], ["W4"] * 3)]))
    raises("SR-12", replay, rec([H([4.0, 4, 4], ["W4"] * 3)]))
    g = SpeedRunGame("short", P)
    g.set_choices("none", "10-high")
    for _ in range(12):
        g.record_trick(0)
    raises("SR-12", g.record_trick, 1)  # no thirteenth trick
    raises("SR-12", SpeedRunGame("short", P).finish_hand, ["W4"] * 3)


def test_sr12_undo_trick_and_counts_entered_at_once():
    g = SpeedRunGame("short", P)
    g.set_choices("none", "10-high")
    g.record_trick(0)
    g.record_trick(1)
    g.undo_trick()
    assert g.tricks == [1, 0, 0] and g.next_leader() == 0
    g.undo_trick()
    raises("SR-12", g.undo_trick)
    raises("SR-12", g.set_tricks, [5, 5, 1])
    g.set_tricks([5, 5, 2])
    assert g.phase == "score"
    assert g.finish_hand(["W5", "W5", "W1"]) == [-2, -2, 1]


def test_sr13_contract_must_be_in_hand_and_is_used_up():
    raises("SR-13", replay, rec([H([4, 4, 4], ["W7", "W4", "W4"])]))  # no Win 7 in Short
    msg = raises("SR-13", replay, rec([H([4, 4, 4], ["W4"] * 3), H([4, 4, 4], ["W0", "W4", "W0"])]))
    assert msg.startswith("SR-13: hand 2, player 2 (Bob): W4 was already completed")
    # one Pass in Short: a second one is not in hand
    raises("SR-13", replay, rec([H([4, 4, 4], ["PASS"] * 3), H([4, 4, 4], ["PASS", "W4", "W4"])]))
    g = SpeedRunGame("short", P)
    live_hand(g, [0] * 12, ["W4", "PASS", "W1"])
    assert "W4" not in g.legal_contracts(0) and "PASS" not in g.legal_contracts(1)


# -- scoring ------------------------------------------------------------------

SCORES = [
    # contract, tricks, seat, revealed, sheet score
    ("W4", [6, 3, 3], 0, False, 2),      # SR-14: Win 4 with six tricks
    ("W4", [3, 6, 3], 0, False, 1),      # SR-14: Win 4 with three tricks
    ("W4", [4, 6, 2], 0, False, -2),     # SR-16: exact
    ("W0", [0, 6, 6], 0, False, -2),
    ("W9", [0, 3, 9], 2, False, -2),
    ("W9", [0, 12, 0], 1, False, 3),
    ("W1", [12, 0, 0], 0, True, 22),     # SR-21: doubled miss
    ("W4", [4, 6, 2], 0, True, -4),      # SR-21: doubled Perfect Bonus
    ("W4", [6, 3, 3], 1, True, 2),       # SR-21: a miss by one revealed is 2
    ("FEWEST", [2, 5, 5], 0, False, -2),  # SR-15
    ("FEWEST", [2, 5, 5], 1, False, 3),
    ("MIDDLE", [2, 5, 5], 1, False, -2),  # SR-15: tied for middle holds it
    ("MIDDLE", [2, 5, 5], 0, False, 3),
    ("MOST", [2, 5, 5], 2, False, -2),
    ("MOST", [6, 6, 0], 2, False, 6),
    ("FEWEST", [4, 4, 4], 1, False, -2),  # SR-15: all tied: every place held
    ("MIDDLE", [4, 4, 4], 2, False, -2),
    ("MOST", [4, 4, 4], 0, False, -2),
    ("MIDDLE", [1, 3, 8], 0, False, 2),
    ("MIDDLE", [1, 3, 8], 2, True, 10),
    ("FEWEST", [0, 0, 12], 2, True, 24),
]


@pytest.mark.parametrize("contract,tricks,seat,revealed,expected", SCORES)
def test_sr14_sr15_sr16_sr21_known_scores(contract, tricks, seat, revealed, expected):
    assert sr.score(sr.difference(contract, tricks, seat), revealed) == expected
    # and through a whole record: the seat plays it, the others pass
    contracts = ["PASS"] * 3
    contracts[seat] = contract
    flags = [False] * 3
    flags[seat] = revealed
    g = replay(rec([H(tricks, contracts, flags)], length="long"))
    assert g.totals[seat] == expected and g.sheet[seat] == {contract: expected}


def test_sr17_completed_means_played_hit_or_missed():
    g = replay(rec([H([12, 0, 0], ["W0", "W4", "MIDDLE"])]))
    assert g.completed == [["W0"], ["W4"], ["MIDDLE"]]  # all missed, all completed
    assert g.redo_targets(0) == ["W0"] and "REDO" in g.legal_contracts(0)
    g = replay(rec([H([12, 0, 0], ["PASS", "W4", "MIDDLE"])]))
    assert g.completed[0] == [] and "REDO" not in g.legal_contracts(0)  # Pass is not completed


def test_sr18_pass_writes_nothing():
    g = replay(rec([H([4, 4, 4], ["W4", "W4", "W4"]), H([12, 0, 0], ["PASS", "W0", "W0"])]))
    assert g.totals[0] == -2 and g.sheet[0] == {"W4": -2}
    assert g.rows()[1][1][0] == "PASS" and g.rows()[1][2][0] == -2


def test_sr19_redo_needs_a_completed_contract():
    msg = raises("SR-19", replay, rec([H([4, 4, 4], ["REDO:W4", "W4", "W4"])]))
    assert msg.startswith("SR-19: hand 1, player 1 (Ann):")
    g = SpeedRunGame("short", P)
    assert "REDO" not in g.legal_contracts(0) and g.redo_targets(0) == []
    g.set_choices("none", "10-high")
    raises("SR-19", g.reveal, 0, "REDO")
    raises("SR-19", replay, rec([H([4, 4, 4], ["W4"] * 3), H([4, 4, 4], ["REDO:W5", "W0", "W0"])]))
    # Pass in hand 1 then Redo in hand 2: nothing completed, still illegal
    raises("SR-19", replay, rec([H([4, 4, 4], ["PASS", "W4", "W4"]), H([4, 4, 4], ["REDO:W4", "W0", "W0"])]))


def test_sr19_the_same_contract_may_be_redone_twice_in_long():
    g = replay(rec([H([6, 3, 3], ["W4", "W4", "W4"]),    # Ann 2
                    H([5, 4, 3], ["REDO:W4", "W0", "W0"]),  # new 1 -> keeps 1
                    H([4, 4, 4], ["REDO:W4", "W1", "W1"])],  # new -2 -> keeps -2
                   length="long"))
    assert g.sheet[0] == {"W4": -2} and g.totals[0] == -2
    assert "REDO" not in g.held[0]
    raises("SR-13", g._replay_hand, H([4, 4, 4], ["REDO:W4", "W5", "W5"]))  # no third Redo


def test_sr20_redo_keeps_the_lower_of_old_and_new():
    base = H([7, 3, 2], ["W4", "W4", "W4"])  # Ann 3, Bob 1, Cy 2
    g = replay(rec([base, H([4, 4, 4], ["REDO:W4", "W0", "W0"])]))
    assert g.sheet[0]["W4"] == -2 and g.totals[0] == -2  # 3 -> -2
    g = replay(rec([H([4, 4, 4], ["W4"] * 3), H([12, 0, 0], ["REDO:W4", "W0", "W0"])]))
    assert g.sheet[0]["W4"] == -2 and g.totals[0] == -2  # new 8 is worse: keeps -2
    assert g.rows()[1][1][0] == "REDO:W4 12: 8 keeps -2"


def test_sr23_revealed_redo_is_compared_on_its_doubled_score():
    g = replay(rec([H([5, 4, 3], ["W4", "W4", "W4"]), H([4, 4, 4], ["REDO:W4", "W0", "W0"], [True, False, False])]))
    assert g.sheet[0]["W4"] == -4  # old 1, new -2 doubled -4
    g = replay(rec([H([4, 4, 4], ["W4"] * 3), H([5, 4, 3], ["REDO:W4", "W0", "W0"], [True, False, False])]))
    assert g.sheet[0]["W4"] == -2  # old -2, new 1 doubled 2: keeps -2
    g = replay(rec([H([6, 3, 3], ["W4"] * 3), H([5, 4, 3], ["REDO:W4", "W0", "W0"], [True, False, False])]))
    assert g.sheet[0]["W4"] == 2  # old 2, new 1 doubled 2: equal


# -- reveals ------------------------------------------------------------------

def test_sr21_reveal_window_and_consistency():
    g = SpeedRunGame("short", P)
    raises("SR-21", g.reveal, 0, "W4")  # contracts are not down before the choices
    g.set_choices("none", "10-high")
    g.reveal(0, "W4")
    raises("SR-21", g.reveal, 0, "W5")  # once
    assert g.legal_contracts(0) == ["W4"]
    for _ in range(12):
        g.record_trick(1)
    raises("SR-21", g.reveal, 1, "W0")  # closed after the twelfth trick
    before = snapshot(g)
    raises("SR-21", g.finish_hand, ["W5", "W0", "W0"])
    assert snapshot(g) == before
    assert g.finish_hand(["W4", "W0", "W0"]) == [8, 12, -2]


def test_sr21_a_redo_can_be_revealed_without_naming_its_contract():
    g = SpeedRunGame("long", P)
    live_hand(g, [0] * 4 + [1] * 4 + [2] * 4, ["W4", "W0", "W0"])
    g.set_choices("geckos", "bell-1")
    raises("SR-19", g.reveal, 1, "REDO:W4")  # Bob completed W0, not W4
    g.reveal(0, "REDO")
    assert g.legal_contracts(0) == ["REDO"] and g.redo_targets(0) == ["W4"]
    g.set_tricks([4, 4, 4])
    raises("SR-21", g.finish_hand, ["W5", "W1", "W1"])
    assert g.finish_hand(["REDO:W4", "W1", "W1"])[0] == -4


def test_sr22_pass_cannot_be_revealed():
    msg = raises("SR-22", replay, rec([H([4, 4, 4], ["W4", "PASS", "W4"], [False, True, False])]))
    assert msg.startswith("SR-22: hand 1, player 2 (Bob):")
    g = SpeedRunGame("short", P)
    g.set_choices("none", "10-high")
    raises("SR-22", g.reveal, 0, "PASS")


# -- end of game --------------------------------------------------------------

def test_sr24_lowest_total_wins_and_totals_are_the_sheet():
    g = replay(rec([H([4, 4, 4], ["W4", "W0", "W1"]), H([4, 4, 4], ["W5", "W4", "W0"])]))
    assert g.totals == [-1, 2, 7]
    assert g.totals == [sum(s.values()) for s in g.sheet]
    assert g.winners() == [0] and g.tiebreak == "lowest total"


def test_sr25_tie_goes_to_more_completed_contracts():
    # Ann: W4 exact (-2) then Pass: one contract.  Bob: W4 exact revealed (-4),
    # then W5 with 6 revealed (2): -2 as well, but two contracts completed.
    g = replay(rec([H([4, 4, 4], ["W4", "W4", "W0"], [False, True, False]),
                    H([5, 6, 1], ["PASS", "W5", "W1"], [False, True, False])]))
    assert g.totals == [-2, -2, 2]
    assert g.winners() == [1] and g.tiebreak == "more completed contracts"


def hands_hit(record):
    """The reading SR-26 does not take: every hand whose contract, a Redo
    included, was hit exactly, whether or not the sheet kept the result."""
    n = [0, 0, 0]
    for h in record["hands"]:
        for s, c in enumerate(h["contracts"]):
            if c == "PASS" or c[:5] == "FOUL:":
                continue
            name = c[5:] if c[:5] == "REDO:" else c
            n[s] += sr.difference(name, h["tricks"], s) == 0
    return n


def sheet_perfects(g):
    """Perfect Bonuses as the scorecard shows them: entries of -2 or -4 (SR-16, SR-21)."""
    return [sum(1 for v in sheet.values() if v < 0) for sheet in g.sheet]


def test_sr26_perfect_bonuses_are_read_from_the_scorecard():
    # Ann: W4 miss by 1 (1), W0 exact (-2): -1, one Perfect Bonus.
    # Bob: W4 exact revealed (-4), W0 miss by 3 (3): -1, one Perfect Bonus.
    hands = [H([5, 4, 3], ["W4", "W4", "W1"], [False, True, False]),
             H([0, 3, 9], ["W0", "W0", "W9"])]
    g = replay(rec(hands, length="long"))
    assert g.totals[:2] == [-1, -1] and g.perfects[:2] == [1, 1]
    assert g.winners() == [0, 1] and g.tiebreak == "shared"
    # hand 3: Bob redoes W4 (old -4) and hits it again: the sheet keeps its -4,
    # nothing on it changes, so the tie stands and the win is shared (SR-26, SR-27)
    hands.append(H([0, 4, 8], ["PASS", "REDO:W4", "PASS"]))
    r = rec(hands, length="long")
    g = replay(r)
    assert g.totals[:2] == [-1, -1]
    assert [len(c) for c in g.completed][:2] == [2, 2]
    assert g.perfects == sheet_perfects(g) and g.perfects[:2] == [1, 1], "SR-26: the scorecard's count"
    assert g.winners() == [0, 1] and g.tiebreak == "shared", "SR-26/SR-27: a shared win"
    # the other reading (hands hit, the Redo's hit counted though the sheet did
    # not keep it) would give Bob the win: the two readings differ on this game
    assert hands_hit(r)[:2] == [1, 2]


def test_sr26_a_redo_that_turns_a_miss_into_a_perfect_bonus_counts():
    # Ann: W4 miss by 1 (1), W0 exact (-2).  Bob: W4 miss by 1 (1), W0 miss by 2 (2).
    # Hand 3: Bob redoes W4 and hits it: the sheet now holds -2 for W4.
    hands = [H([5, 5, 2], ["W4", "W4", "W1"]), H([0, 2, 10], ["W0", "W0", "W9"]),
             H([0, 4, 8], ["PASS", "REDO:W4", "PASS"])]
    g = replay(rec(hands, length="long"))
    assert g.sheet[1] == {"W4": -2, "W0": 2} and g.totals[:2] == [-1, 0]
    assert g.perfects[:2] == [1, 1] == sheet_perfects(g)[:2], "SR-26: the kept Redo hit is on the sheet"


def test_sr27_shared_win():
    g = replay(rec([H([4, 4, 4], ["W4", "W4", "W0"])]))
    assert g.totals == [-2, -2, 4] and g.winners() == [0, 1] and g.tiebreak == "shared"


def test_sr28_early_end_when_all_hold_only_passes():
    order = ["W0", "W1", "W4", "W5", "W7", "MIDDLE", "MOST", "REDO:W0"]
    hands = [H([4, 4, 4], [c] * 3) for c in order]
    g = replay(rec(hands[:7], length="medium"))
    assert not g.over
    g = replay(rec(hands, length="medium"))
    assert g.over and g.ended_early and g.hands_played == 8
    assert g.held == [["PASS", "PASS"]] * 3
    msg = raises("SR-28", replay, rec(hands + [H([4, 4, 4], ["PASS"] * 3)], length="medium"))
    assert "hand 9" in msg
    raises("SR-28", g.set_choices, "none", "10-high")


def test_sr28_full_length_game_is_not_early_and_no_hand_after_it():
    hands = [H([4, 4, 4], [c] * 3) for c in ["W0", "W1", "W4", "W5", "MIDDLE", "PASS"]]
    g = replay(rec(hands))
    assert g.over and not g.ended_early and g.hands_played == 6
    assert g.held == [["REDO"]] * 3
    raises("SR-28", replay, rec(hands + [H([4, 4, 4], ["REDO:W0"] * 3)]))


# -- records, undo -------------------------------------------------------------

def test_sr29_record_round_trip_and_dispatch():
    r = rec([H([4, 5, 3], ["W4", "MIDDLE", "W0"], [True, False, False], first=2, trump="raccoons",
               ranking="bell-10"),
             H([12, 0, 0], ["PASS", "W0", "REDO:W0"])])
    g = records.replay(r)
    # Ann W4 exact revealed -4; Bob Middle (median 4) with 5: 1, then W0 exact -2;
    # Cy W0 with 3: 3, then Redo W0 exact: -2 replaces 3
    assert g.totals == [-4, -1, -2]
    out = g.to_record()
    assert out["hands"][1] == {"tricks": [12, 0, 0], "contracts": ["PASS", "W0", "REDO:W0"],
                               "revealed": [False, False, False], "first": 0}
    assert replay(out).to_record() == out
    s = records.summary(r)
    assert s["totals"] == [-4, -1, -2] and s["winners"] == [0] and s["hands_played"] == 2
    # two hands of a Short game: the record stops before the game's end (SR-28)
    assert s["ended_early"] is True and s["over"] is False, "SR-28: a partial record is ended_early"


def test_sr29_invalid_records_name_hand_player_and_rule():
    raises("SR-29", replay, {"game": "speed"})
    raises("SR-29", replay, rec("nope"))
    raises("SR-29", replay, rec(["nope"]))
    msg = raises("SR-29", replay, rec([H([4, 4, 4], ["W4"] * 3, [False, 1, False])]))
    assert msg.startswith("SR-29: hand 1, player 2 (Bob):")
    hands = [H([4, 4, 4], ["W4"] * 3), H([4, 4, 4], ["W0"] * 3), H([4, 4, 4], ["W1", "W4", "W1"])]
    msg = raises("SR-13", replay, rec(hands))
    assert msg.startswith("SR-13: hand 3, player 2 (Bob): ")


def test_sr29_illegal_live_actions_leave_the_game_unchanged():
    g = SpeedRunGame("short", P)
    live_hand(g, [0] * 12, ["W4", "W0", "W0"])
    g.set_choices("none", "slalom-10")
    before = snapshot(g)
    for fn, args in ((g.reveal, (0, "W4")), (g.reveal, (1, "PASS")), (g.record_trick, (3,)),
                     (g.set_choices, ("none", "1-high")), (g.set_tricks, ([6, 6, 1],)),
                     (g.finish_hand, (["W1", "W1", "W1"],))):
        with pytest.raises(RuleError):
            fn(*args)
        assert snapshot(g) == before
    g.set_tricks([4, 4, 4])
    before = snapshot(g)
    with pytest.raises(RuleError):
        g.finish_hand(["W1", "REDO:W5", "W1"])  # the third is fine, the second is not: nothing scored
    assert snapshot(g) == before


def test_undo_steps_back_through_entries_and_finished_hands():
    g = SpeedRunGame("short", P)
    empty = snapshot(g)
    g.set_choices("geckos", "bell-10")
    s1 = snapshot(g)
    g.reveal(2, "W1")
    g.record_trick(0)
    s2 = snapshot(g)
    for w in [1] * 11:
        g.record_trick(w)
    s3 = snapshot(g)
    g.finish_hand(["W1", "MIDDLE", "W1"])
    after = snapshot(g)
    g.undo()
    assert snapshot(g) == s3  # the hand reopens at its scoring step
    g.finish_hand(["W1", "MIDDLE", "W1"])
    assert snapshot(g) == after
    g.undo()
    for _ in range(11):
        g.undo()
    assert snapshot(g) == s2
    g.undo()
    g.undo()
    assert snapshot(g) == s1
    g.undo()
    assert snapshot(g) == empty
    raises("SR-29", g.undo)


def test_undo_of_a_replayed_hand_reopens_it_with_counts():
    g = replay(rec([H([4, 4, 4], ["W4"] * 3, first=1), H([6, 3, 3], ["W0", "W1", "W5"], [False, True, False],
                                                       trump="none", ranking="1-high")]))
    g.undo()
    assert g.phase == "score" and g.tricks == [6, 3, 3] and g.revealed == [None, "W1", None]
    assert g.first == 2 and g.totals == [-2, -2, -2]
    assert g.finish_hand(["W0", "W1", "W5"]) == [6, 4, 2]
    g.undo()
    g.undo()  # the counts
    g.undo()  # the reveal
    g.undo()  # the choices
    assert g.phase == "choose" and g.revealed == [None] * 3


# -- compact history (a finished hand is one short row of small ints) ---------

def test_undo_restores_a_secret_redo_reveal_and_entered_counts_SR19_SR21():
    g = SpeedRunGame("long", P)
    live_hand(g, [0] * 4 + [1] * 4 + [2] * 4, ["W4", "W0", "W0"])
    g.set_choices("geckos", "bell-1")
    g.reveal(0, "REDO")       # target kept secret (SR-21)
    g.reveal(1, "W1")
    g.set_tricks([4, 4, 4])
    before = snapshot(g)
    scores = g.finish_hand(["REDO:W4", "W1", "W1"])
    after = snapshot(g)
    g.undo()
    assert snapshot(g) == before
    assert g.revealed == ["REDO", "W1", None] and g.tricks == [4, 4, 4] and g.winners_seq is None
    assert g.finish_hand(["REDO:W4", "W1", "W1"]) == scores and snapshot(g) == after
    g.undo()
    g.undo()  # the counts
    assert g.tricks == [0, 0, 0] and g.phase == "play"
    g.undo()  # Bob's reveal
    g.undo()  # Ann's Redo
    assert g.revealed == [None, None, None] and "REDO" in g.legal_contracts(0)


def test_undo_keeps_a_redo_revealed_with_its_target_SR21():
    g = SpeedRunGame("long", P)
    live_hand(g, [0] * 4 + [1] * 4 + [2] * 4, ["W4", "W0", "W0"])
    live_hand(g, [0] * 4 + [1] * 4 + [2] * 4, ["REDO:W4", "W1", "W1"], reveals=[(0, "REDO:W4")])
    g.undo()
    assert g.revealed == ["REDO:W4", None, None] and g.redo_targets(0) == ["W4"]
    assert list(g.winners_seq) == [0] * 4 + [1] * 4 + [2] * 4


def test_rows_running_totals_follow_passes_and_redos_SR18_SR20():
    hands = [H([7, 3, 2], ["W4", "PASS", "W4"]), H([4, 4, 4], ["REDO:W4", "W0", "PASS"], [True, False, False]),
             H([0, 12, 0], ["PASS", "MOST", "W0"])]
    g = replay(rec(hands, "long"))
    rows = g.rows()
    for i in range(3):
        assert rows[i][2] == replay(rec(hands[:i + 1], "long")).totals
    assert rows[0][1] == ["W4 7: 3", "PASS", "W4 2: 2"]
    assert rows[1][1] == ["REDO:W4* 4: -4 keeps -4", "W0 4: 4", "PASS"]
    assert rows[2][1] == ["PASS", "MOST 12: -2", "W0 0: -2"]
    assert rows[2][2] == g.totals == [-4, 2, 0]


def test_hand_dicts_are_built_from_the_row_and_record_keys_are_kept_SR29():
    hands = [H([4, 4, 4], ["W4"] * 3, first=1),  # no trump/ranking: none added
             H([6, 3, 3], ["W0", "W1", "W5"], [False, True, False], first=2, trump="none", ranking="bell-1")]
    g = replay(rec(hands))
    assert g.hand(0) == dict(hands[0], revealed=[False] * 3) and "trump" not in g.hand(0)
    assert g.hand(-1) == hands[1] and g.hands == [g.hand(0), g.hand(1)]
    g.hand(1)["tricks"][0] = 9  # a copy: the game is not changed through it
    assert g.to_record()["hands"][1] == hands[1]
    # Each finished hand is one bytearray of about 20 bytes, not dicts and lists.
    assert [type(r) for r in g._rows] == [bytearray, bytearray]
    assert max(len(r) for r in g._rows) <= sr._LOG + 16


def test_sr28_every_game_marks_a_partial_record_ended_early_and_not_over():
    """SR-28 (and SP-20, SPIT-15, PT-20): the four games agree on what a record
    that stops before the game's end says: ended_early true, over false."""
    from host_fixtures import speed_single, partners_game
    partial = [
        {"game": "speed", "layout": "pagat", "match": {"target": 25}, "players": ["A", "B"],
         "deals": [{"winner": 0, "left": 5}]},
        {"game": "spit", "players": ["A", "B"], "rounds": [{"blocked": True, "cards": [20, 32]}]},
        rec([H([4, 5, 3], ["W4", "MIDDLE", "W0"])] * 1),
        dict(partners_game(), target=100),
    ]
    for r in partial:
        s = records.summary(r)
        assert s["ended_early"] is True and s["over"] is False, "SR-28: %s" % r["game"]
    for r in (speed_single(), partners_game()):
        s = records.summary(r)
        assert s["ended_early"] is False and s["over"] is True, "SR-28: %s" % r["game"]


def test_sr30_a_foul_scores_twelve_completes_nothing_and_only_an_illegal_card_is_one():
    g = replay(rec([H([4, 4, 4], ["W4", "W4", "PASS"]),
                    H([6, 3, 3], ["FOUL:W4", "W5", "FOUL:REDO"])]))
    assert g.totals == [-2 + 12, -2 + 2, 12], "SR-30"
    assert g.completed == [["W4"], ["W4", "W5"], []] and g.perfects == [1, 1, 0], "SR-30"
    assert g.held[2].count("REDO") == 0, "SR-30: the illegal Redo played is used up"
    assert g.rows()[1][1][0] == "FOUL:W4 6: 12", "SR-30: the sheet shows the foul"
    out = g.to_record()
    assert out["hands"][1]["contracts"] == ["FOUL:W4", "W5", "FOUL:REDO"]
    assert replay(out).to_record() == out
    with pytest.raises(RuleError) as e:  # W5 may be played: not a foul
        replay(rec([H([6, 3, 3], ["FOUL:W5", "W4", "W4"])]))
    assert e.value.rule == "SR-30"
    with pytest.raises(RuleError) as e:  # a foul is never a revealed card
        replay(rec([H([6, 3, 3], ["W4", "W4", "FOUL:REDO"], [False, False, True])]))
    assert e.value.rule == "SR-30"
    with pytest.raises(RuleError) as e:
        replay(rec([H([6, 3, 3], ["W4", "W4", "FOUL:W9"])]))  # no Win 9 in Short (SR-3)
    assert e.value.rule == "SR-30"
    g = SpeedRunGame("short", P)
    assert g.foul_cards(0) == ["REDO"] and g.legal_contracts(0) == ["W0", "W1", "W4", "W5", "MIDDLE", "PASS"]


def test_sr30_a_revealed_foul_is_refused_because_a_foul_cannot_be_revealed():
    """SR-30: the refusal says why: a foul cannot be revealed (not that the card
    is not one that may not be played, which FOUL:REDO with nothing completed is)."""
    msg = raises("SR-30", replay, rec([H([6, 3, 3], ["W4", "W4", "FOUL:REDO"], [False, False, True])]))
    assert "hand 1, player 3 (Cy)" in msg and "a foul cannot be revealed" in msg, msg
    assert "may not be played" not in msg, msg
    # the table level refuses it at the reveal too, and nothing changes
    g = SpeedRunGame("short", P)
    g.set_choices("none", "10-high")
    before = snapshot(g)
    msg = raises("SR-30", g.reveal, 2, "FOUL:REDO")
    assert "a foul cannot be revealed" in msg and snapshot(g) == before, msg
    # an unrevealed card that may be played is still not a foul, in words
    msg = raises("SR-30", replay, rec([H([6, 3, 3], ["FOUL:W5", "W4", "W4"])]))
    assert "W5 may be played" in msg, msg


def test_sr29_sr5_the_first_player_message_counts_players_from_1():
    """SR-29: messages count players from 1 (seat 0 is "player 1"); the record's
    "first" value stays a seat index, and the message says which player it means."""
    msg = raises("SR-5", replay, rec([H([4, 4, 4], ["W4"] * 3, first=2), H([4, 4, 4], ["W0"] * 3, first=2)]))
    assert "hand 2" in msg and "player 1 (Ann)" in msg and "player 3 (Cy)" in msg, msg
    assert "seat 0" not in msg and "seat 2" not in msg, msg
    msg = raises("SR-5", replay, rec([H([4, 4, 4], ["W4"] * 3, first=3)]))
    assert "seat" not in msg or "player" in msg, msg
