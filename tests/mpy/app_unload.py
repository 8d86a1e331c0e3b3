"""Start and abandon each game in turn through the app; print the live heap
after each return to the menu (after gc.collect), which of the modules a
running game does not use (the menu, the registry, the tunables) were
loaded while each game ran, the screen the next event
showed after it was abandoned, and any module a closed game left loaded."""
import gc
import sys
from app_rig import Rig
from speedref.games import IDS

root = sys.argv[1]
rig = Rig(root)
n = 2 * len(IDS)
out = [0] * n  # lists made whole first: one that grows would show in the heap
during = [0] * n  # bit k: UNUSED[k] was loaded while the game ran
after = [None] * n  # the screen once an event has followed the abandon
UNUSED = ("speedref.app.menu", "speedref.games", "speedref.tunables")
base = tuple(sys.modules)  # what the app loaded at boot
extra = []  # modules a closed game left loaded
i = 0
for rnd in range(2):
    for game in IDS:
        rig.app.start(game, rig.t)
        assert rig.app.flow is not None, game
        for k in range(len(UNUSED)):
            if UNUSED[k] in sys.modules:
                during[i] |= 1 << k
        rig.app.abandon()
        rig.wait(1000)  # a tick: the menu comes back once the event is over
        after[i] = type(rig.app.screen).__name__
        for m in sys.modules:
            if m not in base and m not in extra:
                extra.append(m)
        rig.log.lines.clear()  # the rig keeps every log line; the board prints them
        gc.collect()
        out[i] = gc.mem_alloc()
        i += 1
print(" ".join([str(x) for x in out]))
print("loaded", " ".join(sorted([m for m in sys.modules if m.endswith("_flow")])))
print("during", " ".join([str(x) for x in during]))
print("after", " ".join(after))
print("extra", " ".join(extra) or "-")
