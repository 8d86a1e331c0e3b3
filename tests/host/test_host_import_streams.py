"""speedref-results import of what a club's disk and shell hand it: captures
far bigger than a read, store folders holding pipes and devices, file names
with other scripts' digits, a disk that fills up, an output that cannot be
written, option values that mean nothing, and PowerShell's UTF-16 captures."""
import errno
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from host_fixtures import speed_match, speed_single
from host_tools.intake import importer, lines, recordfiles
from host_tools.cli import log, results
from host_tools.club.db import ResultsDB
from speedref import storage

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def line(obj):
    return (json.dumps(obj) + "\n").encode()


def cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = results.main(argv)
    return code, out.getvalue(), err.getvalue()


def stored(db):
    d = ResultsDB(db)
    try:
        return [rec for _, rec in d.games()]
    finally:
        d.close()


def big_capture(path, games=6, deals_between=300):
    """Deal lines with a few finished games among them."""
    recs = [speed_match(seed, ident="big-%d" % seed) for seed in range(games)]
    with open(path, "wb") as f:
        for rec in recs:
            for d in range(deals_between):
                f.write(line({"ev": "deal", "game": "speed", "deal": d + 1, "winner": d % 2, "left": 3}))
            f.write(line({"ev": "game_end", "record": rec}))
    return recs


class CountingBuffer(bytearray):
    """A line buffer that counts the bytes sliced out of it."""
    sliced = 0

    def __getitem__(self, i):
        got = bytearray.__getitem__(self, i)
        if isinstance(i, slice):
            CountingBuffer.sliced += len(got)
        return got


# --- a capture is read in chunks, each byte handled once -----------------------------
def test_feed_slices_each_line_out_once_not_the_rest_of_the_buffer_after_it():
    core = lines.LineCore(ResultsDB(":memory:"), out=lambda t: None, err=lambda t: None, live=False)
    data = b"".join(line({"ev": "deal", "game": "speed", "deal": i + 1}) for i in range(2000))
    CountingBuffer.sliced = 0
    core.buf = CountingBuffer()
    core.feed(data)
    assert CountingBuffer.sliced <= len(data), "the rest of the buffer was copied after a line"
    assert core.skipped == 0 and not core.buf


def test_feed_keeps_a_line_cut_across_feeds_whole():
    db = ResultsDB(":memory:")
    core = lines.LineCore(db, out=lambda t: None, err=lambda t: None, live=False)
    data = line({"ev": "game_end", "record": speed_single(ident="cut-1")}) * 2
    for i in range(0, len(data), 7):
        core.feed(data[i:i + 7])
    core.finish()
    assert core.stored == 1 and core.duplicates == 1 and core.skipped == 0


def test_a_capture_much_larger_than_a_read_is_fed_in_bounded_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(importer, "CHUNK", 4096)
    monkeypatch.setattr(importer, "WHOLE_MAX", 8192)
    cap = tmp_path / "capture.log"
    recs = big_capture(cap)
    assert cap.stat().st_size > 20 * importer.CHUNK
    fed = []
    real = lines.LineCore.feed
    monkeypatch.setattr(lines.LineCore, "feed", lambda self, data: (fed.append(len(data)), real(self, data))[1])
    db = tmp_path / "r.db"
    code, out, err = cli(["import", str(cap), "--db", str(db)])
    assert code == 0, err
    assert stored(db) == recs and "6 new game records" in out
    assert len(fed) > 20 and max(fed) <= importer.CHUNK


# --- a store folder's files: regular files only, of a record's size --------------------
def flash_with_records(tmp_path, n=3):
    flash = tmp_path / "flash"
    st = storage.Store(str(flash), uid="e6614c31032a5b2e")
    recs = [speed_single(winner=i % 2, left=i + 1) for i in range(n)]
    for rec in recs:
        st.add_record(rec)
    return flash, recs


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_pipe_or_a_device_in_a_store_is_refused_and_the_rest_imported(tmp_path):
    flash, recs = flash_with_records(tmp_path, 4)
    rec = flash / "rec"
    os.remove(rec / "00000002.json")
    os.mkfifo(rec / "00000002.json")
    os.remove(rec / "00000003.json")
    os.symlink("/dev/zero", rec / "00000003.json")
    db = tmp_path / "r.db"
    r = subprocess.run([str(BIN / "speedref-results"), "import", str(flash), "--db", str(db)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert stored(db) == [recs[0], recs[3]]
    bad = [l for l in r.stderr.splitlines() if "00000002.json" in l or "00000003.json" in l]
    assert len(bad) == 2 and all("not a regular file" in l for l in bad), r.stderr
    r = subprocess.run([str(BIN / "speedref-score"), "--store", str(flash), "--json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and len(r.stdout.splitlines()) == 2
    assert r.stderr.count("not a regular file") == 2


def test_a_store_file_larger_than_any_record_is_refused_unread(tmp_path, monkeypatch):
    flash, recs = flash_with_records(tmp_path, 2)
    monkeypatch.setattr(recordfiles, "RECORD_MAX", 4096)
    (flash / "rec" / "00000001.json").write_bytes(b"SRF1 00000000 0000009000\n" + b"x" * 9000)
    db = tmp_path / "r.db"
    code, out, err = cli(["import", str(flash), "--db", str(db)])
    assert code == 2 and stored(db) == [recs[1]]
    assert "00000001.json: larger than" in err


# --- record numbers are ASCII digits ------------------------------------------------------
@pytest.mark.parametrize("name", ["\u00b2.json", "\u2460.json", "\u0663.json"])
def test_a_file_named_with_other_digits_is_not_a_record_file(tmp_path, name):
    flash, recs = flash_with_records(tmp_path, 2)
    (flash / "rec" / name).write_bytes((flash / "rec" / "00000001.json").read_bytes())
    assert [os.path.basename(p) for p in recordfiles.store_files(str(flash))] == ["00000001.json", "00000002.json"]
    db = tmp_path / "r.db"
    code, out, err = cli(["import", str(flash), "--db", str(db)])
    assert code == 0 and stored(db) == recs, err
    r = subprocess.run([str(BIN / "speedref-score"), "--store", str(flash), "--json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2 and "Traceback" not in r.stderr


# --- a full disk: the count of what was kept is true -----------------------------------------
class FullDisk:
    """A connection whose Nth COMMIT fails as a full disk does."""

    def __init__(self, con, fail_at):
        self.con, self.commits, self.fail_at = con, 0, fail_at

    def execute(self, sql, *a):
        if sql == "COMMIT":
            self.commits += 1
            if self.commits == self.fail_at:
                self.con.execute("ROLLBACK")
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self.con.execute(sql, *a)

    def __getattr__(self, name):
        return getattr(self.con, name)


def test_a_disk_full_mid_capture_says_how_many_games_were_kept(tmp_path, monkeypatch):
    cap = tmp_path / "capture.log"
    recs = big_capture(cap, games=5, deals_between=2)
    one = speed_single(ident="first-1")
    first = tmp_path / "first.json"
    first.write_text(json.dumps(one))
    real_init = ResultsDB.__init__

    def init(self, *a, **k):
        real_init(self, *a, **k)
        self.con = FullDisk(self.con, fail_at=5)      # the first file's game, then 3 of the capture's
    monkeypatch.setattr(ResultsDB, "__init__", init)
    db = tmp_path / "r.db"
    code, out, err = cli(["import", str(first), str(cap), "--db", str(db)])
    monkeypatch.setattr(ResultsDB, "__init__", real_init)
    assert code == 2
    assert stored(db) == [one] + recs[:3]
    assert "4 new game records stored before this are kept" in err, err


# --- an output that cannot be written ---------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="/dev/full")
def test_import_into_a_full_stdout_exits_2_with_one_line(tmp_path):
    rec = tmp_path / "one.json"
    rec.write_text(json.dumps(speed_single(ident="full-1")))
    with open("/dev/full", "w") as full:
        r = subprocess.run([str(BIN / "speedref-results"), "import", str(rec), "--db", str(tmp_path / "r.db")],
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.count("cannot write the output") == 1
    assert len(stored(tmp_path / "r.db")) == 1


def test_import_with_stdout_closed_exits_2_with_one_line(tmp_path):
    rec = tmp_path / "one.json"
    rec.write_text(json.dumps(speed_single(ident="closed-1")))
    r = subprocess.run([str(BIN / "speedref-results"), "import", str(rec), "--db", str(tmp_path / "r.db")],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60,
                       preexec_fn=lambda: os.close(1))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.count("cannot write the output") == 1


# --- option values -------------------------------------------------------------------------------
def usage_error(argv, main=results.main):
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    return err.getvalue().strip().splitlines()[-1]


def test_import_into_a_database_in_memory_is_refused(tmp_path):
    rec = tmp_path / "one.json"
    rec.write_text(json.dumps(speed_single()))
    assert "keeps nothing" in usage_error(["import", str(rec), "--db", ":memory:"])
    assert "keeps nothing" in usage_error(["--db", ":memory:", "--idle-exit", "1"], main=log.main)


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "soon"])
def test_idle_exit_must_be_a_number_of_seconds(value):
    assert "--idle-exit" in usage_error(["--idle-exit", value], main=log.main)


@pytest.mark.parametrize("bom, codec", [(b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")])
def test_a_utf16_capture_from_powershell_is_read_as_text(tmp_path, bom, codec):
    rec = speed_single(ident="ps-1")
    text = (json.dumps({"ev": "boot", "board": "pico"}) + "\r\n"
            + json.dumps({"ev": "game_end", "record": rec}) + "\r\n")
    cap = tmp_path / "capture.log"
    cap.write_bytes(bom + text.encode(codec))
    db = tmp_path / "r.db"
    code, out, err = cli(["import", str(cap), "--db", str(db)])
    assert code == 0 and stored(db) == [rec], err
    assert "UTF-16" in out + err
    one = tmp_path / "record.json"
    one.write_bytes(bom + json.dumps(rec).encode(codec))
    code, out, err = cli(["import", str(one), "--db", str(db)])
    assert code == 0 and "already stored" in out, err
