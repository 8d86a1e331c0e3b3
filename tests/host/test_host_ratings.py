"""Ratings (host_tools/club/ratings.py, docs/ratings.md): openskill's Weng-Lin
model, one update a finished game, in the order the games were played; how
each game's result becomes places (the rules cited); guests; the CLI; and a
10,000-line import of hostile names that loses nothing."""
import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings, HealthCheck, strategies as st
from openskill.models import PlackettLuce

from host_tools import jsonin
from host_tools.club import people, ratings, standings
from host_tools.club.db import ResultsDB
from host_fixtures import partners_game, speed_single, speedrun_short

BIN = Path(sys.executable).parent


def rated(*recs, moment=None):
    """{game: {player: (rating, sigma, conservative, games)}} of these records."""
    db = ResultsDB(":memory:")
    db.moment = moment
    for r in recs:
        db.add_record(r)
    rows, _ = ratings.table(standings.played(db))
    db.close()
    out = {}
    for r in rows:
        out.setdefault(r["game"], {})[r["player"]] = (r["rating"], r["sigma"], r["conservative"], r["games"])
    return out


def expected(ranks, names):
    """What openskill itself gives newcomers finishing in `ranks`."""
    m = PlackettLuce()
    new = m.rate([[m.rating()] for _ in ranks], ranks=ranks)
    return dict((n, (ratings.number(r.mu), ratings.number(r.sigma), ratings.number(r.mu - 3 * r.sigma), 1))
                for n, [r] in zip(names, new) if n is not None)


def speed3(left, winner=0, players=("Ann", "Bob", "Cat"), ident=None):
    rec = {"game": "speed", "layout": "pagat", "match": {"single": True}, "players": list(players),
           "deals": [{"winner": winner, "left": left}]}
    if ident is not None:
        rec["id"] = ident
    return rec


def test_two_player_speed_is_a_win_and_a_loss_SP19():
    """SP-19: a single deal decides; the winner gains what the loser loses."""
    got = rated(speed_single(winner=1, left=5, ident="t-1"))["speed"]
    assert got == expected([2, 1], ["Ann", "Bob"])
    assert float(got["Bob"][0]) > 25 > float(got["Ann"][0])


def test_three_player_speed_ranks_the_losers_by_cards_left_SP35():
    """SP-35: each loser's own count; fewer cards left is the better place."""
    assert ratings.places(speed3([0, 9, 3]), {"players": [0, 1, 2], "winners": [0]}) == [1, 3, 2]
    assert rated(speed3([0, 9, 3], ident="t-1"))["speed"] == expected([1, 3, 2], ["Ann", "Bob", "Cat"])
    # the same count left is the same place
    assert rated(speed3([0, 4, 4], ident="t-1"))["speed"] == expected([1, 2, 2], ["Ann", "Bob", "Cat"])


def test_four_player_speed_counts_cards_left_over_the_whole_match_SP35_SP36():
    rec = {"game": "speed", "layout": "pagat", "match": {"best_of": 3}, "players": ["Ann", "Bob", "Cat", "Dan"],
           "deals": [{"winner": 1, "left": [2, 0, 9, 5]}, {"winner": 1, "left": [8, 0, 1, 4]}], "id": "t-1"}
    # Bob won both deals (SP-36: 2 of 3); then Dan 9, Cat 10, Ann 10 left
    assert rated(rec)["speed"] == expected([3, 1, 3, 2], ["Ann", "Bob", "Cat", "Dan"])


def test_spit_is_a_win_and_a_loss_SPIT14():
    rec = {"game": "spit", "players": ["Ann", "Bob"], "rounds": [{"cards": [0, 52], "cleared": 0}], "id": "t-1"}
    assert rated(rec)["spit"] == expected([1, 2], ["Ann", "Bob"])


def test_speed_run_ranks_by_points_the_lowest_first_SR24():
    """The short game's totals: Bob -10 (wins), Ann -7, Cat 23."""
    assert rated(speedrun_short(ident="t-1"))["speedrun"] == expected([2, 1, 3], ["Ann", "Bob", "Cat"])


def test_partners_rates_every_player_alone_by_their_total_PT14_PT19():
    """PT-14: Ann (contractor) 11 and Cat (partner) 10 made the contract
    together, yet each is placed by their own total; Bob and Dan, 3 each,
    share a place."""
    assert rated(partners_game(ident="t-1"))["partners"] == expected([1, 3, 2, 3], ["Ann", "Bob", "Cat", "Dan"])


def test_an_unfinished_game_rates_nobody_unless_the_table_agreed_to_stop_PT20():
    unfinished = dict(partners_game(ident="t-1"), target=100)
    assert rated(unfinished) == {}
    agreed = dict(partners_game(ident="t-1"), target=100, stopped=True)
    assert rated(agreed)["partners"] == expected([1, 3, 2, 3], ["Ann", "Bob", "Cat", "Dan"])


def test_a_guest_is_a_newcomer_for_one_game_and_gets_no_row():
    got = rated(speed_single(winner=0, players=("Ann", "P2"), ident="t-1"),
                speed_single(winner=0, players=("Ann", "Guest"), ident="t-2"))["speed"]
    assert list(got) == ["Ann"] and got["Ann"][3] == 2
    m = PlackettLuce()
    [[a], _] = m.rate([[m.rating()], [m.rating()]], ranks=[1, 2])
    [[a], _] = m.rate([[a], [m.rating()]], ranks=[1, 2])       # the second guest is new again
    assert got["Ann"][:2] == (ratings.number(a.mu), ratings.number(a.sigma))
    assert rated(speed_single(players=("P1", "P2"), ident="t-1")) == {}


def test_one_person_named_twice_in_an_old_record_is_rated_once():
    got = rated(speed3([0, 9, 3], players=("Ann", "ann", "Bob"), ident="t-1"))["speed"]
    assert set(got) == {"Ann", "Bob"} and got["Ann"][3] == 1


def test_a_tables_games_are_rated_in_their_numbers_order_not_the_order_stored_SP24():
    """SP-24: a game's number is given when it starts; games that reached the
    database together are rated by it."""
    a = speed_single(winner=0, ident="t-1")
    b = speed_single(winner=1, ident="t-2")
    c = speed_single(winner=1, ident="t-3")
    when = "2026-01-01T20:00:00+00:00"
    assert rated(c, a, b, moment=when) == rated(a, b, c, moment=when)
    # a game that arrived later is rated later, whatever its number
    db = ResultsDB(":memory:")
    db.moment = "2026-01-01T21:00:00+00:00"
    db.add_record(a)
    db.moment = "2026-01-01T20:00:00+00:00"
    db.add_record(c)
    db.add_record(b)
    order = [g.record["id"] for g in standings.played(db)]
    db.close()
    assert order == ["t-2", "t-3", "t-1"]


GAMES = st.lists(st.tuples(st.sampled_from(["t", "u", "board-9f3c2a71"]), st.permutations(["Ann", "Bob", "Cat"]),
                           st.integers(0, 1), st.integers(1, 15)), min_size=2, max_size=12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(games=GAMES, data=st.data())
def test_ratings_do_not_depend_on_the_order_the_same_games_were_imported(games, data):
    seq = {}
    recs = []
    for table, names, winner, left in games:
        seq[table] = seq.get(table, 0) + 1
        recs.append(speed_single(winner=winner, left=left, players=names[:2], ident="%s-%d" % (table, seq[table])))
    shuffled = data.draw(st.permutations(recs))
    when = "2026-01-01T20:00:00+00:00"
    assert rated(*shuffled, moment=when) == rated(*recs, moment=when)


# --- the command line ---------------------------------------------------------------
def fill(path):
    db = ResultsDB(path)
    for r in (speed_single(winner=0, ident="t-1"), speed3([0, 9, 3], ident="t-2"), speedrun_short(ident="t-3"),
              partners_game(ident="t-4"), speed_single(winner=0, players=("Eve", "P2"), ident="t-5")):
        db.add_record(r)
    db.close()


def test_the_cli_prints_the_ratings_as_text_and_json(tmp_path):
    fill(tmp_path / "r.db")
    r = subprocess.run([str(BIN / "speedref-results"), "ratings", "--db", str(tmp_path / "r.db")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines[0] == "speed: 3 games rated, %s; provisional: fewer than 5 games, listed last" % ratings.MODEL_NAME
    assert lines[1].split() == ratings.HEADS
    j = subprocess.run([str(BIN / "speedref-results"), "ratings", "--json", "--game", "speed", "--db",
                        str(tmp_path / "r.db")], capture_output=True, text=True)
    got = json.loads(j.stdout)
    assert got["rated"] == {"speed": 3} and set(r["game"] for r in got["ratings"]) == {"speed"}
    speed_lines = lines[2:lines.index("")]
    assert [x.split() for x in speed_lines] == [
        [r["player"], r["rating"], r["sigma"], r["conservative"], str(r["games"]), "yes"] for r in got["ratings"]]
    assert all(r["provisional"] is True for r in got["ratings"])
    # sorted by the conservative estimate, best first
    cons = [float(r["conservative"]) for r in got["ratings"]]
    assert cons == sorted(cons, reverse=True)
    assert "Eve" in [r["player"] for r in got["ratings"]] and "P2" not in r.stdout


def newcomer_and_regular(path):
    """Cid wins his one game; Ann and Bob play six, three wins each (Bob's
    last), so Ann's conservative rating is below Cid's."""
    db = ResultsDB(path)
    for i in range(6):
        db.add_record(speed_single(winner=i % 2, left=5, players=("Ann", "Bob"), ident="t-%d" % (i + 1)))
    db.add_record(speed_single(winner=0, left=5, players=("Cid", "Dee"), ident="t-7"))
    db.close()


def test_fewer_than_five_games_is_provisional_and_listed_after_the_established(tmp_path):
    """One lucky game is not ranked above someone known: Cid's one win gives
    him the better conservative rating, and he is listed after Ann and Bob
    (six games each) all the same, marked provisional; --provisional moves
    the line."""
    newcomer_and_regular(tmp_path / "r.db")
    got = json.loads(subprocess.run([str(BIN / "speedref-results"), "ratings", "--json", "--db",
                                     str(tmp_path / "r.db")], capture_output=True, text=True).stdout)["ratings"]
    rows = dict((r["player"], r) for r in got)
    assert float(rows["Cid"]["conservative"]) > float(rows["Ann"]["conservative"])
    assert [(r["player"], r["provisional"]) for r in got] == [
        ("Bob", False), ("Ann", False), ("Cid", True), ("Dee", True)]
    everyone = json.loads(subprocess.run([str(BIN / "speedref-results"), "ratings", "--json", "--provisional", "1",
                                          "--db", str(tmp_path / "r.db")], capture_output=True, text=True).stdout)
    assert [r["player"] for r in everyone["ratings"]] == ["Bob", "Cid", "Ann", "Dee"]      # by rating alone
    assert not any(r["provisional"] for r in everyone["ratings"])


def test_ratings_as_csv(tmp_path):
    newcomer_and_regular(tmp_path / "r.db")
    out = tmp_path / "ratings.csv"
    r = subprocess.run([str(BIN / "speedref-results"), "ratings", "--csv", str(out), "--db", str(tmp_path / "r.db")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    import csv
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ratings.COLUMNS
    j = json.loads(subprocess.run([str(BIN / "speedref-results"), "ratings", "--json", "--db", str(tmp_path / "r.db")],
                                  capture_output=True, text=True).stdout)["ratings"]
    assert [(x["player"], x["conservative"], x["provisional"]) for x in rows] == [
        (x["player"], x["conservative"], "yes" if x["provisional"] else "no") for x in j]
    bad = subprocess.run([str(BIN / "speedref-results"), "ratings", "--csv", str(out), "--json", "--db",
                          str(tmp_path / "r.db")], capture_output=True, text=True)
    assert bad.returncode == 2 and "--json or --csv" in bad.stderr


def test_ratings_of_an_empty_database_and_a_missing_one(tmp_path):
    ResultsDB(tmp_path / "e.db").close()
    r = subprocess.run([str(BIN / "speedref-results"), "ratings", "--db", str(tmp_path / "e.db")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "no finished games with named players yet\n"
    r = subprocess.run([str(BIN / "speedref-results"), "ratings", "--db", str(tmp_path / "none.db")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no results database there" in r.stderr
    assert not (tmp_path / "none.db").exists()


# --- 10,000 lines of hostile names --------------------------------------------------
HOSTILE = ["Ann", " ann ", "ANN", "Zo\u00eb", "Zoe\u0308", "<script>alert(1)</script>", '"><img src=x onerror=1>',
           "x" * 200, "a\x1b[2Jb", "\u202eevil", "\U0001F600", "Bob\nSmith", "\x00nul", "&amp;", "O'Brien",
           "P1", "Guest", "  ", "(unnamed seats)", "=SUM(A1)", "\u0645\u0631\u064a\u0645", "\ud7ff\uffff"]


def test_a_10000_line_capture_of_hostile_names_is_imported_whole(tmp_path):
    """Every game of a long capture, whatever its names hold, is stored as it
    came; names are people by people.key; nothing breaks the standings, the
    ratings or the page."""
    recs, lines = [], []
    for i in range(400):
        a, b = HOSTILE[i % len(HOSTILE)], HOSTILE[(i * 7 + 3) % len(HOSTILE)]
        if people.key(a) == people.key(b) and not people.unnamed(a):
            b = "Cat"
        rec = speed_single(winner=i % 2, left=1 + i % 15, players=(a, b), ident="tbl%d-%d" % (i % 3, i // 3 + 1))
        recs.append(rec)
        for j in range(12):
            lines.append(json.dumps({"ev": "deal", "game": "speed", "deal": j + 1, "winner": i % 2, "left": 3,
                                     "totals": [0, 0], "flips": 0, "rebuilds": 0}))
            lines.append("MicroPython noise \x1b[31m <b>%d</b> \u202e" % j)
        lines.append(json.dumps({"ev": "game_end", "record": rec}))
    lines += ["trailing noise"] * (10000 - len(lines))
    assert len(lines) == 10000
    cap = tmp_path / "evening.log"
    cap.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db_path = tmp_path / "r.db"
    r = subprocess.run([str(BIN / "speedref-results"), "import", str(cap), "--db", str(db_path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-500:]
    assert "400 new game records" in r.stdout.splitlines()[-1]
    db = ResultsDB(db_path)
    stored = [rec for _, rec in db.games()]
    assert stored == recs, "every game, each name exactly as it came"
    games = standings.played(db)
    rows, _ = standings.standings(db, games=games)
    rating_rows, boards = ratings.table(games)
    db.close()
    named = set(people.key(n) for rec in recs for n in rec["players"] if not people.unnamed(n))
    persons = [r for r in rows if r["person"]]
    assert sorted(people.key(r["player"]) for r in persons) == sorted(named)
    assert sum(r["games"] for r in rows) == 800, "every seat of every game is counted once"
    assert sorted(people.key(r["player"]) for r in rating_rows) == sorted(named)
    assert boards["speed"].rated == 400
    page = tmp_path / "r.html"
    r = subprocess.run([str(BIN / "speedref-results"), "--db", str(db_path), "--html", str(page)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html and "<img" not in html and "\x1b" not in html and "\x00" not in html
    import results_page_check as check
    doc = check.parse(html)
    titles = set(td.attrs["title"] for td in doc.find_all("td", cls="player"))
    for t in doc.find_all("table", cls="ratings"):
        assert len(list(t.find("tbody").find_all("tr"))) == len(named)
    for k in named:
        shown = jsonin.printable([r["player"] for r in persons if people.key(r["player"]) == k][0])
        assert shown in titles, shown


def test_a_game_without_an_entry_places_its_winners_first_and_the_rest_level():
    summary = {"players": ["Ann", "Bob", "Cat"], "winners": [1], "totals": [3, 9, 1]}
    assert ratings.places({"game": "coin"}, summary) == [2, 1, 2]
    assert ratings.places({"game": "partners"}, summary) == [2, 1, 3]
