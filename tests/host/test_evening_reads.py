"""Tonight read from the games' summaries (host_tools/club/evening.py):
only the evening's own games are read, and what comes out is what the
standings library and the ratings give when every record is replayed
(standings.played, ratings.boards): the same games placed, the same names,
the same standings, the same ratings ordering the table.  --since counts
from local midnight, whatever the laptop's time zone."""
import json
import os
import subprocess
import sys
from pathlib import Path

from host_fixtures import speed_single
from host_tools.club import evening as E
from host_tools.club import changes, ratings, standings
from host_tools.club.db import ResultsDB

BIN = Path(sys.executable).parent


def rec(game_id, players, table, winner=0, **extra):
    r = speed_single(winner, 5, players, game_id)
    r["table"] = table
    r.update(extra)
    return r


def season(db, n=60):
    """Games before any evening: Ann, Bob, Cid and Dee rated by them."""
    db.moment = "2026-11-01T19:00:00+00:00"
    people = ["Ann", "Bob", "Cid", "Dee"]
    for i in range(n):
        a, b = people[i % 4], people[(i + 1 + i // 4) % 4]
        if a == b:
            b = people[(i + 2) % 4]
        db.add_game(rec("old-%d" % i, [a, b], "T1", winner=int(i % 3 == 0)))
    db.moment = None


def replayed(db, ev):
    """The evening's games as the older path read them: every record
    replayed (standings.played), then those of the evening's window, those
    naming the evening, and those a correction names."""
    since, until = E.window(db, ev)
    told = set(c.args["row"] for c in E.corrections(db, ev))
    arrivals = db.arrivals()
    out = []
    for g in standings.played(db):
        at = arrivals[g.row][0]
        tag = E.tag_of(g.record)
        if g.row in told or (tag is not None and tag[0] == ev.id) or (at >= since and (until is None or at < until)):
            out.append(g)
    return out


def test_tonight_from_the_summaries_is_tonight_replayed(tmp_path):
    db = ResultsDB(tmp_path / "r.db")
    season(db)
    ev, _ = E.start(db, "Club", "2026-12-10", ["T1", "T2"], [])
    E.checkin(db, ev, ["Ann", "Bob", "Cid", "Dee", "Eve"])
    r1 = E.pair(db, ev, "speed")
    (t1, s1), (t2, s2) = r1.tables
    db.add_game(rec("a-1", [n for _, n in s1], t1, evening=ev.id, round=1))      # a board told its round
    db.add_game(rec("a-2", [n for _, n in s2], t2, winner=1))                      # found by table and players
    db.add_game(rec("a-3", ["Ann", "Zed"], "T9"))                                  # fits nothing: to place
    db.add_game(rec("a-4", ["Cid", "Eve"], "T9"))                                  # dropped by the organiser
    db.add_game({"game": "speed", "players": ["Ann"], "id": "bad-1"})              # the rules refuse it
    changes.make(db, "rename", ["Zed", "Zack"])                                    # a name fix: seats go by it
    E.drop(db, ev, "a-4")
    with db.snapshot():
        games, arrived = E.evening_games(db, ev)
        want = replayed(db, ev)
        assert [(g.row, g.record, g.summary, g.names, g.perfect, g.club) for g in games] == \
            [(g.row, g.record, g.summary, g.names, g.perfect, g.club) for g in want]
        skipped = []
        t = E.tonight(db, ev, skipped)
        assert [s["row"] for s in skipped] == [db.row_of("bad-1")]              # tonight's, named
        placed = t.placement.placed()
        assert sorted(g.record["id"] for g in placed) == ["a-1", "a-2"]
        assert t.placement.how == {db.row_of("a-1"): "board", db.row_of("a-2"): "fits"}
        assert [(g.record["id"], g.names) for g, _ in t.placement.unplaced] == [("a-3", ["Ann", "Zack"])]
        assert [g.record["id"] for g in t.placement.dropped] == ["a-4"]
        assert (t.standings, t.unlinked) == standings.standings(db, [], games=placed)
        # the ratings kept are the ratings replayed: the table's ties are broken alike
        kept = E._ratings(ratings.stored_boards(db), "speed")
        again = dict((k, r.mu - 3 * r.sigma) for k, r in ratings.boards(standings.played(db))["speed"].rating.items())
        assert kept.keys() == again.keys() and all(abs(kept[k] - again[k]) < 1e-9 for k in kept)
        assert len(kept) >= 4
    db.close()


def test_a_board_told_its_round_that_sends_after_the_next_evening_began_is_still_placed(tmp_path):
    db = ResultsDB(tmp_path / "r.db")
    db.moment = "2026-12-10T18:00:00+00:00"
    ev1, _ = E.start(db, "Club", "2026-12-10", ["T1"], [])
    E.checkin(db, ev1, ["Ann", "Bob"])
    E.pair(db, ev1, "speed")
    ev2, _ = E.start(db, "Club", "2026-12-17", ["T1"], [])
    E.checkin(db, ev2, ["Ann", "Bob"])
    E.pair(db, ev2, "speed")
    db.moment = None            # the week after: a board whose Wi-Fi was away sends now
    seated = [n for _, n in E.rounds(db, ev1)[0].tables[0][1]]
    db.add_game(rec("late-1", seated, "T1", evening=ev1.id, round=1))
    db.add_game(rec("late-2", seated, "T1", evening=str(ev1.id), round=1))        # the number as text: the same
    with db.snapshot():
        one, two = E.tonight(db, ev1), E.tonight(db, ev2)
    assert [g.record["id"] for g in one.placement.results(1)] == ["late-1", "late-2"]
    assert two.placement.placed() == [] and two.placement.unplaced == []
    db.close()


def test_since_counts_from_local_midnight(tmp_path):
    """In Auckland in December (UTC+13) 10 December begins at 11:00 UTC on
    the 9th: a game stored a second before is the 9th's."""
    path = tmp_path / "r.db"
    db = ResultsDB(path)
    db.moment = "2026-12-09T10:59:59+00:00"
    db.add_game(rec("before", ["Ann", "Bob"], "T1"))
    db.moment = "2026-12-09T11:00:00+00:00"
    db.add_game(rec("after", ["Cid", "Dee"], "T1"))
    db.close()

    def since(day, tz):
        r = subprocess.run([str(BIN / "speedref-results"), "--since", day, "--json", "--db", str(path)],
                           capture_output=True, text=True, env=dict(os.environ, TZ=tz))
        assert r.returncode == 0, r.stderr
        return sorted(x["player"] for x in json.loads(r.stdout)["standings"])

    assert since("2026-12-10", "Pacific/Auckland") == ["Cid", "Dee"]
    assert since("2026-12-09", "Pacific/Auckland") == ["Ann", "Bob", "Cid", "Dee"]
    assert since("2026-12-10", "UTC") == []
    assert since("2026-12-09", "America/New_York") == ["Ann", "Bob", "Cid", "Dee"]   # from 05:00 UTC
    assert since("2026-12-10", "America/New_York") == []
