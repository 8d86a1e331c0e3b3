"""The slap race: SP-17 slap to win and SPIT-10 the slap for the
smaller centre pile, both decided by the earlier timestamp.  Every time starts just before the 2**30 tick wrap."""
import pytest

from speedref import arbiter
from speedref.arbiter import Race, margin_text, COUNTED, FALSE_START, IGNORED
from speedref.ticks import ticks_add

WRAP = 1 << 30
GO = WRAP - 1500  # GO 1.5 ms before the tick counter wraps


def at(us_after_go):
    return ticks_add(GO, us_after_go)


def test_first_press_wins_across_the_wrap_with_margin():
    """SP-17 / SPIT-10: the earlier timestamp wins even when the later one has wrapped to a small number."""
    r = Race(seats=2, window_us=0)
    r.open(GO)
    assert r.press(1, at(1000)) == COUNTED  # before the wrap: a big number
    assert r.press(0, at(4240)) == COUNTED  # after the wrap: a small number
    assert at(4240) < at(1000)
    assert r.decide(at(1000)) is None  # window (0) not yet passed
    v = r.decide(at(5000))
    assert v.winner == 1 and v.tie == ()
    assert v.margin_us == 3240
    assert v.order == (1, 0)
    assert v.text() == "P2 by 3.2 ms"


def test_same_snapshot_is_a_tie_even_with_zero_window():
    """Presses seen in one input snapshot carry one timestamp: a tie."""
    r = Race(seats=2, window_us=0)
    r.open(GO)
    r.press(0, at(2000))
    r.press(1, at(2000))
    v = r.decide(at(2001))
    assert v.winner is None and v.tie == (0, 1) and v.margin_us == 0
    assert v.text() == "Tie"


def test_tie_window_boundary():
    """A press exactly window_us after the first ties; one microsecond more does not."""
    for gap, tied in ((5000, True), (5001, False)):
        r = Race(seats=2, window_us=5000)
        r.open(GO)
        r.press(0, at(100))
        r.press(1, at(100 + gap))
        assert r.decide(at(100 + 5000)) is None  # verdict only after the window
        v = r.decide(at(100 + 5001))
        assert (v.winner is None) == tied
        assert v.margin_us == gap
        if not tied:
            assert v.winner == 0


def test_false_start_before_go_is_reported_and_does_not_count():
    """A press before GO is a false start; the seat may still press after GO."""
    r = Race(seats=2)
    r.open(GO)
    assert r.press(0, ticks_add(GO, -10)) == FALSE_START
    assert r.false_starts() == (0,)
    assert r.pressed() == 0
    assert r.press(1, at(300)) == COUNTED
    assert r.press(0, at(400)) == COUNTED
    v = r.decide(at(1000))
    assert v.winner == 1 and v.false_starts == (0,)
    assert v.margin_us == 100


def test_repeat_presses_and_presses_after_the_verdict_are_ignored():
    r = Race(seats=3)
    r.open(GO)
    assert r.press(2, at(10)) == COUNTED
    assert r.press(2, at(5)) == IGNORED  # second press by the same seat
    v = r.decide(at(20))
    assert v.winner == 2 and v.margin_us is None and v.text() == "P3"
    assert r.press(0, at(30)) == IGNORED
    assert r.decide(at(40)) is v
    assert r.press(5, at(50)) == IGNORED  # no such seat


def test_closed_race_ignores_presses():
    r = Race()
    assert r.press(0, at(1)) == IGNORED
    assert r.decide(at(100)) is None


def test_four_seats_three_way_tie_and_order():
    r = Race(seats=4, window_us=1000)
    r.open(GO)
    r.press(3, at(900))
    r.press(1, at(500))
    r.press(2, at(1500))
    r.press(0, at(1600))  # 1100 after the first: outside the tie
    v = r.decide(at(1501))
    assert v.winner is None
    assert v.tie == (1, 3, 2)
    assert v.order == (1, 3, 2, 0)
    assert v.margin_us == 400
    assert v.to_dict()["tie"] == [1, 3, 2]


def test_window_bounds():
    with pytest.raises(ValueError):
        Race(window_us=arbiter.MAX_WINDOW_US + 1)
    with pytest.raises(ValueError):
        Race(window_us=-1)
    Race(window_us=50000)


@pytest.mark.parametrize("us,seat,text", [
    (3240, 0, "P1 by 3.2 ms"),
    (3250, 1, "P2 by 3.3 ms"),
    (999, None, "999 us"),
    (1000, None, "1.0 ms"),
    (99949, None, "99.9 ms"),
    (99950, None, "100.0 ms"),
    (123456, 3, "P4 by 123 ms"),
    (0, None, "0 us"),
])
def test_margin_text_integer_rounding(us, seat, text):
    assert margin_text(us, seat) == text


def test_a_race_among_entrants_ignores_every_other_seat_SP34():
    """A re-slap between tied seats (SP-34): the others' presses are not in
    it, and the verdict needs only the entrants' presses."""
    from speedref.arbiter import Race, IGNORED, COUNTED
    r = Race(4, 1000)
    r.open(0, 0b0101)  # seats 0 and 2
    assert r.is_entrant(0) and not r.is_entrant(1) and r.is_entrant(2) and not r.is_entrant(3)
    assert r.press(1, 10) == IGNORED and r.press(3, 20) == IGNORED
    assert r.press(2, 500) == COUNTED and not r.all_in()
    assert r.press(0, 4000) == COUNTED and r.all_in()
    v = r.decide(5000)
    assert (v.winner, v.order, v.margin_us) == (2, (2, 0), 3500)
    r.open(0)  # the next race: every seat again
    assert r.press(1, 10) == COUNTED and not r.all_in()


def test_a_tie_is_measured_from_the_first_press_alone_SP34():
    """0.0, 0.8 and 1.6 ms with a 1 ms window: the third is 0.8 ms after the
    second but 1.6 ms after the first, so it is not in the tie."""
    from speedref.arbiter import Race
    r = Race(3, 1000)
    r.open(0)
    for seat, t in ((0, 100), (1, 900), (2, 1700)):
        r.press(seat, t)
    v = r.decide(3000)
    assert v.winner is None and v.tie == (0, 1) and v.order == (0, 1, 2)
    r.open(0)
    for seat, t in ((0, 100), (1, 400), (2, 2100)):
        r.press(seat, t)
    assert r.decide(3000).tie == (0, 1)
