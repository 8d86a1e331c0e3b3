"""The tick a release runs first (App.release: what was due by the release
happens before it, SP-26, SPIT-21, SR-32) runs when something can be due:
an event came since the last tick, or the earliest instant a flow asked to
be ticked at (App.wake) has come.  Every timed rule asks for its instant
from its tick, so a release with nothing due goes straight to the flow
(Speed's slap-to-win verdict, SP-17, is decided at the later release)."""
from app_rig import MS, speed_opts, start_deal
from app_spit_game import spit_opts, start_round, slap
from speedref.app.core import UP
from speedref.app import speed_flow as sf
from speedref.app import spit_flow as sp
from speedref.tunables import REPEAT_US, REPEAT_EVERY_US, SPEED_HOLD_US


def _count_ticks(flow):
    n = []
    tick = flow.tick

    def counted(now_us):
        n.append(now_us)
        tick(now_us)
    flow.tick = counted
    return n


def test_a_held_key_asks_for_its_next_repeat_SPIT12(rig):
    """UP held on the count: each repeat's instant is asked for (App.wake),
    so the loop's nap ends on it and a release after it sees it first."""
    rig.app.start("spit", rig.t, spit_opts())
    f = rig.app.flow
    start_round(rig)
    rig.tap(0)
    slap(rig, 1, 7300)
    assert f.phase == sp.CARDS
    rig.press(UP)
    t0 = rig.t
    rig.app.tick(rig.t + 1000)
    assert rig.app.due == t0 + REPEAT_US, "SPIT-12: the first repeat's instant"
    rig.app.tick(t0 + REPEAT_US)
    assert rig.app.due == t0 + REPEAT_EVERY_US + REPEAT_US, "SPIT-12: the next repeat's"


def test_a_release_with_nothing_due_runs_no_tick_first_SP17(rig):
    rig.app.start("speed", rig.t, speed_opts(slap_to_win=True))
    start_deal(rig)
    f = rig.app.flow
    rig.press(1)
    rig.wait(8 * MS)
    rig.press(0)
    rig.wait(50 * MS)
    ticks = _count_ticks(f)
    rig.app.release(0, rig.t)  # the last tick came after every press: nothing due yet
    assert ticks == [], "the race asked for the hold threshold, which is 0.44 s away"
    rig.app.tick(rig.t + 1000)
    del ticks[:]
    rig.t += 2000
    rig.app.release(1, rig.t)
    assert ticks == [] and f.phase == sf.CLAIM and f.deal.claimant == 1, "SP-17"


def test_a_release_after_its_hold_threshold_still_ticks_first_SP26(rig):
    """P2 stuck; P1 ticked while down, then let go after the threshold with
    no tick in between: P1's hold (stuck, SP-14) comes first, as SP-26 says,
    and both stuck start the flip."""
    rig.app.start("speed", rig.t, speed_opts())
    start_deal(rig)
    f = rig.app.flow
    rig.press(1)
    rig.wait(SPEED_HOLD_US)  # P2 stuck
    rig.press(0)
    rig.app.tick(rig.t + 1000)
    ticks = _count_ticks(f)
    rig.app.release(0, rig.t + SPEED_HOLD_US + 1000)
    assert ticks == [rig.t + SPEED_HOLD_US + 1000], "SP-26: the tick first"
    assert f.phase == sf.FLIP, "SP-26: both stuck, the flip countdown runs"


def test_a_release_in_the_pass_of_its_press_ticks_first_SP26(rig):
    """Pressed and let go in one pass (no tick between, the loop was held):
    the tick runs first, whatever was asked before the press."""
    rig.app.start("speed", rig.t, speed_opts())
    start_deal(rig)
    f = rig.app.flow
    rig.press(1)
    rig.wait(SPEED_HOLD_US)  # P2 stuck
    rig.app.press(0, rig.t)
    ticks = _count_ticks(f)
    rig.app.release(0, rig.t + SPEED_HOLD_US + 1000)
    assert ticks, "SP-26: the tick first"
    assert f.phase == sf.FLIP, "SP-26: both stuck, the flip countdown runs"
