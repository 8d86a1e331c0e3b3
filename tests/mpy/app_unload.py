"""Start and abandon each game in turn through the app; print the live heap
after each return to the menu (after gc.collect)."""
import gc
import sys
from app_rig import Rig
from speedref.games import IDS

root = sys.argv[1]
rig = Rig(root)
out = []
for rnd in range(2):
    for game in IDS:
        rig.app.start(game, rig.t)
        assert rig.app.flow is not None, game
        rig.app.abandon()
        rig.log.lines.clear()  # the rig keeps every log line; the board prints them
        gc.collect()
        out.append(gc.mem_alloc())
print(" ".join([str(x) for x in out]))
print("loaded", " ".join(sorted([m for m in sys.modules if m.endswith("_flow")])))
