"""The results page (speedref-results --html) in headless Chromium, opened
from file:// with the network off, as a club would open it on a laptop.

Checked: nothing is fetched and nothing runs (no request, no script, no CSP
violation); the numbers the browser shows equal speedref-results' and
speedref-score's; every chart is drawn; a page of hostile names runs none of
them; the served page (--serve) is the same page; and a screenshot at
1280x800 is readable (text sizes, nothing wider than the screen, the first
game's standings above the fold).  The screenshot is kept as
build/test-artifacts/results_page.png (docs/screens/results_page.png is a copy
for docs/host-tools.md; the README's picture of the ratings is made by make docs,
tools/results_screens.py).

Needs Chromium and chromedriver (Debian: apt-get install chromium
chromium-driver) and selenium; without them every test here skips with one
line saying what is missing.  The driver is tests/web/test_web.py's.
"""
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import results_page_check as check
import results_sample as sample

ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = ROOT / "build" / "test-artifacts"
BIN = Path(sys.executable).parent
WIDTH, HEIGHT = 1280, 800

pytestmark = pytest.mark.web

# Before any of the page's own content: record what a script in the page
# would do (an alert, an error) and every Content-Security-Policy violation.
# Injected through DevTools, so the page's CSP does not apply to it.
WATCH_JS = """
window.__seen = {alerts: [], errors: [], csp: []};
for (const f of ['alert', 'confirm', 'prompt']) window[f] = (m) => { window.__seen.alerts.push(String(m)); };
window.addEventListener('error', e => window.__seen.errors.push(String(e.message || e.type)), true);
document.addEventListener('securitypolicyviolation', e => window.__seen.csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def _missing():
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium not installed (requirements-dev.txt)"
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        return "chromium not installed (apt-get install chromium chromium-driver)"
    if not shutil.which("chromedriver"):
        return "chromedriver not installed (apt-get install chromium-driver)"
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    why = _missing()
    if why:
        pytest.skip("results page browser tests skipped: " + why)
    from test_web import make_driver
    drv = make_driver(tmp_path_factory.mktemp("profile"))
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                        {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    drv.execute_cdp_cmd("Emulation.setScrollbarsHidden", {"hidden": True})   # the screenshot is the page alone
    drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_JS})
    yield drv
    drv.quit()


def offline(drv, on):
    drv.execute_cdp_cmd("Network.enable", {})
    drv.execute_cdp_cmd("Network.emulateNetworkConditions",
                        {"offline": on, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


@pytest.fixture(scope="module")
def evening(tmp_path_factory):
    d = tmp_path_factory.mktemp("evening")
    db = d / "club.db"
    logs = sample.make_evening(db)
    alone = {}
    for dev, lines in logs.items():
        alone[dev] = d / ("%s.db" % dev)
        sample.feed(alone[dev], lines)
    page = d / "results.html"
    # run where the database is, as a club would: the page names it "club.db"
    r = subprocess.run([str(BIN / "speedref-results"), "--db", "club.db", "--html", "results.html"],
                       capture_output=True, text=True, cwd=str(d))
    assert r.returncode == 0 and r.stdout.startswith("wrote "), r.stderr
    return db, alone, page


def open_file(drv, page):
    offline(drv, True)
    try:
        drv.get("about:blank")
        drv.get(page.as_uri())
        assert drv.execute_script("return document.readyState") == "complete"
    finally:
        offline(drv, False)


def seen(drv):
    return drv.execute_script("return window.__seen")


def test_page_opens_offline_and_fetches_and_runs_nothing(browser, evening):
    open_file(browser, evening[2])
    assert browser.title == "speedref results"
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert browser.execute_script("return document.scripts.length") == 0
    assert seen(browser) == {"alerts": [], "errors": [], "csp": []}


def test_shown_numbers_equal_the_cli(browser, evening):
    """What Chromium built from the file, against speedref-results (text and
    JSON, and on each table's games alone) and speedref-score."""
    db, alone, page = evening
    open_file(browser, page)
    shown = browser.execute_script(check.EXTRACT_JS)
    assert shown == check.from_html(page.read_text(encoding="utf-8")), "the browser read the page as its source"
    assert check.check_against_cli(shown, db, alone) > 300
    # what a person sees is that text (nothing hidden, nothing added by CSS but "= ")
    cells = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.standings td')).map(td => [td.innerText, td.textContent])")
    assert all(a == b for a, b in cells), [c for c in cells if c[0] != c[1]][:3]


def test_every_chart_is_drawn(browser, evening):
    open_file(browser, evening[2])
    boxes = browser.execute_script("""
        return Array.from(document.querySelectorAll('figure.chart svg')).filter(s => !s.closest('details:not([open])'))
          .map(s => { const r = s.getBoundingClientRect();
                      return [s.closest('figure').dataset.chart, r.width, r.height,
                              s.querySelectorAll('rect.reactive, path.line, circle.dot').length]; });""")
    kinds = [b[0] for b in boxes]
    assert kinds.count("wins") == 4 and kinds.count("players") == 1 and kinds.count("running") == 3, kinds
    assert kinds.count("rating") == 4, kinds
    for kind, w, h, marks in boxes:
        assert w > 250 and h > 100 and marks > 0, (kind, w, h, marks)


def test_ratings_shown_equal_the_cli_and_follow_a_rename(browser, evening, tmp_path):
    """The ratings table of every game as Chromium shows it, against
    speedref-results ratings (text and JSON); then Ann renamed Annie: the
    page and the CLI both move her whole history."""
    import shutil as sh
    db = tmp_path / "club.db"
    sh.copyfile(evening[0], db)
    r = subprocess.run([str(BIN / "speedref-results"), "--db", str(db), "rename", "Ann", "Annie"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("change 1: renamed Ann to Annie"), r.stderr
    page = tmp_path / "renamed.html"
    subprocess.run([str(BIN / "speedref-results"), "--db", str(db), "--html", str(page)], check=True,
                   capture_output=True)
    open_file(browser, page)
    shown = browser.execute_script(check.EXTRACT_JS)
    assert sorted(shown["ratings"]) == ["partners", "speed", "speedrun", "spit"]
    assert shown["ratings"] == check.cli_ratings(db)
    for game, rows in shown["ratings"].items():
        names = [r["player"] for r in rows]
        assert "Annie" in names and "Ann" not in names, (game, names)
        # established ratings first, then provisional ones, each by the conservative rating
        order = [(r["provisional"] == "yes", -float(r["conservative"])) for r in rows]
        assert order == sorted(order)
    # the same numbers as before the rename: only her name changed
    before = check.from_html(evening[2].read_text(encoding="utf-8"))["ratings"]
    back = dict((g, [dict(r, player="Ann" if r["player"] == "Annie" else r["player"]) for r in rows])
                for g, rows in shown["ratings"].items())
    assert back == before


def test_hostile_names_run_nothing(browser, tmp_path):
    db = tmp_path / "h.db"
    sample.make_hostile(db)
    page = tmp_path / "h.html"
    subprocess.run([str(BIN / "speedref-results"), "--db", str(db), "--html", str(page)], check=True,
                   capture_output=True)
    open_file(browser, page)
    assert seen(browser) == {"alerts": [], "errors": [], "csp": []}
    assert browser.execute_script("return document.querySelectorAll('script, img, b, i').length") == 0
    names = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.standings:not(.per-table) td.player'))"
        ".map(td => td.title)")
    assert set(names) == {'<script>alert("name")</script>', '"><img src=x onerror=alert(1)>',
                          "Zo\u00eb\\u202eevil", "</svg><b>bold</b>"}   # a person's name: the newline around it stripped
    legends = browser.execute_script(
        "return Array.from(document.querySelectorAll('figure[data-chart=running] .legend title'))"
        ".map(t => t.textContent)")
    assert '"><img src=x onerror=alert(1)>' in legends
    check.check_against_cli(browser.execute_script(check.EXTRACT_JS), db, {sample.HOSTILE_DEVICE: db})


def test_served_pages_hold_the_written_pages_numbers(browser, evening):
    """--serve: the first screen and the pages it links to, opened in the
    browser one after another, hold every number of the page --html wrote,
    and nothing on them is refused or runs but the first screen's script."""
    from host_tools.views import site
    from host_tools.club.db import ResultsDB
    sys.path.insert(0, str(ROOT / "tests" / "host"))
    from test_host_results_page import served_and_written
    srv = site.make_server(lambda: ResultsDB(evening[0]), "club.db", port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % srv.server_address[1]

    def get(path):
        browser.get(base + path)
        assert seen(browser) == {"alerts": [], "errors": [], "csp": []}, path
        return browser.execute_script("return document.documentElement.outerHTML")
    try:
        served = check.from_site(get)
    finally:
        srv.shutdown()
        srv.server_close()
    got, want = served_and_written(served, check.from_html(evening[2].read_text(encoding="utf-8")))
    assert got == want and len(got["sheets"]) == 14


def test_served_page_shows_a_new_game_in_place_without_a_reload(browser, evening, tmp_path):
    """--serve: a game stored while the page is on screen is on it within a
    few seconds (server-sent events), where the reader had scrolled to, and
    the page was not loaded again (a value set in it survives)."""
    import shutil
    from selenium.webdriver.support.ui import WebDriverWait
    from host_tools.views import site
    from host_tools.club.db import ResultsDB
    db = tmp_path / "club.db"
    shutil.copy(evening[0], db)
    srv = site.make_server(lambda: ResultsDB(db), "club.db", port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        browser.get("http://127.0.0.1:%d/" % srv.server_address[1])
        before = browser.execute_script(check.EXTRACT_JS)
        at = browser.execute_script("window.scrollTo(0, Math.min(700, document.documentElement.scrollHeight"
                                    " - window.innerHeight)); window.__same = 1; return window.scrollY")
        assert at > 0
        version = browser.execute_script("return document.documentElement.dataset.version")
        sample.feed(db, sample.board_lines("e6614c311b8d2a2f", [("partners", ["Eve", "Ann", "Bob", "Cat"])],
                                           first_seq=5))
        WebDriverWait(browser, 10).until(
            lambda d: d.execute_script("return document.documentElement.dataset.version") != version)
        after = browser.execute_script(check.EXTRACT_JS)
        assert browser.execute_script("return [window.__same, window.scrollY]") == [1, at]
        assert seen(browser) == {"alerts": [], "errors": [], "csp": []}
    finally:
        srv.shutdown()
        srv.server_close()
    assert before["summary"].startswith("14 games") and after["summary"].startswith("15 games")
    assert after["standings"]["partners"][0]["player"] == "Eve" != before["standings"]["partners"][0]["player"]


def test_screenshot_at_1280x800_is_readable(browser, evening):
    open_file(browser, evening[2])
    assert browser.execute_script("return [innerWidth, innerHeight]") == [WIDTH, HEIGHT]
    assert browser.execute_script("return document.documentElement.scrollWidth") <= WIDTH, "no sideways scrolling"
    # the first game's standings and its chart, whole, on the first screen
    top = browser.execute_script("""
        const a = document.querySelector('article.game'); const r = a.getBoundingClientRect();
        return [a.dataset.game, r.top, r.bottom, r.left, r.right];""")
    assert top[0] == "speed" and top[1] >= 0 and top[2] <= HEIGHT and top[4] <= WIDTH, top
    # text a person reads from a few steps back: 14 px and up in the page,
    # 12 px and up in a chart as drawn (an SVG is scaled to its box)
    small = browser.execute_script("""
        const out = [];
        for (const el of document.querySelectorAll('h1, h2, h3, p, th, td, summary, caption, nav a')) {
          const r = el.getBoundingClientRect();
          if (r.bottom < 0 || r.top > innerHeight || !el.textContent.trim()) continue;
          const px = parseFloat(getComputedStyle(el).fontSize);
          if (px < 14) out.push([el.tagName, el.textContent.slice(0, 30), px]);
        }
        for (const t of document.querySelectorAll('figure svg text')) {
          const r = t.getBoundingClientRect();
          if (r.bottom < 0 || r.top > innerHeight || !t.textContent.trim() || r.height === 0) continue;
          const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
          if (px < 12) out.push(['svg', t.textContent.slice(0, 30), px]);
        }
        return out;""")
    assert small == []
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTEFACTS / "results_page.png"
    assert browser.save_screenshot(str(shot))
    from PIL import Image
    img = Image.open(shot).convert("RGB")
    assert img.size == (WIDTH, HEIGHT)
    colours = img.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50, "a drawn page, not a blank one"
    dark = sum(n for n, (r, g, b) in colours if r + g + b < 200)
    assert dark > WIDTH * HEIGHT // 100, "text and the header in dark ink"


@pytest.fixture(scope="module")
def long_name_page(tmp_path_factory):
    """The evening and two games where one name is 53 characters long."""
    d = tmp_path_factory.mktemp("long")
    sample.make_long_name(d / "long.db")
    r = subprocess.run([str(BIN / "speedref-results"), "--db", "long.db", "--html", "results.html"],
                       capture_output=True, text=True, cwd=str(d))
    assert r.returncode == 0, r.stderr
    return d / "results.html"


# What does not fit at a width: anything wider than the viewport; a table
# heading neither on screen nor reachable by scrolling its own overflow box
# (which itself must be on screen); a chart not whole on screen; a wins chart
# whose plot a long name squashed (a name cut at 24 characters, drawn 12 px
# tall or more on a phone, takes about half a chart's width: the bars keep
# at least 40% of it).
FIT_JS = """
document.querySelectorAll('details').forEach(d => { d.open = true; });
const W = innerWidth, out = {scroll: document.documentElement.scrollWidth, width: W, heads: 0, bad: []};
const scroller = el => {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll') return p; }
  return null; };
for (const th of document.querySelectorAll('th')) {
  out.heads += 1;
  const r = th.getBoundingClientRect();
  if (r.left >= -0.5 && r.right <= W + 0.5) continue;
  const s = scroller(th);
  if (!s) { out.bad.push(['th', th.textContent, r.left, r.right]); continue; }
  const b = s.getBoundingClientRect(), left = r.left - b.left + s.scrollLeft, right = r.right - b.left + s.scrollLeft;
  if (b.left < -0.5 || b.right > W + 0.5 || left < -0.5 || right > s.scrollWidth + 0.5)
    out.bad.push(['th in its box', th.textContent, b.left, b.right, left, right, s.scrollWidth]);
}
for (const svg of document.querySelectorAll('figure.chart svg')) {
  const r = svg.getBoundingClientRect(), kind = svg.closest('figure').dataset.chart;
  if (r.left < -0.5 || r.right > W + 0.5 || r.width < 200) out.bad.push(['chart', kind, r.left, r.right]);
  const plot = svg.querySelector('g.plot rect.background').getBoundingClientRect();
  if (kind !== 'running' && plot.width < 0.40 * r.width) out.bad.push(['plot', kind, plot.width, r.width]);
}
return out;
"""


@pytest.mark.parametrize("width,height,mobile", [(390, 844, True), (768, 1024, True), (1280, 800, False)],
                         ids=["phone", "tablet", "laptop"])
def test_the_page_reads_at_every_width(browser, long_name_page, width, height, mobile):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    try:
        open_file(browser, long_name_page)
        fit = browser.execute_script(FIT_JS)
    finally:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    assert fit["width"] == width
    assert fit["scroll"] <= width, "the page scrolls sideways: %d px wide" % fit["scroll"]
    assert fit["heads"] > 50 and fit["bad"] == [], fit["bad"][:6]


PHONE = (390, 844)


class width_of:
    """The browser as a screen of this size (a phone: mobile), for a `with`."""

    def __init__(self, drv, width, height, mobile):
        self.drv, self.metrics = drv, {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}

    def __enter__(self):
        self.drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", self.metrics)
        return self.drv

    def __exit__(self, *exc):
        self.drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                 {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})


# Each table's headings a person sees without scrolling it: on the screen
# and inside the table's own scroll box as it first shows.
SHOWN_HEADS_JS = """
const out = [];
for (const t of document.querySelectorAll(arguments[0])) {
  const box = t.closest('.scroll'), b = box.getBoundingClientRect();
  box.scrollLeft = 0;
  const shown = Array.from(t.querySelectorAll('thead th')).filter(th => {
    const r = th.getBoundingClientRect();
    return r.left >= Math.max(b.left, 0) - 0.5 && r.right <= Math.min(b.right, innerWidth) + 0.5; })
    .map(th => th.textContent.trim());
  const sorted = Array.from(t.querySelectorAll('thead th[aria-sort]')).map(th => [th.textContent.trim(), th.getAttribute('aria-sort')]);
  out.push([t.dataset.game + (t.dataset.device ? ' ' + t.dataset.device : ''), shown, sorted]);
}
return out;
"""


def test_on_a_phone_the_ratings_sort_column_shows_without_scrolling(browser, long_name_page):
    """The ratings are sorted by the conservative rating: on a 390 px phone
    that column is on screen beside the name, marked as the order, so a row
    above one with a higher rating does not look wrong."""
    with width_of(browser, *PHONE, True):
        open_file(browser, long_name_page)
        tables = browser.execute_script(SHOWN_HEADS_JS, "table.ratings")
    assert len(tables) == 4
    for game, shown, sorted_by in tables:
        assert shown[:2] == ["player", "conservative"], (game, shown)
        assert sorted_by == [["conservative", "descending"]], game


def test_on_a_phone_a_long_name_wraps_and_the_standings_show_their_counts(browser, long_name_page):
    """With a 53-character name in the standings, a 390 px phone shows the
    player, games, wins and average score of every game without scrolling:
    the name wraps in its cell (the cut name whole, its full name in the
    cell's title) instead of pushing the counts off the screen."""
    with width_of(browser, *PHONE, True):
        open_file(browser, long_name_page)
        tables = browser.execute_script(SHOWN_HEADS_JS, "table.standings:not(.per-table)")
        cells = browser.execute_script("""
            return Array.from(document.querySelectorAll('td.player')).filter(td => td.title === arguments[0])
              .map(td => { const r = td.getBoundingClientRect(), b = td.closest('.scroll').getBoundingClientRect();
                           const one = td.closest('tbody').querySelector('td.player:not([title="' + arguments[0] + '"])');
                           return [r.width, r.height, b.width, one.getBoundingClientRect().height, td.textContent]; });""",
            sample.LONG_NAME)
    assert len(tables) == 4
    for game, shown, _ in tables:
        assert shown[:4] == ["player", "games", "wins", "avg score"], (game, shown)
    assert len(cells) >= 3
    for width, height, box, one_line, text in cells:
        assert text == sample.LONG_NAME[:23] + "\u2026"
        assert height > 1.5 * one_line and width <= 0.45 * box, (width, height, box, one_line)


# Every table that scrolls sideways, after it is brought on screen: its
# box's rectangle, and the same after it is scrolled to its end, with
# where its players' names are then.
SCROLLERS_JS = """
document.querySelectorAll('details').forEach(d => { d.open = true; });
return Array.from(document.querySelectorAll('.scroll')).map((box, i) => {
  box.dataset.n = i; return [i, box.scrollWidth > box.clientWidth + 1]; });
"""
BOX_JS = """
const box = document.querySelector('.scroll[data-n="' + arguments[0] + '"]');
box.scrollLeft = arguments[1] ? box.scrollWidth : 0;
box.scrollIntoView({block: 'center'});
const b = box.getBoundingClientRect(), head = box.querySelector('thead').getBoundingClientRect();
const first = Array.from(box.querySelectorAll('td.player')).map(td => td.getBoundingClientRect().left - b.left);
return [b.left, head.bottom, b.right, Math.min(b.bottom, innerHeight), first];
"""


def _edge(png, rect):
    """How light the 3 px strip at a box's right edge is, under its
    headings (the median grey level, 255 white)."""
    import io
    from PIL import Image
    img = Image.open(io.BytesIO(png)).convert("L")
    left, top, right, bottom, _ = rect
    strip = img.crop((int(right) - 4, int(top) + 2, int(right) - 1, int(bottom) - 2))
    values = sorted(strip.tobytes())
    return values[len(values) // 2]


def test_on_a_phone_a_table_that_scrolls_shows_it_and_keeps_its_names(browser, long_name_page):
    """Phones hide scroll bars: a table wider than a 390 px screen shows a
    shadow at its right edge while more of it is to the right (gone at its
    end, never on a table that fits), and its players' names stay in place
    as it scrolls."""
    with width_of(browser, *PHONE, True):
        open_file(browser, long_name_page)
        boxes = browser.execute_script(SCROLLERS_JS)
        wide = [n for n, scrolls in boxes if scrolls]
        narrow = [n for n, scrolls in boxes if not scrolls]
        assert len(wide) >= 10 and narrow, boxes
        for n in wide:
            start = browser.execute_script(BOX_JS, n, False)
            shadow = _edge(browser.get_screenshot_as_png(), start)
            end = browser.execute_script(BOX_JS, n, True)
            cleared = _edge(browser.get_screenshot_as_png(), end)
            assert shadow <= 225 and cleared >= 240, (n, shadow, cleared)
            moved = [b - a for a, b in zip(start[4], end[4])]
            assert all(abs(x) < 1.5 for x in moved), ("the first column scrolled away", n, moved)
        for n in narrow:
            assert _edge(browser.get_screenshot_as_png(), browser.execute_script(BOX_JS, n, False)) >= 240, n


CHART_TEXT_JS = """
document.querySelectorAll('details').forEach(d => { d.open = true; });
const out = [];
for (const t of document.querySelectorAll('figure svg text')) {
  const r = t.getBoundingClientRect();
  if (!t.textContent.trim() || r.height === 0) continue;
  out.push([t.closest('figure').dataset.chart, t.textContent.slice(0, 30),
            parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a]);
}
return out;
"""


@pytest.mark.parametrize("width,height,mobile", [(390, 844, True), (1280, 800, False)], ids=["phone", "laptop"])
def test_every_charts_text_is_readable_at_every_width(browser, long_name_page, width, height, mobile):
    """Every label, value, legend and title of every chart (the wins per
    player too) is drawn 12 px tall or more, on a phone as on a laptop."""
    with width_of(browser, width, height, mobile):
        open_file(browser, long_name_page)
        texts = browser.execute_script(CHART_TEXT_JS)
    assert set(t[0] for t in texts) == {"wins", "players", "running", "rating"}
    small = [t for t in texts if t[2] < 12]
    assert small == [], (len(small), small[:5])


LEGEND_JS = """
document.querySelectorAll('details').forEach(d => { d.open = true; });
const out = [];
for (const fig of document.querySelectorAll('figure.chart')) {
  const svg = fig.querySelector('svg').getBoundingClientRect();
  const boxes = Array.from(fig.querySelectorAll('g.legend')).map(g => {
    const r = g.getBoundingClientRect(); return [g.textContent.trim().slice(0, 30), r.left, r.top, r.right, r.bottom]; });
  for (let i = 0; i < boxes.length; i++) {
    const [name, l, t, r, b] = boxes[i];
    if (l < svg.left - 0.5 || r > svg.right + 0.5 || t < svg.top - 0.5 || b > svg.bottom + 0.5)
      out.push([fig.dataset.chart, name, 'outside its chart']);
    for (let j = i + 1; j < boxes.length; j++) {
      const [other, l2, t2, r2, b2] = boxes[j];
      if (l < r2 - 0.5 && l2 < r - 0.5 && t < b2 - 0.5 && t2 < b - 0.5) out.push([fig.dataset.chart, name, other]);
    }
  }
}
return out;
"""


@pytest.mark.parametrize("width,height,mobile", [(390, 844, True), (1280, 800, False)], ids=["phone", "laptop"])
def test_no_legend_name_runs_into_another(browser, long_name_page, width, height, mobile):
    """A line chart's legend names each line whole (cut at 24 characters, as
    the tables cut it) beside its colour, no two names on top of each
    other, every one inside its chart."""
    with width_of(browser, width, height, mobile):
        open_file(browser, long_name_page)
        clashes = browser.execute_script(LEGEND_JS)
    assert clashes == []
