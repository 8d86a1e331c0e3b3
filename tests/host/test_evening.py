"""A club night (speedref-club, host_tools/club/evening.py): a whole evening
played end to end by the simulator's computer players at named tables, and
the ways a stored game finds its round, or does not.

The whole evening: 12 people check in from the club's roster; three rounds
of Speed pairs and one of Speed Run threes; each table's game is played by
`speedref-sim --table GAME --names ... --table-name TABLE --store DIR` (one
store a board, kept all evening, as a board keeps its flash) and the stores
are imported after each round.  Mid-evening one person leaves, a walk-in
arrives, and a table is taken out for a round (a broken board) and put back.
"""
import collections
import json
import subprocess
import sys
from pathlib import Path

import pytest

from host_fixtures import speed_single, speedrun_short
from host_tools.club import evening as E
from host_tools.club import pairing, people, standings
from host_tools.club.db import ResultsDB
from speedref.engine import records

BIN = Path(sys.executable).parent
ROSTER = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lou"]


def club(db, *args, status=0):
    r = subprocess.run([str(BIN / "speedref-club"), *args, "--db", str(db)], capture_output=True, text=True)
    assert r.returncode == status, (args, r.stdout, r.stderr)
    return r.stdout if status == 0 else r.stderr


def results(db, *args):
    r = subprocess.run([str(BIN / "speedref-results"), *args, "--db", str(db)], capture_output=True, text=True)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def current_round(db):
    d = ResultsDB(db, create=False)
    try:
        return E.rounds(d, E.find(d))[-1]
    finally:
        d.close()


def play(round_, stores, seed):
    """Each table's game, played by computer players seated as the round says."""
    for i, (tbl, seated) in enumerate(round_.tables):
        store = stores / tbl.replace(" ", "_")
        r = subprocess.run([str(BIN / "speedref-sim"), "--table", round_.game, "--games", "1",
                            "--seed", str(seed * 100 + i), "--names", ",".join(n for _, n in seated),
                            "--table-name", tbl, "--store", str(store)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    return sorted(stores.iterdir())


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    d = tmp_path_factory.mktemp("night")
    db = d / "club.db"
    (d / "club.txt").write_text("# the club\n" + "\n".join(ROSTER) + "\n", encoding="utf-8")
    stores = d / "stores"
    stores.mkdir()
    club(db, "start", "Thursday club", "--date", "2026-12-10", "--tables", "5", "--roster", str(d / "club.txt"))
    assert club(db, "checkin", "--everyone").count("checked in") == 12
    shown = []
    steps = [("speed", ()), ("speed", ("leave Lou", "walk-in Max")), ("speed", ("out Table 5",)),
             ("speedrun", ("in Table 5",))]
    for number, (game, before) in enumerate(steps, 1):
        for step in before:
            verb, name = step.split(" ", 1)
            if verb == "leave":
                club(db, "leave", name)
            elif verb == "walk-in":
                assert "Max checked in (walk-in)" in club(db, "checkin", "--walk-in", name)
            else:
                club(db, "table", verb, name)
        shown.append(club(db, "pair", "--game", game, "--html", str(d / ("round%d.html" % number))))
        rnd = current_round(db)
        assert rnd.number == number
        paths = play(rnd, stores, number)
        subprocess.run([str(BIN / "speedref-results"), "import", *map(str, paths), "--db", str(db)],
                       capture_output=True, text=True, check=True)
    dbo = ResultsDB(db, create=False)
    with dbo.snapshot():
        ev = E.find(dbo)
        t = E.tonight(dbo, ev)
        games = standings.played(dbo)
    dbo.close()
    return {"db": db, "dir": d, "tonight": t, "games": games, "shown": shown}


def test_every_round_seats_everyone_present_once_in_groups_of_its_game(night):
    t = night["tonight"]
    assert [(r.number, r.game, r.seats, len(r.tables), len(r.byes)) for r in t.rounds] == [
        (1, "speed", 2, 5, 2), (2, "speed", 2, 5, 2), (3, "speed", 2, 4, 4), (4, "speedrun", 3, 4, 0)]
    present = [set(ROSTER), set(ROSTER) - {"Lou"} | {"Max"}, set(ROSTER) - {"Lou"} | {"Max"},
               set(ROSTER) - {"Lou"} | {"Max"}]
    for r, here in zip(t.rounds, present):
        seated = [n for _, grp in r.tables for _, n in grp] + [n for _, n in r.byes]
        assert sorted(seated) == sorted(here), r.number
        assert all(len(grp) == r.seats for _, grp in r.tables)
    assert "Table 5" not in [tbl for tbl, _ in t.rounds[2].tables]        # out for round 3


def test_no_rematch_all_evening(night):
    groups = [[k for k, _ in grp] for r in night["tonight"].rounds for _, grp in r.tables]
    met = pairing.meetings(groups)
    assert max(met.values()) == 1, [sorted(p) for p, n in met.items() if n > 1]


def test_byes_rotate(night):
    byes = collections.Counter(k for r in night["tonight"].rounds for k, _ in r.byes)
    assert len(byes) == 8 and set(byes.values()) == {1}


def test_every_game_is_in_its_round_once(night):
    t = night["tonight"]
    assert t.placement.unplaced == [] and t.placement.dropped == []
    assert len(night["games"]) == 5 + 5 + 4 + 4
    placed = t.placement.placed()
    assert sorted(g.row for g in placed) == sorted(g.row for g in night["games"])
    for (number, tbl), gs in t.placement.slots.items():
        assert len(gs) == 1, (number, tbl)
        g = gs[0]
        rnd = t.rounds[number - 1]
        seated = dict(rnd.tables)[tbl]
        assert g.record["table"] == tbl and g.record["game"] == rnd.game
        assert g.record["players"] == [n for _, n in seated]     # the seats as the round gave them
        assert t.placement.how[g.row] == "fits"


def test_tonights_table_counts_each_win_and_bye(night):
    t = night["tonight"]
    wins, rounds, byes = collections.Counter(), collections.Counter(), collections.Counter()
    for g in night["games"]:
        s = records.summary(g.record)
        for seat, n in enumerate(g.record["players"]):
            rounds[people.key(n)] += 1
            if seat in s["winners"]:
                wins[people.key(n)] += 1
    for r in t.rounds:
        for k, _ in r.byes:
            byes[k] += 1
    got = dict((s.key, (s.points, s.wins, s.byes, s.rounds)) for s in t.table)
    assert len(got) == 13
    for k, (points, w, b, n) in got.items():
        assert (points, w, b, n) == (wins[k] + byes[k], wins[k], byes[k], rounds[k]), k
    assert [s.points for s in t.table] == sorted((s.points for s in t.table), reverse=True)


def test_tonights_standings_are_the_standings_of_tonights_games(night):
    """--evening prints the standings library's rows over the placed games:
    here every game in the database, so they equal the all-time ones."""
    tonight = json.loads(results(night["db"], "--evening", "--json"))
    every = json.loads(results(night["db"], "--json"))
    assert tonight["standings"] == every["standings"]
    assert tonight["evening"] == {"number": 1, "name": "Thursday club", "date": "2026-12-10", "rounds": 4}
    assert [r["player"] for r in tonight["tonight"]] == [s.name for s in night["tonight"].table]
    assert tonight["unplaced"] == []
    assert json.loads(club(night["db"], "standings", "--json")) == tonight
    since = json.loads(results(night["db"], "--since", "2000-01-01", "--json"))
    assert since["standings"] == every["standings"]
    assert json.loads(results(night["db"], "--since", "2999-01-01", "--json"))["standings"] == []


def test_the_round_shows_in_the_terminal_and_as_a_page_to_print(night):
    text = night["shown"][3].splitlines()
    assert text[0] == "Thursday club, 2026-12-10: round 4: Speed Run, 3 seats, as each table is set"
    assert text[1].split() == ["table", "P1", "P2", "P3"]
    rnd = night["tonight"].rounds[3]
    for line, (tbl, seated) in zip(text[2:], rnd.tables):
        assert line.split() == tbl.split() + [n for _, n in seated]
    page = (night["dir"] / "round4.html").read_text(encoding="utf-8")
    assert "@media print" in page and "<script" not in page
    for tbl, seated in rnd.tables:
        assert '<tr data-table="%s"><td class="table">%s</td>%s' % (tbl, tbl, "".join(
            '<td class="seat">%s</td>' % n for _, n in seated)) in page
    assert "Bye:" not in page
    r3 = night["shown"][2]
    assert "  bye: " in r3


def test_the_results_page_shows_the_evening(night, tmp_path):
    out = tmp_path / "page.html"
    results(night["db"], "--html", str(out))
    page = out.read_text(encoding="utf-8")
    assert 'id="evening"' in page and "Evening: Thursday club" in page
    assert page.count('<tr data-table="') == 4           # round 4's tables, who plays where now
    assert page.count('class="unplaced"') == 0


# --- how a game finds its round -----------------------------------------------------------------
def rec(game_id, players, table, winner=0, **extra):
    r = speed_single(winner, 5, players, game_id)
    r["table"] = table
    r.update(extra)
    return r


@pytest.fixture
def two_rounds(tmp_path):
    """Four people, two tables, one round of Speed paired."""
    db = ResultsDB(tmp_path / "r.db")
    ev, new = E.start(db, "Club", "2026-12-10", ["T1", "T2"], ["Ann", "Bob", "Cid", "Dee", "Eve"])
    assert new and E.start(db, "Club", "2026-12-10", ["X"], [])[1] is False     # again: resumed
    E.checkin(db, ev, ["ann", "Bob", "Cid", "Dee"])
    rnd = E.pair(db, ev, "speed")
    yield db, ev, rnd
    db.close()


def seats(rnd, tbl):
    return [n for _, n in dict(rnd.tables)[tbl]]


def state(db, ev):
    return E.tonight(db, ev)


def test_checkin_takes_the_rosters_spelling_and_refuses_a_typo(two_rounds):
    db, ev, rnd = two_rounds
    assert [p.name for p in E.present(db, ev)] == ["Ann", "Bob", "Cid", "Dee"]
    with pytest.raises(E.Refused, match="not on the evening's roster"):
        E.checkin(db, ev, ["Evee"])
    assert E.checkin(db, ev, ["Evee"], walk_in=True) == ["Evee checked in (walk-in)"]
    assert E.checkin(db, ev, ["ann"]) == ["Ann is in already"]
    assert E.checkin(db, ev, ["Zoe\u0308"], walk_in=True) == ["Zo\u00eb checked in (walk-in)"]
    with pytest.raises(E.Refused, match="cannot be shown on the board"):
        E.checkin(db, ev, ["\u4e2d"], walk_in=True)


def test_a_game_at_its_table_with_its_players_finds_its_round(two_rounds):
    db, ev, rnd = two_rounds
    a = seats(rnd, "T1")
    db.add_game(rec("b1-1", a, "T1"))
    t = state(db, ev)
    assert [g.row for g in t.placement.slots[(1, "T1")]] == [1] and t.placement.unplaced == []


def test_a_game_that_fits_no_round_is_listed_with_why_then_placed_and_undone(two_rounds):
    db, ev, rnd = two_rounds
    a = seats(rnd, "T1")
    db.add_game(rec("b1-1", [a[0], "Eve"], "T1"))           # a player the round did not seat there
    t = state(db, ev)
    assert t.placement.placed() == []
    [(g, why)] = t.placement.unplaced
    assert why.startswith("fits no round: T1 in round 1 seated %s, %s" % tuple(a))
    with pytest.raises(E.Refused, match="no table"):
        E.place(db, ev, "b1-1", 1, "T9")
    assert E.place(db, ev, "b1-1", 1, "t1") == "correction 1: game #1 is the result of T1 in round 1"
    t = state(db, ev)
    assert [g.row for g in t.placement.slots[(1, "T1")]] == [1] and t.placement.how[1] == "organiser"
    assert E.drop(db, ev, "b1-1").startswith("correction 2")
    assert [g.row for g in state(db, ev).placement.dropped] == [1]
    assert E.undo(db, ev).startswith("correction 2 undone")
    assert [g.row for g in state(db, ev).placement.slots[(1, "T1")]] == [1]
    E.undo(db, ev, 1)
    assert len(state(db, ev).placement.unplaced) == 1
    with pytest.raises(E.Refused, match="undone already"):
        E.undo(db, ev, 1)
    assert [c.undone_at is not None for c in E.corrections(db, ev, in_force=False)] == [True, True]


def test_a_game_at_another_table_or_of_another_game_is_not_guessed(two_rounds):
    db, ev, rnd = two_rounds
    a = seats(rnd, "T1")
    db.add_game(rec("b2-1", a, "T2"))                       # the right players at the wrong table
    r = speedrun_short("b3-1")
    r["players"] = a + ["Cid" if "Cid" not in a else "Dee"]
    db.add_game(r)
    t = state(db, ev)
    assert t.placement.placed() == []
    assert [why.split(":")[0] for _, why in t.placement.unplaced] == ["fits no round", "fits no round"]
    assert t.placement.unplaced[0][1] == "fits no round: T1 in round 1 seated %s, %s; this game has played at T2" % tuple(a)


def test_two_games_that_fit_one_table_are_both_left_to_the_organiser(two_rounds):
    db, ev, rnd = two_rounds
    a = seats(rnd, "T1")
    db.add_game(rec("b1-1", a, "T1", winner=0))
    db.add_game(rec("b1-2", a, "T1", winner=1))
    t = state(db, ev)
    assert t.placement.placed() == []
    assert all("has 2 games that fit it" in why for _, why in t.placement.unplaced)
    E.drop(db, ev, "b1-1")
    t = state(db, ev)
    assert [g.row for g in t.placement.slots[(1, "T1")]] == [2]


def test_a_record_that_names_its_evening_and_round_is_placed_by_it(two_rounds):
    db, ev, rnd = two_rounds
    a = seats(rnd, "T1")
    db.add_game(rec("w-1", a, "a tablet", evening=ev.id, round=1))     # no such table tonight: the tag wins
    db.add_game(rec("w-2", seats(rnd, "T2"), "T2", evening=ev.id + 1, round=1))   # another evening's
    db.add_game(rec("w-3", a, "T1", evening=ev.id, round=7))
    t = state(db, ev)
    assert [g.row for g in t.placement.slots[(1, "T1")]] == [1] and t.placement.how[1] == "board"
    assert t.placement.slots[(1, "T2")] == []
    assert [(g.row, why) for g, why in t.placement.unplaced] == [(3, "its board says round 7, which tonight has not")]


def test_a_game_stored_before_the_evening_is_none_of_it(tmp_path):
    db = ResultsDB(tmp_path / "r.db")
    db.moment = "2000-01-01T00:00:00+00:00"
    db.add_game(rec("old-1", ["Ann", "Bob"], "T1"))
    db.moment = None
    ev, _ = E.start(db, "Club", "2026-12-10", ["T1"], [])
    E.checkin(db, ev, ["Ann", "Bob"])
    E.pair(db, ev, "speed")
    t = state(db, ev)
    assert t.placement.placed() == [] and t.placement.unplaced == []
    db.close()


def test_a_board_record_read_after_the_next_evening_began_still_finds_its_round(tmp_path):
    """A board's record names its evening and round; its flash is read a
    week later, after the next evening started: it is the first evening's
    result.  An evening reads only the games that can be its own: stored
    while it ran, stored later naming an evening, or named by a correction."""
    db = ResultsDB(tmp_path / "r.db")
    ev, _ = E.start(db, "Club", "2026-12-10", ["T1", "T2"], [])
    E.checkin(db, ev, ["Ann", "Bob", "Cid", "Dee"])
    rnd = E.pair(db, ev, "speed")
    with db.writing():
        db.con.execute("UPDATE evenings SET started_at = '2026-12-10T19:00:00+00:00' WHERE id = ?", (ev.id,))
    db.moment = "2000-01-01T00:00:00+00:00"
    db.add_game(rec("before-1", seats(rnd, "T1"), "T1"))             # row 1: before it
    db.moment = "2026-12-10T20:00:00+00:00"
    db.add_game(rec("early-1", ["Zed", "Yan"], "T9"))                  # row 2: that evening's, fits nothing
    ev2, _ = E.start(db, "Club", "2026-12-17", ["T1"], [])
    with db.writing():
        db.con.execute("UPDATE evenings SET started_at = '2026-12-17T19:00:00+00:00' WHERE id = ?", (ev2.id,))
    db.moment = "2026-12-17T20:00:00+00:00"
    db.add_game(rec("late-1", seats(rnd, "T2"), "T2", evening=ev.id, round=1))   # row 3: read a week later
    db.add_game(rec("next-1", ["Ann", "Bob"], "T1"))                   # row 4: the next evening's own
    ev = E.by_id(db, ev.id)
    t = state(db, ev)
    assert [g.record["id"] for g in t.placement.slots[(1, "T2")]] == ["late-1"]
    assert [g.record["id"] for g, _ in t.placement.unplaced] == ["early-1"]
    assert E.candidates(db, ev) == {2, 3}
    assert E.candidates(db, E.by_id(db, ev2.id)) == {3, 4}
    E.place(db, ev, "before-1", 1, "T1")                               # the organiser says so: it is
    assert E.candidates(db, ev) == {1, 2, 3}
    assert [g.record["id"] for g in state(db, ev).placement.slots[(1, "T1")]] == ["before-1"]
    db.close()


def test_tonight_replays_only_the_games_that_can_be_the_evenings(tmp_path, monkeypatch):
    """A season of games before the evening: reading tonight replays
    tonight's games, not the season's (each game's summary is in SQL)."""
    from speedref.engine import records
    db = ResultsDB(tmp_path / "r.db")
    db.moment = "2026-01-01T19:00:00+00:00"
    for i in range(30):
        db.add_game(rec("old-%d" % i, ["Ann", "Bob"], "T1", winner=i % 2))
    db.moment = None
    ev, _ = E.start(db, "Club", "2026-12-10", ["T1"], [])
    E.checkin(db, ev, ["Ann", "Bob"])
    rnd = E.pair(db, ev, "speed")
    db.add_game(rec("t-1", seats(rnd, "T1"), "T1"))
    replayed = []
    real = records.summary
    monkeypatch.setattr(records, "summary", lambda r: replayed.append(r.get("id")) or real(r))
    t = state(db, ev)
    assert [g.record["id"] for g in t.placement.placed()] == ["t-1"] and set(replayed) == {"t-1"}
    assert sorted((r["player"], r["games"]) for r in t.standings) == [(n, 1) for n in sorted(seats(rnd, "T1"))]
    db.close()


def test_tonights_standings_by_hand(two_rounds):
    """Two rounds of four: each table's first seat wins its single deal by 5
    (SP: the deal's cards left are the winner's points); then, by hand: two
    wins for whoever sat first twice, and so on."""
    db, ev, rnd1 = two_rounds
    E.checkin(db, ev, ["Eve"])                                    # five now: one bye in round 2
    for i, (tbl, seated) in enumerate(rnd1.tables):
        db.add_game(rec("r1-%d" % i, [n for _, n in seated], tbl))
    with pytest.raises(E.Refused, match="round 1 has results already"):
        E.pair(db, ev, "speed", again=True)
    rnd2 = E.pair(db, ev, "speed")
    assert len(rnd2.byes) == 1 and len(rnd2.tables) == 2
    with pytest.raises(E.Refused, match="round 2 waits for 2 results"):
        E.pair(db, ev, "speed")
    for i, (tbl, seated) in enumerate(rnd2.tables):
        db.add_game(rec("r2-%d" % i, [n for _, n in seated], tbl))
    t = state(db, ev)
    expect = collections.Counter()
    for r in (rnd1, rnd2):
        for _, seated in r.tables:
            expect[seated[0][1]] += 1            # the first seat won
    bye = rnd2.byes[0][1]
    got = dict((s.name, (s.points, s.wins, s.byes, s.rounds)) for s in t.table)
    for n in ["Ann", "Bob", "Cid", "Dee", "Eve"]:
        played = sum(n in [x for _, x in seated] for r in (rnd1, rnd2) for _, seated in r.tables)
        assert got[n] == (expect[n] + (n == bye), expect[n], int(n == bye), played), n
    assert sum(p for p, _, _, _ in got.values()) == 5          # four tables' wins and a bye
    rows = dict((r["player"], r) for r in t.standings)
    for n in ["Ann", "Bob", "Cid", "Dee", "Eve"]:
        games = got[n][3]
        if games:
            assert rows[n]["games"] == games and rows[n]["wins"] == expect[n]
            assert rows[n]["average_score"] == round(5 * expect[n] / games, 2)


def test_a_table_out_and_someone_leaving_change_the_next_round(two_rounds):
    db, ev, rnd = two_rounds
    for i, (tbl, seated) in enumerate(rnd.tables):
        db.add_game(rec("r1-%d" % i, [n for _, n in seated], tbl))
    E.table(db, ev, "out", "T2")
    E.leave(db, ev, ["dee"])
    nxt = E.pair(db, ev, "speed")
    assert [tbl for tbl, _ in nxt.tables] == ["T1"] and len(nxt.byes) == 1
    assert "Dee" not in [n for _, grp in nxt.tables for _, n in grp] + [n for _, n in nxt.byes]
    again = E.pair(db, ev, "speed", again=True)             # the round made anew: the old one kept, replaced
    assert again.number == 2 and again.id != nxt.id
    assert db.query("SELECT COUNT(*) FROM rounds WHERE replaced_at IS NOT NULL")[0][0] == 1
    E.table(db, ev, "out", "T1")
    with pytest.raises(E.Refused, match="every table is out"):
        E.pair(db, ev, "speed", anyway=True)


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    db = tmp_path / "r.db"
    assert "no results database" in club(db, "status", status=2)
    club(db, "start", "Club", "--tables", "2")
    assert club(db, "start", "Club", "--date", "10/12/2026", status=2).strip() == \
        "speedref-club: start: '10/12/2026' is not a date (YYYY-MM-DD)"
    assert "is not on" not in club(db, "checkin", "Ann")          # no roster: anyone checks in
    assert club(db, "pair", "--game", "speed", status=2).strip().endswith("Speed needs 2 a table")
    assert "Speed Run seats 3 players, not 2" in club(db, "pair", "--game", "speedrun", "--seats", "2", status=2)
    assert "Speed's options are doubles, hand_limit" in club(db, "pair", "--game", "speed", "--option", "colour=red", status=2)
    assert "no evening 'x'" in club(db, "status", "--evening", "x", status=2)
    assert "Traceback" not in club(db, "place", "nosuch", "1", "T1", status=2)
