"""A slap verdict's frame is complete in the frame buffer before the pass
builds the slap's log line (SP-17, SPIT-10): the players look at the pads and
the panel at that instant, and the line (a dict, its lists) and the rest of
the bookkeeping can wait for the pass's end.  The order is checked on what
the app does, not on a clock: when the flow queues the slap line, App.buf
already holds the frame the pass ends with."""
from app_rig import MS, speed_opts, start_deal
from app_spit_game import spit_opts, start_round, slap
from speedref.app import speed_flow as sf
from speedref.app import spit_flow as sp


def _watch_slap_line(rig):
    """Snapshot App.buf at the moment the flow queues its slap line."""
    app = rig.app
    seen = []
    emit = app.emit

    def watched(obj):
        if obj.get("ev") == "slap":
            seen.append((bytes(app.buf), app._redraw))
        emit(obj)
    app.emit = watched
    return seen


def test_speed_slap_to_win_frame_is_drawn_before_its_log_line_SP17(rig):
    rig.app.start("speed", rig.t, speed_opts(slap_to_win=True))
    start_deal(rig)
    f = rig.app.flow
    seen = _watch_slap_line(rig)
    rig.press(1)
    rig.wait(8 * MS)  # outside the tie window (5 ms without a board)
    rig.press(0)
    rig.wait(50 * MS)
    rig.release(0)
    rig.wait(1 * MS)
    rig.release(1)
    assert f.phase == sf.CLAIM and f.deal.claimant == 1, "SP-17: the first slap wins"
    assert len(seen) == 1, "one slap line"
    buf, redraw_due = seen[0]
    assert not redraw_due, "SP-17: the claim screen was drawn before the slap line was built"
    assert buf == bytes(rig.app.buf), "SP-17: the frame at the slap line is the pass's last"
    assert rig.log.of("slap")[-1]["winner"] == 1


def test_spit_slap_frame_is_drawn_before_its_log_line_SPIT10(rig):
    rig.app.start("spit", rig.t, spit_opts())
    f = rig.app.flow
    start_round(rig)
    rig.tap(0)  # P1 cleared, but still has spit cards: the slap
    assert f.phase == sp.SLAP
    seen = _watch_slap_line(rig)
    slap(rig, 1, 7300)
    assert f.phase == sp.CARDS and f.game.slap_winner == 1, "SPIT-10: the first slap wins"
    assert len(seen) == 1, "one slap line"
    buf, redraw_due = seen[0]
    assert not redraw_due, "SPIT-10: the pile screen was drawn before the slap line was built"
    assert buf == bytes(rig.app.buf), "SPIT-10: the frame at the slap line is the pass's last"
    assert rig.log.of("slap")[-1]["takes_smaller"] == 1
