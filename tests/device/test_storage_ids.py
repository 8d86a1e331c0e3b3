"""Record ids unique across devices, wipes and sources.

A store draws a random install id at its first start and keeps it, from its
first game on, in seq.json beside the sequence; a record's id is
`<device>-<install>-<seq>` (the device: machine.unique_id() in hex on a
board, "sim" in the simulator, "web" in a browser).  A board whose flash is
wiped, a fresh simulator store and a new browser profile start their
sequence again at 1, under a new install id, so their ids never repeat an
earlier one.  Records stored under the old form (`<uid>-<seq>`, `sim-N`,
`web-N`) still load and score, and an old seq.json (a bare number) counts on.
On CPython and on the MicroPython Unix port; the emulated Pico with its
flash wiped between games is tests/board/test_board_ids.py.
"""
import json
import os
import re

import mpyrun
from speedref import storage
from speedref.storage import Store

ID = re.compile(r"^(?P<dev>[^-]+)-(?P<inst>[0-9a-f]{8})-(?P<seq>[1-9][0-9]*)$")


def speed_record():
    return {"game": "speed", "layout": "pagat", "match": {"single": True}, "players": ["P1", "P2"],
            "deals": [{"winner": 0, "left": 12}]}


def test_a_record_id_is_device_install_and_sequence(tmp_path):
    s = Store(str(tmp_path), uid="e6614c31032a5b2e")
    seq = s.new_game_seq()
    ident = s.add_record(speed_record(), seq)
    m = ID.match(ident)
    assert m, ident
    assert m["dev"] == "e6614c31032a5b2e" and m["seq"] == "1"
    assert m["inst"] == s.install
    status, saved = storage.decode((tmp_path / "seq.json").read_bytes())
    assert saved == {"seq": 1, "install": s.install}
    # the same store, opened again, keeps its install id
    again = Store(str(tmp_path), uid="e6614c31032a5b2e")
    assert ID.match(again.add_record(speed_record(), again.new_game_seq()))["inst"] == s.install


def test_a_wiped_store_starts_at_one_under_a_new_install_id(tmp_path):
    ids = []
    for wipe in range(20):
        root = tmp_path / ("flash%d" % wipe)
        s = Store(str(root), uid="sim")
        ids.append(s.add_record(speed_record(), s.new_game_seq()))
    assert all(ID.match(i)["seq"] == "1" for i in ids)
    assert len(set(ids)) == 20, ids


def test_old_ids_still_load_and_score_and_an_old_seq_json_counts_on(tmp_path):
    from speedref.engine import records
    root = str(tmp_path)
    old = Store(root, uid="e661")
    # what a store before install ids left: a bare number in seq.json, <uid>-<seq> ids
    for n, ident in ((16, "e661-16"), (17, "e661-17")):
        rec = dict(speed_record(), id=ident)
        storage.write_file(os.path.join(root, "rec", "%08d.json" % n), rec)
    storage.write_file(os.path.join(root, "seq.json"), 17)
    s = Store(root, uid="e661")
    assert [r["id"] for r in s.records()] == ["e661-16", "e661-17"]
    assert all(records.replay(r).winners() == [0] for r in s.records())
    seq = s.new_game_seq()
    assert seq == 18
    m = ID.match(s.add_record(speed_record(), seq))
    assert m["dev"] == "e661" and m["seq"] == "18"
    assert [r["id"] for r in s.records()][:2] == ["e661-16", "e661-17"]
    del old


def test_ids_stay_unique_after_seq_json_and_every_record_are_gone(tmp_path):
    s = Store(str(tmp_path), uid="u")
    first = s.add_record(speed_record(), s.new_game_seq())
    for f in os.listdir(tmp_path / "rec"):
        os.remove(tmp_path / "rec" / f)
    for f in os.listdir(tmp_path):
        if f.startswith("seq.json"):
            os.remove(tmp_path / f)
    s = Store(str(tmp_path), uid="u")
    again = s.add_record(speed_record(), s.new_game_seq())
    assert ID.match(again)["seq"] == "1" and again != first


def test_the_simulator_s_stores_get_ids_of_their_own():
    from sim.board import Board
    ids = []
    for _ in range(3):
        b = Board()
        try:
            ids.append(b.store.add_record(speed_record(), b.store.new_game_seq()))
        finally:
            b.close()
    assert all(ID.match(i)["dev"] == "sim" for i in ids)
    assert len(set(ids)) == 3, ids


def test_install_ids_under_micropython(tmp_path):
    code = """
import os, json
from speedref.storage import Store
ids = []
for wipe in range(5):
    s = Store(%r + '/f%%d' %% wipe, uid='e661')
    ids.append(s.add_record({'game': 'speed'}, s.new_game_seq()))
s = Store(%r + '/f0', uid='e661')
ids.append(s.add_record({'game': 'speed'}, s.new_game_seq()))
print(json.dumps(ids))
""" % (str(tmp_path), str(tmp_path))
    ids = json.loads(mpyrun.run(code=code, use_mpy=False).stdout.strip().splitlines()[-1])
    assert all(ID.match(i) for i in ids), ids
    assert len(set(ids[:5])) == 5
    assert ID.match(ids[5])["inst"] == ID.match(ids[0])["inst"] and ids[5].endswith("-2")
