"""Speed's verdicts as the players see and hear them: who jumped the start,
who won a slap and by how much, a tie and who slaps again, an answer to
"P1 is out?" (the flow's `# verdict` methods, which `make mutate` mutates:
docs/testing.md).  Rule numbers are from seeds/speed.md."""
from app_rig import MS, speed_opts, start_deal, reserve_flip
from rig_steps import press_at, release_at, tick_at
from speedref.app.core import OK, FOUL, WIN, ERROR
from speedref.app import speed_flow as sf
from speedref.ticks import ticks_add
from speedref.tunables import SPEED_HOLD_US, BLINK_US


def _to_countdown(rig):
    rig.tap(0)
    rig.tap(1)
    rig.wait(1500 * MS)  # the countdown: GO is 1.5 s away


def _lights(rig, us):
    """The pads' lights at each of the rig's ticks for `us`."""
    out = []
    for _ in range(us // (10 * MS)):
        rig.wait(10 * MS)
        out.append(rig.app.lights)
    return out


def test_a_false_start_names_the_jumper_blinks_their_pad_and_counts_each_jump_SP6_SP22(rig):
    rig.app.start("speed", rig.t, speed_opts(match="single"))
    f = rig.app.flow
    rig.tap(1)  # LAYOUT: next
    for n, p in enumerate((0, 1, 0)):
        _to_countdown(rig)
        rig.app.news = sf._TOP  # an earlier event of the same pass drew the title
        rig.app.press(p, rig.t)  # jumps the gun
        assert rig.app.news == sf._TOP | sf._FOOT, "the note's line goes first, the title's still does"
        rig._drain()
        want = "False start P%d!" % (p + 1)
        assert f.note == want, "SP-22: the jumper named on the countdown's bottom line"
        assert rig.sounds[-1] == FOUL
        line = dict(rig.log.of("false_start")[-1])
        assert line.pop("early_us") > 1000 * MS
        assert line == {"ev": "false_start", "game": "speed", "deal": 1, "seat": p,
                        "count": 2 if n == 2 else 1}, "SP-22: every jump counted, a player's second too"
        seen = _lights(rig, 2 * BLINK_US + 40 * MS)
        assert set(seen) == {0, 1 << p}, "only the jumper's pad"
        assert seen[0] == 1 << p and 0 in seen[:BLINK_US // (10 * MS) + 3], "the jumper's pad blinks"
        rig.release(p)
        rig.wait(5000 * MS)
        assert f.phase == sf.READY
    assert f.false_starts == [2, 1]


def test_two_jumpers_are_named_together_SP22(rig):
    rig.app.start("speed", rig.t, speed_opts(match="single"))
    f = rig.app.flow
    rig.tap(1)
    _to_countdown(rig)
    rig.press(0)
    assert f.note == "False start P1!"
    rig.press(1)
    assert f.note == "False starts!", "SP-22: more than one jumped: no one name"


def _slap_game(rig, tie_ms=5):
    rig.app.start("speed", rig.t, speed_opts(slap_to_win=True, tie_ms=tie_ms))
    start_deal(rig)
    return rig.app.flow


def test_a_slap_while_both_pads_are_down_waits_for_the_tie_window_then_the_hold_SP17(rig):
    """Both slapped inside the tie window, both still down: the verdict
    cannot be worked out yet; the device is woken the microsecond the
    window has passed (not later: the verdict is shown on time)."""
    f = _slap_game(rig)
    t0 = rig.t
    press_at(rig, 0, t0)
    press_at(rig, 1, ticks_add(t0, 2 * MS))
    tick_at(rig, ticks_add(t0, 3 * MS))
    assert f.verdict is None and f.phase == sf.PLAY
    assert rig.app.due == ticks_add(t0, 5 * MS + 1), "SP-17: woken when the tie window has passed"
    tick_at(rig, ticks_add(t0, 5 * MS + 1))
    assert f.verdict is not None and f.verdict.winner is None, "SP-34: a tie, shown once the pads are up"
    assert rig.app.due == ticks_add(t0, SPEED_HOLD_US), "then the pads' hold decides"


def test_slaps_let_go_inside_the_tie_window_are_judged_when_it_has_passed_SP17_SP34(rig):
    f = _slap_game(rig)
    t0 = rig.t
    press_at(rig, 0, t0)
    press_at(rig, 1, ticks_add(t0, 2 * MS))
    release_at(rig, 0, ticks_add(t0, 3 * MS))
    release_at(rig, 1, ticks_add(t0, 4 * MS))
    assert f.phase == sf.PLAY and rig.log.of("slap") == []
    assert rig.app.due == ticks_add(t0, 5 * MS + 1), "SP-17: woken when the tie window has passed"
    n = len(rig.sounds)
    rig.app.news = sf._TOP
    rig.app.tick(ticks_add(t0, 5 * MS + 1))
    assert rig.app.news & sf._NOTE == sf._NOTE and rig.app.news & sf._TOP, "the tie's note goes first"
    rig._drain()
    assert f.note == "Tie 2.0 ms again", "SP-34: the tied players slap again"
    assert rig.sounds[n:] == [ERROR]
    assert rig.log.of("slap")[-1]["tie"] == [0, 1] and f.tied == 3


def test_a_tie_note_too_long_for_again_is_the_margin_alone_SP34(rig):
    # "Tie 10.0 ms" is 11 characters: " again" would not fit the line
    f = _slap_game(rig, tie_ms=20)
    t0 = rig.t
    press_at(rig, 0, t0)
    press_at(rig, 1, ticks_add(t0, 10 * MS))
    release_at(rig, 0, ticks_add(t0, 15 * MS))
    release_at(rig, 1, ticks_add(t0, 16 * MS))
    rig.wait(30 * MS)
    assert f.note == "Tie 10.0 ms"
    assert rig.log.of("slap")[-1]["winner"] is None


def test_a_tie_with_a_stuck_hold_in_it_is_no_re_slap_SP34(rig):
    """P1 slaps, P2 presses within the tie window and holds on (stuck): a
    "tie" with one slap in it was no race of slaps; afterwards anybody may
    slap, P2's pad too, as usual."""
    f = _slap_game(rig)
    t0 = rig.t
    press_at(rig, 0, t0)
    press_at(rig, 1, ticks_add(t0, 1 * MS))
    release_at(rig, 0, ticks_add(t0, 60 * MS))
    rig.t = ticks_add(t0, 60 * MS)
    rig.wait(500 * MS)  # P2's hold: stuck
    assert rig.log.of("slap")[-1]["tie"] == [0, 1]
    assert f.tied == 0 and f.deal.is_stuck(1)
    rig.release(1)
    rig.wait(50 * MS)
    rig.tap(1)
    rig.wait(50 * MS)
    assert f.phase == sf.CLAIM and f.deal.claimant == 1, "SP-34: no re-slap limits the pads"
    assert rig.log.of("slap_ignored") == []


def test_a_lone_slap_let_go_inside_the_tie_window_is_judged_when_it_has_passed_SP17(rig):
    f = _slap_game(rig)
    t0 = rig.t
    press_at(rig, 0, t0)
    release_at(rig, 0, ticks_add(t0, 2 * MS))
    assert f.phase == sf.PLAY
    assert rig.app.due == ticks_add(t0, 5 * MS + 1), "SP-17: woken when the tie window has passed"
    tick_at(rig, ticks_add(t0, 5 * MS + 1))
    assert f.phase == sf.CLAIM and f.deal.claimant == 0


def test_a_lone_slap_wins_with_no_margin_on_the_claim_screen_SP17(rig):
    f = _slap_game(rig)
    n = len(rig.sounds)
    rig.press(1)
    rig.wait(60 * MS)
    rig.app.news = sf._FOOT
    rig.app.release(1, rig.t)
    assert rig.app.news & sf._TOP and rig.app.news & sf._FOOT, "the title \"P2 is out?\" goes first"
    rig._drain()
    assert f.phase == sf.CLAIM and f.deal.claimant == 1
    assert f.slap_text == "", "SP-17: nobody else slapped: no margin, the name is already there"
    assert WIN in rig.sounds[n:]
    s = rig.log.of("slap")[-1]
    assert s == {"ev": "slap", "game": "speed", "kind": "out", "deal": 1, "winner": 1, "tie": [],
                 "margin_us": None, "presses": [1], "false_starts": []}


def test_the_slap_line_names_the_deal_it_was_in_SP17(rig):
    f = _slap_game(rig)
    rig.press(0)
    rig.wait(8 * MS)
    rig.press(1)
    rig.wait(40 * MS)
    rig.release(0)
    rig.release(1)
    rig.wait(20 * MS)
    assert f.slap_text == "P1 by 8.0 ms"
    rig.wait(600 * MS)
    rig.press(1)  # "yes"
    rig.wait(600 * MS)
    rig.release(1)
    assert f.phase == sf.LEFT
    rig.tap(OK)  # the count
    rig.tap(OK)  # NEXT: the next deal
    start_deal(rig)
    rig.press(1)
    rig.wait(8 * MS)
    rig.press(0)
    rig.wait(40 * MS)
    rig.release(1)
    rig.release(0)
    rig.wait(20 * MS)
    assert [(s["game"], s["deal"], s["winner"]) for s in rig.log.of("slap")] == [
        ("speed", 1, 0), ("speed", 2, 1)]


def test_a_winner_who_touches_the_pad_again_before_the_verdict_still_wins_on_letting_go_SP17(rig):
    """P1 slaps first, P2 holds on (a stuck call in the making) and P1 puts
    the hand on the pad again: when the hold time of the race has passed
    the verdict (P1) waits for P1's hand, then P1 is out."""
    f = _slap_game(rig)
    rig.press(0)
    rig.wait(100 * MS)
    rig.press(1)
    rig.wait(50 * MS)
    rig.release(0)
    rig.wait(300 * MS)
    rig.press(0)  # P1's hand back on the pad
    rig.wait(100 * MS)  # past the race's hold time, P2's not yet
    assert f.phase == sf.PLAY and f.deal.claimant is None
    rig.wait(100 * MS)  # P2's hold: stuck
    assert f.deal.is_stuck(1) and f.phase == sf.PLAY
    rig.release(0)
    rig.wait(20 * MS)
    assert f.phase == sf.CLAIM and f.deal.claimant == 0, "SP-17: the first slap wins"
    assert f.slap_text == "P1 by 100 ms"


def test_a_rejected_claim_says_so_and_buzzes_SP16(rig):
    rig.app.start("speed", rig.t)
    start_deal(rig)
    f = rig.app.flow
    reserve_flip(rig)
    rig.tap(0)
    rig.wait(600 * MS)
    n = len(rig.sounds)
    rig.tap(1)
    assert f.phase == sf.PLAY and f.note == "Claim rejected", "SP-16: the players read the verdict"
    assert rig.sounds[n:] == [ERROR]


def test_a_yes_begun_at_the_same_microsecond_as_a_no_counts_SP33(rig):
    """Three players: P1 claims; P2's hold (yes) and P3's tap (no) begin at
    the same instant.  The answer begun first counts, and neither began
    later: the yes under way is not overruled by the tap."""
    rig.app.start("speed", rig.t, speed_opts(seats=3))
    rig.wait(10 * MS)
    f = rig.app.flow
    start_deal(rig, 3)
    rig.tap(0)
    assert f.phase == sf.CLAIM
    rig.wait(600 * MS)
    t = rig.t
    press_at(rig, 1, t)
    press_at(rig, 2, t)
    release_at(rig, 2, ticks_add(t, 60 * MS))
    assert f.phase == sf.CLAIM, "SP-33: P2's yes began no later than P3's no"
    rig.t = ticks_add(t, 60 * MS)
    rig.wait(500 * MS)
    assert f.phase == sf.LEFT, "SP-33: P2's hold said yes"


def test_a_yes_begun_a_microsecond_after_a_no_loses_to_it_SP33(rig):
    rig.app.start("speed", rig.t, speed_opts(seats=3))
    rig.wait(10 * MS)
    f = rig.app.flow
    start_deal(rig, 3)
    rig.tap(0)
    rig.wait(600 * MS)
    t = rig.t
    press_at(rig, 2, t)
    press_at(rig, 1, ticks_add(t, 1))
    release_at(rig, 2, ticks_add(t, 60 * MS))
    assert f.phase == sf.PLAY and f.note == "Claim rejected", "SP-33: P3's no began first"
