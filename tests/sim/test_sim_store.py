"""speedref-sim --store DIR holds the virtual board's flash for every mode:
--script, --table and --play keep their games' records in DIR/rec, numbered on
from what DIR already holds, and a folder holding a game in progress is
refused by the modes that deal their own cards (it is resumed in the terminal)."""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim import compat

compat.install()

from speedref import storage  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SIM = Path(sys.executable).parent / "speedref-sim"


def run(args, timeout=600):
    return subprocess.run([str(SIM)] + args, capture_output=True, text=True, cwd=ROOT, timeout=timeout)


def store_records(d):
    out = []
    for name in sorted(os.listdir(Path(d) / "rec")):
        with open(Path(d) / "rec" / name, "rb") as f:
            status, rec = storage.read_file(f)
        assert status == storage.OK
        out.append(rec)
    return out


def test_table_keeps_its_games_in_the_store_and_numbers_on(tmp_path):
    store = tmp_path / "store"
    r = run(["--table", "spit", "--games", "2", "--seed", "3", "--store", str(store)])
    assert r.returncode == 0, r.stderr
    first = store_records(store)
    assert [rec["game"] for rec in first] == ["spit", "spit"]
    r = run(["--table", "speed", "--games", "2", "--seed", "4", "--store", str(store)])
    assert r.returncode == 0, r.stderr
    recs = store_records(store)
    assert recs[:2] == first and [rec["game"] for rec in recs] == ["spit", "spit", "speed", "speed"]
    assert len(set(rec["id"] for rec in recs)) == 4


def test_play_tables_use_the_store(tmp_path):
    from sim.table import person
    for game in person.play_games():
        store = tmp_path / game
        args = argparse.Namespace(seed=1, start_us=0, pace=None, length=None, store=str(store))
        tb = person.play_module(game).table(args)
        try:
            assert tb.board.root == str(store) and (store / "rec").is_dir(), game
        finally:
            tb.close()
        assert store.is_dir()                         # the board's flash outlives the table


@pytest.mark.parametrize("mode", [["--table", "speed", "--games", "1"], ["--play", "speed"]])
def test_a_store_with_a_game_in_progress_is_refused_by_the_modes_that_deal_cards(tmp_path, mode):
    store = tmp_path / "store"
    st = storage.Store(str(store))
    st.save_game({"game": "speed", "opts": {}, "state": {}})
    r = run(mode + ["--store", str(store)])
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "game in progress" in r.stderr and "speedref-sim --store" in r.stderr
    assert (store / storage.GAME).exists()            # nothing lost


def test_script_store_still_numbers_on(tmp_path):
    store = tmp_path / "store"
    ids = []
    for _ in range(2):
        out = run(["--script", "tests/sim_scripts/speed.txt", "--json", "--store", str(store)]).stdout
        ids += [json.loads(l)["record"]["id"] for l in out.splitlines() if json.loads(l)["ev"] == "game_end"]
    assert len(ids) == 2 and ids[0] != ids[1] and [r["id"] for r in store_records(store)] == ids
