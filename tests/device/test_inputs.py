"""The input decoder: ties in one snapshot, bouncing contacts,
a pad held for minutes, resync.  Every clock starts just before the 2**30 tick wrap."""
from speedref.inputs import Inputs
from speedref.ticks import ticks_add, ticks_diff

START = (1 << 30) - 3000  # 3 ms before the wrap


class Rec:
    def __init__(self):
        self.ev = []

    def press(self, b, t):
        self.ev.append(("press", b, t))

    def release(self, b, t):
        self.ev.append(("release", b, t))


def at(us):
    return ticks_add(START, us)


def make(**kw):
    app = Rec()
    stuck = []
    inp = Inputs(app, on_stuck=lambda b, held: stuck.append((b, held)), **kw)
    return app, inp, stuck


def test_two_pads_in_one_snapshot_reach_the_app_with_one_timestamp():
    """A tie: same t for both pads."""
    app, inp, _ = make()
    inp.feed(at(100), 0b0011)
    assert app.ev == [("press", 0, at(100)), ("press", 1, at(100))]


def test_press_and_release_across_the_wrap():
    app, inp, _ = make()
    inp.feed(at(1000), 0b0100)
    inp.tick(at(20000))  # after the wrap: at(20000) is a small number
    inp.feed(at(50000), 0)
    assert at(50000) < at(1000)
    assert app.ev == [("press", 2, at(1000)), ("release", 2, at(50000))]


def test_bouncing_contact_ten_edges_in_two_ms_is_one_press():
    """10 edges in 2 ms (raw snapshots, as the PIO path delivers them) -> one press."""
    app, inp, _ = make()
    level = 0
    for i in range(10):
        level ^= 1
        inp.feed(at(i * 200), level)  # ends released? 10 toggles -> 0
        inp.tick(at(i * 200 + 100))
    inp.feed(at(2000), 1)  # contact settles closed
    for t in range(2100, 30000, 1000):
        inp.tick(at(t))
    assert app.ev == [("press", 0, at(0))]
    assert inp.held(0)


def test_tap_shorter_than_the_lockout_is_resynced_by_tick_with_its_real_time():
    """A missed release (inside the lockout, nothing after) is passed on when the lockout ends."""
    app, inp, _ = make(bounce_us=10000)
    inp.feed(at(0), 0b1000000)  # OK pressed
    inp.feed(at(4000), 0)  # released 4 ms later: inside the lockout
    inp.tick(at(9999))
    assert app.ev == [("press", 6, at(0))]
    inp.tick(at(10000))
    assert app.ev == [("press", 6, at(0)), ("release", 6, at(4000))]
    assert not inp.held(6)


def test_missed_edge_heals_from_the_next_snapshot():
    """An overflowed ring may lose the release of P2; the next snapshot shows it up."""
    app, inp, _ = make()
    inp.feed(at(0), 0b10)
    # (the snapshot with P2 released was dropped)
    inp.feed(at(500000), 0b01)
    assert app.ev == [("press", 1, at(0)), ("press", 0, at(500000)), ("release", 1, at(500000))]


def test_pad_held_for_minutes_reported_stuck_once_then_works_again():
    """A pad held for 20 minutes (longer than the 17.9-minute tick wrap) is reported once."""
    app, inp, stuck = make(stuck_us=60000000)
    inp.feed(at(0), 0b0001)
    t = 0
    while t < 20 * 60 * 1000000:
        inp.tick(at(t))
        t += 50000  # a loop every 50 ms
    assert stuck == [(0, 60000000)]
    # the other pads keep working meanwhile
    inp.feed(at(t), 0b0011)
    inp.feed(at(t + 100000), 0b0001)
    inp.feed(at(t + 200000), 0)
    assert app.ev == [("press", 0, at(0)), ("press", 1, at(t)), ("release", 1, at(t + 100000)),
                      ("release", 0, at(t + 200000))]
    # a fresh long hold is reported again
    inp.feed(at(t + 300000), 0b0001)
    for k in range(0, 61):
        inp.tick(at(t + 300000 + k * 1000000))
    assert len(stuck) == 2


def test_all_buttons_at_once():
    app, inp, _ = make()
    inp.feed(at(7), 0xFF)
    assert [e[1] for e in app.ev] == list(range(8))
    assert all(e[2] == at(7) for e in app.ev)
    inp.tick(at(20000))
    inp.feed(at(30000), 0)
    assert [e[0] for e in app.ev[8:]] == ["release"] * 8


def test_bits_beyond_the_buttons_are_ignored():
    app, inp, _ = make(buttons=4)
    inp.feed(at(0), 0xF0)
    assert app.ev == []


def test_ticks_helper_wraps_like_a_board():
    assert ticks_diff(at(3001), at(2999)) == 2
    assert at(3001) == 1


def test_event_stamped_after_the_loops_now_keeps_its_lockout():
    """The loop reads `now`, then drains: a press stamped after `now` is not
    an expired lockout, so its bounce 2 ms later stays hidden (a Spit hold
    must not turn into a tap)."""
    app, inp, _ = make(bounce_us=10000)
    inp.feed(at(100), 0b0001)  # press stamped 100 us after the loop's now
    inp.tick(at(0))  # the same pass's tick, with the earlier now
    inp.feed(at(2000), 0)  # contact bounce
    inp.feed(at(2300), 0b0001)
    inp.tick(at(1000))
    inp.tick(at(20000))
    assert app.ev == [("press", 0, at(100))]
    assert inp.held(0)


def test_a_lockout_never_ticked_for_half_a_wrap_is_not_stuck():
    """No tick for 2**29 us (the lockout's age reads negative): stale, not held."""
    app, inp, _ = make(bounce_us=10000)
    inp.feed(at(0), 0b0001)
    late = ticks_add(START, (1 << 29) + 5000)
    assert ticks_diff(late, at(0)) < 0
    inp.feed(late, 0)
    assert app.ev == [("press", 0, at(0)), ("release", 0, late)]
