"""Speed Run, card level: deal, choices, follow suit, trick winner, reveals, and
properties that tie it to the table level (SR numbers from seeds/speedrun.md)."""
import pytest
from hypothesis import given, settings, strategies as st_

from speedref.engine import cards
from speedref.engine.errors import RuleError
from speedref.engine.rng import Rng
from speedref.engine import speedrun as sr
from speedref.engine import speedrun_cards as sp
from speedref.engine.speedrun_cards import State, CHANCE, DEAL, REVEAL, TRUMP, RANK, CONTRACT, PASS, REDO

E, R, G, W = 0, 1, 2, 3


def c(suit, rank):
    return cards.card(suit, rank)


def snapshot(st):
    return (st.phase, st.turn, [bytes(h) for h in st.hand], bytes(st.trick), list(st.contracts),
            list(st.chosen), st.record(), list(st.game.revealed), list(st.game.tricks), st.rng.s)


def to_play_phase(st, trump=TRUMP + 4, ranking=RANK + 0, contracts=None):
    st.apply(CHANCE, DEAL)
    st.apply(st.current_player(), trump)
    st.apply(st.current_player(), ranking)
    for i in range(3):
        p = st.current_player()
        st.apply(p, contracts[i] if contracts else st.legal_actions(p)[0])


# -- SR-11: trick winner --------------------------------------------------------

WINNERS = [
    # cards in play order, leader, trump suit (-1 none), direction, winner seat
    ([c(E, 5), c(E, 9), c(E, 2)], 0, -1, 10, 1),   # led suit, 10 high
    ([c(E, 5), c(E, 9), c(E, 2)], 0, -1, 1, 2),    # led suit, 1 high: the 2 wins
    ([c(E, 5), c(R, 10), c(R, 1)], 1, -1, 10, 1),  # off-suit cards never win
    ([c(E, 5), c(R, 10), c(R, 1)], 1, -1, 1, 1),
    ([c(E, 1), c(G, 10), c(E, 10)], 2, G, 1, 0),   # trump wins under 1 high, even its 10
    ([c(E, 1), c(G, 10), c(G, 3)], 2, G, 1, 1),    # two trumps: the 3 beats the 10 in 1 high
    ([c(E, 1), c(G, 10), c(G, 3)], 2, G, 10, 0),   # and the 10 beats the 3 in 10 high
    ([c(W, 4), c(E, 7), c(W, 2)], 0, W, 10, 0),    # trump led: the highest trump
    ([c(W, 4), c(E, 7), c(W, 2)], 0, W, 1, 2),
]


@pytest.mark.parametrize("played,leader,trump,dirn,winner", WINNERS)
def test_sr11_trick_winner(played, leader, trump, dirn, winner):
    assert sp.trick_winner(bytearray(played), leader, trump, dirn) == winner


# -- SR-6 deal, SR-7 choices, SR-8 leads -----------------------------------------

def test_sr6_deal_is_an_explicit_chance_step_twelve_each_four_out():
    st = State(42, "short", first=1)
    assert st.current_player() == CHANCE and st.legal_actions(CHANCE) == [DEAL] and st.phase == "deal"
    assert st.actors() == [] and not st.is_terminal()
    st.apply(CHANCE, DEAL)
    assert st.phase == "choose" and st.actors() == [1] and st.legal_actions(CHANCE) == []
    assert [len(h) for h in st.hand] == [12, 12, 12] and len(st.out) == 4
    assert sorted(bytes(st.hand[0] + st.hand[1] + st.hand[2] + st.out)) == sorted(cards.run_deck())
    deck = Rng(42).shuffle(cards.run_deck())
    assert st.hand[2] == bytearray(sorted(deck[0:36:3]))  # one at a time from the first player's left
    assert st.out == deck[36:]


def test_sr7_first_player_chooses_either_then_the_next_the_other():
    st = State(3, "short", first=2)
    st.apply(CHANCE, DEAL)
    assert st.current_player() == 2
    acts = st.legal_actions(2)
    assert acts == [TRUMP + i for i in range(5)] + [RANK + i for i in range(6)]
    st.apply(2, RANK + 4)  # bell-10
    assert st.current_player() == 0
    assert st.legal_actions(0) == [TRUMP + i for i in range(5)]
    with pytest.raises(RuleError) as e:
        st.apply(0, RANK + 1)
    assert e.value.rule == "SR-7"
    st.apply(0, TRUMP + 1)
    assert st.game.trump == "raccoons" and st.game.ranking == "bell-10"


def test_sr8_third_player_leads_then_the_trick_winner():
    st = State(5, "short", first=0)
    to_play_phase(st)
    assert st.current_player() == 2
    for _ in range(3):
        st.apply(st.current_player(), st.legal_actions(st.current_player())[0])
    assert st.current_player() == st.last_trick[2] == st.game.next_leader()


def test_sr13_contract_choice_offers_the_table_levels_legal_contracts():
    st = State(9, "short", first=0)
    st.apply(CHANCE, DEAL)
    st.apply(0, TRUMP + 0)
    st.apply(1, RANK + 0)
    acts = st.legal_actions(0)
    assert [st.action_name(a) for a in acts] == ["W0", "W1", "W4", "W5", "MIDDLE", "PASS"]  # no Redo yet (SR-19)
    with pytest.raises(RuleError) as e:
        st.apply(0, REDO + 0)
    assert e.value.rule == "SR-19"
    with pytest.raises(RuleError) as e:
        st.apply(0, CONTRACT + 4)  # W7 is not in a Short hand
    assert e.value.rule == "SR-13"
    st.apply(0, CONTRACT + 2)
    assert st.current_player() == 1 and st.legal_actions(0) == []


def test_sr10_follow_suit_and_illegal_cards_change_nothing():
    for seed in range(20):
        st = State(seed, "short")
        to_play_phase(st)
        p = st.current_player()
        st.apply(p, [a for a in st.legal_actions(p) if a != REVEAL][0])
        led = st.trick[0] >> 4
        q = st.current_player()
        h = st.hand[q]
        if any(x >> 4 == led for x in h) and any(x >> 4 != led for x in h):
            assert [a for a in st.legal_actions(q) if a != REVEAL] == sorted(x for x in h if x >> 4 == led)
            before = snapshot(st)
            with pytest.raises(RuleError) as e:
                st.apply(q, [x for x in h if x >> 4 != led][0])
            assert e.value.rule == "SR-10"
            assert snapshot(st) == before
            return
    raise AssertionError("no seed gave a follow-suit situation")


ILLEGAL_CARDS = """
from speedref.engine.speedrun_cards import State, CHANCE, DEAL, TRUMP, RANK, REVEAL
for seed in range(20):
    st = State(seed, "short")
    st.apply(CHANCE, DEAL)
    st.apply(st.current_player(), TRUMP + 4)
    st.apply(st.current_player(), RANK)
    for i in range(3):
        st.apply(st.current_player(), st.legal_actions(st.current_player())[0])
    p = st.current_player()
    st.apply(p, [a for a in st.legal_actions(p) if a != REVEAL][0])
    led = st.trick[0] >> 4
    q = st.current_player()
    h = st.hand[q]
    if [x for x in h if x >> 4 == led] and [x for x in h if x >> 4 != led]:
        break
other = st.hand[(q + 1) % 3][0]
for a in ([x for x in h if x >> 4 != led][0], other, -7, 300):
    try:
        st.apply(q, a)
        print("accepted")
    except ValueError as e:
        print(type(e).__name__, e.rule)
"""


def test_sr10_sr11_an_illegal_card_is_a_rule_error_on_both_runtimes():
    """Not following suit is SR-10; a card the player does not hold, or a
    number that is no card, is SR-11: a RuleError on CPython and on
    MicroPython (whose bytearray has no `in` for an int)."""
    import contextlib
    import io
    import mpyrun
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(ILLEGAL_CARDS, {})
    want = ["RuleError SR-10", "RuleError SR-11", "RuleError SR-11", "RuleError SR-11"]
    assert buf.getvalue().split("\n")[:-1] == want
    assert mpyrun.run(code=ILLEGAL_CARDS, check=False).stdout.split("\n")[:-1] == want


def test_sr21_sr22_reveal_on_your_turn_never_for_pass():
    st = State(11, "short", first=0)
    to_play_phase(st, contracts=[PASS, CONTRACT + 2, CONTRACT + 0])
    assert st.current_player() == 2 and REVEAL in st.legal_actions(2)
    st.apply(2, REVEAL)
    assert st.game.revealed[2] == "W0" and REVEAL not in st.legal_actions(2)
    st.apply(2, st.legal_actions(2)[0])
    assert st.current_player() == 0 and REVEAL not in st.legal_actions(0)
    before = snapshot(st)
    with pytest.raises(RuleError) as e:
        st.apply(0, REVEAL)
    assert e.value.rule == "SR-22"
    assert snapshot(st) == before


def test_wrong_player_and_terminal_are_refused():
    st = State(1, "short")
    with pytest.raises(RuleError):
        st.apply(0, DEAL)
    st.apply(CHANCE, DEAL)
    with pytest.raises(RuleError):
        st.apply(1, TRUMP)  # seat 0 chooses first (SR-7)


@settings(max_examples=40, deadline=None)
@given(length=st_.sampled_from(["short", "medium", "long"]), data=st_.data())
def test_sr24_totals_equal_the_sum_of_the_sheet_for_any_legal_table_game(length, data):
    """Random legal table-level games: totals are the sheet's sum, running totals
    add up, and the record replays to the same sheet."""
    g = sr.SpeedRunGame(length, ["A", "B", "C"], first=data.draw(st_.integers(0, 2)))
    while not g.over:
        g.set_choices(data.draw(st_.sampled_from(sr.TRUMPS)), data.draw(st_.sampled_from(sr.RANKINGS)))
        contracts = []
        for s in range(3):
            c = data.draw(st_.sampled_from(g.legal_contracts(s)))
            if c == "REDO":
                c = "REDO:" + data.draw(st_.sampled_from(g.redo_targets(s)))
            contracts.append(c)
            if c != "PASS" and data.draw(st_.booleans()):
                g.reveal(s, c)
        for _ in range(12):
            g.record_trick(data.draw(st_.integers(0, 2)))
        g.finish_hand(contracts)
        assert g.totals == [sum(s.values()) for s in g.sheet]
    rows = g.rows()
    assert rows[-1][2] == g.totals and len(rows) == g.hands_played
    assert sr.replay(g.to_record()).totals == g.totals
    assert g.ended_early == (g.hands_played < sr.HANDS[length])


def test_sr29_card_level_refusals_count_players_from_1_and_name_the_card():
    """SR-29: "it is not player 3's turn", "player 1 may not play E1 now":
    never "seat 2", never a raw action number where the action has a name."""
    st = State(1, "short", ["a", "b", "c"])
    with pytest.raises(RuleError) as e:
        st.apply(2, DEAL)
    assert "it is not player 3's turn" in str(e.value) and "seat" not in str(e.value)
    st.apply(CHANCE, DEAL)
    p = st.current_player()
    with pytest.raises(RuleError) as e:
        st.apply(p, c(E, 1))
    assert ("player %d may not play E1 now" % (p + 1)) in str(e.value), e.value
