"""Heap headroom of a Long Speed Run through the app, on the real MicroPython
Unix port, the modules it needs compiled to .mpy with the real mpy-cross
(into a private directory, as tests/app/test_app_speedrun_mpy.py does).

Prints:
  1. heap after each hand of a Long game under -X heapsize=64wK (the driver
     collects after each hand to measure: gc.mem_alloc(), gc.mem_free() and
     the largest free block from micropython.mem_info());
  2. the largest allocation a save needs: the size of the saved state after
     the last hand and of the final record (the JSON body), and the smallest
     hole a save / add_record succeeds in when every free block of the heap
     is at most that big (the heap is filled with equal blocks and every
     other one freed);
  3. the smallest -X heapsize=NwK (bisection, N in words x 1024) that
     completes the Long game through the app, with the flow's gc.collect()
     calls at all three sites (trick, hand end, final record), at some,
     and at none.

Numbers are for the 64-bit Unix port (a GC block is 32 bytes here, 16 on a
32-bit board; NwK means the same word count on both).

    make mpy  (not needed: this compiles its own copy)
    .venv/bin/python benchmarks/bench_speedrun_heap.py [SEED] [--rev=GITREV]

--rev=GITREV takes engine/speedrun.py, storage.py and app/speedrun_flow.py
from that revision (the rest of the app as in the tree): before/after.
The variants with the flow's collects switched off need the flow to call
gc.collect() through its module's `gc` (they replace it).
"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "mpy"), str(ROOT / "firmware"), str(ROOT)]
import conftest  # noqa: E402,F401  (framebuf shim for CPython)
import mpyrun  # noqa: E402
import mpyhelp  # noqa: E402
from host_tools.board.build import mpy_cross_path  # noqa: E402

MODULES = mpyhelp.app_modules("speedrun")
BLOCK = 32  # bytes per GC block on the 64-bit Unix port

# Replaces the flow's `gc` with one that collects only at the call sites in
# KEEP: "trick" (in _trick, before the trick is recorded), "hand" (in
# _finish_hand, 12 tricks in) or "final" (OK on FINAL, before the record).
# A site the flow no longer has (see --rev for older flows) is never reached.
SOME_GC = """
import gc as _gc
import speedref.app.speedrun_flow as _F
KEEP = %r
RIG = [None]
class _SomeGC:
    @staticmethod
    def collect():
        f = RIG[0].app.flow
        if f.phase == _F.FINAL:
            site = "final"
        elif f.g.tricks_played() == 12:
            site = "hand"
        else:
            site = "trick"
        if site in KEEP:
            _gc.collect()
_F.gc = _SomeGC
"""
VARIANTS = (("trick", "hand", "final"), ("hand", "final"), ("hand",), ("final",), ())

GAME = """
import json, gc, micropython
import app_speedrun_game as G
from app_rig import Rig
from speedref.app.core import OK
MEASURE = %r

def max_free():
    # micropython.mem_info() prints "... max free sz: N" (in GC blocks)
    micropython.mem_info()

rig = Rig(%r, log=G.FileLog(%r))
RIG[0] = rig
f = open(%r)
length = json.loads(f.readline())["length"]
rig.app.start("speedrun", rig.t, {"length": length})
i = 0
for line in f:
    h = json.loads(line)
    line = None
    if i == 0 and h.get("first", 0) != 0:
        rig.tap(h["first"])
    G.play_hand(rig, h)
    rig.tap(OK)
    rig.sounds = []
    h = None
    i += 1
    if MEASURE:
        gc.collect()
        print("HAND", i, gc.mem_alloc(), gc.mem_free())
        max_free()
f.close()
rig.tap(OK)
print("DONE", len(rig.log.of("game_end")))
"""

# Fill the heap with HOLE-byte blocks, free every other one, then save.
HOLES = """
import json, gc
from speedref.storage import Store
from heapfrag import fragment
HOLE = %d
f = open(%r)
state = json.loads(f.readline())
rec = json.loads(f.readline())
f.close()
s = Store(%r, uid="ab")
what = %r
slots = fragment(HOLE, 4000)
try:
    if what == "save":
        s.save_game(state)
    else:
        s.add_record(rec)
    print("OK")
except MemoryError:
    print("MEMORY")
"""


OWNED = ("speedref/engine/speedrun.py", "speedref/storage.py", "speedref/app/speedrun_flow.py")


def compile_dir(tmp, rev=None):
    """The modules as .mpy; with `rev`, the Speed Run engine, flow and storage
    as they were at that git revision (everything else as in the tree), to
    compare before and after on the same app."""
    d = mpyhelp.compile_modules(tmp / "mpy", MODULES)
    if rev:
        for rel in OWNED:
            src = tmp / "old" / rel
            src.parent.mkdir(parents=True, exist_ok=True)
            src.write_bytes(subprocess.run(["git", "show", "%s:firmware/%s" % (rev, rel)], cwd=ROOT,
                                           check=True, capture_output=True).stdout)
            subprocess.run([mpy_cross_path(), "-s", rel, "-o", str(d / rel.replace(".py", ".mpy")),
                            str(src)], check=True, capture_output=True)
    for name in ("app_rig", "app_speedrun_game"):
        subprocess.run([mpy_cross_path(), "-s", name + ".py", "-o", str(d / (name + ".mpy")),
                        str(mpyrun.SUPPORT / (name + ".py"))], check=True, capture_output=True)
    return d


def game(mpy, tmp, path, heap, measure, keep):
    root = tempfile.mkdtemp(dir=tmp)
    code = SOME_GC % (tuple(keep),) + GAME % (measure, root, root + "/usb.log", str(path))
    return mpyrun.run(code=code, heap=heap, use_mpy=False, extra_path=[mpy], check=False)


def completes(mpy, tmp, path, kw, keep):
    r = game(mpy, tmp, path, "%dwK" % kw, False, keep)
    return r.returncode == 0 and "DONE 1" in r.stdout


def smallest_heap(mpy, tmp, path, keep, lo=16, hi=128):
    """Smallest N (in wK) the game completes in; completing is not strictly
    monotonic in N (fragmentation), so the answer is checked at N+1, N+2."""
    if not completes(mpy, tmp, path, hi, keep):
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if completes(mpy, tmp, path, mid, keep):
            hi = mid
        else:
            lo = mid
    above = [completes(mpy, tmp, path, hi + k, keep) for k in (1, 2, 3)]
    return hi, above


def per_hand(mpy, tmp, path, keep):
    r = game(mpy, tmp, path, "64wK", True, keep)
    rows = []
    cur = None
    for line in r.stdout.splitlines():
        if line.startswith("HAND"):
            _, i, alloc, free = line.split()
            cur = [int(i), int(alloc), int(free)]
        m = re.search(r"max free sz: (\d+)", line)
        if m and cur is not None:
            cur.append(int(m.group(1)) * BLOCK)
            rows.append(cur)
            cur = None
    ok = r.returncode == 0 and "DONE 1" in r.stdout
    return rows, ok, (r.stderr or r.stdout)[-400:]


def smallest_hole(mpy, tmp, data, what):
    for hole in range(128, 8192, 128):
        root = tempfile.mkdtemp(dir=tmp)
        r = mpyrun.run(code=HOLES % (hole, str(data), root, what), heap="64wK", use_mpy=False,
                       extra_path=[mpy], check=False)
        if r.returncode == 0 and r.stdout.strip().endswith("OK"):
            return hole
    return None


def main():
    from speedrun_golden import play
    import app_speedrun_game as G
    args = [a for a in sys.argv[1:] if not a.startswith("--rev=")]
    revs = [a[6:] for a in sys.argv[1:] if a.startswith("--rev=")]
    rev = revs[0] if revs else None
    seed = int(args[0]) if args else 7
    rec = play(seed, "long")[1]
    rec["players"] = ["P1", "P2", "P3"]
    tmp = Path(tempfile.mkdtemp())
    path = tmp / "rec.jsonl"
    G.write_record(str(path), rec)
    mpy = compile_dir(tmp, rev)
    print("Long Speed Run, seed %d, %d hands, through the app (.mpy, MicroPython Unix port)%s"
          % (seed, len(rec["hands"]), (", engine/flow/storage at " + rev) if rev else ""))

    for keep in (VARIANTS[0], VARIANTS[-1]):
        rows, ok, err = per_hand(mpy, tmp, path, keep)
        print("\nheap after each hand at 64wK, flow's gc.collect() at: %s" % (", ".join(keep) or "none"))
        print("  hand  alloc  free  largest-free-block")
        for i, a, f, m in rows:
            print("  %4d %6d %6d %6d" % (i, a, f, m))
        if rows:
            print("  growth per hand (hands 2..%d): %d bytes" % (
                rows[-1][0], (rows[-1][1] - rows[0][1]) // max(1, rows[-1][0] - 1)))
        print("  game completed:", ok, "" if ok else err)

    # The state saved after the last hand, as the flow saves it (the app
    # wraps it) and the record: the largest JSON bodies of the game.
    from speedref.storage import Store
    cp = tmp / "cp"
    cp.mkdir()
    import app_rig
    rig = app_rig.Rig(str(cp), log=G.FileLog(str(cp / "usb.log")))
    G.play_game(rig, str(path))
    saves = []
    orig = Store.save_game

    def spy(self, d):
        saves.append(d)
        return orig(self, d)
    Store.save_game = spy
    (tmp / "cp2").mkdir()
    rig2 = app_rig.Rig(str(tmp / "cp2"), log=G.FileLog(str(tmp / "usb2.log")))
    rig2.app.start("speedrun", rig2.t, {"length": "long"})
    with open(path) as f:
        f.readline()
        hands = [json.loads(x) for x in f]
    for i, h in enumerate(hands):
        if i == 0 and h.get("first", 0):
            rig2.tap(h["first"])
        G.play_hand(rig2, h)
        rig2.tap(app_rig.OK)
    Store.save_game = orig
    state = saves[-1]
    record = rig.log.of("game_end")[-1]["record"]
    data = tmp / "bodies.jsonl"
    data.write_text(json.dumps(state) + "\n" + json.dumps(record) + "\n")
    print("\nlargest JSON bodies: saved state after hand %d = %d bytes, record = %d bytes"
          % (len(hands), len(json.dumps(state)), len(json.dumps(record))))
    print("smallest free-block size a save succeeds in (heap holed at 64wK):")
    print("  save_game(state):  %s bytes" % smallest_hole(mpy, tmp, data, "save"))
    print("  add_record(record): %s bytes" % smallest_hole(mpy, tmp, data, "record"))

    print()
    for keep in VARIANTS:
        got = smallest_heap(mpy, tmp, path, keep)
        print("smallest heap completing the game, flow's gc.collect() at %s: %s"
              % (", ".join(keep) or "none", "none up to 128wK" if got is None else
                 "%dwK (N+1..N+3 complete: %s)" % got))


if __name__ == "__main__":
    main()
