"""The shared engine pieces: seeded PRNG and card encoding, on both runtimes."""
import pytest
from speedref.engine import cards
from speedref.engine.errors import RuleError
from speedref.engine.rng import Rng

import mpyrun


def test_rng_same_sequence_on_both_runtimes():
    r = Rng(12345)
    expected = [r.next32() for _ in range(5)] + [Rng(7).shuffle(bytearray(range(10)))]
    out = mpyrun.run("from speedref.engine.rng import Rng\n"
                     "r = Rng(12345)\n"
                     "print([r.next32() for _ in range(5)] + [list(Rng(7).shuffle(bytearray(range(10))))])")
    assert out.stdout.strip() == str(expected[:5] + [list(expected[5])])


def test_rng_below_is_in_range_and_zero_seed_is_usable():
    r = Rng(0)
    seen = {r.below(6) for _ in range(600)}
    assert seen == set(range(6))


def test_rng_the_same_seed_gives_these_numbers_on_every_runtime():
    """One seed deals the identical game everywhere (SP-21, SPIT-16, SR-6,
    PT-2 deal with Rng): xorshift32's own numbers, written down, so a changed
    generator fails here even where MicroPython does not run (make mutate)."""
    r = Rng(12345)
    assert [r.next32() for _ in range(3)] == [3336926330, 1697253807, 2816511904]
    r = Rng(7)
    assert list(r.shuffle(bytearray(range(10)))) == [0, 8, 4, 2, 6, 1, 5, 9, 7, 3]
    assert r.next32() == 344924426  # a shuffle of 10 draws exactly 9 numbers
    assert [list(Rng(s).shuffle(bytearray([0, 1]))) for s in (1, 2)] == [[0, 1], [1, 0]]
    r = Rng(0)
    assert r.s == 0x9E3779B9 and r.below(52) == 5 and r.below(1) == 0
    with pytest.raises(ValueError) as e:
        r.below(0)
    assert str(e.value) == "below(n) needs n > 0"


def test_rng_below_rejects_exactly_the_draws_above_the_last_whole_multiple():
    """below(3) takes a draw up to 2**32 - 2 (the top of the last whole run of
    3) and draws again for 2**32 - 1: unbiased, and one draw each way the
    same on both runtimes.  The states are the ones whose next draw is that
    value (xorshift32 run backwards)."""
    r = Rng(1)
    r.s = 0xACD979CE  # next draw: 0xFFFFFFFE, the limit for n = 3
    assert r.below(3) == 0xFFFFFFFE % 3 and r.s == 0xFFFFFFFE  # taken: one draw
    r.s = 0x5E6CFCE7  # next draw: 0xFFFFFFFF, above the limit
    q = Rng(1)
    q.s = 0xFFFFFFFF
    after = q.next32()
    assert r.below(3) == after % 3 and r.s == after  # refused: a second draw


def test_shuffle_is_a_permutation():
    d = cards.standard_deck(2)
    Rng(99).shuffle(d)
    assert sorted(d) == sorted(cards.standard_deck(2)) and len(set(d)) == 54


def test_card_names():
    assert cards.name(cards.card(3, 1)) == "AS"
    assert cards.name(cards.card(0, 10)) == "TC"
    assert cards.name(cards.JOKER + 1) == "JK"
    assert cards.run_name(cards.card(3, 10)) == "W10"
    assert len(cards.run_deck()) == 40


def test_rule_error_is_value_error_naming_rule():
    e = RuleError("SR-1", "bad")
    assert isinstance(e, ValueError) and str(e) == "SR-1: bad" and e.rule == "SR-1"


# One check of "a JSON int, not a bool" for every game (SP-20, SPIT-15, SR-29, PT-21
# all read counts and seats from JSON records), the same on both runtimes.
JSON_VALUES = "[0, 7, -3, 2 ** 40, True, False, 1.0, None, '3', [1]]"
NAMES_VALUES = "[(['a', 'b'], 2), (('a', 'b'), 2), (['a'], 2), (['a', 1], 2), ('ab', 2), (['a', 'b', 'c'], 3), (None, 2)]"
CHECK_CODE = ("from speedref.engine.errors import is_int, is_names\n"
              "print([is_int(x) for x in %s])\n"
              "print([is_names(x, n) for x, n in %s])\n" % (JSON_VALUES, NAMES_VALUES))


def test_is_int_rejects_bools_and_floats_on_both_runtimes_rule_PT21():
    want = "[True, True, True, True, False, False, False, False, False, False]\n" \
           "[True, True, False, False, False, True, False]"
    for use_mpy in (True, False):
        out = mpyrun.run(CHECK_CODE, use_mpy=use_mpy)
        assert out.stdout.strip() == want
    import subprocess
    import sys
    here = subprocess.run([sys.executable, "-c", CHECK_CODE], capture_output=True, text=True,
                          check=True, env={"PYTHONPATH": str(mpyrun.ROOT / "firmware")})
    assert here.stdout.strip() == want


@pytest.mark.parametrize("names", [[1, "b"], ["a", 1], [None, None], [b"a", "b"]])
def test_a_name_that_is_no_string_is_refused_by_every_game_SP27_SPIT1_SR1(names):
    # In this process, not only in the subprocesses above: the engine a test
    # imports is the one under test (a mutant under make mutate).
    from speedref.engine.errors import is_names
    from speedref.engine.speed import SpeedMatch
    from speedref.engine.speedrun import SpeedRunGame
    from speedref.engine.spit import SpitGame
    assert is_names(names, 2) is False and is_names(["a", "b"], 2) is True
    for rule, make in (("SP-27", lambda: SpeedMatch(players=names)), ("SPIT-1", lambda: SpitGame(names)),
                       ("SR-1", lambda: SpeedRunGame("short", names + ["c"]))):
        with pytest.raises(RuleError) as e:
            make()
        assert e.value.rule == rule
