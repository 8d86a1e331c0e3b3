"""Speed at the card level (engine/speed_cards.py), rule by rule (seeds/speed.md),
plus hypothesis properties and the golden playthroughs on both runtimes."""

import pytest

from speedref.engine import cards as C
from speedref.engine.errors import RuleError
from speedref.engine import SIMULTANEOUS, TERMINAL
from speedref.engine.speed_cards import (CHANCE, DEAL, DRAW, READY, SLAP, STUCK, RACE_US, State, fits,
                                        play_action)

H = lambda r: C.card(2, r)  # hearts  # noqa: E731
S = lambda r: C.card(3, r)  # spades  # noqa: E731
JK = C.JOKER


def playing(**kw):
    s = State(7, **kw)
    s.apply(CHANCE, DEAL)
    s.apply(0, READY, 0)
    s.apply(1, READY, 0)
    return s


def setup(s, hands, piles, stocks=(b"", b""), reserves=None):
    """Put chosen cards in place; the rest of the deck goes to the reserves so
    check() still sees every card exactly once."""
    s.hands = [bytearray(h) for h in hands]
    s.stocks = [bytearray(x) for x in stocks]
    s.piles = [bytearray(p) for p in piles]
    used = set(b"".join(list(hands) + list(piles) + list(stocks)))
    rest = bytearray(c for c in C.standard_deck(2 if s.jokers else 0) if c not in used)
    if reserves is None:
        reserves = (rest[:len(rest) // 2], rest[len(rest) // 2:])
    else:
        s.piles[0] = bytearray(s.piles[0][:-1]) + rest + s.piles[0][-1:]  # park the rest under pile 1
    s.reserves = [bytearray(r) for r in reserves]
    s.check()
    return s


def raises(rule, s, *a):
    before = (bytes(s.hands[0]), bytes(s.hands[1]), bytes(s.piles[0]), bytes(s.piles[1]),
              bytes(s.stocks[0]), bytes(s.stocks[1]), list(s.stuck), s.phase, s.t)
    with pytest.raises(RuleError) as e:
        s.apply(*a)
    assert e.value.rule == rule, str(e.value)
    after = (bytes(s.hands[0]), bytes(s.hands[1]), bytes(s.piles[0]), bytes(s.piles[1]),
             bytes(s.stocks[0]), bytes(s.stocks[1]), list(s.stuck), s.phase, s.t)
    assert before == after  # illegal actions leave the state unchanged


@pytest.mark.parametrize("layout,jokers,stock,reserve", [
    ("pagat", False, 10, 10), ("classic", False, 15, 5), ("classic", True, 16, 5)])
def test_sp2_sp3_sp4_the_deal_places_every_card(layout, jokers, stock, reserve):
    s = State(3, layout=layout, jokers=jokers)
    assert s.phase == "deal" and s.legal_actions(0) == [] and s.legal_actions(CHANCE) == [DEAL]
    assert s.current_player() == CHANCE and s.actors() == [] and not s.is_terminal()
    assert s.apply(CHANCE, DEAL) == "deal"
    assert s.current_player() == SIMULTANEOUS and s.legal_actions(CHANCE) == []
    s.check()
    assert [len(h) for h in s.hands] == [5, 5] and [len(x) for x in s.stocks] == [stock, stock]
    assert [len(r) for r in s.reserves] == [reserve, reserve] and len(s.start) == 2
    with pytest.raises(RuleError) as e:
        s.apply(CHANCE, DEAL)
    assert e.value.rule == "SP-21"


def test_sp6_nothing_but_ready_until_both_start_cards_are_up():
    s = State(1)
    s.apply(CHANCE, DEAL)
    assert s.legal_actions(0) == [READY]
    raises("SP-6", s, 0, DRAW, 5)
    assert s.apply(1, READY, 10) == "ready" and s.legal_actions(1) == []
    raises("SP-6", s, 1, READY, 11)
    assert s.apply(0, READY, 12) == "start" and s.phase == "play"
    assert s.piles == [s.start[0:1], s.start[1:2]]


def test_sp7_round_the_corner_and_suits_ignored():
    assert fits(S(1), H(13)) and fits(S(13), H(1)) and fits(S(2), H(1)) and fits(S(1), H(2))
    assert not fits(S(3), H(1)) and not fits(S(7), H(7)) and not fits(H(9), H(7))
    s = setup(playing(), [bytes([S(8), S(3)]), bytes([H(4)])], [bytes([H(7)]), bytes([C.card(0, 12)])])
    assert play_action(0, S(8)) in s.legal_actions(0)
    raises("SP-7", s, 0, play_action(1, S(8)), 100)
    assert s.apply(0, play_action(0, S(8)), 100) == "play" and s.piles[0][-1] == S(8)


def test_sp8_doubles_only_when_chosen():
    assert not fits(S(7), H(7)) and fits(S(7), H(7), doubles=True)
    s = setup(playing(layout="classic", doubles=True), [bytes([S(7), S(2)]), bytes([H(4)])],
              [bytes([H(7)]), bytes([C.card(0, 12)])])
    assert s.apply(0, play_action(0, S(7)), 5) == "play"


def test_sp9_jokers_are_wild_both_ways():
    assert fits(JK, H(5)) and fits(S(10), JK) and fits(JK, JK + 1)
    s = setup(playing(layout="classic", jokers=True), [bytes([JK, S(10)]), bytes([H(4)])],
              [bytes([H(2)]), bytes([C.card(0, 12)])])
    s.apply(0, play_action(0, JK), 5)
    s.apply(0, play_action(0, S(10)), 400000)
    assert s.piles[0][-2:] == bytes([JK, S(10)])


def test_sp10_joker_cannot_be_the_last_card_and_is_exchanged_at_the_flip():
    s = setup(playing(layout="classic", jokers=True), [bytes([JK]), bytes([H(9)])],
              [bytes([H(2)]), bytes([C.card(0, 5)])])
    assert s.legal_actions(0) == [STUCK]
    raises("SP-10", s, 0, play_action(0, JK), 5)
    top_reserve = s.reserves[0][-1]
    s.apply(0, STUCK, 6)
    assert s.apply(1, STUCK, 7) == "flip"
    # the joker went under player 1's reserve; its top card came to the hand
    assert s.hands[0] == bytes([top_reserve]) and s.reserves[0][0] == JK
    s.check()


def test_sp11_draw_only_below_the_hand_limit():
    s = playing(layout="classic", hand_limit=6)
    assert DRAW in s.legal_actions(0)  # 5 in hand, limit 6
    s.apply(0, DRAW, 1)
    assert len(s.hands[0]) == 6 and len(s.stocks[0]) == 14
    assert DRAW not in s.legal_actions(0)
    raises("SP-11", s, 0, DRAW, 2)


def test_sp12_only_a_card_in_your_own_hand():
    s = setup(playing(), [bytes([S(8)]), bytes([H(6)])], [bytes([H(7)]), bytes([C.card(0, 12)])],
              stocks=(bytes([S(1)]), bytes([S(2)])))
    raises("SP-12", s, 0, play_action(0, H(6)), 5)
    raises("SP-12", s, 0, play_action(2, S(8)), 5)


def test_sp13_same_instant_play_goes_back_to_the_hand():
    s = setup(playing(), [bytes([S(8), S(2)]), bytes([H(6), H(3)])],
              [bytes([H(7)]), bytes([C.card(0, 12)])])
    s.apply(0, play_action(0, S(8)), 1000000)
    # player 2 aimed the 6 at the 7 (now covered) within RACE_US: it comes back
    assert s.apply(1, play_action(0, H(6)), 1000000 + RACE_US - 1) == "race"
    assert s.piles[0][-1] == S(8) and H(6) in s.hands[1] and s.races == 1
    # a card that fitted neither top is still illegal inside the window
    raises("SP-7", s, 1, play_action(0, H(3)), 1000000 + RACE_US - 1)
    # after the window the 6 is judged against the 8 and refused
    raises("SP-7", s, 1, play_action(0, H(6)), 1000000 + RACE_US)
    # and actions must come in time order
    raises("SP-13", s, 1, DRAW, 999999)


def test_sp14_stuck_only_when_nothing_fits_and_nothing_to_draw():
    s = setup(playing(), [bytes([S(10)]), bytes([H(4)])], [bytes([H(7)]), bytes([C.card(0, 12)])],
              stocks=(bytes([S(1)]), b""))
    raises("SP-14", s, 0, STUCK, 1)  # can still draw
    assert s.legal_actions(1) == [STUCK]
    s.apply(1, STUCK, 2)
    assert s.legal_actions(1) == []
    s.apply(0, DRAW, 3)  # the A does not fit 7 or Q either
    assert s.legal_actions(0) == [STUCK]
    r0, r1 = s.reserves[0][-1], s.reserves[1][-1]
    assert s.apply(0, STUCK, 4) == "flip"
    assert (s.piles[0][-1], s.piles[1][-1]) == (r0, r1) and s.flips == 1 and s.stuck == [False, False]


def test_sp15_empty_reserves_are_rebuilt_keeping_the_tops():
    s = setup(playing(), [bytes([S(10)]), bytes([H(4)])], [bytes([H(7)]), bytes([C.card(0, 12)])],
              reserves=(b"", b""))
    centre = len(s.piles[0]) + len(s.piles[1])
    s.apply(0, STUCK, 1)
    assert s.apply(1, STUCK, 2) == "rebuild"
    assert s.piles[0][0] == H(7) and s.piles[1][0] == C.card(0, 12)  # tops stayed, now covered
    assert len(s.piles[0]) == len(s.piles[1]) == 2 and s.rebuilds == 1
    assert len(s.reserves[0]) + len(s.reserves[1]) == centre - 4
    assert len(s.reserves[0]) - len(s.reserves[1]) in (0, 1)
    s.check()


def test_sp16_sp18_going_out_wins_and_scores_the_losers_cards():
    s = setup(playing(), [bytes([S(8)]), bytes([H(6), H(3)])], [bytes([H(7)]), bytes([C.card(0, 12)])],
              stocks=(b"", bytes([S(2), S(4), S(5)])))
    with pytest.raises(RuleError):
        s.score()
    assert s.apply(0, play_action(0, S(8)), 1) == "out"
    assert s.phase == "over" and s.score() == (0, 5) and s.actors() == []
    assert s.is_terminal() and s.current_player() == TERMINAL
    raises("SP-21", s, 1, DRAW, 2)
    raises("SP-21", s, CHANCE, DEAL, 2)


def test_sp17_slap_to_win():
    s = setup(playing(layout="classic", slap_to_win=True), [bytes([S(8)]), bytes([H(6)])],
              [bytes([H(7)]), bytes([C.card(0, 12)])])
    raises("SP-17", s, 0, SLAP, 1)
    assert s.apply(0, play_action(0, S(8)), 1) == "play" and s.phase == "play"
    assert s.legal_actions(0) == [SLAP]
    raises("SP-17", s, 0, DRAW, 2)
    assert s.apply(0, SLAP, 3) == "slap" and s.score() == (0, 1)



# -- three and four players (SP-27 ..) -------------------------------------------------
from speedref.engine.speed_cards import deck  # noqa: E402

D = lambda r: C.card(1, r)  # diamonds  # noqa: E731


def playing_n(n, **kw):
    s = State(11, seats=n, **kw)
    s.apply(CHANCE, DEAL)
    for p in range(n):
        s.apply(p, READY, 0)
    return s


def setup_n(s, hands, piles, stocks=None, reserves=None):
    """setup() for any seat count: the rest of the cards go to the reserves
    (or, given reserves, under pile 1)."""
    n = s.seats
    s.hands = [bytearray(h) for h in hands]
    s.stocks = [bytearray(x) for x in (stocks or [b""] * n)]
    s.piles = [bytearray(p) for p in piles]
    rest = bytearray(deck(n, s.jokers))
    for b in s.hands + s.stocks + s.piles + [bytearray(r) for r in (reserves or [])]:
        for c in b:
            i = rest.find(bytes([c]))
            del rest[i]
    if reserves is None:
        k = len(rest) // n
        reserves = [rest[i * k:(i + 1) * k] if i < n - 1 else rest[i * k:] for i in range(n)]
    else:
        s.piles[0] = bytearray(s.piles[0][:-1]) + rest + s.piles[0][-1:]
    s.reserves = [bytearray(r) for r in reserves]
    s.check()
    return s


def test_sp28_the_deck_is_half_a_deck_per_player():
    assert deck(2) == C.standard_deck(0) and deck(2, True) == C.standard_deck(2)
    d3 = deck(3)
    assert len(d3) == 78 and d3[:52] == C.standard_deck(0) and d3[52:] == C.standard_deck(0)[:26]
    assert sorted(C.suit(c) for c in d3[52:]) == [0] * 13 + [1] * 13  # clubs and diamonds
    d4 = deck(4, jokers=True)
    assert len(d4) == 108 and sorted(d4[:104]) == sorted(C.standard_deck(0) * 2)
    assert [c for c in d4 if C.is_joker(c)] == [JK, JK + 1, JK + 2, JK + 3]
    for n, cards in ((3, d3), (4, d4)):  # every rank equally common
        ranks = [C.rank(c) for c in cards if not C.is_joker(c)]
        assert len(set(ranks.count(r) for r in range(1, 14))) == 1, n


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("layout,jokers,stock,reserve", [
    ("pagat", False, 10, 10), ("classic", False, 15, 5), ("classic", True, 16, 5)])
def test_sp28_sp29_the_deal_for_more_players(n, layout, jokers, stock, reserve):
    s = State(5, layout=layout, jokers=jokers, seats=n)
    assert s.legal_actions(CHANCE) == [DEAL] and s.actors() == []
    s.apply(CHANCE, DEAL)
    s.check()
    assert [len(h) for h in s.hands] == [5] * n and [len(x) for x in s.stocks] == [stock] * n
    assert [len(r) for r in s.reserves] == [reserve] * n and len(s.start) == n
    assert s.actors() == list(range(n)) and s.legal_actions(n - 1) == [READY]
    with pytest.raises(RuleError) as e:
        s.legal_actions(n)
    assert e.value.rule == "SP-1"


def test_sp30_every_player_is_ready_before_the_start_cards_turn():
    s = State(2, seats=3)
    s.apply(CHANCE, DEAL)
    assert s.apply(2, READY, 1) == "ready" and s.apply(0, READY, 2) == "ready"
    assert s.phase == "ready" and s.actors() == [1]
    raises("SP-6", s, 0, DRAW, 3)
    assert s.apply(1, READY, 3) == "start"
    assert s.piles == [s.start[0:1], s.start[1:2], s.start[2:3]]


def test_sp27_sp13_a_card_races_the_last_card_another_player_put_on_its_pile():
    s = setup_n(playing_n(3), [bytes([S(8), S(2)]), bytes([H(6)]), bytes([D(8), D(3)])],
                [bytes([H(7)]), bytes([C.card(0, 12)]), bytes([C.card(0, 4)])])
    assert play_action(2, D(3)) in s.legal_actions(2)  # every pile is everyone's (SP-29)
    s.apply(0, play_action(0, S(8)), 1000000)
    # both other players aimed at the 7 within RACE_US: both cards come back
    assert s.apply(1, play_action(0, H(6)), 1000000 + RACE_US // 2) == "race"
    assert s.apply(2, play_action(0, D(8)), 1000000 + RACE_US - 1) == "race"
    assert s.piles[0][-1] == S(8) and s.races == 2 and D(8) in s.hands[2]
    raises("SP-12", s, 2, play_action(3, D(8)), 1000000 + RACE_US)  # no fourth pile


def test_sp31_sp29_all_stuck_then_each_reserve_onto_its_own_pile():
    s = setup_n(playing_n(4), [bytes([S(10)]), bytes([H(4)]), bytes([D(10)]), bytes([S(4)])],
                [bytes([H(7)]), bytes([C.card(0, 12)]), bytes([H(1)]), bytes([D(7)])])
    for t, p in enumerate((3, 0, 1)):
        assert s.apply(p, STUCK, t) == "stuck"
    assert s.actors() == [2] and s.legal_actions(0) == []
    tops = [r[-1] for r in s.reserves]
    assert s.apply(2, STUCK, 9) == "flip"
    assert [p[-1] for p in s.piles] == tops and s.flips == 1 and s.stuck == [False] * 4
    s.check()


def test_sp31_a_play_by_anyone_cancels_every_stuck_call():
    s = setup_n(playing_n(3), [bytes([S(10)]), bytes([H(4)]), bytes([D(8), D(10)])],
                [bytes([H(7)]), bytes([C.card(0, 12)]), bytes([H(1)])])
    s.apply(0, STUCK, 1)
    s.apply(1, STUCK, 2)
    s.apply(2, play_action(0, D(8)), 3)
    assert s.stuck == [False] * 3 and s.actors() == [0, 1, 2]


def test_sp32_rebuild_deals_round_into_n_reserves():
    s = setup_n(playing_n(3), [bytes([S(10)]), bytes([H(4)]), bytes([D(10)])],
                [bytes([H(7)]), bytes([C.card(0, 12)]), bytes([H(1)])], reserves=[b"", b"", b""])
    centre = sum(len(p) for p in s.piles)
    for p in (0, 1):
        s.apply(p, STUCK, p)
    assert s.apply(2, STUCK, 5) == "rebuild" and s.rebuilds == 1
    assert [p[0] for p in s.piles] == [H(7), C.card(0, 12), H(1)]  # the tops stayed, now covered
    assert [len(p) for p in s.piles] == [2, 2, 2]
    sizes = [len(r) for r in s.reserves]
    assert sum(sizes) == centre - 6 and max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)
    s.check()


def test_sp33_sp35_the_first_out_ends_the_deal_and_scores_everyones_cards():
    s = setup_n(playing_n(4), [bytes([S(8)]), bytes([H(6), H(3)]), bytes([D(2)]), bytes([S(4)])],
                [bytes([H(7)]), bytes([C.card(0, 12)]), bytes([H(1)]), bytes([D(7)])],
                stocks=[b"", bytes([S(2), S(5)]), b"", b""])
    assert s.apply(0, play_action(0, S(8)), 1) == "out"
    assert s.phase == "over" and s.winner == 0 and s.actors() == []
    assert s.score() == (0, (0, 4, 1, 1))
    raises("SP-21", s, 3, play_action(0, S(4)), 2)


def test_sp34_the_first_slap_wins_and_others_who_ran_out_hold_nothing():
    s = setup_n(playing_n(3, layout="classic", slap_to_win=True),
                [bytes([S(8)]), bytes([H(6)]), bytes([D(9)])],
                [bytes([H(7)]), bytes([C.card(0, 12)]), bytes([H(10)])])
    assert s.apply(0, play_action(0, S(8)), 1) == "play"
    assert s.apply(2, play_action(2, D(9)), 2) == "play"
    assert s.legal_actions(0) == [SLAP] == s.legal_actions(2) and STUCK in s.legal_actions(1)
    raises("SP-17", s, 1, SLAP, 3)
    assert s.apply(2, SLAP, 4) == "slap" and s.score() == (2, (0, 1, 0))


@pytest.mark.parametrize("n", [3, 4])
def test_sp27_sp35_random_play_at_more_seats_scores_a_record_that_replays(n):
    """Random legal play with n players keeps every card in one place and
    ends; its score is a deal the table level accepts."""
    import random
    from speedref.engine import speed
    for seed in range(6):
        rnd = random.Random(seed * 10 + n)
        s = State(seed, layout=rnd.choice(["pagat", "classic"]), seats=n, slap_to_win=rnd.random() < 0.5)
        s.apply(CHANCE, DEAL)
        t = 0
        for _ in range(20000):
            if s.is_terminal():
                break
            p = rnd.choice(s.actors())
            t += rnd.randrange(300000)
            s.apply(p, rnd.choice(s.legal_actions(p)), t)
            s.check()
        assert s.is_terminal()
        m = speed.SpeedMatch(s.layout, {"single": True}, ["P%d" % (q + 1) for q in range(n)],
                             slap_to_win=s.slap_to_win)
        m.add_deal(*s.score())
        assert m.over and m.totals[s.winner] == sum(s.left(q) for q in range(n))
