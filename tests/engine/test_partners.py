"""partners TABLE level (engine/partners.py): rules PT-1..PT-22 of seeds/partners.md."""
import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speedref.engine import partners as P
from speedref.engine import records
from speedref.engine.errors import RuleError

NAMES = ["Ann", "Bo", "Cy", "Di"]


def hand(dealer, contractor, partner, bid, trump, tricks):
    return {"dealer": dealer, "contractor": contractor, "partner": partner,
            "bid": bid, "trump": trump, "tricks": list(tricks)}


def rec(hands, target=100):
    return {"game": "partners", "target": target, "players": list(NAMES), "hands": hands}


def play_hand(g, bid, trump, contractor, partner, tricks):
    g.set_contract(bid, trump, contractor, partner)
    for p in range(4):
        for _ in range(tricks[p]):
            g.trick(p)
    return g.finish_hand()


# ---- scoring: the seed document's worked examples and the doubling rule ------

def test_pt14_seed_example_made_bid_10():
    """PT-14: players 1 and 4 bid 10, take 7 and 3: they score 17 and 13."""
    scores, doubled = P.hand_scores(10, 0, 3, [7, 2, 1, 3])
    assert scores == [17, 2, 1, 13] and not doubled


def test_pt15_seed_example_failed_bid_9():
    """PT-15: players 1 and 2 bid 9; 3 takes 2 and 4 takes 3: 9+4 = 13 and 9+9 = 18."""
    scores, doubled = P.hand_scores(9, 0, 1, [5, 3, 2, 3])
    assert scores == [0, 0, 13, 18] and not doubled


def test_pt15_failed_contract_side_gets_no_trick_points():
    """PT-15: the contractor and partner score 0, not even their own tricks."""
    scores, _ = P.hand_scores(12, 2, 0, [4, 1, 7, 1])
    assert scores[2] == 0 and scores[0] == 0
    assert scores[1] == 12 + 1 and scores[3] == 12 + 1


@pytest.mark.parametrize("bid,tricks,expected,doubled", [
    # PT-16 shut-out: the contract side takes all 13 tricks -> every score doubled
    (7, [13, 0, 0, 0], [2 * 20, 0, 2 * 7, 0], True),
    (7, [6, 0, 7, 0], [2 * 13, 0, 2 * 14, 0], True),
    # PT-16: one player's hand score reaches exactly 20 -> doubled
    (10, [10, 1, 1, 1], [40, 2, 22, 2], True),
    # 19 is not enough
    (10, [9, 2, 1, 1], [19, 2, 11, 1], False),
    # PT-16 on a failed contract: a defender's 7 + 4*4 = 23 doubles the hand
    (7, [2, 4, 1, 6], [0, 2 * 23, 0, 2 * 43], True),
])
def test_pt16_doubling(bid, tricks, expected, doubled):
    """PT-16: doubled once for a shut-out or any hand score of 20 or more."""
    assert P.hand_scores(bid, 0, 2, tricks) == (expected, doubled)


def test_pt16_both_conditions_double_only_once():
    """PT-16: shut-out with a 20+ score is still x2, not x4."""
    scores, doubled = P.hand_scores(13, 0, 2, [10, 0, 3, 0])
    assert doubled and scores == [46, 0, 32, 0]


# ---- seats and partner (PT-1, PT-8, PT-9) -------------------------------------

def test_pt1_players_start_in_their_own_seats():
    """PT-1: player i sits in seat i at the start."""
    g = P.PartnersGame(100, NAMES)
    assert list(g.seats) == [0, 1, 2, 3] and [g.seat_of(p) for p in range(4)] == [0, 1, 2, 3]


def test_pt8_partner_opposite_does_not_move():
    """PT-8: the partner already opposite: no exchange."""
    g = P.PartnersGame(100, NAMES)
    assert g.swap_for(0, 2) is None
    assert g.set_contract(8, "hearts", 0, 2) is None
    assert list(g.seats) == [0, 1, 2, 3]


def test_pt8_partner_exchanges_with_the_player_opposite():
    """PT-8: partner 1 swaps with player 2 who sits opposite contractor 0; contractor stays."""
    g = P.PartnersGame(100, NAMES)
    assert g.set_contract(8, "hearts", 0, 1) == (1, 2)
    assert list(g.seats) == [0, 2, 1, 3]
    assert g.seat_of(1) == 2 and g.seat_of(0) == 0


def test_pt9_seats_persist_into_the_next_hand_and_trick_by_seat():
    """PT-9/PT-17: players stay in their new seats; trick_at_seat names whoever sits there."""
    g = P.PartnersGame(100, NAMES)
    g.set_contract(8, "hearts", 0, 1)
    g.trick_at_seat(2)  # player 1 now sits in seat 2
    assert g.tricks == [0, 1, 0, 0]
    for _ in range(12):
        g.trick(0)
    g.finish_hand()
    assert list(g.seats) == [0, 2, 1, 3]
    # next hand: contractor 3 (seat 3), partner 0 sits in seat 0; opposite seat 1 holds player 2
    assert g.swap_for(3, 0) == (0, 2)


# ---- entering a hand, errors leave the game unchanged -------------------------

def test_pt4_bid_range_and_trump_names():
    """PT-4: bids are 7..13 with one of five trumps."""
    g = P.PartnersGame(100, NAMES)
    for bad in (6, 14, 7.0, True):
        with pytest.raises(RuleError) as e:
            g.set_contract(bad, "hearts", 0, 2)
        assert e.value.rule == "PT-4"
    with pytest.raises(RuleError) as e:
        g.set_contract(7, "no-trump", 0, 2)
    assert e.value.rule == "PT-4"
    assert g.contract is None and list(g.seats) == [0, 1, 2, 3]


def test_pt8_contractor_cannot_partner_themselves():
    """PT-8: the partner is one of the other three players."""
    g = P.PartnersGame(100, NAMES)
    with pytest.raises(RuleError) as e:
        g.set_contract(7, "spades", 1, 1)
    assert e.value.rule == "PT-8" and g.contract is None


def test_pt11_no_trick_and_no_score_before_the_contract():
    """PT-11: the contractor leads the first trick, so a hand has no trick before
    its contract; a trick or the hand's score entered first is refused and
    changes nothing, and the same trick is taken once the contract is set."""
    g = P.PartnersGame(100, NAMES)
    for enter in (lambda: g.trick(1), lambda: g.trick_at_seat(1), g.finish_hand):
        with pytest.raises(RuleError) as e:
            enter()
        assert e.value.rule == "PT-11", "a trick before the contract: %s" % e.value
        assert g.tricks == [0, 0, 0, 0] and g.tricks_played == 0 and g.hands_played == 0
    g.set_contract(8, "hearts", 0, 2)
    g.trick(1)
    assert g.tricks == [0, 1, 0, 0]


def test_pt10_thirteen_tricks_exactly():
    """PT-10/PT-13: no 14th trick; no scoring before 13."""
    g = P.PartnersGame(100, NAMES)
    with pytest.raises(RuleError):
        g.trick(0)  # no contract yet
    g.set_contract(7, "spades", 0, 2)
    for _ in range(12):
        g.trick(1)
    with pytest.raises(RuleError) as e:
        g.finish_hand()
    assert e.value.rule == "PT-13"
    g.trick(1)
    with pytest.raises(RuleError):
        g.trick(1)
    assert g.tricks == [0, 13, 0, 0]


def test_pt17_next_dealer_is_the_contractor_and_totals_run():
    """PT-17: the contractor deals next; PT-14 scores added to the totals."""
    g = P.PartnersGame(100, NAMES, dealer=1)
    assert g.dealer == 1
    assert play_hand(g, 10, "spades", 0, 3, [7, 2, 1, 3]) == [17, 2, 1, 13]
    assert g.dealer == 0 and g.totals == [17, 2, 1, 13] and g.hands_played == 1


def test_undo_steps_back_trick_contract_and_hand():
    """Undo: last trick, then the contract with its seat exchange (PT-8), then a finished hand."""
    g = P.PartnersGame(100, NAMES, dealer=3)
    play_hand(g, 10, "spades", 0, 1, [7, 3, 1, 2])
    after = (list(g.totals), list(g.seats), g.dealer)
    g.set_contract(9, "notrump", 0, 3)
    assert list(g.seats) == [0, 2, 3, 1]  # partner 3 swaps with player 1, opposite since hand 1
    g.trick(2)
    assert g.undo() == "trick" and g.tricks == [0, 0, 0, 0]
    assert g.undo() == "contract" and list(g.seats) == [0, 2, 1, 3] and g.contract is None
    assert (list(g.totals), list(g.seats), g.dealer) == after
    assert g.undo() == "hand"
    assert g.totals == [0, 0, 0, 0] and g.dealer == 3 and g.tricks == [7, 3, 1, 2]
    assert g.contract == (10, "spades", 0, 1) and g.tricks_played == 13
    g.finish_hand()
    assert (list(g.totals), list(g.seats), g.dealer) == after


def test_pt7_pt13_pt18_phase_contract_play_score_then_over():
    """The table-level phase: the contract (PT-7), the tricks (PT-13), the score, the end (PT-18)."""
    g = P.PartnersGame(30, NAMES)
    assert g.phase == "contract" and not g.over
    g.set_contract(10, "spades", 0, 2)
    assert g.phase == "play"
    for p in [0] * 10 + [1, 1]:
        g.trick(p)
    assert g.phase == "play"
    g.trick(3)
    assert g.phase == "score"
    g.undo()
    assert g.phase == "play"
    g.trick(3)
    g.finish_hand()  # doubled: 40, 2, 2, 2
    assert g.phase == "over" and g.over


# ---- end of the game (PT-18..PT-20) -------------------------------------------

def test_pt18_game_over_at_target_and_no_more_hands():
    """PT-18: a total at the target ends the game; no hand may follow."""
    g = P.PartnersGame(30, NAMES)
    play_hand(g, 10, "spades", 0, 2, [10, 1, 1, 1])  # doubled: 40, 2, 2, 2
    assert g.over and g.winners() == [0] and not g.ended_early
    with pytest.raises(RuleError) as e:
        g.set_contract(7, "clubs", 0, 2)
    assert e.value.rule == "PT-18"


def test_pt19_several_pass_the_target_highest_wins():
    """PT-19: two players pass the target in one hand; the higher total wins, not the first listed."""
    g = P.PartnersGame(15, NAMES)
    play_hand(g, 9, "hearts", 0, 2, [5, 3, 2, 3])  # failed: 0, 18, 0, 18 -> tie at the top
    assert g.totals == [0, 18, 0, 18]
    assert not g.over and "play on" in g.tiebreak  # PT-19: tied at the top: play on
    play_hand(g, 7, "notrump", 1, 3, [2, 4, 1, 6])  # 4+7=11 made; 4+7, 6+7 -> 11, 13
    assert g.totals == [2, 29, 1, 31]
    assert g.over and g.winners() == [3] and "Di" in g.tiebreak


def test_pt20_stopped_early_highest_total_shared():
    """PT-20: a record stopped before the target is valid, ended early, shared on a tie."""
    r = rec([hand(0, 0, 2, 9, "hearts", [5, 3, 2, 3])], target=100)
    sheet = records.replay(r)
    assert sheet.ended_early and sheet.winners() == [1, 3] and "shared" in sheet.tiebreak
    s = records.summary(r)
    assert s["totals"] == [0, 18, 0, 18] and s["hands_played"] == 1 and s["ended_early"] is True


# ---- records (PT-21, PT-22) ---------------------------------------------------

GOOD = rec([hand(2, 0, 3, 10, "spades", [7, 2, 1, 3]),
            hand(0, 1, 0, 9, "notrump", [3, 5, 2, 3]),
            hand(1, 1, 2, 13, "clubs", [0, 8, 5, 0])], target=50)


def test_pt21_record_round_trip_and_sheet():
    """PT-21: a record is accepted exactly as written and to_record() gives it back."""
    r = json.loads(json.dumps(GOOD))
    sheet = P.replay(r)
    assert sheet.to_record() == GOOD
    assert sheet.hands_played == 3
    # hand 2: 9 NT by 1 with 0: 8 tricks, failed -> defenders 9+4, 9+9
    # hand 3: 13 clubs shut-out by 1 and 2 -> doubled: (13+8)*2, (13+5)*2
    assert sheet.totals == [17 + 0 + 0, 2 + 0 + 42, 1 + 13 + 36, 13 + 18 + 0]
    rows = sheet.rows()
    assert len(rows) == 3 and rows[2][2] == sheet.totals
    assert "doubled" in rows[2][0] and "failed" in rows[1][0]
    assert rows[0][1][0] == "17 (7 tr)"
    assert sheet.over and sheet.winners() == [2]  # 50 reaches the target


def test_pt21_indices_are_players_after_a_seat_swap():
    """PT-21: tricks are listed by player even after the partner exchanged seats (PT-8)."""
    r = rec([hand(0, 0, 1, 8, "hearts", [5, 4, 2, 2])])
    sheet = P.replay(r)
    assert sheet.totals == [13, 12, 2, 2] and list(sheet.seats) == [0, 2, 1, 3]


def _bad(mutator):
    r = copy.deepcopy(GOOD)
    mutator(r)
    with pytest.raises(RuleError) as e:
        records.replay(r)
    return e.value


@pytest.mark.parametrize("mutate,rule,words", [
    (lambda r: r["hands"][1].__setitem__("tricks", [3, 5, 2, 2]), "PT-13", "hand 2, player 2 (Bo)"),
    (lambda r: r["hands"][0].__setitem__("tricks", [8, -1, 3, 3]), "PT-13", "hand 1, player 2 (Bo)"),
    (lambda r: r["hands"][0].__setitem__("tricks", [7, 2, 1]), "PT-21", "hand 1, player 1 (Ann)"),
    (lambda r: r["hands"][1].__setitem__("dealer", 3), "PT-17", "hand 2, player 4 (Di)"),
    (lambda r: r["hands"][2].__setitem__("partner", 1), "PT-8", "hand 3, player 2 (Bo)"),
    (lambda r: r["hands"][2].__setitem__("bid", 6), "PT-4", "hand 3, player 2 (Bo)"),
    (lambda r: r["hands"][2].__setitem__("bid", 9.0), "PT-4", "hand 3, player 2 (Bo)"),
    (lambda r: r["hands"][0].__setitem__("trump", "no-trump"), "PT-4", "hand 1, player 1 (Ann)"),
    (lambda r: r["hands"][0].__setitem__("contractor", 4), "PT-7", "hand 1"),
    (lambda r: r["hands"][0].__setitem__("dealer", True), "PT-3", "hand 1"),
    (lambda r: r["hands"][0].pop("bid"), "PT-21", "hand 1"),
    (lambda r: r["hands"].append(hand(1, 0, 2, 7, "clubs", [4, 3, 3, 3])), "PT-18",
     "hand 4, player 2 (Bo)"),
])
def test_pt22_invalid_records_name_hand_player_rule(mutate, rule, words):
    """PT-22: each invalid record raises RuleError naming the hand, the player and the rule."""
    e = _bad(mutate)
    assert e.rule == rule and words in str(e) and str(e).startswith(rule + ": ")


@pytest.mark.parametrize("mutate,rule", [
    (lambda r: r.__setitem__("players", NAMES[:3]), "PT-1"),
    (lambda r: r.__setitem__("players", ["Ann", "", "Cy", "Di"]), "PT-21"),
    (lambda r: r.__setitem__("target", 0), "PT-18"),
    (lambda r: r.__setitem__("target", "100"), "PT-18"),
    (lambda r: r.__setitem__("hands", {}), "PT-21"),
])
def test_pt22_invalid_record_headers(mutate, rule):
    """PT-22: bad players, target or hands list."""
    assert _bad(mutate).rule == rule


# ---- properties -----------------------------------------------------------------

@st.composite
def records_st(draw):
    target = draw(st.integers(1, 200))
    g = P.PartnersGame(target, NAMES, dealer=draw(st.integers(0, 3)))
    hands = []
    for _ in range(draw(st.integers(0, 12))):
        if g.over:
            break
        c = draw(st.integers(0, 3))
        p = draw(st.sampled_from([x for x in range(4) if x != c]))
        cuts = sorted(draw(st.lists(st.integers(0, 13), min_size=3, max_size=3)))
        tricks = [cuts[0], cuts[1] - cuts[0], cuts[2] - cuts[1], 13 - cuts[2]]
        bid = draw(st.integers(7, 13))
        # PT-24: a non-dealer wins the auction at 7 notrump or more
        trump = draw(st.sampled_from([t for t in P.TRUMPS if g.contract_possible(bid, t, c)]))
        h = hand(g.dealer, c, p, bid, trump, tricks)
        play_hand(g, h["bid"], h["trump"], c, p, tricks)
        hands.append(h)
    return rec(hands, target)


@settings(max_examples=200, deadline=None)
@given(records_st())
def test_property_totals_are_the_sum_of_hand_scores(r):
    """PT-14..PT-16: running totals equal the sum of each hand's scores; round trip (PT-21)."""
    sheet = P.replay(r)
    sums = [0, 0, 0, 0]
    for h in r["hands"]:
        s, _ = P.hand_scores(h["bid"], h["contractor"], h["partner"], h["tricks"])
        sums = [a + b for a, b in zip(sums, s)]
    assert sheet.totals == sums
    assert sheet.rows()[-1][2] == sums if r["hands"] else sheet.rows() == []
    assert sheet.to_record() == r
    assert max(sheet.totals[p] for p in sheet.winners()) == max(sums)
    # undo of every entry leads back to an empty game (PT-8 exchanges undone too)
    while sheet.hands_played or sheet.contract is not None:
        sheet.undo()
    assert sheet.totals == [0, 0, 0, 0] and list(sheet.seats) == [0, 1, 2, 3]


def test_pt3_first_dealer_is_the_tables_choice_then_the_contractor():
    """PT-3: a record's first hand may name any dealer; the next dealer must be its contractor."""
    for first in range(4):
        r = rec([hand(first, 2, 0, 7, "notrump", [3, 3, 4, 3]), hand(2, 1, 3, 8, "clubs", [2, 6, 2, 3])])
        assert P.replay(r).dealer == 1
    r = rec([hand(3, 2, 0, 7, "notrump", [3, 3, 4, 3]), hand(3, 1, 3, 8, "clubs", [2, 6, 2, 3])])
    with pytest.raises(RuleError) as e:
        P.replay(r)
    assert e.value.rule == "PT-17" and "hand 2, player 4 (Di)" in str(e.value)


def test_pt19_record_may_continue_after_a_tie_at_the_target():
    """PT-19: a tie at the top past the target is not the end, so the next hand is valid."""
    r = rec([hand(0, 0, 2, 9, "hearts", [5, 3, 2, 3]), hand(0, 1, 3, 7, "notrump", [2, 4, 1, 6])],
            target=15)
    sheet = P.replay(r)
    assert sheet.over and sheet.winners() == [3] and not sheet.ended_early
    tied = P.replay(rec(r["hands"][:1], target=15))
    assert not tied.over and tied.ended_early and tied.winners() == [1, 3]


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_pt22_messages_count_players_from_one_like_the_other_games(seat):
    """PT-22: a message names player k+1 with their name, as Speed, Spit and
    Speed Run do (P1..P4 on the device); never "player 0"."""
    names = GOOD["players"]
    r = copy.deepcopy(GOOD)
    t = [4, 3, 3, 3]
    t[seat] = -1
    r["hands"][0]["tricks"] = t
    e = _bad(lambda x: x.update(r))
    assert "hand 1, player %d (%s)" % (seat + 1, names[seat]) in str(e), "PT-22: %s" % e
    assert "player 0" not in str(e), "PT-22"


# ---- the auction's result (PT-24) ---------------------------------------------

@pytest.mark.parametrize("trump", ["clubs", "diamonds", "hearts", "spades"])
@pytest.mark.parametrize("contractor", [1, 2, 3])
def test_pt24_a_non_dealer_never_wins_the_auction_at_7_in_a_suit(trump, contractor):
    """PT-24: the dealer opens at 7 or more (PT-6) and every later bid is bigger
    (PT-5), so an auction a non-dealer wins ends at 7 notrump or more.  Entered
    at the table level it is refused and nothing changes."""
    g = P.PartnersGame(100, NAMES, dealer=0)
    partner = 0 if contractor != 0 else 1
    with pytest.raises(RuleError) as e:
        g.set_contract(7, trump, contractor, partner)
    assert e.value.rule == "PT-24", e.value
    assert "player %d (%s)" % (contractor + 1, NAMES[contractor]) in str(e.value)
    assert "dealer" in str(e.value) and "7 notrump" in str(e.value)
    assert g.contract is None and list(g.seats) == [0, 1, 2, 3] and g.phase == "contract"
    assert not g.contract_possible(7, trump, contractor)


@pytest.mark.parametrize("bid,trump,contractor", [
    (7, "hearts", 0),      # the dealer opened and everyone passed
    (7, "notrump", 2),     # bigger than the dealer's 7 in a suit
    (8, "clubs", 1),
    (13, "spades", 3),
    (7, "notrump", 0),
])
def test_pt24_what_an_auction_can_end_on_stays_legal(bid, trump, contractor):
    """PT-24: 7 in a suit by the dealer, 7 notrump and 8+ by anyone are contracts."""
    g = P.PartnersGame(100, NAMES, dealer=0)
    assert g.contract_possible(bid, trump, contractor)
    g.set_contract(bid, trump, contractor, (contractor + 1) % 4)
    assert g.contract[:3] == (bid, trump, contractor)


def test_pt24_a_record_with_a_non_dealer_at_7_in_a_suit_is_invalid():
    """PT-24: dealer player 1, contractor player 2 at 7 hearts cannot come out of
    an auction, so the record is refused (it used to score [3, 11, 3, 10])."""
    r = rec([hand(0, 1, 3, 7, "hearts", [3, 5, 2, 3])])
    with pytest.raises(RuleError) as e:
        P.replay(r)
    assert e.value.rule == "PT-24" and "hand 1, player 2 (Bo)" in str(e.value), e.value
    # the same hand dealt by player 2, or bid 7 notrump, is a contract
    assert P.replay(rec([hand(1, 1, 3, 7, "hearts", [3, 5, 2, 3])])).totals == [3, 12, 2, 10]
    assert P.replay(rec([hand(0, 1, 3, 7, "notrump", [3, 5, 2, 3])])).hands_played == 1
