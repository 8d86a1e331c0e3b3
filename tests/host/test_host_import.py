"""speedref-results import PATH...: every way a game leaves a table comes into the
results database once, through the same code path as speedref-log (LineCore).

Sources: a USB log capture (JSON lines as speedref-log reads them, and the web
page's log download), one record (JSON; the web page's record download; a
device record file), a `speedref-sim --store` folder and a copy of a board's
flash store (the firmware's own storage.Store writes both).  Anything else is
one clear line and a non-zero exit."""
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from host_fixtures import partners_game, speed_match, speed_single, speedrun_short
from host_tools.club import standings
from host_tools.club.db import ResultsDB
from speedref import storage

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SCRIPTS = ROOT / "tests" / "sim_scripts"


def line(obj):
    return (json.dumps(obj) + "\n").encode()


def run_import(db, *paths, expect=None):
    r = subprocess.run([str(BIN / "speedref-results"), "import"] + [str(p) for p in paths] + ["--db", str(db)],
                       capture_output=True, text=True, cwd=ROOT)
    assert "Traceback" not in r.stderr, r.stderr
    if expect is not None:
        assert r.returncode == expect, (r.returncode, r.stdout, r.stderr)
    return r


def stored(db):
    d = ResultsDB(db)
    try:
        return [rec for _, rec in d.games()]
    finally:
        d.close()


def slaps(db):
    d = ResultsDB(db)
    try:
        return d.slaps()
    finally:
        d.close()


def capture(tmp_path, name="capture.log"):
    """A USB capture as speedref-log reads it: the MicroPython banner, CR LF line
    ends, noise, a dump of the flash, slaps and then their game's record."""
    old = speed_match(1, ident="e6614c31032a5b2e-3")
    game = speed_single(winner=1, left=4, players=("Ann", "Bob"), ident="e6614c31032a5b2e-4")
    data = (b"MicroPython v1.28.0 on 2026-01-01; Raspberry Pi Pico with RP2040\r\n"
            + line({"ev": "boot", "board": "pico", "capture": "pio"}).replace(b"\n", b"\r\n")
            + line({"ev": "stored", "record": old}) + line({"ev": "dump_end", "count": 1})
            + b"\xff\xfe noise\r\n"
            + line({"ev": "slap", "game": "speed", "kind": "out", "deal": 1, "winner": 1, "tie": [],
                    "margin_us": 3200, "presses": [1, 0], "false_starts": []})
            + line({"ev": "deal", "game": "speed", "deal": 1, "winner": 1, "left": 4})
            + line({"ev": "game_end", "record": game}).replace(b"\n", b"\r\n"))
    p = tmp_path / name
    p.write_bytes(data)
    return p, [old, game]


def test_a_log_capture_is_imported_once_with_its_slaps(tmp_path):
    db = tmp_path / "r.db"
    path, recs = capture(tmp_path)
    r = run_import(db, path, expect=0)
    assert stored(db) == recs
    assert slaps(db) == [("speed", "out", 1, 3200, 2)]               # SP-17: tied to its own game
    assert "2 new" in r.stdout and "skipped: not UTF-8" in r.stderr
    r = run_import(db, path, expect=0)                                 # the same capture again
    assert stored(db) == recs and len(slaps(db)) == 1
    assert "0 new" in r.stdout and "2 already stored" in r.stdout


def test_the_web_pages_downloads_are_imported(tmp_path):
    """The page's "record JSON" (JSON.stringify(record, null, 1)) and its "log"
    (the log lines joined by newlines): web/static/app.js."""
    db = tmp_path / "r.db"
    rec = partners_game(ident="web-1f2e3d4c-1")
    rec_file = tmp_path / ("speedref-%s.json" % rec["id"])
    rec_file.write_text(json.dumps(rec, indent=1) + "\n")
    other = speed_single(ident="web-1f2e3d4c-2")
    lines = [json.dumps({"ev": "boot", "board": "web"}),
             json.dumps({"ev": "slap", "game": "speed", "kind": "out", "deal": 1, "winner": 0, "tie": [],
                         "margin_us": 900, "presses": [0, 1], "false_starts": []}),
             json.dumps({"ev": "game_end", "record": other})]
    log_file = tmp_path / "speedref-log.jsonl"
    log_file.write_text("\n".join(lines) + "\n")
    run_import(db, rec_file, log_file, expect=0)
    assert stored(db) == [rec, other] and slaps(db) == [("speed", "out", 0, 900, 2)]
    run_import(db, log_file, rec_file, expect=0)
    assert stored(db) == [rec, other] and len(slaps(db)) == 1


def test_a_simulator_store_folder_is_imported(tmp_path):
    """speedref-sim --script ... --store DIR, two games into one store."""
    db, store = tmp_path / "r.db", tmp_path / "store"
    played = []
    for script in ("speed.txt", "spit.txt"):
        out = subprocess.run([str(BIN / "speedref-sim"), "--script", str(SCRIPTS / script), "--json",
                              "--store", str(store)], capture_output=True, text=True, check=True).stdout
        played += [json.loads(l)["record"] for l in out.splitlines() if json.loads(l)["ev"] == "game_end"]
    assert len(played) == 2 and played[0]["id"] != played[1]["id"]
    run_import(db, store, expect=0)
    assert stored(db) == played
    r = run_import(db, store, store / "rec", expect=0)                # the store and its rec/ folder
    assert stored(db) == played and "0 new" in r.stdout


def test_a_copy_of_a_boards_flash_store_is_imported_and_a_damaged_file_named(tmp_path):
    """The firmware's own Store writes the copy (rec/NNNNNNNN.json, SRF1 headers),
    with its seq.json, settings and a game in progress beside the records."""
    db, flash = tmp_path / "r.db", tmp_path / "flash"
    st = storage.Store(str(flash), uid="e6614c31032a5b2e")
    kept = []
    for rec in (speed_single(winner=1, left=7), partners_game(), speedrun_short()):
        st.add_record(rec)
        kept.append(rec)
    st.save_settings({"tie_ms": "auto"})
    st.save_game({"game": "speed", "opts": {}, "state": {}})
    (flash / "rec" / "00000002.json").write_bytes(b"SRF1 00000000 0000000002\n{}")     # torn
    r = run_import(db, flash, expect=2)
    assert stored(db) == [kept[0], kept[2]]
    assert "00000002.json" in r.stderr and "CRC" in r.stderr
    assert "game in progress" in r.stdout                              # game.json: not a finished game
    one = tmp_path / "00000001.json"
    one.write_bytes((flash / "rec" / "00000001.json").read_bytes())   # one device record file
    run_import(db, one, expect=0)
    assert len(stored(db)) == 2


@pytest.mark.parametrize("name, data, why", [
    ("empty.log", b"", "empty"),
    ("picture.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "not a game record"),
    ("standings.csv", b"game,player,games\nspeed,Ann,3\n", "not a game record"),
    ("list.json", json.dumps([speed_single(ident="l1")]).encode(), "not a game record"),
    ("settings.json", b'{"tie_ms": 5}', "not a game record"),
    ("seq.json", storage.encode(17), "not a game record"),
    ("bad.json", json.dumps(speed_single(left=99, ident="bad")).encode(), "SP-18"),
    ("torn.json", b"SRF1 zz 12\n{}", "header"),
])
def test_anything_else_is_one_clear_line_and_a_non_zero_exit(tmp_path, name, data, why):
    db = tmp_path / "r.db"
    bad = tmp_path / name
    bad.write_bytes(data)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(speed_single(ident="good")))
    r = run_import(db, bad, good)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert [rec["id"] for rec in stored(db)] == ["good"]               # the good path still went in
    mine = [l for l in r.stderr.splitlines() if name in l]
    assert len(mine) == 1 and why in mine[0], r.stderr


def test_a_missing_path_or_an_empty_folder_is_refused(tmp_path):
    db = tmp_path / "r.db"
    (tmp_path / "empty").mkdir()
    r = run_import(db, tmp_path / "nope.json", tmp_path / "empty", expect=2)
    assert "nope.json" in r.stderr and "cannot read" in r.stderr
    assert "empty" in r.stderr and "no record files" in r.stderr
    r = subprocess.run([str(BIN / "speedref-results"), "import", "--db", str(db)], capture_output=True, text=True)
    assert r.returncode == 2 and "PATH" in r.stderr


def test_the_import_refuses_what_speedref_log_refuses_in_the_same_words(tmp_path):
    bad = partners_game(ident="p-1")
    bad["hands"][0]["tricks"] = [4, 3, 3, 2]                           # PT-13: 12 tricks, not 13
    f = tmp_path / "bad.log"
    f.write_bytes(line({"ev": "game_end", "record": bad}))
    r = run_import(tmp_path / "r.db", f, expect=2)
    assert "skipped: invalid record" in r.stderr and "PT-13" in r.stderr and "hand 1" in r.stderr


# --- a record whose id is stored already with other content: both kept, and said ------------
def test_a_record_reusing_a_stored_id_with_other_content_is_kept_beside_it_and_named(tmp_path):
    """Two boards (or a board before and after its flash was wiped) that both
    numbered a game 'sim-1': two games, both in the standings."""
    db = tmp_path / "r.db"
    a = tmp_path / "a.json"
    a.write_text(json.dumps(speed_single(winner=0, left=5, players=("Ann", "Bob"), ident="sim-1")))
    b = tmp_path / "b.json"
    b.write_text(json.dumps(speed_single(winner=1, left=3, players=("Cat", "Dan"), ident="sim-1")))
    run_import(db, a, expect=0)
    r = run_import(db, b, expect=0)
    assert [rec["players"] for rec in stored(db)] == [["Ann", "Bob"], ["Cat", "Dan"]]
    conflict = [l for l in r.stderr.splitlines() if "sim-1" in l]
    assert len(conflict) == 1 and "#1" in conflict[0] and "#2" in conflict[0] and "both" in conflict[0]
    run_import(db, a, b, expect=0)                                     # again: nothing added
    assert len(stored(db)) == 2
    d = ResultsDB(db)
    rows, _ = standings.standings(d)
    d.close()
    assert sorted(r["player"] for r in rows) == ["Ann", "Bob", "Cat", "Dan"]


def test_speedref_log_keeps_both_too_and_ties_the_slaps_to_the_second(tmp_path):
    from host_tools.intake.lines import LineCore
    d = ResultsDB(tmp_path / "r.db")
    errs = []
    core = LineCore(d, out=lambda t: None, err=errs.append)
    core.feed(line({"ev": "game_end", "record": speed_single(left=5, ident="e6-1")}))
    core.feed(line({"ev": "slap", "game": "speed", "kind": "out", "deal": 1, "winner": 1, "margin_us": 70}))
    core.feed(line({"ev": "game_end", "record": speed_single(left=6, ident="e6-1")}))
    assert [r["deals"][0]["left"] for _, r in d.games()] == [5, 6]
    assert d.slaps() == [("speed", "out", 1, 70, 2)]
    assert core.stored == 2 and len(errs) == 1 and "#1" in errs[0] and "#2" in errs[0]
    d.close()


@pytest.mark.parametrize("ident", ["e6614c31032a5b2e-17", "sim-1", "web-1", 7, "e6614c31032a5b2e-9f3c2a71-17",
                                   "sim-0b1c2d3e-1", "web-\u00e9\u00e8-2", "x" * 200, "a-b-c-d-e-f"])
def test_ids_old_and_new_and_any_string_load_score_and_import(tmp_path, ident):
    db = tmp_path / "r.db"
    f = tmp_path / "rec.json"
    rec = partners_game(ident=ident)
    f.write_text(json.dumps(rec))
    run_import(db, f, expect=0)
    assert stored(db) == [rec]
    r = subprocess.run([str(BIN / "speedref-score"), "--db", str(db), "--id", str(ident), "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and json.loads(r.stdout)["totals"] == [11, 3, 10, 3], r.stderr


# --- one code path: speedref-log and the import store the same rows ----------------------------
def test_the_log_and_the_import_of_its_capture_store_the_same(tmp_path):
    from log_pty import run_log
    path, recs = capture(tmp_path)
    rc, out, err = run_log(tmp_path / "live.db", path.read_bytes(), until=lambda out: out.count("stored as #") == 2)
    assert rc == 0, err
    run_import(tmp_path / "file.db", path, expect=0)

    def rows(db):
        con = sqlite3.connect(db)
        try:
            g = con.execute("SELECT dedup_key, game, record FROM games ORDER BY id").fetchall()
            s = con.execute("SELECT game, kind, winner, margin_us, line, game_ref FROM slaps ORDER BY id").fetchall()
            # every column but a game's place in time order, which holds when
            # it arrived (as games.received_at, not compared either)
            cols = [c[1] for c in con.execute("PRAGMA table_info(game_players)") if c[1] != "ord"]
            p = con.execute("SELECT %s FROM game_players ORDER BY game_ref, seat" % ", ".join(cols)).fetchall()
            return g, s, p
        finally:
            con.close()
    assert rows(tmp_path / "live.db") == rows(tmp_path / "file.db")


def test_speedref_log_given_a_file_as_its_port_points_to_the_import(tmp_path):
    path, _ = capture(tmp_path)
    r = subprocess.run([str(BIN / "speedref-log"), "--port", str(path), "--db", str(tmp_path / "r.db"),
                        "--idle-exit", "3"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "speedref-results import" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "r.db").exists() or stored(tmp_path / "r.db") == []


def test_import_writes_nothing_into_a_store_it_reads(tmp_path):
    flash = tmp_path / "flash"
    st = storage.Store(str(flash), uid="e6")
    st.add_record(speed_single())
    before = sorted((p.relative_to(flash), p.stat().st_mtime_ns) for p in flash.rglob("*"))
    os.chmod(flash / "rec", 0o555)
    try:
        run_import(tmp_path / "r.db", flash, expect=0)
    finally:
        os.chmod(flash / "rec", 0o755)
    assert sorted((p.relative_to(flash), p.stat().st_mtime_ns) for p in flash.rglob("*")) == before
