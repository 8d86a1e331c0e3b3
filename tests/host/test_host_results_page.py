"""speedref-results --html / --serve: the results page (host_tools/views/results_page.py).

A club's evening (tests/results_sample.py: the committed sim scripts played at
three boards, logged through speedref-log's line core) is turned into the page;
its source is read back and every number held against the real commands'
output (speedref-results text and JSON, speedref-score).  Names and ids come
from devices, so a page of hostile names is checked for markup and script.
The page in a real browser: tests/web/test_web_results_page.py.
"""
import io
import json
import re
import urllib.error
import urllib.request
from contextlib import redirect_stderr, redirect_stdout

import pytest

import results_page_check as check
import results_sample as sample
from host_tools.cli import results
from host_tools.views import results_page, site
from host_tools.club.db import ResultsDB


@pytest.fixture(scope="module")
def evening(tmp_path_factory):
    """(database, {device: a database of that board's games alone})"""
    d = tmp_path_factory.mktemp("evening")
    db = d / "club.db"
    logs = sample.make_evening(db)
    alone = {}
    for dev, lines in logs.items():
        alone[dev] = d / ("%s.db" % dev)
        sample.feed(alone[dev], lines)
    return db, alone


@pytest.fixture(scope="module")
def page(evening, tmp_path_factory):
    out = tmp_path_factory.mktemp("page") / "results.html"
    assert cli(["--db", str(evening[0]), "--html", str(out)])[0] == 0
    return out.read_text(encoding="utf-8")


def cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = results.main(argv)
    return code, out.getvalue(), err.getvalue()


def test_sample_evening_is_a_club_night(evening):
    """Every game at least once, Speed at all three boards, five people."""
    db = ResultsDB(evening[0])
    try:
        stored = db.games()
    finally:
        db.close()
    assert sorted(set(r["game"] for _, r in stored)) == ["partners", "speed", "speedrun", "spit"]
    speed_tables = set(results_page.device_of(r) for _, r in stored if r["game"] == "speed")
    assert len(speed_tables) == 3 and len(stored) == 14
    assert set(p for _, r in stored for p in r["players"]) == {"Ann", "Bob", "Cat", "Dan", "Eve"}


def test_page_numbers_equal_the_cli(page, evening):
    """Standings per game, player and table, and every score sheet: what
    speedref-results and speedref-score print."""
    shown = check.from_html(page)
    n = check.check_against_cli(shown, evening[0], evening[1])
    assert len(shown["sheets"]) == 14 and n > 300
    assert sorted(k.split()[0] for k in shown["tables"]) == (
        ["partners"] * 2 + ["speed"] * 3 + ["speedrun"] * 2 + ["spit"] * 3)
    assert shown["summary"].startswith("14 games from 3 tables")


def test_columns_left_out_have_nothing_to_show(page, evening):
    """A game's table leaves out Perfect Bonuses (Speed Run's alone, SR-26) and
    the slap columns when nobody won a slap; the CLI shows '-' and 0 there."""
    shown = check.from_html(page)
    text, _ = check.cli_standings(evening[0])
    for game, rows in text.items():
        for col in check.STANDINGS_HEADS:
            if col not in shown["standings"][game][0]:
                assert set(r[col] for r in rows) <= {"-", "0"}, (game, col)
    assert "perfect" in shown["standings"]["speedrun"][0], "SR-16: Perfect Bonuses"
    assert "slap wins" in shown["standings"]["spit"][0], "SPIT-10: the slap for the smaller pile"


def svg_values(fig):
    """[[values of series 0], [series 1] ...] as pygal wrote them in a chart."""
    out = []
    for g in fig.find_all("g", cls="series"):      # some are empty (the text overlays)
        vals = [d.text() for d in g.find_all("desc", cls="value")]
        if vals:
            out.append(vals)
    return out


def legend(fig):
    """The series' names in a chart's legend (a long one is cut short on the
    chart, whole in its tooltip, the title element)."""
    out = []
    for g in fig.find_all("g", cls="legend"):
        title = g.find("title")
        out.append((title or g.find("text")).text())
    return out


def test_charts_hold_the_sheets_running_totals_and_the_wins(page, evening):
    doc = check.parse(page)
    shown = check.from_html(page)
    for d in doc.find_all("details", cls="sheet"):
        sheet = shown["sheets"][d.attrs["data-row"]]
        fig = d.find("figure", data_chart="running")
        want = [[str(cells[col][1]) for _, cells in sheet["rows"]] for col in range(len(sheet["names"]))]
        assert svg_values(fig) == want, d.attrs["data-row"]
        assert legend(fig) == sheet["names"]
    for art in doc.find_all("article", cls="game"):
        fig = art.find("figure", data_chart="wins")
        game = art.attrs["data-game"]
        wins = [r["wins"] for r in shown["standings"][game]]
        assert svg_values(fig) == [list(reversed(wins))], game   # pygal's first bar is the bottom one
    fig = doc.find("figure", data_chart="players")
    assert svg_values(fig) == [list(reversed([r["wins"] for r in shown["players"]]))]


def test_page_is_one_file_without_script_or_network(page):
    doc = check.parse(page)
    assert not list(doc.find_all("script")), "no script at all"
    meta = doc.find("meta", http_equiv="Content-Security-Policy")
    assert "default-src 'none'" in meta.attrs["content"] and "script-src" not in meta.attrs["content"]
    for n in doc.iter():
        for k, v in n.attrs.items():
            assert not k.startswith("on"), (n.tag, k)
            if k in ("src", "href", "xlink:href", "action", "formaction", "poster", "data"):
                assert v.startswith("#"), (n.tag, k, v)     # only links within the page
    assert "url(" not in page and "@import" not in page


def test_device_strings_are_text_never_markup(tmp_path):
    """Names and record ids come from devices: whatever they hold is shown as
    text (control characters escaped as the CLI escapes them)."""
    db = tmp_path / "h.db"
    sample.make_hostile(db)
    code, out, err = cli(["--db", str(db), "--html", str(tmp_path / "h.html")])
    assert code == 0, err
    text = (tmp_path / "h.html").read_text(encoding="utf-8")
    doc = check.parse(text)
    allowed_html = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "nav",
                    "a", "main", "section", "article", "span", "table", "caption", "thead", "tbody", "tr",
                    "th", "td", "figure", "div", "details", "summary"}
    outside_svg = [n.tag for n in doc.iter() if n.tag not in allowed_html and n.tag != "svg"
                   and not _in_svg(n)]
    assert outside_svg == []
    assert not list(doc.find_all("script")) and not list(doc.find_all("img")) and not list(doc.find_all("b"))
    names = set(r["player"] for rows in check.from_html(text)["standings"].values() for r in rows)
    assert names == {'<script>alert("name")</script>', '"><img src=x onerror=alert(1)>',
                     "Zo\u00eb\\u202eevil", "</svg><b>bold</b>"}   # a person's name: the newline around it stripped
    devices = [d.attrs["data-device"] for d in doc.find_all("details", cls="sheet")]
    assert devices == [sample.HOSTILE_DEVICE] * 2
    check.check_against_cli(check.from_html(text), db, {sample.HOSTILE_DEVICE: db})


def _in_svg(n):
    while n is not None:
        if n.tag == "svg":
            return True
        n = n.parent
    return False


def test_rows_the_standings_skip_are_skipped_on_the_page_with_the_same_report(evening, tmp_path):
    """A stored row that cannot be counted (not JSON, refused by the rules, a
    game nobody knows, a slap whose winner is no seat) is left out of the page
    as speedref-results leaves it out, named in the same words; --html exits 2."""
    import shutil
    import sqlite3
    db = tmp_path / "bad.db"
    shutil.copy(evening[0], db)
    con = sqlite3.connect(db)
    good = con.execute("SELECT id, record FROM games WHERE game = 'speed' ORDER BY id").fetchone()
    tampered = json.loads(good[1])
    tampered["deals"][0]["left"] = 99                                      # SP-18
    tampered["id"] = "e6614103e7a52b21-99"
    for text, game in (("{not json", "speed"), (json.dumps(tampered), "speed"),
                       (json.dumps({"game": "chess", "players": ["Ann", "Bob"]}), "chess")):
        con.execute("INSERT INTO games (dedup_key, game, record, source, received_at) VALUES (?,?,?,?,?)",
                    ("raw:" + text, game, text, "live", "then"))
    con.execute("INSERT INTO slaps (game, kind, winner, margin_us, line, received_at, game_ref)"
                " VALUES ('speed', 'out', 7, 500, '{}', 'then', ?)", (good[0],))
    con.commit()
    con.close()
    code, out, err = cli(["--db", str(db), "--html", str(tmp_path / "bad.html")])
    assert code == 2 and out.startswith("wrote ")
    page = check.from_html((tmp_path / "bad.html").read_text(encoding="utf-8"))
    skips = [x for x in page["notes"] if x.startswith("skipped: ")]
    assert err.splitlines() == skips and len(skips) == 4
    assert any("SP-18" in x for x in skips) and any("not JSON" in x for x in skips)
    assert len(page["sheets"]) == 14, "the left-out games have no sheet"
    check.check_against_cli(page, db, evening[1])


def test_empty_database_says_so(tmp_path):
    ResultsDB(tmp_path / "e.db").close()
    code, out, _ = cli(["--db", str(tmp_path / "e.db"), "--html", str(tmp_path / "e.html")])
    assert code == 0 and "0 games" in out
    doc = check.parse((tmp_path / "e.html").read_text(encoding="utf-8"))
    assert "No games in the database yet." in doc.find("main").text()
    assert not list(doc.find_all("table"))


@pytest.mark.parametrize("mode", [["--html", "p.html"], ["--serve", "--port", "0"]])
def test_a_database_that_does_not_exist_is_said_and_nothing_is_created(tmp_path, mode, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(["--db", "typo.db"] + mode)
    assert code == 2 and "typo.db" in err and "no results database" in err
    assert list(tmp_path.iterdir()) == []


def test_html_cannot_write_exits_2_one_line(evening, tmp_path):
    code, out, err = cli(["--db", str(evening[0]), "--html", str(tmp_path / "no" / "such" / "dir.html")])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "cannot write" in err and "dir.html" in err


def test_html_of_a_file_that_is_not_a_database_exits_2(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("not sqlite, just notes\n" * 100)
    code, out, err = cli(["--db", str(bad), "--html", str(tmp_path / "x.html")])
    assert code == 2 and "cannot read the database" in err and not (tmp_path / "x.html").exists()


def test_older_sheets_keep_their_table_without_a_chart(evening, tmp_path, monkeypatch):
    monkeypatch.setattr(results_page, "CHARTED_SHEETS", 2)
    assert cli(["--db", str(evening[0]), "--html", str(tmp_path / "p.html")])[0] == 0
    doc = check.parse((tmp_path / "p.html").read_text(encoding="utf-8"))
    sheets = list(doc.find_all("details", cls="sheet"))
    assert [d.find("figure", data_chart="running") is not None for d in sheets] == [True] * 2 + [False] * 12
    assert all(d.find("table", cls="sheet") is not None for d in sheets)
    check.check_against_cli(check.from_html((tmp_path / "p.html").read_text(encoding="utf-8")),
                            evening[0], evening[1])


def test_newest_sheets_open_older_folded(page):
    doc = check.parse(page)
    opened = ["open" in d.attrs for d in doc.find_all("details", cls="sheet")]
    rows = [int(d.attrs["data-row"]) for d in doc.find_all("details", cls="sheet")]
    assert rows == sorted(rows, reverse=True)
    assert opened == [True] * results_page.OPEN_SHEETS + [False] * (len(rows) - results_page.OPEN_SHEETS)


def fetch(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, dict(r.headers), r.read().decode("utf-8")


def served_and_written(served, written):
    """The served pages' numbers and the written page's, but their header
    lines (the file counts its tables too), and the first screen's rows of
    each game: the first rows of that game's whole standings."""
    got, want = dict(served), dict(written)
    first = got.pop("first")
    for game, rows in first.items():
        assert rows == got["standings"][game][:len(rows)], game
    assert got.pop("summary").split(" \u00b7 ")[0] == want.pop("summary").split(" from ")[0]
    return got, want


def test_serve_on_loopback_serves_the_written_pages_numbers_a_page_at_a_time(evening, tmp_path):
    """--serve answers 127.0.0.1 only: the first screen (a reload every 30 s
    without scripts, live updates with them: tests/host/test_host_results_live.py)
    and the pages it links to hold every number the page --html writes, and
    a game stored meanwhile is on the next request."""
    import shutil
    import threading
    db = tmp_path / "live.db"
    shutil.copy(evening[0], db)
    srv = site.make_server(lambda: ResultsDB(db), str(db), port=0)
    assert srv.server_address[0] == "127.0.0.1"
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        url = "http://127.0.0.1:%d/" % srv.server_address[1]
        status, headers, body = fetch(url)
        assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
        assert headers["Content-Security-Policy"] == results_page.LIVE_CSP
        assert '<noscript><meta http-equiv="refresh" content="30"></noscript>' in body
        assert fetch(url)[2] == body, "nothing new stored: the same page"
        get = lambda path: fetch(url + path.lstrip("/"))[2]
        written = tmp_path / "page.html"
        assert cli(["--db", str(db), "--html", str(written)])[0] == 0
        served = check.from_site(get)
        got, want = served_and_written(served, check.from_html(written.read_text(encoding="utf-8")))
        assert got == want
        assert len(got["sheets"]) == 14 and got["tables"] and got["ratings"] and got["players"]
        # every page but the first is plain HTML, no script
        for path in ("standings/speed", "ratings/speed", "players", "games", "game/1", "tables/speed", "evenings"):
            status, headers, text = fetch(url + path)
            assert status == 200 and "<script" not in text and headers["Content-Security-Policy"] == results_page.CSP
        # a board finishes another game
        sample.feed(db, sample.board_lines("e6614c311b8d2a2f", [("partners", ["Eve", "Ann", "Bob", "Cat"])],
                                           first_seq=5))
        shown = check.from_site(get)
        assert len(shown["sheets"]) == 15 and shown["summary"].startswith("15 games")
        assert [r["player"] for r in shown["standings"]["partners"]][0] == "Eve"
        for path in ("db", "games?page=9", "games?page=x", "game/99", "standings/chess", "player/nobody"):
            with pytest.raises(urllib.error.HTTPError) as e:
                fetch(url + path)
            assert e.value.code == 404, path
    finally:
        srv.shutdown()
        srv.server_close()


def test_serve_from_the_command_line_until_ctrl_c(evening):
    """speedref-results --serve --port 0: says where, serves, and Ctrl-C ends it with exit 0."""
    import signal
    import subprocess
    import sys
    from pathlib import Path
    p = subprocess.Popen([str(Path(sys.executable).parent / "speedref-results"), "--db", str(evening[0]),
                          "--serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        m = re.match(r"serving the results page on (http://127\.0\.0\.1:(\d+)/) \(this machine only\)", line)
        assert m, line
        status, _, body = fetch(m.group(1))
        assert status == 200 and check.from_html(body)["summary"].startswith("14 games")
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=30) == 0
        assert "Traceback" not in p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_serve_port_taken_exits_2(evening):
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    try:
        code, out, err = cli(["--db", str(evening[0]), "--serve", "--port", str(s.getsockname()[1])])
    finally:
        s.close()
    assert code == 2 and "cannot serve on 127.0.0.1:" in err


def test_ticks_are_whole_numbers():
    for top in range(0, 2000, 7):
        ticks = results_page.count_ticks(top)
        assert ticks[0] == 0 and ticks[-1] >= top and len(ticks) <= 8, top
        assert len(set(b - a for a, b in zip(ticks, ticks[1:]))) == 1


def test_device_of_record_ids():
    assert results_page.device_of({"id": "e6614103e7a52b21-17"}) == "e6614103e7a52b21"
    assert results_page.device_of({"id": "sim-3"}) == "sim"
    assert results_page.device_of({"id": "e6614103e7a52b21-4f2a-3"}) == "e6614103e7a52b21"
    assert results_page.device_of({"id": 7}) == "7"
    assert results_page.device_of({}) == results_page.NO_DEVICE


def test_json_and_text_unchanged_by_the_page_flags(evening):
    code, out, _ = cli(["--db", str(evening[0]), "--json"])
    assert code == 0 and json.loads(out)["standings"]
    assert re.search(r"^speed$", cli(["--db", str(evening[0])])[1], re.M)


@pytest.fixture(scope="module")
def long_page(tmp_path_factory):
    """The evening and two games where one name is 53 characters long."""
    d = tmp_path_factory.mktemp("long")
    sample.make_long_name(d / "long.db")
    out = d / "results.html"
    assert cli(["--db", str(d / "long.db"), "--html", str(out)])[0] == 0
    return out.read_text(encoding="utf-8")


def chart_colours(fig):
    """{name: {colours}} of one chart: a bar's own fill, else its series'
    colour (pygal's .color-N rule); a line series' colour by its legend."""
    css = "".join(s.text() for s in fig.find_all("style"))
    series = dict((int(n), c.upper()) for n, c in re.findall(r"\.color-(\d+)[^{]*\{[^}]*?fill:(#[0-9A-Fa-f]{6})", css))
    out = {}
    bars = list(fig.find_all("g", cls="bar"))
    for g in fig.find_all("g", cls="series"):
        n = int(re.search(r"color-(\d+)", g.attrs["class"]).group(1))
        for bar in g.find_all("g", cls="bar"):
            own = re.search(r"fill:\s*(#[0-9A-Fa-f]{6})", bar.attrs.get("style", ""))
            out.setdefault(bar.find("desc", cls="x_label").text(), set()).add(own.group(1).upper() if own else series[n])
    if not bars:
        for n, name in enumerate(legend(fig)):
            out.setdefault(name, set()).add(series[n])
    return out


def test_each_player_keeps_one_colour_on_every_chart(long_page):
    doc = check.parse(long_page)
    seen = {}
    figs = list(doc.find_all("figure", cls="chart"))
    assert set(f.attrs["data-chart"] for f in figs) == {"wins", "players", "running", "rating"}
    for fig in figs:
        for name, colours in chart_colours(fig).items():
            seen.setdefault(name, set()).update(colours)
    assert set(seen) >= {"Ann", "Bob", "Cat", "Dan", "Eve", sample.LONG_NAME}
    assert all(len(c) == 1 for c in seen.values()), seen
    assert len(set(c.pop() for c in seen.values())) == len(seen), "no two players share a colour"


def test_a_long_name_is_cut_alike_in_the_tables_and_the_charts(long_page):
    doc = check.parse(long_page)
    n = results_page.NAME_CHARS
    cut = sample.LONG_NAME[:n - 1] + "\u2026"
    cells = [td for td in doc.find_all("td", cls="player") if td.attrs.get("title") == sample.LONG_NAME]
    assert len(cells) >= 3 and all(td.text() == cut for td in cells)    # standings, per table, players
    for td in doc.find_all("td", cls="player"):
        assert len(td.text()) <= n and td.text() == results_page.short_name(td.attrs["title"])
    charts = [f for f in doc.find_all("figure", cls="chart") if sample.LONG_NAME in legend(f) or
              any(d.text() == sample.LONG_NAME for d in f.find_all("desc", cls="x_label"))]
    assert set(f.attrs["data-chart"] for f in charts) == {"wins", "players", "running", "rating"}
    for fig in charts:
        shown = [t.text() for t in fig.find_all("text")]
        assert cut in shown and sample.LONG_NAME not in shown, fig.attrs["data-chart"]
        assert sample.LONG_NAME in [t.text() for t in fig.find_all("title")]     # whole in its tooltip


def test_what_avg_score_counts_is_said_for_each_game(page):
    doc = check.parse(page)
    notes = dict((a.attrs["data-game"], a.find("p", cls="score-note").text()) for a in doc.find_all("article", cls="game"))
    assert "cards" in notes["spit"] and "fewer is better" in notes["spit"], notes["spit"]
    assert "lower is better" in notes["speedrun"] and "higher is better" in notes["speed"]
    assert "higher is better" in notes["partners"]


def page_of(db, tmp_path, name="p.html"):
    code, _, err = cli(["--db", str(db), "--html", str(tmp_path / name)])
    assert code == 0, err
    return (tmp_path / name).read_text(encoding="utf-8")


def assert_colours_one_a_person_distinct_in_each_chart(text, entered=None):
    """Every chart draws each of its players in a colour no other player in
    it has, and each person in one colour on every chart, no two people
    alike.  A score sheet names its players as the table entered them:
    `entered` maps such a name to the person it now means."""
    entered = entered or {}
    doc = check.parse(text)
    person = {}
    for fig in doc.find_all("figure", cls="chart"):
        colours = chart_colours(fig)
        kind = fig.attrs["data-chart"]
        assert all(len(c) == 1 for c in colours.values()), (kind, colours)
        drawn = [c for cs in colours.values() for c in cs]
        assert len(set(drawn)) == len(drawn), ("two players in one colour", kind, colours)
        for name, cs in colours.items():
            if not name.startswith(("(unnamed", "P")):
                person.setdefault(entered.get(name, name), set()).update(cs)
    assert all(len(c) == 1 for c in person.values()), person
    alike = [c.pop() for c in person.values()]
    assert len(set(alike)) == len(alike), ("two people in one colour", person)
    return person


def test_a_rename_keeps_each_persons_colour_and_every_chart_distinct(tmp_path):
    """After a rename a score sheet still names the player as entered: its
    chart draws them in their person's colour, never in a colour of the
    seat's number that another player has; after undo, the same again."""
    db = tmp_path / "club.db"
    sample.make_evening(db)
    # Eve at the first seat, Ann at the second: the first seat's colour is Ann's
    sample.feed(db, sample.board_lines("e66138b8a3404f30", [("spit", ["Eve", "Ann"])], first_seq=6))
    before = assert_colours_one_a_person_distinct_in_each_chart(page_of(db, tmp_path))
    assert cli(["--db", str(db), "rename", "Eve", "Eve Long-Surname"])[0] == 0
    after = assert_colours_one_a_person_distinct_in_each_chart(page_of(db, tmp_path),
                                                               {"Eve": "Eve Long-Surname"})
    assert set(after) == {"Ann", "Bob", "Cat", "Dan", "Eve Long-Surname"}
    assert cli(["--db", str(db), "undo"])[0] == 0
    assert assert_colours_one_a_person_distinct_in_each_chart(page_of(db, tmp_path)) == before


def test_a_club_of_more_people_than_colours_still_has_one_colour_a_person(tmp_path):
    """Fourteen people (more than the palette's twelve) and a game of two
    unnamed seats: every chart's players apart, unnamed seats in colours no
    person has."""
    db = tmp_path / "big.db"
    names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kit", "Lea", "Max", "Ned"]
    games = [("speed", [a, b]) for a, b in zip(names, names[1:])] + [("speed", ["Ned", "Ann"]),
                                                                     ("spit", ["P1", "P2"])]
    sample.feed(db, sample.board_lines("e6614103e7a52b21", games))
    text = page_of(db, tmp_path)
    person = assert_colours_one_a_person_distinct_in_each_chart(text)
    assert set(person) == set(names)
    doc = check.parse(text)
    players = chart_colours(doc.find("figure", data_chart="players"))
    assert len(players) == 14
    unnamed = [d for d in doc.find_all("details", cls="sheet") if d.attrs["data-game"] == "spit"][0]
    seats = chart_colours(unnamed.find("figure", data_chart="running"))
    assert set(seats) == {"P1", "P2"}
    assert not set(c for cs in seats.values() for c in cs) & set(c for cs in person.values() for c in cs)


def test_the_page_names_its_database_by_the_file_name_never_the_folders(tmp_path, monkeypatch):
    """The page is on a screen the whole room sees: it names the database
    by its file name alone, written (--html, the default database too) or
    served, and a served error does not show the folders either."""
    import threading
    folder = tmp_path / "home" / "ann" / ".local" / "share" / "speedref"
    folder.mkdir(parents=True)
    db = folder / "results.db"
    sample.feed(db, sample.board_lines("e6614103e7a52b21", [("speed", ["Ann", "Bob"])]))
    monkeypatch.setenv("SPEEDREF_DB", str(db))
    code, _, err = cli(["--html", str(tmp_path / "p.html")])
    assert code == 0, err
    written = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert str(tmp_path) not in written and "/home/ann" not in written
    assert check.from_html(written)["summary"].endswith("\u00b7 results.db")
    r = ResultsDB(db)
    try:
        text, _ = results_page.render(r, "C:\\Users\\ann\\AppData\\Local\\speedref\\club.db")
    finally:
        r.close()
    assert "Users" not in text and check.from_html(text)["summary"].endswith("\u00b7 club.db")
    for source, open_db, paths in ((str(db), lambda: ResultsDB(db), [""]),
                                   (str(folder / "gone.db"), lambda: ResultsDB(folder / "gone.db", create=False),
                                    ["", "events"])):
        srv = site.make_server(open_db, source, port=0)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            for path in paths:
                try:
                    status, _, body = fetch("http://127.0.0.1:%d/%s" % (srv.server_address[1], path))
                except urllib.error.HTTPError as e:
                    status, body = e.code, e.read().decode("utf-8")
                assert str(tmp_path) not in body and "/home/ann" not in body, (source, status, body[:200])
                if status == 200:
                    assert check.from_html(body)["summary"].endswith("\u00b7 results.db")
                else:
                    assert status == 500 and body.startswith("gone.db: no results database"), body
        finally:
            srv.shutdown()
            srv.server_close()
