"""Speed at the table level (engine/speed.py): the edges of each rule, where a
count one off or a wrong sign would still pass the everyday tests.  Rule
numbers from seeds/speed.md."""
import pytest

from speedref.engine import records, speed
from speedref.engine.errors import RuleError
from speedref.engine.speed import SpeedDeal, SpeedMatch


def raises(rule, fn, *a, **kw):
    with pytest.raises(RuleError) as e:
        fn(*a, **kw)
    assert e.value.rule == rule, str(e.value)
    return str(e.value)


def playing(seats=2, **kw):
    d = SpeedDeal(seats=seats, **kw)
    for p in range(seats):
        d.ready(p)
    d.start_flip()
    return d


def all_stuck(d):
    for p in range(d.seats):
        d.stuck(p)


def test_sp1_a_negative_or_boolean_player_is_no_player():
    d = playing()
    for bad in (-1, True, False, 2, 1.0, None):
        assert "0 or 1" in raises("SP-1", d.claim_out, bad)
        raises("SP-1", d.stuck, bad)
    assert d.phase == "play" and d.claimant is None
    raises("SP-1", SpeedDeal().ready, -1)
    d3 = playing(3)
    raises("SP-1", d3.unstuck, -1)
    raises("SP-1", d3.claim_out, 3)
    d3.claim_out(2)
    assert d3.claimant == 2 and d3.phase == "claim"


def test_sp6_sp30_every_player_ready_before_the_start_flip():
    d = SpeedDeal(seats=3)
    assert d.ready(0) is False and d.ready(2) is False
    assert d.is_ready(0) and not d.is_ready(1) and d.is_ready(2)
    assert "every player is ready" in raises("SP-6", d.start_flip)
    assert d.ready(1) is True
    d.start_flip()
    assert d.phase == "play"
    assert "only in the ready phase (now play)" in raises("SP-6", d.ready, 0)


def test_sp14_sp31_a_flip_only_when_every_player_is_stuck():
    d = playing(3)
    assert d.stuck(0) is False and d.stuck(1) is False
    assert d.is_stuck(1) and not d.is_stuck(2)
    raises("SP-14", d.flip)
    d.unstuck(1)
    assert not d.is_stuck(1) and d.is_stuck(0)
    assert d.stuck(2) is False and d.stuck(1) is True
    assert d.flip_due and not d.rebuild_due
    d.flip()
    assert d.flips == 1 and d.reserve_left == 9 and not d.flip_due
    assert not any(d.is_stuck(p) for p in range(3))


def test_sp15_sp32_a_rebuild_gathers_seats_to_deck_less_two_per_player():
    for seats in (2, 3, 4):
        hi = speed.deck_size(seats) - 2 * seats
        for cards, ok in ((seats - 1, False), (seats, True), (hi, True), (hi + 1, False)):
            d = playing(seats)
            for _ in range(10):
                all_stuck(d)
                d.flip()
            all_stuck(d)
            assert d.rebuild_due
            raises("SP-15", d.flip)
            if ok:
                d.rebuild(cards)
                assert d.reserve_left == cards // seats and d.rebuilds == 1
                assert not d.rebuild_due and d.flip_due
            else:
                assert "%d..%d cards" % (seats, hi) in raises("SP-15", d.rebuild, cards)
                assert d.rebuilds == 0 and d.reserve_left == 0


def test_sp15_a_rebuild_of_an_unknown_count_and_its_empty_reserves():
    d = playing()
    raises("SP-15", d.rebuild)
    raises("SP-15", d.reserves_out)
    for _ in range(10):
        all_stuck(d)
        d.flip()
    all_stuck(d)
    d.rebuild()
    assert d.reserve_left is None and d.rebuilds == 1
    d.flip()  # a flip of a reserve of unknown size keeps it unknown
    assert d.reserve_left is None and d.flips == 11
    d.reserves_out()
    assert d.reserve_left == 0
    raises("SP-15", d.reserves_out)
    raises("SP-15", d.rebuild, True)


def test_sp16_a_rejected_claim_cancels_the_stuck_calls_and_plays_on():
    d = playing()
    d.stuck(0)
    d.claim_out(1)
    raises("SP-14", d.stuck, 0)
    d.reject()
    assert d.phase == "play" and d.claimant is None and not d.is_stuck(0)
    raises("SP-16", d.reject)
    raises("SP-16", d.confirm, 3)
    d.claim_out(0)
    d.confirm(4)
    assert d.result == (0, 4) and d.phase == "over"


def test_sp18_sp17_the_losers_count_bounds():
    assert SpeedDeal().left_bounds() == (1, 15)
    assert SpeedDeal("classic", jokers=True).left_bounds() == (1, 21)
    assert SpeedDeal(slap_to_win=True).left_bounds() == (0, 15)
    d = playing()
    d.claim_out(0)
    raises("SP-18", d.confirm, 0)
    raises("SP-18", d.confirm, 16)
    raises("SP-18", d.confirm, True)
    d.confirm(15)
    assert d.result == (0, 15)


def test_sp19_a_target_of_1_and_a_best_of_1():
    m = SpeedMatch(match={"target": 1})
    assert m.goal == 1 and not m.over
    m.add_deal(1, 1)
    assert m.over and m.winners() == [1] and m.tiebreak == "first to 1 point (0-1 points)"
    raises("SP-19", SpeedMatch, match={"target": 0})
    m = SpeedMatch(match={"best_of": 1})
    assert not m.over
    m.add_deal(0, 3)
    assert m.over and m.winners() == [0]
    assert m.tiebreak == "won 1 of 1 deal (points are not counted)"
    raises("SP-19", m.add_deal, 1, 3)
    for bad in (0, -1, 2, True):
        raises("SP-19", SpeedMatch, match={"best_of": bad})
    assert records.replay({"game": "speed", "layout": "pagat", "match": {"best_of": 1}, "players": ["a", "b"],
                           "deals": [{"winner": 1, "left": 2}]}).winners() == [1]


@pytest.mark.parametrize("n,need", [(3, 2), (5, 3), (7, 4)])
def test_sp19_best_of_n_is_won_by_more_than_half_of_n(n, need):
    m = SpeedMatch(match={"best_of": n})
    for _ in range(need - 1):
        m.add_deal(0, 1)
        m.add_deal(1, 1)
    assert not m.over and m.hands_played == 2 * need - 2
    m.add_deal(1, 1)
    assert m.over and m.winners() == [1] and m.wins == [need - 1, need]
    assert m.tiebreak == "won %d of %d deals (points are not counted)" % (need, n)


def test_sp23_sp19_undo_takes_back_the_deal_win_so_the_match_goes_on():
    m = SpeedMatch(match={"best_of": 3})
    m.add_deal(0, 5)
    m.add_deal(0, 2)
    assert m.over
    m.undo_last()
    assert m.wins == [1, 0] and m.totals == [5, 0] and not m.over and m.phase == "play"
    m.add_deal(1, 4)
    assert not m.over and m.wins == [1, 1]
    m.undo_last()
    m.undo_last()
    assert m.wins == [0, 0] and m.totals == [0, 0] and m.deals == []


def test_sp19_sp36_tiebreak_texts():
    m = SpeedMatch(match={"target": 10})
    assert m.tiebreak == "no deals played" and m.winners() == [0, 1]
    m.add_deal(0, 3)
    assert m.tiebreak == "ended early, leading 3-0 points"
    m.add_deal(1, 3)
    assert m.tiebreak == "ended early, level at 3-3 points" and m.winners() == [0, 1]
    m = SpeedMatch(match={"best_of": 3})
    m.add_deal(1, 9)
    assert m.tiebreak == "ended early, leading 0-1 deals"
    m = SpeedMatch(match={"single": True})
    assert m.tiebreak == "no deals played"
    m.add_deal(1, 7)
    assert m.tiebreak == "won the single deal (+7)"
    m = SpeedMatch(match={"best_of": 5}, players=["a", "b", "c"])
    for w in (0, 1, 2, 0, 2, 2):
        m.add_deal(w, [0 if p == w else 1 for p in range(3)])
    assert m.over and m.tiebreak == "first to 3 deals, best of 5 (points are not counted)"


def test_sp20_sp35_rows_name_each_players_count():
    m = SpeedMatch(players=["a", "b", "c"])
    m.add_deal(1, [2, 0, 5])
    m.add_deal(0, [0, 1, 3])
    assert m.rows() == [("deal 1", ["2 left", "won +7", "5 left"], [0, 7, 0]),
                        ("deal 2", ["won +4", "1 left", "3 left"], [4, 7, 0])]
    m = SpeedMatch()
    m.add_deal(1, 6)
    assert m.rows() == [("deal 1", ["6 left", "won +6"], [0, 6])]


def test_sp20_replay_refuses_another_games_record():
    for r in ({"game": "spit", "layout": "pagat", "players": ["a", "b"], "deals": []},
              {"layout": "pagat", "players": ["a", "b"], "deals": []}, ["speed"], None):
        assert raises("SP-20", speed.replay, r) == "SP-20: not a Speed record"
    raises("SP-20", speed.replay, {"game": "speed", "players": ["a", "b"], "deals": []})
    raises("SP-20", speed.replay, {"game": "speed", "layout": "pagat", "players": ["a", "b"], "deals": {}})
    assert "deal 1: needs winner and left" in raises(
        "SP-20", speed.replay, {"game": "speed", "layout": "pagat", "players": ["a", "b"], "deals": [{"winner": 0}]})


def test_sp20_to_record_keeps_every_option_and_format():
    r = {"game": "speed", "layout": "classic", "match": {"best_of": 3}, "players": ["a", "b"],
         "deals": [{"winner": 0, "left": 4}], "jokers": True, "doubles": True, "hand_limit": 6,
         "slap_to_win": True}
    assert speed.replay(r).to_record() == r
    r = {"game": "speed", "layout": "pagat", "match": {"single": True}, "players": ["a", "b", "c"],
         "deals": [{"winner": 2, "left": [1, 2, 0]}]}
    assert speed.replay(r).to_record() == r
    r = {"game": "speed", "layout": "pagat", "match": {"target": 25}, "players": ["a", "b"], "deals": []}
    assert speed.replay(r).to_record() == r
    assert speed.replay(dict(r, match=None)).to_record()["match"] == {"target": 25}


def test_sp20_an_add_after_the_end_and_a_bad_winner_name_the_deal():
    m = SpeedMatch(match={"single": True})
    assert "deal 1: winner must be 0 or 1, not -1" in raises("SP-20", m.add_deal, -1, 3)
    raises("SP-20", m.add_deal, True, 3)
    m.add_deal(0, 3)
    assert "deal 2, player 2: the match is already over" in raises("SP-19", m.add_deal, 1, 3)
    d = SpeedDeal()
    assert "deal 2: the deal has no confirmed winner yet" in raises("SP-16", m.add_result, d)


def test_sp19_sp20_sp27_sp35_messages_say_what_is_wrong():
    cases = [
        (lambda: speed.check_seats(5), "SP-27", "players must be 2, 3 or 4, not 5"),
        (lambda: speed.check_options("pagat", doubles=1),
         "SP-20", "doubles must be true or false"),
        (lambda: speed.check_options("pagat", slap_to_win=None), "SP-20", "slap_to_win must be true or false"),
        (lambda: playing().unstuck(5), "SP-1", "player must be 0 or 1, not 5"),
        (lambda: SpeedDeal().unstuck(0), "SP-14", "taking back a stuck call only in the play phase (now ready)"),
        (lambda: playing().rebuild(4), "SP-15",
         "reserves are rebuilt only when a flip is due and they are empty"),
        (lambda: playing().reserves_out(), "SP-15", "only rebuilt reserves of unknown size are declared empty"),
        (lambda: playing().confirm(3), "SP-16", "confirming a claim only in the claim phase (now play)"),
        (lambda: SpeedMatch(match={"colour": 1}), "SP-19",
         'match must be {"single": true}, {"target": N} or {"best_of": N}'),
        (lambda: SpeedMatch(match={"single": False}), "SP-19",
         'match must be {"single": true}, {"target": N} or {"best_of": N}'),
        (lambda: SpeedMatch(match={"target": 1, "best_of": 3}), "SP-19",
         'match must be {"single": true}, {"target": N} or {"best_of": N}'),
        (lambda: SpeedMatch(match={"target": 0}), "SP-19", "target must be a whole number of points >= 1, not 0"),
        (lambda: SpeedMatch(match={"best_of": 4}), "SP-19",
         "best_of must be an odd number of deals (1, 3, 5 ...), not 4"),
        (lambda: SpeedMatch().undo_last(), "SP-20", "no deal to undo"),
        (lambda: speed.replay({"game": "speed", "players": ["a", "b"], "deals": []}), "SP-20",
         "a Speed record needs a layout"),
        (lambda: speed.replay({"game": "speed", "layout": "pagat", "players": ["a", "b"], "deals": 3}), "SP-20",
         "deals must be a list"),
        (lambda: speed.replay({"game": "speed", "layout": "pagat", "players": ["a", "b"], "deals": [{"left": 3}]}),
         "SP-20", "deal 1: needs winner and left"),
        (lambda: speed.replay({"game": "speed", "layout": "pagat", "players": ["a", "b"], "deals": [5]}),
         "SP-20", "deal 1: needs winner and left"),
        (lambda: SpeedMatch().add_deal(0, [0, 3], True),
         "SP-35", "deal 1, left must be a count"),
        (lambda: SpeedMatch(players=["a", "b", "c"]).add_deal(0, 3), "SP-35", "deal 1, left must be 3 counts"),
        (lambda: SpeedMatch(players=["a", "b", "c"]).add_deal(0, [1, 2, 3]), "SP-35",
         "deal 1, player 1: the winner holds 0 cards, not 1"),
        (lambda: SpeedMatch().add_deal(1, 16), "SP-18", "deal 1, player 1: cards left must be 1..15, not 16"),
    ]
    for fn, rule, msg in cases:
        assert raises(rule, fn) == rule + ": " + msg


def test_sp18_a_deals_count_is_checked_where_confirm_says():
    d = playing()
    d.claim_out(1)
    assert raises("SP-18", d.confirm, 0) == "SP-18: player 1: cards left must be 1..15, not 0"
    d3 = playing(3)
    d3.claim_out(2)
    assert raises("SP-35", d3.confirm, 4) == "SP-35: left must be 3 counts"
    d3.confirm([3, 2, 0])
    assert d3.result == (2, (3, 2, 0))
    d.confirm([7, 0])  # two players may give the per-player form: kept as the int
    assert d.result == (1, 7)


def test_sp1_check_options_defaults_are_the_plain_game():
    assert speed.check_options("pagat") is None and speed.check_options("classic") is None
    assert speed.cards_per_player("classic") == 20 and speed.deck_size(2) == 52 and speed.deck_size(4, True) == 108


def test_sp28_sp32_a_rebuild_with_jokers_gathers_up_to_the_jokers_deck():
    d = playing(layout="classic", jokers=True)
    for _ in range(5):
        all_stuck(d)
        d.flip()
    all_stuck(d)
    d.rebuild(50)  # 54 less the two tops and a card in each hand
    assert d.reserve_left == 25
    d = playing(layout="classic", jokers=True)
    for _ in range(5):
        all_stuck(d)
        d.flip()
    all_stuck(d)
    assert "a rebuild gathers 2..50 cards, not 51" in raises("SP-15", d.rebuild, 51)
