"""Speed's flow with three and four players (seeds/speed.md SP-27 to SP-36),
driven by (button, t_us) events through the referee app: every count of
players is the game's `seats` option, one pad a player."""
import json

import pytest

from app_rig import (MS, pause_pick, speed_opts, start_deal, reserve_flip, enter_left, confirm_claim,
                     play_match)
from speedref.app.core import UP, DOWN, OK
from speedref.app import speed_flow as sf
from speedref.engine import records, speed

SEATS = (3, 4)


def start(rig, seats, **kw):
    rig.app.start("speed", rig.t, speed_opts(seats=seats, **kw))
    rig.wait(10 * MS)
    f = rig.app.flow
    assert f is not None and f.seats == seats
    return f


# ---- the start -------------------------------------------------------------------------
@pytest.mark.parametrize("seats", SEATS)
def test_everyone_must_be_ready_before_the_countdown_SP30(rig, seats):
    f = start(rig, seats)
    rig.tap(OK)
    assert f.phase == sf.READY
    for p in range(seats - 1):
        rig.tap(p)
        assert f.phase == sf.READY, "SP-30: %d of %d ready is not everyone" % (p + 1, seats)
        rig.app.tick(rig.t)
        assert rig.app.lights == (1 << (p + 1)) - 1, "the ready players' pads are lit"
    rig.tap(seats - 1)
    assert f.phase == sf.COUNT_DOWN
    rig.wait(3100 * MS)
    assert f.phase == sf.PLAY and f.deal.phase == "play"


@pytest.mark.parametrize("seats", SEATS)
def test_a_pad_nobody_sits_at_means_nothing_SP27(rig, seats):
    f = start(rig, seats)
    rig.tap(OK)
    for b in range(seats, 4):
        rig.tap(b)
    assert f.phase == sf.READY and not any(f.deal.is_ready(p) for p in range(seats))
    start_deal_from_ready(rig, seats)
    for b in range(seats, 4):
        rig.tap(b)
        rig.press(b)
        rig.wait(700 * MS)
        rig.release(b)
    assert f.phase == sf.PLAY and f.deal.claimant is None and not any(
        f.deal.is_stuck(p) for p in range(seats))


def start_deal_from_ready(rig, seats):
    for p in range(seats):
        rig.tap(p)
    rig.wait(3100 * MS)


@pytest.mark.parametrize("seats", SEATS)
def test_a_false_start_by_any_player_calls_the_countdown_off_for_all_SP30(rig, seats):
    f = start(rig, seats)
    rig.tap(OK)
    for p in range(seats):
        rig.tap(p)
    rig.wait(1000 * MS)
    last = seats - 1
    rig.tap(last)  # the last seat jumps
    assert f.phase == sf.COUNT_DOWN and f.countdown.cue == sf.OFF
    assert f.note == "False start P%d!" % seats
    rig.tap(0)  # and P1 too, while it is called off
    assert f.note == "False starts!"
    assert f.false_starts == [1] + [0] * (seats - 2) + [1]
    fs = rig.log.of("false_start")
    assert [(x["seat"], x["count"]) for x in fs] == [(last, 1), (0, 1)]
    rig.wait(2500 * MS)
    assert f.phase == sf.READY, "SP-22: back to ready once the countdown is over"
    assert not any(f.deal.is_ready(p) for p in range(seats)), "SP-30: each player taps again"
    start_deal_from_ready(rig, seats)
    assert f.phase == sf.PLAY


# ---- stuck and the flips ---------------------------------------------------------------
@pytest.mark.parametrize("seats", SEATS)
def test_a_flip_only_when_every_player_is_stuck_SP31(rig, seats):
    f = start(rig, seats)
    start_deal(rig, seats)
    for p in range(seats - 1):
        rig.press(p)
    rig.wait(700 * MS)
    assert f.phase == sf.PLAY and f.deal.flips == 0, "SP-31: one player can still play"
    assert [f.deal.is_stuck(p) for p in range(seats)] == [True] * (seats - 1) + [False]
    rig.release(1)  # a play after all: no longer stuck
    rig.press(seats - 1)
    rig.wait(700 * MS)
    assert f.phase == sf.PLAY and f.deal.flips == 0
    rig.press(1)
    rig.wait(700 * MS)
    assert f.phase == sf.FLIP, "SP-31: everyone is stuck"
    for p in range(seats):
        rig.release(p)
    rig.wait(3000 * MS)
    assert f.phase == sf.PLAY and f.deal.flips == 1 and f.entries == "F"


@pytest.mark.parametrize("seats", SEATS)
def test_the_reserves_run_out_and_are_rebuilt_into_one_a_player_SP32(rig, seats):
    f = start(rig, seats, layout="classic")
    start_deal(rig, seats)
    for _ in range(speed.reserve_size("classic")):
        reserve_flip(rig, seats)
    assert f.deal.reserve_left == 0
    for p in range(seats):
        rig.press(p)
    rig.wait(600 * MS)
    assert f.phase == sf.REBUILD
    for p in range(seats):
        rig.release(p)
    rig.tap(OK)
    rig.wait(3100 * MS)
    assert f.phase == sf.PLAY and f.deal.rebuilds == 1 and f.deal.reserve_left is None
    for p in range(seats):
        rig.press(p)
    rig.wait(600 * MS)
    assert f.phase == sf.FLIP
    rig.tap(DOWN)  # "none left": the rebuilt reserves are empty
    assert f.phase == sf.REBUILD and f.entries.endswith("FRFE")


# ---- out claims ------------------------------------------------------------------------
# P2 claims; the answer comes from any other player at the table
@pytest.mark.parametrize("seats,answer", [(s, a) for s in SEATS for a in range(s) if a != 1])
def test_any_other_players_hold_confirms_the_claim_SP33(rig, seats, answer):
    f = start(rig, seats)
    start_deal(rig, seats)
    rig.tap(1)
    assert f.phase == sf.CLAIM and f.deal.claimant == 1
    confirm_claim(rig, answer)
    assert f.phase == sf.LEFT, "SP-33: P%d's hold is yes" % (answer + 1)
    assert f.loser == 0 and f.left == 1


@pytest.mark.parametrize("seats", SEATS)
def test_any_other_players_tap_rejects_the_claim_SP33(rig, seats):
    f = start(rig, seats)
    start_deal(rig, seats)
    rig.tap(0)
    rig.wait(600 * MS)
    rig.tap(seats - 1)
    assert f.phase == sf.PLAY and f.deal.claimant is None
    assert rig.log.of("claim") == [{"ev": "claim", "game": "speed", "deal": 1, "seat": 0,
                                    "verdict": "rejected"}]
    assert f.entries == "0X"


@pytest.mark.parametrize("seats", SEATS)
def test_the_answer_begun_first_counts_SP33(rig, seats):
    """SP-33: a hold (yes) begun before another player's tap (no) decides,
    though the tap is let go first: a tap settles sooner than any hold can.
    Let go before 0.5 s, the earlier press is a tap itself: no."""
    f = start(rig, seats)
    start_deal(rig, seats)
    rig.tap(1)
    rig.wait(600 * MS)
    rig.press(0)  # P1 begins to hold: yes ...
    rig.wait(100 * MS)
    rig.tap(2)  # ... P3's tap, no, began later: it answers nothing
    assert f.phase == sf.CLAIM and not rig.log.of("claim"), "SP-33: the hold under way began first"
    rig.wait(400 * MS)
    assert f.phase == sf.LEFT, "SP-33: P1's hold, begun first, is the answer: yes"
    rig.release(0)
    assert not rig.log.of("claim")


@pytest.mark.parametrize("seats", SEATS)
def test_a_tap_begun_before_a_hold_says_no_SP33(rig, seats):
    f = start(rig, seats)
    start_deal(rig, seats)
    rig.tap(1)
    rig.wait(600 * MS)
    rig.press(2)  # P3's tap begins ...
    rig.wait(20 * MS)
    rig.press(0)  # ... then P1's hold
    rig.wait(60 * MS)
    rig.release(2)
    assert f.phase == sf.PLAY and f.deal.claimant is None, "SP-33: the tap began first: no"
    assert [c["verdict"] for c in rig.log.of("claim")] == ["rejected"]
    rig.wait(1000 * MS)
    assert not f.deal.is_stuck(0), "SP-33: the hold that answered nothing is no stuck call"
    rig.release(0)


@pytest.mark.parametrize("seats", SEATS)
def test_the_first_answer_counts_SP33(rig, seats):
    """A yes that came first stands: a tap after it is no answer."""
    f = start(rig, seats)
    start_deal(rig, seats)
    rig.tap(1)
    rig.wait(600 * MS)
    rig.press(0)
    rig.wait(500 * MS)
    assert f.phase == sf.LEFT
    rig.tap(2)
    rig.release(0)
    assert f.phase == sf.LEFT and not rig.log.of("claim")


@pytest.mark.parametrize("seats", SEATS)
def test_the_claimant_withdraws_and_a_reflex_answers_nothing_SP33(rig, seats):
    f = start(rig, seats)
    start_deal(rig, seats)
    rig.tap(2)
    rig.wait(100 * MS)
    for p in range(seats):  # reflex slaps of every pad, within 0.5 s of the question
        if p != 2:
            rig.tap(p, 40 * MS, 0)
    rig.press(0)
    rig.wait(800 * MS)
    rig.release(0)
    assert f.phase == sf.CLAIM, "SP-16, SP-33: a press that began within 0.5 s answers nothing"
    rig.tap(2)
    assert f.phase == sf.PLAY and f.deal.claimant is None and f.entries == ""


# ---- slap to win -----------------------------------------------------------------------
@pytest.mark.parametrize("seats", SEATS)
def test_slap_to_win_the_first_of_every_pad_wins_SP34(rig, seats):
    f = start(rig, seats, slap_to_win=True)
    start_deal(rig, seats)
    last = seats - 1
    rig.press(last)
    rig.wait(7 * MS)
    rig.press(0)
    rig.wait(3 * MS)
    rig.press(1)
    rig.wait(60 * MS)
    for p in (last, 0, 1):
        rig.release(p)
    rig.wait(60 * MS)
    assert f.phase == sf.CLAIM and f.deal.claimant == last
    slap = rig.log.of("slap")[-1]
    assert (slap["winner"], slap["margin_us"], slap["presses"]) == (last, 7000, [last, 0, 1])
    assert f.slap_text == "P%d by 7.0 ms" % seats


@pytest.mark.parametrize("seats", SEATS)
def test_slap_to_win_a_tie_lights_the_tied_pads_SP34(rig, seats):
    f = start(rig, seats, slap_to_win=True, tie_ms=5)
    start_deal(rig, seats)
    rig.press(1)
    rig.wait(2 * MS)
    rig.press(seats - 1)
    rig.wait(40 * MS)
    rig.press(0)  # outside the window: not in the tie
    rig.wait(40 * MS)
    for p in (1, seats - 1, 0):
        rig.release(p)
    rig.wait(20 * MS)
    slap = rig.log.of("slap")[-1]
    assert slap["winner"] is None and slap["tie"] == [1, seats - 1]
    assert f.phase == sf.PLAY and f.note.startswith("Tie")
    assert rig.app.lights == (1 << 1) | (1 << (seats - 1)), "SP-34: the tied players' pads"


# ---- counting: one count a loser -------------------------------------------------------
@pytest.mark.parametrize("seats", SEATS)
def test_each_losers_count_is_entered_on_its_own_SP35(rig, seats):
    f = start(rig, seats)
    start_deal(rig, seats)
    rig.tap(1)
    confirm_claim(rig, 0)
    want = [4, 0, 9, 5][:seats]
    losers = [p for p in range(seats) if p != 1]
    for i, p in enumerate(losers):
        assert f.phase == sf.LEFT and f.loser == p and f.left == 1, "SP-35: P%d's count" % (p + 1)
        for _ in range(want[p] - 1):
            rig.tap(UP, 30 * MS, 30 * MS)
        rig.tap(UP, 30 * MS, 30 * MS)
        rig.tap(DOWN, 30 * MS, 30 * MS)  # one too many, taken back
        if i == 1:  # undo goes back one count, the count entered on screen
            pause_pick(rig, "Undo last")
            assert f.phase == sf.LEFT and f.loser == losers[0] and f.left == want[losers[0]]
            rig.tap(OK)
            assert f.loser == p and f.left == want[p]
        rig.tap(OK)
    assert f.phase == sf.NEXT
    deal = rig.log.of("deal")[-1]
    assert deal["winner"] == 1 and deal["left"] == want
    assert deal["totals"] == [0, sum(want)] + [0] * (seats - 2), "SP-35: the sum of every loser's cards"
    assert f.match.deals == [(1, tuple(want))]


@pytest.mark.parametrize("seats", SEATS)
def test_undo_of_a_counted_deal_enters_its_counts_again_SP35(rig, seats):
    f = start(rig, seats, match="single")
    start_deal(rig, seats)
    reserve_flip(rig, seats)
    rig.tap(0)
    confirm_claim(rig, 1)
    want = [0, 3, 7, 12][:seats]
    enter_left(rig, want)
    assert f.phase == sf.FINAL
    pause_pick(rig, "Undo last")
    assert f.phase == sf.LEFT and f.loser == seats - 1 and f.left == want[-1]
    assert f.entries == "F0" and f.deal.flips == 1
    assert rig.log.of("undo")[-1] == {"ev": "undo", "game": "speed", "what": "deal", "deal": 1}
    rig.tap(OK)
    assert f.phase == sf.FINAL and [d["left"] for d in rig.log.of("deal")] == [want, want]
    rig.tap(OK)
    rec = rig.log.of("game_end")[-1]["record"]
    assert rec["players"] == ["P%d" % (p + 1) for p in range(seats)]
    assert rec["deals"] == [{"winner": 0, "left": want}]


@pytest.mark.parametrize("seats", SEATS)
def test_slap_to_win_a_loser_may_hold_no_cards_SP34_SP35(rig, seats):
    f = start(rig, seats, slap_to_win=True, match="single")
    start_deal(rig, seats)
    rig.tap(1)
    rig.wait(600 * MS)
    confirm_claim(rig, 0)
    assert f.phase == sf.LEFT and f.left == 0
    for _ in range(seats - 1):
        rig.tap(OK)  # every loser at 0: each ran out and lost the slap
    assert rig.log.of("deal")[-1]["left"] == [0] * seats


# ---- a whole match, its record, its save -----------------------------------------------
@pytest.mark.parametrize("seats", SEATS)
def test_a_match_record_equals_the_engines_SP35_SP36(rig, seats):
    deals = [(1, [4, 0, 9, 2][:seats]), (seats - 1, [5, 5, 5, 0][:seats - 1] + [0]),
             (1, [10, 0, 8, 1][:seats])]
    rec = play_match(rig, deals, speed_opts(seats=seats))
    plain = dict(rec)
    plain.pop("id")
    plain.pop("table", None)
    assert plain == speed.replay(plain).to_record()
    assert plain["players"] == ["P%d" % (p + 1) for p in range(seats)]
    assert [(d["winner"], d["left"]) for d in plain["deals"]] == deals
    assert speed.replay(plain).totals[1] == sum(deals[0][1]) + sum(deals[2][1]) >= 25
    assert rig.store.records()[-1] == rec


@pytest.mark.parametrize("seats", SEATS)
def test_a_power_cut_resumes_the_n_seat_match_where_it_was_saved_SP24(rig, seats):
    f = start(rig, seats)
    rig.tap(OK)
    rig.tap(0)
    rig.wait(500 * MS)  # P2 and the others not ready yet
    for p in range(seats):
        rig.tap(p)
    rig.wait(1000 * MS)
    rig.tap(1)  # a false start by P2
    rig.wait(2500 * MS)
    start_deal_from_ready(rig, seats)
    rig.tap(0)
    confirm_claim(rig, 1)
    want = [0, 6, 2, 11][:seats]
    enter_left(rig, want)
    saved = rig.store.load_game()[0]
    assert saved["opts"]["seats"] == seats
    assert saved["state"] == {"deals": [[0, want]], "false_starts": [0, 1] + [0] * (seats - 2),
                              "codes": ["0"]}
    assert json.loads(json.dumps(saved)) == saved
    rig.reboot()
    rig.tap(OK)  # "Resume game?"
    g = rig.app.flow
    assert g is not f and g.seats == seats and g.match.deals == [(0, tuple(want))]
    assert g.false_starts == f.false_starts and g.phase == sf.LAYOUT, "resumed at the next deal's layout"
    pause_pick(rig, "Undo last")  # the resumed deal is taken back to its count
    assert g.phase == sf.LEFT and g.loser == seats - 1 and g.left == want[-1]


def test_a_save_without_one_false_start_count_a_player_is_set_aside_SP22(rig):
    """A saved 3-player game whose false starts are two counts is checked at
    boot, before it is offered: set aside with its rule named, and its
    backup (the save before it, with three counts) offered instead."""
    rig.app.start("speed", rig.t, speed_opts(seats=3))
    saved = rig.store.load_game()[0]
    saved["state"]["false_starts"] = [0, 0]
    rig.store.save_game(saved)
    rig.reboot()
    boot = rig.app.screen
    assert "SP-22" in boot.problem and "backup used" in boot.problem
    assert boot.saved["state"]["false_starts"] == [0, 0, 0]
    rig.tap(OK)
    assert rig.app.flow is not None and rig.app.flow.seats == 3 and rig.app.flow.false_starts == [0, 0, 0]


def test_slap_to_win_with_a_seat_still_to_slap_decides_at_the_last_release_SP34(rig):
    """Three seats, two slaps: the third may still slap until every pad is
    up (SP-34), so no verdict is worked out while a pad is down."""
    f = start(rig, 3, slap_to_win=True)
    rig.tap(OK)
    start_deal_from_ready(rig, 3)
    assert f.phase == sf.PLAY
    rig.press(2)
    rig.wait(8 * MS)
    rig.press(0)
    rig.wait(50 * MS)
    assert f.verdict is None, "SP-34: P2 may still slap"
    rig.release(0)
    rig.press(1)  # P2's slap, late: in the race, for its margin
    rig.wait(20 * MS)
    rig.release(1)
    rig.release(2)
    assert f.phase == sf.CLAIM and f.deal.claimant == 2
    s = rig.log.of("slap")[-1]
    assert s["presses"] == [2, 0, 1], "SP-34: every slap before the verdict is in it"


# ---- a tie's re-slap: the tied pads only (SP-34) ---------------------------------------
def slaps(rig, times_us, hold_us=60 * MS):
    """Pads down at the given offsets (us, seat order of the list:
    [(seat, t)]), then all let go."""
    t0 = rig.t
    for seat, t in sorted(times_us, key=lambda x: x[1]):
        rig.wait(t0 + t - rig.t)
        rig.press(seat)
    rig.wait(hold_us)
    for seat, _ in times_us:
        rig.release(seat)
    rig.wait(20 * MS)


@pytest.mark.parametrize("seats", SEATS)
def test_a_tie_is_slapped_again_by_the_tied_players_alone_SP34(rig, seats):
    """1 ms window, slaps at 0.0, 0.3 and 2.0 ms: P1 and P2 are tied.  In
    the re-slap P3, not tied, slaps first: logged and ignored; P2 wins."""
    f = start(rig, seats, slap_to_win=True, tie_ms=1)
    start_deal(rig, seats)
    slaps(rig, [(0, 0), (1, 300), (2, 2000)])
    tie = rig.log.of("slap")[-1]
    assert tie["winner"] is None and tie["tie"] == [0, 1] and tie["presses"] == [0, 1, 2]
    assert f.phase == sf.PLAY and f.tied == 0b011
    slaps(rig, [(2, 0), (1, 5000), (0, 9000)])
    assert [(x["seat"], x["tie"]) for x in rig.log.of("slap_ignored")] == [(2, [0, 1])]
    assert f.phase == sf.CLAIM and f.deal.claimant == 1, "SP-34: P3 was not in the tie"
    v = rig.log.of("slap")[-1]
    assert (v["winner"], v["presses"], v["margin_us"]) == (1, [1, 0], 4000)
    assert f.tied == 0
    # the tie is settled: a rejected claim opens the next race to every pad
    confirm_claim_no(rig, 2)
    slaps(rig, [(2, 0)])
    assert f.phase == sf.CLAIM and f.deal.claimant == 2


def confirm_claim_no(rig, p):
    rig.wait(600 * MS)
    rig.tap(p)
    assert rig.app.flow.phase == sf.PLAY


@pytest.mark.parametrize("seats", SEATS)
def test_a_tie_is_measured_from_the_first_slap_not_chained_SP34(rig, seats):
    """1 ms window, slaps at 0.0, 0.8 and 1.6 ms: P2 is within 1 ms of the
    first slap, P3 is 1.6 ms after it (though 0.8 ms after P2): the tie is
    P1 and P2, and only they slap again."""
    f = start(rig, seats, slap_to_win=True, tie_ms=1)
    start_deal(rig, seats)
    slaps(rig, [(0, 0), (1, 800), (2, 1600)])
    assert rig.log.of("slap")[-1]["tie"] == [0, 1]
    # a re-slap tied again narrows to the tied ones: P1 and P2 together
    slaps(rig, [(1, 0), (0, 500), (2, 100)])
    assert rig.log.of("slap")[-1]["tie"] == [1, 0]
    assert [x["seat"] for x in rig.log.of("slap_ignored")] == [2]
    assert f.tied == 0b011
    # a stuck call is still a stuck call for a player outside the tie
    rig.press(2)
    rig.wait(700 * MS)
    assert f.deal.is_stuck(2)
    rig.release(2)


@pytest.mark.parametrize("seats", (2,) + SEATS)
def test_the_single_deals_winner_is_the_match_winner_on_screen_SP19(rig, seats):
    """Classic, slap to win, a single deal that every loser ran out of and
    lost the slap (0 cards each, SP-34): 'Match over' names the slap's
    winner, not a tie; the record says the same."""
    from conformance import draw
    from app_rig import play_deal
    w = seats - 1
    left = [0] * seats if seats > 2 else 0
    rig.app.start("speed", rig.t, speed_opts(seats=seats, layout="classic", slap_to_win=True, match="single"))
    play_deal(rig, w, left, seats=seats)
    f = rig.app.flow
    assert f.phase == sf.FINAL
    texts = " ".join(draw(rig.app.screen).texts)
    assert "P%d wins" % seats in texts and "Tie" not in texts, texts
    rig.tap(OK)
    rec = rig.log.of("game_end")[-1]["record"]
    assert rec["deals"] == [{"winner": w, "left": left}]
    assert records.summary(rec)["winners"] == [w]


@pytest.mark.parametrize("seats,target", [(2, 25), (3, 50), (4, 75)])
def test_the_target_auto_is_25_for_each_player_beaten_SP36(rig, seats, target):
    f = start(rig, seats, target="auto")
    assert f.match.goal == target
    assert rig.app.flow.match.to_record()["match"] == {"target": target}


@pytest.mark.parametrize("seats", SEATS)
def test_a_tie_with_a_stuck_hold_in_it_is_open_to_every_pad_again_SP34(rig, seats):
    """P1 holds (a stuck call, SP-31) and P2 slaps 0.3 ms later: the race
    is judged a tie when the hold is long enough, but only one of the tied
    presses was a slap, so no one is shut out of the next race."""
    f = start(rig, seats, slap_to_win=True, tie_ms=1)
    start_deal(rig, seats)
    rig.press(0)
    rig.wait(300)
    rig.press(1)
    rig.wait(40 * MS)
    rig.release(1)
    rig.wait(600 * MS)
    assert rig.log.of("slap")[-1]["tie"] == [0, 1] and f.deal.is_stuck(0)
    assert f.tied == 0
    rig.release(0)
    slaps(rig, [(2, 0)])
    assert f.phase == sf.CLAIM and f.deal.claimant == 2 and not rig.log.of("slap_ignored")
