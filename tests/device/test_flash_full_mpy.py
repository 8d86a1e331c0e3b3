"""A full flash never loses a finished game, on a real littlefs: the
MicroPython Unix port's own VfsLfs2 on a RAM block device of 4 KB blocks,
mounted where the store lives and filled up with other files.  A Speed
match of one deal is played through the app to its final OK, the flash
full from before its first save or only at its end, with or without older
records on it (tests/device/test_flash_full.py plays every game on a fake flash
on CPython).
"""
import json

import pytest

import mpyrun

DRIVER = r'''
import json, os
from app_rig import Rig, play_deal, speed_opts, OK
from speedref import storage

class RAM:
    def __init__(self, bs, n):
        self.bs = bs
        self.n = n
        self.data = bytearray(bs * n)
    def readblocks(self, b, buf, off=0):
        a = b * self.bs + off
        buf[:] = self.data[a:a + len(buf)]
    def writeblocks(self, b, buf, off=None):
        a = b * self.bs + (off or 0)
        self.data[a:a + len(buf)] = buf
    def ioctl(self, op, arg):
        if op == 4:
            return self.n
        if op == 5:
            return self.bs
        if op == 6:
            a = arg * self.bs
            self.data[a:a + self.bs] = b"\xff" * self.bs
            return 0

dev = RAM(4096, 40)
os.VfsLfs2.mkfs(dev)
os.mount(os.VfsLfs2(dev), "/flash")
root = "/flash/data"
os.mkdir(root)
os.mkdir(root + "/rec")
REC = {"game": "speed", "layout": "pagat", "match": {"single": True}, "players": ["P1", "P2"],
       "deals": [{"winner": 0, "left": 12}]}
if OLD:
    for i in range(1, OLD + 1):
        r = dict(REC)
        r["id"] = "old-%d" % i
        storage.write_file(root + "/rec/%08d.json" % i, r)

def fill():
    n = 0
    for size in (4096, 1024, 256, 64, 16):
        while True:
            p = "/flash/junk%03d" % n
            try:
                with open(p, "wb") as f:
                    f.write(b"j" * size)
                n += 1
            except OSError:
                try:
                    os.remove(p)
                except OSError:
                    pass
                break

def unfill():
    for name in os.listdir("/flash"):
        if name.startswith("junk"):
            os.remove("/flash/" + name)

if FILL == "start":
    fill()
rig = Rig(root)
rig.tap(OK)  # the menu
rig.app.start("speed", rig.t, speed_opts(match="single"))
play_deal(rig, 1, 9)  # the final screen
if FILL == "end":
    fill()
rig.tap(OK)  # store it
out = {"screen": type(rig.app.screen).__name__, "saved": "game.json" in os.listdir(root)}
if out["screen"] == "Unstored":
    out["text"] = " ".join(rig.app.screen.lines)
    unfill()
    rig.tap(OK)  # try again
    out["then"] = type(rig.app.screen).__name__
rec = []
for name in sorted(os.listdir(root + "/rec")):
    if name.endswith(".json"):
        rec.append(rig.store._read(root + "/rec/" + name)[1]["id"])
out["records"] = rec
out["saved_after"] = "game.json" in os.listdir(root)
out["lines"] = [l for l in rig.log.lines if l["ev"] in ("error", "game_end")]
print(json.dumps(out))
'''


def run(old, fill):
    code = "OLD = %d\nFILL = %r\n" % (old, fill) + DRIVER
    r = mpyrun.run(code=code, use_mpy=False, heap="256wK")
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("fill", ["start", "end"])
def test_older_records_make_room_on_littlefs(fill):
    got = run(8, fill)
    room = [l for l in got["lines"] if l["ev"] == "error" and l["what"] == "room"]
    assert room and [l["id"] for l in room] == ["old-%d" % (i + 1) for i in range(len(room))]
    assert got["screen"] == "Games"
    assert got["records"][-1].endswith("-9"), got["records"]
    assert not got["saved_after"]
    assert [l["ev"] for l in got["lines"]].count("game_end") == 1


@pytest.mark.parametrize("fill", ["start", "end"])
def test_with_nothing_to_remove_the_game_waits_for_room_on_littlefs(fill):
    got = run(0, fill)
    assert got["screen"] == "Unstored" and "not stored" in got["text"].lower()
    if fill == "end":
        assert got["saved"], "the save was cleared"
    assert got["then"] == "Games"
    assert len(got["records"]) == 1 and not got["saved_after"]
    assert [l["ev"] for l in got["lines"]].count("game_end") == 1
    assert [l for l in got["lines"] if "record not stored" in l.get("msg", "")]
