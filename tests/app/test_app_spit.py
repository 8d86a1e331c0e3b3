"""The Spit referee flow driven by (button, t_us) events on CPython (the
MicroPython runs are in test_app_spit_mpy.py).  Rule numbers are from
seeds/spit.md.  The rig's clock starts 2.5 s before the 2**30 wrap, so the
first countdowns and slap races cross it."""
import json
import os

import pytest

from app_rig import MS, pause_pick, lit
from mpyhelp import texts_drawn
from rig_steps import press_at, release_at, tick_at
from app_spit_game import (GAME, spit_opts, start_round, both_stuck, restart, slap, enter_cards,
                           play_round, spit_game_report)
from speedref.app.core import UP, DOWN, OK, FOUL, GO, COUNT, WIN
from speedref.app import spit_flow as sp
from speedref.tunables import SPIT_HOLD_US


def start(rig, **kw):
    rig.app.start("spit", rig.t, spit_opts(**kw))
    return rig.app.flow


def saved_state(rig):
    return rig.store.load_game()[0]["state"]


def to_cards_after_slap(rig, cleared=0, first=1, gap_us=7300):
    start_round(rig)
    rig.tap(cleared)
    slap(rig, first, gap_us)


# ---- a complete game ------------------------------------------------------------
def test_complete_game_record_equals_engine_SPIT15(tmp_path):
    r = spit_game_report(str(tmp_path))
    rec = dict(r["record"])
    assert rec.pop("id")
    rec.pop("table", None)
    assert rec == r["engine"]
    assert r["stored"] == r["record"]
    assert rec["rounds"] == [
        {"cleared": 0, "slap": 1, "cards": [20, 32]},
        {"cleared": 0, "slap": 0, "cards": [12, 40]},
        {"cleared": 1, "cards": [30, 22]},
        {"blocked": True, "cards": [12, 40]},
        {"cleared": 0, "cards": [0, 52]},
    ]
    assert r["totals"] == [0, 52] and r["winners"] == [0]
    lines = r["round_lines"]
    assert [x["round"] for x in lines] == [1, 2, 3, 4, 5]
    assert [x["cards"] for x in lines] == [x["cards"] for x in rec["rounds"]]
    # restarts of the blocked round: P2 with 22 cards has 7 spit cards (one
    # at the start, six restarts), then P1's 8 left go two at a time onto
    # both piles (SPIT-8)
    assert [x["restarts"] for x in lines] == [1, 0, 2, 10, 1]
    assert [(s["winner"], s["margin_us"], s["takes_smaller"]) for s in r["slaps"]] == [
        (1, 7300, 1), (0, 7300, 0)]
    assert r["saved_game"] is None and r["screen"] == "Games"


def test_layout_shows_spit_cards_and_piles_SPIT2_SPIT3(rig):
    f = start(rig)
    assert f.phase == sp.LAYOUT and lit(rig) > 100
    assert f.game.cards == [26, 26] and f.game.spit_left == [11, 11]
    play_round(rig, ("slap", 0, 0, 12, 0))
    # P1 holds 12: no spit cards, one centre pile this round (SPIT-3, SPIT-11)
    assert f.phase == sp.LAYOUT and f.game.spit_left == [0, 25] and f.game.piles == 1
    start_round(rig)
    assert f.game.spit_left == [0, 24]


# ---- "Spit!" starts: countdown, GO, false starts ---------------------------------
def _shows(rig, text):
    """Every pixel of the countdown's big text, drawn as the flow draws it, is lit."""
    import framebuf
    from speedref.app import ui
    want = bytearray(1024)
    ui.big_center(framebuf.FrameBuffer(want, 128, 64, framebuf.MONO_VLSB), text, 16, 5)
    return all((a & b) == b for a, b in zip(rig.app.buf, want))


def test_countdown_screen_shows_3_2_1_on_the_beat_SPIT4(rig):
    start(rig)
    rig.tap(OK)
    rig.tap(0)
    rig.press(1)
    t0 = rig.t
    for offset_ms, text in ((0, "3"), (1500, "2"), (2500, "1"), (2999, "1")):
        tick_at(rig, (t0 + offset_ms * 1000) % (1 << 30))
        assert _shows(rig, text), "at +%d ms the screen should show %s" % (offset_ms, text)
        assert not any(_shows(rig, d) for d in ("3", "2", "1", "SPIT") if d != text)


def test_countdown_beeps_and_spit_at_exactly_three_seconds_SPIT4(rig):
    f = start(rig)
    rig.tap(OK)
    rig.tap(0)
    assert f.phase == sp.READY and f.ready == [True, False]
    rig.tap(0)  # a second tap is not a second call
    assert f.phase == sp.READY
    rig.press(1)
    t_ready = rig.t
    assert f.phase == sp.START and rig.sounds[-1] == COUNT
    tick_at(rig, (t_ready + 2999999) % (1 << 30))
    assert f.phase == sp.START and f.game.phase == "spit"
    tick_at(rig, (t_ready + 3000000) % (1 << 30))
    assert f.phase == sp.PLAY and f.game.phase == "play" and f.game.spits == 1
    rig._drain()
    assert rig.sounds.count(COUNT) == 3 and rig.sounds[-1] == GO
    assert f.game.spit_left == [10, 10] and f.entries == "S"


def test_false_start_before_go_restarts_counted_and_logged_SPIT4_SPIT18(rig):
    f = start(rig)
    rig.tap(OK)
    rig.tap(0)
    rig.tap(1)
    rig.wait(1500 * MS)
    rig.press(0)
    assert f.phase == sp.START and f.false_starts == [1, 0] and rig.sounds[-1] == FOUL
    assert f.game.phase == "spit" and f.game.spit_left == [11, 11] and f.entries == ""
    rig.wait(1500 * MS)  # SPIT-18: called off until its GO instant, then READY
    assert f.phase == sp.READY and f.ready == [False, False]
    line = rig.log.of("false_start")[-1]
    assert line["seat"] == 0 and line["round"] == 1 and line["when"] == "start"
    assert 1300 * MS < line["early_us"] < 1500 * MS
    rig.release(0)
    rig.wait(5000 * MS)
    assert f.phase == sp.READY  # nothing runs until both call again
    rig.tap(0)
    rig.tap(1)
    rig.wait(3100 * MS)
    assert f.phase == sp.PLAY and f.game.spits == 1
    assert saved_state(rig)["false_starts"] == [0, 0]  # saved at the next boundary only


def test_press_at_the_go_instant_is_not_a_false_start_SPIT4(rig):
    f = start(rig)
    rig.tap(OK)
    rig.tap(0)
    rig.press(1)
    t_go = (rig.t + 3000000) % (1 << 30)
    rig.release(1)
    press_at(rig, 0, t_go)  # arrives before the tick that would give GO
    assert f.phase == sp.PLAY and f.false_starts == [0, 0] and f.game.phase == "play"


@pytest.mark.parametrize("tick_first", [False, True])
@pytest.mark.parametrize("restart_go", [False, True])
def test_a_press_at_the_go_instant_is_never_a_clearing_SPIT20(rig, tick_first, restart_go):
    f = start(rig)
    rig.tap(OK)
    rig.tap(0)
    rig.press(1)
    t_go = (rig.t + 3000000) % (1 << 30)
    rig.release(1)
    if restart_go:
        rig.wait((t_go - rig.t) % (1 << 30) + 200 * MS)
        rig.press(0)
        rig.press(1)
        rig.wait(SPIT_HOLD_US)
        assert f.phase == sp.RESTART
        t_go = (f.countdown.t0 + 3000000) % (1 << 30)
        rig.release(0)
        rig.release(1)
    rig.to_instant(t_go, tick_first)
    rig.tap(0, gap_us=600 * MS)  # down at the GO instant
    assert f.phase == sp.PLAY and f.false_starts == [0, 0]
    assert f.entries == ("SR" if restart_go else "S"), "SPIT-20: a press at GO is never a clearing"
    rig.tap(0)  # the next press plays
    assert f.phase == sp.SLAP


def test_a_hold_let_go_before_the_device_looked_is_still_stuck_SPIT21(rig):
    f = start(rig)
    start_round(rig)
    rig.press(1)
    rig.wait(SPIT_HOLD_US)  # P2 stuck
    rig.press(0)
    rig.t = (rig.t + SPIT_HOLD_US) % (1 << 30)  # no tick while P1's pad was down
    rig.release(0)
    assert f.phase == sp.RESTART and f.entries == "S", "SPIT-21: both stuck, spit again; no clearing"


# ---- stuck calls and restarts ----------------------------------------------------
def test_one_stuck_player_restarts_nothing_both_stuck_restart_SPIT8(rig):
    f = start(rig)
    start_round(rig)
    rig.press(0)
    rig.wait(2000 * MS)
    assert f.stuck == [True, False] and f.phase == sp.PLAY
    rig.release(0)  # found a play: no longer stuck, and not a "cleared" tap
    assert f.stuck == [False, False] and f.phase == sp.PLAY and f.game.cleared is None
    both_stuck(rig)
    assert f.phase == sp.RESTART  # the countdown began 200 ms ago (P2's hold reached 0.5 s)
    rig.wait(2790 * MS)
    assert f.game.restarts == 0
    rig.wait(20 * MS)
    assert f.phase == sp.PLAY and f.game.restarts == 1 and f.game.spit_left == [9, 9]
    assert rig.sounds[-1] == GO and f.entries == "SR"


def test_false_start_in_restart_countdown_back_to_play_SPIT8_SPIT18(rig):
    f = start(rig)
    start_round(rig)
    both_stuck(rig)
    rig.wait(1000 * MS)
    rig.tap(1)
    assert f.phase == sp.RESTART and f.false_starts == [0, 1]
    rig.wait(2000 * MS)  # SPIT-18: called off until its GO instant, then play
    assert f.phase == sp.PLAY
    assert f.game.restarts == 0 and f.game.spit_left == [10, 10] and f.stuck == [False, False]
    assert rig.log.of("false_start")[-1]["when"] == "restart"
    restart(rig)
    assert f.game.restarts == 1 and f.game.spit_left == [9, 9]


@pytest.mark.parametrize("gap_us", [10 * MS, 0])
def test_a_second_early_press_in_restart_is_a_false_start_never_a_clearing_SPIT18(rig, gap_us):
    f = start(rig)
    play_round(rig, ("slap", 0, 0, 12, 0))  # P1 holds 12: no spit cards, clearing would win
    start_round(rig)
    both_stuck(rig)
    assert f.phase == sp.RESTART
    rig.wait(1000 * MS)  # 1.8 s before GO
    rig.press(1)
    rig.wait(gap_us)
    rig.press(0)  # 10 ms later, or in the same microsecond
    rig.wait(60 * MS)
    rig.release(0)
    rig.release(1)
    assert f.game.cleared is None and f.game.winner is None, \
        "SPIT-18: a press before GO is never a clearing"
    assert f.false_starts == [1, 1], "SPIT-18: every press before GO is a false start"
    assert [x["seat"] for x in rig.log.of("false_start")] == [1, 0]
    rig.wait(3000 * MS)
    assert f.phase == sp.PLAY and f.game.restarts == 0 and f.entries == "S"
    rig.tap(0)  # a tap in play afterwards is a real clearing: the win
    assert f.phase == sp.FINAL and f.game.winner == 0


def test_presses_stay_false_starts_until_the_called_off_countdown_is_over_SPIT18(rig):
    f = start(rig)
    rig.tap(OK)
    rig.tap(0)
    rig.press(1)
    t_go = (rig.t + 3000 * MS) % (1 << 30)
    rig.release(1)
    rig.wait(2000 * MS)
    rig.press(0)  # 1 s before GO: calls the countdown off
    assert f.phase == sp.START and rig.sounds[-1] == FOUL
    rig.wait(60 * MS)
    rig.release(0)
    rig.wait(100 * MS)
    rig.tap(0)  # the same player again: the same jump, counted once
    rig.tap(1)  # the other player before GO: a false start, not "ready"
    assert f.false_starts == [1, 1], "SPIT-18: every press before GO is a false start"
    assert f.phase == sp.START and f.game.phase == "spit"
    tick_at(rig, t_go)
    assert f.phase == sp.READY and f.ready == [False, False] and f.game.spits == 0
    rig.tap(1)
    assert f.ready == [False, True] and f.phase == sp.READY, "after it, a tap is a ready call"


def test_a_press_just_after_a_late_false_start_is_a_false_start_too_SPIT18(rig):
    f = start(rig)
    rig.tap(OK)
    rig.tap(0)
    rig.press(1)
    t_go = (rig.t + 3000 * MS) % (1 << 30)
    rig.release(1)
    press_at(rig, 0, (t_go - 5 * MS) % (1 << 30))  # 5 ms early
    press_at(rig, 1, (t_go + 20 * MS) % (1 << 30))  # no GO came: 25 ms after the foul
    assert f.false_starts == [1, 1] and f.game.spits == 0, "SPIT-18"
    tick_at(rig, (t_go + 494 * MS) % (1 << 30))  # called off until 0.5 s after the first
    assert f.phase == sp.START
    tick_at(rig, (t_go + 495 * MS) % (1 << 30))
    assert f.phase == sp.READY and f.ready == [False, False]


def test_one_player_with_spit_cards_turns_one_onto_each_pile_then_blocked_SPIT8_SPIT13(rig):
    f = start(rig)
    play_round(rig, ("slap", 0, 1, 18, 0))  # 18 vs 34: 3 and 19 spit cards
    start_round(rig)
    assert f.game.spit_left == [2, 18]
    restart(rig)
    restart(rig)
    assert f.game.spit_left == [0, 16]
    restart(rig)  # only P2 spits now: one card onto each of the two piles
    assert f.game.spit_left == [0, 14]
    for _ in range(7):
        restart(rig)
    assert f.game.spit_left == [0, 0] and f.phase == sp.PLAY
    both_stuck(rig)  # nobody has spit cards: the round is blocked, no countdown
    assert f.phase == sp.CARDS and f.game.blocked and f.game.restarts == 10
    enter_cards(rig, 17)
    assert f.game.rounds[-1] == {"blocked": True, "cards": [17, 35]}


# ---- the slap ------------------------------------------------------------------------
def test_first_slap_by_timestamp_takes_smaller_pile_with_margin_SPIT10(rig):
    f = start(rig)
    start_round(rig)
    rig.tap(0)  # P1 cleared, but still has spit cards: the slap
    assert f.phase == sp.SLAP and f.game.phase == "slap" and not f.went
    slap(rig, 1, 7300)
    assert f.phase == sp.CARDS and f.game.slap_winner == 1
    assert f.slap_text == "P2 by 7.3 ms"
    s = rig.log.of("slap")[-1]
    assert (s["winner"], s["margin_us"], s["kind"], s["cleared"], s["round"]) == (1, 7300, "pile", 0, 1)
    assert s["presses"] == [1, 0] and rig.sounds[-1] == WIN
    # the verdict is saved at once: a power cut now keeps it (see resume test)
    assert saved_state(rig)["now"] == "S0b"


def test_tie_within_window_goes_to_the_player_who_cleared_SPIT10(rig):
    f = start(rig, tie_ms=5)
    start_round(rig)
    rig.tap(1)
    slap(rig, 0, 2000)  # P1 is 2.0 ms earlier: inside the 5 ms window
    s = rig.log.of("slap")[-1]
    assert s["winner"] is None and s["tie"] == [0, 1] and s["takes_smaller"] == 1
    assert f.game.slap_winner == 1 and f.slap_text == "Tie 2.0 ms: P2"


def test_tie_window_zero_decides_a_2ms_race_SPIT10(rig):
    f = start(rig, tie_ms=0)
    start_round(rig)
    rig.tap(1)
    slap(rig, 0, 2000)
    assert f.game.slap_winner == 0 and f.slap_text == "P1 by 2.0 ms"


def test_slap_before_go_is_a_false_start_and_go_comes_again_SPIT10_SPIT18(rig):
    f = start(rig)
    start_round(rig)
    rig.tap(0)
    rig.wait(500 * MS)
    rig.tap(1)  # before GO
    assert f.phase == sp.SLAP and f.false_starts == [0, 1] and f.game.slap_winner is None
    assert rig.log.of("false_start")[-1]["when"] == "slap"
    rig.wait(800 * MS)  # GO was re-armed from the early slap: not yet
    assert not f.went
    rig.wait(300 * MS)
    assert f.went
    slap(rig, 1, 6000)
    assert f.game.slap_winner == 1


def test_a_lone_slap_is_decided_after_a_second_SPIT17(rig):
    f = start(rig)
    start_round(rig)
    rig.tap(0)
    rig.wait(1000 * MS)
    rig.tap(0)
    rig.wait(500 * MS)
    assert f.phase == sp.SLAP
    rig.wait(600 * MS)
    assert f.phase == sp.CARDS and f.game.slap_winner == 0 and f.slap_text == "P1"
    assert rig.log.of("slap")[-1]["margin_us"] is None


def test_a_clearing_is_not_asked_and_undo_takes_a_wrong_one_back_SPIT19(rig):
    f = start(rig)
    start_round(rig)
    rig.tap(0)
    assert f.phase == sp.SLAP and f.game.cleared == 0, "SPIT-19: no question, the race is on"
    pause_pick(rig, "Undo last")  # P1's piles were not empty after all
    assert f.phase == sp.PLAY and f.game.cleared is None and f.entries == "S", "SPIT-19"
    rig.press(0)
    rig.wait(600 * MS)
    rig.release(0)  # a hold is a stuck call, never a clearing
    assert f.phase == sp.PLAY and f.game.cleared is None, "SPIT-19"


def test_one_centre_pile_clearing_gives_the_other_the_pile_SPIT11(rig):
    f = start(rig)
    play_round(rig, ("slap", 0, 0, 12, 0))
    start_round(rig)
    slaps = len(rig.log.of("slap"))
    rig.tap(1)  # P2 cleared; P1 (no spit cards) takes the one pile
    assert f.phase == sp.CARDS and f.game.slap_winner is None and f.game.cleared == 1
    assert len(rig.log.of("slap")) == slaps
    assert f.slap_text == ""  # round 1's margin is not shown for this round
    enter_cards(rig, 30)
    assert f.game.rounds[-1] == {"cleared": 1, "cards": [30, 22]}


def test_clearing_without_spit_cards_wins_SPIT14(rig):
    f = start(rig)
    play_round(rig, ("slap", 0, 0, 12, 0))
    start_round(rig)
    rig.tap(0)  # P1 had no spit cards: clearing the piles is going out
    assert f.phase == sp.FINAL and f.game.winner == 0 and rig.sounds[-1] == WIN
    assert rig.log.of("round")[-1]["cards"] == [0, 52]
    assert not rig.log.of("game_end")  # stored only on OK
    rig.tap(0)
    rig.tap(UP)
    assert f.phase == sp.FINAL
    rig.tap(OK)
    assert rig.screen_name() == "Games" and len(rig.store.records()) == 1
    assert rig.store.load_game() == (None, None)


def test_clearing_after_last_spit_card_used_wins_SPIT14(rig):
    f = start(rig)
    play_round(rig, ("slap", 0, 1, 17, 0))  # 17: two spit cards
    start_round(rig)
    restart(rig)
    assert f.game.spit_left[0] == 0
    rig.tap(0)
    assert f.phase == sp.FINAL and f.game.winner == 0


# ---- the relayout count -------------------------------------------------------------
def test_count_is_bounded_and_held_keys_repeat_SPIT12_SPIT22(rig):
    f = start(rig)
    to_cards_after_slap(rig)
    assert f.phase == sp.CARDS and f.count == 26  # the last count is the first guess
    rig.press(UP)
    rig.wait(500 * MS + 5 * 80 * MS - 10 * MS)
    rig.release(UP)
    assert f.count == 26 + 1 + 5
    rig.press(UP)
    rig.wait(5000 * MS)
    rig.release(UP)
    # SPIT-22: P1 cleared two piles from 26 cards (11 spit cards): P1's spit
    # cards left and the pile taken make at least 11, and P2 keeps a stock
    # card and at least their 11 spit cards' worth, so 11..40 (1..51 before)
    assert f.count == 40, "SPIT-22"
    rig.press(DOWN)
    rig.wait(8000 * MS)
    rig.release(DOWN)
    assert f.count == 11, "SPIT-22"
    rig.wait(1000 * MS)
    assert f.count == 11  # released: no more repeats
    rig.tap(OK)
    assert f.game.cards == [11, 41] and f.phase == sp.LAYOUT


def test_the_count_after_one_pile_starts_and_stays_in_what_the_round_leaves_SPIT22(rig):
    """SPIT-22: P1 (12 cards, no spit cards) takes the one pile P2 cleared, so
    P1 now holds at least 12 + 15 + 1: the first guess is 28, not the 12 of
    the round's start, and DOWN stops there."""
    f = start(rig)
    play_round(rig, ("slap", 0, 0, 12, 0))
    start_round(rig)
    rig.tap(1)  # P2 cleared the one pile
    assert f.phase == sp.CARDS and f.count == 28, "SPIT-22"
    rig.tap(DOWN)
    assert f.count == 28, "SPIT-22"
    rig.tap(UP)
    assert f.count == 29


# ---- presses that mean nothing ---------------------------------------------------------
def test_presses_in_wrong_phases_are_ignored(rig):
    f = start(rig)
    for b in (2, 3, UP, DOWN):
        rig.tap(b)
    assert f.phase == sp.LAYOUT
    start_round(rig)
    for b in (2, 3, UP, DOWN, OK):
        rig.tap(b)
    assert f.phase == sp.PLAY and f.game.cleared is None and f.game.spit_left == [10, 10]
    rig.tap(0)
    assert f.phase == sp.SLAP
    for b in (2, 3, UP, DOWN, OK):
        rig.tap(b)
    assert f.phase == sp.SLAP and f.false_starts == [0, 0]
    slap(rig, 0, 9000)
    assert f.phase == sp.CARDS
    for b in (0, 1, 2, 3):
        rig.tap(b)
    assert f.phase == sp.CARDS and f.count == 26 and f.game.slap_winner == 0
    rig.tap(OK)
    assert f.phase == sp.LAYOUT and f.game.cards == [26, 26] and f.game.hands_played == 1
    rig.release(0)  # a release without a press
    release_at(rig, OK, rig.t)
    assert f.phase == sp.LAYOUT and f.game.hands_played == 1
    assert not rig.log.of("error")


# ---- undo, pause and abandon -------------------------------------------------------------
def test_undo_steps_back_one_entry_at_a_time(rig):
    f = start(rig)
    start_round(rig)
    restart(rig)
    rig.tap(0)
    slap(rig, 1, 7300)
    enter_cards(rig, 30)
    assert f.phase == sp.LAYOUT and f.game.hands_played == 1
    pause_pick(rig, "Undo last")  # the count
    assert f.phase == sp.CARDS and f.game.hands_played == 0 and f.count == 30
    assert saved_state(rig)["done"] == [] and saved_state(rig)["now"] == "SR0b"
    pause_pick(rig, "Undo last")  # the slap: the race is run again
    assert f.phase == sp.SLAP and f.game.phase == "slap" and saved_state(rig)["now"] == ""
    slap(rig, 0, 7300)
    assert f.game.slap_winner == 0
    pause_pick(rig, "Undo last")  # that slap again
    pause_pick(rig, "Undo last")  # the clearing
    assert f.phase == sp.PLAY and f.game.cleared is None and f.game.spit_left == [9, 9]
    pause_pick(rig, "Undo last")  # the restart
    assert f.phase == sp.PLAY and f.game.restarts == 0 and f.game.spit_left == [10, 10]
    pause_pick(rig, "Undo last")  # the start
    assert f.phase == sp.LAYOUT and f.game.phase == "spit" and f.game.spit_left == [11, 11]
    rig.back()
    assert "Undo last" not in rig.app.screen.items
    rig.tap(OK)
    for r in GAME:  # the whole game still plays after undoing everything
        play_round(rig, r)
    rig.tap(OK)
    rec = rig.log.of("game_end")[-1]["record"]
    assert rec["rounds"][0] == {"cleared": 0, "slap": 1, "cards": [20, 32]}


def test_undo_of_the_win_goes_back_to_play_and_is_saved_SPIT14(rig):
    f = start(rig)
    play_round(rig, ("slap", 0, 0, 12, 0))
    start_round(rig)
    rig.tap(0)
    assert f.phase == sp.FINAL and saved_state(rig)["now"] == "S0"
    pause_pick(rig, "Undo last")
    assert f.phase == sp.PLAY and f.game.winner is None and saved_state(rig)["now"] == ""
    rig.reboot()
    rig.tap(OK)
    assert rig.app.flow.phase == sp.LAYOUT and rig.app.flow.game.cards == [12, 40]


def test_undo_of_a_logged_round_is_logged_SPIT12_SPIT14(rig):
    """A round whose count was entered (SPIT-12) and the win (SPIT-14) were
    logged as round lines: undoing either logs an undo line naming the
    round; undoing the slap or anything not yet logged logs nothing."""
    f = start(rig)
    play_round(rig, ("slap", 0, 1, 20, 1))
    pause_pick(rig, "Undo last")  # round 1's count
    assert rig.log.of("undo") == [{"ev": "undo", "game": "spit", "what": "round", "round": 1}]
    pause_pick(rig, "Undo last")  # its slap: the slap line stands, no undo line
    assert len(rig.log.of("undo")) == 1
    slap(rig, 1, 7300)
    enter_cards(rig, 12)
    start_round(rig)
    rig.tap(0)  # P1 has no spit cards: the win
    assert f.phase == sp.FINAL and rig.log.of("round")[-1]["round"] == 2
    pause_pick(rig, "Undo last")
    assert rig.log.of("undo")[-1] == {"ev": "undo", "game": "spit", "what": "round", "round": 2}
    assert f.phase == sp.PLAY
    pause_pick(rig, "Undo last")  # the start of round 2: never logged
    assert len(rig.log.of("undo")) == 2
    assert [r["round"] for r in rig.log.of("round")] == [1, 1, 2]


def test_pause_during_countdown_cancels_it(rig):
    f = start(rig)
    rig.tap(OK)
    rig.tap(0)
    rig.tap(1)
    rig.back()
    rig.wait(4000 * MS)
    rig.tap(OK)  # Continue
    assert f.phase == sp.READY and f.ready == [False, False] and f.game.phase == "spit"


def test_pause_during_slap_runs_the_race_again(rig):
    f = start(rig)
    start_round(rig)
    rig.tap(0)
    rig.wait(1100 * MS)
    rig.press(1)  # one slap in, then BACK
    rig.release(1)
    rig.back()
    rig.wait(3000 * MS)
    rig.tap(OK)  # Continue: a fresh GO one second later
    assert f.phase == sp.SLAP and f.race.pressed() == 0
    slap(rig, 0, 4000)
    assert f.game.slap_winner == 0 and rig.log.of("slap")[-1]["margin_us"] == 4000


# ---- power cuts -------------------------------------------------------------------------
def test_power_cut_after_the_slap_keeps_the_verdict_SPIT10(rig):
    start(rig)
    start_round(rig)
    restart(rig)
    rig.tap(1)
    slap(rig, 0, 7300)
    rig.reboot()
    rig.tap(OK)
    f = rig.app.flow
    assert f.phase == sp.CARDS and f.game.slap_winner == 0 and f.game.cleared == 1
    assert f.slap_text == "P1 by 7.3 ms" and f.game.spit_left == [9, 9]
    enter_cards(rig, 29)
    assert f.game.rounds == [{"cleared": 1, "slap": 0, "cards": [29, 23]}]


@pytest.mark.parametrize("now,rule", [("S0b0", "SPIT-9"), ("SB", "SPIT-8"), ("SSa", "SPIT-8"),
                                      ("S0x", "unknown")])
def test_a_save_that_breaks_the_rules_is_refused_not_a_crash(rig, now, rule):
    """Checked at boot (menu.check_save) and set aside, never offered: the
    save before it (its backup, the game just started) is offered instead."""
    start(rig)
    good = rig.store.load_game()[0]
    saved = json.loads(json.dumps(good))
    saved["state"]["now"] = now
    rig.store.save_game(saved)
    rig.reboot()
    set_aside_for_its_backup(rig, rule, good)


def set_aside_for_its_backup(rig, rule, good):
    boot = rig.app.screen
    assert rig.screen_name() == "Boot" and rule in boot.problem and "set aside" in boot.problem
    assert boot.saved == good, "the backup, the save before the refused one, is offered"
    assert os.path.exists(os.path.join(rig.root, "game.json.bad"))
    rig.tap(OK)
    assert rig.app.flow is not None and rig.app.flow.phase == sp.LAYOUT


def test_a_save_whose_counts_break_SPIT12_is_refused(rig):
    start(rig)
    good = rig.store.load_game()[0]
    saved = json.loads(json.dumps(good))
    saved["state"]["done"] = [["S0a", 30, 30]]
    rig.store.save_game(saved)
    rig.reboot()
    set_aside_for_its_backup(rig, "SPIT-12", good)


# ---- screens -------------------------------------------------------------------------------
# ---- the rules live in the engine (SPIT-8, SPIT-13, SPIT-17, SPIT-18) ------------------
def drawn_texts(rig, f):
    """The small-text lines the flow draws now."""
    return texts_drawn(f.draw)


def test_the_flow_keeps_no_copy_of_the_spit_card_count_SPIT8(rig):
    f = start(rig)
    assert not hasattr(f, "spit_left") and not hasattr(sp, "_clamp")
    start_round(rig)
    restart(rig)
    assert f.game.spit_left == [9, 9] and f.game.restarts == 1


def test_the_slaps_go_is_the_engines_one_second_after_the_clearing_tap_SPIT17(rig):
    f = start(rig)
    start_round(rig)
    rig.press(0)
    rig.wait(60 * MS)
    t_clear = rig.t
    rig.release(0)  # the tap: P1 cleared at the release
    go = (t_clear + 1000000) % (1 << 30)
    assert f.phase == sp.SLAP and f.game.slap_go == go and f.race.go_us == go
    tick_at(rig, (t_clear + 999999) % (1 << 30))
    assert not f.went
    tick_at(rig, go)
    rig.t = go
    rig._drain()
    assert f.went and rig.sounds[-1] == GO
    slap(rig, 1, 7300)
    assert f.game.slap_winner == 1


def test_a_false_slap_moves_the_engines_go_and_is_logged_with_its_earliness_SPIT18(rig):
    f = start(rig, tie_ms=0)
    start_round(rig)
    rig.tap(0)
    go = f.game.slap_go
    rig.wait(300 * MS)
    early = ticks_diff_(go, rig.t)
    rig.press(1)  # before GO
    assert f.false_starts == [0, 1] and rig.sounds[-1] == COUNT
    assert f.game.slap_go == (rig.t + 1000000) % (1 << 30) and f.race.go_us == f.game.slap_go
    line = rig.log.of("false_start")[-1]
    assert line["when"] == "slap" and line["early_us"] == early and line["seat"] == 1
    rig.release(1)
    slap(rig, 0, 3000)
    assert f.game.slap_winner == 0 and rig.log.of("slap")[-1]["false_starts"] == []


def test_blocked_round_screen_names_who_takes_the_pile_SPIT13(rig):
    f = start(rig)
    play_round(rig, ("slap", 0, 0, 12, 0))  # P1: no spit cards, one pile (P2's)
    start_round(rig)
    while f.game.can_spit():
        restart(rig)
    both_stuck(rig)
    assert f.phase == sp.CARDS and f.game.blocked and f.game.taker() == 1
    assert "P2 takes pile" in drawn_texts(rig, f)
    enter_cards(rig, 10)  # SPIT-22: P1 kept some of their 12 stock cards
    assert f.game.rounds[-1] == {"blocked": True, "cards": [10, 42]}
    play_round(rig, ("pile", 1, 26, 0))  # P1 takes the one pile P2 cleared
    # two piles: each takes their own side
    start_round(rig)
    while f.game.can_spit():
        restart(rig)
    both_stuck(rig)
    assert f.game.taker() is None and "take your side" in drawn_texts(rig, f)


def ticks_diff_(a, b):
    from speedref.ticks import ticks_diff
    return ticks_diff(a, b)


# ---- the verdict before the flash --------------------------------------------------
def _texts(rig):
    return texts_drawn(rig.app.screen.draw)


def _slap_decided_in_one_pass(rig):
    """Round 1 to its slap: P1 clears, P2 slaps at GO, P1 7.3 ms later; the
    pass that takes P1's slap decides the race, shows it and lights P2,
    and stops before its end (the save is still to be written)."""
    start(rig)
    start_round(rig)
    rig.tap(0)  # P1: my stock piles are empty (SPIT-9); two piles: the slap
    rig.wait(1000 * MS)  # the slap's GO (SPIT-17)
    rig.press(1)
    rig.t = (rig.t + 7300) % (1 << 30)
    rig.app.press(0, rig.t)
    rig.app.tick(rig.t)
    rig.app.render()
    f = rig.app.flow
    assert f.phase == sp.CARDS and rig.app.lights == 2 and rig.app.dirty
    return f


def test_a_cut_after_the_slap_verdict_is_shown_before_its_save_resumes_at_the_round_start_and_says_so_SPIT10(rig):
    """The verdict goes to the pad lights and the panel before the flash
    holds the CPU: a power cut between the two resumes on the save before
    it (the round's start, the slap not played), and the resume screen says
    where the game goes on.  Nothing of a completed round is lost."""
    f = _slap_decided_in_one_pass(rig)
    assert rig.app.pending is not None and f.save_state()["now"] == "S0b"
    assert rig.store.load_game()[0]["state"]["now"] == ""  # not on flash yet
    rig.reboot()  # the power goes before the pass's end
    saved = rig.store.load_game()[0]
    assert saved["state"]["now"] == "" and saved["at"] == "round 1 start"
    assert "at round 1 start" in _texts(rig), _texts(rig)
    rig.tap(OK)  # resume
    f = rig.app.flow
    assert f.phase == sp.LAYOUT and f.game.hands_played == 0
    assert "Round 1 layout" in _texts(rig)


def test_the_slap_verdict_saved_at_the_end_of_its_pass_is_restored_after_a_cut_SPIT10(rig):
    """Once the pass that showed the verdict has ended, its save is on
    flash: a cut then resumes on the verdict, margin and all."""
    _slap_decided_in_one_pass(rig)
    rig.end_pass()
    rig.reboot()
    saved = rig.store.load_game()[0]
    assert saved["state"]["now"] == "S0b" and saved["at"] == "round 1 count"
    assert "at round 1 count" in _texts(rig)
    rig.tap(OK)
    f = rig.app.flow
    assert f.phase == sp.CARDS and "P2 took smaller" in _texts(rig) and "P2 by 7.3 ms" in _texts(rig)


def test_the_second_slap_is_the_verdict_in_its_own_call_SPIT10(rig):
    """Both have slapped: nothing is left to wait for, so the second slap's
    own press decides the race (lights, pile screen, log line), not the
    loop's tick after it."""
    from app_spit_game import SLAP_GO_US
    from speedref.ticks import ticks_add
    rig.app.start("spit", rig.t, spit_opts())
    f = rig.app.flow
    start_round(rig)
    rig.tap(0)  # P1 cleared, but still has spit cards: the slap
    assert f.phase == sp.SLAP
    pins = []
    rig.app.lights_out = pins.append  # the device loop's pin writer
    rig.wait(SLAP_GO_US)
    rig.press(1)
    assert f.phase == sp.SLAP and not pins, "one slap: the other may still come"
    rig.t = ticks_add(rig.t, 7300)  # no tick between: the press alone
    rig.press(0)
    assert f.phase == sp.CARDS and f.game.slap_winner == 1, "SPIT-10: the first slap wins"
    assert pins and pins[-1] & 2, "SPIT-10: the winner's pad lit in that call"
    assert rig.log.of("slap")[-1]["margin_us"] == 7300
