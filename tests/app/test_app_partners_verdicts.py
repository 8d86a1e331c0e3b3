"""Partners' trick entries as the table sees them (the flow's `# verdict`
methods, which `make mutate` mutates: docs/testing.md).  Rule numbers are
from seeds/partners.md."""
import app_partners_game as d
from app_partners_game import Table
from speedref.app.core import UP, DOWN, OK
from speedref.app import partners_flow as pf


def test_only_a_pad_enters_a_trick_the_buttons_say_nothing_PT13(rig):
    """PT-13: the trick's winner taps their pad.  UP, DOWN and OK on the
    trick screen are no seat: no trick, no refusal, no sound."""
    d.start(rig)
    t = Table()
    d.enter_contract(rig, t, 9, "hearts", 1, 2)
    f = rig.app.flow
    d.play_tricks(rig, t, [1, 0])
    n = len(rig.sounds)
    for b in (UP, DOWN, OK):
        d.tap(rig, b)
    assert f.phase == pf.TRICKS and f.game.tricks == [1, 1, 0, 0] and f.game.tricks_played == 2
    assert rig.log.of("error") == [] and rig.sounds[n:] == []
    d.play_tricks(rig, t, [3])
    assert f.game.tricks == [1, 1, 0, 1]
