"""Speed at the table level (engine/speed.py): layouts, the deal tracker, matches,
records.  Rule numbers from seeds/speed.md."""
import re
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from speedref.engine import records, speed
from speedref.engine.errors import RuleError
from speedref.engine.speed import SpeedDeal, SpeedMatch


def rec(deals, match=None, layout="pagat", **kw):
    r = {"game": "speed", "layout": layout, "match": match or {"target": 25},
         "players": ["Ann", "Bob"], "deals": [{"winner": w, "left": n} for w, n in deals]}
    r.update(kw)
    return r


def raises(rule, fn, *a, **kw):
    with pytest.raises(RuleError) as e:
        fn(*a, **kw)
    assert e.value.rule == rule, str(e.value)
    return str(e.value)


# -- layouts and options ---------------------------------------------------------
def test_sp1_sp27_two_to_four_players_and_known_layouts_only():
    assert SpeedMatch().seats == 2 and SpeedDeal().seats == 2
    assert SpeedMatch("pagat", players=["a", "b", "c"]).seats == 3
    assert SpeedMatch("pagat", players=["a", "b", "c", "d"]).totals == [0, 0, 0, 0]
    raises("SP-27", SpeedMatch, "pagat", players=["a", "b", "c", "d", "e"])
    raises("SP-27", SpeedMatch, "pagat", players=["a"])
    raises("SP-27", SpeedMatch, "pagat", players="ab")
    raises("SP-1", SpeedMatch, "bavarian")
    assert "0 or 1" in raises("SP-1", SpeedDeal().ready, 2)
    assert "0..2" in raises("SP-1", SpeedDeal(seats=3).ready, 3)
    for bad in (1, 5, True, "3"):
        raises("SP-27", SpeedDeal, seats=bad)


def test_sp2_sp3_sp4_cards_per_player_and_reserves():
    assert speed.cards_per_player("pagat") == 15 and speed.reserve_size("pagat") == 10
    assert speed.cards_per_player("classic") == 20 and speed.reserve_size("classic") == 5
    assert speed.cards_per_player("classic", jokers=True) == 21
    # Both layouts use the whole deck: 2 players + 2 reserves + 2 start cards.
    assert 2 * 15 + 2 * 10 + 2 == 52 and 2 * 20 + 2 * 5 + 2 == 52 and 2 * 21 + 2 * 5 + 2 == 54


def test_sp4_jokers_refused_with_pagat_layout():
    raises("SP-4", SpeedMatch, "pagat", jokers=True)
    raises("SP-4", records.replay, rec([], jokers=True))
    assert records.replay(rec([(0, 21)], layout="classic", jokers=True)).totals == [21, 0]


def test_sp5_hand_limit_is_5_6_or_7():
    for n in (5, 6, 7):
        assert SpeedDeal(hand_limit=n).hand_limit == n
    raises("SP-5", SpeedDeal, hand_limit=8)
    raises("SP-5", records.replay, rec([], hand_limit=4))


# -- the deal tracker ----------------------------------------------------------------
def started(**kw):
    d = SpeedDeal(**kw)
    d.ready(0)
    d.ready(1)
    d.start_flip()
    return d


def test_sp6_start_flip_needs_both_ready():
    d = SpeedDeal()
    assert d.ready(1) is False
    raises("SP-6", d.start_flip)
    raises("SP-14", d.stuck, 0)  # no stuck calls before the start
    assert d.ready(0) is True
    d.start_flip()
    assert d.phase == "play"
    raises("SP-6", d.ready, 0)


def test_sp14_flip_only_when_both_stuck_and_a_play_cancels():
    d = started()
    assert d.stuck(0) is False
    raises("SP-14", d.flip)
    d.unstuck(0)
    assert d.stuck(1) is False and d.stuck(0) is True
    d.flip()
    assert d.flips == 1 and d.reserve_left == 9 and not d.flip_due


def test_sp15_reserves_run_out_after_layout_flips_then_rebuild():
    d = started(layout="classic")
    for _ in range(5):
        d.stuck(0), d.stuck(1)
        d.flip()
    d.stuck(0)
    d.stuck(1)
    assert d.rebuild_due
    raises("SP-15", d.flip)
    raises("SP-15", d.rebuild, 1)
    raises("SP-15", d.rebuild, 49)  # 52 - 2 tops - a card each
    d.rebuild(7)  # 7 gathered cards: 4 and 3, so 3 flips before the next rebuild
    assert d.rebuilds == 1 and d.reserve_left == 3
    d.flip()
    assert d.reserve_left == 2 and d.flips == 6


def test_sp15_rebuild_of_unknown_size_waits_for_players():
    d = started(layout="classic")
    for _ in range(5):
        d.stuck(0), d.stuck(1)
        d.flip()
    d.stuck(0), d.stuck(1)
    d.rebuild()
    assert d.reserve_left is None
    d.flip()
    d.reserves_out()
    d.stuck(0), d.stuck(1)
    assert d.rebuild_due


def test_sp16_claim_confirm_or_reject():
    d = started()
    raises("SP-16", d.confirm, 3)
    d.claim_out(1)
    raises("SP-14", d.stuck, 0)
    d.reject()
    assert d.phase == "play" and d.claimant is None
    d.claim_out(0)
    d.confirm(4)
    assert d.result == (0, 4) and d.phase == "over"


def test_sp18_left_bounds_per_layout_and_message_names_loser():
    d = started(layout="classic")
    d.claim_out(0)
    assert d.left_bounds() == (1, 20)
    msg = raises("SP-18", d.confirm, 21)
    assert "player 2" in msg
    raises("SP-18", d.confirm, 0)
    raises("SP-18", d.confirm, True)
    assert d.phase == "claim"  # unchanged by the errors
    d.confirm(20)


def test_sp17_slap_to_win_allows_zero_left():
    d = started(layout="classic", jokers=True, slap_to_win=True)
    d.claim_out(1)
    assert d.left_bounds() == (0, 21)
    d.confirm(0)
    assert d.result == (1, 0)
    raises("SP-18", records.replay, rec([(0, 0)]))
    assert records.replay(rec([(0, 0)], slap_to_win=True)).totals == [0, 0]


# -- matches ---------------------------------------------------------------------------
def test_sp18_known_value_scores():
    # Seed 001's example: 3 in hand and 4 in stock score 7.
    m = SpeedMatch("pagat")
    m.add_deal(0, 7)
    m.add_deal(1, 12)
    m.add_deal(0, 15)
    assert m.totals == [22, 12] and m.wins == [2, 1] and not m.over
    m.add_deal(0, 3)
    assert m.totals == [25, 12] and m.over and m.winners() == [0]
    assert m.tiebreak == "first to 25 points (25-12 points)"
    assert m.rows()[-1] == ("deal 4", ["won +3", "3 left"], [25, 12])


def test_sp19_single_deal():
    assert SpeedMatch(match={"single": True}).phase == "play"
    m = records.replay(rec([(1, 4)], match={"single": True}))
    assert m.phase == "over" and m.over and m.winners() == [1] and m.totals == [0, 4] and m.hands_played == 1
    raises("SP-19", records.replay, rec([(1, 4), (0, 2)], match={"single": True}))


def test_sp19_target_default_25_and_custom():
    assert SpeedMatch().goal == 25 and SpeedMatch().format == "target"
    m = records.replay(rec([(1, 6), (1, 5)], match={"target": 10}))
    assert m.over and m.winners() == [1]
    msg = raises("SP-19", records.replay, rec([(1, 6), (1, 5), (0, 3)], match={"target": 10}))
    assert msg.startswith("SP-19: deal 3, player 1:")


def test_sp19_best_of_three_counts_deals_not_points():
    m = records.replay(rec([(0, 1), (1, 15), (0, 2)], match={"best_of": 3}))
    assert m.totals == [3, 15] and m.wins == [2, 1]
    assert m.over and m.winners() == [0]
    assert "2 of 3 deals" in m.tiebreak
    raises("SP-19", records.replay, rec([(0, 1), (0, 1), (1, 1)], match={"best_of": 3}))
    raises("SP-19", records.replay, rec([], match={"best_of": 2}))
    raises("SP-19", records.replay, rec([], match={"target": 0}))
    raises("SP-19", records.replay, rec([], match={"single": True, "target": 5}))


def test_sp20_record_round_trip_and_ended_early():
    r = rec([(0, 5), (1, 2)], layout="classic", jokers=True, doubles=True, hand_limit=7,
            slap_to_win=True)
    r["note"] = "extra fields are fine"
    m = records.replay(r)
    out = m.to_record()
    del r["note"]
    assert out == r
    assert m.ended_early and m.winners() == [0] and m.tiebreak.startswith("ended early, leading")
    s = records.summary(r)
    assert s["totals"] == [5, 2] and s["hands_played"] == 2 and s["ended_early"] is True


@pytest.mark.parametrize("deals,fragment", [
    ([(0, 3), (2, 3)], "deal 2: winner must be 0 or 1"),
    ([(0, 16)], "deal 1, player 2: cards left must be 1..15"),
    ([(1, 0)], "deal 1, player 1: cards left must be 1..15"),
    ([(1, "3")], "deal 1, player 1"),
])
def test_sp20_invalid_deals_name_deal_and_player(deals, fragment):
    with pytest.raises(RuleError) as e:
        records.replay(rec(deals))
    assert fragment in str(e.value)


def test_sp20_malformed_records():
    raises("SP-20", records.replay, {"game": "speed", "layout": "pagat", "players": ["a", "b"]})
    raises("SP-20", records.replay, {"game": "speed", "players": ["a", "b"], "deals": []})
    raises("SP-20", records.replay, rec([]) | {"deals": [{"winner": 0}]})
    raises("SP-20", records.replay, rec([]) | {"doubles": "yes"})
    raises("SP-27", records.replay, rec([]) | {"players": ["a"]})


def test_sp20_undo_last_and_add_result():
    m = SpeedMatch("classic", {"single": True})
    d = m.new_deal()
    raises("SP-16", m.add_result, d)
    d.ready(0), d.ready(1)
    d.start_flip()
    d.claim_out(1)
    d.confirm(9)
    m.add_result(d)
    assert m.over and m.totals == [0, 9]
    m.undo_last()
    assert not m.over and m.totals == [0, 0] and m.deals == []
    raises("SP-20", m.undo_last)


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(1, 20)), max_size=12),
       st.sampled_from([{"target": 25}, {"target": 40}, {"best_of": 3}, {"single": True}]))
def test_sp18_sp19_totals_equal_sum_of_deal_scores(deals, match):
    """Property: totals are the sum of each winner's deal scores; a record is
    accepted exactly up to the deal that ends the match."""
    m = SpeedMatch("classic", match)
    for w, n in deals:
        if m.over:
            with pytest.raises(RuleError):
                m.add_deal(w, n)
            break
        m.add_deal(w, n)
    want = [0, 0]
    for w, n in m.deals:
        want[w] += n
    assert m.totals == want
    assert [r[2] for r in m.rows()][-1:] == ([want] if m.deals else [])
    assert speed.replay(m.to_record()).totals == want


# -- three and four players (SP-27 ..) ----------------------------------------------------
def started_n(n, **kw):
    d = SpeedDeal(seats=n, **kw)
    for p in range(n):
        assert d.ready(p) is (p == n - 1)
    d.start_flip()
    return d


def rec_n(names, deals, match=None, layout="pagat", **kw):
    r = {"game": "speed", "layout": layout, "match": match or {"target": 25},
         "players": list(names), "deals": [{"winner": w, "left": list(n)} for w, n in deals]}
    r.update(kw)
    return r


NAMES3 = ["Ann", "Bob", "Cy"]
NAMES4 = ["Ann", "Bob", "Cy", "Di"]


def test_sp28_half_a_deck_per_player():
    assert [speed.deck_size(n) for n in (2, 3, 4)] == [52, 78, 104]
    assert [speed.deck_size(n, jokers=True) for n in (2, 3, 4)] == [54, 81, 108]
    # every player's share is the two-player one: stock and hand, reserve, start card
    for layout, jokers in (("pagat", False), ("classic", False), ("classic", True)):
        share = speed.cards_per_player(layout, jokers) + speed.reserve_size(layout) + 1
        for n in (2, 3, 4):
            assert n * share == speed.deck_size(n, jokers), (layout, jokers, n)
    raises("SP-4", SpeedDeal, "pagat", jokers=True, seats=3)


def test_sp30_the_start_waits_for_every_player():
    d = SpeedDeal(seats=4)
    assert d.ready(0) is False and d.ready(2) is False and d.ready(3) is False
    msg = raises("SP-6", d.start_flip)
    assert "every player" in msg
    assert d.ready(1) is True
    d.start_flip()
    assert d.phase == "play"


def test_sp31_a_flip_only_when_every_player_is_stuck():
    d = started_n(3)
    assert d.stuck(0) is False and d.stuck(2) is False
    assert "every player" in raises("SP-14", d.flip)
    d.unstuck(2)
    assert d.stuck(1) is False and not d.flip_due
    assert d.stuck(2) is True
    d.flip()
    assert d.flips == 1 and d.reserve_left == 9
    assert [d.is_stuck(p) for p in range(3)] == [False] * 3


def test_sp32_a_rebuild_of_n_reserves_gives_cards_over_n_flips():
    d = started_n(4, layout="classic")
    for _ in range(5):
        for p in range(4):
            d.stuck(p)
        d.flip()
    for p in range(4):
        d.stuck(p)
    assert d.rebuild_due
    raises("SP-15", d.rebuild, 3)    # fewer than a card a reserve
    raises("SP-15", d.rebuild, 97)   # 104 - 4 tops - a card each
    d.rebuild(96)
    assert d.reserve_left == 24
    d2 = started_n(3, layout="classic", jokers=True)
    for _ in range(5):
        for p in range(3):
            d2.stuck(p)
        d2.flip()
    for p in range(3):
        d2.stuck(p)
    raises("SP-15", d2.rebuild, 76)  # 81 - 3 - 3
    d2.rebuild(11)
    assert d2.reserve_left == 3      # 4, 4 and 3: three flips


def test_sp33_sp35_a_claim_is_confirmed_with_every_losers_count():
    d = started_n(3)
    d.claim_out(1)
    assert d.left_bounds() == (1, 15)
    raises("SP-35", d.confirm, 7)               # one count for three players
    raises("SP-35", d.confirm, [3, 0])          # a count a player
    assert "player 2: the winner holds 0 cards, not 1" in raises("SP-35", d.confirm, [3, 1, 4])
    assert "player 3" in raises("SP-18", d.confirm, [3, 0, 16])
    assert "player 1" in raises("SP-18", d.confirm, [0, 0, 5])
    assert d.phase == "claim"
    d.reject()
    assert d.phase == "play" and d.claimant is None
    d.claim_out(2)
    d.confirm([3, 9, 0])
    assert d.result == (2, (3, 9, 0)) and d.phase == "over"


def test_sp35_two_players_may_give_the_per_player_form_and_keep_the_count():
    d = started()
    d.claim_out(1)
    d.confirm([6, 0])
    assert d.result == (1, 6)
    m = SpeedMatch()
    m.add_deal(0, [0, 4])
    assert m.deals == [(0, 4)] and m.to_record()["deals"] == [{"winner": 0, "left": 4}]
    # a record has one way to write a two-player deal
    raises("SP-35", records.replay, rec([]) | {"deals": [{"winner": 0, "left": [0, 4]}]})


def test_sp34_slap_to_win_lets_any_loser_hold_nothing():
    d = started_n(4, layout="classic", jokers=True, slap_to_win=True)
    d.claim_out(3)
    assert d.left_bounds() == (0, 21)
    d.confirm((0, 21, 0, 0))
    assert d.result == (3, (0, 21, 0, 0))
    raises("SP-18", records.replay, rec_n(NAMES3, [(0, (0, 0, 4))]))
    assert records.replay(rec_n(NAMES3, [(0, (0, 0, 4))], slap_to_win=True)).totals == [4, 0, 0]


def test_sp35_the_winner_scores_every_other_players_cards():
    m = SpeedMatch("pagat", players=NAMES4)
    m.add_deal(2, (3, 4, 0, 5))
    assert m.totals == [0, 0, 12, 0] and m.wins == [0, 0, 1, 0]
    assert m.rows() == [("deal 1", ["3 left", "4 left", "won +12", "5 left"], [0, 0, 12, 0])]
    m.add_deal(0, [0, 1, 1, 1])
    assert m.totals == [3, 0, 12, 0]
    m.undo_last()
    assert m.totals == [0, 0, 12, 0] and m.hands_played == 1
    msg = raises("SP-18", m.add_deal, 1, (2, 0, 16, 1))
    assert msg.startswith("SP-18: deal 2, player 3:")
    assert "deal 2: winner must be 0..3" in raises("SP-20", m.add_deal, 4, (1, 1, 1, 0))
    assert m.hands_played == 1


def test_sp36_target_with_more_players_first_to_reach_it():
    r = rec_n(NAMES3, [(0, (0, 9, 8)), (1, (2, 0, 3)), (0, (0, 5, 6))])
    m = records.replay(r)
    assert m.totals == [28, 5, 0] and m.over and m.winners() == [0]
    assert m.tiebreak == "first to 25 points (28-5-0 points)"
    assert m.to_record() == r
    msg = raises("SP-19", records.replay, rec_n(NAMES3, [(0, (0, 13, 12)), (1, (1, 0, 1))]))
    assert msg.startswith("SP-19: deal 2, player 2:")


def test_sp36_best_of_three_is_the_first_to_two_wins():
    deals = [(0, (0, 1, 1)), (1, (1, 0, 1)), (2, (1, 1, 0))]
    m = records.replay(rec_n(NAMES3, deals, match={"best_of": 3}))
    assert not m.over and m.ended_early and m.winners() == [0, 1, 2]
    assert m.tiebreak == "ended early, level at 1-1-1 deals"
    m.add_deal(2, (4, 4, 0))
    assert m.over and m.winners() == [2] and m.hands_played == 4
    assert m.tiebreak == "first to 2 deals, best of 3 (points are not counted)"
    raises("SP-19", m.add_deal, 0, (0, 1, 1))


def test_sp36_single_deal_and_level_leaders():
    m = records.replay(rec_n(NAMES4, [(3, (2, 2, 2, 0))], match={"single": True}))
    assert m.over and m.winners() == [3] and m.tiebreak == "won the single deal (+6)"
    m = records.replay(rec_n(NAMES4, [(3, (2, 2, 2, 0)), (1, (1, 0, 4, 1))]))
    assert m.ended_early and m.winners() == [1, 3] and m.tiebreak == "ended early, level at 0-6-0-6 points"
    s = records.summary(rec_n(NAMES4, [(3, (2, 2, 2, 0))]))
    assert s["totals"] == [0, 0, 0, 6] and s["winners"] == [3] and s["players"] == NAMES4


def test_sp35_record_seat_count_is_the_number_of_players():
    r = rec_n(NAMES4, [(1, (5, 0, 2, 7))], layout="classic", jokers=True, doubles=True, hand_limit=6)
    m = records.replay(r)
    assert m.seats == 4 and m.to_record() == r and m.new_deal().seats == 4
    raises("SP-35", records.replay, rec_n(NAMES3, []) | {"deals": [{"winner": 0, "left": 5}]})
    raises("SP-35", records.replay, rec_n(NAMES3, []) | {"deals": [{"winner": 0, "left": [0, 5]}]})
    raises("SP-35", records.replay, rec_n(NAMES3, []) | {"deals": [{"winner": 0, "left": [False, 5, 5]}]})


@given(st.integers(2, 4).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.lists(st.integers(1, 20), min_size=n, max_size=n)),
                         max_size=10))),
       st.sampled_from([{"target": 25}, {"target": 60}, {"best_of": 3}, {"single": True}]))
def test_sp35_sp36_totals_are_the_sum_of_every_losers_cards(case, match):
    """Property: for 2 to 4 players a winner's total is the sum of the other
    players' counts in the deals they won; a record is accepted exactly up to
    the deal that ends the match, and replays to itself."""
    n, deals = case
    m = SpeedMatch("classic", match, ["P%d" % (q + 1) for q in range(n)])
    want = [0] * n
    for w, counts in deals:
        counts[w] = 0
        if m.over:
            with pytest.raises(RuleError):
                m.add_deal(w, counts)
            break
        m.add_deal(w, counts)
        want[w] += sum(counts)
    assert m.totals == want and sum(m.wins) == m.hands_played
    assert speed.replay(m.to_record()).to_record() == m.to_record()
    if "single" in match:
        assert m.over == (m.hands_played == 1)
    elif "target" in match:
        assert m.over == (max(want) >= match["target"])
    else:
        assert m.over == (max(m.wins) == 2)


# -- seats are data: no two-seat literal in Speed's engine -------------------------------
TWO_SEATS = re.compile(r"\(0, 1\)|\"01\"\[|\b[12] - [a-z_]|\[(False|True|0|None|bytearray\(\)), \1\]"
                       r"|range\(2\)|for \w+ in \(0, 1\)")
SEATED = ("firmware/speedref/engine/speed.py", "firmware/speedref/engine/speed_cards.py",
          "firmware/speedref/engine/simultaneous.py")


def test_sp27_the_seat_count_is_data_in_speeds_engine():
    """The table and card levels take the seat count from their `seats`: a
    two-seat literal (`(0, 1)`, `"01"[p]`, `1 - p`, `[False, False]`,
    `range(2)`) coming back in them fails here."""
    root = Path(__file__).resolve().parents[2]
    found = []
    for rel in SEATED:
        for n, line in enumerate((root / rel).read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if TWO_SEATS.search(code):
                found.append("%s:%d: %s" % (rel, n, line.strip()))
    assert not found, "\n".join(found)
    assert TWO_SEATS.search("q = 1 - p") and TWO_SEATS.search('"01"[w]') and TWO_SEATS.search("[0, 0]")


# -- a single deal's winner, the default target, best-of, rule ids (SP-19, SP-27, SP-35, SP-36) ---
@pytest.mark.parametrize("names,left", [
    (NAMES4, [0, 0, 0, 0]),   # classic, slap to win: every loser ran out and lost the slap (SP-34)
    (NAMES3, [0, 0, 0]),
    (["Ann", "Bob"], 0),
])
def test_sp19_sp36_a_single_deal_is_won_by_its_winner_alone(names, left):
    """A single deal is a complete game (SP-19): its winner is the deal's,
    even when the deal scored 0 and every total is level."""
    n = len(names)
    w = n - 1 if n > 2 else 1
    r = {"game": "speed", "layout": "classic", "match": {"single": True}, "slap_to_win": True,
         "players": names, "deals": [{"winner": w, "left": left}]}
    m = records.replay(r)
    assert m.over and m.winners() == [w], "SP-19: the deal's winner, not everyone level at 0"
    assert records.summary(r)["winners"] == [w]
    assert m.tiebreak == "won the single deal (+0)"
    # with points the single deal's winner was already alone; before its deal it is level
    assert records.replay(dict(r, deals=[])).winners() == list(range(n))


@pytest.mark.parametrize("seats,target", [(2, 25), (3, 50), (4, 75)])
def test_sp36_the_default_target_is_25_a_player_beaten(seats, target):
    """SP-36: a deal is worth about the cards of N-1 players, so the default
    target is 25 for each other player: about as many deals at any table."""
    names = ["P%d" % (p + 1) for p in range(seats)]
    m = SpeedMatch("pagat", None, names)
    assert (m.format, m.goal) == ("target", target)
    assert speed.default_target(seats) == target
    # a record without a match is a match to that target
    r = {"game": "speed", "layout": "pagat", "players": names, "deals": []}
    assert records.replay(r).goal == target


@pytest.mark.parametrize("best_of,wins", [(1, 1), (3, 2), (5, 3), (7, 4)])
def test_sp19_best_of_any_odd_number_is_won_at_more_than_half(best_of, wins):
    """SP-19: {"best_of": N} for any odd N is won by the first to win more
    than half of N deals; one short of that each, the match goes on."""
    m = SpeedMatch("pagat", {"best_of": best_of})
    for _ in range(wins - 1):
        m.add_deal(0, 5)
        m.add_deal(1, 5)
    assert not m.over
    m.add_deal(0, 5)
    assert m.over and m.winners() == [0] and m.wins[0] == wins


@pytest.mark.parametrize("bad", [0, 2, 4, -1, True, "3"])
def test_sp19_best_of_an_even_or_no_number_is_refused_in_the_rules_words(bad):
    msg = raises("SP-19", SpeedMatch, "pagat", {"best_of": bad})
    assert "odd number of deals (1, 3, 5 ...)" in msg, msg


def test_sp27_too_few_or_too_many_names_cite_the_seats_rule():
    for bad in (["a"], ["a", "b", "c", "d", "e"], "ab", None, []):
        msg = raises("SP-27", SpeedMatch, "pagat", players=bad)
        assert "2, 3 or 4 player names" in msg
    raises("SP-27", records.replay, rec([]) | {"players": ["a"]})


@pytest.mark.parametrize("names,left,who", [
    (NAMES3, [3, 1, 4], 2), (NAMES4, [2, 2, 2, 7], 4), (["Ann", "Bob"], [3, 5], 2)])
def test_sp35_a_winner_holding_cards_cites_the_winners_0(names, left, who):
    n = len(names)
    d = started_n(n)
    d.claim_out(who - 1)
    msg = raises("SP-35", d.confirm, left)
    assert "player %d: the winner holds 0 cards, not %d" % (who, left[who - 1]) in msg, msg
    r = {"game": "speed", "layout": "pagat", "players": names, "deals": [{"winner": who - 1, "left": left}]}
    if n == 2:
        raises("SP-35", records.replay, r)  # a two-player deal keeps "left": n
    else:
        msg = raises("SP-35", records.replay, r)
        assert msg.startswith("SP-35: deal 1, player %d: the winner holds 0" % who), msg


def test_sp36_the_decided_by_totals_are_in_seat_order():
    """The totals after "first to 25 points" read as the sheet's columns:
    P1 26, P2 0, P3 6 is 26-0-6, not sorted to 26-6-0."""
    m = records.replay(rec_n(NAMES3, [(2, (3, 3, 0)), (0, (0, 13, 13))]))
    assert m.totals == [26, 0, 6] and m.over
    assert m.tiebreak == "first to 25 points (26-0-6 points)"
    m = records.replay(rec_n(NAMES3, [(2, (3, 3, 0)), (0, (0, 5, 6))]))
    assert m.ended_early and m.tiebreak == "ended early, leading 11-0-6 points"


def test_one_deal_is_a_deal_in_what_decided():
    m = records.replay({"game": "speed", "layout": "pagat", "match": {"best_of": 1}, "players": ["Ann", "Bob"],
                        "deals": [{"winner": 1, "left": 5}]})
    assert m.over and m.tiebreak == "won 1 of 1 deal (points are not counted)"
    m = records.replay(rec_n(NAMES3, [(1, (5, 0, 5))], match={"best_of": 1}))
    assert m.over and m.tiebreak == "first to 1 deal, best of 1 (points are not counted)"
