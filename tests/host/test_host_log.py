"""speedref-log's line core and the results database."""
import json
import random
import sqlite3

import pytest
import serial

from host_tools.club import db as dbmod
from host_tools.intake import lines, usb
from host_tools.club.db import ResultsDB
from host_fixtures import partners_game, speed_match, speed_single, speedrun_short


def line(obj):
    return (json.dumps(obj) + "\n").encode()


def make_core(tmp_path=None):
    db = ResultsDB(":memory:" if tmp_path is None else tmp_path / "r.db")
    outs, errs = [], []
    return lines.LineCore(db, out=outs.append, err=errs.append), outs, errs


def test_game_end_record_is_validated_stored_and_shown():
    core, outs, errs = make_core()
    rec = speed_match(1, ident="dev-1")
    core.feed(line({"ev": "game_end", "record": rec}))
    assert core.db.count_games() == 1
    assert core.db.games()[0][1] == rec
    assert "stored as #1" in outs[-1] and errs == []


def test_duplicate_by_id_is_stored_once_even_from_flash_dump():
    core, outs, errs = make_core()
    rec = speed_match(2, ident=7)
    core.feed(line({"ev": "game_end", "record": rec}))
    core.feed(line({"ev": "stored", "record": rec}))
    core.feed(line({"ev": "dump_end", "count": 1}))
    assert core.db.count_games() == 1 and core.duplicates == 1
    assert "device flash: 1 record kept, 0 new here" in outs[-1]


def test_same_content_different_ids_are_two_games():
    # SP: two single deals can end alike; the device's ids tell them apart.
    core, _, _ = make_core()
    core.feed(line({"ev": "game_end", "record": speed_single(ident="a")}))
    core.feed(line({"ev": "game_end", "record": speed_single(ident="b")}))
    assert core.db.count_games() == 2


def test_duplicate_by_content_when_id_absent():
    core, _, _ = make_core()
    rec = partners_game()
    core.feed(line({"ev": "game_end", "record": rec}))
    # key order and spacing differ: still the same record
    core.feed(b'{"record": ' + json.dumps(rec, sort_keys=True, indent=2).replace("\n", " ").encode()
              + b', "ev": "stored"}\n')
    assert core.db.count_games() == 1 and core.duplicates == 1


@pytest.mark.parametrize("bad", [
    b"\xff\xfe garbage\n",
    b"MicroPython v1.29 on rp2\n",
    b'{"ev": "game_end", "record": {"game": "speed", "layout": "pagat"\n',     # cut
    b'[1, 2, 3]\n',
    b'{"no_ev": 1}\n',
    line({"ev": "game_end", "record": {"game": "chess"}}),                       # REC-1
    line({"ev": "game_end", "record": "speed"}),                                 # REC-1
    line({"ev": "game_end"}),
    # PT-13: tricks add to 12, not 13
    line({"ev": "game_end", "record": dict(partners_game(), hands=[dict(partners_game()["hands"][0],
                                                                          tricks=[4, 3, 3, 2])])}),
    line({"ev": "slap", "game": "speed", "winner": 9, "margin_us": 5}),
    line({"ev": "slap", "game": "speed", "winner": 0, "margin_us": -5}),
    line({"ev": "slap", "game": "speed", "winner": 0}),
])
def test_garbage_and_invalid_lines_are_reported_and_skipped(bad):
    core, outs, errs = make_core()
    core.feed(bad)
    assert core.db.count_games() == 0 and core.db.count_slaps() == 0
    assert core.skipped == 1 and errs and errs[0].startswith("skipped:")


def test_invalid_record_message_names_rule_and_hand():
    core, _, errs = make_core()
    bad = partners_game()
    bad["hands"][0]["tricks"] = [4, 3, 3, 2]
    core.feed(line({"ev": "game_end", "record": bad}))
    assert "PT-13" in errs[0] and "hand 1" in errs[0]


def test_bytes_split_anywhere_still_make_whole_lines():
    core, _, _ = make_core()
    data = line({"ev": "slap", "game": "speed", "kind": "out", "winner": 1, "margin_us": 3200}) + line(
        {"ev": "game_end", "record": speed_match(3, ident=1)})
    for i in range(len(data)):
        core.feed(data[i:i + 1])
    assert core.db.count_games() == 1 and core.db.count_slaps() == 1


def test_slap_verdicts_stored_and_linked_to_the_game_that_ends():
    core, outs, _ = make_core()
    core.feed(line({"ev": "slap", "game": "speed", "kind": "out", "winner": 1, "margin_us": 3200}))
    core.feed(line({"ev": "slap", "game": "speed", "kind": "out", "winner": None, "margin_us": 400}))
    assert outs[0] == "slap out (speed): P2 by 3.2 ms"
    assert outs[1] == "slap out (speed): tie (0.4 ms apart)"
    core.feed(line({"ev": "game_end", "record": speed_single(ident=1)}))
    assert [s[4] for s in core.db.slaps()] == [1, 1]


def test_cut_line_at_disconnect_is_dropped_not_glued_to_the_next():
    core, _, errs = make_core()
    good = line({"ev": "game_end", "record": speed_single(ident=5)})
    core.feed(good[:20])
    core.disconnected()
    core.feed(good)
    assert core.db.count_games() == 1 and core.skipped == 1 and "cut" in errs[0]


def test_endless_line_without_newline_is_bounded():
    core, _, _ = make_core()
    core.feed(b"x" * (lines.MAX_LINE + 10))
    assert core.buf == b"" and core.skipped == 1


def test_fuzz_10000_lines_only_valid_records_stored():
    """Random bytes, cut lines and invalid records among valid ones."""
    r = random.Random(1234)
    core, _, _ = make_core()
    valid = {}
    chunks = []
    for i in range(10000):
        kind = r.randrange(6)
        if kind == 0:
            rec = speed_match(i, ident="g%d" % i) if i % 2 else speedrun_short(ident="g%d" % i)
            valid["g%d" % i] = rec
            chunks.append(line({"ev": r.choice(["game_end", "stored"]), "record": rec}))
        elif kind == 1:
            junk = bytes(r.randrange(256) for _ in range(r.randrange(1, 80))).replace(b"\n", b"")
            chunks.append(junk + b"\n")
        elif kind == 2:   # a valid line cut short, then the next line begins
            whole = line({"ev": "game_end", "record": speed_match(i, ident="cut%d" % i)})
            chunks.append(whole[: r.randrange(1, len(whole) - 2)] + b"\n")
        elif kind == 3:   # invalid record: a Speed deal with an impossible count (SP-18)
            rec = speed_single(left=99, ident="bad%d" % i)
            chunks.append(line({"ev": "game_end", "record": rec}))
        elif kind == 4:   # invalid record: Speed Run tricks that do not add up to 12
            rec = speedrun_short(ident="bad%d" % i)
            rec["hands"][0]["tricks"] = [4, 4, r.choice([3, 5, 6])]
            chunks.append(line({"ev": "stored", "record": rec}))
        else:             # well-formed noise that is not stored
            chunks.append(line({"ev": "deal", "n": i}))
    data = b"".join(chunks)
    pos = 0
    while pos < len(data):          # delivered in random-sized reads, like a serial port
        n = r.randrange(1, 600)
        core.feed(data[pos:pos + n])
        pos += n
    stored = dict((rec["id"], rec) for _, rec in core.db.games())
    assert stored == valid
    assert core.db.count_slaps() == 0


# --- database -------------------------------------------------------------------
def test_fresh_database_is_at_current_schema(tmp_path):
    db = ResultsDB(tmp_path / "r.db")
    assert db.version == dbmod.SCHEMA_VERSION == len(dbmod.MIGRATIONS) == 8
    db.close()


def test_version_1_database_is_migrated_and_backfilled(tmp_path):
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    dbmod._migrate_1(con)
    con.execute("PRAGMA user_version = 1")
    rec = speed_single(winner=1, left=4, ident="old")
    con.execute("INSERT INTO games (dedup_key, game, record, source, received_at) VALUES (?,?,?,?,?)",
                (dbmod.dedup_key(rec), "speed", dbmod.canonical_json(rec), "live", "then"))
    con.commit()
    con.close()
    db = ResultsDB(path)
    assert db.version == dbmod.SCHEMA_VERSION
    rows = db.con.execute("SELECT seat, name, total, won FROM game_players ORDER BY seat").fetchall()
    assert rows == [(0, "Ann", 0, 0), (1, "Bob", 4, 1)]
    assert db.add_record(rec) == (1, False)     # still deduplicated after the upgrade
    db.close()


def test_version_2_slaps_survive_the_nullable_margin_migration(tmp_path):
    path = tmp_path / "v2.db"
    con = sqlite3.connect(path)
    dbmod._migrate_1(con)
    dbmod._migrate_2(con)
    con.execute("PRAGMA user_version = 2")
    con.execute("INSERT INTO slaps (game, kind, winner, margin_us, line, received_at) VALUES (?,?,?,?,?,?)",
                ("speed", "out", 1, 3200, "{}", "then"))
    con.commit()
    con.close()
    db = ResultsDB(path)
    assert db.version == dbmod.SCHEMA_VERSION
    assert db.slaps() == [("speed", "out", 1, 3200, None)]
    db.close()


def test_a_lone_slap_without_margin_is_stored_and_a_tie_without_margin_is_not():
    core, _, _ = make_core()
    core.feed(line({"ev": "slap", "game": "spit", "kind": "pile", "winner": 0, "margin_us": None}))
    core.feed(line({"ev": "slap", "game": "spit", "kind": "pile", "winner": None, "margin_us": None}))
    assert core.db.slaps() == [] and core.skipped == 1      # held until the game's record
    core.feed(line({"ev": "game_end", "record": {
        "game": "spit", "players": ["Ann", "Bob"], "rounds": [{"cards": [0, 52], "cleared": 0}]}}))
    assert core.db.slaps() == [("spit", "pile", 0, None, 1)]


def test_newer_database_is_refused(tmp_path):
    path = tmp_path / "new.db"
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 99")
    con.close()
    with pytest.raises(dbmod.DatabaseProblem, match="schema version 99"):
        ResultsDB(path)


def test_hostile_strings_are_data_not_sql():
    core, _, _ = make_core()
    rec = speed_single(players=("Robert'); DROP TABLE games;--", "Bob"), ident="x'--")
    core.feed(line({"ev": "game_end", "record": rec}))
    assert core.db.games()[0][1] == rec and core.db.find_record("x'--") == rec


# --- the serial loop, with a fake port that disconnects ------------------------------
class FakePort:
    def __init__(self, chunks, fail_at_end=True):
        self.chunks = list(chunks)
        self.written = []
        self.fail_at_end = fail_at_end
        self.closed = False

    def write(self, data):
        self.written.append(data)

    def read(self, n):
        if self.chunks:
            return self.chunks.pop(0)
        if self.fail_at_end:
            raise serial.SerialException("device disconnected")
        return b""

    def close(self):
        self.closed = True


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 0.1
        return self.t

    def sleep(self, s):
        self.t += s


def test_reconnects_after_cable_pulled_mid_game_and_dedups_dump():
    rec1, rec2 = speed_match(10, ident=1), speed_match(11, ident=2)
    l1 = line({"ev": "game_end", "record": rec1})
    l2 = line({"ev": "game_end", "record": rec2})
    ports = [
        FakePort([l1, l2[:30]]),                                  # cable pulled mid-line
        OSError("[Errno 2] No such file or directory"),           # not back yet
        FakePort([line({"ev": "stored", "record": rec1}), line({"ev": "stored", "record": rec2}),
                  line({"ev": "dump_end", "count": 2})], fail_at_end=False),
    ]
    opened = []

    def opener(dev):
        p = ports.pop(0)
        if isinstance(p, Exception):
            raise p
        opened.append(p)
        return p

    core, outs, errs = make_core()
    clock = Clock()
    usb.run(core, port="/dev/fake", opener=opener, sleep=clock.sleep, clock=clock, idle_exit=5)
    assert len(opened) == 2 and all(p.closed for p in opened)
    assert all(p.written == [usb.DUMP_COMMAND] for p in opened)   # dump asked at each connect
    assert sorted(r["id"] for _, r in core.db.games()) == [1, 2]
    assert core.duplicates == 1 and core.skipped == 1
    assert any("lost /dev/fake" in e for e in errs)


# --- a slap belongs to its own game, or to none ------------------------------------------
def slap_line(winner, margin, game="speed", **more):
    return line(dict({"ev": "slap", "game": game, "kind": "out", "winner": winner, "margin_us": margin}, **more))


def slaps_of(db):
    """{game row: [(winner, margin)]} and the slaps tied to no game."""
    out, none = {}, []
    for game, kind, winner, margin, ref in db.slaps():
        (out.setdefault(ref, []) if ref is not None else none).append((winner, margin))
    return out, none


def test_a_session_log_replayed_twice_gives_each_game_its_own_slaps_once():
    """SP-17: the slaps of a game are its players'; the same log read again adds
    nothing, and none of them go to the next game's seat 0."""
    session = (slap_line(0, 1000, deal=1) + slap_line(1, 2000, deal=1) +
               line({"ev": "game_end", "record": speed_single(players=("Ann", "Bob"), ident="a")}))
    core, _, _ = make_core()
    core.feed(session)
    core.feed(session)
    core.feed(slap_line(0, 3000, deal=1) +
              line({"ev": "game_end", "record": speed_single(players=("Cat", "Dan"), ident="b")}))
    by_game, none = slaps_of(core.db)
    assert by_game == {1: [(0, 1000), (1, 2000)], 2: [(0, 3000)]} and none == []
    assert core.db.count_slaps() == 3


def test_an_abandoned_games_slaps_go_to_no_game():
    core, outs, _ = make_core()
    core.feed(slap_line(0, 1000, deal=1) + slap_line(1, 1500, deal=2))
    core.feed(line({"ev": "abandon", "game": "speed"}))
    core.feed(slap_line(1, 4000, deal=1) +
              line({"ev": "game_end", "record": speed_single(players=("Cat", "Dan"), ident="b")}))
    by_game, _ = slaps_of(core.db)
    assert by_game == {1: [(1, 4000)]}
    assert any("abandoned" in o and "2 slap" in o for o in outs), outs


def test_a_game_that_vanished_without_a_line_keeps_its_slaps_from_the_next_game():
    """A board reset with its save lost (no abandon line): the next game's deal 1
    comes after deal 3's slap, so that slap was another game's."""
    core, _, _ = make_core()
    core.feed(slap_line(0, 1000, deal=3))
    core.feed(line({"ev": "boot", "board": "pico"}))
    core.feed(slap_line(1, 2000, deal=1) +
              line({"ev": "game_end", "record": speed_single(players=("Cat", "Dan"), ident="b")}))
    assert slaps_of(core.db)[0] == {1: [(1, 2000)]}


def test_slaps_numbered_beyond_the_records_deals_are_not_its_own():
    core, _, _ = make_core()
    core.feed(slap_line(0, 1000, deal=2) + slap_line(1, 2000, deal=1))
    core.feed(line({"ev": "game_end", "record": speed_single(ident="one-deal")}))   # one deal only
    assert slaps_of(core.db)[0] == {1: [(1, 2000)]}


def test_a_record_from_the_flash_dump_does_not_take_the_slaps_of_the_game_in_progress():
    core, _, _ = make_core()
    core.feed(slap_line(0, 1000, deal=1))
    core.feed(line({"ev": "stored", "record": speed_single(players=("Old", "Game"), ident="old")}))
    core.feed(line({"ev": "dump_end", "count": 1}))
    core.feed(slap_line(1, 2000, deal=1) +
              line({"ev": "game_end", "record": speed_single(players=("Cat", "Dan"), ident="now")}))
    assert slaps_of(core.db)[0] == {2: [(0, 1000), (1, 2000)]}


def test_a_game_seen_live_without_its_slaps_gets_them_from_a_later_capture_once():
    core, _, _ = make_core()
    rec = speed_single(ident="a")
    core.feed(line({"ev": "game_end", "record": rec}))                # the laptop came in late
    capture = slap_line(0, 1000, deal=1) + line({"ev": "game_end", "record": rec})
    core.feed(capture)
    core.feed(capture)
    assert slaps_of(core.db)[0] == {1: [(0, 1000)]}
