"""Spit's verdicts as the players see and hear them: who jumped the start,
the restart or the slap's GO, who took the smaller pile and how the pads
show it (the flow's `# verdict` methods, which `make mutate` mutates:
docs/testing.md).  Rule numbers are from seeds/spit.md."""
from app_rig import MS
from app_spit_game import spit_opts, start_round
from mpyhelp import texts_drawn
from rig_steps import press_at, release_at, tick_at
from speedref.app.core import OK, FOUL
from speedref.app import spit_flow as sp
from speedref.ticks import ticks_add
from speedref.tunables import BLINK_US, SLAP_WAIT_US


def _lights(rig, us):
    """The pads' lights at each of the rig's ticks for `us`."""
    out = []
    for _ in range(us // (10 * MS)):
        rig.wait(10 * MS)
        out.append(rig.app.lights)
    return out


def _jump(rig, p, news):
    """Pad p pressed now, the earlier news of the pass `sp._TOP`; the news
    after it must be `news` (the page of the note naming the jumper)."""
    rig.app.news = sp._TOP
    rig.app.press(p, rig.t)
    assert rig.app.news == sp._TOP | news, "the note's line goes first, the title's still does"
    rig._drain()


def _line(rig):
    line = dict(rig.log.of("false_start")[-1])
    assert line.pop("early_us") > 0
    return line


def test_false_starts_are_named_blinked_and_counted_at_the_start_and_the_slap_SPIT18(rig):
    rig.app.start("spit", rig.t, spit_opts())
    f = rig.app.flow
    rig.tap(OK)
    rig.tap(0)
    rig.tap(1)
    rig.wait(1500 * MS)
    _jump(rig, 1, sp._FOOT)
    assert f.note == "False start P2!" and rig.sounds[-1] == FOUL
    assert _line(rig) == {"ev": "false_start", "game": "spit", "round": 1, "seat": 1, "count": 1,
                          "when": "start"}
    seen = _lights(rig, 2 * BLINK_US + 40 * MS)
    assert set(seen) == {0, 2} and seen[0] == 2, "SPIT-18: the jumper's pad, blinking"
    _jump(rig, 0, sp._FOOT)
    assert f.note == "False starts!", "SPIT-18: both jumped: no one name"
    assert _line(rig)["seat"] == 0
    seen = _lights(rig, 2 * BLINK_US + 40 * MS)
    assert set(seen) == {0, 1} and seen[0] == 1
    rig.release(0)
    rig.release(1)
    rig.wait(3000 * MS)
    assert f.phase == sp.READY
    rig.tap(0)
    rig.tap(1)
    rig.wait(1500 * MS)
    _jump(rig, 1, sp._FOOT)  # P2 again: the second jump counts as the second
    assert f.note == "False start P2!"
    assert _line(rig)["count"] == 2
    rig.release(1)
    rig.wait(3000 * MS)
    start_round(rig)  # READY: OK means nothing, the pads call Spit!
    assert f.phase == sp.PLAY
    rig.tap(0)  # P1 cleared: two centre piles, the slap (SPIT-10)
    assert f.phase == sp.SLAP
    rig.wait(300 * MS)
    _jump(rig, 0, sp._NOTE)  # before the slap's GO
    assert f.note == "False start P1!", "SPIT-18: the jumper named on the slap screen"
    assert _line(rig) == {"ev": "false_start", "game": "spit", "round": 1, "seat": 0, "count": 2,
                          "when": "slap"}
    assert "False start P1!" in texts_drawn(rig.app.screen.draw)
    rig.release(0)
    rig.wait(1100 * MS)  # GO again, one second after the jump
    assert f.went and f.note == ""
    assert texts_drawn(rig.app.screen.draw)[-1] == "smaller pile", "SPIT-17: GO clears the note"
    assert f.false_starts == [2, 2]


def _to_slap_go(rig, tie_ms=5):
    rig.app.start("spit", rig.t, spit_opts(tie_ms=tie_ms))
    f = rig.app.flow
    start_round(rig)
    rig.tap(0)
    rig.wait(1000 * MS)
    assert f.phase == sp.SLAP and f.went
    return f


def test_a_lone_slap_is_decided_exactly_a_second_after_it_SPIT17(rig):
    f = _to_slap_go(rig)
    t1 = rig.t
    press_at(rig, 1, t1)
    release_at(rig, 1, ticks_add(t1, 60 * MS))
    tick_at(rig, ticks_add(t1, SLAP_WAIT_US - 1))
    assert f.phase == sp.SLAP, "SPIT-17: the other player has a second to slap"
    tick_at(rig, ticks_add(t1, SLAP_WAIT_US))
    assert f.phase == sp.CARDS and f.game.slap_winner == 1 and f.slap_text == "P2"


def test_a_tie_wakes_the_device_when_the_window_has_passed_lights_both_and_goes_to_the_clearer_SPIT10(rig):
    f = _to_slap_go(rig)
    t1 = rig.t
    press_at(rig, 1, t1)
    press_at(rig, 0, ticks_add(t1, 2 * MS))
    assert f.phase == sp.SLAP
    assert rig.app.due == ticks_add(t1, 5 * MS + 1), "SPIT-10: woken when the tie window has passed"
    tick_at(rig, ticks_add(t1, 5 * MS + 1))
    assert f.phase == sp.CARDS and f.game.slap_winner == 0 and f.slap_text == "Tie 2.0 ms: P1"
    assert rig.app.lights == 3, "a tie: both pads"
    s = rig.log.of("slap")[-1]
    assert s == {"ev": "slap", "game": "spit", "kind": "pile", "round": 1, "cleared": 0,
                 "takes_smaller": 0, "winner": None, "tie": [1, 0], "margin_us": 2 * MS,
                 "presses": [1, 0], "false_starts": []}
