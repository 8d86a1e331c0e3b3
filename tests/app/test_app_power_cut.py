"""Power cuts at every file operation around the end of a game (SP-24): the
storage module's os calls and file opens are counted, the power goes right
after the k-th one (the file left exactly as that call left it: a file
opened for writing is empty, a header not yet written is blank), and the app
boots again from what is on flash."""
import os
import shutil

import pytest

from app_rig import Rig, play_deal, speed_opts
from speedref import storage
from speedref.app.core import OK


class PowerCut(BaseException):
    """Not an Exception: nothing in the firmware may catch the power going."""


class Flash:
    """Stands in for `os` and `open` in speedref.storage: counts the calls
    that change flash and cuts the power after call number `cut_after`."""

    def __init__(self, real_os, cut_after):
        self._os = real_os
        self.cut_after = cut_after
        self.ops = []

    def _done(self, what):
        self.ops.append(what)
        if self.cut_after is not None and len(self.ops) > self.cut_after:
            raise PowerCut(what)

    def rename(self, a, b):
        self._os.rename(a, b)
        self._done(("rename", a, b))

    def remove(self, p):
        self._os.remove(p)
        self._done(("remove", p))

    def open(self, path, mode="r", *a, **kw):
        f = open(path, mode, *a, **kw)
        if mode != "r" and mode != "rb":
            try:
                self._done(("open", path, mode))  # "w": the file is empty now
            except PowerCut:
                f.close()
                raise
        return f

    def __getattr__(self, name):
        return getattr(self._os, name)


@pytest.fixture
def flash(monkeypatch):
    def install(cut_after):
        fl = Flash(os, cut_after)
        monkeypatch.setattr(storage, "os", fl)
        monkeypatch.setattr(storage, "open", fl.open, raising=False)
        return fl

    def restore():
        monkeypatch.setattr(storage, "os", os)
        monkeypatch.delattr(storage, "open", raising=False)
    install.restore = restore
    return install


def final_screen(root):
    """A single-deal Speed match on its final screen, saved, record not stored."""
    rig = Rig(root)
    rig.app.start("speed", rig.t, speed_opts(match="single"))
    play_deal(rig, 1, 9)
    return rig


def test_a_record_is_stored_once_and_a_finished_game_never_offered_SP24(tmp_path, flash):
    template = str(tmp_path / "template")
    final_screen(template)
    # how many flash operations OK on the final screen makes
    probe = str(tmp_path / "probe")
    shutil.copytree(template, probe)
    rig = Rig(probe)
    rig.tap(OK)  # resume: the final screen
    fl = flash(None)
    rig.tap(OK)  # store the record, end the game
    flash.restore()
    n = len(fl.ops)
    assert n >= 4 and len(rig.store.records()) == 1
    for k in range(n):
        root = str(tmp_path / ("cut%d" % k))
        shutil.copytree(template, root)
        rig = Rig(root)
        rig.tap(OK)  # resume on the final screen
        fl = flash(k)
        with pytest.raises(PowerCut):
            rig.tap(OK)
        flash.restore()
        stored_before_boot = len(rig.store.records())
        rig.reboot()
        offered = rig.screen_name() == "Boot" and rig.app.screen.saved is not None
        recs = rig.store.records()
        if stored_before_boot:
            assert not offered, "SP-24: cut after %r: a finished game offered for resume" % (fl.ops[-1],)
        else:
            # never a lost completed deal: the game comes back on its final screen
            assert offered, "SP-24: cut after %r: the finished game lost" % (fl.ops[-1],)
            rig.tap(OK)
            assert rig.app.flow.match.deals == [(1, 9)]
            rig.tap(OK)
            recs = rig.store.records()
        assert len(recs) == 1, "SP-24: cut after %r: %d records" % (fl.ops[-1], len(recs))
        assert recs[0]["deals"] == [{"winner": 1, "left": 9}]
        rig.reboot()  # and once more: nothing left to offer, still one record
        assert rig.app.screen.saved is None and len(rig.store.records()) == 1, "SP-24"


def test_clearing_a_save_never_brings_back_an_older_one_SP24(tmp_path, flash):
    """An abandoned game: a cut while its files are removed leaves the newest
    save or nothing (the older .bak goes first)."""
    template = str(tmp_path / "template")
    rig = Rig(template)
    rig.app.start("speed", rig.t, speed_opts())
    play_deal(rig, 0, 10)
    rig.tap(OK)
    play_deal(rig, 1, 3)  # game.json has two deals, game.json.bak one
    assert os.path.exists(os.path.join(template, "game.json.bak"))
    for k in range(3):
        root = str(tmp_path / ("cut%d" % k))
        shutil.copytree(template, root)
        s = storage.Store(root)
        flash(k)
        try:
            s.clear_game()
        except PowerCut:
            pass
        flash.restore()
        saved, _ = storage.Store(root).load_game()
        assert saved is None or len(saved["state"]["deals"]) == 2, "SP-24: an older save came back"


def test_a_save_from_before_games_were_numbered_is_numbered_on_resume_SP24(tmp_path):
    rig = final_screen(str(tmp_path))
    saved, _ = rig.store.load_game()
    del saved["seq"]
    rig.store.save_game(saved)
    rig.reboot()
    rig.tap(OK)  # resume
    seq = rig.store.load_game()[0]["seq"]
    rig.tap(OK)  # store
    assert rig.store.has_record(seq) and len(rig.store.records()) == 1, "SP-24"


def test_each_game_has_its_own_number_and_abandoned_ones_leave_a_gap(tmp_path):
    rig = final_screen(str(tmp_path))
    rig.tap(OK)
    rig.app.start("speed", rig.t, speed_opts(match="single"))
    rig.app.abandon()
    rig.app.start("speed", rig.t, speed_opts(match="single"))
    play_deal(rig, 0, 5)
    rig.tap(OK)
    ids = [r["id"] for r in rig.store.records()]
    assert ids == ["sim-%s-1" % rig.store.install, "sim-%s-3" % rig.store.install]


def record_tmp(root, whole):
    """A power cut while the final OK wrote the record's .tmp: the game is
    saved on its final screen, and rec/<seq>.json.tmp holds the record, all
    of it (the cut came before its rename) or only its first bytes."""
    rig = final_screen(root)
    seq = rig.store.load_game()[0]["seq"]
    rec = rig.app.flow.match.to_record()
    rec["id"] = "sim-%s-%d" % (rig.store.install, seq)
    data = storage.encode(rec)
    path = os.path.join(root, "rec", "%08d.json.tmp" % seq)
    with open(path, "wb") as f:
        f.write(data if whole else data[:len(data) // 2])
    return seq, rec, path


def test_an_unfinished_record_write_is_swept_at_boot_whatever_the_table_does_SP24(tmp_path):
    """Cut inside the record's .tmp write, then BACK at "Resume game?": the
    .tmp is not left on flash for good."""
    seq, rec, path = record_tmp(str(tmp_path), whole=False)
    rig = Rig(str(tmp_path))
    assert rig.app.screen.saved is not None  # the game, on its final screen
    assert not os.path.exists(path), "a torn record .tmp left at boot"
    rig.tap(7)  # BACK: "Discard game?"
    rig.tap(7)  # BACK again: discarded
    assert os.listdir(os.path.join(str(tmp_path), "rec")) == []


def test_a_whole_record_tmp_is_the_record_stored_SP24(tmp_path):
    """Cut after the record's .tmp was written whole, before its rename: at
    boot it is the record (kept under its name, the same id), so the game is
    over and not offered again."""
    seq, rec, path = record_tmp(str(tmp_path), whole=True)
    rig = Rig(str(tmp_path))
    assert rig.app.screen.saved is None, "a stored game offered for resuming"
    assert not os.path.exists(path)
    assert rig.store.records() == [rec]
