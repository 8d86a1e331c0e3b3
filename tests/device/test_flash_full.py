"""A full flash never loses a finished game (every game).

Each game's committed script is played in the simulator (the firmware's own
app and store) on a fake flash of a fixed size: `os` and `open` in
speedref.storage stand in for a 4 KB-block filesystem that refuses a write
once its blocks are used (ENOSPC), as littlefs does, and whose statvfs says
how many are free.  The flash is filled with other files (junk) either just
before the final OK, or before the game's first save, with or without older
records kept on it:

  - older records on flash: the oldest go first (one `room` line each),
    ahead of time at the game's start and again at its end if need be, and
    the record is stored;
  - nothing to remove: the record cannot be stored, so the save is kept and
    the screen says so; the game_end line still goes out.  Once there is
    room again, OK stores it.

tests/device/test_flash_full_mpy.py does the same on a real littlefs on the
MicroPython Unix port, tests/board/test_board_flash_full.py on the emulated Pico.
"""
import errno
import json
import os

import pytest

from mpyhelp import ROOT
from speedref import storage

GAMES = ("speed", "spit", "speedrun", "partners")
BLOCK = 4096
CAPACITY = 96  # blocks: 384 KB


def blocks(n):
    return max(1, -(-n // BLOCK))


class FullFS:
    """`os` and `open` for speedref.storage over a real directory, with a
    capacity: a file takes whole blocks (at least one), a write that would
    need more than are free raises OSError(ENOSPC) and leaves the file as it
    was before that write."""

    def __init__(self, root, capacity=CAPACITY):
        self.root = os.path.realpath(root)
        self.capacity = capacity

    def used(self, skip=None):
        n = 0
        for d, _dirs, names in os.walk(self.root):
            for name in names:
                p = os.path.join(d, name)
                if p != skip:
                    n += blocks(os.path.getsize(p))
        return n

    def free(self):
        return self.capacity - self.used()

    def statvfs(self, path):
        free = self.free()
        return (BLOCK, BLOCK, self.capacity, free, free, 0, 0, 0, 0, 255)

    def open(self, path, mode="r", *a, **kw):
        f = open(path, mode, *a, **kw)
        if mode in ("r", "rb"):
            return f
        return _Limited(f, self, os.path.realpath(path))

    def __getattr__(self, name):
        return getattr(os, name)


class _Limited:
    def __init__(self, f, fs, path):
        self._f = f
        self._room = fs.capacity - fs.used(skip=path)

    def write(self, data):
        size = max(self._f.tell() + len(data), os.fstat(self._f.fileno()).st_size)
        if blocks(size) > self._room:
            raise OSError(errno.ENOSPC, "no space left on the flash")
        return self._f.write(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()

    def __getattr__(self, name):
        return getattr(self._f, name)


def fill(fs, root):
    """Junk files until the flash has no block free."""
    i = 0
    while fs.free() > 0:
        with open(os.path.join(root, "junk%03d" % i), "wb") as f:
            f.write(b"j" * BLOCK)
        i += 1


def unfill(root):
    for name in os.listdir(root):
        if name.startswith("junk"):
            os.remove(os.path.join(root, name))


def old_records(root, n=10):
    """n records a store kept from earlier games (seq 1..n)."""
    from speedref.engine import records
    os.makedirs(os.path.join(root, "rec"), exist_ok=True)
    rec = {"game": "speed", "layout": "pagat", "match": {"single": True}, "players": ["P1", "P2"],
           "deals": [{"winner": 0, "left": 12}]}
    records.replay(rec)
    for i in range(1, n + 1):
        storage.write_file(os.path.join(root, "rec", "%08d.json" % i), dict(rec, id="old-%d" % i))


@pytest.fixture
def full(monkeypatch, tmp_path):
    root = str(tmp_path / "flash")
    os.makedirs(root)
    fs = FullFS(root)
    monkeypatch.setattr(storage, "os", fs)
    monkeypatch.setattr(storage, "open", fs.open, raising=False)
    return root, fs


def script(game):
    from sim import script as sim_script
    ev = sim_script.parse((ROOT / "tests" / "sim_scripts" / ("%s.txt" % game)).read_text())
    last_ok = max(i for i, e in enumerate(ev) if e[1] == 6 and e[2])  # the final OK's press
    return ev[:last_ok], ev[last_ok:]


def play(root, game, before, fs, fill_at):
    """The game on a simulator board over `root`; the flash filled at
    `fill_at` ("start" or "end"); returns (board, log lines as dicts)."""
    from sim.board import Board
    if fill_at == "start":
        fill(fs, root)
    b = Board(root=root)
    lines = []
    b.on_line = lines.append
    b.step()
    b.start_game(game)
    for t, button, down, _ in before:
        b.event(t, button, down)
    if fill_at == "end":
        fill(fs, root)
    return b, lines


def finish(b, after):
    for t, button, down, _ in after:
        b.event(t, button, down)
    b.run_until(after[-1][0] + 500000)


def stored_games(root):
    out = []
    for name in sorted(os.listdir(os.path.join(root, "rec"))):
        if name.endswith(".json"):
            with open(os.path.join(root, "rec", name), "rb") as f:
                out.append(storage.decode(f.read())[1])
    return out


@pytest.mark.parametrize("fill_at", ["start", "end"])
@pytest.mark.parametrize("game", GAMES)
def test_older_records_make_room_for_the_finished_game(full, game, fill_at):
    root, fs = full
    old_records(root)
    before, after = script(game)
    b, lines = play(root, game, before, fs, fill_at)
    try:
        finish(b, after)
        ends = [l for l in lines if l["ev"] == "game_end"]
        assert len(ends) == 1
        room = [l for l in lines if l["ev"] == "error" and l["what"] == "room"]
        assert room, "no record made room"
        assert [l["id"] for l in room] == ["old-%d" % (i + 1) for i in range(len(room))], \
            "not the oldest first"
        kept = stored_games(root)
        assert kept[-1] == ends[0]["record"], "the finished game is not on flash"
        assert not os.path.exists(os.path.join(root, "game.json"))
        assert not [l for l in lines if l["ev"] == "error" and "not stored" in l.get("msg", "")]
        assert type(b.app.screen).__name__ == "Games"
    finally:
        b.close()


@pytest.mark.parametrize("fill_at", ["start", "end"])
@pytest.mark.parametrize("game", GAMES)
def test_with_nothing_to_remove_the_game_is_kept_and_the_table_told(full, game, fill_at):
    root, fs = full
    before, after = script(game)
    b, lines = play(root, game, before, fs, fill_at)
    try:
        finish(b, after)
        ends = [l for l in lines if l["ev"] == "game_end"]
        assert len(ends) == 1, "the laptop did not get the game"
        assert [l for l in lines if l["ev"] == "error" and "record not stored" in l.get("msg", "")]
        screen = b.app.screen
        assert type(screen).__name__ == "Unstored", type(screen).__name__
        assert "not stored" in " ".join(screen.lines).lower()
        if fill_at == "end":
            assert os.path.exists(os.path.join(root, "game.json")), "the save was cleared"
        assert not [n for n in os.listdir(os.path.join(root, "rec"))]
        # Room again (a person removed the other files): OK stores it.
        unfill(root)
        t = after[-1][0] + 1000000
        b.event(t, 6, True)
        b.event(t + 60000, 6, False)
        b.run_until(t + 500000)
        kept = stored_games(root)
        rec = dict(ends[0]["record"])
        assert kept == [rec]
        assert not os.path.exists(os.path.join(root, "game.json"))
        assert type(b.app.screen).__name__ == "Games"
        assert len([l for l in lines if l["ev"] == "game_end"]) == 1
    finally:
        b.close()


def test_a_flash_full_at_the_end_then_a_power_cut_resumes_onto_the_final_screen(full):
    """The save kept when the record could not be stored is offered at the
    next boot; resumed, its OK stores the record once there is room."""
    from sim.board import Board
    root, fs = full
    before, after = script("partners")
    b, lines = play(root, "partners", before, fs, "end")
    finish(b, after)
    b.close()  # the power goes
    unfill(root)
    b = Board(root=root)
    try:
        b.step()
        assert b.app.screen.saved is not None and b.app.screen.saved["game"] == "partners"
        b.event(100000, 6, True)
        b.event(160000, 6, False)  # resume: the final screen
        b.event(400000, 6, True)
        b.event(460000, 6, False)  # OK: store it
        b.run_until(900000)
        assert len(stored_games(root)) == 1
        assert not os.path.exists(os.path.join(root, "game.json"))
    finally:
        b.close()


def test_a_torn_write_leaves_no_tmp_taking_room(full):
    root, fs = full
    s = storage.Store(root, uid="u")
    fill(fs, root)
    with pytest.raises(OSError):
        s.save_game({"v": 1, "game": "speed", "state": {"x": "y" * 5000}})
    assert not [n for n in os.listdir(root) if n.endswith(".tmp")]
    json.dumps(fs.statvfs(root))


def test_make_room_takes_the_oldest_records_first_and_only_what_is_needed(full):
    root, fs = full
    old_records(root)
    with open(os.path.join(root, "rec", "%08d.json" % 1), "wb") as f:
        f.write(b"SRF1 torn")  # unreadable: named by its file
    s = storage.Store(root, uid="u")
    assert s.make_room(3 * BLOCK) == [], "room enough: nothing removed"
    fill(fs, root)
    assert s.make_room(3 * BLOCK) == ["rec/00000001.json", "old-2", "old-3"]
    assert fs.free() == 3
    assert s.make_room(3 * BLOCK) == []
    fill(fs, root)
    assert len(s.make_room(100 * BLOCK)) == 7, "all the rest, and no more to take"
    assert s.make_room(100 * BLOCK) == [] and s.oldest_record() is None


class _NoStatvfs(FullFS):
    """A port that cannot say how full its flash is (no os.statvfs)."""

    def __getattr__(self, name):
        if name == "statvfs":
            raise AttributeError(name)
        return getattr(os, name)


def test_where_the_port_cannot_say_the_refused_write_makes_room(monkeypatch, tmp_path):
    """No statvfs, so no room made ahead: the record's write is refused
    (ENOSPC), the oldest record goes and the write is tried again."""
    root = str(tmp_path / "flash")
    os.makedirs(root)
    fs = _NoStatvfs(root)
    monkeypatch.setattr(storage, "os", fs)
    monkeypatch.setattr(storage, "open", fs.open, raising=False)
    old_records(root)
    before, after = script("speed")
    b, lines = play(root, "speed", before, fs, "end")
    try:
        finish(b, after)
        room = [l["id"] for l in lines if l["ev"] == "error" and l["what"] == "room"]
        assert room == ["old-%d" % (i + 1) for i in range(len(room))] and room
        ends = [l for l in lines if l["ev"] == "game_end"]
        assert stored_games(root)[-1] == ends[0]["record"]
        assert type(b.app.screen).__name__ == "Games"
    finally:
        b.close()


def test_a_record_write_that_fails_for_another_reason_removes_no_record(full, monkeypatch):
    """Only a full flash takes old records: an I/O error keeps them all, and
    the game waits, saved, on Unstored."""
    root, fs = full
    old_records(root)
    before, after = script("speed")
    b, lines = play(root, "speed", before, fs, None)
    real = storage.Store._write

    def eio(self, name, obj, keep_bak=True):
        if name.startswith("rec/"):
            raise OSError(errno.EIO, "I/O error")
        return real(self, name, obj, keep_bak)
    monkeypatch.setattr(storage.Store, "_write", eio)
    try:
        finish(b, after)
        assert not [l for l in lines if l["ev"] == "error" and l["what"] == "room"]
        assert len(stored_games(root)) == 10
        assert type(b.app.screen).__name__ == "Unstored"
        assert os.path.exists(os.path.join(root, "game.json"))
    finally:
        b.close()


def test_numbers_go_on_after_every_record_made_room(full):
    """make_room may take every record (and seq.json was lost): the next
    game's number still follows the last one given, never repeats it."""
    root, fs = full
    old_records(root)
    s = storage.Store(root, uid="u")
    fill(fs, root)
    assert len(s.make_room(100 * BLOCK)) == 10
    assert s.next_seq() == 11
