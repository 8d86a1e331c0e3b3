"""app/timing.py: the countdown and the tapped-or-held pad that Speed (SP-6,
SP-14, SP-16), Spit (SPIT-4, SPIT-8, SPIT-9, SPIT-18) and Speed Run (SR-11,
SR-21) time with.  Times start just before the 2**30 ticks wrap, so a
comparison that forgets ticks_diff fails here."""
import json

import pytest

import mpyrun
from speedref.ticks import ticks_add
from speedref.app.core import COUNT
from speedref.app.timing import Countdown, PadHold

T0 = (1 << 30) - 1500000  # GO of a countdown started here falls after the wrap
S = 1000000


class FakeApp:
    def __init__(self):
        self.sounds = []
        self.redraws = 0
        self.wakes = []  # the instants the countdown asked the loop to tick it at

    def sound(self, s):
        self.sounds.append(s)

    def redraw(self):
        self.redraws += 1

    def wake(self, t_us):
        self.wakes.append(t_us)

    def quiet(self):
        pass


def at(us):
    return ticks_add(T0, us)


# ---- Countdown -------------------------------------------------------------
def test_countdown_beeps_each_second_and_go_is_exactly_three_seconds_SP6_SPIT4():
    app = FakeApp()
    c = Countdown(app)
    assert c.tick(at(0)) is False and app.redraws == 0  # not started: silent
    c.start(at(0))
    seen = []
    for t in (0, 1, S - 1, S, 2 * S - 1, 2 * S, 3 * S - 1):
        assert c.tick(at(t)) is False
        seen.append((t, c.shown(), len(app.sounds)))
    assert seen == [(0, 3, 1), (1, 3, 1), (S - 1, 3, 1), (S, 2, 2), (2 * S - 1, 2, 2),
                    (2 * S, 1, 3), (3 * S - 1, 1, 3)]
    assert app.sounds == [COUNT] * 3 and app.redraws == 3
    assert c.tick(at(3 * S)) is True  # GO at exactly +3 s, once
    assert c.shown() == 0 and app.redraws == 4 and len(app.sounds) == 3
    assert c.tick(at(3 * S)) is False and c.tick(at(9 * S)) is False


def test_countdown_asks_the_loop_to_tick_it_at_each_cue_and_at_go_SP6_SPIT4():
    """The loop may nap between events: the countdown asks for a tick at the
    instant of its next cue (App.wake), so 2, 1 and GO come on the beat."""
    app = FakeApp()
    c = Countdown(app)
    c.start(at(0))
    assert app.wakes == [at(0)]  # "3" at once
    for t, due in ((0, S), (S - 1, S), (S, 2 * S), (2 * S, 3 * S), (3 * S - 1, 3 * S)):
        del app.wakes[:]
        c.tick(at(t))
        assert app.wakes == [at(due)], "at +%d us the next cue is due at +%d us" % (t, due)
    del app.wakes[:]
    assert c.tick(at(3 * S)) is True and app.wakes == []  # GO given: nothing more is timed


def test_a_called_off_countdown_asks_for_a_tick_when_it_is_over_SP22_SPIT18():
    app = FakeApp()
    c = Countdown(app)
    c.start(at(0))
    c.false_start(0, at(S))  # called off until GO at +3 s (later than +1.5 s)
    assert at(3 * S) in app.wakes
    del app.wakes[:]
    assert c.resumes(at(3 * S - 1)) is False and app.wakes == [at(3 * S)]
    assert c.resumes(at(3 * S)) is True


def test_countdown_late_tick_gives_every_missed_cue_in_order():
    app = FakeApp()
    c = Countdown(app)
    c.start(at(0))
    assert c.tick(at(2 * S + 5)) is False  # "3", "2", "1" all at once
    assert app.sounds == [COUNT] * 3 and app.redraws == 3 and c.shown() == 1
    c.start(at(10 * S))  # a new countdown (Speed's FLIP, Spit's RESTART)
    assert c.tick(at(14 * S)) is True and app.sounds == [COUNT] * 6 and app.redraws == 7


def test_countdown_a_press_before_go_is_early_at_go_belongs_to_play_SP6_SPIT18():
    c = Countdown(FakeApp())
    c.start(at(0))
    assert c.early_us(at(0)) == 3 * S
    assert c.early_us(at(3 * S - 1)) == 1  # 1 us early is a false start
    assert c.early_us(at(3 * S)) == 0      # at GO: play
    assert c.early_us(at(3 * S + 250)) == -250
    c.go()  # the press after GO came before the tick: GO now, once
    assert c.shown() == 0 and c.tick(at(3 * S)) is False


# ---- PadHold -----------------------------------------------------------------
def test_padhold_tap_and_hold_boundary_belongs_to_the_hold_SP14_SP16():
    p = PadHold(500000)
    p.press(at(0), True)
    assert p.down and p.live and p.t == at(0)
    assert not p.held(at(499999))
    assert p.release(at(499999)) is True  # let go in time: a tap
    assert not p.down and not p.live
    p.press(at(S), True)
    assert p.release(at(S + 500000)) is False  # no tick came, but 0.5 s down is a hold


def test_padhold_a_hold_is_reported_once_and_letting_go_is_no_tap_SP14_SR21():
    p = PadHold(800000)
    p.press(at(0), True)
    assert not p.held(at(799999))
    assert p.held(at(800000)) is True
    assert p.held(at(900000)) is False and p.down and not p.live
    assert p.release(at(950000)) is False


def test_padhold_a_press_that_is_not_live_means_nothing_but_is_down():
    p = PadHold(500000)
    p.press(at(0), False)  # e.g. in the countdown, the layout screen
    assert p.down and not p.held(at(5 * S)) and p.release(at(100)) is False
    p.press(at(0), True)
    p.cancel()  # GO came, a false start
    assert p.down and not p.held(at(S)) and p.release(at(100)) is False
    p.press(at(0), True)
    p.forget()  # the pause menu opened
    assert not p.down and not p.held(at(S)) and p.release(at(100)) is False


def test_timing_allocates_nothing_under_micropython(tmp_path):
    """Press, tick and release paths run inside micropython.heap_lock() (the
    flows call them from their press handlers)."""
    if not mpyrun.MICROPYTHON.exists():
        pytest.skip("no micropython binary")
    code = """
import json, gc, micropython
from speedref.app.timing import Countdown, PadHold
class A:
    def __init__(self):
        self.n = 0
    def sound(self, s):
        self.n += 1
    def redraw(self):
        self.n += 1
    def wake(self, t_us):
        self.n += 1
    def quiet(self):
        self.n += 1
t = (1 << 30) - 1500000
c = Countdown(A())
p = PadHold(500000)
c.start(t)
out = [False] * 6
gc.collect()
micropython.heap_lock()
try:
    out[0] = c.tick(t + 2000000)
    out[1] = c.early_us(t + 2999999) > 0
    p.press(t + 1000, True)
    out[2] = p.held(t + 600000)
    out[3] = p.release(t + 700000)
    p.press(t + 800000, True)
    out[4] = p.release(t + 900000)
    out[5] = c.tick(t + 3000000)
except MemoryError:
    out = None
micropython.heap_unlock()
print(json.dumps(out))
"""
    r = mpyrun.run(code=code, heap="64wK", use_mpy=False)
    assert json.loads(r.stdout.strip().splitlines()[-1]) == [False, True, True, False, True, True]
