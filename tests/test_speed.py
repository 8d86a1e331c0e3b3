"""Speed at the table level (engine/speed.py): layouts, the deal tracker, matches,
records.  Rule numbers from seeds/speed.md."""
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
def test_sp1_two_players_and_known_layouts_only():
    raises("SP-1", SpeedMatch, "pagat", players=["a", "b", "c"])
    raises("SP-1", SpeedMatch, "bavarian")
    raises("SP-1", SpeedDeal().ready, 2)


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
    raises("SP-1", records.replay, rec([]) | {"players": ["a"]})


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
