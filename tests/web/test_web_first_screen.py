"""The served first screen on a phone, with a season of 20,000 games in the
database (tests/season_sample.py: 40 people, 20 tables, tonight's evening
paired): in headless Chromium at 390 px it is one small document (at most
FIRST_SCREEN_BYTES, nothing else fetched but its live stream), it shows
tonight and the standings without scrolling sideways, and each of its links
opens a page that works (status 200, no script but the first screen's, no
sideways scroll), the long lists in pages of plain links.

How long the pages take to make is benchmarks/bench_results_page.py's
figure, not a test's.  Needs Chromium and chromedriver
(tests/web/test_web_results_page.py says how)."""
import threading
import urllib.request

import pytest

import results_page_check as check
import season_sample
from host_tools.club.db import ResultsDB
from host_tools.views import site
from test_web_results_page import _missing

pytestmark = pytest.mark.web

GAMES = 20000
FIRST_SCREEN_BYTES = 300 * 1024
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The season served on loopback: (base address, the database)."""
    db = season_sample.database(tmp_path_factory.mktemp("season"), GAMES, evening=True)
    srv = site.make_server(lambda: ResultsDB(db), str(db), port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d" % srv.server_address[1], db
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def phone(tmp_path_factory):
    why = _missing()
    if why:
        pytest.skip("first screen browser tests skipped: " + why)
    from test_web import make_driver
    drv = make_driver(tmp_path_factory.mktemp("profile"))
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    yield drv
    drv.quit()


def fetch(url):
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.status, dict(r.headers), r.read()


SIDEWAYS_JS = "return [document.documentElement.scrollWidth, window.innerWidth]"
RESOURCES_JS = ("return performance.getEntriesByType('resource').map(e => e.name)"
                ".concat([performance.getEntriesByType('navigation')[0].decodedBodySize])")


def test_the_first_screen_is_small_and_shows_tonight_and_the_standings(phone, served):
    base, db = served
    status, headers, body = fetch(base + "/")
    assert status == 200 and len(body) <= FIRST_SCREEN_BYTES, len(body)
    phone.get(base + "/")
    *fetched, size = phone.execute_script(RESOURCES_JS)
    assert size == len(body) and [u for u in fetched if not u.endswith("/events")] == []
    width, inner = phone.execute_script(SIDEWAYS_JS)
    assert width <= inner == 390
    doc = check.parse(phone.execute_script("return document.documentElement.outerHTML"))
    assert doc.find(id="summary").text().startswith("%d games" % (GAMES,))
    assert doc.find("section", id="evening") is not None and doc.find("table", cls="now") is not None
    rows = check._rows(doc.find("section", id="standings").find("table", cls="standings"))
    assert len(rows) == site.FIRST_ROWS and sum(int(r["games"]) for r in rows) > 0
    # the leader is on screen, and the table's counts beside the names
    assert phone.execute_script("return document.querySelector('#standings table.standings tbody tr td.wins')"
                                ".getBoundingClientRect().right") <= 390


def test_every_link_of_the_first_screen_opens_a_page_that_works(phone, served):
    base, db = served
    first = fetch(base + "/")[2].decode("utf-8")
    hrefs = [h for h in dict.fromkeys(check.links(first)) if h.startswith("/") and h != "/" and "#" not in h]
    wanted = {"/players", "/games", "/evenings", "/standings/speed", "/ratings/speed", "/tables/speed"}
    assert wanted <= set(hrefs), sorted(set(hrefs))
    assert any(h.startswith("/player/") for h in hrefs) and any(h.startswith("/game/") or h == "/games"
                                                                 for h in hrefs)
    for href in hrefs:
        status, headers, text = fetch(base + href)
        assert status == 200 and b"<script" not in text, href
    # the long lists come in pages, each a plain link to the next
    games = fetch(base + "/games")[2].decode("utf-8")
    pages = check.parse(games).find("a", rel="next")
    assert pages is not None and pages.attrs["href"] == "/games?page=2"
    assert "page 1 of %d" % -(-GAMES // site.GAMES_ROWS) in games
    sheet = [h for h in check.links(games) if h.startswith("/game/")][0]
    person = [h for h in hrefs if h.startswith("/player/")][0]
    for href in ("/standings/speed", "/ratings/speed", "/players", "/games?page=2", sheet, person):
        phone.get(base + href)
        width, inner = phone.execute_script(SIDEWAYS_JS)
        assert width <= inner, href
        assert phone.execute_script("return document.querySelectorAll('svg, table').length") > 0, href
