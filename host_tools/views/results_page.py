"""The results page: the standings, every game's score sheet and charts, from
the results database, as one self-contained HTML file.

    speedref-results --html FILE      write the page (opens offline, from file://)
    speedref-results --serve          serve it on 127.0.0.1 only, made again when
                                      something new was stored

Nothing here scores a game.  The standings are host_tools.club.standings.standings
(the table speedref-results prints) and the ratings host_tools.club.ratings' kept
ones, both read from the games' summaries; a score sheet is
host_tools.views.scoresheet's sheet_parts (what speedref-score prints),
replaying its record through the engine's rules (records.replay).  The page lays them out: a Jinja2 template
(templates/results.html, autoescaped) and pygal's SVG charts, inlined, so the
file needs no network and no script.

Every string a device sent (player names, record and device ids) is
untrusted: control characters are escaped as the text output escapes them
(jsonin.printable), Jinja2 HTML-escapes it in the page and pygal XML-escapes it
in a chart.  The charts' own script (pygal's tooltip configuration) is removed,
and the page's Content-Security-Policy allows no script at all, so whatever a
name holds, nothing in the page runs.
"""
import base64
import colorsys
import datetime
import hashlib

import pygal
from markupsafe import Markup
from pygal.etree import etree
from pygal.style import Style
from pygal.util import text_len, truncate

from speedref import games

from host_tools import jsonin
from host_tools.club import evening, people, ratings, standings, summary
from host_tools.views import evening_page, report, scoresheet, templating

TEMPLATE = "results.html"
# No script, no network: styles inline, pictures only as data: URLs.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
SERVE_REFRESH_S = 30        # a served page without scripts reloads itself this often (<noscript>)
# The served page's one script: it listens to /events (server-sent events,
# one "data: <version>" each time the database has something new) and puts
# the new page's body in place of the old, where the reader has scrolled to,
# with no reload.  Allowed by its hash alone (LIVE_CSP), like nothing else.
LIVE_JS = """(function () {
  var shown = document.documentElement.getAttribute("data-version");
  var events = new EventSource("/events");
  events.onmessage = function (e) {
    if (e.data === shown) return;
    shown = e.data;
    fetch("/", {cache: "no-store"}).then(function (r) { return r.text(); }).then(function (text) {
      var page = new DOMParser().parseFromString(text, "text/html");
      var x = window.scrollX, y = window.scrollY;
      document.body.replaceWith(document.adoptNode(page.body));
      document.documentElement.setAttribute("data-version", page.documentElement.getAttribute("data-version"));
      window.scrollTo(x, y);
    });
  };
})();"""
LIVE_CSP = CSP + "; script-src 'sha256-%s'; connect-src 'self'" % base64.b64encode(
    hashlib.sha256(LIVE_JS.encode()).digest()).decode()
OPEN_SHEETS = 3             # the newest games' sheets are shown open, older ones folded
CHARTED_SHEETS = 30         # and the newest games' sheets get a running-totals chart: a chart
                            # costs ~12 KB and ~12 ms, a season's thousand games would be 12 MB
NO_DEVICE = people.NO_DEVICE   # the table of a record without an id or a "table"

# One colour per person on every chart (Okabe and Ito's colour-blind safe
# set, then a few more, then colours()'s), in the order people first appear
# in the standings, whatever they are called now; a sheet's seats nobody
# named take colours after every person's.  No chart draws two players alike.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9",
           "#000000", "#8C564B", "#7F7F7F", "#17BECF", "#BCBD22", "#F0E442")
GOLDEN = 0.381966           # a golden angle, as a part of the colour wheel: hues that never repeat
UNNAMED_COLOR = "#9aa3ad"   # the standings' one row of every seat nobody named
# A name is shown whole up to NAME_CHARS characters, else cut to its first
# NAME_CHARS - 1 and "…" (pygal's own rule, so the tables and the charts cut
# alike); the whole name is in the tooltip (a title) either way.
NAME_CHARS = 24
# Every chart is drawn CHART_WIDTH wide with 15 px text and shown at that
# size (its width and height are the SVG's own), never larger; a narrower
# screen shrinks it, and down to 336 px (a 390 px phone gives a chart 352)
# its smallest text is still 12 px tall.
CHART_WIDTH = 420
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"


device_of = people.device_of
table_of = people.table_of     # the per-table view: the record's "table", else its device


def skipped_line(s):
    """A row the standings left out, as speedref-results names it on stderr."""
    return jsonin.printable("skipped: %s row #%d: %s" % (s["table"], s["row"], s["why"]))


def title_of(game_id):
    try:
        return games.get(game_id).title
    except games.UnknownGame:
        return jsonin.printable(game_id)


def colours(n):
    """n different colours: PALETTE, then hues a golden angle apart, dark
    and light in turn (a hue already taken, at 8 bits a channel, moves on to
    the next colour nobody has)."""
    out = list(PALETTE[:n])
    seen = set(out)
    i = 0
    while len(out) < n:
        rgb = colorsys.hls_to_rgb((i * GOLDEN) % 1.0, (0.38, 0.55)[i % 2], 0.7)
        c = sum(round(x * 255) << shift for x, shift in zip(rgb, (16, 8, 0)))
        while "#%06X" % c in seen:
            c = (c + 1) % 0x1000000
        seen.add("#%06X" % c)
        out.append("#%06X" % c)
        i += 1
    return out


def short_name(name):
    """A name as the page shows it (NAME_CHARS): whole, or cut with "…"."""
    return truncate(name, NAME_CHARS)


def score_means(game_id):
    """What a game's "avg score" counts and which way is better (its card
    level's SCORE), or None for a game this speedref does not know."""
    try:
        engine = games.load(games.get(game_id).cards, "speedref.engine")
    except (games.UnknownGame, games.MissingGame, ImportError):
        return None
    means = getattr(engine, "SCORE", None)
    return "avg score: " + means if means else None


def has_bonus(game_id):
    """Does the game's standings table have the "perfect" column (its
    registry entry names a bonus its sheet counts: Speed Run's)?"""
    try:
        return games.get(game_id).bonus is not None
    except games.UnknownGame:
        return False


def _margin(us):
    return "-" if us is None else "%.1f ms" % (us / 1000)


def standings_cells(row, place=None, href=None):
    """A standings row as the text report shows it (speedref-results);
    `place`: its place in its game's standings (1: the leader), `href`:
    where its person's page is (served pages only)."""
    return {"player": jsonin.printable(row["player"]), "shown": short_name(jsonin.printable(row["player"])),
            "games": str(row["games"]), "wins": str(row["wins"]),
            "average_score": report.cell(row["average_score"]),
            "perfect_bonuses": report.cell(row["perfect_bonuses"]),
            "slap_wins": str(row["slap_wins"]), "median_margin": _margin(row["median_margin_us"]),
            "person": row.get("person", True), "place": place, "href": href}


# --- charts -----------------------------------------------------------------
def _style(colors):
    return Style(background="transparent", plot_background="transparent", font_family=FONT,
                 foreground="#222", foreground_strong="#111", foreground_subtle="#bbb",
                 colors=tuple(colors) or PALETTE[:1], label_font_size=15, major_label_font_size=15,
                 value_font_size=15, legend_font_size=15, title_font_size=17, tooltip_font_size=14,
                 value_label_font_size=15, opacity=".9", opacity_hover=".9")


def _tag(el):
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else None


def svg(chart, names=()):
    """A pygal chart as inline SVG, without its script (pygal's tooltip
    configuration, which needs pygal.js from the network anyway).  `names`:
    the whole names of a chart whose labels are short_name()s (pygal cuts a
    horizontal chart's labels only on its other axis, and sizes the plot by
    the labels it is given): each cut label gets its whole name in a title,
    and each bar's label is the whole name."""
    root = chart.render_tree()
    whole = dict((short_name(n), n) for n in reversed(names) if short_name(n) != n)
    for parent in list(root.iter()):
        for child in list(parent):
            if _tag(child) == "script":
                parent.remove(child)
            elif child.text in whole and parent.get("class") == "guides" and _tag(child) == "text":
                etree.SubElement(parent, "title").text = whole[child.text]
            elif child.text in whole and child.get("class") == "x_label" and _tag(child) == "desc":
                child.text = whole[child.text]
    return Markup(etree.tostring(root, encoding="unicode"))


def count_ticks(top):
    """Whole-number ticks from 0 past `top`, a step of 1, 2 or 5 times a power
    of ten, so that there are at most 7 of them (counts have no fractions)."""
    top = max(top, 1)
    step, power = 1, 1
    while top > 6 * step:
        for m in (1, 2, 5):
            step = m * power
            if top <= 6 * step:
                break
        else:
            power *= 10
    return list(range(0, top + step, step)) if top % step else list(range(0, top + 1, step))


def wins_chart(title, names, wins, colors):
    """A bar per player: wins, printed on the bar."""
    c = pygal.HorizontalBar(style=_style(["#0072B2"]), js=[], width=CHART_WIDTH, height=60 + 34 * len(names),
                            explicit_size=True, show_legend=False, print_values=True, print_zeroes=True, title=title,
                            min_scale=1, max_scale=8, margin=10, spacing=8, truncate_label=NAME_CHARS,
                            value_formatter=lambda v: "%d" % v)
    # pygal draws the first label at the bottom: reversed, the leader is on top
    c.x_labels = [short_name(n) for n in reversed(names)]
    c.y_labels = count_ticks(max(wins or [0]))
    c.add("wins", [{"value": w, "color": col} for w, col in reversed(list(zip(wins, colors)))])
    return svg(c, names)


def players_chart(names, wins, colors):
    """Wins per player over every game: a bar per player in the player's own
    colour (each game's share is in the table beside it)."""
    c = pygal.HorizontalBar(style=_style(["#0072B2"]), js=[], width=CHART_WIDTH, height=90 + 34 * len(names),
                            explicit_size=True, title="Wins per player, every game", show_legend=False, print_values=True,
                            print_zeroes=True, min_scale=1, max_scale=8, margin=10, spacing=8,
                            truncate_label=NAME_CHARS, value_formatter=lambda v: "%d" % v)
    c.x_labels = [short_name(n) for n in reversed(names)]
    c.y_labels = count_ticks(max(wins or [0]))
    c.add("wins", [{"value": w, "color": col} for w, col in reversed(list(zip(wins, colors)))])
    return svg(c, names)


PLOT_HEIGHT = 250        # a line chart's height without its legend; each row of the legend adds LEGEND_ROW
LEGEND_ROW = 23


def legend_under(names):
    """pygal's options for a legend under a line chart: as many columns as
    its longest name (cut at NAME_CHARS) fits side by side, a number that
    divides the lines evenly (pygal makes room for lines // columns rows),
    and the chart as much taller as its legend has rows."""
    longest = max([len(short_name(n)) for n in names] + [1])
    fits = int((CHART_WIDTH - 90) // (text_len(longest, 15) + 30))   # the plot's width: less the axis, a box and a gap
    cols = max([c for c in range(1, max(1, min(fits, len(names))) + 1) if len(names) % c == 0] + [1])
    return {"legend_at_bottom": True, "legend_at_bottom_columns": cols, "margin_bottom": 16,   # the last row's descenders
            "height": PLOT_HEIGHT + LEGEND_ROW * -(-len(names) // cols)}


def running_chart(parts, colors):
    """The running totals through a game's rows (deals, rounds, hands)."""
    c = pygal.Line(style=_style(colors), js=[], width=CHART_WIDTH, margin=10, explicit_size=True,
                   title="Running totals", x_title=parts["unit"][1], dots_size=4, truncate_legend=NAME_CHARS,
                   min_scale=3, max_scale=6, **legend_under([jsonin.printable(n) for n in parts["names"]]))
    c.x_labels = [str(i + 1) for i in range(len(parts["rows"]))]
    for col, name in enumerate(parts["names"]):
        c.add(jsonin.printable(name), [cells[col][1] for _, cells in parts["rows"]])
    return svg(c)


def rating_cells(game, rows, boards, href=None):
    """A game's ratings as speedref-results ratings prints them; href(row):
    where its person's page is (served pages only)."""
    return [{"player": jsonin.printable(r["player"]), "shown": short_name(jsonin.printable(r["player"])),
             "rating": r["rating"], "sigma": r["sigma"], "conservative": r["conservative"],
             "games": str(r["games"]), "provisional": ratings.yes_no(r["provisional"]), "place": i + 1,
             "href": href(r) if href else None}
            for i, r in enumerate(x for x in rows if x["game"] == game)]


RATING_LINES = 8          # the chart follows the best 8 by the table's order (the rest are in the table)
RATING_POINTS = 150       # and draws at most ~150 points a line: every n-th game and the last (a season
                          # of 1,250 games a person drew in 10 s, for a line no wider than 500 px)


def rating_chart(game, boards, colors, keys=None):
    """Each person's rating (mu) after each rated game of this game, the
    best RATING_LINES of them (or the people `keys`): a line a person, over
    the games they played.  colors: {person key: colour}."""
    b = boards[game]
    if keys is None:
        order = sorted(b.rating, key=lambda k: (-(b.rating[k].mu - 3 * b.rating[k].sigma), -b.rating[k].mu, k))
        keys = order[:RATING_LINES]
    shown = b.shown
    many = b.rated > 40
    c = pygal.XY(style=_style([colors[k] for k in keys]),
                 js=[], width=CHART_WIDTH, margin=10, title="Rating after each game", explicit_size=True,
                 x_title="games rated", dots_size=2 if many else 4, show_dots=not many,
                 **legend_under([jsonin.printable(shown[k]) for k in keys]),
                 truncate_legend=NAME_CHARS, min_scale=3, max_scale=6,
                 x_value_formatter=lambda x: "%d" % x, value_formatter=lambda y: ratings.number(y))
    c.x_labels = count_ticks(b.rated)      # whole games: pygal would tick a short season at halves
    for k in keys:
        h = b.history[k]      # from the newcomer's rating, just before their first game
        step = -(-len(h) // RATING_POINTS)
        drawn = h[::step] + ([h[-1]] if (len(h) - 1) % step else [])
        c.add(jsonin.printable(shown[k]), [(h[0][0] - 1, ratings.MODEL.rating().mu)] + [(n, mu) for n, mu, _ in drawn])
    return svg(c)


# --- the page's contents ------------------------------------------------------
class Span:
    """The games a page covers, when not every game: those stored since a
    date (`since`, YYYY-MM-DD, from local midnight), or one evening's
    results (`evening`, an Evening: the games placed in its rounds)."""

    def __init__(self, since=None, evening=None):
        self.since, self.evening = since, evening

    @property
    def label(self):
        if self.evening is not None:
            return "%s, %s" % (jsonin.printable(self.evening.name), self.evening.date)
        return "stored since %s" % self.since

    def rows(self, db):
        """The row numbers of the games it covers."""
        if self.evening is not None:
            return set(g.row for g in evening.tonight(db, self.evening).placement.placed())
        return set(r for r, in db.query("SELECT game_ref FROM game_summary WHERE ord >= ?",
                                        (summary.arrived_from(evening.moment_of(self.since)),)))


def page_data(db, evening=None, span=None):
    """Everything the template shows, as plain values (strings as a device
    sent them, control characters escaped).  `evening`: the evening the
    Evening view shows (host_tools/club/evening.py), by default the latest
    one; False: none.  `span` (a Span): the games the standings, players,
    tables and sheets cover (None: every game); the ratings are every
    game's, as they stand."""
    skipped = []
    here = None if span is None else span.rows(db)
    rows, unlinked = standings.standings(db, skipped, rows=here)   # in SQL, from the games' summaries
    boards = ratings.stored_boards(db)                              # as kept (ratings.settle before the page)
    rating_rows = ratings.rows_of(boards, standings.names(db))
    # the rows the standings counted, and only those: a row they skip (not
    # JSON, or refused by the rules) is named in the notes, as the CLI names it
    left_out = set(s["row"] for s in skipped if s["table"] == "games")
    stored = []
    for row_id, text in db.game_rows():
        if row_id not in left_out and (here is None or row_id in here):
            stored.append((row_id, jsonin.loads(text)))
    # the registry's order (Speed first), then any game it does not know
    game_ids = sorted(set(r["game"] for r in rows),
                      key=lambda g: (games.IDS.index(g) if g in games.IDS else len(games.IDS), g))
    # one colour per person on every chart, in the order of the standings
    # (keyed by the person, not a spelling: a sheet names them as entered)
    persons = list(dict.fromkeys(people.key(r["player"]) for r in rows if r["person"]))
    persons += [k for k in dict.fromkeys(k for b in boards.values() for k in b.rating)   # rated, not in the span
                if k not in set(persons)]
    seated = standings.seated(db)          # who each seat is now (None: nobody named)
    palette = colours(len(persons) + max((len(n) for n in seated.values()), default=0))
    color = dict(zip(persons, palette))
    strangers = palette[len(persons):]     # a sheet's seats nobody named, a colour a seat

    by_device = {}
    for row_id, rec in stored:
        by_device.setdefault(rec.get("game"), {}).setdefault(table_of(rec), []).append(row_id)

    sections = []
    for g in game_ids:
        mine = [r for r in rows if r["game"] == g]
        names = [r["player"] for r in mine]
        devices = by_device.get(g, {})
        tables = []
        if len(devices) > 1:
            for dev in sorted(devices):
                sub, _ = standings.standings(db, [], rows=devices[dev])
                tables.append({"device": jsonin.printable(dev), "games": len(devices[dev]),
                               "rows": [standings_cells(r) for r in sub if r["game"] == g]})
        sections.append({
            "id": g, "title": title_of(g), "games": sum(len(v) for v in devices.values()),
            "bonus": has_bonus(g), "score_means": score_means(g), "tables": tables, "links": None, "pages": None,
            "rows": [standings_cells(r, i + 1) for i, r in enumerate(mine)], "rating_pages": None,
            "chart": wins_chart("Wins", [jsonin.printable(n) for n in names], [r["wins"] for r in mine],
                                [color[people.key(n)] if r["person"] else UNNAMED_COLOR
                                 for n, r in zip(names, mine)]),
            "ratings": rating_cells(g, rating_rows, boards),
            "rating_chart": rating_chart(g, boards, color) if g in boards else None,
            "rated": boards[g].rated if g in boards else 0})

    player_rows_ = player_rows(rows)
    chart = (players_chart([p["player"] for p in player_rows_], [p["wins"] for p in player_rows_],
                           [color[p["key"]] for p in player_rows_]) if player_rows_ else None)

    sheets = []
    for row_id, rec in reversed(stored):          # the newest game first
        sheets.append(sheet_data(row_id, rec, seated[row_id], color, strangers, open_=len(sheets) < OPEN_SHEETS,
                                 chart=len(sheets) < CHARTED_SHEETS))

    devices = sorted(set(table_of(rec) for _, rec in stored))
    return {"evening": evening_view(db, evening), "provisional_games": ratings.PROVISIONAL_GAMES,
            "sections": sections, "rated": [x for x in sections if x["ratings"]], "model": ratings.MODEL_NAME,
            "game_ids": game_ids, "game_titles": [title_of(g) for g in game_ids], "players": player_rows_,
            "players_chart": chart, "players_pages": None, "sheets": sheets, "skipped": [skipped_line(x) for x in skipped],
            "unlinked": unlinked,
            "count": len(stored), "devices": [jsonin.printable(d) for d in devices]}


def player_rows(rows):
    """Per player over every game: the standings' own counts added up, the
    most wins first ({player, shown, key, games, wins, by_game: wins in each
    game of the standings, place})."""
    game_ids = sorted(set(r["game"] for r in rows),
                      key=lambda g: (games.IDS.index(g) if g in games.IDS else len(games.IDS), g))
    players = {}
    for r in rows:
        if not r["person"]:
            continue                 # seats nobody named are no player
        p = players.setdefault(r["player"], {"games": 0, "wins": 0, "by_game": {}})
        p["games"] += r["games"]
        p["wins"] += r["wins"]
        p["by_game"][r["game"]] = r["wins"]
    order = sorted(players, key=lambda n: (-players[n]["wins"], -players[n]["games"], n))
    return [{"player": jsonin.printable(n), "shown": short_name(jsonin.printable(n)), "key": people.key(n),
             "games": players[n]["games"], "wins": players[n]["wins"],
             "by_game": [players[n]["by_game"].get(g) for g in game_ids], "place": i + 1, "href": None}
            for i, n in enumerate(order)]


def sheet_data(row_id, rec, now, color, strangers, open_=True, chart=True):
    """A game's score sheet as the page shows it (speedref-score's parts):
    `now`, the name each seat goes by now (None: nobody named), picks each
    column's colour (color: {person key: colour}; strangers: a colour a
    seat nobody named); `open_`: shown unfolded; `chart`: with its running
    totals' chart."""
    sheet, summary = scoresheet.check(rec, "#%d" % row_id)   # the standings counted it: the rules accept it
    parts = scoresheet.sheet_parts(rec, sheet, summary)
    now = now if len(now) == len(parts["names"]) else [None] * len(parts["names"])
    cols = [strangers[i] if n is None else color[people.key(n)] for i, n in enumerate(now)]
    return {
        "row": row_id, "game": rec.get("game"), "device": jsonin.printable(table_of(rec)),
        "head": jsonin.printable(parts["head"]), "unit": parts["unit"][0],
        "names": [jsonin.printable(n) for n in parts["names"]],
        "rows": [(jsonin.printable(label), [(jsonin.printable(c), t) for c, t in cells])
                 for label, cells in parts["rows"]],
        "totals": [(jsonin.printable(n), t) for n, t in parts["totals"]],
        "result": jsonin.printable(parts["result"]),
        "decided": jsonin.printable(parts["decided"]) if parts["decided"] else None,
        "played": parts["played"], "open": open_,
        "chart": running_chart(parts, cols) if parts["rows"] and chart else None}


def evening_view(db, which):
    """The Evening view's data (evening_page.evening_data), with tonight's
    standings laid out as the standings are; None without an evening."""
    if which is False:
        return None
    try:
        ev = which if isinstance(which, evening.Evening) else evening.find(db, which)
    except evening.Refused:
        return None
    t = evening.tonight(db, ev, [])
    data = evening_page.evening_data(t)
    data["sheet_links"] = False      # the served pages link each result to its sheet
    ids = sorted(set(r["game"] for r in t.standings),
                 key=lambda g: (games.IDS.index(g) if g in games.IDS else len(games.IDS), g))
    data["games"] = [{"id": g, "title": title_of(g), "bonus": has_bonus(g), "score_means": score_means(g),
                      "games": sum(1 for x in t.placement.placed() if x.record.get("game") == g),
                      "rows": [standings_cells(r) for r in t.standings if r["game"] == g]} for g in ids]
    return data


def file_name(path):
    """A database's file name without its folders (split at either slash, a
    Windows path too): the page is on a screen the whole room sees, and a
    person's home folder is none of its business."""
    return str(path).replace("\\", "/").rsplit("/", 1)[-1]


def render(db, source="", refresh_s=None, now=None, version=None, evening=None, url=None, span=None):
    """(the page as one HTML string, the lines naming the rows left out).
    source: the database, named on the page by its file name alone.
    version: the served page's (what /events says), which makes it live;
    evening: the evening its Evening view shows (page_data); url: the
    address it is served at, shown as a QR code in the Evening view;
    span: the games it covers (a Span; None: every game)."""
    text, data = render_page(db, source, refresh_s, now, version, evening, url, span)
    return text, data["skipped"]


def render_page(db, source="", refresh_s=None, now=None, version=None, evening=None, url=None, span=None):
    """render()'s page and everything it shows (page_data)."""
    now = now or datetime.datetime.now().astimezone()
    data = page_data(db, evening, span)
    text = templating.environment().get_template(TEMPLATE).render(
        csp=CSP if version is None else LIVE_CSP, live_js=LIVE_JS if version is not None else None,
        qr=evening_page.qr_data_uri(url) if url and data["evening"] else None, url=url,
        version=version, source=jsonin.printable(file_name(source)), refresh_s=refresh_s,
        span=span.label if span is not None else None, generated=now.strftime("%Y-%m-%d %H:%M"), **data)
    return text, data
