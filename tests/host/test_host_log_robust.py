"""speedref-log keeps going past any single bad line: each hostile line is
skipped with a message, and the good line after it is still stored."""
import json
import os

import pytest

from host_tools.intake import lines, usb
from host_tools.cli import log as logmod
from host_tools.club.db import ResultsDB
from host_fixtures import speed_single
from log_pty import run_log


def line(obj):
    return (json.dumps(obj) + "\n").encode()


def make_core(path=":memory:"):
    db = ResultsDB(path)
    outs, errs = [], []
    return lines.LineCore(db, out=outs.append, err=errs.append), outs, errs


def deep(n):
    return ("[" * n + "]" * n).encode()


SURROGATE = b'"\\ud800"'
HOSTILE = [
    b'{"ev": ' + SURROGATE + b'}\n',
    b'{"ev": "game_end", "record": {"game": "speed", "layout": "pagat", "match": {"single": true},'
    b' "players": [' + SURROGATE + b', "Bob"], "deals": [{"winner": 0, "left": 5}], "id": "s1"}}\n',
    b'{"ev": "slap", "game": ' + SURROGATE + b', "winner": 0, "margin_us": 5}\n',
    b'{"ev": "deal", "x": ' + deep(20000) + b'}\n',
    deep(20000) + b"\n",
    b'{"ev": "x", ' + SURROGATE + b': 1}\n',
    line({"ev": "slap", "game": "speed", "kind": [1], "winner": 0, "margin_us": 5}),
    line({"ev": "slap", "game": "speed", "kind": {"a": 1}, "winner": 0, "margin_us": 5}),
    line({"ev": "slap", "game": "speed", "kind": "out", "winner": 0, "margin_us": 10 ** 20}),
    line({"ev": "slap", "game": "speed", "kind": "out", "winner": 0, "margin_us": 2 ** 40}),
    line({"ev": "slap", "game": ["speed"], "winner": 0, "margin_us": 5}),
    line({"ev": "slap", "game": "speed", "winner": 0, "margin_us": 5.5}),
    b'{"ev": "slap", "game": "speed", "winner": 0, "margin_us": NaN}\n',
    b'{"ev": "slap", "game": "speed", "winner": 0, "margin_us": ' + b"9" * 5000 + b'}\n',
    b'{"ev": "game_end", "ev": "stored", "record": {}}\n',        # a key twice
    line({"ev": "game_end", "record": dict(speed_single(ident="big"), id=10 ** 20)}),
]


@pytest.mark.parametrize("bad", HOSTILE, ids=range(len(HOSTILE)))
def test_one_hostile_line_is_skipped_and_the_next_line_is_stored(bad):
    core, outs, errs = make_core()
    core.feed(bad + line({"ev": "game_end", "record": speed_single(ident="after")}))
    assert core.skipped == 1 and len(errs) == 1 and errs[0].startswith("skipped:"), errs
    assert core.db.count_slaps() == 0
    assert [r["id"] for _, r in core.db.games()] == ["after"]


def test_duplicate_keys_in_a_record_are_refused():
    core, _, errs = make_core()
    core.feed(b'{"ev": "game_end", "record": {"game": "chess", "game": "speed", "layout": "pagat",'
              b' "match": {"single": true}, "players": ["A", "B"], "deals": [{"winner": 0, "left": 5}]}}\n')
    assert core.db.count_games() == 0 and "twice" in errs[0]


def test_record_differing_from_the_stored_one_under_the_same_id_is_kept_beside_it_and_reported():
    core, outs, errs = make_core()
    core.feed(line({"ev": "game_end", "record": speed_single(left=5, ident="d1")}))
    core.feed(line({"ev": "stored", "record": speed_single(left=5, ident="d1")}))
    assert errs == []
    core.feed(line({"ev": "stored", "record": speed_single(left=6, ident="d1")}))
    core.feed(line({"ev": "stored", "record": speed_single(left=6, ident="d1")}))   # again: nothing more
    assert [r["deals"][0]["left"] for _, r in core.db.games()] == [5, 6]
    assert len(errs) == 1 and "d1" in errs[0] and "differs" in errs[0] and "kept both" in errs[0]


def test_a_player_named_twice_is_refused():
    core, _, errs = make_core()
    core.feed(line({"ev": "game_end", "record": speed_single(players=("Ann", "Ann"), ident="tw")}))
    assert core.db.count_games() == 0 and "Ann" in errs[0] and "twice" in errs[0]


def test_a_file_that_is_not_a_database_exits_2(tmp_path, capsys):
    p = tmp_path / "r.db"
    p.write_text("not sqlite " * 50)
    assert logmod.main(["--db", str(p), "--port", "/dev/null", "--idle-exit", "0"]) == 2
    err = capsys.readouterr().err
    assert "r.db" in err and "not an SQLite database" in err


# --- one bad line never stops the reader -------------------------------------------
MORE_HOSTILE = [
    line({"ev": "slap", "game": "speed", "kind": "out", "margin_us": 5}),               # no "winner"
    line({"ev": "slap", "game": "speed", "kind": "out", "winner": True, "margin_us": 5}),
    b'{"ev": "slap", "game": "speed", "winner": 0, "margin_us": 1e999}\n',              # infinity
    b'{"ev": "deal", "game": "speed", "x": -1e999}\n',
    b'{"ev": "game_end", "record": {"game": "speed", "layout": "pagat", "match": {"single": true},'
    b' "players": ["Ann", "Bob"], "deals": [{"winner": 0, "left": 1e999}], "id": "inf"}}\n',
]


@pytest.mark.parametrize("bad", MORE_HOSTILE, ids=range(len(MORE_HOSTILE)))
def test_more_hostile_lines_are_skipped_and_the_next_game_is_stored(bad):
    core, outs, errs = make_core()
    core.feed(line({"ev": "slap", "game": "speed", "kind": "out", "winner": 1, "margin_us": 900}))
    core.feed(bad + line({"ev": "game_end", "record": speed_single(ident="after")}))
    assert core.skipped == 1 and len(errs) == 1 and errs[0].startswith("skipped:"), errs
    assert [r["id"] for _, r in core.db.games()] == ["after"]
    assert [s[2] for s in core.db.slaps()] == [1]          # only the well-formed slap


def test_a_fault_in_handling_one_line_is_reported_and_the_next_line_is_stored(monkeypatch):
    core, outs, errs = make_core()
    real = lines.records.summary

    def trips(rec):
        if rec.get("id") == "trips":
            raise RuntimeError("a game module tripped")
        return real(rec)
    monkeypatch.setattr(lines.records, "summary", trips)
    core.feed(line({"ev": "game_end", "record": speed_single(ident="trips")}) +
              line({"ev": "game_end", "record": speed_single(ident="after")}))
    assert [r["id"] for _, r in core.db.games()] == ["after"]
    assert core.skipped == 1 and "RuntimeError" in errs[0] and "tripped" in errs[0]


def test_an_over_long_line_gets_one_error_and_its_tail_is_not_read_as_a_line():
    core, _, errs = make_core()
    tail = b'"}, "ev": "deal"}\n'
    core.feed(b"{" + b"x" * (lines.MAX_LINE + 10))
    core.feed(tail + line({"ev": "game_end", "record": speed_single(ident="after")}))
    assert core.skipped == 1 and "longer than" in errs[0], errs
    assert [r["id"] for _, r in core.db.games()] == ["after"]


def test_an_over_long_line_that_arrives_whole_is_refused_too():
    core, outs, errs = make_core()
    big = {"ev": "game_end", "record": dict(speed_single(ident="big"), pad="x" * lines.MAX_LINE)}
    core.feed(line(big) + line({"ev": "game_end", "record": speed_single(ident="after")}))
    assert core.skipped == 1 and "longer than" in errs[0], errs
    assert [r["id"] for _, r in core.db.games()] == ["after"]


# --- terminal escapes ---------------------------------------------------------------
ESC = "\x1b]0;owned\x07\x1b[2J\u202e\u2028"


def no_escapes(text):
    return not any(c in text for c in "\x1b\x07\u202e\u2028\r")


def test_device_sent_strings_never_reach_the_terminal_raw():
    """dump_end's count, an error line's fields, an unknown ev, a record's id and
    player names inside a rule's message, a duplicate's id: all escaped."""
    core, outs, errs = make_core()
    bad_rec = speed_single(left=99, players=("Ann" + ESC, "Bob"), ident="x" + ESC)   # SP-18 refuses it
    core.feed(line({"ev": "dump_end", "count": ESC}))
    core.feed(line({"ev": "error", "what": ESC, "msg": ESC}))
    core.feed(line({"ev": "error", "what": "x", "error": ESC}))
    core.feed(line({"ev": "boot" + ESC, "x": ESC}))
    core.feed(line({"ev": "game_end", "record": bad_rec}))
    core.feed(line({"ev": "game_end", "record": speed_single(players=("Ann" + ESC, "Bob"), ident="i" + ESC)}))
    core.feed(line({"ev": "stored", "record": speed_single(left=6, players=("Ann" + ESC, "Bob"), ident="i" + ESC)}))
    core.feed(line({"ev": "slap", "game": "speed", "kind": "o" + ESC[:10], "winner": 0, "margin_us": 5}))
    assert len(outs) >= 6 and len(errs) >= 2
    for text in outs + errs:
        assert no_escapes(text), repr(text)
    assert any("\\x1b" in t for t in outs) and any("\\x1b" in t for t in errs)


# --- the database fails under the reader ---------------------------------------------
def test_a_full_disk_is_reported_and_what_was_stored_stays(tmp_path):
    from host_tools.club.db import DatabaseProblem
    core, outs, errs = make_core(tmp_path / "r.db")
    core.feed(line({"ev": "game_end", "record": speed_single(ident="first")}))
    pages = core.db.con.execute("PRAGMA page_count").fetchone()[0]
    core.db.con.execute("PRAGMA max_page_count = %d" % pages)     # SQLite's own "disk full"
    with pytest.raises(DatabaseProblem, match="full"):
        for i in range(50):
            core.feed(line({"ev": "game_end", "record": speed_single(left=1 + i % 9, ident="more%d" % i)}))
    core.db.close()
    db = ResultsDB(tmp_path / "r.db")
    assert db.con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert [r["id"] for _, r in db.games()][0] == "first"
    assert db.con.execute("SELECT COUNT(*) FROM game_players").fetchone()[0] == 2 * db.count_games()
    db.close()


def test_a_read_only_database_is_reported(tmp_path):
    import sqlite3
    from host_tools.club.db import DatabaseProblem
    path = tmp_path / "r.db"
    ResultsDB(path).close()
    core, _, _ = make_core(path)
    core.db.con.close()
    core.db.con = sqlite3.connect("file:%s?mode=ro" % path, uri=True, isolation_level=None)
    with pytest.raises(DatabaseProblem, match="read-only|readonly"):
        core.feed(line({"ev": "game_end", "record": speed_single(ident="x")}))


def test_a_lock_held_longer_than_the_busy_timeout_is_retried_then_given_up(tmp_path):
    import sqlite3
    from host_tools.club.db import DatabaseProblem
    path = tmp_path / "r.db"
    ResultsDB(path).close()
    db = ResultsDB(path, busy_timeout_s=0.05)
    errs = []
    core = lines.LineCore(db, out=lambda t: None, err=errs.append)
    other = sqlite3.connect(str(path), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")                    # another program holds the write lock
    with pytest.raises(DatabaseProblem, match="locked"):
        core.feed(line({"ev": "game_end", "record": speed_single(ident="x")}))
    assert sum("locked" in e for e in errs) == lines.LOCK_RETRIES
    other.execute("ROLLBACK")
    # released while the reader waits: the line is stored on the next try
    errs.clear()
    other.execute("BEGIN IMMEDIATE")

    def err(text):
        errs.append(text)
        if other.in_transaction:
            other.execute("ROLLBACK")
    core.err = err
    core.feed(line({"ev": "game_end", "record": speed_single(ident="y")}))
    assert [r["id"] for _, r in core.db.games()] == ["y"] and len(errs) == 1
    other.close()
    db.close()


def test_a_database_claiming_a_schema_without_its_tables_is_refused(tmp_path):
    import sqlite3
    from host_tools.club.db import DatabaseProblem, SCHEMA_VERSION
    path = tmp_path / "r.db"
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = %d" % SCHEMA_VERSION)
    con.close()
    with pytest.raises(DatabaseProblem, match="not a speedref results database"):
        ResultsDB(path)
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE invoices (n INTEGER)")   # somebody else's database
    con.close()
    with pytest.raises(DatabaseProblem, match="not a speedref results database"):
        ResultsDB(other)


# --- the same, through the real speedref-log on a pseudo-terminal ------------------------


def records_lines(n, prefix="g"):
    return b"".join(line({"ev": "game_end", "record": speed_single(left=1 + i % 9, ident="%s%d" % (prefix, i))})
                    for i in range(n))


def assert_exit_2(rc, out, err, must):
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err and must in err, err


def test_log_newer_schema_exits_2(tmp_path):
    import sqlite3
    path = tmp_path / "new.db"
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 99")
    con.close()
    assert_exit_2(*run_log(path, records_lines(1), idle_exit="0.5"), "schema version 99")


def test_log_user_version_without_tables_exits_2(tmp_path):
    import sqlite3
    path = tmp_path / "r.db"
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 3")
    con.close()
    assert_exit_2(*run_log(path, records_lines(1), idle_exit="0.5"), "not a speedref results database")


def test_log_read_only_database_exits_2_before_reading_the_port(tmp_path, monkeypatch, capsys):
    """SQLite's own read-only refusal (the file opened read-only, as for a user
    without write permission), met at start: exit 2, nothing read, nothing lost."""
    import sqlite3
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.add_record(speed_single(ident="kept"))
    db.close()
    real = sqlite3.connect

    def read_only(name, *a, **kw):
        return real("file:%s?mode=ro" % name, *a, uri=True, **kw)
    monkeypatch.setattr(sqlite3, "connect", read_only)
    opened = []
    monkeypatch.setattr(usb, "open_serial", lambda port: opened.append(port))
    assert logmod.main(["--db", str(path), "--port", "/dev/ttyACM0", "--idle-exit", "0"]) == 2
    err = capsys.readouterr().err
    assert "r.db" in err and "read-only" in err and "Traceback" not in err and opened == []
    monkeypatch.setattr(sqlite3, "connect", real)
    db = ResultsDB(path)
    assert [r["id"] for _, r in db.games()] == ["kept"]
    db.close()


def _make_read_only(path):
    """The file read-only for whoever runs the tool; returns the undo.  Root
    writes a file whatever its mode bits, so as root it is made immutable
    (chattr +i: even root cannot open it for writing) where the filesystem
    allows it."""
    if os.geteuid() != 0:
        os.chmod(path, 0o444)
        return lambda: os.chmod(path, 0o644)
    import shutil
    import subprocess
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode:
        pytest.skip("root writes a file whatever its mode bits, and chattr +i is not available here")
    return lambda: subprocess.run([chattr, "-i", str(path)], check=True)


def test_log_read_only_file_exits_2(tmp_path):
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.add_record(speed_single(ident="kept"))
    db.close()
    undo = _make_read_only(path)
    try:
        rc, out, err = run_log(path, records_lines(2), idle_exit="0.5")
    finally:
        undo()
    assert_exit_2(rc, out, err, "read-only")
    db = ResultsDB(path)
    assert [r["id"] for _, r in db.games()] == ["kept"]
    db.close()


def test_log_file_size_limit_exits_2_and_keeps_what_was_stored(tmp_path):
    import resource
    path = tmp_path / "r.db"
    ResultsDB(path).close()
    limit = os.path.getsize(path) + 96 * 1024     # the empty database, and room for some games

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))    # ulimit -f
    rc, out, err = run_log(path, records_lines(400), idle_exit="60", preexec_fn=small_files)
    assert_exit_2(rc, out, err, "cannot store")
    db = ResultsDB(path)
    assert db.con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    ids = [r["id"] for _, r in db.games()]
    assert 0 < len(ids) < 400 and ids == ["g%d" % i for i in range(len(ids))]
    assert "%d new game records" % len(ids) in out + err
    db.close()


def test_a_live_view_on_dev_full_is_reported_once_and_storing_goes_on(tmp_path):
    import subprocess
    import tty
    path = tmp_path / "r.db"
    from log_pty import BIN
    master, slave = os.openpty()
    tty.setraw(slave)
    with open("/dev/full", "w") as full:
        proc = subprocess.Popen([str(BIN / "speedref-log"), "--port", os.ttyname(slave), "--db", str(path),
                                 "--idle-exit", "5"], stdout=full, stderr=subprocess.PIPE, text=True)
        got = b""
        while b'"dump"' not in got:
            got += os.read(master, 4096)
        os.write(master, records_lines(3))
        err = proc.communicate(timeout=120)[1]
    os.close(slave)
    os.close(master)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert err.count("cannot write the live view") == 1 and "3 new game records" in err, err
    db = ResultsDB(path)
    assert db.count_games() == 3
    db.close()
