"""The referee app's menu, core and Speed flow, driven by (button, t_us)
events on CPython (MicroPython runs are in test_app_mpy.py).  Rule numbers
are from seeds/speed.md."""
import pytest

from app_rig import (MS, pause_pick, lit, speed_opts, start_deal, reserve_flip, enter_left,
                     play_deal, speed_match_report, confirm_claim)
from rig_steps import press_at, release_at, tick_at
from speedref.app.core import UP, DOWN, OK, FOUL, GO, COUNT
from speedref.app import speed_flow as sf
from speedref.tunables import SPEED_HOLD_US, CLAIM_WAIT_US
from speedref.engine import speed
from speedref import storage


# ---- menu and settings -------------------------------------------------------
def test_boot_menu_options_remembered_and_saved_only_on_change(rig):
    assert rig.screen_name() == "Boot" and rig.app.dirty and lit(rig) > 0
    rig.tap(OK)
    assert rig.screen_name() == "Games"
    rig.tap(OK)  # Speed
    assert rig.screen_name() == "Options"
    rig.tap(DOWN)  # Layout
    rig.tap(OK)  # pagat -> classic
    rig.tap(UP)  # Start: BACK there leaves the options (on an option it steps back)
    writes = rig.store.writes
    rig.back()
    assert rig.store.load_settings()["speed"]["layout"] == "classic"
    assert rig.store.writes == writes + 1
    rig.tap(OK)
    rig.back()  # nothing changed: no flash write
    assert rig.store.writes == writes + 1
    rig.reboot()
    assert rig.app.settings["speed"]["layout"] == "classic"


def test_menu_start_runs_speed_with_chosen_options(rig):
    rig.tap(OK)
    rig.tap(OK)
    for _ in range(5):  # Start, Layout, Jokers, Doubles, Hand, Slap win
        rig.tap(DOWN)
    rig.tap(OK)  # slap to win on
    rig.tap(UP)
    rig.tap(UP)
    rig.tap(UP)
    rig.tap(UP)
    rig.tap(UP)
    rig.tap(OK)  # Start
    f = rig.app.flow
    assert isinstance(f, sf.SpeedFlow) and f.match.slap_to_win and f.phase == sf.LAYOUT
    assert rig.store.load_settings()["speed"]["slap_to_win"] is True


def test_bad_option_combination_is_reported_not_a_crash(rig):
    """SP-4: jokers only with the classic layout; the app says so and goes back."""
    rig.app.start("speed", rig.t, speed_opts(jokers=True))
    assert rig.app.flow is None and rig.screen_name() == "Message"
    assert rig.log.of("error")
    rig.tap(OK)
    assert rig.screen_name() == "Games"


def test_game_without_a_flow_yet_is_a_message_not_a_crash(rig):
    rig.app.start("nosuchgame", rig.t, {})
    assert rig.screen_name() == "Message"
    rig.tap(OK)
    assert rig.screen_name() == "Games"


def test_long_ok_is_back(rig):
    rig.app.start("speed", rig.t)
    rig.press(OK)
    rig.wait(900 * MS)
    assert rig.screen_name() == "Pause"
    rig.release(OK)  # the release of a long OK is not also an OK
    assert rig.screen_name() == "Pause"
    rig.tap(OK)  # Continue
    assert rig.phase() == sf.LAYOUT


def test_a_long_ok_let_go_before_the_device_looked_is_back_SP26(rig):
    from speedref.tunables import LONG_OK_US
    rig.app.start("speed", rig.t)
    rig.press(OK)
    rig.t = (rig.t + LONG_OK_US) % (1 << 30)  # no tick while OK was down
    rig.release(OK)
    assert rig.screen_name() == "Pause", "SP-26: held long enough, OK is BACK"


# ---- a complete match ----------------------------------------------------------
@pytest.mark.parametrize("match,deals", [
    ("target", [(0, 10), (1, 3), (0, 15)]),            # SP-19 first to 25
    ("best_of", [(1, 2), (0, 9), (1, 1)]),              # SP-19 best of three deals
    ("single", [(1, 7)]),                               # SP-19 a single deal
])
def test_complete_match_record_equals_engine_SP18_SP19(tmp_path, match, deals):
    r = speed_match_report(str(tmp_path), deals, speed_opts(match=match))
    rec = dict(r["record"])
    assert rec.pop("id")
    rec.pop("table", None)
    assert rec == r["engine"]
    assert r["stored"] == r["record"]
    assert [(d["winner"], d["left"]) for d in r["deal_lines"]] == deals
    m = speed.replay(rec)
    assert m.over
    assert r["deal_lines"][-1]["totals"] == m.totals
    assert r["saved_game"] is None  # the finished game is not offered for resume
    assert r["screen"] == "Games"


def test_classic_layout_bounds_the_count_SP18(rig):
    rig.app.start("speed", rig.t, speed_opts(layout="classic", match="single"))
    start_deal(rig)
    rig.tap(0)
    confirm_claim(rig, 1)
    f = rig.app.flow
    assert f.phase == sf.LEFT and f.left == 1
    for _ in range(30):
        rig.tap(UP, 20 * MS, 20 * MS)
    assert f.left == 20  # classic: 5 in hand + 15 stock
    for _ in range(30):
        rig.tap(DOWN, 20 * MS, 20 * MS)
    assert f.left == 1  # without slap-to-win the loser holds at least one
    rig.tap(OK)
    assert f.phase == sf.FINAL and f.match.totals == [1, 0]


# ---- start, countdown, false starts --------------------------------------------
def test_countdown_beeps_and_go_at_exactly_three_seconds_SP6(rig):
    rig.app.start("speed", rig.t)
    rig.tap(OK)
    rig.tap(0)
    assert rig.phase() == sf.READY
    rig.press(1)  # both ready: the countdown starts at this instant
    t_ready = rig.t
    assert rig.phase() == sf.COUNT_DOWN and rig.sounds[-1] == COUNT
    f = rig.app.flow
    tick_at(rig, (t_ready + 2999999) % (1 << 30))
    assert f.phase == sf.COUNT_DOWN
    tick_at(rig, (t_ready + 3000000) % (1 << 30))
    assert f.phase == sf.PLAY and f.deal.phase == "play"
    rig._drain()
    assert rig.sounds.count(COUNT) == 3 and rig.sounds[-1] == GO


def _digit_frame(text):
    """The countdown screen's big text as the flow draws it, on a blank frame."""
    import framebuf
    from speedref.app import ui
    buf = bytearray(1024)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    ui.big_center(fb, text, 14, 5)
    return buf


def _shows(rig, text):
    want = _digit_frame(text)
    # every pixel of the big text is lit on the real screen
    return all((a & b) == b for a, b in zip(rig.app.buf, want))


def test_countdown_screen_shows_3_2_1_then_go_on_the_beat_SP6(rig):
    rig.app.start("speed", rig.t)
    rig.tap(OK)
    rig.tap(0)
    rig.press(1)  # both ready: the countdown starts at this instant
    t0 = rig.t
    for offset_ms, text in ((0, "3"), (500, "3"), (1500, "2"), (2500, "1"), (2999, "1")):
        tick_at(rig, (t0 + offset_ms * 1000) % (1 << 30))
        assert _shows(rig, text), "at +%d ms the screen should show %s" % (offset_ms, text)
        assert not any(_shows(rig, d) for d in ("3", "2", "1", "GO") if d != text)
    tick_at(rig, (t0 + 3000 * 1000) % (1 << 30))  # GO: the play screen, no digit left
    assert rig.app.flow.phase == sf.PLAY
    assert not any(_shows(rig, d) for d in ("3", "2", "1"))


def test_false_start_restarts_and_is_counted_and_logged_SP6(rig):
    rig.app.start("speed", rig.t, speed_opts(match="single"))
    rig.tap(OK)
    rig.tap(0)
    rig.tap(1)
    rig.wait(1500 * MS)
    rig.press(1)  # P2 jumps the gun
    f = rig.app.flow
    assert f.phase == sf.COUNT_DOWN and f.false_starts == [0, 1]  # called off (SP-22)
    assert rig.sounds[-1] == FOUL
    line = rig.log.of("false_start")[-1]
    assert line["seat"] == 1 and line["deal"] == 1
    assert 1300 * MS < line["early_us"] < 1500 * MS
    rig.release(1)
    rig.wait(5000 * MS)
    assert f.phase == sf.READY  # nothing runs until both are ready again
    rig.tap(0)
    rig.tap(1)
    rig.wait(3100 * MS)
    assert f.phase == sf.PLAY
    rig.tap(0)
    confirm_claim(rig, 1)
    enter_left(rig, 4)
    rig.tap(OK)
    assert rig.log.of("game_end")[-1]["record"]["deals"] == [{"winner": 0, "left": 4}]


@pytest.mark.parametrize("gap_us", [10 * MS, 0])
def test_a_second_early_press_is_a_false_start_not_a_ready_call_SP22(rig, gap_us):
    rig.app.start("speed", rig.t, speed_opts(match="single"))
    f = rig.app.flow
    rig.tap(OK)
    rig.tap(0)
    rig.tap(1)
    rig.wait(1500 * MS)
    rig.press(1)  # P2 jumps the gun
    rig.wait(gap_us)
    rig.press(0)  # P1 10 ms later, or in the same microsecond
    assert f.false_starts == [1, 1], "SP-22: every press before GO is a false start"
    assert [x["seat"] for x in rig.log.of("false_start")] == [1, 0]
    rig.wait(60 * MS)
    rig.release(0)
    rig.wait(2000 * MS)  # P2 still holds the pad it jumped with
    assert f.phase == sf.READY and not f.deal.is_ready(0) and not f.deal.is_ready(1), "SP-22"
    rig.release(1)  # letting go is no ready call
    rig.tap(0)
    rig.wait(4000 * MS)
    assert f.phase == sf.READY, "SP-22: one player's tap alone starts no countdown"
    rig.tap(1)
    rig.wait(3100 * MS)
    assert f.phase == sf.PLAY and f.false_starts == [1, 1]


def test_presses_until_the_called_off_countdown_is_over_are_false_starts_SP22(rig):
    rig.app.start("speed", rig.t, speed_opts(match="single"))
    f = rig.app.flow
    rig.tap(OK)
    rig.tap(0)
    rig.press(1)
    t_go = (rig.t + 3000 * MS) % (1 << 30)
    rig.release(1)
    press_at(rig, 0, (t_go - 1000 * MS) % (1 << 30))  # calls the countdown off
    release_at(rig, 0, (t_go - 940 * MS) % (1 << 30))
    press_at(rig, 0, (t_go - 800 * MS) % (1 << 30))   # the same player: the same jump
    release_at(rig, 0, (t_go - 740 * MS) % (1 << 30))
    press_at(rig, 1, (t_go - 1 * MS) % (1 << 30))     # the other player, 1 ms before GO
    release_at(rig, 1, (t_go - 500) % (1 << 30))
    assert f.false_starts == [1, 1] and f.phase == sf.COUNT_DOWN, "SP-22"
    assert f.deal.phase == "ready", "SP-22: no start cards turned"
    tick_at(rig, t_go)
    assert f.phase == sf.READY, "SP-22: called off until its GO instant"
    press_at(rig, 1, (t_go + 10 * MS) % (1 << 30))
    assert f.deal.is_ready(1) and f.false_starts == [1, 1]


def test_press_at_go_instant_is_not_a_false_start(rig):
    rig.app.start("speed", rig.t)
    rig.tap(OK)
    rig.tap(0)
    rig.press(1)
    t_go = (rig.t + 3000000) % (1 << 30)
    rig.release(1)
    press_at(rig, 0, t_go)  # arrives before the tick that would give GO
    f = rig.app.flow
    assert f.phase == sf.PLAY and f.false_starts == [0, 0]


@pytest.mark.parametrize("tick_first", [False, True])
@pytest.mark.parametrize("slap_to_win", [False, True])
def test_a_press_at_the_go_instant_neither_claims_nor_slaps_SP25(rig, tick_first, slap_to_win):
    rig.app.start("speed", rig.t, speed_opts(slap_to_win=slap_to_win))
    rig.tap(OK)
    rig.tap(0)
    rig.press(1)
    t_go = (rig.t + 3000000) % (1 << 30)
    rig.release(1)
    f = rig.app.flow
    if tick_first:
        tick_at(rig, t_go)  # GO given by the device loop's tick ...
    rig.t = t_go
    rig.press(0)  # ... or by this press: either way a press at the instant
    rig.wait(60 * MS)
    rig.release(0)
    rig.wait(600 * MS)
    assert f.phase == sf.PLAY and f.false_starts == [0, 0], "SP-25: GO came, no false start"
    assert f.entries == "" and rig.log.of("slap") == [], "SP-25: a press at GO is no claim, no slap"
    rig.tap(0)  # the next press plays
    assert f.phase == sf.CLAIM if not slap_to_win else rig.log.of("slap")


@pytest.mark.parametrize("tick_first", [False, True])
def test_pause_at_the_go_instant_comes_after_go_SP25(rig, tick_first):
    rig.app.start("speed", rig.t)
    rig.tap(OK)
    rig.tap(0)
    rig.press(1)
    t_go = (rig.t + 3000000) % (1 << 30)
    rig.release(1)
    f = rig.app.flow
    if tick_first:
        tick_at(rig, t_go)
    rig.t = t_go
    pause_pick(rig, "Continue")
    assert f.phase == sf.PLAY and f.deal.phase == "play", "SP-25: GO was due when the pause opened"


@pytest.mark.parametrize("tick_first", [False, True])
def test_a_press_at_the_flip_instant_is_no_claim_SP25(rig, tick_first):
    rig.app.start("speed", rig.t)
    start_deal(rig)
    f = rig.app.flow
    rig.press(0)
    rig.press(1)
    rig.wait(SPEED_HOLD_US)
    assert f.phase == sf.FLIP
    t_go = (f.countdown.t0 + 3000000) % (1 << 30)
    rig.release(0)
    rig.release(1)
    rig.to_instant(t_go, tick_first)
    rig.tap(0, gap_us=600 * MS)  # down at the flip instant
    assert f.deal.flips == 1 and f.phase == sf.PLAY and f.entries == "F", "SP-25"


def test_a_hold_let_go_before_the_device_looked_is_still_a_hold_SP26(rig):
    rig.app.start("speed", rig.t)
    start_deal(rig)
    f = rig.app.flow
    rig.press(1)
    rig.wait(SPEED_HOLD_US)  # P2 stuck
    rig.press(0)
    rig.t = (rig.t + SPEED_HOLD_US) % (1 << 30)  # no tick while P1's pad was down
    rig.release(0)
    assert f.phase == sf.FLIP, "SP-26: both stuck, the flip countdown runs"
    rig.release(1)
    rig.wait(3100 * MS)
    rig.tap(0)
    assert f.phase == sf.CLAIM
    rig.wait(CLAIM_WAIT_US)
    rig.press(1)
    rig.t = (rig.t + SPEED_HOLD_US) % (1 << 30)
    rig.release(1)
    assert f.phase == sf.LEFT, "SP-26: the opponent's hold is a yes"


# ---- stuck, flips, rebuilds -----------------------------------------------------
def test_one_stuck_player_flips_nothing_both_stuck_flip_SP14(rig):
    rig.app.start("speed", rig.t)
    start_deal(rig)
    f = rig.app.flow
    rig.press(0)
    rig.wait(2000 * MS)
    assert f.deal.is_stuck(0) and f.phase == sf.PLAY and f.deal.flips == 0
    rig.release(0)  # found a play: the stuck call is taken back
    assert not f.deal.is_stuck(0)
    rig.press(1)
    rig.wait(2000 * MS)
    rig.release(1)
    assert f.deal.flips == 0 and f.phase == sf.PLAY
    reserve_flip(rig)
    assert f.deal.flips == 1 and f.deal.reserve_left == 9 and f.phase == sf.PLAY
    assert rig.sounds[-1] == GO


def test_pads_during_flip_countdown_do_not_count_SP14(rig):
    rig.app.start("speed", rig.t)
    start_deal(rig)
    f = rig.app.flow
    rig.press(0)
    rig.press(1)
    rig.wait(600 * MS)
    assert f.phase == sf.FLIP
    rig.release(0)
    rig.release(1)
    rig.tap(0)
    rig.tap(1)
    rig.tap(UP)
    rig.tap(OK)
    assert f.phase == sf.FLIP and f.deal.flips == 0
    rig.wait(3000 * MS)
    assert f.phase == sf.PLAY and f.deal.flips == 1 and f.deal.claimant is None


def test_reserves_run_out_and_are_rebuilt_SP15(rig):
    rig.app.start("speed", rig.t, speed_opts(layout="classic"))
    start_deal(rig)
    f = rig.app.flow
    for _ in range(5):
        reserve_flip(rig)
    assert f.deal.flips == 5 and f.deal.reserve_left == 0
    rig.press(0)
    rig.press(1)
    rig.wait(600 * MS)
    assert f.phase == sf.REBUILD  # the device says when to rebuild
    rig.release(0)
    rig.release(1)
    rig.tap(OK)
    assert f.phase == sf.FLIP
    rig.wait(3000 * MS)
    assert f.deal.flips == 6 and f.deal.rebuilds == 1 and f.deal.reserve_left is None
    # the rebuilt reserves' size is unknown: the players say when they are empty
    rig.press(0)
    rig.press(1)
    rig.wait(600 * MS)
    assert f.phase == sf.FLIP
    rig.tap(DOWN)
    assert f.phase == sf.REBUILD
    assert f.entries == "FFFFFRFE"


# ---- claims ------------------------------------------------------------------------
def test_claim_withdrawn_by_claimant_and_confirmed_by_opponent_SP16(rig):
    rig.app.start("speed", rig.t)
    start_deal(rig)
    f = rig.app.flow
    rig.tap(1)
    assert f.phase == sf.CLAIM and f.deal.claimant == 1
    rig.wait(500 * MS)
    rig.tap(1)  # "sorry, not out"
    assert f.phase == sf.PLAY and f.deal.claimant is None
    rig.tap(0)
    assert f.deal.claimant == 0
    confirm_claim(rig, 1)
    assert f.phase == sf.LEFT


@pytest.mark.parametrize("reflex_ms", [100, 110, 200, 300, 499])
def test_a_reflex_slap_after_the_out_tap_confirms_nothing_SP16(rig, reflex_ms):
    rig.app.start("speed", rig.t)
    start_deal(rig)
    f = rig.app.flow
    rig.tap(0, gap_us=0)  # P1: "I'm out"
    rig.wait(reflex_ms * MS - 60 * MS)  # P2 slaps reflex_ms after P1's tap went down
    rig.tap(1, hold_us=60 * MS, gap_us=0)
    assert f.phase == sf.CLAIM and f.deal.claimant == 0, \
        "SP-16: a reflex slap is neither a yes nor a no; the question stays on screen"
    rig.press(1)  # even held: a press that began within 0.5 s of the question means nothing
    rig.wait(1000 * MS)
    rig.release(1)
    assert f.phase == sf.CLAIM, "SP-16"
    confirm_claim(rig, 1)
    assert f.phase == sf.LEFT


def test_the_opponent_rejects_a_claim_with_a_tap_and_play_goes_on_SP16(rig):
    rig.app.start("speed", rig.t)
    start_deal(rig)
    f = rig.app.flow
    reserve_flip(rig)
    rig.tap(0)
    assert f.phase == sf.CLAIM
    rig.wait(600 * MS)
    rig.tap(1)  # "no, you are not out"
    assert f.phase == sf.PLAY and f.deal.claimant is None and f.deal.phase == "play", "SP-16"
    assert f.deal.flips == 1
    assert rig.log.of("claim")[-1] == {"ev": "claim", "game": "speed", "deal": 1, "seat": 0,
                                       "verdict": "rejected"}
    pause_pick(rig, "Undo last")  # undo the rejection: the question again
    assert f.phase == sf.CLAIM and f.deal.claimant == 0
    rig.wait(600 * MS)
    rig.press(1)
    rig.wait(500 * MS)  # held 0.5 s: yes
    assert f.phase == sf.LEFT, "SP-16: a hold confirms"
    rig.release(1)
    assert f.phase == sf.LEFT


def test_slap_to_win_first_slap_wins_by_timestamp_SP17(tmp_path):
    # deals 2 and 3 have reserve flips first: the stuck holds must not count as slaps
    r = speed_match_report(str(tmp_path), [(1, 0), (0, 5), (1, 2)],
                           speed_opts(slap_to_win=True, match="best_of"), slap_gap_us=7300)
    slaps = r["slaps"]
    assert [s["winner"] for s in slaps] == [1, 0, 1]
    assert all(s["margin_us"] == 7300 and s["kind"] == "out" for s in slaps)
    rec = dict(r["record"])
    rec.pop("id")
    rec.pop("table", None)
    assert rec == r["engine"] and rec["slap_to_win"] is True


def test_slap_to_win_tie_within_window_decides_nothing_SP17(rig):
    rig.app.start("speed", rig.t, speed_opts(slap_to_win=True, tie_ms=5))
    start_deal(rig)
    f = rig.app.flow
    rig.press(0)
    rig.wait(2 * MS)
    rig.press(1)
    rig.wait(50 * MS)
    rig.release(0)
    rig.release(1)
    rig.wait(50 * MS)
    assert f.phase == sf.PLAY and f.deal.claimant is None
    assert rig.log.of("slap")[-1]["winner"] is None
    assert f.note.startswith("Tie")
    rig.tap(1)
    rig.wait(50 * MS)
    assert f.phase == sf.CLAIM and f.deal.claimant == 1


def test_slap_to_win_hold_is_still_a_stuck_call(rig):
    rig.app.start("speed", rig.t, speed_opts(slap_to_win=True))
    start_deal(rig)
    f = rig.app.flow
    rig.press(0)
    rig.wait(700 * MS)
    assert f.deal.is_stuck(0) and f.phase == sf.PLAY and f.deal.claimant is None
    rig.release(0)
    rig.tap(0)
    rig.wait(50 * MS)
    assert f.deal.claimant == 0


def test_slap_to_win_stuck_holds_then_hands_off_in_the_flip_countdown_SP14_SP17(rig):
    """SP-14/SP-17 with slap-to-win: P1 holds (stuck); P2 presses only after
    P1's hold was registered, so P2's press opens a slap race of its own, and
    P2's hold completes the pair: the flip countdown starts.  Both lift their
    hands in the countdown, as people do: that is no slap.  After the flip
    play goes on, nobody is out, no slap is logged, and a real slap still
    wins."""
    rig.app.start("speed", rig.t, speed_opts(slap_to_win=True))
    start_deal(rig)
    f = rig.app.flow
    rig.press(0)
    rig.wait(700 * MS)
    assert f.deal.is_stuck(0) and f.phase == sf.PLAY
    rig.press(1)
    rig.wait(600 * MS)
    assert f.phase == sf.FLIP and not f.racing  # the hold was no slap: its race is over
    rig.release(0)
    rig.wait(50 * MS)
    rig.release(1)
    rig.wait(3000 * MS)
    assert f.phase == sf.PLAY and f.deal.flips == 1
    rig.wait(1000 * MS)
    assert f.phase == sf.PLAY and f.deal.claimant is None
    assert rig.log.of("slap") == []
    rig.tap(1)
    rig.wait(50 * MS)
    assert f.phase == sf.CLAIM and f.deal.claimant == 1
    assert [s["winner"] for s in rig.log.of("slap")] == [1]


# ---- presses that mean nothing ---------------------------------------------------
def test_presses_in_wrong_phases_are_ignored(rig):
    rig.app.start("speed", rig.t)
    f = rig.app.flow
    for b in (2, 3, UP, DOWN):
        rig.tap(b)
    assert f.phase == sf.LAYOUT
    start_deal(rig)
    for b in (2, 3, UP, DOWN, OK):
        rig.tap(b)
    assert f.phase == sf.PLAY and f.deal.flips == 0 and f.deal.claimant is None
    rig.tap(0)
    confirm_claim(rig, 1)
    assert f.phase == sf.LEFT
    for b in (0, 1, 2, 3):
        rig.tap(b)
    assert f.phase == sf.LEFT and f.left == 1
    rig.tap(UP)
    rig.tap(OK)
    assert f.phase == sf.NEXT and f.match.totals == [2, 0]
    for b in (0, 1, 2, 3, UP, DOWN):
        rig.tap(b)
    rig.release(0)  # a release without a press
    release_at(rig, OK, rig.t)
    assert f.phase == sf.NEXT and f.match.totals == [2, 0] and f.match.hands_played == 1
    assert not rig.log.of("error")


# ---- undo and abandon ---------------------------------------------------------------
def test_undo_steps_back_one_entry_at_a_time(rig):
    rig.app.start("speed", rig.t)
    f = rig.app.flow
    play_deal(rig, 0, 6)
    assert f.phase == sf.NEXT and f.match.totals == [6, 0]
    pause_pick(rig, "Undo last")  # the deal's count
    assert f.phase == sf.LEFT and f.match.hands_played == 0 and f.left == 6
    assert rig.store.load_game()[0]["state"]["deals"] == []
    pause_pick(rig, "Undo last")  # the confirmation
    assert f.phase == sf.CLAIM
    pause_pick(rig, "Undo last")  # the claim
    assert f.phase == sf.PLAY and f.deal.claimant is None
    reserve_flip(rig)
    assert f.deal.flips == 1
    pause_pick(rig, "Undo last")  # the flip
    assert f.deal.flips == 0 and f.deal.reserve_left == 10 and f.phase == sf.PLAY
    rig.back()
    assert "Undo last" not in rig.app.screen.items  # nothing left to undo
    rig.tap(OK)
    assert f.phase == sf.PLAY


def test_undo_of_a_logged_deal_is_logged_and_the_deal_logged_again_SP18(rig):
    """A counted deal (SP-18) was logged as a deal line: taking it back logs
    an undo line naming it; an entry inside the deal logs nothing; the deal
    counted again logs a new deal line with the same number."""
    rig.app.start("speed", rig.t)
    play_deal(rig, 0, 6)
    rig.tap(OK)  # NEXT
    play_deal(rig, 1, 4)
    pause_pick(rig, "Undo last")  # deal 2's count
    assert rig.log.of("undo") == [{"ev": "undo", "game": "speed", "what": "deal", "deal": 2}]
    pause_pick(rig, "Undo last")  # the confirmation: not logged before, nothing to take back
    pause_pick(rig, "Undo last")  # the claim
    assert len(rig.log.of("undo")) == 1
    rig.tap(0)   # P1 is out instead ...
    confirm_claim(rig, 1)   # ... P2 confirms
    enter_left(rig, 3)
    deals = rig.log.of("deal")
    assert [(d["deal"], d["winner"], d["left"]) for d in deals] == [(1, 0, 6), (2, 1, 4), (2, 0, 3)]
    assert deals[-1]["totals"] == [9, 0]


@pytest.mark.parametrize("reboot", [False, True])
def test_undo_of_a_deal_restores_its_flips_and_rebuilds_SP23(rig, reboot):
    rig.app.start("speed", rig.t, speed_opts(layout="classic"))
    f = rig.app.flow
    start_deal(rig)
    for _ in range(6):  # classic: 5-card reserves, then a rebuild (SP-15)
        reserve_flip(rig)
    assert f.phase == sf.REBUILD
    rig.tap(OK)
    rig.wait(3000 * MS)
    rig.tap(0)
    confirm_claim(rig, 1)
    enter_left(rig, 3)
    first = rig.log.of("deal")[-1]
    assert (first["flips"], first["rebuilds"]) == (6, 1)
    if reboot:  # a power cut on the NEXT screen: the deal's entries were saved with it
        rig.reboot()
        rig.tap(OK)
        f = rig.app.flow
    pause_pick(rig, "Undo last")  # the count of deal 1
    assert f.phase == sf.LEFT and (f.deal.flips, f.deal.rebuilds) == (6, 1), "SP-23"
    rig.tap(OK)
    again = rig.log.of("deal")[-1]
    assert again == first, "SP-23: undo restores the deal's counters exactly"


def test_pause_during_countdown_cancels_it(rig):
    rig.app.start("speed", rig.t)
    rig.tap(OK)
    rig.tap(0)
    rig.tap(1)
    rig.back()
    rig.wait(4000 * MS)
    rig.tap(OK)  # Continue
    f = rig.app.flow
    assert f.phase == sf.READY and f.false_starts == [0, 0]


# ---- power cuts ----------------------------------------------------------------------
def test_boot_back_asks_first_and_a_second_back_discards_the_saved_game(rig):
    """"Resume game?" after a power cut: one BACK loses nothing, it asks
    (the pause menu's Abandon asks the same way); BACK again discards."""
    rig.app.start("speed", rig.t)
    rig.reboot()
    rig.back()
    assert rig.screen_name() == "Boot" and rig.store.load_game()[0] is not None
    assert rig.app.screen.sure and not rig.log.of("abandon")
    rig.back()
    assert rig.screen_name() == "Games" and rig.store.load_game() == (None, None)
    assert rig.log.of("abandon")[-1]["game"] == "speed"


def test_boot_ok_or_up_after_one_back_keeps_the_saved_game(rig):
    """After the first BACK, OK still resumes, and UP/DOWN take the question
    back: the next BACK asks again."""
    rig.app.start("speed", rig.t)
    rig.reboot()
    rig.back()
    rig.tap(UP)
    assert rig.screen_name() == "Boot" and not rig.app.screen.sure
    rig.back()
    assert rig.app.screen.sure
    rig.tap(OK)
    assert rig.app.flow is not None and rig.app.flow.GAME == "speed", "resumed"
    assert not rig.log.of("abandon")


def test_boot_ok_held_as_back_asks_before_it_discards(rig):
    """A board without a BACK button: OK held 0.8 s is BACK, and the second
    hold discards."""
    from speedref.tunables import LONG_OK_US
    rig.app.start("speed", rig.t)
    rig.reboot()
    rig.tap(OK, hold_us=LONG_OK_US + 50 * MS)
    assert rig.screen_name() == "Boot" and rig.app.screen.sure
    assert rig.store.load_game()[0] is not None
    rig.tap(OK, hold_us=LONG_OK_US + 50 * MS)
    assert rig.screen_name() == "Games" and rig.store.load_game() == (None, None)


def test_corrupt_save_is_reported_on_screen(rig):
    rig.app.start("speed", rig.t)
    with open(rig.store._p(storage.GAME), "wb") as fh:
        fh.write(b"\x00garbage")
    rig.reboot()
    s = rig.app.screen
    assert rig.screen_name() == "Boot" and s.problem and "damaged" in s.problem
    rig.tap(OK)  # the .bak (the same fresh start) is offered, or the menu
    assert rig.screen_name() in ("LAYOUT", "Games") or rig.app.flow is not None


def test_unreadable_saved_state_is_set_aside_before_it_is_offered_SP18(rig):
    """A save whose deals break SP-18 (left 99 in pagat) is checked at boot,
    before it is offered: set aside as game.json.bad with a message, as a
    damaged file is, and its backup (the save before it) offered instead;
    without a backup nothing is offered and the menu works."""
    import os
    rig.app.start("speed", rig.t)
    saved = rig.store.load_game()[0]
    saved["state"]["deals"] = [[0, 99]]
    saved["state"]["codes"] = ["0"]
    rig.store.save_game(saved)
    rig.reboot()
    boot = rig.app.screen
    assert "game.json set aside" in boot.problem and "SP-18" in boot.problem
    assert "backup used" in boot.problem
    assert boot.saved["state"]["deals"] == []
    assert os.path.exists(os.path.join(rig.root, "game.json.bad"))
    rig.tap(OK)
    assert rig.app.flow is not None and rig.app.flow.match.deals == []
    rig.store.save_game(saved)  # the bad save again, now with no backup
    os.remove(os.path.join(rig.root, "game.json.bak"))
    rig.reboot()
    assert rig.app.screen.saved is None and "SP-18" in rig.app.screen.problem
    rig.tap(OK)
    assert rig.app.flow is None and rig.screen_name() == "Games"


def test_a_refused_entry_is_logged_and_buzzed_not_a_crash(rig, monkeypatch):
    from speedref.engine.errors import RuleError
    from speedref.app.core import ERROR
    rig.app.start("speed", rig.t)
    f = rig.app.flow

    def refuse(b, t):
        raise RuleError("SP-6", "test refusal")
    monkeypatch.setattr(f, "press", refuse)
    rig.tap(0)
    assert rig.log.of("error")[-1]["msg"] == "SP-6: test refusal"
    assert rig.sounds[-1] == ERROR and rig.app.flow is f


def test_slap_to_win_verdict_is_worked_out_once_every_seat_has_slapped_SP17(rig):
    """Once both seats have slapped (outside the tie window) no later slap
    can change the order: the verdict is worked out while the pads are
    still down, and the release that ends the wait only shows it.  Who wins
    and the margin are what the release would have decided."""
    rig.app.start("speed", rig.t, speed_opts(slap_to_win=True))
    start_deal(rig)
    f = rig.app.flow
    decided = []
    decide = f.race.decide

    def watched(now_us):
        v = decide(now_us)
        decided.append(v)
        return v
    f.race.decide = watched
    rig.press(1)
    rig.wait(8 * MS)  # outside the tie window (5 ms without a board)
    assert f.verdict is None, "SP-17: one slap so far: the other may still come"
    rig.press(0)
    rig.wait(50 * MS)
    assert f.verdict is not None and f.verdict.winner == 1 and f.phase == sf.PLAY
    assert rig.app.lights & 2 == 0, "SP-17: nothing shown while a pad is down"
    n = len(decided)
    rig.release(0)
    assert f.phase == sf.PLAY, "SP-17: the verdict waits for every pad to be up"
    rig.release(1)
    assert f.phase == sf.CLAIM and f.deal.claimant == 1
    rig.app.tick(rig.t)
    assert rig.app.lights & 2, "SP-17: the winner's pad is lit"
    assert len(decided) == n, "the releases decided nothing more"
    s = rig.log.of("slap")[-1]
    assert s["winner"] == 1 and s["margin_us"] == 8 * MS and s["presses"] == [1, 0]

