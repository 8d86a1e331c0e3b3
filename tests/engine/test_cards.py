"""Cards (engine/cards.py): the decks, names and look-ups every game's card
level uses.  Rules from seeds/speed.md (SP-4, SP-7), seeds/speedrun.md (SR-6)."""
from speedref.engine import cards as C


def test_sr6_the_run_deck_is_four_suits_of_1_to_10():
    d = C.run_deck()
    assert len(d) == 40 and len(set(d)) == 40
    assert [C.run_name(c) for c in d[:3]] == ["E1", "E2", "E3"] and C.run_name(d[-1]) == "W10"
    assert sorted(d) == [s * 16 + r for s in range(4) for r in range(1, 11)]


def test_sp4_the_standard_deck_and_its_jokers():
    d = C.standard_deck(2)
    assert len(d) == 54 and C.name(d[0]) == "AC" and C.name(d[51]) == "KS"
    assert C.name(d[52]) == "JK" and C.name(C.JOKER) == "JK" and C.is_joker(C.JOKER)
    assert not C.is_joker(C.JOKER - 1) and C.name(3 * 16 + 10) == "TS"


def test_sp7_index_and_has():
    b = bytearray([5, 7, 9])
    assert C.index(b, 9) == 2 and C.index(b, 5) == 0 and C.index(b, 8) == -1
    assert C.has(b, 7) and not C.has(b, 8) and not C.has(bytearray(), 0)
