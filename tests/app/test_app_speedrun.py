"""The Speed Run referee flow driven by (button, t_us) events on CPython
(MicroPython runs are in test_app_speedrun_mpy.py).  Rule numbers are from
seeds/speedrun.md."""
import json

import pytest

from app_rig import Rig, MS, pause_pick, lit
import app_speedrun_game as G
from conformance import draw
from speedrun_golden import play
from speedref.app.core import UP, DOWN, OK, ERROR
from speedref.app import speedrun_flow as rf
from speedref.tunables import SPEEDRUN_HOLD_US
from speedref.engine import speedrun

NAMES = ["P1", "P2", "P3"]


def seeded_record(seed, length="long"):
    """A realistic game from the card-level playthrough, seats named as the app names them."""
    rec = play(seed, length)[1]
    rec["players"] = list(NAMES)
    return rec


# Found by searching the engine: medium games that end early (SR-28) after
# 8 hands, decided by Perfect Bonuses (SR-26) / shared (SR-27).
EARLY_PERFECTS = json.loads('{"game": "speedrun", "length": "medium", "players": ["P1", "P2", "P3"], "hands": [{"tricks": [10, 2, 0], "contracts": ["MIDDLE", "W5", "MOST"], "revealed": [true, false, false], "first": 1, "trump": "none", "ranking": "1-high"}, {"tricks": [5, 2, 5], "contracts": ["W7", "W0", "W4"], "revealed": [false, false, false], "first": 2, "trump": "none", "ranking": "1-high"}, {"tricks": [1, 0, 11], "contracts": ["W1", "MIDDLE", "MIDDLE"], "revealed": [false, false, false], "first": 0, "trump": "raccoons", "ranking": "slalom-10"}, {"tricks": [0, 1, 11], "contracts": ["W5", "W7", "W0"], "revealed": [true, true, true], "first": 1, "trump": "geckos", "ranking": "bell-1"}, {"tricks": [2, 4, 6], "contracts": ["REDO:MIDDLE", "REDO:W0", "W7"], "revealed": [true, false, false], "first": 2, "trump": "gorillas", "ranking": "slalom-1"}, {"tricks": [0, 12, 0], "contracts": ["W0", "MOST", "REDO:W4"], "revealed": [false, false, false], "first": 0, "trump": "gorillas", "ranking": "10-high"}, {"tricks": [2, 4, 6], "contracts": ["MOST", "W1", "W1"], "revealed": [true, false, false], "first": 1, "trump": "none", "ranking": "bell-10"}, {"tricks": [1, 0, 11], "contracts": ["W4", "W4", "W5"], "revealed": [false, false, false], "first": 2, "trump": "geckos", "ranking": "slalom-10"}]}')
EARLY_SHARED = json.loads('{"game": "speedrun", "length": "medium", "players": ["P1", "P2", "P3"], "hands": [{"tricks": [10, 0, 2], "contracts": ["W1", "W7", "W7"], "revealed": [false, true, false], "first": 0, "trump": "gorillas", "ranking": "bell-10"}, {"tricks": [2, 4, 6], "contracts": ["W0", "MIDDLE", "MIDDLE"], "revealed": [false, false, false], "first": 1, "trump": "gorillas", "ranking": "slalom-10"}, {"tricks": [9, 2, 1], "contracts": ["MOST", "MOST", "MOST"], "revealed": [true, false, false], "first": 2, "trump": "earthworms", "ranking": "slalom-1"}, {"tricks": [6, 5, 1], "contracts": ["W7", "REDO:W7", "W5"], "revealed": [false, false, false], "first": 0, "trump": "none", "ranking": "1-high"}, {"tricks": [6, 5, 1], "contracts": ["W4", "W4", "W4"], "revealed": [false, false, true], "first": 1, "trump": "none", "ranking": "1-high"}, {"tricks": [11, 0, 1], "contracts": ["MIDDLE", "W0", "W0"], "revealed": [false, false, false], "first": 2, "trump": "gorillas", "ranking": "slalom-1"}, {"tricks": [5, 0, 7], "contracts": ["REDO:W4", "W1", "REDO:MOST"], "revealed": [false, true, false], "first": 0, "trump": "none", "ranking": "bell-1"}, {"tricks": [0, 11, 1], "contracts": ["W5", "W5", "W1"], "revealed": [false, false, false], "first": 1, "trump": "earthworms", "ranking": "slalom-10"}]}')


def texts(rig):
    """The small texts on the screen now, as a person reads them (big digits
    are fill_rects: checked through the flow's state)."""
    return draw(rig.app.screen).texts


def start(rig, length="long"):
    rig.app.start("speedrun", rig.t, {"length": length})
    return rig.app.flow


def undo(rig):
    pause_pick(rig, "Undo last")


def tricks(rig, seats):
    for s in seats:
        rig.tap(s)


H1 = {"trump": "geckos", "ranking": "slalom-10", "tricks": [5, 4, 3],
      "contracts": ["W4", "MIDDLE", "PASS"], "revealed": [False, False, False]}


# ---- complete games ------------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 15])
def test_complete_long_game_record_equals_engine_SR2_SR24_SR29(tmp_path, seed):
    rec = seeded_record(seed)
    r = G.report(str(tmp_path), rec)
    got = dict(r["record"])
    assert got.pop("id")
    got.pop("table", None)
    assert got == rec == r["engine"]           # every hand's tricks, contracts, reveals, first, trump, ranking
    assert r["stored"] == r["record"]
    want = speedrun.replay(rec)
    assert r["totals"] == want.totals and r["winners"] == want.winners()
    lines = r["hand_lines"]
    assert [x["hand"] for x in lines] == list(range(1, 13))
    assert lines[-1]["totals"] == want.totals and lines[-1]["over"] and not lines[-1]["ended_early"]
    assert [x["tricks"] for x in lines] == [h["tricks"] for h in rec["hands"]]
    assert r["saved_game"] is None and r["screen"] == "Games"


@pytest.mark.parametrize("rec,why", [(EARLY_PERFECTS, "more Perfect Bonuses"), (EARLY_SHARED, "shared")])
def test_early_end_and_tiebreak_on_the_final_screen_SR26_SR27_SR28(rig, rec, why):
    G.play_game(rig, rec)  # plays through FINAL's OK
    got = dict(rig.log.of("game_end")[-1]["record"])
    got.pop("id")
    got.pop("table", None)
    assert got == rec
    g = speedrun.replay(got)
    assert g.ended_early and g.hands_played == 8 and g.tiebreak == why
    assert rig.log.of("hand")[-1]["ended_early"] is True
    # the screens before that OK: replay it up to the last RESULT
    rig2 = Rig(rig.root + "x")
    f = start(rig2, "medium")
    rig2.tap(rec["hands"][0]["first"])
    for h in rec["hands"]:
        G.play_hand(rig2, h)
        rig2.tap(OK)
    assert f.phase == rf.FINAL
    t = texts(rig2)
    assert "Ended early" in t
    assert rf._WHY[why] in t
    assert lit(rig2) > 0


def test_short_and_medium_lengths_come_from_the_options_SR2(rig):
    f = start(rig, "short")
    assert f.g.hands_total == 6 and "Hand 1 of 6" in texts(rig)
    rig.app.abandon()
    f = start(rig, "medium")
    assert f.g.hands_total == 9


# ---- what each hand shows ------------------------------------------------------
def test_each_hand_shows_first_card_choosers_and_leader_SR5_SR7_SR8(rig):
    f = start(rig)
    rig.tap(2)  # hand 1: P3 holds the first-player card
    assert f.g.first == 2
    t = texts(rig)
    assert "1st card: P3" in t and "P3 P1 choose" in t and "P2 leads" in t
    G.play_hand(rig, H1)
    rig.tap(OK)
    assert f.phase == rf.HAND
    t = texts(rig)  # the card passed clockwise
    assert "Hand 2 of 12" in t and "1st card: P1" in t and "P1 P2 choose" in t and "P3 leads" in t
    rig.tap(1)  # after hand 1 a pad press on this screen means nothing
    assert f.g.first == 0


def test_first_card_choice_is_saved_once_when_the_hand_starts_SR5(rig):
    f = start(rig)
    w = rig.store.writes
    rig.tap(1)
    rig.tap(2)
    assert rig.store.writes == w  # no flash write per tap
    rig.tap(OK)
    assert rig.store.writes == w + 1
    assert rig.store.load_game()[0]["state"]["first"] == 2
    assert f.phase == rf.TRUMP


def test_trump_and_ranking_entry_with_start_direction_SR7_SR9(rig):
    f = start(rig)
    rig.tap(OK)
    assert f.phase == rf.TRUMP and f.choices == speedrun.TRUMPS
    rig.tap(UP)  # wraps to "none"
    assert f.choices[f.cursor] == "none"
    rig.tap(OK)
    assert f.phase == rf.RANK
    for _ in range(4):
        rig.tap(DOWN)
    assert f.choices[f.cursor] == "bell-10" and "trick 1: 10 high" in texts(rig)
    rig.tap(DOWN)
    assert "trick 1: 1 high" in texts(rig)  # bell-1
    rig.tap(OK)
    assert f.phase == rf.PLAY and (f.g.trump, f.g.ranking) == ("none", "bell-1")


@pytest.mark.parametrize("ranking", speedrun.RANKINGS)
def test_play_screen_shows_trick_counts_trump_and_direction_in_force_SR9_SR11(rig, ranking):
    f = start(rig)
    G.choose(rig, "raccoons", ranking)
    seats = [0, 1, 2, 2, 1, 0, 0, 0, 1, 2, 1]
    counts = [0, 0, 0]
    for n in range(1, 12):
        t = texts(rig)
        assert "H1  Trick %d/12" % n in t
        assert "Raccoons %d high" % speedrun.direction(ranking, n) in t
        assert "%s leads" % NAMES[f.g.next_leader()] in t
        assert f.g.tricks == counts
        rig.tap(seats[n - 1])
        counts[seats[n - 1]] += 1
    assert f.g.tricks == [4, 4, 3]
    assert f.g.next_leader() == 1  # SR-8: the last trick's winner leads


def test_twelfth_trick_moves_to_contract_entry_SR12(rig):
    f = start(rig)
    G.choose(rig, "geckos", "10-high")
    tricks(rig, [0] * 11)
    assert f.phase == rf.PLAY
    rig.tap(1)
    assert f.phase == rf.CONTRACT and f.seat == 0 and f.g.tricks == [11, 1, 0]
    rig.tap(2)  # a pad now means nothing: no 13th trick
    assert f.g.tricks == [11, 1, 0] and f.phase == rf.CONTRACT


# ---- reveals ------------------------------------------------------------------
def test_reveal_by_holding_a_pad_offers_held_contracts_without_pass_SR21_SR22(rig):
    f = start(rig)
    G.choose(rig, "gorillas", "1-high")
    tricks(rig, [0, 1])
    rig.press(2)
    rig.wait(G.HOLD)
    assert f.phase == rf.REVEAL and f.seat == 2
    assert "PASS" not in f.choices and "REDO" not in f.choices  # nothing completed yet (SR-19)
    assert f.choices[-1] == rf.CANCEL and f.choices[:-1] == [c for c in f.g.legal_contracts(2) if c != "PASS"]
    rig.release(2)
    rig.wait(60 * MS)
    assert f.g.tricks == [1, 1, 0]  # the hold was not a trick
    G.pick(rig, "MOST")
    assert f.phase == rf.PLAY and f.g.revealed == [None, None, "MOST"]
    assert "P3*" in texts(rig)
    ev = rig.log.of("reveal")[-1]
    assert (ev["seat"], ev["contract"], ev["trick"]) == (2, "MOST", 3)
    # once only (SR-21)
    rig.press(2)
    rig.wait(G.HOLD)
    rig.release(2)
    assert f.phase == rf.PLAY and f.note == "P3 revealed" and rig.sounds[-1] == ERROR
    assert f.g.revealed == [None, None, "MOST"] and f.g.tricks == [1, 1, 0]


def test_reveal_cancel_changes_nothing(rig):
    f = start(rig)
    G.choose(rig, "gorillas", "1-high")
    rig.press(0)
    rig.wait(G.HOLD)
    rig.release(0)
    G.pick(rig, rf.CANCEL)
    assert f.phase == rf.PLAY and f.g.revealed == [None, None, None] and f.seq == []


def test_revealed_contract_is_not_asked_and_scores_double_SR21(rig):
    f = start(rig)
    G.choose(rig, "geckos", "10-high")
    G.reveal(rig, 1, "W4")
    tricks(rig, [0] * 8 + [1] * 4)
    assert f.phase == rf.CONTRACT and f.seat == 0
    G.pick(rig, "W5")
    assert f.seat == 2  # P2 revealed: skipped
    G.pick(rig, "W0")
    assert f.phase == rf.RESULT
    assert f.scores == [3, -4, -2]  # W5 with 8: 3; revealed W4 hit: -4; W0 hit: -2
    assert f.g.totals == [3, -4, -2]


# ---- contracts after the 12th trick ---------------------------------------------------
def test_only_legal_contracts_offered_and_redo_names_a_completed_one_SR13_SR19_SR20(rig):
    f = start(rig)
    G.play_hand(rig, H1)  # P1 W4, P2 MIDDLE, P3 PASS
    rig.tap(OK)
    G.choose(rig, "none", "1-high")
    tricks(rig, [0] * 4 + [1] * 4 + [2] * 4)
    assert f.seat == 0
    assert "W4" not in f.choices and "REDO" in f.choices  # completed: gone; Redo now legal
    G.pick(rig, "REDO")
    assert f.phase == rf.TARGET and f.choices == ["W4"]
    G.pick(rig, "W4")
    assert f.seat == 1 and "MIDDLE" not in f.choices and "REDO" in f.choices
    G.pick(rig, "W4")
    assert f.seat == 2 and "REDO" not in f.choices  # P3 only passed: nothing to redo (SR-19)
    assert f.choices.count("PASS") == 1  # two Pass cards left, offered once
    G.pick(rig, "W1")
    assert f.phase == rf.RESULT
    # P1: W4 with 5 = 1, then Redo W4 with 4 = -2 replaces it (SR-20);
    # P2: Middle hit -2, W4 hit -2; P3: Pass writes nothing (SR-18), W1 with 4 = 3
    assert f.g.totals == [-2, -4, 3]
    assert rig.log.of("hand")[-1]["contracts"] == ["REDO:W4", "W4", "W1"]


def test_revealed_redo_asks_its_target_at_scoring_SR21_SR23(rig):
    f = start(rig)
    G.play_hand(rig, H1)
    rig.tap(OK)
    G.choose(rig, "none", "1-high")
    G.reveal(rig, 0, "REDO")
    assert f.g.revealed[0] == "REDO"
    tricks(rig, [0] * 4 + [1] * 4 + [2] * 4)
    assert f.phase == rf.TARGET and f.seat == 0 and f.choices == ["W4"]
    G.pick(rig, "W4")
    G.pick(rig, "W0")
    G.pick(rig, "W0")
    assert f.scores[0] == -4 and f.g.totals[0] == -4  # doubled before the lower is kept


def test_result_screen_then_next_hand(rig):
    f = start(rig)
    G.play_hand(rig, H1)
    assert f.phase == rf.RESULT
    t = texts(rig)
    assert "Hand 1 scores" in t and "W4" in t and "MID" in t and "PASS" in t
    assert "+1" in t and "-2" in t and "-" in t  # W4 with 5, MIDDLE hit, Pass writes nothing
    line = rig.log.of("hand")[-1]
    assert line["scores"] == [1, -2, None] and line["totals"] == [1, -2, 0] and line["first"] == 0
    rig.tap(OK)
    assert f.phase == rf.HAND and f.g.hands_played == 1


@pytest.mark.parametrize("revealed", [False, True])
def test_a_redo_shows_as_redo_never_its_contract_SR31(rig, revealed):
    f = start(rig)
    G.play_hand(rig, H1)  # P1's W4 with 5 tricks: 1 on the sheet
    rig.tap(OK)
    h2 = {"trump": "none", "ranking": "10-high", "tricks": [4, 4, 4],
          "contracts": ["REDO:W4", "W0", "W1"], "revealed": [revealed, False, False]}
    G.choose(rig, h2["trump"], h2["ranking"])
    for e in G.hand_seq(h2):
        if isinstance(e, int):
            rig.tap(e)
        else:
            G.reveal(rig, e[0], e[1])
            assert "P1*" in texts(rig) and not any("W4" in x for x in texts(rig)), "SR-31"
    if not revealed:
        G.pick(rig, "REDO")
    assert f.phase == rf.TARGET and "P1 Redo which?" in texts(rig)  # P1 enters it
    G.pick(rig, "W4")
    G.pick(rig, "W0")
    G.pick(rig, "W1")
    assert f.phase == rf.RESULT
    t = texts(rig)
    # the Redo hit Win 4 (-2, or -4 revealed): shown is what it changed on the sheet
    change = (-4 if revealed else -2) - 1
    assert ("REDO*" if revealed else "REDO") in t, "SR-31: everyone sees a Redo"
    assert not any("W4" in x for x in t), "SR-31: ... but not which contract it is"
    assert "%+d" % change in t and "-2" not in t and "-4" not in t, "SR-31: its change, not its score"
    assert f.g.totals[0] == 1 + change
    # the log is the scorekeeper's sheet: the record needs the target (SR-29)
    line = rig.log.of("hand")[-1]
    assert line["contracts"][0] == "REDO:W4" and line["scores"][0] == change + 1, "SR-31"
    if revealed:
        assert rig.log.of("reveal")[-1]["contract"] == "REDO", "SR-31: revealed as a Redo only"


def test_a_hold_let_go_before_the_device_looked_is_still_a_reveal_SR32(rig):
    f = start(rig)
    G.choose(rig, "none", "10-high")
    rig.press(0)
    rig.t = (rig.t + SPEEDRUN_HOLD_US) % (1 << 30)  # no tick while the pad was down
    rig.release(0)
    assert f.phase == rf.REVEAL and f.seat == 0 and f.g.tricks == [0, 0, 0], "SR-32"


# ---- undo, abandon -----------------------------------------------------------------
def test_undo_last_trick_and_reveal_through_the_pause_menu_SR12(rig):
    f = start(rig)
    G.choose(rig, "geckos", "slalom-1")
    tricks(rig, [0, 2])
    G.reveal(rig, 1, "W0")
    rig.tap(1)
    assert f.g.tricks == [1, 1, 1]
    undo(rig)
    assert f.phase == rf.PLAY and f.g.tricks == [1, 0, 1] and f.g.revealed[1] == "W0"
    assert "H1  Trick 3/12" in texts(rig) and "Geckos 1 high" in texts(rig)
    undo(rig)
    assert f.g.revealed[1] is None and f.g.tricks == [1, 0, 1]
    undo(rig)
    undo(rig)
    assert f.g.tricks == [0, 0, 0] and f.phase == rf.PLAY
    undo(rig)  # the choices: back to the ranking, the old one under the cursor
    assert f.phase == rf.RANK and f.g.ranking is None and f.choices[f.cursor] == "slalom-1"
    undo(rig)
    assert f.phase == rf.TRUMP and f.choices[f.cursor] == "geckos"
    assert type(rig.app.screen).__name__ == "SpeedRunFlow"
    rig.back()
    assert "Undo last" not in rig.app.screen.items  # nothing left to undo in hand 1
    rig.back()


def test_undo_walks_back_from_the_result_one_entry_at_a_time(rig):
    f = start(rig)
    G.play_hand(rig, H1)
    rig.tap(OK)
    h2 = {"trump": "none", "ranking": "1-high", "tricks": [4, 4, 4],
          "contracts": ["REDO:W4", "W5", "W0"], "revealed": [False, True, False]}
    G.play_hand(rig, h2)
    assert f.phase == rf.RESULT and f.g.hands_played == 2
    totals = list(f.g.totals)
    undo(rig)  # the whole hand: back to P3's contract, W0 under the cursor
    assert f.phase == rf.CONTRACT and f.seat == 2 and f.choices[f.cursor] == "W0"
    assert f.g.hands_played == 1 and rig.store.load_game()[0]["state"]["hands"] == f.done
    undo(rig)  # P2 revealed W5: skipped; P1's Redo target
    assert f.phase == rf.TARGET and f.seat == 0 and f.choices[f.cursor] == "W4"
    undo(rig)  # P1's Redo itself
    assert f.phase == rf.CONTRACT and f.seat == 0 and f.choices[f.cursor] == "REDO"
    undo(rig)  # the 12th trick
    assert f.phase == rf.PLAY and f.g.tricks_played() == 11
    rig.tap(2)
    G.enter_contracts(rig, h2)
    assert f.g.totals == totals and f.g.hands_played == 2


def test_undo_of_a_scored_hand_is_logged_and_its_hand_line_follows_again_SR14(rig):
    """A scored hand (SR-14..SR-23) was logged as a hand line: undoing it
    (from RESULT, and from the next hand's HAND) logs an undo line naming
    it; undoing a trick or a contract entry logs nothing; scoring it again
    logs a new hand line with the same number."""
    f = start(rig)
    G.play_hand(rig, H1)
    rig.tap(OK)  # RESULT -> hand 2's HAND
    undo(rig)    # hand 1 comes back
    assert rig.log.of("undo") == [{"ev": "undo", "game": "speedrun", "what": "hand", "hand": 1}]
    assert f.phase == rf.CONTRACT and f.seat == 2
    G.pick(rig, "PASS")  # P3's contract again: hand 1 is scored again
    h2 = {"trump": "none", "ranking": "1-high", "tricks": [4, 4, 4],
          "contracts": ["REDO:W4", "W5", "W0"], "revealed": [False, True, False]}
    rig.tap(OK)
    G.play_hand(rig, h2)
    undo(rig)  # hand 2, from RESULT
    undo(rig)  # P1's Redo target: not logged, nothing to take back
    undo(rig)  # P1's Redo
    undo(rig)  # the 12th trick
    assert rig.log.of("undo")[1:] == [{"ev": "undo", "game": "speedrun", "what": "hand", "hand": 2}]
    rig.tap(2)
    G.enter_contracts(rig, h2)
    assert [h["hand"] for h in rig.log.of("hand")] == [1, 1, 2, 2]
    assert rig.log.of("hand")[-1]["totals"] == f.g.totals


def test_undo_of_a_hand_where_all_three_revealed_goes_to_the_twelfth_trick(rig):
    f = start(rig)
    h = {"trump": "none", "ranking": "1-high", "tricks": [4, 4, 4],
         "contracts": ["W4", "W5", "W0"], "revealed": [True, True, True]}
    G.play_hand(rig, h)
    assert f.phase == rf.RESULT  # nothing to ask
    undo(rig)
    assert f.phase == rf.PLAY and f.g.tricks_played() == 11 and f.g.hands_played == 0
    assert f.g.revealed == ["W4", "W5", "W0"]


def test_pause_during_a_reveal_drops_it(rig):
    f = start(rig)
    G.choose(rig, "geckos", "10-high")
    rig.press(0)
    rig.wait(G.HOLD)
    assert f.phase == rf.REVEAL
    rig.release(0)
    rig.back()
    rig.back()  # Continue
    assert f.phase == rf.PLAY and f.g.revealed == [None, None, None]


# ---- presses that mean nothing --------------------------------------------------------
def test_presses_in_wrong_phases_are_ignored(rig):
    f = start(rig)
    rig.tap(OK)  # TRUMP
    for b in (0, 1, 2, 3):
        rig.tap(b)
    assert f.phase == rf.TRUMP and f.cursor == 0
    rig.tap(OK)
    for b in (0, 1, 2, 3):
        rig.tap(b)
    assert f.phase == rf.RANK and f.cursor == 0
    rig.tap(OK)
    rig.tap(3)  # pad 4: no fourth player
    rig.tap(UP)
    rig.tap(DOWN)
    assert f.phase == rf.PLAY and f.g.tricks == [0, 0, 0] and f.seq == []
    G.reveal(rig, 0, "W9")
    rig.press(1)
    rig.press(2)  # pressed during PLAY, released in REVEAL: no trick
    rig.wait(G.HOLD)  # P2 held first: P2 reveals while P3 is still down
    assert f.phase == rf.REVEAL and f.seat == 1
    rig.release(1)
    rig.release(2)
    rig.tap(1)  # a pad in REVEAL
    assert f.phase == rf.REVEAL and f.g.tricks == [0, 0, 0]
    G.pick(rig, rf.CANCEL)
    tricks(rig, [0] * 12)
    for b in (0, 1, 2, 3):
        rig.tap(b)
    assert f.phase == rf.CONTRACT and f.seat == 1 and f.g.tricks == [12, 0, 0]
    G.pick(rig, "W0")
    G.pick(rig, "W0")
    assert f.phase == rf.RESULT
    totals = list(f.g.totals)
    for b in (0, 1, 2, 3, UP, DOWN):
        rig.tap(b)
    assert f.phase == rf.RESULT and f.g.totals == totals and f.g.hands_played == 1


def test_press_and_hold_timing_across_the_tick_wrap(tmp_path):
    """Taps and holds compare times with ticks_diff: the rig's clock starts
    2.5 s before 2**30 and this hand runs across the wrap."""
    rig = Rig(str(tmp_path), t_us=(1 << 30) - 300 * MS)
    f = start(rig)
    G.choose(rig, "geckos", "10-high")
    assert rig.t < (1 << 30)
    rig.press(0)
    rig.wait(400 * MS)  # across the wrap, shorter than a hold
    assert rig.t < 1000 * MS
    rig.release(0)
    assert f.g.tricks == [1, 0, 0] and f.phase == rf.PLAY


# ---- power cuts ---------------------------------------------------------------------
def test_undo_after_resume_reopens_the_last_hand_exactly(rig):
    f = start(rig)
    h = {"trump": "none", "ranking": "bell-1", "tricks": [2, 4, 6],
         "contracts": ["W1", "W4", "MOST"], "revealed": [False, True, False]}
    G.play_hand(rig, h)
    seq = rf.unpack(f.done[-1][2])
    rig.reboot()
    rig.tap(OK)
    f = rig.app.flow
    undo(rig)
    assert f.phase == rf.CONTRACT and f.seat == 2 and f.choices[f.cursor] == "MOST"
    undo(rig)
    assert f.seat == 0
    undo(rig)  # trick 12 comes off, the hand's order of entries kept
    assert f.phase == rf.PLAY and f.seq == seq[:-1] and f.g.winners_seq[-1] == seq[-2]


def test_a_damaged_saved_state_is_refused_not_a_crash_SR29(rig):
    """A save whose hand cannot be replayed (thirteen tricks, SR-12) is
    checked at boot and set aside, never offered; the save before it (its
    backup: hand 1 just scored) is offered instead and resumes."""
    import os
    start(rig)
    G.play_hand(rig, H1)
    totals = list(rig.app.flow.g.totals)
    saved = rig.store.load_game()[0]
    good = json.loads(json.dumps(saved))
    saved["state"]["hands"][0][3] = ["W4", "W4", "W4"]
    saved["state"]["hands"][0][2] = "0" * 13  # thirteen tricks cannot be replayed
    rig.store.save_game(saved)
    rig.reboot()
    boot = rig.app.screen
    assert rig.screen_name() == "Boot" and "SR-12" in boot.problem and "set aside" in boot.problem
    assert boot.saved == good, "the backup, the save before the damaged one, is offered"
    assert os.path.exists(os.path.join(rig.root, "game.json.bad"))
    rig.tap(OK)
    assert rig.app.flow is not None and rig.app.flow.phase == rf.RESULT
    assert rig.app.flow.g.totals == totals


# ---- screens -----------------------------------------------------------------------
# ---- contract cards that may not be played (SR-30) -------------------------------------
def test_an_illegal_contract_card_is_entered_as_a_foul_never_replaced_SR30(rig):
    f = start(rig)
    G.play_hand(rig, H1)  # P1 W4, P2 MIDDLE, P3 PASS
    rig.tap(OK)
    G.choose(rig, "none", "1-high")
    tricks(rig, [0] * 4 + [1] * 4 + [2] * 4)
    # P1 turned over the W4 it already completed: offered as it is, a foul
    assert f.seat == 0 and "FOUL:W4" in f.choices, "SR-30: a completed contract is offered as a foul"
    assert f.choices.index("FOUL:W4") > f.choices.index("REDO"), "SR-30: legal cards first"
    G.pick(rig, "FOUL:W4")
    # P2 plays Middle's replacement W4 legally
    G.pick(rig, "W4")
    # P3 completed nothing: a Redo turned over is a foul (SR-19), shown as such
    assert "REDO" not in f.choices and "FOUL:REDO" in f.choices, "SR-30"
    while f.choices[f.cursor] != "FOUL:REDO":
        rig.tap(DOWN)
    t = texts(rig)
    assert "illegal: +12" in t, "SR-30: the screen says the card is a foul: %r" % t
    rig.tap(OK)
    assert f.phase == rf.RESULT
    assert f.scores == [12, -2, 12], "SR-30: a foul scores 12 whatever the tricks"
    assert f.g.totals == [1 + 12, -2 - 2, 12]
    assert f.g.completed[0] == ["W4"] and f.g.perfects == [0, 2, 0], "SR-30: a foul completes nothing"
    assert f.g.held[2].count("REDO") == 1, "SR-30: of two Redos, the one played is used up"
    line = rig.log.of("hand")[-1]
    assert line["contracts"] == ["FOUL:W4", "W4", "FOUL:REDO"] and line["scores"] == [12, -2, 12]
    rec = f.g.to_record()
    assert speedrun.replay(rec).totals == f.g.totals, "SR-30: a record with fouls replays"
    undo(rig)  # the foul is an entry like any other
    assert f.phase == rf.CONTRACT and f.seat == 2 and f.choices[f.cursor] == "FOUL:REDO"
