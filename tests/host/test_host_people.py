"""People in the results database (host_tools/club/people.py, host_tools/club/changes.py):
a name normalised is a person, seat labels are nobody, and rename / merge /
assign / undo fix names after the fact, kept in the database, on top of the
records as stored."""
import json
import sqlite3
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

from host_tools.club import people, ratings, standings
from host_tools.views import results_page, site
from host_tools.club.db import ResultsDB
from host_fixtures import partners_game, speed_single, speedrun_short

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def cli(db, *args):
    r = subprocess.run([str(BIN / "speedref-results"), "--db", str(db)] + list(args),
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def standing(db_path, game="speed"):
    db = ResultsDB(db_path)
    try:
        rows, _ = standings.standings(db)
    finally:
        db.close()
    return dict((r["player"], (r["games"], r["wins"])) for r in rows if r["game"] == game)


def dump(path):
    """Everything the database holds, for "nothing changed"."""
    con = sqlite3.connect(path)
    try:
        return list(con.iterdump())
    finally:
        con.close()


def evening(path):
    db = ResultsDB(path)
    db.add_record(speed_single(winner=0, left=5, players=("Ann", "Bob"), ident="t1-1"))
    db.add_record(speed_single(winner=1, left=9, players=(" Ann ", "P2"), ident="t1-2"))
    db.add_record(speed_single(winner=0, left=3, players=("Bobby", "Guest"), ident="t2-1"))
    db.add_record(speed_single(winner=0, left=4, players=("P1", "P2"), ident="t2-2"))
    db.add_record(partners_game(ident="t3-1"))
    db.close()


# --- a person is a name, normalised ---------------------------------------------------
def test_case_spaces_and_unicode_forms_are_one_person():
    assert people.key("Ann") == people.key(" ann ") == people.key("ANN\t")
    nfd = unicodedata.normalize("NFD", "Zoë")
    assert nfd != "Zoë" and people.key(nfd) == people.key("ZOË")
    assert people.key("Ann") != people.key("Anne")


def test_one_person_is_shown_in_the_spelling_of_their_last_game(tmp_path):
    """The record's players (SP-20) as entered: "ann" then "Ann" then "ANN"
    is one person with three games, shown as "ANN"."""
    db = ResultsDB(tmp_path / "r.db")
    for i, n in enumerate(["ann", "Ann", "ANN"]):
        db.add_record(speed_single(winner=0, players=(n, "Bob"), ident="t-%d" % (i + 1)))
    db.close()
    assert standing(tmp_path / "r.db") == {"ANN": (3, 3), "Bob": (3, 0)}


def test_seat_labels_and_guests_are_never_merged_into_a_person(tmp_path):
    """P1..P4 and Guest are seats nobody named: one "(unnamed seats)" row,
    counted a seat at a time, never a person with a history."""
    evening(tmp_path / "r.db")
    t = standing(tmp_path / "r.db")
    assert t == {"Ann": (2, 1), "Bob": (1, 0), "Bobby": (1, 1), standings.UNNAMED: (4, 2)}
    code, out, _ = cli(tmp_path / "r.db", "--json")
    rows = json.loads(out)["standings"]
    assert [r["person"] for r in rows if r["game"] == "speed"] == [True, True, True, False]
    assert not any(r["player"] in ("P1", "P2", "Guest") for r in rows)


@pytest.mark.parametrize("name", ["P1", "p4", "Guest", " GUEST ", "", None])
def test_unnamed_seats(name):
    assert people.unnamed(name)


@pytest.mark.parametrize("name", ["Ann", "P", "P1x", "Guesty", "<P1>"])
def test_names(name):
    assert not people.unnamed(name)


def test_the_page_shows_unnamed_seats_apart_and_people_as_players(tmp_path):
    evening(tmp_path / "r.db")
    db = ResultsDB(tmp_path / "r.db")
    try:
        data = results_page.page_data(db)
        html, _ = results_page.render(db)
    finally:
        db.close()
    speed = [s for s in data["sections"] if s["id"] == "speed"][0]
    assert [(r["player"], r["person"]) for r in speed["rows"]][-1] == (standings.UNNAMED, False)
    assert standings.UNNAMED not in [p["player"] for p in data["players"]]
    assert '<tr class="unnamed"><td class="player" data-col="player" title="(unnamed seats)">' in html


# --- rename, merge, assign, undo -------------------------------------------------------
def test_rename_is_kept_applies_to_games_imported_later_and_undo_takes_it_back(tmp_path):
    db = tmp_path / "r.db"
    evening(db)
    before = dump(db)
    code, out, err = cli(db, "rename", "ann", "Annie")
    assert (code, err) == (0, "") and out == "change 1: renamed Ann to Annie: 3 seats\n"
    assert standing(db)["Annie"] == (2, 1) and "Ann" not in standing(db)
    # the record as stored is untouched: importing it again changes nothing
    rec = speed_single(winner=0, left=5, players=("Ann", "Bob"), ident="t1-1")
    f = tmp_path / "again.json"
    f.write_text(json.dumps(rec))
    assert cli(db, "import", str(f))[0] == 0
    assert standing(db)["Annie"] == (2, 1)
    # a later game where the table still typed "Ann" is Annie's
    f.write_text(json.dumps(speed_single(winner=1, left=2, players=("Ann", "Cat"), ident="t1-3")))
    assert cli(db, "import", str(f))[0] == 0
    assert standing(db)["Annie"] == (3, 1)
    code, out, _ = cli(db, "changes")
    assert code == 0 and out.startswith("1  ") and "rename Ann to Annie" in out and "undone" not in out
    code, out, _ = cli(db, "undo")
    assert code == 0 and out == "undid change 1: rename Ann to Annie\n"
    assert standing(db)["Ann"] == (3, 1) and "Annie" not in standing(db)
    assert "(undone " in cli(db, "changes")[1]
    assert dump(db) != before    # the change and its undo are both kept


def test_rename_to_someone_elses_name_joins_the_two(tmp_path):
    db = tmp_path / "r.db"
    evening(db)
    code, out, err = cli(db, "rename", "Bobby", "BOB")
    assert code == 0 and out == "change 1: renamed Bobby to Bob: 1 seat, joined to Bob's 2 seats\n", err
    assert standing(db)["Bob"] == (2, 1) and "Bobby" not in standing(db)


def test_rename_can_fix_the_spelling_of_a_person(tmp_path):
    db = tmp_path / "r.db"
    evening(db)
    assert cli(db, "rename", "ann", "ANN")[0] == 0
    assert standing(db)["ANN"] == (2, 1) and "Ann" not in standing(db)


def test_merge_moves_one_persons_history_into_another(tmp_path):
    db = tmp_path / "r.db"
    evening(db)
    code, out, err = cli(db, "merge", "Bobby", "bob")
    assert code == 0 and out == "change 1: merged Bobby into Bob: 1 seat moved\n", err
    assert standing(db)["Bob"] == (2, 1) and "Bobby" not in standing(db)
    assert cli(db, "undo", "1")[0] == 0
    assert standing(db)["Bobby"] == (1, 1) and standing(db)["Bob"] == (1, 0)


def test_assign_names_an_unnamed_seat_and_guest_unnames_it(tmp_path):
    db = tmp_path / "r.db"
    evening(db)
    code, out, err = cli(db, "assign", "t2-2", "P2", "Cat")
    assert code == 0 and out == "change 1: game #4 (record t2-2) seat P2: Cat (was nobody named)\n", err
    assert standing(db)["Cat"] == (1, 0) and standing(db)[standings.UNNAMED] == (3, 2)
    code, out, err = cli(db, "assign", "4", "1", "guest")
    assert code == 2 and "nobody named already" in err
    code, out, err = cli(db, "assign", "t1-1", "2", "Guest")
    assert code == 0 and "seat P2: nobody named (was Bob)" in out
    assert "Bob" not in standing(db)
    # a rename carries an assigned name along, as it does an entered one
    assert cli(db, "rename", "Cat", "Catherine")[0] == 0
    assert standing(db)["Catherine"] == (1, 0)
    assert [cli(db, "undo")[0] for _ in range(3)] == [0, 0, 0]
    assert cli(db, "undo")[:2] == (2, "")
    assert standing(db) == {"Ann": (2, 1), "Bob": (1, 0), "Bobby": (1, 1), standings.UNNAMED: (4, 2)}


BAD = [
    (["rename", "Ann", ""], "must not be empty"),
    (["rename", "Ann", "   "], "must not be empty"),
    (["rename", "Ann", "x" * 25], "at most 24 characters, not 25"),
    (["rename", "Ann", "A\x1b[2Jnn"], "U+001B"),
    (["rename", "Ann", "Ann\nBob"], "U+000A"),
    (["rename", "Ann", "\u202eevil"], "U+202E"),
    (["rename", "Ann", "Zoe\u200b"], "U+200B"),
    (["rename", "Ann", "<b>Ann</b>"], "markup"),
    (["rename", "Ann", "P3"], "seat label"),
    (["rename", "Ann", "Guest"], "seat label"),
    (["rename", "Ann", "BOB"], "Bob is another person, who played game #1 (record t1-1) with Ann"),
    (["rename", "Nobody", "Ann2"], "no person 'Nobody'"),
    (["rename", "P1", "Ann2"], "unnamed seat, not a person"),
    (["rename", "Ann", "Ann"], "called that already"),
    (["merge", "Ann", " ANN "], "one person already"),
    (["merge", "Ann", "Bob"], "played game #1 (record t1-1) together"),
    (["merge", "Ann", "Nobody"], "no person 'Nobody'"),
    (["assign", "t9-9", "1", "Cat"], "no game 't9-9'"),
    (["assign", "999", "1", "Cat"], "no game '999'"),
    (["assign", "t1-1", "3", "Cat"], "seats 1..2 (P1..P2), not '3'"),
    (["assign", "t1-1", "P0", "Cat"], "not 'P0'"),
    (["assign", "t1-1", "x", "Cat"], "not 'x'"),
    (["assign", "t1-1", "2", "ann"], "the same person cannot play two seats"),
    (["assign", "t1-1", "2", "bob"], "is Bob already"),
    (["assign", "t1-1", "2", "<b>"], "markup"),
    (["assign", "t1-1", "2", "P4"], "seat label"),
    (["undo"], "no change to undo"),
    (["undo", "7"], "no change 7"),
    (["undo", "x"], "N is a change's number"),
]


@pytest.mark.parametrize("args,why", BAD, ids=[" ".join(a)[:40] for a, _ in BAD])
def test_bad_changes_are_refused_with_exit_2_and_change_nothing(tmp_path, args, why):
    db = tmp_path / "r.db"
    evening(db)
    before = dump(db)
    code, out, err = cli(db, *args)
    assert code == 2 and out == "", (out, err)
    assert why in err and "(nothing changed)" in err and "Traceback" not in err, err
    assert len(err.splitlines()) == 1 and "\x1b" not in err
    assert dump(db) == before


def test_a_wrong_number_of_arguments_is_a_usage_error(tmp_path):
    db = tmp_path / "r.db"
    evening(db)
    for args in (["rename", "Ann"], ["merge", "Ann", "Bob", "Cat"], ["assign", "1", "2"], ["undo", "1", "2"],
                 ["rename", "Ann", "Annie", "--csv", "x.csv"], ["ratings", "--game", "poker"],
                 ["--game", "speed"], ["rename", "Ann", "Annie", "--game", "speed"]):
        code, out, err = cli(db, *args)
        assert code == 2 and "usage:" in err, (args, err)
    assert cli(tmp_path / "none.db", "rename", "Ann", "Bob")[0] == 2
    assert not (tmp_path / "none.db").exists(), "a change never makes a database"


def test_an_undone_change_in_the_middle_leaves_the_later_ones(tmp_path):
    db = tmp_path / "r.db"
    evening(db)
    assert cli(db, "rename", "Bobby", "Rob")[0] == 0
    assert cli(db, "rename", "Ann", "Annie")[0] == 0
    assert cli(db, "undo", "1")[0] == 0
    assert set(standing(db)) == {"Annie", "Bob", "Bobby", standings.UNNAMED}
    code, _, err = cli(db, "undo", "1")
    assert code == 2 and "undone already" in err


# --- rename then undo is the identity --------------------------------------------------
NAME = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FF, exclude_characters="<>",
                             exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")),
               min_size=1, max_size=10).filter(lambda s: s.strip() and not people.unnamed(s))


def _view(db):
    with db.snapshot():
        games = standings.played(db)
        rows, _ = standings.standings(db, games=games)
        return rows, ratings.table(games)[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(NAME, min_size=4, max_size=4, unique_by=people.key), new=NAME, pick=st.integers(0, 3),
       merge=st.booleans())
def test_a_change_then_its_undo_is_the_identity(tmp_path_factory, names, new, pick, merge):
    path = tmp_path_factory.mktemp("id") / "r.db"
    db = ResultsDB(path)
    db.add_record(speed_single(winner=0, players=names[:2], ident="a-1"))
    db.add_record(speed_single(winner=1, players=names[2:], ident="a-2"))
    rec = speedrun_short(ident="a-4")
    rec["players"] = names[1:]
    db.add_record(rec)
    from host_tools.club import changes
    before = _view(db)
    try:
        if merge:
            # the first player never sat with the third or the fourth
            said = changes.make(db, "merge", [names[0], names[2 + pick % 2]])
            assert "merged" in said
        else:
            said = changes.make(db, "rename", [names[pick], new])
            assert "renamed" in said
    except changes.Refused as e:
        # refused only for the reasons it gives: the new name is someone else
        assert "called that already" in str(e) or "played game" in str(e), str(e)
        assert db.changes() == []
    else:
        assert _view(db) != before or people.key(new) == people.key(names[pick])
        changes.undo(db, [])
    assert _view(db) == before
    db.close()


def test_the_served_page_is_made_again_after_a_change_to_names(tmp_path):
    """--serve keeps its page until something is stored: a rename or its
    undo is something, though no game came."""
    import threading
    import urllib.request
    from host_tools.club import changes
    db_path = tmp_path / "r.db"
    evening(db_path)
    srv = site.make_server(lambda: ResultsDB(db_path, create=False), "r.db", port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/" % srv.server_address[1]

    def page():
        with urllib.request.urlopen(url) as r:
            return r.read().decode("utf-8")
    try:
        assert 'title="Bobby"' in page()
        db = ResultsDB(db_path)
        changes.make(db, "rename", ["Bobby", "Rob"])
        assert 'title="Rob"' in page() and 'title="Bobby"' not in page()
        changes.undo(db, [])
        db.close()
        assert 'title="Bobby"' in page()
    finally:
        srv.shutdown()
        srv.server_close()


# --- tables --------------------------------------------------------------------------
def test_the_per_table_view_uses_the_records_table_name_else_its_device(tmp_path):
    """The record's optional "table" (docs/serial-protocol.md) names where it
    was played: two browsers both "web" are two tables when they say so."""
    db = ResultsDB(tmp_path / "r.db")
    db.add_record(dict(speed_single(winner=0, ident="web-1f2e3d4c-1"), table="Table 3"))
    db.add_record(dict(speed_single(winner=1, ident="web-9a8b7c6d-1"), table="Table 4"))
    db.add_record(dict(speed_single(winner=1, ident="web-9a8b7c6d-2"), table="<b>Table\n5</b>"))
    db.add_record(speed_single(winner=0, ident="e6614103e7a52b21-7"))
    try:
        data = results_page.page_data(db)
        html, _ = results_page.render(db)
    finally:
        db.close()
    speed = [s for s in data["sections"] if s["id"] == "speed"][0]
    assert [t["device"] for t in speed["tables"]] == ["<b>Table\\n5</b>", "Table 3", "Table 4", "e6614103e7a52b21"]
    assert [t["rows"][0]["wins"] for t in speed["tables"]] == ["1", "1", "1", "1"]
    assert data["devices"] == sorted(["Table 3", "Table 4", "<b>Table\\n5</b>", "e6614103e7a52b21"])
    assert "table &lt;b&gt;Table\\n5&lt;/b&gt;" in html and "<b>Table" not in html
    assert people.table_of({"id": "sim-3", "table": "  "}) == "sim"
    assert people.table_of({"table": 7}) == people.NO_DEVICE


def test_four_people_from_three_sources_and_a_rename_joins_a_history(tmp_path):
    """The same four people at a board (its USB log), in a simulator store's
    records and on a browser's downloads, each source with its own table
    name; the browser typed "danny".  After `rename danny Dan` the standings
    and the ratings show four people, each with games from all three."""
    names = ["Ann", "Bob", "Cat", "Dan"]

    def four(ident, table, players):
        return dict(partners_game(ident=ident), players=list(players), table=table)

    def two(ident, table, players, winner):
        return dict(speed_single(winner=winner, players=players, ident=ident), table=table)
    board = [four("e6614103e7a52b21-9f3c2a71-1", "Table 3", names),
             two("e6614103e7a52b21-9f3c2a71-2", "Table 3", ("Ann", "Bob"), 0),
             two("e6614103e7a52b21-9f3c2a71-3", "Table 3", ("Cat", "Dan"), 1)]
    sim = [four("sim-5d0e83b1-1", "Pantry", ["Bob", "Cat", "Dan", "Ann"]),
           two("sim-5d0e83b1-2", "Pantry", ("Dan", "Ann"), 0), two("sim-5d0e83b1-3", "Pantry", ("Bob", "Cat"), 0)]
    web = [four("web-0a1b2c3d-1", "Tablet", ["Cat", "danny", "Ann", "Bob"]),
           two("web-0a1b2c3d-2", "Tablet", ("danny", "Bob"), 1), two("web-0a1b2c3d-3", "Tablet", ("Ann", "Cat"), 1)]
    (tmp_path / "board.log").write_text("".join(json.dumps({"ev": "game_end", "record": r}) + "\n" for r in board))
    paths = [tmp_path / "board.log"]
    for r in sim + web:
        paths.append(tmp_path / ("%s.json" % r["id"]))
        paths[-1].write_text(json.dumps(r))
    db = tmp_path / "club.db"
    assert cli(db, "import", *map(str, paths))[0] == 0
    assert cli(db, "rename", "danny", "Dan")[0] == 0

    def js(args):
        return json.loads(cli(db, *args)[1])
    standings = js(["--json"])["standings"]
    assert sorted(set(r["player"] for r in standings)) == names
    for n in names:
        assert sum(r["games"] for r in standings if r["player"] == n) == 6, n   # 3 partners, 3 Speed
    rated = js(["ratings", "--json"])["ratings"]
    assert sorted(r["player"] for r in rated if r["game"] == "partners") == names
    assert all(r["games"] == 3 for r in rated if r["game"] == "partners")
    data_db = ResultsDB(db)
    try:
        data = results_page.page_data(data_db)
    finally:
        data_db.close()
    partners = [s for s in data["sections"] if s["id"] == "partners"][0]
    assert [t["device"] for t in partners["tables"]] == ["Pantry", "Table 3", "Tablet"]
    for t in partners["tables"]:
        assert sorted(r["player"] for r in t["rows"]) == names, t
    assert sorted(p["player"] for p in data["players"]) == names


# --- speedref-log: one person at two seats is refused, two unnamed seats are not ---------
def test_the_log_refuses_one_person_at_two_seats_and_keeps_two_guests():
    from host_tools.intake import lines
    db = ResultsDB(":memory:")
    errs = []
    core = lines.LineCore(db, out=lambda t: None, err=errs.append)
    line = lambda rec: (json.dumps({"ev": "game_end", "record": rec}) + "\n").encode()  # noqa: E731
    core.feed(line(speed_single(players=("Ann", " ANN"), ident="t-1")))
    assert db.count_games() == 0 and "twice" in errs[-1] and "ANN" in errs[-1]
    core.feed(line(speed_single(players=("Guest", "Guest"), ident="t-2")))
    core.feed(line(speed3_guests()))
    assert db.count_games() == 2, errs
    db.close()


def speed3_guests():
    return {"game": "speed", "layout": "pagat", "match": {"single": True}, "players": ["P1", "Guest", "guest"],
            "deals": [{"winner": 0, "left": [0, 4, 5]}], "id": "t-3"}


# --- every seat of every stored game stays in the standings -----------------------------
def seats_shown(db_path):
    """(seats the standings count, seats the stored games have), over every game."""
    db = ResultsDB(db_path)
    try:
        rows, _ = standings.standings(db)
        stored = sum(len(rec["players"]) for _, rec in db.games())
    finally:
        db.close()
    return sum(r["games"] for r in rows), stored


def test_an_undo_that_would_seat_one_person_twice_is_refused_and_says_what_depends_on_it(tmp_path):
    """Ann and Cat at one table; Cat is renamed Cy, then Ann takes the name
    Cat.  Undoing the first rename alone would make the game "Cat v Cat":
    refused, naming the later change that needs it, and nothing changes."""
    db = tmp_path / "r.db"
    f = tmp_path / "g.json"
    f.write_text(json.dumps(speed_single(winner=0, players=("Ann", "Cat"), ident="t-1")))
    assert cli(db, "import", str(f))[0] == 0
    assert cli(db, "rename", "Cat", "Cy")[0] == 0
    assert cli(db, "rename", "Ann", "Cat")[0] == 0
    before = dump(db)
    code, out, err = cli(db, "undo", "1")
    assert code == 2 and out == "" and len(err.splitlines()) == 1, (out, err)
    assert "change 2 (rename Ann to Cat)" in err and "game #1 (record t-1)" in err and "(nothing changed)" in err
    assert "undo change 2 first" in err
    assert dump(db) == before
    assert standing(db) == {"Cat": (1, 1), "Cy": (1, 0)} and seats_shown(db) == (2, 2)
    # undone in the order that needs: each step keeps both seats
    assert cli(db, "undo", "2")[0] == 0 and standing(db) == {"Ann": (1, 1), "Cy": (1, 0)}
    assert cli(db, "undo", "1")[0] == 0 and standing(db) == {"Ann": (1, 1), "Cat": (1, 0)}


def test_a_game_that_seats_two_merged_people_is_imported_and_the_merge_does_not_hold_for_it(tmp_path):
    """Dan merged into Ann; then a game comes in where Dan and Ann sat at one
    table.  It is stored and said; both seats stay two people (Dan keeps his
    win), and `changes` says for which game the merge does not hold."""
    db = tmp_path / "r.db"
    games = [speed_single(winner=1, players=("Bob", "Dan"), ident="t-1"),
             speed_single(winner=0, players=("Ann", "Cat"), ident="t-2")]
    for i, g in enumerate(games):
        (tmp_path / ("%d.json" % i)).write_text(json.dumps(g))
    assert cli(db, "import", str(tmp_path / "0.json"), str(tmp_path / "1.json"))[0] == 0
    assert cli(db, "merge", "Dan", "Ann")[0] == 0
    f = tmp_path / "together.json"
    f.write_text(json.dumps(speed_single(winner=0, players=("Dan", "Ann"), ident="t-3")))
    code, out, err = cli(db, "import", str(f))
    assert code == 0 and "1 new game record" in out, (out, err)
    assert ("record t-3: Dan and Ann sat at one table, but change 1 (merge Dan into Ann) made them one person:"
            " that change does not hold for this game" in err), err
    assert standing(db) == {"Ann": (3, 2), "Dan": (1, 1), "Bob": (1, 0), "Cat": (1, 0)}
    assert seats_shown(db) == (6, 6)
    code, out, _ = cli(db, "changes")
    assert code == 0 and "merge Dan into Ann  (does not hold for game #3: two people at one table)" in out, out
    # importing it again adds nothing and says nothing new
    code, out, err = cli(db, "import", str(f))
    assert code == 0 and "0 new game records, 1 already stored" in out and err == "", (out, err)
