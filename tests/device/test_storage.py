"""Power-cut-safe storage."""
import json
import os
import re

import pytest

from speedref import storage
from speedref.storage import Store, encode


def state(n):
    return {"game": "speed", "deal": n, "scores": [n, 25 - n]}


def test_save_and_load_round_trip(tmp_path):
    s = Store(str(tmp_path), uid="abcd")
    assert s.load_game() == (None, None)
    s.save_game(state(1))
    assert s.load_game() == (state(1), None)
    s.save_game(state(2))
    assert s.load_game() == (state(2), None)
    assert (tmp_path / "game.json.bak").exists()  # the previous good state is kept


def test_power_cut_mid_write_truncated_temp_file_keeps_the_good_state(tmp_path):
    s = Store(str(tmp_path), uid="abcd")
    s.save_game(state(1))
    (tmp_path / "game.json.tmp").write_bytes(encode(state(2))[:20])  # cut mid-write
    assert s.load_game() == (state(1), None)
    assert not (tmp_path / "game.json.tmp").exists()


@pytest.mark.parametrize("damage", ["truncated", "bad checksum", "garbage", "empty"])
def test_damaged_main_file_is_set_aside_and_the_backup_used(tmp_path, damage):
    s = Store(str(tmp_path), uid="abcd")
    s.save_game(state(1))
    s.save_game(state(2))
    main = tmp_path / "game.json"
    data = main.read_bytes()
    if damage == "truncated":
        main.write_bytes(data[:-7])
    elif damage == "bad checksum":
        main.write_bytes(data.replace(b'"deal": 2', b'"deal": 3'))
    elif damage == "garbage":
        main.write_bytes(b"\xff\x00 not a save")
    else:
        main.write_bytes(b"")
    obj, problem = s.load_game()
    assert obj == state(1)
    assert problem == "game.json damaged, set aside; backup used"
    assert (tmp_path / "game.json.bad").exists()
    # the damaged file is gone: the next load finds the backup without a problem
    assert s.load_game() == (state(1), None)


def test_cut_between_the_two_renames_recovers_the_complete_temp_file(tmp_path):
    s = Store(str(tmp_path), uid="abcd")
    s.save_game(state(1))
    # what save_game(state(2)) leaves if power fails after main -> .bak
    (tmp_path / "game.json.tmp").write_bytes(encode(state(2)))
    os.rename(tmp_path / "game.json", tmp_path / "game.json.bak")
    assert s.load_game() == (state(2), None)
    assert (tmp_path / "game.json").exists()


def test_both_files_damaged_is_reported_never_a_crash(tmp_path):
    s = Store(str(tmp_path), uid="abcd")
    s.save_game(state(1))
    s.save_game(state(2))
    (tmp_path / "game.json").write_bytes(b"SRF1 00000000 3\nabc")
    (tmp_path / "game.json.bak").write_bytes(b"SRF1")
    obj, problem = s.load_game()
    assert obj is None
    assert "damaged" in problem and "backup damaged" in problem


def test_clear_game(tmp_path):
    s = Store(str(tmp_path), uid="abcd")
    s.save_game(state(1))
    s.save_game(state(2))
    s.clear_game()
    assert s.load_game() == (None, None)


def test_settings_round_trip_and_damage(tmp_path):
    s = Store(str(tmp_path), uid="abcd")
    assert s.load_settings() == {}
    s.save_settings({"game": "spit", "tie_ms": 5})
    s.save_settings({"game": "speed", "tie_ms": 5})
    assert s.load_settings() == {"game": "speed", "tie_ms": 5}
    assert s.settings_problem is None
    (tmp_path / "settings.json").write_bytes(b"SRF1 12345678 2\n{}")
    assert s.load_settings() == {"game": "spit", "tie_ms": 5}
    assert "settings.json damaged" in s.settings_problem


def test_sixty_records_keep_the_last_fifty_with_unique_ids(tmp_path):
    s = Store(str(tmp_path), uid="e6614c31")
    ids = []
    for i in range(60):
        rec = {"game": "speed", "n": i}
        ids.append(s.add_record(rec))
        assert rec["id"] == ids[-1]
    assert len(set(ids)) == 60
    recs = s.records()
    assert [r["n"] for r in recs] == list(range(10, 60))
    assert recs[0]["id"] == "e6614c31-%s-11" % s.install
    assert len(os.listdir(tmp_path / "rec")) == 50


def test_ids_stay_unique_after_every_record_file_is_gone(tmp_path):
    s = Store(str(tmp_path), uid="u")
    s.add_record({"n": 1})
    s.add_record({"n": 2})
    for f in os.listdir(tmp_path / "rec"):
        os.remove(tmp_path / "rec" / f)
    assert Store(str(tmp_path), uid="u").add_record({"n": 3}) == "u-%s-3" % s.install


def test_damaged_record_is_skipped_and_set_aside(tmp_path):
    s = Store(str(tmp_path), uid="u")
    for i in range(3):
        s.add_record({"n": i})
    (tmp_path / "rec" / "00000002.json").write_bytes(b"SRF1 0 1\nx")
    assert [r["n"] for r in s.records()] == [0, 2]
    assert (tmp_path / "rec" / "00000002.json.bad").exists()


def test_writes_only_when_called(tmp_path):
    s = Store(str(tmp_path), uid="u")
    s.load_game()
    s.load_settings()
    s.records()
    assert s.writes == 0
    s.save_game(state(1))
    assert s.writes == 1


def test_fallback_crc_matches_binascii():
    import zlib
    for data in (b"", b"abc", bytes(range(256)) * 3):
        assert storage._crc32(data) == zlib.crc32(data)


def test_storage_under_micropython_unix_port(tmp_path):
    """The same power-cut cases under the real MicroPython runtime, from .mpy."""
    import mpyrun
    from mpyhelp import compile_modules
    mpy = compile_modules(tmp_path / "mpy")
    root = tmp_path / "flash"
    code = """
import os
from speedref.storage import Store, encode
root = %r
s = Store(root, uid='ab')
s.save_game({'deal': 1})
s.save_game({'deal': 2})
f = open(root + '/game.json', 'rb'); d = f.read(); f.close()
f = open(root + '/game.json', 'wb'); f.write(d[:-3]); f.close()
print(s.load_game())
f = open(root + '/game.json.tmp', 'wb'); f.write(encode({'deal': 3})[:9]); f.close()
print(s.load_game())
for i in range(55):
    s.add_record({'n': i})
r = s.records()
print(len(r), r[0]['n'], r[-1]['id'])
s.save_settings({'x': 1})
print(s.load_settings(), s.settings_problem)
""" % str(root)
    out = mpyrun.run(code=code, extra_path=[mpy], use_mpy=False).stdout.split("\n")
    assert out[0] == "({'deal': 1}, 'game.json damaged, set aside; backup used')"
    assert out[1] == "({'deal': 1}, None)"
    assert re.match("^50 5 ab-[0-9a-f]{8}-55$", out[2]), out[2]
    assert out[3] == "{'x': 1} None"


# --- streamed saves (issue: memory headroom for a Long Speed Run) -----------

BIG = {"v": 1, "game": "speedrun", "state": {"first": 0, "hands": [
    ["geckos", "slalom-10", "012012bW4,012012012", ["W4", "REDO:MIDDLE", "PASS"]]] * 40}}


def test_streamed_save_is_the_same_file_as_encode_and_the_whole_file_loader_reads_it(tmp_path):
    s = Store(str(tmp_path), uid="u")
    s.save_game(BIG)
    data = (tmp_path / "game.json").read_bytes()
    assert data == encode(BIG)
    assert data.startswith(b"SRF1 ") and data.index(b"\n") == len(storage.BLANK_HEAD) - 1
    assert storage.decode(data) == (storage.OK, BIG)
    assert s.load_game() == (BIG, None)


def test_a_file_with_the_old_short_length_field_still_loads(tmp_path):
    import zlib
    body = json.dumps(state(4)).encode()
    (tmp_path / "game.json").write_bytes(b"SRF1 %08x %d\n" % (zlib.crc32(body), len(body)) + body)
    assert Store(str(tmp_path), uid="u").load_game() == (state(4), None)


def test_a_save_cut_before_its_header_is_written_is_not_used(tmp_path):
    """A cut after the body but before the real header leaves the blank
    header: the temp file is damaged, the last good save is used."""
    s = Store(str(tmp_path), uid="u")
    s.save_game(state(1))
    (tmp_path / "game.json.tmp").write_bytes(storage.BLANK_HEAD + json.dumps(state(2)).encode())
    assert s.load_game() == (state(1), None)
    s.save_game(state(3))
    os.rename(tmp_path / "game.json", tmp_path / "game.json.bak")  # and with main gone
    (tmp_path / "game.json.tmp").write_bytes(storage.BLANK_HEAD + json.dumps(state(4)).encode())
    assert s.load_game() == (state(3), None)
    assert not (tmp_path / "game.json.tmp").exists()


def test_save_and_load_need_no_block_as_big_as_the_body_under_micropython(tmp_path):
    """The heap is filled with 512-byte blocks and every other one freed, so
    no free block is much bigger than 512 bytes; a 3 KB state still saves,
    loads and goes into a record.  Building the file in memory (encode, the
    save before streaming) fails in the same heap."""
    import mpyrun
    from mpyhelp import compile_modules
    mpy = compile_modules(tmp_path / "mpy", ["speedref/__init__.py", "speedref/storage.py"])
    code = """
import gc, json
from heapfrag import fragment
from speedref.storage import Store, encode
big = json.loads(%r)
s = Store(%r, uid='ab')
slots = fragment(512)  # no free block much over 512 bytes
out = []
try:
    encode(big)
    out.append('encoded')
except MemoryError:
    out.append('encode: MemoryError')
s.save_game(big)
got, problem = s.load_game()
out.append(got == big and problem is None)
out.append(s.add_record(big))
print(out)
""" % (json.dumps(BIG), str(tmp_path / "flash"))
    assert len(json.dumps(BIG)) > 3000
    r = mpyrun.run(code=code, extra_path=[mpy], use_mpy=False)
    assert re.match(r"^\['encode: MemoryError', True, 'ab-[0-9a-f]{8}-1'\]$", r.stdout.strip()), r.stdout
