"""The Evening view of the results page and the round's printable page in
headless Chromium, at a phone's 390 px and a laptop's 1280 px: nothing
scrolls the page sideways, the text is readable (14 px and up), who plays
where now and tonight's table are on the page, and the ratings table's sort
column (conservative) is on screen at 390 px without scrolling its box.

Needs Chromium and chromedriver (tests/test_web_results_page.py says how);
without them every test here skips with one line."""
import subprocess
import sys

import pytest

import results_sample as sample
from host_fixtures import speed_single
from host_tools.club import evening as E
from host_tools.club.db import ResultsDB
from test_web_results_page import _missing, offline

BIN = sys.executable.rsplit("/", 1)[0]
pytestmark = pytest.mark.web

PEOPLE = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lou"]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    why = _missing()
    if why:
        pytest.skip("evening browser tests skipped: " + why)
    from test_web import make_driver
    drv = make_driver(tmp_path_factory.mktemp("profile"))
    yield drv
    drv.quit()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """A club's games (the results page's sample, long name and all), then an
    evening: twelve people, two rounds of Speed, round 1 played, round 2
    half played, one game at a table no round seated."""
    d = tmp_path_factory.mktemp("evening")
    db_path = d / "club.db"
    sample.make_long_name(db_path)
    db = ResultsDB(db_path)
    with db.writing():                           # the club's earlier evenings' games
        db.con.execute("UPDATE games SET received_at = '2026-12-03T19:00:00+00:00'")
    ev, _ = E.start(db, "Thursday club", "2026-12-10", E.table_names(6), PEOPLE)
    E.checkin(db, ev, PEOPLE)
    for number in (1, 2):
        rnd = E.pair(db, ev, "speed")
        for i, (tbl, seated) in enumerate(rnd.tables[: 6 if number == 1 else 3]):
            r = speed_single(winner=i % 2, left=2 + i, players=[n for _, n in seated], ident="t%d-%d" % (i, number))
            r["table"] = tbl
            db.add_game(r)
    stray = speed_single(winner=0, left=4, players=["Ann", "Zed"], ident="tablet-1")
    stray["table"] = "Kitchen"
    db.add_game(stray)
    db.close()
    for args in (["--html", "results.html"], ["--evening", "--csv", "tonight.csv"]):
        r = subprocess.run([BIN + "/speedref-results", "--db", "club.db", *args], capture_output=True, text=True,
                           cwd=str(d))
        assert r.returncode == 0, r.stderr
    r = subprocess.run([BIN + "/speedref-club", "round", "--html", "round.html", "--db", "club.db"],
                       capture_output=True, text=True, cwd=str(d))
    assert r.returncode == 0, r.stderr
    return d


SIZE_JS = """
const W = innerWidth, out = {scroll: document.documentElement.scrollWidth, small: [], hidden: []};
const root = document.querySelector(arguments[0]);
for (const el of root.querySelectorAll('h1, h2, h3, p, th, td, li, summary, caption')) {
  if (!el.textContent.trim() || el.getClientRects().length === 0) continue;
  const px = parseFloat(getComputedStyle(el).fontSize);
  if (px < 14) out.small.push([el.tagName, el.textContent.slice(0, 30), px]);
  const r = el.getBoundingClientRect();
  if (el.closest('.scroll') === null && (r.left < -0.5 || r.right > W + 0.5))
    out.hidden.push([el.tagName, el.textContent.slice(0, 30), r.left, r.right]);
}
out.sorted = Array.from(document.querySelectorAll('table.ratings th[aria-sort]')).map(th => {
  const r = th.getBoundingClientRect(); return [r.left, r.right]; });
return out;
"""


def open_at(drv, page, width, height, mobile):
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    offline(drv, True)
    try:
        drv.get("about:blank")
        drv.get(page.as_uri())
    finally:
        offline(drv, False)


@pytest.mark.parametrize("width,height,mobile", [(390, 844, True), (1280, 800, False)], ids=["phone", "laptop"])
def test_the_evening_view_reads_at_every_width(browser, pages, width, height, mobile):
    open_at(browser, pages / "results.html", width, height, mobile)
    got = browser.execute_script(SIZE_JS, "#evening")
    assert got["scroll"] <= width, "the page scrolls sideways: %d px" % got["scroll"]
    assert got["small"] == [] and got["hidden"] == [], (got["small"][:5], got["hidden"][:5])
    # the sort column of every ratings table on screen, its box not scrolled
    assert got["sorted"] and all(left >= 0 and right <= width for left, right in got["sorted"]), got["sorted"]
    shown = browser.execute_script("""
        const now = document.querySelector('#now table.now');
        return {round: now.dataset.round,
                tables: Array.from(now.querySelectorAll('tbody tr')).map(tr => [tr.dataset.table,
                    tr.querySelector('td.seats').innerText.replace(/\\s+/g, ' ').trim(),
                    tr.querySelector('td.result').innerText.trim()]),
                tonight: Array.from(document.querySelectorAll('table.tonight tbody tr')).map(tr =>
                    [tr.querySelector('[data-col=player]').textContent, tr.querySelector('[data-col=points]').textContent]),
                unplaced: Array.from(document.querySelectorAll('ol.arrived li.unplaced')).map(li => li.innerText),
                top: document.querySelector('#evening').getBoundingClientRect().top};""")
    assert shown["round"] == "2" and len(shown["tables"]) == 6
    assert [t[2] == "playing" for t in shown["tables"]] == [False] * 3 + [True] * 3
    assert all(t[1].startswith("P1 ") and " P2 " in t[1] for t in shown["tables"])
    assert len(shown["tonight"]) == 12 and sum(int(p) for _, p in shown["tonight"]) == 9
    assert len(shown["unplaced"]) == 1 and "Kitchen" in shown["unplaced"][0]
    assert 0 <= shown["top"] < height            # the evening first


@pytest.mark.parametrize("width,height,mobile", [(390, 844, True), (1280, 800, False)], ids=["phone", "laptop"])
def test_the_round_page_reads_at_every_width_and_prints(browser, pages, width, height, mobile):
    open_at(browser, pages / "round.html", width, height, mobile)
    got = browser.execute_script(SIZE_JS, "body")
    assert got["scroll"] <= width and got["small"] == [], got
    rows = browser.execute_script("return Array.from(document.querySelectorAll('table.round tbody tr')).length")
    assert rows == 6
    pdf = browser.execute_cdp_cmd("Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69})
    import base64
    data = base64.b64decode(pdf["data"])
    assert data.startswith(b"%PDF") and data.count(b"/Type /Page\n") + data.count(b"/Type /Page ") + \
        data.count(b"/Type/Page") <= 2
