"""speedref-results --html with --since DATE or --evening: the one-file page
of a span of the games (an evening to hand round, this month's games)
instead of every game.  Its standings are speedref-results' own for that
span (--since / --evening --json), its score sheets those games' and no
other, its Evening view the evening's; its ratings every game's, as they
stand, and it says so."""
import datetime
import json
import subprocess
import sys
from pathlib import Path

import pytest

import results_page_check as check
from host_fixtures import speed_single
from host_tools.club import evening as E
from host_tools.club.db import ResultsDB

BIN = Path(sys.executable).parent


def run(db, *args, status=0):
    r = subprocess.run([str(BIN / "speedref-results"), "--db", str(db), *args], capture_output=True, text=True)
    assert r.returncode == status, (args, r.stdout, r.stderr)
    return r.stdout if status == 0 else r.stderr


@pytest.fixture(scope="module")
def season(tmp_path_factory):
    """Games stored last month and this week, and tonight's evening with two
    results placed in its round and one game that fits none."""
    path = tmp_path_factory.mktemp("span") / "club.db"
    db = ResultsDB(path)
    db.moment = "2026-11-05T19:00:00+00:00"
    for i in range(4):
        db.add_game(speed_single(winner=i % 2, players=("Old", "Timer"), ident="old-%d" % i), "import")
    db.moment = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=3)).isoformat()
    for i in range(3):
        db.add_game(speed_single(winner=0, players=("Ann", "Bob"), ident="week-%d" % i), "import")
    db.moment = None
    ev, _ = E.start(db, "Club", datetime.date.today().isoformat(), ["T1", "T2"], [])
    E.checkin(db, ev, ["Ann", "Bob", "Cid", "Dee"])
    rnd = E.pair(db, ev, "speed")
    for i, (tbl, seated) in enumerate(rnd.tables):
        rec = speed_single(winner=1, players=[n for _, n in seated], ident="tonight-%d" % i)
        rec["table"] = tbl
        db.add_game(rec, "mqtt")
    db.add_game(speed_single(players=("Zed", "Yan"), ident="stray"), "mqtt")
    db.close()
    return path


def page_of(db, tmp_path, *args):
    out = tmp_path / "page.html"
    said = run(db, "--html", str(out), *args)
    return said, out.read_text(encoding="utf-8")


def test_a_page_of_the_games_stored_since_a_date(season, tmp_path):
    since = (datetime.date.today() - datetime.timedelta(days=10)).isoformat()
    said, text = page_of(season, tmp_path, "--since", since)
    page = check.from_html(text)
    want = json.loads(run(season, "--since", since, "--json"))["standings"]
    assert said.startswith("wrote ") and ": 6 games, " in said
    assert page["summary"].endswith("stored since %s" % since) and page["summary"].startswith("6 games")
    for game, rows in page["standings"].items():
        assert [(r["player"], int(r["games"]), int(r["wins"])) for r in rows] == [
            (r["player"], r["games"], r["wins"]) for r in want if r["game"] == game]
    assert "Old" not in [r["player"] for rows in page["standings"].values() for r in rows]
    assert len(page["sheets"]) == 6 and "Old" not in text.split('id="ratings"')[0]
    # the ratings are every game's, as they stand, and say so
    assert [r["player"] for r in page["ratings"]["speed"]] == [
        r["player"] for r in check.cli_ratings(season)["speed"]]
    assert "every game up to now" in text


def test_a_page_of_one_evening(season, tmp_path):
    said, text = page_of(season, tmp_path, "--evening")
    page = check.from_html(text)
    tonight = json.loads(run(season, "--evening", "--json"))
    assert ": 2 games, " in said
    assert 'id="evening"' in text and page["summary"].endswith("Club, %s" % datetime.date.today().isoformat())
    assert [(r["player"], int(r["games"]), int(r["wins"])) for r in page["standings"]["speed"]] == [
        (r["player"], r["games"], r["wins"]) for r in tonight["standings"]]
    assert len(page["sheets"]) == 2       # its placed results: not the stray game, not the week's
    assert sorted(int(x) for x in page["sheets"]) == sorted(
        int(r) for r in [x.split('data-row="')[1].split('"')[0] for x in text.split("<li ")[1:]
                         if 'class="unplaced"' not in x.split(">")[0]])


def test_every_game_without_a_span_and_the_span_options_checked(season, tmp_path):
    said, text = page_of(season, tmp_path)
    assert ": 10 games, " in said and "stored since" not in text
    assert "--evening or --since, not both" in run(season, "--html", str(tmp_path / "x.html"), "--evening",
                                                    "--since", "2026-01-01", status=2)
    assert "--since goes with the standings" in run(season, "--serve", "--since", "2026-01-01", status=2)
    assert "no evening 'nope'" in run(season, "--html", str(tmp_path / "x.html"), "--evening", "nope", status=2)
    assert not (tmp_path / "x.html").exists()
