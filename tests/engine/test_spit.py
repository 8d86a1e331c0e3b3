"""Spit: table level (engine/spit.py), card level (engine/spit_cards.py), records,
properties and golden playthroughs.  Rule numbers from seeds/spit.md."""
from pathlib import Path

import pytest

import mpyrun
from speedref.engine import cards as C
from speedref.engine import records, spit
from speedref.engine.errors import RuleError
from speedref.engine.rng import Rng
from speedref.engine.spit import SpitGame
from speedref.engine import SIMULTANEOUS, TERMINAL
from speedref.engine.spit_cards import (CHANCE, DEAL, SPIT, State, move_action, play_action,
                                       slap_action, turn_action)



def raises(rule, fn, *a):
    with pytest.raises(RuleError) as e:
        fn(*a)
    assert e.value.rule == rule, str(e.value)
    return str(e.value)


def rec(rounds):
    return {"game": "spit", "players": ["Ann", "Bob"], "rounds": rounds}


# -- table level ---------------------------------------------------------------------
def test_spit1_two_players_26_cards_each():
    g = SpitGame()
    assert g.cards == [26, 26] and g.piles == 2
    raises("SPIT-1", SpitGame, ["a"])
    raises("SPIT-1", g.spit, 2)


def test_spit2_spit3_spit_cards_beyond_the_15_layout_cards():
    assert spit.spit_cards(26) == 11 and spit.spit_cards(16) == 1
    assert spit.spit_cards(15) == 0 and spit.spit_cards(7) == 0


def test_spit4_spit8_both_call_to_start_and_restart():
    g = SpitGame()
    raises("SPIT-9", g.clear, 0)  # nothing before the start
    assert g.spit(0) is False and g.spit(1) is True and g.phase == "play"
    assert g.spit(1) is False and g.spit(0) is True
    assert g.restarts == 1 and g.spits == 2


def test_spit9_spit10_spit12_clear_slap_relayout():
    g = SpitGame()
    g.spit(0), g.spit(1)
    g.clear(1)
    assert g.phase == "slap"
    g.slap(0)
    raises("SPIT-10", g.slap, 1)  # the first slap decides
    raises("SPIT-12", g.relayout, 30, 21)
    raises("SPIT-14", g.relayout, 52, 0)
    g.relayout(30, 22)
    assert g.rounds == [{"cards": [30, 22], "cleared": 1, "slap": 0}]
    assert g.phase == "spit" and g.cards == [30, 22] and g.hands_played == 1


def test_spit11_one_pile_no_slap_and_the_other_takes_it():
    g = records.replay(rec([{"cleared": 0, "slap": 0, "cards": [11, 41]}]))
    assert g.piles == 1  # player 1 has no spit cards
    g.spit(0), g.spit(1)
    g.clear(1)
    assert g.phase == "relayout"
    raises("SPIT-10", g.slap, 0)
    raises("SPIT-11", records.replay, rec([{"cleared": 0, "slap": 0, "cards": [11, 41]},
                                            {"cleared": 1, "slap": 1, "cards": [30, 22]}]))


def test_spit13_blocked_round():
    g = records.replay(rec([{"blocked": True, "cards": [20, 32]}]))
    assert g.rows()[0] == ("round 1", ["blocked", "blocked"], [20, 32]) and g.ended_early
    raises("SPIT-13", records.replay, rec([{"blocked": True, "cleared": 0, "cards": [20, 32]}]))


def test_spit14_the_win_and_nothing_after_it():
    rounds = [{"cleared": 0, "slap": 1, "cards": [11, 41]}, {"cleared": 0, "cards": [0, 52]}]
    g = records.replay(rec(rounds))
    assert g.winner == 0 and g.winners() == [0] and not g.ended_early
    assert g.tiebreak == "got rid of all cards in round 2" and g.totals == [0, 52]
    msg = raises("SPIT-14", records.replay, rec(rounds + [{"blocked": True, "cards": [1, 51]}]))
    assert msg.startswith("SPIT-14: round 3: the game was already won by player 1")
    # a player with no spit cards who clears has no cards: the counts must say so
    msg = raises("SPIT-14", records.replay, rec(rounds[:1] + [{"cleared": 0, "cards": [5, 47]}]))
    assert "round 2, player 1" in msg
    raises("SPIT-14", records.replay, rec([{"cleared": 1, "slap": 0, "cards": [52, 0]}]))


def test_spit14_clear_out_at_the_table():
    """The engine decides the win from its own spit-card count (no `out` flag)."""
    g = SpitGame()
    g.spit(0), g.spit(1)
    for _ in range(10):  # 11 spit cards each: one at the start, ten restarts
        g.spit(0), g.spit(1)
    assert g.spit_left == [0, 0]
    g.clear(0)
    assert g.phase == "over" and g.winner == 0 and g.rounds[-1] == {"cleared": 0, "cards": [0, 52]}


@pytest.mark.parametrize("rounds,fragment", [
    ([{"cleared": 2, "slap": 0, "cards": [26, 26]}], "round 1: cleared must be 0 or 1"),
    ([{"cleared": 0, "cards": [26, 26]}], "round 1: two centre piles need the slap winner"),
    ([{"cleared": 0, "slap": 1, "cards": [26, 25]}], "round 1: the two counts must add up to 52"),
    ([{"cleared": 0, "slap": 1}], "round 1: needs cards"),
])
def test_spit15_invalid_records_name_the_round(rounds, fragment):
    with pytest.raises(RuleError) as e:
        records.replay(rec(rounds))
    assert fragment in str(e.value)


def test_spit15_record_round_trip_and_summary():
    r = rec([{"cleared": 0, "slap": 1, "cards": [20, 32]}, {"cleared": 1, "slap": 1, "cards": [30, 22]}])
    g = records.replay(r)
    assert g.to_record() == r and g.ended_early and g.winners() == [1]
    s = records.summary(r)
    assert s["totals"] == [30, 22] and s["hands_played"] == 2 and s["ended_early"] is True


# -- card level --------------------------------------------------------------------------
def started(seed=5):
    s = State(seed)
    s.apply(CHANCE, DEAL)
    s.apply(0, SPIT, 0)
    assert s.apply(1, SPIT, 0) == "start"
    return s


def setup(s, stocks, centre, spits=(b"", b"")):
    """Stock piles as lists of bytes (top last, every top face up); the rest of the
    deck is parked under the centre piles so check() sees each card once."""
    used = set()
    for p in (0, 1):
        s.stock[p] = [bytearray(x) for x in stocks[p]] + [bytearray() for _ in range(5 - len(stocks[p]))]
        s.up[p] = [bool(x) for x in s.stock[p]]
        s.spit[p] = bytearray(spits[p])
        used.update(b"".join(stocks[p]) + spits[p])
    used.update(centre)
    rest = bytearray(c for c in C.standard_deck() if c not in used)
    s.centre = [rest[:len(rest) // 2] + bytes([centre[0]]), rest[len(rest) // 2:] + bytes([centre[1]])]
    s.active = [True, True]
    s.last = [None, None]
    s.check()
    return s


H = lambda r: C.card(2, r)  # noqa: E731
S = lambda r: C.card(3, r)  # noqa: E731


def test_spit1_spit2_spit16_deal_and_layout():
    s = State(9)
    assert s.legal_actions(0) == [] and s.legal_actions(CHANCE) == [DEAL] and s.phase == "deal"
    assert s.current_player() == CHANCE and s.actors() == [] and not s.is_terminal()
    assert s.apply(CHANCE, DEAL) == "deal"
    assert s.current_player() == SIMULTANEOUS and s.legal_actions(CHANCE) == []
    s.check()
    for p in (0, 1):
        assert [len(x) for x in s.stock[p]] == [1, 2, 3, 4, 5] and len(s.spit[p]) == 11
        assert s.up[p] == [True] * 5
    assert s.legal_actions(0) == [SPIT] and s.phase == "spit"
    raises("SPIT-16", s.apply, CHANCE, DEAL)


def test_spit3_under_15_lays_out_what_it_can():
    s = State(1)
    s._layout(0, bytearray(range(1, 8)))
    assert [len(x) for x in s.stock[0]] == [1, 2, 3, 1, 0] and len(s.spit[0]) == 0
    s._layout(1, bytearray(range(1, 16)))
    assert len(s.spit[1]) == 0


def test_spit5_play_face_up_tops_that_fit():
    s = setup(started(), [[bytes([S(8)]), bytes([S(3)])], [bytes([H(2)])]], [H(7), C.card(0, 12)],
              (bytes([S(5)]), bytes([S(6)])))
    assert play_action(0, 0) in s.legal_actions(0) and play_action(1, 0) not in s.legal_actions(0)
    raises("SPIT-5", s.apply, 0, play_action(1, 0), 10)
    assert s.apply(0, play_action(0, 0), 10) == "play" and s.centre[0][-1] == S(8)


def test_spit6_turn_and_move():
    s = setup(started(), [[bytes([S(1), S(8)]), bytes([S(3)])], [bytes([H(2)])]], [H(11), C.card(0, 11)],
              (bytes([S(5)]), bytes([S(6)])))
    assert move_action(0, 2) in s.legal_actions(0)
    raises("SPIT-8", s.apply, 0, SPIT, 1)  # not stuck while a move is possible
    raises("SPIT-6", s.apply, 0, move_action(1, 2), 1)  # would leave nothing behind
    raises("SPIT-6", s.apply, 0, turn_action(0), 1)  # already face up
    assert s.apply(0, move_action(0, 2), 1) == "move"
    assert s.stock[0][2] == bytes([S(8)]) and not s.up[0][0]
    assert s.apply(0, turn_action(0), 2) == "turn" and s.up[0][0]


def test_spit7_same_instant_play_goes_back():
    s = setup(started(), [[bytes([S(8)]), bytes([S(2)])], [bytes([H(6)]), bytes([H(1)])]],
              [H(7), C.card(0, 12)], (bytes([S(5)]), bytes([S(6)])))
    s.apply(0, play_action(0, 0), 500000)
    assert s.apply(1, play_action(0, 0), 500001) == "race"
    assert s.stock[1][0] == bytes([H(6)]) and s.centre[0][-1] == S(8)
    raises("SPIT-7", s.apply, 1, SPIT, 400000)


def test_spit8_spit_again_when_stuck_and_one_spitter_feeds_both():
    s = setup(started(), [[bytes([S(10)])], [bytes([H(4)])]], [H(7), C.card(0, 12)],
              (bytes([S(1), S(5)]), b""))
    assert s.legal_actions(0) == [SPIT] and s.legal_actions(1) == [SPIT]
    s.apply(0, SPIT, 1)
    assert s.apply(1, SPIT, 2) == "restart"
    assert s.centre[0][-1] == S(5) and s.centre[1][-1] == S(1) and s.spit[0] == b""


def test_spit13_blocked_when_nobody_has_spit_cards():
    s = setup(started(), [[bytes([S(10)])], [bytes([H(4)])]], [H(7), C.card(0, 12)])
    n0, n1 = len(s.centre[0]), len(s.centre[1])
    s.apply(0, SPIT, 1)
    assert s.apply(1, SPIT, 2) == "blocked"
    assert s.rounds[-1] == {"blocked": True, "cards": [n0 + 1, n1 + 1]}
    assert s.phase == "spit"
    s.check()


def test_spit9_spit10_clearing_then_the_slap():
    s = setup(started(), [[bytes([S(8)])], [bytes([H(4)]), bytes([H(5)])]], [H(7), C.card(0, 12)],
              (bytes([S(5)]), bytes([S(6)])))
    s.apply(0, play_action(0, 0), 10)
    assert s.phase == "slap" and s.cleared == 0
    assert s.legal_actions(1) == [slap_action(0), slap_action(1)]
    small = 0 if len(s.centre[0]) < len(s.centre[1]) else 1
    s.apply(1, slap_action(small), 20)
    size = len(s.centre[small])
    assert s.apply(0, slap_action(small), 30) == "round"
    # player 2 slapped first and took the pile they slapped; player 1 the other
    assert s.rounds[-1]["slap"] == 1 and s.rounds[-1]["cards"][1] == size + 2 + 1
    s.check()


def test_spit10_exact_tie_goes_to_the_player_who_cleared():
    s = setup(started(), [[bytes([S(8)])], [bytes([H(4)])]], [H(7), C.card(0, 12)],
              (bytes([S(5)]), bytes([S(6)])))
    s.apply(0, play_action(0, 0), 10)
    s.apply(1, slap_action(0), 20)
    s.apply(0, slap_action(0), 20)
    assert s.rounds[-1]["slap"] == 0


def test_spit11_one_pile_the_other_player_takes_it():
    s = setup(started(), [[bytes([S(8)])], [bytes([H(4)])]], [H(7), C.card(0, 12)],
              (bytes([S(5)]), b""))
    s.active = [True, False]
    s.centre[0] = s.centre[1] + s.centre[0]
    s.centre[1] = bytearray()
    pile = len(s.centre[0]) + 1
    assert s.apply(0, play_action(0, 0), 10) == "round"
    assert s.rounds[-1] == {"cleared": 0, "cards": [1, pile + 1]}


def test_spit14_clearing_without_spit_cards_wins():
    s = setup(started(), [[bytes([S(8)])], [bytes([H(4)])]], [H(7), C.card(0, 12)], (b"", bytes([S(6)])))
    assert s.apply(0, play_action(0, 0), 10) == "out"
    assert s.winner == 0 and s.phase == "over" and s.rounds[-1] == {"cleared": 0, "cards": [0, 52]}
    s.check()
    assert s.actors() == [] and s.is_terminal() and s.current_player() == TERMINAL


# -- the table level keeps every rule of a round (spit cards, restarts, the win, the slap) --
def game_at(a, b):
    """A SpitGame whose next round starts with counts [a, b] (via a replayed record)."""
    return records.replay(rec([{"cleared": 0, "slap": 1, "cards": [a, b]}]))


def test_spit2_spit4_spit8_spit_left_counts_one_per_spit():
    g = SpitGame()
    assert g.spit_left == [11, 11] and g.can_spit()
    g.spit(0)
    assert g.spit_left == [11, 11]  # nothing turns until both have called
    g.spit(1)
    assert g.spit_left == [10, 10]
    g.spit(1), g.spit(0)
    assert g.spit_left == [9, 9] and g.restarts == 1


def test_spit8_a_lone_spitter_turns_one_onto_each_pile():
    g = game_at(18, 34)  # 3 and 19 spit cards, two piles
    g.spit(0), g.spit(1)
    g.spit(0), g.spit(1)
    g.spit(0), g.spit(1)
    assert g.spit_left == [0, 16] and g.piles == 2
    g.spit(0), g.spit(1)  # only player 2 has spit cards: one onto each of the two piles
    assert g.spit_left == [0, 14]
    for _ in range(7):
        g.spit(0), g.spit(1)
    assert g.spit_left == [0, 0] and not g.can_spit() and g.restarts == 10


def test_spit8_spit11_with_one_pile_a_restart_turns_one_card():
    g = game_at(11, 41)  # player 1 has no spit cards: one centre pile
    assert g.piles == 1 and g.spit_left == [0, 26]
    g.spit(0), g.spit(1)
    assert g.spit_left == [0, 25]
    g.spit(0), g.spit(1)
    assert g.spit_left == [0, 24]


def test_spit8_spit13_blocked_only_when_nobody_can_spit_state_unchanged():
    g = SpitGame()
    g.spit(0), g.spit(1)
    msg = raises("SPIT-8", g.block)
    assert "still has spit cards" in msg and g.phase == "play" and not g.blocked
    for _ in range(10):
        g.spit(0), g.spit(1)
    assert not g.can_spit()
    raises("SPIT-13", g.spit, 0)  # no restart to call: the round is blocked
    assert g.spits == 11 and g.spit_left == [0, 0] and g.phase == "play"
    g.block()
    assert g.phase == "relayout" and g.blocked and g.taker() is None  # each takes their own


def test_spit14_the_engine_decides_whether_clearing_is_the_win():
    g = game_at(17, 35)  # 2 and 20 spit cards
    g.spit(0), g.spit(1)
    assert g.spit_left == [1, 19]
    g.clear(0)  # a spit card left: not the win, the slap
    assert g.phase == "slap" and g.winner is None
    g = game_at(17, 35)
    g.spit(0), g.spit(1)
    g.spit(0), g.spit(1)  # the last spit card went up
    g.clear(0)
    assert g.phase == "over" and g.winner == 0 and g.rounds[-1] == {"cleared": 0, "cards": [0, 52]}
    g = game_at(12, 40)  # no spit cards at all (SPIT-3)
    g.spit(0), g.spit(1)
    g.clear(0)
    assert g.winner == 0


def test_spit14_spit15_replay_refuses_a_clearing_after_the_last_spit_card_that_is_not_the_win():
    # 16 cards: one spit card, turned at the start; clearing is then going out
    rounds = [{"cleared": 0, "slap": 1, "cards": [16, 36]}, {"cleared": 0, "slap": 0, "cards": [20, 32]}]
    msg = raises("SPIT-14", records.replay, rec(rounds))
    assert "round 2, player 1: had no spit cards left" in msg
    # the same clearing as the win replays (no restart needed)
    g = records.replay(rec(rounds[:1] + [{"cleared": 0, "cards": [0, 52]}]))
    assert g.winner == 0 and g.restarts == 0
    # a win by a player who still had spit cards: replay restarts until they had none
    g = records.replay(rec([{"cleared": 1, "cards": [52, 0]}]))
    assert g.winner == 1 and g.restarts == 10


def test_spit10_a_tie_goes_to_the_player_who_cleared():
    g = SpitGame()
    g.spit(0), g.spit(1)
    g.clear(1)
    assert g.slap(None) == 1 and g.slap_winner == 1 and g.taker() == 1
    g.relayout(30, 22)
    assert g.rounds[-1] == {"cleared": 1, "slap": 1, "cards": [30, 22]}


def test_spit11_spit13_who_takes_the_pile():
    g = game_at(11, 41)
    g.spit(0), g.spit(1)
    g.clear(1)
    assert g.taker() == 0  # SPIT-11: the player who did not clear
    g = game_at(11, 41)
    g.spit(0), g.spit(1)
    while g.can_spit():
        g.spit(0), g.spit(1)
    g.block()
    assert g.taker() == 1  # SPIT-13: the one pile goes to the player who started it
    assert SpitGame().taker() is None  # nothing to take before the round ends


def test_spit12_spit14_relayout_counts_are_1_to_51():
    assert spit.relayout_ok(1) and spit.relayout_ok(51) and spit.relayout_ok(26)
    assert not spit.relayout_ok(0) and not spit.relayout_ok(52)


def _ended(g, how):
    """End g's round `how`: "slap" (player 1 clears, player 2 takes the smaller
    pile), "one pile" (the player with spit cards clears) or "blocked"."""
    g.spit(0), g.spit(1)
    if how == "blocked":
        while g.can_spit():
            g.spit(0), g.spit(1)
        g.block()
    elif how == "slap":
        g.clear(0)
        g.slap(1)
    else:
        g.clear(0 if g.spit_left[0] else 1)
    assert g.phase == "relayout"
    return g


@pytest.mark.parametrize("how,start,lo,hi", [
    # two piles cleared from 26 each (11 spit cards): the clearer's spit cards
    # left and either pile make at least 11; the other keeps a stock card and
    # their spit cards left and pile make at least 11 too
    ("slap", None, 11, 40),
    # player 1 had 17 cards (2 spit cards): at least 2; player 2 had 35
    ("slap", (17, 35), 2, 31),
    # player 1 had 36 (21 spit cards): once player 2's one spit card is up,
    # player 1 turns one onto each pile, so 12
    ("slap", (36, 16), 12, 50),
    # blocked with two piles: the 22 spit cards went 11 onto each pile, and
    # each player still has a stock card
    ("blocked", None, 12, 40),
    # one pile, player 2 (41 cards, 26 spit cards) cleared: player 1 takes
    # the pile, with player 2's 15 stock cards and the first spit card in it
    ("one pile", (11, 41), 27, 51),
    # blocked with one pile: player 2 started it and takes it; player 1 keeps
    # only stock cards, at most the 11 they had
    ("blocked", (11, 41), 1, 11),
])
def test_spit22_counts_a_round_can_leave(how, start, lo, hi):
    """SPIT-22: the relayout counts the engine takes are those the round can
    leave: player 1's bounds after each kind of round, and every count
    outside them is refused, naming the round, the player and the least or
    most they can hold; nothing changes."""
    g = _ended(SpitGame() if start is None else game_at(*start), how)
    assert g.count_range() == (lo, hi), how
    for bad in (lo - 1, hi + 1):
        if 0 < bad < 52:
            msg = raises("SPIT-22", g.relayout, bad, 52 - bad)
            assert "round %d, player" % (g.hands_played + 1) in msg and g.phase == "relayout", msg
    g.relayout(lo, 52 - lo)
    assert g.rounds[-1]["cards"] == [lo, 52 - lo]


def test_spit22_a_record_with_counts_no_round_leaves_is_invalid():
    """SPIT-22: after a two-pile clearing neither player can hold 1 card (the
    other still holds a stock card and a centre pile), so [1, 51] and [51, 1]
    are refused in a record; from 26 each, [11, 41] is a round."""
    for cards in ([1, 51], [51, 1], [10, 42]):
        msg = raises("SPIT-22", records.replay, rec([{"cleared": 0, "slap": 1, "cards": cards}]))
        assert msg.startswith("SPIT-22: round 1, player"), msg
    assert records.replay(rec([{"cleared": 0, "slap": 1, "cards": [11, 41]}])).cards == [11, 41]
    # one pile: player 2 held 41 and cleared, so player 1 holds at least 11 + 16
    one = [{"cleared": 0, "slap": 1, "cards": [11, 41]}]
    raises("SPIT-22", records.replay, rec(one + [{"cleared": 1, "cards": [26, 26]}]))
    assert records.replay(rec(one + [{"cleared": 1, "cards": [27, 25]}])).cards == [27, 25]


def test_spit17_the_slaps_go_is_one_second_after_the_clearing_across_the_wrap():
    g = SpitGame()
    raises("SPIT-17", g.arm_slap, 0)  # no slap to arm
    g.spit(0), g.spit(1)
    t = (1 << 30) - 300000  # 0.3 s before the 32-bit board's tick wrap
    g.clear(0, t)
    assert spit.SLAP_GO_US == 1000000 and g.slap_go == 700000
    assert g.arm_slap(5) == 1000005 and g.slap_go == 1000005


def test_spit18_a_slap_before_go_is_a_false_start_and_go_comes_again():
    g = SpitGame()
    g.spit(0), g.spit(1)
    g.clear(0, 1000)
    go = g.slap_go
    assert go == 1001000
    raises("SPIT-18", g.slap, 1, go - 1)  # before GO: refused, nothing changes
    assert g.phase == "slap" and g.slap_winner is None
    assert g.false_start(1, go - 400000) == 400000
    assert g.slap_go == go - 400000 + 1000000  # a fresh second from the false start
    raises("SPIT-18", g.false_start, 0, g.slap_go)  # at GO a slap counts
    assert g.slap(0, g.slap_go) == 0 and g.phase == "relayout"
    raises("SPIT-18", SpitGame().false_start, 0, 0)  # no slap phase: named, refused


def _in_range(g, s):
    # SPIT-22: what the cards left, the table level's bounds allow
    lo, hi = g.count_range()
    assert lo <= s.rounds[-1]["cards"][0] <= hi, (s.rounds[-1], g.cards, lo, hi)


def _mirror(seed, steps, seen):
    """Play a seeded card-level game (random legal actions) and mirror its
    calls, clearings, slaps and relayouts into a table-level SpitGame."""
    rng = Rng(seed)
    s = State(seed)
    s.apply(CHANCE, DEAL)
    g = SpitGame()
    t = 0
    for _ in range(steps):
        actors = s.actors()
        if not actors:
            break
        p = actors[rng.below(len(actors))]
        acts = s.legal_actions(p)
        # prefer playing cards so rounds end by clearing as well as by blocking
        a = acts[0] if rng.below(4) else acts[rng.below(len(acts))]
        t += 1 + rng.below(300000)
        before = s.phase
        tag = s.apply(p, a, t)
        if tag in ("start", "restart"):
            g.spit(0), g.spit(1)
        elif tag == "blocked":
            assert not g.can_spit()
            g.block()
            _in_range(g, s)
            g.relayout(*s.rounds[-1]["cards"])
        elif tag == "out":
            g.clear(p)
            assert g.phase == "over" and g.winner == s.winner
        elif before == "play" and s.phase == "slap":
            g.clear(p)
            assert g.phase == "slap"
            tag = "clear"
        elif tag == "round" and before == "play":
            g.clear(p)
            assert g.phase == "relayout" and g.taker() == 1 - p
            tag = "one pile"
            _in_range(g, s)
            g.relayout(*s.rounds[-1]["cards"])
        elif tag == "round":
            g.slap(s.rounds[-1]["slap"])
            _in_range(g, s)
            g.relayout(*s.rounds[-1]["cards"])
        seen.add(tag)
        if s.phase in ("spit", "play"):
            assert g.phase == s.phase
            assert g.spit_left == [len(s.spit[0]), len(s.spit[1])], (seed, t)
            assert g.piles == s.active.count(True)
            if s.phase == "spit":
                assert g.cards == [s.count(0), s.count(1)]
            if s.phase == "play":
                assert g.can_spit() == bool(s.spit[0] or s.spit[1])
    assert g.rounds == s.rounds


def test_spit4_spit8_spit13_spit14_table_level_agrees_with_the_card_level_game():
    """One set of rules: every seeded card-level game, mirrored call by call,
    has the table level's spit cards, piles, restarts, blocked rounds and
    wins equal to the real cards'."""
    seen = set()
    for seed in range(1, 41):
        _mirror(seed, 6000, seen)
    assert {"start", "restart", "blocked", "clear", "round", "one pile", "out"} <= seen, seen


ENGINE_WALK = """
import json
from speedref.engine import spit
from speedref.engine.errors import RuleError
out = []
g = spit.replay({"game": "spit", "players": ["A", "B"],
                 "rounds": [{"cleared": 0, "slap": 1, "cards": [18, 34]}]})
out.append([g.piles, list(g.spit_left)])
g.spit(0); g.spit(1)
while g.can_spit():
    g.spit(0); g.spit(1)
    out.append(list(g.spit_left))
try:
    g.spit(0)
except RuleError as e:
    out.append(e.rule)
g.block()
out.append([g.taker(), g.phase])
g.relayout(20, 32)
g.spit(1); g.spit(0)
g.clear(1, 5000000)
out.append(g.slap_go)
out.append(g.false_start(0, 5500000))
out.append(g.slap_go)
try:
    g.slap(1, 6400000)
except RuleError as e:
    out.append(e.rule)
out.append(g.slap(None, 6500000))
g.relayout(17, 35)
g.spit(0); g.spit(1); g.spit(0); g.spit(1)
g.clear(0)
out.append([g.winner, g.phase, g.to_record()["rounds"]])
print(json.dumps(out))
"""


def test_spit8_spit13_spit14_spit17_spit18_engine_same_on_micropython():
    """The table-level rules give the same answers on the MicroPython Unix
    port (.mpy, 64wK) as on CPython.  (The port's ticks wrap at 2**62 on this
    host, so the wrap itself is tested on CPython, in the SPIT-17 test.)"""
    import json
    import subprocess
    import sys
    mp = json.loads(mpyrun.run(code=ENGINE_WALK, heap="64wK").stdout.strip().splitlines()[-1])
    cp = subprocess.run([sys.executable, "-c", ENGINE_WALK], capture_output=True, text=True,
                        env={"PYTHONPATH": str(Path(__file__).resolve().parents[2] / "firmware")}, check=True)
    assert mp == json.loads(cp.stdout)
    assert mp[0] == [2, [3, 19]] and mp[1:4] == [[1, 17], [0, 16], [0, 14]]
    assert mp[10:13] == [[0, 0], "SPIT-13", [None, "relayout"]]
    assert mp[13:18] == [6000000, 500000, 6500000, "SPIT-18", 1]
    assert mp[18][:2] == [0, "over"] and mp[18][2][-1] == {"cleared": 0, "cards": [0, 52]}
