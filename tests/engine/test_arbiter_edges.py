"""The slap arbiter (arbiter.py) at its edges: the tie window's last
microsecond, the seats a race takes, the texts people read.  Rules from
seeds/speed.md (SP-34, SP-17) and seeds/spit.md (SPIT-10, SPIT-18)."""
import pytest

from speedref import arbiter
from speedref.arbiter import COUNTED, FALSE_START, IGNORED, Race, Verdict, margin_text


def test_sp34_margin_texts_at_each_unit_boundary():
    assert margin_text(0) == "0 us" and margin_text(999) == "999 us"
    assert margin_text(999, 1) == "P2 by 999 us"
    assert margin_text(1000) == "1.0 ms" and margin_text(1049) == "1.0 ms" and margin_text(1050) == "1.1 ms"
    assert margin_text(3240, 0) == "P1 by 3.2 ms" and margin_text(-3240) == "3.2 ms"
    assert margin_text(99949) == "99.9 ms" and margin_text(99999, 3) == "P4 by 100.0 ms"
    assert margin_text(100000) == "100 ms" and margin_text(100499) == "100 ms" and margin_text(100500) == "101 ms"
    assert margin_text(250000, 2) == "P3 by 250 ms"


def test_sp34_margin_texts_round_in_whole_numbers_at_any_size():
    # A float would round a long margin before the text rounds it: the board's 32-bit
    # float from 2**24 us on, CPython's from 2**53 on.  Whole numbers stay exact.
    assert margin_text(20000499) == "20000 ms" and margin_text(20000500, 1) == "P2 by 20001 ms"
    assert margin_text(10 ** 18 + 499) == "1000000000000000 ms"
    assert margin_text(10 ** 18 + 499, 0) == "P1 by 1000000000000000 ms"
    assert margin_text(10 ** 18 + 500) == "1000000000000001 ms"


def test_sp34_verdict_texts_and_log_fields():
    assert Verdict(None, (0, 1), 400, (0, 1), ()).text() == "Tie 400 us"
    assert Verdict(None, (0, 1), 0, (0, 1), ()).text() == "Tie"
    assert Verdict(1, (), None, (1,), ()).text() == "P2"
    assert Verdict(0, (), 3240, (0, 1), (1,)).text() == "P1 by 3.2 ms"
    assert Verdict(2, (), 5, (2, 0), (1,)).to_dict() == {
        "winner": 2, "tie": [], "margin_us": 5, "presses": [2, 0], "false_starts": [1]}


def test_sp34_a_race_takes_one_to_four_seats_and_a_window_up_to_the_widest():
    for seats in (1, 4):
        assert Race(seats).seats == seats
    for bad in (0, 5):
        with pytest.raises(ValueError):
            Race(bad)
    assert Race(2, arbiter.MAX_WINDOW_US).window_us == arbiter.MAX_WINDOW_US
    for bad in (-1, arbiter.MAX_WINDOW_US + 1):
        with pytest.raises(ValueError):
            Race(2, bad)


def test_sp34_the_window_ends_at_its_last_microsecond():
    r = Race(3, 1000)
    r.open(0)
    assert r.press(1, 100) == COUNTED and r.press(0, 1100) == COUNTED and r.press(2, 1101) == COUNTED
    assert r.decide(1100) is None  # now == first + window: a press may still tie
    v = r.decide(1101)
    assert v.winner is None and v.tie == (1, 0) and v.margin_us == 1000 and v.order == (1, 0, 2)
    assert not r.is_open and r.decide(5000) is v


def test_sp34_a_press_one_past_the_window_loses():
    r = Race(2, 1000)
    r.open(0)
    r.press(0, 50)
    r.press(1, 1051)
    v = r.decide(2000)
    assert v.winner == 0 and v.tie == () and v.margin_us == 1001 and v.text() == "P1 by 1.0 ms"


def test_sp17_spit10_a_lone_press_wins_with_no_margin():
    r = Race(2)
    r.open(10)
    assert r.decide(100) is None  # nobody pressed
    r.press(1, 10)  # at the GO instant: in the race
    assert r.pressed() == 1 and not r.all_in()
    v = r.decide(11)
    assert v.winner == 1 and v.margin_us is None and v.order == (1,) and v.text() == "P2"


def test_spit18_presses_before_go_are_false_starts_and_later_ones_ignored():
    r = Race(2)
    assert r.press(0, 5) == IGNORED  # not open
    r.open(1000)
    assert r.press(0, 999) == FALSE_START and r.false_starts() == (0,)
    assert r.press(0, 1000) == COUNTED and r.press(0, 1001) == IGNORED
    assert r.press(2, 1000) == IGNORED and r.press(-1, 1000) == IGNORED
    assert r.press(1, 1002) == COUNTED and r.all_in() and r.pressed() == 2
    v = r.decide(1003)
    assert v.winner == 0 and v.false_starts == (0,) and v.margin_us == 2
    assert r.press(1, 1004) == IGNORED  # the verdict is given
    r.open(2000)
    assert r.false_starts() == () and r.pressed() == 0 and r.verdict is None and r.is_open
    r.press(1, 2001)
    assert r.decide(2002).false_starts == ()


def test_sp34_a_reslap_takes_the_tied_entrants_only():
    r = Race(4, 0)
    r.open(0, 0b0110)
    assert r.is_entrant(1) and r.is_entrant(2) and not r.is_entrant(0) and not r.is_entrant(3)
    assert r.press(0, 1) == IGNORED and r.press(3, 1) == IGNORED
    assert r.press(2, 5) == COUNTED and not r.all_in()
    assert r.press(1, 5) == COUNTED and r.all_in()
    v = r.decide(6)
    assert v.winner is None and v.tie == (1, 2) and v.margin_us == 0 and v.text() == "Tie"
    r.open(10)
    assert r.is_entrant(0) and r.is_entrant(3)
    r.close()
    assert not r.is_open and r.press(0, 11) == IGNORED and r.decide(20) is None


def test_sp34_times_wrap_round_the_ticks_period():
    r = Race(2, 1000)
    top = (1 << 30) - 10
    r.open(top)
    r.press(1, top + 5)
    r.press(0, (top + 20) & ((1 << 30) - 1))  # after the wrap: 15 us later
    v = r.decide((top + 2000) & ((1 << 30) - 1))
    assert v.winner is None and v.tie == (1, 0) and v.margin_us == 15


def test_sp34_a_new_race_has_no_press_and_takes_every_seat():
    r = Race(3)
    assert not r.is_open and r.go_us == 0 and r.pressed() == 0 and not r.all_in()
    assert r.false_starts() == () and r.verdict is None and r.decide(10) is None
    assert [r.is_entrant(s) for s in range(4)] == [True, True, True, False]
    r.open(0)
    assert [r.is_entrant(s) for s in range(4)] == [True, True, True, False]
    for s in range(3):
        assert not r.all_in()
        r.press(s, 10 + s)
    assert r.all_in() and r.pressed() == 3
    v = r.decide(100)
    assert v.winner == 0 and v.margin_us == 1 and v.order == (0, 1, 2) and v.false_starts == ()
    assert v.to_dict() == {"winner": 0, "tie": [], "margin_us": 1, "presses": [0, 1, 2], "false_starts": []}


def test_sp34_a_seat_past_the_races_seats_never_counts_whatever_the_entrants():
    r = Race(2)
    r.open(0, 0b111)  # an entrant bit past the race's two seats
    assert r.press(2, 5) == IGNORED and r.pressed() == 0
    assert r.press(1, 6) == COUNTED and r.decide(7).winner == 1
