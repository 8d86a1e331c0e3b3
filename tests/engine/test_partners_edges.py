"""partners at the table level (engine/partners.py): the edges of each rule,
where a seat off by one or a wrong error type would still pass the everyday
tests.  Rule numbers from seeds/partners.md."""
import pytest

from speedref.engine import partners
from speedref.engine.errors import RuleError
from speedref.engine.partners import PartnersGame, hand_scores

NAMES = ["Ann", "Bo", "Cy", "Di"]


def raises(rule, fn, *a, **kw):
    with pytest.raises(RuleError) as e:
        fn(*a, **kw)
    assert e.value.rule == rule, str(e.value)
    return str(e.value)


def hand(g, bid, trump, contractor, partner, tricks):
    g.set_contract(bid, trump, contractor, partner)
    for p in range(4):
        for _ in range(tricks[p]):
            g.trick(p)
    return g.finish_hand()


def test_pt1_trick_at_seat_is_0_to_3_and_credits_who_sits_there():
    g = PartnersGame(100, NAMES)
    g.set_contract(8, "hearts", 0, 1)  # Bo moves opposite Ann: seats [0, 2, 1, 3]
    assert list(g.seats) == [0, 2, 1, 3]
    for bad in (-1, 4, True, None, 1.0):
        assert "a seat is 0..3" in raises("PT-1", g.trick_at_seat, bad)
    assert g.tricks_played == 0 and g.tricks == [0, 0, 0, 0]
    g.trick_at_seat(1)
    g.trick_at_seat(3)
    g.trick_at_seat(2)
    assert g.tricks == [0, 1, 1, 1] and bytes(g.winners_seq) == bytes([2, 3, 1])
    raises("PT-1", g.seat_of, 4)


def test_pt8_an_out_of_range_partner_is_a_rule_error():
    g = PartnersGame(100, NAMES)
    for bad in (-1, 4, True, None, "1"):
        msg = raises("PT-8", g.set_contract, 8, "hearts", 0, bad)
        assert msg.startswith("PT-8: player 1 (Ann): the partner must be a player index 0..3")
    for bad in (-1, 4, False):
        assert "the contractor must be" in raises("PT-7", g.set_contract, 8, "hearts", bad, 1)
    assert g.contract is None and list(g.seats) == [0, 1, 2, 3]


def test_pt7_a_hand_already_has_a_contract():
    g = PartnersGame(100, NAMES)
    g.set_contract(9, "spades", 2, 0)
    assert "player 2 (Bo): this hand already has a contract" in raises(
        "PT-7", g.set_contract, 9, "notrump", 1, 3)
    assert g.contract == (9, "spades", 2, 0)


def test_pt3_the_dealer_is_a_player_0_to_3():
    for bad in (4, -1, True, "0"):
        raises("PT-3", PartnersGame, 100, NAMES, bad)
    assert PartnersGame(100, NAMES, 3).dealer == 3
    r = {"game": "partners", "target": 100, "players": NAMES,
         "hands": [{"dealer": 4, "contractor": 0, "partner": 2, "bid": 7, "trump": "clubs",
                    "tricks": [4, 3, 3, 3]}]}
    assert "hand 1, the dealer must be" in raises("PT-3", partners.replay, r)
    r["hands"][0]["dealer"] = 3
    raises("PT-24", partners.replay, r)
    r["hands"][0]["dealer"] = 0
    assert partners.replay(r).dealer == 0


def test_pt21_replay_refuses_another_games_record():
    for r in ({"game": "speed", "target": 100, "players": NAMES, "hands": []}, [], None,
              {"target": 100, "players": NAMES, "hands": []}):
        assert raises("PT-21", partners.replay, r) == "PT-21: not a partners record"
    raises("PT-21", partners.replay, {"game": "partners", "target": 100, "players": NAMES, "hands": {}})
    assert "a hand is a JSON object" in raises(
        "PT-21", partners.replay, {"game": "partners", "target": 100, "players": NAMES, "hands": [3]})


def test_pt1_pt18_pt21_game_setup_checks():
    raises("PT-18", PartnersGame, 0, NAMES)
    raises("PT-18", PartnersGame, True, NAMES)
    assert PartnersGame(1, NAMES).target == 1
    raises("PT-1", PartnersGame, 100, NAMES[:3])
    raises("PT-1", PartnersGame, 100, "abcd")
    raises("PT-21", PartnersGame, 100, ["a", "", "c", "d"])
    raises("PT-21", PartnersGame, 100, ["a", 2, "c", "d"])


def test_pt14_pt15_pt16_the_edges_of_made_failed_and_doubled():
    # made exactly: side == bid
    assert hand_scores(8, 0, 2, [5, 2, 3, 3]) == ([13, 2, 11, 3], False)
    # one short: failed, defenders bid + tricks squared
    assert hand_scores(9, 0, 2, [5, 2, 3, 3]) == ([0, 13, 0, 18], False)
    # a score of 19 is not doubled, 20 is: made ...
    assert hand_scores(8, 0, 2, [11, 1, 1, 0]) == ([19, 1, 9, 0], False)
    assert hand_scores(9, 0, 2, [11, 1, 1, 0]) == ([40, 2, 20, 0], True)
    assert hand_scores(10, 1, 3, [0, 9, 1, 3]) == ([0, 19, 1, 13], False)
    # ... and failed
    assert hand_scores(10, 0, 2, [4, 3, 5, 1]) == ([0, 19, 0, 11], False)
    assert hand_scores(11, 0, 2, [5, 3, 5, 0]) == ([0, 40, 0, 22], True)
    # all 13 to the contract side doubles even with small scores
    assert hand_scores(7, 1, 3, [0, 6, 0, 7]) == ([0, 26, 0, 28], True)


def test_pt13_pt10_tricks_before_and_after_the_thirteen():
    g = PartnersGame(100, NAMES)
    raises("PT-11", g.trick, 0)
    raises("PT-11", g.finish_hand)
    g.set_contract(8, "hearts", 0, 2)
    for bad in (-1, 4, True):
        raises("PT-13", g.trick, bad)
    for _ in range(12):
        g.trick(0)
    assert g.phase == "play"
    assert "the tricks add up to 12, not 13" in raises("PT-13", g.finish_hand)
    g.trick(3)
    assert g.phase == "score"
    assert "a hand has only 13 tricks" in raises("PT-10", g.trick, 1)


def test_pt18_pt19_pt20_tiebreak_texts():
    g = PartnersGame(30, NAMES)
    assert g.tiebreak == "stopped before the target: shared by the highest total 0 (PT-20)"
    assert g.winners() == [0, 1, 2, 3]
    hand(g, 8, "hearts", 0, 2, [5, 2, 3, 3])  # 13 2 11 3
    assert g.tiebreak == "stopped before the target: highest total 13 (PT-20)" and g.winners() == [0]
    hand(g, 8, "hearts", 0, 2, [5, 2, 3, 3])  # 26 4 22 6
    hand(g, 8, "spades", 0, 2, [1, 4, 7, 1])  # 9 4 15 1
    assert g.totals == [35, 8, 37, 7] and g.over and g.phase == "over" and g.winners() == [2]
    assert g.tiebreak == "highest total: Cy with 37 (target 30)"
    raises("PT-18", g.set_contract, 8, "hearts", 0, 2)
    g = PartnersGame(20, NAMES)
    hand(g, 8, "hearts", 0, 2, [3, 2, 5, 3])  # 11 2 13 3
    hand(g, 8, "hearts", 0, 2, [5, 2, 3, 3])  # 13 2 11 3
    assert g.totals == [24, 4, 24, 6] and not g.over and g.winners() == [0, 2]
    assert g.tiebreak == "tied at 24 at the top past the target: play on until one leads (PT-19)"


def test_pt21_rows_say_made_failed_and_doubled():
    g = PartnersGame(500, NAMES)
    hand(g, 8, "hearts", 1, 3, [2, 5, 3, 3])
    hand(g, 9, "notrump", 1, 3, [2, 4, 3, 4])
    hand(g, 7, "clubs", 1, 3, [0, 6, 0, 7])
    rows = g.rows()
    assert rows[0] == ("1. Ann deals; Bo bids 8 hearts with Di: made",
                       ["2 (2 tr)", "13 (5 tr)", "3 (3 tr)", "11 (3 tr)"], [2, 13, 3, 11])
    assert rows[1][0] == "2. Bo deals; Bo bids 9 notrump with Di: failed"
    assert rows[1][1] == ["13 (2 tr)", "0 (4 tr)", "18 (3 tr)", "0 (4 tr)"]
    assert rows[2][0] == "3. Bo deals; Bo bids 7 clubs with Di: made, doubled"
    assert rows[2][2] == [15, 13 + 26, 21, 11 + 28]


def test_pt8_pt9_undo_of_a_hand_puts_back_its_contract_seats_and_tricks():
    g = PartnersGame(100, NAMES)
    hand(g, 8, "hearts", 0, 1, [5, 3, 2, 3])
    assert list(g.seats) == [0, 2, 1, 3] and g.dealer == 0 and g.hands_played == 1
    assert g.undo() == "hand"
    assert g.contract == (8, "hearts", 0, 1) and g.tricks == [5, 3, 2, 3] and g.tricks_played == 13
    assert g.totals == [0, 0, 0, 0] and g.phase == "score" and g.last_hand() is None
    assert g.undo() == "trick" and g.tricks == [5, 3, 2, 2] and g.tricks_played == 12
    for _ in range(12):
        g.undo()
    assert g.undo() == "contract" and list(g.seats) == [0, 1, 2, 3] and g.contract is None
    raises("PT-18", g.undo)


def test_pt24_contract_possible():
    g = PartnersGame(100, NAMES, dealer=2)
    assert g.contract_possible(7, "hearts", 2) and g.contract_possible(7, "notrump", 0)
    assert g.contract_possible(8, "hearts", 0) and not g.contract_possible(7, "hearts", 0)
    assert "only the dealer, player 3 (Cy), can win the auction at 7 hearts" in raises(
        "PT-24", g.set_contract, 7, "hearts", 0, 2)


def test_pt22_messages_name_the_hand_the_player_and_what_is_wrong():
    g = PartnersGame(100, NAMES)
    assert raises("PT-11", g.trick, 0) == "PT-11: enter the contract before the tricks"
    g.set_contract(8, "hearts", 0, 2)
    assert raises("PT-13", g.trick, 4) == \
        "PT-13: the trick winner must be a player index 0..3 (players 1..4), not 4"
    assert raises("PT-1", g.trick_at_seat, 4) == "PT-1: a seat is 0..3 (pads 1..4), not 4"
    assert raises("PT-1", g.seat_of, 7) == "PT-1: no player 7 at the table"
    assert raises("PT-3", PartnersGame, 100, NAMES, 4) == "PT-3: the dealer must be a player index 0..3"
    assert raises("PT-24", PartnersGame(100, NAMES).set_contract, 7, "clubs", 1, 3) == (
        "PT-24: player 2 (Bo): only the dealer, player 1 (Ann), can win the auction at 7 clubs: the "
        "dealer opens at 7 or more and a later bid must be bigger (7 notrump or 8+)")
    hand = {"dealer": 0, "contractor": 0, "partner": 2, "bid": 8, "trump": "hearts", "tricks": [4, 3, 3, 3]}
    rec = {"game": "partners", "target": 100, "players": NAMES, "hands": [hand]}
    for key in ("dealer", "contractor", "partner", "bid", "trump", "tricks"):
        h = dict(hand)
        del h[key]
        assert raises("PT-21", partners.replay, dict(rec, hands=[h])) == "PT-21: hand 1, the hand has no %r" % key
    assert raises("PT-7", partners.replay, dict(rec, hands=[dict(hand, contractor=5)])) == (
        "PT-7: hand 1, the contractor must be a player index 0..3 (players 1..4), not 5")
    assert raises("PT-3", partners.replay, dict(rec, hands=[dict(hand, dealer=-1)])) == (
        "PT-3: hand 1, the dealer must be a player index 0..3 (players 1..4), not -1")
    assert raises("PT-21", partners.replay, dict(rec, hands=[dict(hand, tricks=[4, 3, 6])])) == (
        "PT-21: hand 1, player 1 (Ann): tricks must be a list of 4 counts")
    assert raises("PT-13", partners.replay, dict(rec, hands=[dict(hand, tricks=[4, 3, 3, -1])])) == (
        "PT-13: hand 1, player 4 (Di): -1 is not a trick count")
    assert raises("PT-13", partners.replay, dict(rec, hands=[dict(hand, tricks=[4, 3, 3, 4])])) == (
        "PT-13: hand 1, player 1 (Ann): the tricks add up to 14, not 13")
    assert raises("PT-17", partners.replay, dict(rec, hands=[hand, dict(hand, dealer=1)])) == (
        "PT-17: hand 2, player 2 (Bo) deals, but the previous contractor player 1 (Ann) must deal")
    made = dict(hand, tricks=[5, 2, 3, 3])  # 13 2 11 3: over at a target of 10
    assert raises("PT-18", partners.replay, dict(rec, target=10, hands=[made, made])) == (
        "PT-18: hand 2, player 1 (Ann) deals a hand after the game is over")


def test_pt18_pt21_undo_and_replay_refusals_say_why():
    """PT-18: nothing to undo in a new game; an undone contract leaves no
    exchange behind (None: the simulator asks `is None`).  PT-21: the words
    of a record without hands, and of a hand that is no object."""
    g = PartnersGame(100, NAMES)
    assert raises("PT-18", g.undo) == "PT-18: nothing to undo"
    g.set_contract(8, "hearts", 0, 2)
    assert g.undo() == "contract" and g.swap is None
    rec = {"game": "partners", "target": 100, "players": NAMES}
    assert raises("PT-21", partners.replay, rec) == "PT-21: the record has no list of hands"
    rec["hands"] = [7]
    assert raises("PT-21", partners.replay, rec) == "PT-21: hand 1, a hand is a JSON object"
