"""speedref-score's contract under hostile input and output: a sheet, or exit 2
with one line on stderr; never a traceback.  Also the device's own record files."""
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from host_fixtures import partners_game, speed_single, speedrun_short
from speedref import storage

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "speedref-score"


def run(args, stdin=None, env=None, **kw):
    return subprocess.run([str(SCRIPT)] + args, input=stdin, capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, **(env or {})), **kw)


def write(tmp_path, data, name="rec.json"):
    p = tmp_path / name
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(p)


def assert_refused(r, must):
    assert r.returncode == 2, r.stderr
    assert r.stdout == "" and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and must in r.stderr, r.stderr


@pytest.mark.parametrize("payload, must", [
    ("[" * 20000 + "]" * 20000, "nested"),
    ('{"game": "speed", "layout": "pagat", "match": {"single": true}, "players": ["\\ud800", "Bob"],'
     ' "deals": [{"winner": 0, "left": 5}]}', "surrogate"),
    ('{"game": "chess", "game": "speed", "layout": "pagat", "match": {"single": true},'
     ' "players": ["Ann", "Bob"], "deals": [{"winner": 0, "left": 5}]}', "twice"),
])
def test_hostile_json_exits_2_with_one_line(tmp_path, payload, must):
    for flag in ([], ["--json"]):
        assert_refused(run([write(tmp_path, payload)] + flag), must)


def test_a_closed_pipe_on_stdout_is_quiet():
    r_fd, w_fd = os.pipe()
    os.close(r_fd)                  # the reader (`| head -1`) is already gone
    try:
        r = subprocess.run([str(SCRIPT), "-"], input=json.dumps(partners_game()).encode(),
                           stdout=w_fd, stderr=subprocess.PIPE, cwd=ROOT)
    finally:
        os.close(w_fd)
    assert b"Traceback" not in r.stderr and r.stderr == b""


def test_emoji_name_on_a_cp1252_console_is_escaped_not_a_crash(tmp_path):
    rec = speed_single(players=("Ann \U0001F600", "Bob"))
    r = run([write(tmp_path, rec)], env={"PYTHONIOENCODING": "cp1252"})
    assert r.returncode == 0, r.stderr
    assert "Winner: Ann \\U0001f600" in r.stdout


def test_control_characters_in_names_are_escaped_in_the_sheet(tmp_path):
    r = run([write(tmp_path, speed_single(players=("Ann\nWinner: Bob", "Bob")))])
    assert r.returncode == 0 and "Winner: Ann\\nWinner: Bob" in r.stdout
    assert not any(l.startswith("Winner: Bob") for l in r.stdout.splitlines())


def test_escaped_names_keep_the_sheets_columns_aligned(tmp_path):
    """A name escaped for the console ("\\u202e", "\\n": longer than the name)
    still has its column under its heading, every row's cells at the dashes."""
    r = run([write(tmp_path, speed_single(players=("Zo\u00eb\u202e\n", "Bob")))])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    header, dashes, body = lines[2], lines[3], lines[4]
    starts = [i for i, c in enumerate(dashes) if c == "-" and (i == 0 or dashes[i - 1] == " ")]
    assert header[starts[2]:].startswith("Bob"), r.stdout
    assert body[starts[2]:].startswith("5 left"), r.stdout
    assert header[starts[1]:starts[2]].rstrip() == "Zo\u00eb\\u202e\\n"


def test_device_record_file_is_read_and_its_crc_checked(tmp_path):
    good = write(tmp_path, storage.encode(partners_game(ident="e6-3")), "00000003.json")
    r = run([good, "--json"])
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["totals"] == [11, 3, 10, 3]
    data = bytearray(storage.encode(partners_game(ident="e6-3")))
    data[-3] ^= 0x01                                # one bit flipped on flash
    assert_refused(run([write(tmp_path, bytes(data), "bad.json")]), "CRC")
    assert_refused(run([write(tmp_path, b"SRF1 zz 12\n{}", "head.json")]), "header")
    body = json.dumps(speed_single()).encode()
    short = b"SRF1 %08x %d\n" % (zlib.crc32(body), len(body) + 5) + body
    assert_refused(run([write(tmp_path, short, "short.json")]), "length")


def test_store_dir_scores_every_record_and_skips_damaged_ones(tmp_path):
    st = storage.Store(str(tmp_path / "flash"), uid="e6")
    st.add_record(speed_single(winner=1, left=7))
    st.add_record(partners_game())
    st.add_record(speedrun_short())
    rec_dir = tmp_path / "flash" / "rec"
    (rec_dir / "00000002.json").write_bytes(b"SRF1 00000000 0000000002\n{}")   # torn
    r = run(["--store", str(tmp_path / "flash"), "--json"])
    assert r.returncode == 2 and "Traceback" not in r.stderr
    got = [json.loads(l) for l in r.stdout.splitlines()]
    assert [g["totals"] for g in got] == [[0, 7], [-7, -10, 23]]
    assert "00000002.json" in r.stderr and "CRC" in r.stderr
    r = run(["--store", str(rec_dir)])               # the rec/ folder itself works too
    assert "Winner: Bob" in r.stdout and "Speed Run" in r.stdout
    assert_refused(run(["--store", str(tmp_path / "none")]), "cannot read")
    (tmp_path / "empty").mkdir()
    assert_refused(run(["--store", str(tmp_path / "empty")]), "no record files")


def test_a_file_that_is_not_a_database_exits_2(tmp_path):
    assert_refused(run(["--db", write(tmp_path, "not sqlite at all " * 20, "r.db"), "--id", "1"]),
                   "cannot read the database")


@pytest.mark.parametrize("text", ["1e999", "-1e999", "[1e999]", '{"a": -1E400}', "Infinity", "-Infinity", "NaN"])
def test_strict_json_refuses_numbers_beyond_a_double(text):
    from host_tools import jsonin
    with pytest.raises(jsonin.BadJSON):
        jsonin.loads(text)


def test_a_record_holding_1e999_is_refused(tmp_path):
    payload = ('{"game": "speed", "layout": "pagat", "match": {"single": true}, "players": ["Ann", "Bob"],'
               ' "deals": [{"winner": 0, "left": 1e999}]}')
    assert_refused(run([write(tmp_path, payload)]), "not a finite number")


@pytest.mark.parametrize("ident", ["\u00b2", "9" * 22, "9" * 5000, "-1", "1.5", "\u0661", " 1", "0x1", ""])
def test_db_id_of_any_shape_is_looked_up_or_refused_in_one_line(tmp_path, ident):
    from host_tools.club.db import ResultsDB
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.add_record(partners_game(ident="e6-3"))
    db.close()
    assert_refused(run(["--db", str(path), "--id", ident]), "no record with id")


def test_db_id_finds_the_device_id_and_the_row_number(tmp_path):
    from host_tools.club.db import ResultsDB
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.add_record(partners_game(ident="e6-3"))
    db.add_record(speed_single(ident=7))
    db.close()
    for ident, title in (("e6-3", "record e6-3"), ("7", "record 7"), ("1", "record e6-3")):
        r = run(["--db", str(path), "--id", ident])
        assert r.returncode == 0 and title in r.stdout.splitlines()[0], (ident, r.stdout, r.stderr)


def _closed_stdout():
    os.close(1)


@pytest.mark.parametrize("where", ["full", "closed"])
def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path, where):
    rec = write(tmp_path, partners_game())
    if where == "full":
        with open("/dev/full", "w") as full:
            r = subprocess.run([str(SCRIPT), rec], stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    else:
        r = subprocess.run([str(SCRIPT), rec], stderr=subprocess.PIPE, text=True, cwd=ROOT,
                           preexec_fn=_closed_stdout)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "cannot write" in r.stderr, r.stderr
