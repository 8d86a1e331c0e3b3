"""What the results page shows, read back, and what the command-line tools
print, parsed, so the tests can hold one against the other.  No tests here.

The page is read two ways into the same shape: from its HTML source
(`from_html`, Python's html.parser) and from the DOM a browser built
(`EXTRACT_JS`, tests/web/test_web_results_page.py).  The CLI side is the real
commands' output: speedref-results (text and --json) and speedref-score.
"""
import html.parser
import json
import re
import subprocess
import sys
from pathlib import Path

from host_tools.jsonin import printable

BIN = Path(sys.executable).parent

STANDINGS_HEADS = ["player", "games", "wins", "avg score", "perfect", "slap wins", "median margin"]


# --- the CLI ----------------------------------------------------------------
def run(tool, *args, stderr=None):
    """The tool's stdout; exit 0, or 2 when it skipped rows (they are named on
    stderr: those lines go into the list `stderr`, when given)."""
    r = subprocess.run([str(BIN / tool)] + [str(a) for a in args], capture_output=True, text=True)
    lines = r.stderr.splitlines()
    skips = [x for x in lines if x.startswith("skipped: ")]
    assert r.returncode == (2 if skips else 0) and len(skips) == len(lines), (tool, args, r.stderr)
    if stderr is not None:
        stderr.extend(skips)
    return r.stdout


def columns(header, heads):
    """Start of each heading in a text table's header line."""
    starts, at = [], 0
    for h in heads:
        at = header.index(h, at)
        starts.append(at)
        at += len(h)
    return starts


def cut(line, starts):
    ends = starts[1:] + [None]
    return [line[a:b].strip() for a, b in zip(starts, ends)]


def cli_standings(db):
    """speedref-results' text report: {game: [{heading: cell}]}, and the
    notes: the rows it skipped (stderr), then the lines after the tables."""
    skips = []
    text = run("speedref-results", "--db", db, stderr=skips)
    out, notes, game, starts = {}, skips, None, None
    for line in text.splitlines():
        if not line.strip():
            game = None
        elif not line.startswith("  "):
            if game is None and line[0].isdigit() or line.startswith("skipped"):
                notes.append(line)
            else:
                game, starts = line, None
                out[game] = []
        elif starts is None:
            starts = columns(line, STANDINGS_HEADS)
        else:
            out[game].append(dict(zip(STANDINGS_HEADS, cut(line, starts))))
    return out, notes


def cli_json(db):
    return json.loads(run("speedref-results", "--db", db, "--json"))


RATING_HEADS = ["player", "rating", "sigma", "conservative", "games", "provisional"]


def cli_ratings(db):
    """speedref-results ratings' text report: {game: [{heading: cell}]}."""
    text = run("speedref-results", "ratings", "--db", db)
    out, game, starts = {}, None, None
    for line in text.splitlines():
        if not line.strip():
            game = None
        elif not line.startswith("  "):
            game, starts = line.split(":", 1)[0], None
            out[game] = []
        elif starts is None:
            starts = columns(line, RATING_HEADS)
        else:
            out[game].append(dict(zip(RATING_HEADS, cut(line, starts))))
    return out


CELL = re.compile(r"^(?:(.*?)  )?= (-?\d+)$")


def cli_sheet(db, row):
    """speedref-score --db DB --id N, parsed: head, names, rows as
    [label, [(cell, running total)]], and the lines under the table."""
    text = run("speedref-score", "--db", db, "--id", row)
    lines = text.splitlines()
    head, header, dashes = lines[0], lines[2], lines[3]
    starts = [m.start() for m in re.finditer(r"-+", dashes)]
    rows, i = [], 4
    while lines[i].strip():
        cells = cut(lines[i], starts)
        pairs = []
        for c in cells[1:]:
            m = CELL.match(c)
            assert m, (row, c)
            pairs.append([m.group(1) or "", int(m.group(2))])
        rows.append([cells[0], pairs])
        i += 1
    foot = lines[i + 1:]
    return {"head": head, "unit": cut(header, starts)[0], "names": cut(header, starts)[1:], "rows": rows,
            "totals": foot[0], "result": foot[1],
            "decided": foot[2] if foot[2].startswith("Decided by: ") else None, "played": foot[-1]}


# --- the page -----------------------------------------------------------------
VOID = {"meta", "link", "br", "img", "input", "hr", "area", "base", "col", "embed", "source", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.iter()

    def find_all(self, tag=None, cls=None, **attrs):
        for n in self.iter():
            if tag and n.tag != tag:
                continue
            if cls and cls not in n.attrs.get("class", "").split():
                continue
            if any(n.attrs.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            yield n

    def find(self, *a, **k):
        return next(self.find_all(*a, **k), None)


class TreeBuilder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#document", {})

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(text):
    b = TreeBuilder()
    b.feed(text)
    b.close()
    return b.root


def _rows(table):
    """A table's rows, {data-col: text}; a player is their whole name (the
    cell's title: the cell shows it cut after results_page.NAME_CHARS)."""
    return [dict((td.attrs["data-col"], td.attrs["title"] if td.attrs["data-col"] == "player" else td.text())
                 for td in tr.find_all("td"))
            for tr in table.find("tbody").find_all("tr")]


def from_html(text):
    """The page's numbers, from its source."""
    doc = parse(text)
    out = {"summary": doc.find(id="summary").text(), "standings": {}, "tables": {}, "players": [],
           "sheets": {}, "notes": [], "ratings": {}}
    for t in doc.find_all("table", cls="ratings"):
        out["ratings"][t.attrs["data-game"]] = _rows(t)
    for t in doc.find_all("table", cls="standings"):
        if "per-table" in t.attrs["class"].split():
            out["tables"]["%s %s" % (t.attrs["data-game"], t.attrs["data-device"])] = _rows(t)
        else:
            out["standings"][t.attrs["data-game"]] = _rows(t)
    players = doc.find("table", cls="players")
    if players is not None:
        out["players"] = _rows(players)
    for d in doc.find_all("details", cls="sheet"):
        table = d.find("table", cls="sheet")
        rows = []
        for tr in table.find("tbody").find_all("tr"):
            tds = list(tr.find_all("td"))
            rows.append([tds[0].text(), [[td.find("span", cls="cell").text(), int(td.find("span", cls="run").text())]
                                         for td in tds[1:]]])
        foot = d.find("div", cls="sheet-foot")
        decided = foot.find("p", cls="decided")
        heads = [th.text() for th in table.find("thead").find_all("th")]
        out["sheets"][d.attrs["data-row"]] = {
            "head": d.find("span", cls="head").text(), "unit": heads[0], "names": heads[1:], "rows": rows,
            "totals": foot.find("p", cls="totals").text(), "result": foot.find("p", cls="result").text(),
            "decided": decided.text() if decided is not None else None,
            "played": foot.find("p", cls="played").text()}
    notes = doc.find(id="notes")
    if notes is not None:
        out["notes"] = [p.text() for p in notes.find_all("p")]
    return out


def links(text):
    """Every link's href on a page, in order."""
    return [a.attrs["href"] for a in parse(text).find_all("a") if "href" in a.attrs]


def _every_page(get, path):
    """A paginated page's pages, following its pager's "next" links."""
    out = []
    while path:
        text = get(path)
        out.append(text)
        nxt = [a.attrs["href"] for a in parse(text).find_all("a", rel="next")]
        path = nxt[0] if nxt else None
    return out


def from_site(get):
    """The served pages' numbers (--serve, host_tools/views/site.py), by
    following the first screen's links as a reader would: each game's whole
    standings, its ratings and its tables, the players, every game's score
    sheet (the list of games, page by page) and the notes; in from_html()'s
    shape, so that the served pages and the one-file page can be compared.
    get(path) -> the page's HTML.  A game's tables are kept when it was
    played at more than one, as the one-file page keeps them."""
    first = get("/")
    doc = parse(first)
    out = {"summary": doc.find(id="summary").text(), "standings": {}, "tables": {}, "players": [],
           "sheets": {}, "notes": [], "ratings": {}, "first": {}}
    hrefs = list(dict.fromkeys(links(first)))
    for t in doc.find_all("table", cls="standings"):
        out["first"][t.attrs["data-game"]] = _rows(t)
    for href in hrefs:
        if href.startswith("/standings/"):
            for text in _every_page(get, href):
                for t in parse(text).find_all("table", cls="standings"):
                    out["standings"].setdefault(t.attrs["data-game"], []).extend(_rows(t))
        elif href.startswith("/tables/"):
            tables = list(parse(get(href)).find_all("table", cls="per-table"))
            if len(tables) > 1:
                for t in tables:
                    out["tables"]["%s %s" % (t.attrs["data-game"], t.attrs["data-device"])] = _rows(t)
        elif href.startswith("/ratings/"):
            for text in _every_page(get, href):
                for t in parse(text).find_all("table", cls="ratings"):
                    out["ratings"].setdefault(t.attrs["data-game"], []).extend(_rows(t))
    for text in _every_page(get, "/players"):
        players = parse(text).find("table", cls="players")
        if players is not None:
            out["players"] += _rows(players)
    for text in _every_page(get, "/games"):
        for href in links(text):
            if href.startswith("/game/"):
                out["sheets"].update(from_html(get(href))["sheets"])
    if "/notes" in hrefs:
        out["notes"] = from_html(get("/notes"))["notes"]
    return out


# The same from the DOM a browser built (innerText is what a person sees;
# textContent, what the page holds: the tests compare textContent, as the
# source read above does, and check the shown text separately).
EXTRACT_JS = r"""
const rows = t => Array.from(t.querySelectorAll('tbody tr')).map(tr => {
  const o = {}; tr.querySelectorAll('td').forEach(td => {
    o[td.dataset.col] = td.dataset.col === 'player' ? td.title : td.textContent; }); return o; });
const out = {summary: document.getElementById('summary').textContent, standings: {}, tables: {},
             players: [], sheets: {}, notes: [], ratings: {}};
document.querySelectorAll('table.ratings').forEach(t => { out.ratings[t.dataset.game] = rows(t); });
document.querySelectorAll('table.standings').forEach(t => {
  if (t.classList.contains('per-table')) out.tables[t.dataset.game + ' ' + t.dataset.device] = rows(t);
  else out.standings[t.dataset.game] = rows(t); });
const p = document.querySelector('table.players'); if (p) out.players = rows(p);
document.querySelectorAll('details.sheet').forEach(d => {
  const t = d.querySelector('table.sheet');
  const dec = d.querySelector('.sheet-foot p.decided');
  const heads = Array.from(t.querySelectorAll('thead th')).map(th => th.textContent);
  out.sheets[d.dataset.row] = {
    head: d.querySelector('summary span.head').textContent, unit: heads[0], names: heads.slice(1),
    rows: Array.from(t.querySelectorAll('tbody tr')).map(tr => {
      const tds = Array.from(tr.querySelectorAll('td'));
      return [tds[0].textContent, tds.slice(1).map(td => [td.querySelector('span.cell').textContent,
                                                         parseInt(td.querySelector('span.run').textContent, 10)])]; }),
    totals: d.querySelector('.sheet-foot p.totals').textContent,
    result: d.querySelector('.sheet-foot p.result').textContent,
    decided: dec ? dec.textContent : null,
    played: d.querySelector('.sheet-foot p.played').textContent}; });
const n = document.getElementById('notes'); if (n) out.notes = Array.from(n.querySelectorAll('p')).map(x => x.textContent);
return out;
"""


# --- the comparison -------------------------------------------------------------
def check_against_cli(page, db, devices_dbs=None):
    """Every number on the page against the CLI's: standings (text and JSON),
    per player, per table (speedref-results on a database of that table's
    games alone) and every score sheet (speedref-score).  Returns how many
    values were compared."""
    n = 0
    text, notes = cli_standings(db)
    js = cli_json(db)
    assert sorted(page["standings"]) == sorted(text), (sorted(page["standings"]), sorted(text))
    for game, cli_rows in text.items():
        shown = page["standings"][game]
        assert [r["player"] for r in shown] == [r["player"] for r in cli_rows], game
        for mine, cli in zip(shown, cli_rows):
            for col, value in mine.items():
                assert value == cli[col], (game, mine["player"], col, value, cli[col])
                n += 1
    for r in js["standings"]:     # names shown as the text shows them: control characters escaped
        r["player"] = printable(r["player"])
    for r in js["standings"]:
        mine = [x for x in page["standings"][r["game"]] if x["player"] == r["player"]]
        assert len(mine) == 1 and (int(mine[0]["games"]), int(mine[0]["wins"])) == (r["games"], r["wins"]), r
    # per player: the CLI's rows added up, and each game's wins
    totals, wins = {}, {}
    for r in js["standings"]:
        if not r["person"]:
            continue               # seats nobody named are nobody's: not in the players' table
        t = totals.setdefault(r["player"], [0, 0])
        t[0] += r["games"]
        t[1] += r["wins"]
        wins[r["player"], r["game"]] = str(r["wins"])
    assert dict((p["player"], [int(p["games"]), int(p["wins"])]) for p in page["players"]) == totals
    for p in page["players"]:
        for col, value in p.items():
            if col.startswith("wins "):
                assert value == wins.get((p["player"], col[5:]), "-"), (p, col)
                n += 1
    n += 2 * len(totals)
    # per table
    for key, rows in page["tables"].items():
        game, device = key.split(" ", 1)
        assert devices_dbs is not None and device in devices_dbs, key
        alone, _ = cli_standings(devices_dbs[device])
        assert rows == [dict((c, r[c]) for c in rows[0]) for r in alone[game]], key
        n += sum(len(r) for r in rows)
    # the ratings: the text report and the JSON, every number as shown
    rated = cli_ratings(db)
    assert page["ratings"] == rated, (page["ratings"], rated)
    rj = json.loads(run("speedref-results", "ratings", "--db", db, "--json"))
    for r in rj["ratings"]:
        mine = [x for x in page["ratings"][r["game"]] if x["player"] == printable(r["player"])]
        assert len(mine) == 1 and [mine[0][c] for c in ("rating", "sigma", "conservative", "games")] == [
            r["rating"], r["sigma"], r["conservative"], str(r["games"])], r
        n += 4
    # the rows left out, each named as the CLI names it, and the unlinked slaps' line
    assert page["notes"] == notes, (page["notes"], notes)
    # every score sheet
    for row, sheet in page["sheets"].items():
        cli = cli_sheet(db, row)
        assert sheet == cli, (row, sheet, cli)
        n += sum(len(cells) for _, cells in sheet["rows"])
    return n
