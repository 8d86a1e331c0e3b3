"""Each game's summary, worked out once when it is stored
(host_tools/club/summary.py, kept by host_tools/club/db.py), and the reads
made from it: the standings in SQL (all games, a set of game rows, a span of
arrival), the name fixes that move person keys without a replay, and
`speedref-results check`, which compares everything kept with a full replay
of every record (host_tools/club/check.py)."""
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import results_sample
from host_fixtures import partners_game, speed_match, speed_single, speedrun_short
from host_tools.club import changes, check, people, ratings, standings, summary
from host_tools.club import db as dbmod
from host_tools.club.db import ResultsDB
from host_tools.intake import importer
from host_tools.intake.lines import LineCore

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def cli(*args):
    r = subprocess.run([str(BIN / "speedref-results")] + [str(a) for a in args], capture_output=True, text=True,
                       cwd=ROOT)
    assert "Traceback" not in r.stderr, r.stderr
    return r.returncode, r.stdout, r.stderr


def assert_same_as_a_replay(path):
    """check finds nothing, in the library and on the command line."""
    db = ResultsDB(path)
    try:
        lines, n = check.check(db)
    finally:
        db.close()
    assert lines == []
    code, out, err = cli("--db", path, "check")
    assert code == 0 and err == "", (out, err)
    assert out.strip().endswith("what a replay of the %d stored game%s gives" % (n, "" if n == 1 else "s"))
    return n


# --- the suite's databases ------------------------------------------------------------
def evening_db(path):
    """The results page's evening: 14 games of every kind at three boards,
    with their slap verdicts, through speedref-log's line core."""
    results_sample.make_evening(path)


def fixtures_db(path):
    db = ResultsDB(path)
    db.add_record(speed_single(winner=0, left=5, players=("Ann", "Bob"), ident="t1-1"))
    db.add_record(speed_single(winner=1, left=9, players=(" Ann ", "P2"), ident="t1-2"))
    db.add_record(speed_single(winner=0, left=3, players=("Bobby", "Guest"), ident="t2-1"))
    db.add_record(speed_single(winner=0, left=4, players=("P1", "P2"), ident="t2-2"))
    db.add_record(partners_game(ident="t3-1"))
    db.add_record(dict(partners_game(ident="t3-2"), target=100))              # unfinished (PT-20)
    db.add_record(dict(partners_game(ident="t3-3"), target=100, stopped=True))
    db.add_record(speedrun_short(ident="t4-1"))
    db.add_record({"game": "speed", "layout": "pagat", "match": {"single": True}, "players": ["Ann", "ann", "Cat"],
                   "deals": [{"winner": 2, "left": [4, 9, 0]}], "id": "old-1"})    # a person twice (old)
    db.add_record(speed_single(players=('<b>Zo\u00eb</b>', "Zoe\u0308"), ident=7))
    db.add_record(speed_single(players=("Ann", "Bob")))                              # no id
    for seed in range(5):
        db.add_record(speed_match(seed, ident="m-%d" % seed))
    db.close()


def tampered_db(path):
    fixtures_db(path)
    con = sqlite3.connect(path)
    good = con.execute("SELECT id FROM games ORDER BY id").fetchone()[0]
    for text, game in (("{not json", "speed"), (json.dumps(speed_single(left=99, ident="tampered")), "speed"),
                       (json.dumps({"game": "chess", "players": ["Ann", "Bob"]}), "chess"), ("[1, 2]", "speed")):
        con.execute("INSERT INTO games (dedup_key, game, record, source, received_at) VALUES (?,?,?,?,?)",
                    ("raw:" + text, game, text, "live", "then"))
    for winner, margin in ((0, 1000), (1, 2000), (0, 3000), (-1, 500), (7, 500), (1, "abc"), (0, 2.5), (None, None),
                           (None, 800), (1, None)):
        con.execute("INSERT INTO slaps (game, kind, winner, margin_us, line, received_at, game_ref)"
                    " VALUES (?,?,?,?,?,?,?)", ("speed", "out", winner, margin, "{}", "then", good))
    con.execute("INSERT INTO slaps (game, kind, winner, margin_us, line, received_at) VALUES"
                " ('speed', 'out', 0, 10, '{}', 'then')")                            # tied to no game
    con.commit()
    con.close()


def renamed_db(path):
    fixtures_db(path)
    db = ResultsDB(path)
    try:
        changes.make(db, "rename", ["Bobby", "Bob"])        # joins two people
        changes.make(db, "assign", ["t2-2", "1", "Dee"])
        changes.make(db, "merge", ["Cat", "Dee"])
        changes.make(db, "rename", ["Ann", "Anna"])
        changes.undo(db, [])
    finally:
        db.close()
    db = ResultsDB(path)                                     # a game imported after the changes
    try:
        core = LineCore(db, out=lambda t: None, err=lambda t: None, source="import", live=False)
        core.record(speed_single(players=("Bobby", "Bob"), ident="later-1"), "file")
        core.record(speed_single(players=("ANN", "Eve"), ident="later-2"), "file")
    finally:
        db.close()


def migrated_db(path):
    """A version 1 database (no summaries yet), upgraded when opened."""
    con = sqlite3.connect(path)
    dbmod._migrate_1(con)
    con.execute("PRAGMA user_version = 1")
    for i, rec in enumerate([speed_single(winner=1, left=4, ident="old-%d" % i) for i in range(3)]
                            + [speedrun_short(ident="old-sr")]):
        con.execute("INSERT INTO games (dedup_key, game, record, source, received_at) VALUES (?,?,?,?,?)",
                    (dbmod.dedup_key(rec), rec["game"], dbmod.canonical_json(rec), "live", "2026-01-0%d" % (i + 1)))
    con.commit()
    con.close()


def imported_db(path, folder):
    """Three simulator stores imported together, tables interleaved in time."""
    for t in range(3):
        rec = folder / ("table%d" % t) / "rec"
        rec.mkdir(parents=True)
        for i in range(4):
            r = speed_match(10 * t + i, ident="tab%d-%d" % (t, i + 1))
            (rec / ("%08d.json" % (i + 1))).write_text(json.dumps(r), encoding="utf-8")
    db = ResultsDB(path, write=True)
    try:
        assert importer.run(db, [str(folder / ("table%d" % t)) for t in (2, 0, 1)], "t",
                            out=lambda t: None, err=lambda t: None) == 0
    finally:
        db.close()


def hostile_db(path):
    """The page's evening with a long name, and games whose names and ids are markup."""
    results_sample.make_long_name(path)
    results_sample.make_hostile(path)


BUILDERS = {"evening": evening_db, "fixtures": fixtures_db, "tampered": tampered_db, "renamed": renamed_db,
            "migrated": migrated_db, "hostile": hostile_db}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_summary_equals_a_replay_of_its_record(tmp_path, name):
    path = tmp_path / "r.db"
    BUILDERS[name](path)
    assert assert_same_as_a_replay(path) > 3


def test_an_import_of_store_folders_equals_a_replay(tmp_path):
    imported_db(tmp_path / "r.db", tmp_path)
    assert assert_same_as_a_replay(tmp_path / "r.db") == 12


def test_the_sql_standings_count_tampered_rows_as_the_replay_does(tmp_path):
    """The slap verdicts a seat won and their median (the middle one, or the
    mean of the middle two), the rows left out and why, in the same order."""
    path = tmp_path / "r.db"
    tampered_db(path)
    db = ResultsDB(path)
    try:
        a, b = [], []
        got = standings.standings(db, a)
        want = standings.standings(db, b, standings.played(db, b))
    finally:
        db.close()
    assert got == want and a == b
    ann = [r for r in got[0] if r["game"] == "speed" and r["player"] == "Ann"][0]
    bob = [r for r in got[0] if r["game"] == "speed" and r["player"] == "Bob"][0]
    assert (ann["slap_wins"], ann["median_margin_us"]) == (2, 2000.0)       # 1000 and 3000
    assert (bob["slap_wins"], bob["median_margin_us"]) == (2, 2000)         # 2000 and a lone slap
    assert [s["table"] for s in a].count("games") == 4 and [s["table"] for s in a].count("slaps") == 5
    assert got[1] == 1


def test_check_says_each_difference_and_exits_1(tmp_path):
    path = tmp_path / "r.db"
    evening_db(path)
    assert cli("--db", path, "ratings")[0] == 0          # the ratings kept
    con = sqlite3.connect(path)
    con.execute("UPDATE game_players SET won = 1 - won WHERE game_ref = 2")
    con.execute("UPDATE game_players SET person = 'zed', shown = 'Zed' WHERE game_ref = 4 AND seat = 0")
    con.execute("UPDATE ratings SET sigma = sigma * 1.0000001 WHERE rowid = (SELECT MAX(rowid) FROM ratings)")
    con.commit()
    con.close()
    code, out, err = cli("--db", path, "check")
    lines = out.splitlines()
    assert code == 1 and err == ""
    assert "game #2 seat P1: win" in out and "game #4 seat P1: person 'zed' in the summary, 'bob' by replay" in out
    assert any(x.startswith("ratings: ") and "kept" in x for x in lines)
    assert lines[-1] == "%s: %d differences between what it keeps and a replay of its 14 stored games" % (
        path, len(lines) - 1)
    # rebuild makes them again from the records
    code, out, _ = cli("--db", path, "rebuild")
    assert code == 0 and "the summaries of 14 games made again from their records" in out
    assert_same_as_a_replay(path)


def test_check_and_rebuild_take_no_arguments_and_need_a_database(tmp_path):
    code, _, err = cli("--db", tmp_path / "none.db", "check")
    assert code == 2 and "no results database there" in err and not (tmp_path / "none.db").exists()
    code, _, err = cli("--db", tmp_path / "none.db", "check", "x")
    assert code == 2 and "use: speedref-results check" in err
    code, _, err = cli("--db", tmp_path / "none.db", "rebuild", "--json")
    assert code == 2 and "--json does not go with rebuild" in err


# --- kept up to date ----------------------------------------------------------------------
def test_a_rules_change_summarises_every_game_again_when_the_database_is_opened(tmp_path, monkeypatch):
    path = tmp_path / "r.db"
    fixtures_db(path)
    con = sqlite3.connect(path)
    con.execute("UPDATE game_players SET total = 99")      # as if older rules had scored them so
    con.commit()
    con.close()
    db = ResultsDB(path)
    assert check.check(db)[0] != [] and not db.settle()      # same rules: nothing due
    db.close()
    monkeypatch.setattr(summary, "RULES", "sha256:a-rules-fix")
    db = ResultsDB(path)
    try:
        assert dict(db.query("SELECT key, value FROM summary_state"))["rules"] == "sha256:a-rules-fix"
        assert check.check(db)[0] == []
    finally:
        db.close()


def test_games_another_program_stores_or_edits_are_summarised_when_opened(tmp_path):
    path = tmp_path / "r.db"
    fixtures_db(path)
    con = sqlite3.connect(path)
    rec = speed_single(winner=1, players=("Ann", "Zed"), ident="raw-1")
    con.execute("INSERT INTO games (dedup_key, game, record, source, received_at) VALUES (?,?,?,?,?)",
                ("id:raw-1", "speed", json.dumps(rec), "live", "2099-01-01"))
    con.execute("UPDATE games SET record = ? WHERE id = 1",
                (json.dumps(speed_single(winner=1, left=2, players=("Ann", "Bob"), ident="t1-1")),))
    con.execute("INSERT INTO changes (verb, args, made_at) VALUES ('rename', '{\"old\":\"Zed\",\"new\":\"Zack\"}', 'x')")
    con.commit()
    con.close()
    db = ResultsDB(path)
    try:
        assert db.query("SELECT COUNT(*) FROM summary_due")[0][0] == 0
        assert check.check(db)[0] == []
        rows = dict(((r["game"], r["player"]), r) for r in standings.standings(db)[0])
        assert rows[("speed", "Zack")]["wins"] == 1
    finally:
        db.close()


def test_name_fixes_move_person_keys_without_replaying_a_record(tmp_path, monkeypatch):
    path = tmp_path / "r.db"
    fixtures_db(path)
    db = ResultsDB(path)
    try:
        cat = dict(((r["game"], r["player"]), r["games"]) for r in standings.standings(db)[0])[("speed", "Cat")]

        def no_replay(record):
            raise AssertionError("a record was replayed")
        monkeypatch.setattr(summary.records, "replay", no_replay)
        changes.make(db, "rename", ["Bobby", "Rob"])
        changes.make(db, "merge", ["Rob", "Cat"])
        changes.make(db, "assign", ["t2-2", "P2", "Cat"])
        changes.undo(db, ["3"])
        said = changes.listing(db)
        rows = dict(((r["game"], r["player"]), r["games"]) for r in standings.standings(db)[0])
        table, _ = ratings.stored(db)
        monkeypatch.undo()
        assert "rename Bobby to Rob" in said and "(undone" in said
        assert rows[("speed", "Cat")] == cat + 1 and ("speed", "Rob") not in rows     # Bobby's one game
        assert [r for r in table if r["player"] == "Cat" and r["game"] == "speed"][0]["games"] == cat + 1
        assert check.check(db)[0] == []
    finally:
        db.close()


# --- the read API: the standings of some games ------------------------------------------
class Subset:
    """The database as the replayed standings read it, limited to some of
    its games and the slaps tied to them."""

    def __init__(self, db, row_ids):
        self.db, self.row_ids = db, set(row_ids)

    def slap_rows(self):
        return [s for s in self.db.slap_rows() if s[-1] in self.row_ids]


def test_the_standings_of_a_set_of_game_rows_are_those_games_standings(tmp_path):
    """An evening's or a table's standings: the SQL over those rows equals
    the standings counted from those games' replays (the page's per-table
    view), slaps and spellings included."""
    path = tmp_path / "r.db"
    evening_db(path)
    db = ResultsDB(path)
    try:
        played = standings.played(db)
        for dev in sorted(set(people.table_of(g.record) for g in played)):
            here = set(g.row for g in played if people.table_of(g.record) == dev)
            got = standings.standings(db, [], rows=here)
            want = standings.standings(Subset(db, here), [], [g for g in played if g.row in here])
            assert got == want and sum(r["games"] for r in got[0]) > 0
        assert standings.standings(db, rows=[]) == ([], 0)
    finally:
        db.close()


def test_the_standings_since_a_moment_count_the_games_that_arrived_from_then(tmp_path):
    db = ResultsDB(tmp_path / "r.db")
    try:
        for day, (winner, ident) in zip(("2026-12-01T20:00:00+00:00", "2026-12-07T19:30:00+00:00",
                                         "2026-12-07T21:00:00+00:00", "2026-12-08T00:10:00+00:00"),
                                        ((0, "a"), (1, "b"), (1, "c"), (0, "d"))):
            db.moment = day
            db.add_record(speed_single(winner=winner, ident=ident))
        tonight = standings.standings(db, since="2026-12-07", until="2026-12-08")[0]
        assert [(r["player"], r["games"], r["wins"]) for r in tonight] == [("Bob", 2, 2), ("Ann", 2, 0)]
        assert sum(r["games"] for r in standings.standings(db, since="2026-12-07T21:00:00+00:00")[0]) == 4
        rows = [r for r, in db.query("SELECT id FROM games WHERE record LIKE '%\"b\"%'")]
        assert [(r["player"], r["wins"]) for r in standings.standings(db, rows=rows, since="2026-12-07")[0]] == [
            ("Bob", 1), ("Ann", 0)]
    finally:
        db.close()


# --- the order of time as one sortable value ----------------------------------------------
TEXT = st.text(alphabet=st.sampled_from(["a", "b", "\x00", "\x01", "\xff", "\u00e9", "\ud7ff", "\ue000",
                                         "\U0001f600", "-", "9"]), max_size=4)
IDS = st.one_of(st.none(), st.integers(-2 ** 70, 2 ** 70), st.booleans(),
                st.builds(lambda t, n: "%s-%d" % (t, n), TEXT, st.integers(0, 10 ** 18)), TEXT)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, IDS, st.one_of(st.none(), TEXT)), min_size=2, max_size=12))
def test_the_order_key_sorts_games_as_time_order_does(games):
    rows = []
    arrivals = {}
    for row, (received, dedup, ident, table) in enumerate(games, 1):
        rec = {"id": ident} if ident is not None else {}
        if table is not None:
            rec["table"] = table
        rows.append((row, rec))
        arrivals[row] = (received, dedup)
    want = [g[0] for g in people.time_order(rows, arrivals)]
    got = sorted(rows, key=lambda g: summary.order_key(arrivals[g[0]][0], arrivals[g[0]][1], g[0], g[1]))
    assert [g[0] for g in got] == want


# --- ratings: what is rated again --------------------------------------------------------
class Counting:
    """ratings.MODEL, counting the games it rates."""

    def __init__(self, model):
        self.model, self.rated = model, 0

    def rating(self, *a, **kw):
        return self.model.rating(*a, **kw)

    def rate(self, teams, **kw):
        self.rated += 1
        return self.model.rate(teams, **kw)


def test_a_new_game_rates_only_itself_and_a_late_one_rates_from_its_place(tmp_path, monkeypatch):
    db = ResultsDB(tmp_path / "r.db")
    try:
        db.moment = "2026-12-07T20:00:00+00:00"
        for i in range(1, 21):
            db.add_record(speed_single(winner=i % 2, players=(("Ann", "Bob", "Cat")[i % 3], "Dan"), ident="t-%d" % i))
        count = Counting(ratings.MODEL)
        monkeypatch.setattr(ratings, "MODEL", count)
        ratings.stored(db)
        assert count.rated == 20
        ratings.stored(db)
        assert count.rated == 20                       # kept: nothing rated again
        db.moment = "2026-12-07T23:00:00+00:00"
        db.add_record(speed_single(winner=1, ident="u-1"))
        ratings.stored(db)
        assert count.rated == 21                       # the new game alone
        db.moment = "2026-12-07T20:00:00+00:00"        # a board's flash read late: its game 15 was played
        db.add_record(speed_single(winner=0, players=("Eve", "Dan"), ident="v-15"))   # with the others' 15th
        ratings.stored(db)
        assert count.rated == 21 + 7                   # itself and what follows it (t-16..20, u-1), not t-15
        changes.make(db, "rename", ["Eve", "Evelyn"])
        ratings.stored(db)
        assert count.rated == 28                       # a new name for one person: the same numbers, relabelled
        changes.make(db, "rename", ["Evelyn", "EVELYN"])   # a spelling: nobody's key moves
        ratings.stored(db)
        assert count.rated == 28
        changes.make(db, "merge", ["Evelyn", "Cat"])   # two people made one: from Eve's one game on
        ratings.stored(db)
        assert count.rated == 28 + 7
        changes.undo(db, [])
        ratings.stored(db)
        assert count.rated == 35 + 7
        monkeypatch.undo()
        assert check.check(db)[0] == []
    finally:
        db.close()


def test_ratings_read_from_a_database_that_takes_no_write_are_rated_in_memory(tmp_path, monkeypatch, capsys):
    """A database opened read-only (as for a user without write permission)
    whose ratings are due: the same table, rated in memory, nothing kept."""
    from host_tools.cli import results
    path = tmp_path / "r.db"
    evening_db(path)
    fresh = tmp_path / "fresh.db"
    shutil.copy(path, fresh)                            # the same games, their ratings not kept yet
    code, want, _ = cli("--db", path, "ratings", "--json")
    assert code == 0
    real = sqlite3.connect

    def read_only(name, *a, **kw):
        return real("file:%s?mode=ro" % name, *a, uri=True, **kw)
    monkeypatch.setattr(sqlite3, "connect", read_only)
    assert results.main(["--db", str(fresh), "ratings", "--json"]) == 0
    got = capsys.readouterr()
    monkeypatch.undo()
    assert got.err == "" and got.out == want
    db = ResultsDB(fresh)
    try:
        assert db.query("SELECT COUNT(*) FROM ratings")[0][0] == 0 and db.query("SELECT COUNT(*) FROM ratings_due")[0][0]
    finally:
        db.close()


# --- a league's database: a person is of a club --------------------------------------------
def test_a_second_club_makes_every_named_seat_a_person_of_its_club_and_a_replay_agrees(tmp_path):
    """One club's games read names as they are; the first game of a second
    club makes every seat of a club's game a person of that club ("Ann
    (riverside)"), those kept already included; a game first stored without
    its club (from a file) that comes again with it takes the club; one
    club's standings are its games'."""
    db = ResultsDB(tmp_path / "league.db")
    try:
        db.add_game(speed_single(winner=0, players=("Ann", "Bob"), ident="r-1"), club="riverside")
        db.add_game(speed_single(winner=1, players=("Ann", "Cat"), ident="u-1"))          # from a file
        names = lambda: sorted(r["player"] for r in standings.standings(db)[0] if r["person"])   # noqa: E731
        assert names() == ["Ann", "Bob", "Cat"] and check.check(db)[0] == []
        db.add_game(speed_single(winner=0, players=("Ann", "Dan"), ident="h-1"), club="hilltop")
        assert names() == ["Ann", "Ann (hilltop)", "Ann (riverside)", "Bob (riverside)", "Cat", "Dan (hilltop)"]
        assert check.check(db)[0] == []
        db.add_game(speed_single(winner=1, players=("Ann", "Cat"), ident="u-1"), club="riverside")   # again, with its club
        assert names() == ["Ann (hilltop)", "Ann (riverside)", "Bob (riverside)", "Cat (riverside)", "Dan (hilltop)"]
        assert check.check(db)[0] == []
        hill = standings.standings(db, club="hilltop")
        assert hill == standings.standings(db, [], standings.played(db, club="hilltop"), club="hilltop")
        assert sorted(r["player"] for r in hill[0]) == ["Ann (hilltop)", "Dan (hilltop)"]
        with pytest.raises(standings.NoClub, match="its clubs: hilltop, riverside"):
            standings.standings(db, club="meadow")
        changes.make(db, "merge", ["Ann (hilltop)", "Ann (riverside)"])
        assert names() == ["Ann (riverside)", "Bob (riverside)", "Cat (riverside)", "Dan (hilltop)"]
        assert check.check(db)[0] == []
    finally:
        db.close()
