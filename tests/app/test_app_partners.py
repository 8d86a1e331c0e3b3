"""The partners referee flow (firmware/speedref/app/partners_flow.py) driven
by (button, t_us) events through the app on CPython; the MicroPython runs
are in test_app_partners_mpy.py.  Rule numbers are from seeds/partners.md."""
import os

import pytest

import app_partners_game as d
from conformance import draw
from app_partners_game import GAME_100, TOTALS_100, GAME_TIE, TOTALS_TIE, Table, tap, winners
from app_rig import lit
from speedref.app.core import UP, DOWN, OK, CLICK, WIN, ERROR
from speedref.app import partners_flow as pf
from speedref.engine import partners, records


def screen_text(rig):
    """The small texts on the screen now, as a person reads them (big digits
    are fill_rects: checked through the flow's state)."""
    return draw(rig.app.screen).texts


def pause_pick(rig, item):
    """BACK opens the pause menu; pick `item` by name."""
    rig.back()
    p = rig.app.screen
    assert type(p).__name__ == "Pause"
    for _ in range(p.items.index(item)):
        tap(rig, DOWN)
    tap(rig, OK)


def undo(rig):
    pause_pick(rig, "Undo last")


def flow(rig):
    return rig.app.flow


# ---- a complete game -----------------------------------------------------------
def test_complete_game_record_equals_engine_PT14_PT15_PT16_PT18_PT19(tmp_path):
    r = d.game_report(str(tmp_path))
    rec = dict(r["record"])
    assert rec.pop("id")
    rec.pop("table", None)
    assert rec == r["engine"]
    assert r["stored"] == r["record"]
    assert r["totals"] == TOTALS_100 and r["winners"] == [0] and r["over"]
    # one "hand" line per hand, its scores exactly the engine's (PT-14..16)
    lines = r["hand_lines"]
    assert [h["hand"] for h in lines] == [1, 2, 3, 4]
    for line, (bid, trump, c, p, tricks) in zip(lines, GAME_100):
        scores, doubled = partners.hand_scores(bid, c, p, tricks)
        assert (line["scores"], line["doubled"]) == (scores, doubled)
        assert (line["bid"], line["trump"], line["contractor"], line["partner"], line["tricks"]) == \
            (bid, trump, c, p, tricks)
    assert [h["doubled"] for h in lines] == [False, False, True, True]
    assert lines[-1]["totals"] == TOTALS_100 and lines[-1]["over"] is True
    # PT-17: every hand after the first is dealt by the previous contractor
    assert [h["dealer"] for h in rec["hands"]] == [0, 1, 0, 3]
    assert [c["swap"] for c in r["contract_lines"]] == [[2, 3], [1, 3], None, [0, 3]]
    assert r["saved_game"] is None  # a finished game is not offered for resume
    assert r["screen"] == "Games"


def test_final_screen_names_the_winner_and_OK_stores_PT19(rig):
    t = Table()
    d.start(rig)
    f = flow(rig)
    for h in GAME_100:
        d.play_hand(rig, t, h)
        if f.phase == pf.TOTALS:
            tap(rig, OK)
    assert f.phase == pf.FINAL and f.game.over
    txt = screen_text(rig)
    assert "Game over" in txt and "P1 wins!" in txt
    assert rig.sounds.count(WIN) == 4
    assert rig.store.records() == []  # stored only on OK
    tap(rig, OK)
    assert len(rig.store.records()) == 1 and rig.screen_name() == "Games"


def test_tie_at_the_top_past_the_target_plays_on_PT19(rig):
    t = Table()
    d.start(rig, target=10)
    d.play_hand(rig, t, GAME_TIE[0])
    f = flow(rig)
    assert f.phase == pf.TOTALS and f.game.totals == [11, 2, 11, 3] and not f.game.over
    assert "Tie: play on!" in screen_text(rig)
    tap(rig, OK)
    d.play_hand(rig, t, GAME_TIE[1])
    assert f.phase == pf.FINAL and f.game.totals == TOTALS_TIE
    assert "P4 wins!" in screen_text(rig)
    tap(rig, OK)
    rec = rig.log.of("game_end")[-1]["record"]
    assert partners.replay(dict((k, v) for k, v in rec.items() if k not in ("id", "table"))).winners() == [3]
    assert "stopped" not in rec and records.summary(rec)["over"] is True, "PT-20: played to the end"


def test_stop_early_keeps_a_shorter_record_PT20(rig):
    t = Table()
    d.start(rig)
    d.play_hand(rig, t, GAME_100[0])
    f = flow(rig)
    tap(rig, DOWN)
    assert f.phase == pf.STOP
    tap(rig, UP)  # changed their mind
    assert f.phase == pf.TOTALS
    tap(rig, DOWN)
    tap(rig, OK)
    assert f.phase == pf.FINAL and "Game stopped" in screen_text(rig)
    assert "P2 wins!" in screen_text(rig)
    undo(rig)  # the stop was the last entry
    assert f.phase == pf.TOTALS and f.game.hands_played == 1
    tap(rig, DOWN)
    tap(rig, OK)
    tap(rig, OK)
    rec = rig.log.of("game_end")[-1]["record"]
    assert len(rec["hands"]) == 1
    g = partners.replay(dict((k, v) for k, v in rec.items() if k not in ("id", "table")))
    assert g.ended_early and g.winners() == [1]
    # the table agreed to stop on the device: the record says so (PT-20)
    assert rec["stopped"] is True, "PT-20: a stop confirmed on the device is an agreed stop"
    assert records.summary(rec)["stopped"] is True and records.summary(rec)["over"] is False, "PT-20"



# ---- dealer, bid, contractor, partner, seats -------------------------------------
def test_first_dealer_chosen_by_pad_then_the_contractor_deals_PT3_PT17(rig):
    rig.app.start("partners", rig.t, {"target": 100})
    f = flow(rig)
    assert f.phase == pf.DEALER and "Who deals first?" in screen_text(rig)
    tap(rig, 2)  # P3's pad
    assert f.phase == pf.BID and f.game.dealer == 2
    assert "Dealer: P3" in screen_text(rig)
    t = Table()
    d.play_hand(rig, t, (7, "notrump", 3, 1, [3, 4, 3, 3]))
    assert f.phase == pf.TOTALS and "Next: P4 deals" in screen_text(rig)
    tap(rig, OK)
    assert "Dealer: P4" in screen_text(rig)
    assert rig.log.of("hand")[0]["dealer"] == 2 and rig.log.of("hand")[0]["next_dealer"] == 3


def test_undo_of_the_first_dealer_is_saved_PT23(rig):
    rig.app.start("partners", rig.t, {"target": 100})
    f = flow(rig)
    tap(rig, 2)
    assert f.phase == pf.BID and rig.store.load_game()[0]["state"]["first"] == 2
    undo(rig)
    assert f.phase == pf.DEALER and f.first is None, "PT-23: no dealer chosen any more"
    assert rig.store.load_game()[0]["state"]["first"] is None, "PT-23: a power cut now resumes on DEALER"
    rig.reboot()
    rig.app.resume(rig.store.load_game()[0], rig.t)
    assert flow(rig).phase == pf.DEALER, "PT-23"


def test_dealer_by_UP_DOWN_and_OK(rig):
    rig.app.start("partners", rig.t, {"target": 100})
    tap(rig, DOWN)  # P1 -> P4 (wraps)
    tap(rig, OK)
    assert flow(rig).game.dealer == 3


def test_bid_is_7_to_13_and_any_trump_or_notrump_PT4_PT5(rig):
    d.start(rig)
    f = flow(rig)
    tap(rig, DOWN)
    assert f.bid == 7  # never below 7
    tap(rig, UP, 10)
    assert f.bid == 13  # never above 13
    tap(rig, OK)
    assert f.phase == pf.TRUMP
    seen = []
    for _ in range(5):
        seen.append(pf.TRUMP_WORDS[f.trump])
        tap(rig, UP)
    assert seen == ["Clubs", "Diamonds", "Hearts", "Spades", "No trump"] and f.trump == 0
    tap(rig, DOWN)  # clubs -> notrump, the highest (PT-5)
    tap(rig, OK)
    assert f.phase == pf.CONTRACTOR and screen_text(rig)  # "13 No trump" on the title
    tap(rig, 0)
    tap(rig, 2)
    assert f.game.contract == (13, "notrump", 0, 2)


def test_partner_opposite_nobody_moves_PT8(rig):
    d.start(rig)
    t = Table()
    assert d.enter_contract(rig, t, 8, "spades", 1, 3) is None
    f = flow(rig)
    assert f.phase == pf.TRICKS and list(f.game.seats) == [0, 1, 2, 3]


def test_swap_seats_prompt_names_who_moves_where_and_seats_stay_PT8_PT9_PT17(rig):
    d.start(rig)
    f = flow(rig)
    tap(rig, UP)  # 8
    tap(rig, OK)
    tap(rig, OK)
    tap(rig, 1)  # P2 won the auction
    tap(rig, 2)  # and names P3, who sits beside them, not opposite
    assert f.phase == pf.SWAP
    txt = screen_text(rig)
    assert "Swap seats!" in txt
    assert "P3: go to pad 4" in txt and "P4: go to pad 3" in txt
    assert list(f.game.seats) == [0, 1, 3, 2]
    tap(rig, 3)  # pads mean nothing until the players have moved: OK
    assert f.phase == pf.SWAP and f.game.tricks_played == 0
    tap(rig, OK)
    assert f.phase == pf.TRICKS
    tap(rig, 3)  # pad 4 is now P3's
    tap(rig, 2)  # pad 3 is now P4's
    assert f.game.tricks == [0, 0, 1, 1]
    # finish the hand; the next hand keeps the seats (PT-17)
    t = Table()
    t.name_partner(1, 2)
    d.play_tricks(rig, t, [1] * 11)
    tap(rig, OK)
    tap(rig, OK)
    assert list(f.game.seats) == [0, 1, 3, 2]
    assert d.enter_contract(rig, t, 8, "clubs", 0, 3) is None  # P4 now sits opposite P1
    assert f.phase == pf.TRICKS and list(f.game.seats) == [0, 1, 3, 2]


def test_partner_cannot_be_the_contractor_PT8(rig):
    d.start(rig)
    f = flow(rig)
    tap(rig, UP)
    tap(rig, OK)
    tap(rig, OK)
    tap(rig, 2)
    tap(rig, 2)  # the contractor's own pad again
    assert f.phase == pf.PARTNER and f.game.contract is None
    assert rig.sounds[-1] == ERROR and "not P3! (PT-8)" in screen_text(rig)
    tap(rig, 0)
    assert f.game.contract == (8, "clubs", 2, 0) and f.phase == pf.TRICKS


def test_a_non_dealer_at_7_in_a_suit_is_refused_PT24(rig):
    """PT-24: P1 deals, the final bid is 7 hearts: P2's pad as the contractor is
    refused in words (only the dealer wins the auction at 7 in a suit) and
    nothing is entered; the dealer's pad is taken.  7 notrump stays P2's."""
    d.start(rig)  # P1 deals
    f = flow(rig)
    tap(rig, OK)  # bid 7
    tap(rig, UP, 2)  # clubs -> hearts
    tap(rig, OK)
    tap(rig, 1)  # P2: "I won the bid"
    assert f.phase == pf.CONTRACTOR and f.game.contract is None, "PT-24"
    assert rig.sounds[-1] == ERROR and "7H: dealer only" in screen_text(rig), screen_text(rig)
    tap(rig, 0)  # P1, the dealer
    assert f.phase == pf.PARTNER and f.contractor == 0
    tap(rig, 2)
    assert f.game.contract == (7, "hearts", 0, 2)
    # the next hand: P1 deals again; P2 at 7 notrump is a contract
    d.play_tricks(rig, Table(), [0] * 13)
    tap(rig, OK)
    tap(rig, OK)
    assert f.game.dealer == 0 and f.phase == pf.BID
    tap(rig, OK)
    tap(rig, UP, 4)  # notrump
    tap(rig, OK)
    tap(rig, 1)
    assert f.phase == pf.PARTNER and f.contractor == 1 and rig.sounds[-1] != ERROR


def test_a_saved_non_dealer_at_7_in_a_suit_is_reported_PT24(rig):
    """PT-24: a save holding such a hand (written before the rule) is refused
    with its rule, not offered."""
    rig.store.save_game({"v": 1, "game": "partners", "opts": {"target": 100},
                         "state": {"first": 0, "hands": [[7, "hearts", 1, 3, [1] * 13]]}})
    rig.reboot()
    set_aside(rig, "PT-24")


# ---- tricks and the hand's scores ---------------------------------------------------
def test_trick_screen_counts_each_player_PT13(rig):
    d.start(rig)
    t = Table()
    d.enter_contract(rig, t, 9, "hearts", 1, 2)
    f = flow(rig)
    d.play_tricks(rig, t, [1, 2, 1, 0])
    assert f.game.tricks == [1, 2, 1, 0] and f.game.tricks_played == 4
    txt = screen_text(rig)
    assert "Trick" in txt and "5" in txt and "side" in txt and "3" in txt  # trick 5, side 3
    assert rig.sounds[-1] == CLICK and lit(rig) > 200


def test_hand_screen_shows_made_failed_and_doubling_PT14_PT15_PT16(rig):
    d.start(rig)
    t = Table()
    f = flow(rig)
    titles = []
    for h in GAME_100[:3]:
        bid, trump, c, p, tricks = h
        d.enter_contract(rig, t, bid, trump, c, p)
        d.play_tricks(rig, t, winners(tricks))
        assert f.phase == pf.HAND
        txt = screen_text(rig)
        titles.append(txt[0])
        side = tricks[c] + tricks[p]
        assert "bid %d, took %d" % (bid, side) in txt
        tap(rig, OK)
        assert f.phase == pf.TOTALS and "Totals (to 100)" in screen_text(rig)
        tap(rig, OK)
    assert titles == ["Hand 1 made", "Hand 2 made", "Hand 3 failed x2"]


def test_thirteen_tricks_score_the_hand_once_PT13(rig):
    d.start(rig)
    t = Table()
    d.enter_contract(rig, t, 7, "clubs", 0, 2)
    f = flow(rig)
    d.play_tricks(rig, t, [0] * 13)
    assert f.phase == pf.HAND and f.game.hands_played == 1
    assert f.game.totals == [40, 0, 14, 0]  # (7+13)*2, 7*2: all 13 doubles (PT-16)
    tap(rig, 0, 3)  # more pad presses: there is no 14th trick
    assert f.game.hands_played == 1 and f.game.tricks_played == 0 and f.game.totals == [40, 0, 14, 0]


# ---- presses that mean nothing ----------------------------------------------------------
def test_presses_in_the_wrong_phase_are_ignored(rig):
    d.start(rig)
    f = flow(rig)
    g = f.game

    def snapshot():
        return (f.phase, f.bid, f.trump, list(g.tricks), list(g.totals), list(g.seats),
                g.contract, g.hands_played)

    # BID and TRUMP: pads do nothing
    s = snapshot()
    tap(rig, 0)
    tap(rig, 3)
    assert snapshot() == s
    tap(rig, OK)
    s = snapshot()
    tap(rig, 1)
    assert snapshot() == s
    tap(rig, OK)
    # CONTRACTOR / PARTNER: UP, DOWN, OK do nothing
    s = snapshot()
    tap(rig, UP)
    tap(rig, DOWN)
    tap(rig, OK)
    assert snapshot() == s
    tap(rig, 0)
    s = snapshot()
    tap(rig, UP)
    tap(rig, OK)
    assert snapshot() == s
    tap(rig, 2)
    # TRICKS: UP, DOWN, OK do nothing
    tap(rig, 1)
    s = snapshot()
    tap(rig, UP)
    tap(rig, DOWN)
    tap(rig, OK)
    assert snapshot() == s and g.tricks == [0, 1, 0, 0]
    d.play_tricks(rig, Table(), [1] * 12)
    # HAND, TOTALS: pads and UP do nothing
    assert f.phase == pf.HAND
    s = snapshot()
    tap(rig, 0)
    tap(rig, UP)
    tap(rig, DOWN)
    assert snapshot() == s
    tap(rig, OK)
    s = snapshot()
    tap(rig, 2)
    tap(rig, UP)
    assert snapshot() == s
    # releases never count (only presses are entries)
    rig.release(0)
    assert snapshot() == s


# ---- undo and abandon -------------------------------------------------------------------------
def test_undo_takes_back_one_entry_at_a_time(rig):
    d.start(rig)
    f = flow(rig)
    t = Table()
    d.enter_contract(rig, t, 9, "hearts", 1, 2)
    d.play_tricks(rig, t, [1, 2])
    undo(rig)  # the last trick
    assert f.phase == pf.TRICKS and f.game.tricks == [0, 1, 0, 0]
    undo(rig)
    assert f.game.tricks == [0, 0, 0, 0]
    undo(rig)  # the contract, and the seat swap with it (PT-8)
    assert f.phase == pf.PARTNER and f.game.contract is None and list(f.game.seats) == [0, 1, 2, 3]
    undo(rig)
    assert f.phase == pf.CONTRACTOR
    undo(rig)
    assert f.phase == pf.TRUMP and f.trump == 2
    undo(rig)
    assert f.phase == pf.BID and f.bid == 9
    undo(rig)
    assert f.phase == pf.DEALER
    rig.back()
    assert "Undo last" not in rig.app.screen.items  # nothing left to undo: not offered
    tap(rig, OK)  # Continue
    assert f.phase == pf.DEALER
    # enter it again, with P3 now opposite after a different choice
    tap(rig, 0)
    t = Table()
    d.enter_contract(rig, t, 9, "hearts", 1, 3)
    assert f.game.contract == (9, "hearts", 1, 3) and list(f.game.seats) == [0, 1, 2, 3]


def test_undo_on_the_swap_prompt_puts_the_seats_back_PT8(rig):
    d.start(rig)
    f = flow(rig)
    tap(rig, OK)
    tap(rig, OK)
    tap(rig, 0)
    tap(rig, 1)
    assert f.phase == pf.SWAP and list(f.game.seats) == [0, 2, 1, 3]
    undo(rig)
    assert f.phase == pf.PARTNER and list(f.game.seats) == [0, 1, 2, 3]
    tap(rig, 2)
    assert f.phase == pf.TRICKS


@pytest.mark.parametrize("where", ["hand", "totals", "bid"])
def test_undo_a_finished_hand_back_to_its_13th_trick_PT17(rig, where):
    d.start(rig)
    f = flow(rig)
    t = Table()
    bid, trump, c, p, tricks = GAME_100[0]
    d.enter_contract(rig, t, bid, trump, c, p)
    seq = winners(tricks)
    d.play_tricks(rig, t, seq)
    assert f.game.totals == [2, 15, 13, 1] and f.game.dealer == 1
    assert rig.store.load_game()[0]["state"]["hands"][0][4] == seq
    if where != "hand":
        tap(rig, OK)
    if where == "bid":
        tap(rig, OK)
        assert f.phase == pf.BID
    undo(rig)
    assert f.phase == pf.TRICKS and f.game.tricks_played == 12
    assert f.game.totals == [0, 0, 0, 0] and f.game.dealer == 0 and f.game.hands_played == 0
    assert list(f.game.seats) == [0, 1, 3, 2]  # the hand's seat swap still stands
    assert rig.store.load_game()[0]["state"]["hands"] == []
    assert rig.log.of("undo")[-1] == {"ev": "undo", "game": "partners", "what": "hand", "hand": 1}
    assert f.game.tricks == [2, 5, 4, 1]  # the 13th trick (round robin: P2's) is off
    tap(rig, t.pad(0))  # P1 won the last trick after all
    assert f.game.last_hand()[0]["tricks"] == [3, 5, 4, 1]
    assert rig.log.of("hand")[-1]["tricks"] == [3, 5, 4, 1]


def test_undo_the_hand_that_ended_the_game_PT18(rig):
    t = Table()
    d.start(rig)
    f = flow(rig)
    for h in GAME_100:
        d.play_hand(rig, t, h)
        if f.phase == pf.TOTALS:
            tap(rig, OK)
    assert f.phase == pf.FINAL
    undo(rig)
    assert f.phase == pf.TRICKS and not f.game.over and f.game.tricks_played == 12
    assert f.game.tricks == [6, 0, 6, 0]  # the 13th trick was P3's
    tap(rig, t.pad(0))  # P1 took it: still all 13 for the side, doubled (PT-16)
    tap(rig, OK)
    assert f.phase == pf.FINAL and f.game.totals == [107, 52, 53, 2]
    tap(rig, OK)
    assert rig.log.of("game_end")[-1]["record"]["hands"][-1]["tricks"] == [7, 0, 6, 0]


# ---- power cuts and saves ----------------------------------------------------------------
def test_resume_keeps_the_trick_order_for_undo(rig):
    d.start(rig)
    t = Table()
    d.play_hand(rig, t, GAME_100[0])
    rig.reboot()
    tap(rig, OK)
    assert flow(rig).phase == pf.TOTALS
    undo(rig)
    f = flow(rig)
    # the 13th trick of hand 1 was P2's (round robin): exactly that comes back off
    assert winners(GAME_100[0][4])[-1] == 1
    assert f.game.tricks == [2, 5, 4, 1] and f.phase == pf.TRICKS


def test_saves_only_at_hand_boundaries(rig):
    d.start(rig)
    t = Table()
    w0 = rig.store.writes
    bid, trump, c, p, tricks = GAME_100[0]
    d.enter_contract(rig, t, bid, trump, c, p)
    d.play_tricks(rig, t, winners(tricks)[:12])
    assert rig.store.writes == w0  # contract and 12 tricks: no flash write
    d.play_tricks(rig, t, winners(tricks)[12:])
    assert rig.store.writes == w0 + 1


def test_a_bad_target_is_refused_on_screen_PT18(rig):
    rig.app.start("partners", rig.t, {"target": 0})
    assert rig.app.flow is None and rig.screen_name() == "Message"
    assert "PT-18" in rig.log.of("error")[-1]["msg"]


def test_menu_starts_partners_with_the_target_option(rig):
    tap(rig, OK)  # boot -> games
    for _ in range(3):
        tap(rig, DOWN)
    tap(rig, OK)  # Partners
    tap(rig, DOWN)
    tap(rig, OK)  # Target 100 -> 150
    tap(rig, UP)
    tap(rig, OK)  # Start
    f = flow(rig)
    assert isinstance(f, pf.PartnersFlow) and f.target == 150 and f.phase == pf.DEALER


@pytest.mark.parametrize("hands,rule", [
    ([[9, "hearts", 1, 2]], "PT-21"),                       # a hand without its tricks
    ([[9, "hearts", 1, 1, [1] * 13]], "PT-8"),              # own partner
    ([[9, "hearts", 1, 2, [1] * 12]], "PT-13"),             # 12 tricks
])
def test_a_saved_game_that_breaks_the_rules_is_reported_not_resumed(rig, hands, rule):
    rig.store.save_game({"v": 1, "game": "partners", "opts": {"target": 100},
                         "state": {"first": 0, "hands": hands}})
    rig.reboot()
    set_aside(rig, rule)


def set_aside(rig, rule):
    """Checked at boot (menu.check_save): set aside with its rule on the
    boot screen, nothing offered (no backup), OK goes on to the menu."""
    boot = rig.app.screen
    assert rig.screen_name() == "Boot" and rule in boot.problem and "set aside" in boot.problem
    assert boot.saved is None
    assert os.path.exists(os.path.join(rig.root, "game.json.bad"))
    tap(rig, OK)
    assert rig.app.flow is None and rig.screen_name() == "Games"


def test_pause_and_continue_changes_nothing(rig):
    d.start(rig)
    t = Table()
    d.enter_contract(rig, t, 9, "hearts", 1, 3)
    d.play_tricks(rig, t, [0, 3, 3])
    f = flow(rig)
    rig.back()
    assert rig.screen_name() == "Pause"
    tap(rig, 2)  # a pad on the pause menu is not a trick
    tap(rig, OK)  # Continue
    assert f.phase == pf.TRICKS and f.game.tricks == [1, 0, 0, 2]
