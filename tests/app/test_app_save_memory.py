"""A MemoryError while saving (a fragmented 64 KB heap) must not reset the
board: the game goes on, the error is logged, the last good save stays."""
from app_rig import Rig
from speedref import storage


def test_memory_error_during_save_keeps_the_game_and_the_last_good_save(tmp_path, monkeypatch):
    rig = Rig(str(tmp_path))
    rig.app.start("spit", rig.t)
    f = rig.app.flow
    rig.app.save(f, {"round": 1})
    rig.end_pass()  # the loop writes the save at the end of its pass
    good = rig.store.load_game()[0]
    assert good["state"] == {"round": 1}

    real = storage.write_file

    def write_then_fail(path, obj):
        with open(path, "w") as out:
            out.write('{"v": 1, "game": "sp')  # half written, then the heap runs out
        raise MemoryError("memory allocation failed")

    monkeypatch.setattr(storage, "write_file", write_then_fail)
    rig.app.save(f, {"round": 2})
    rig.end_pass()  # must not raise
    monkeypatch.setattr(storage, "write_file", real)
    assert rig.app.flow is f
    errs = rig.log.of("error")
    assert errs and "save failed" in errs[-1]["msg"] and "memory" in errs[-1]["msg"]
    assert rig.store.load_game()[0] == good
