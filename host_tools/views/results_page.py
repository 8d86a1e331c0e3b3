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
import http.server
import socket
import threading

import pygal
from markupsafe import Markup
from pygal.etree import etree
from pygal.style import Style
from pygal.util import text_len, truncate

from speedref import games

from host_tools import jsonin
from host_tools.club import evening, people, ratings, standings
from host_tools.club.db import DatabaseProblem
from host_tools.views import evening_page, report, scoresheet, templating

TEMPLATE = "results.html"
# No script, no network: styles inline, pictures only as data: URLs.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
HOST = "127.0.0.1"          # --serve answers this machine only
DEFAULT_PORT = 8080
SERVE_REFRESH_S = 30        # a served page without scripts reloads itself this often (<noscript>)
EVENTS_POLL_S = 1.0         # --serve looks for new games this often for its live pages (/events)
EVENTS_KEEPALIVE_S = 15.0   # and says it is still there this often when nothing is new
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


def _title(game_id):
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


def _score_means(game_id):
    """What a game's "avg score" counts and which way is better (its card
    level's SCORE), or None for a game this speedref does not know."""
    try:
        engine = games.load(games.get(game_id).cards, "speedref.engine")
    except (games.UnknownGame, games.MissingGame, ImportError):
        return None
    means = getattr(engine, "SCORE", None)
    return "avg score: " + means if means else None


def _has_bonus(game_id):
    """Does the game's standings table have the "perfect" column (its
    registry entry names a bonus its sheet counts: Speed Run's)?"""
    try:
        return games.get(game_id).bonus is not None
    except games.UnknownGame:
        return False


def _margin(us):
    return "-" if us is None else "%.1f ms" % (us / 1000)


def standings_cells(row):
    """A standings row as the text report shows it (speedref-results)."""
    return {"player": jsonin.printable(row["player"]), "shown": short_name(jsonin.printable(row["player"])),
            "games": str(row["games"]), "wins": str(row["wins"]),
            "average_score": report.cell(row["average_score"]),
            "perfect_bonuses": report.cell(row["perfect_bonuses"]),
            "slap_wins": str(row["slap_wins"]), "median_margin": _margin(row["median_margin_us"]),
            "person": row.get("person", True)}


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


def rating_cells(game, rows, boards):
    """A game's ratings as speedref-results ratings prints them."""
    return [{"player": jsonin.printable(r["player"]), "shown": short_name(jsonin.printable(r["player"])),
             "rating": r["rating"], "sigma": r["sigma"], "conservative": r["conservative"],
             "games": str(r["games"]), "provisional": ratings.yes_no(r["provisional"])}
            for r in rows if r["game"] == game]


RATING_LINES = 8          # the chart follows the best 8 by the table's order (the rest are in the table)
RATING_POINTS = 150       # and draws at most ~150 points a line: every n-th game and the last (a season
                          # of 1,250 games a person drew in 10 s, for a line no wider than 500 px)


def rating_chart(game, boards, colors):
    """Each person's rating (mu) after each rated game of this game, the
    best RATING_LINES of them: a line a person, over the games they played.
    colors: {person key: colour}."""
    b = boards[game]
    order = sorted(b.rating, key=lambda k: (-(b.rating[k].mu - 3 * b.rating[k].sigma), -b.rating[k].mu, k))
    shown = b.shown
    many = b.rated > 40
    c = pygal.XY(style=_style([colors[k] for k in order[:RATING_LINES]]),
                 js=[], width=CHART_WIDTH, margin=10, title="Rating after each game", explicit_size=True,
                 x_title="games rated", dots_size=2 if many else 4, show_dots=not many,
                 **legend_under([jsonin.printable(shown[k]) for k in order[:RATING_LINES]]),
                 truncate_legend=NAME_CHARS, min_scale=3, max_scale=6,
                 x_value_formatter=lambda x: "%d" % x, value_formatter=lambda y: ratings.number(y))
    c.x_labels = count_ticks(b.rated)      # whole games: pygal would tick a short season at halves
    for k in order[:RATING_LINES]:
        h = b.history[k]      # from the newcomer's rating, just before their first game
        step = -(-len(h) // RATING_POINTS)
        drawn = h[::step] + ([h[-1]] if (len(h) - 1) % step else [])
        c.add(jsonin.printable(shown[k]), [(h[0][0] - 1, ratings.MODEL.rating().mu)] + [(n, mu) for n, mu, _ in drawn])
    return svg(c)


# --- the page's contents ------------------------------------------------------
def page_data(db, evening=None):
    """Everything the template shows, as plain values (strings as a device
    sent them, control characters escaped).  `evening`: the evening the
    Evening view shows (host_tools/club/evening.py), by default the latest
    one; False: none."""
    skipped = []
    rows, unlinked = standings.standings(db, skipped)       # in SQL, from the games' summaries
    boards = ratings.stored_boards(db)                       # as kept (ratings.settle before the page)
    rating_rows = ratings.rows_of(boards, standings.names(db))
    # the rows the standings counted, and only those: a row they skip (not
    # JSON, or refused by the rules) is named in the notes, as the CLI names it
    left_out = set(s["row"] for s in skipped if s["table"] == "games")
    stored = []
    for row_id, text in db.game_rows():
        if row_id not in left_out:
            stored.append((row_id, jsonin.loads(text)))
    # the registry's order (Speed first), then any game it does not know
    game_ids = sorted(set(r["game"] for r in rows),
                      key=lambda g: (games.IDS.index(g) if g in games.IDS else len(games.IDS), g))
    # one colour per person on every chart, in the order of the standings
    # (keyed by the person, not a spelling: a sheet names them as entered)
    persons = list(dict.fromkeys(people.key(r["player"]) for r in rows if r["person"]))
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
            "id": g, "title": _title(g), "games": sum(len(v) for v in devices.values()),
            "bonus": _has_bonus(g), "score_means": _score_means(g), "rows": [standings_cells(r) for r in mine], "tables": tables,
            "chart": wins_chart("Wins", [jsonin.printable(n) for n in names], [r["wins"] for r in mine],
                                [color[people.key(n)] if r["person"] else UNNAMED_COLOR
                                 for n, r in zip(names, mine)]),
            "ratings": rating_cells(g, rating_rows, boards),
            "rating_chart": rating_chart(g, boards, color) if g in boards else None,
            "rated": boards[g].rated if g in boards else 0})

    # per player over every game: the standings' own counts, added up
    players = {}
    for r in rows:
        if not r["person"]:
            continue                 # seats nobody named are no player
        p = players.setdefault(r["player"], {"games": 0, "wins": 0, "by_game": {}})
        p["games"] += r["games"]
        p["wins"] += r["wins"]
        p["by_game"][r["game"]] = r["wins"]
    order = sorted(players, key=lambda n: (-players[n]["wins"], -players[n]["games"], n))
    player_rows = [{"player": jsonin.printable(n), "shown": short_name(jsonin.printable(n)), "games": players[n]["games"], "wins": players[n]["wins"],
                    "by_game": [players[n]["by_game"].get(g) for g in game_ids]} for n in order]
    chart = (players_chart([jsonin.printable(n) for n in order], [players[n]["wins"] for n in order],
                           [color[people.key(n)] for n in order]) if order else None)

    sheets = []
    for row_id, rec in reversed(stored):          # the newest game first
        sheet, summary = scoresheet.check(rec, "#%d" % row_id)   # its summary counted it: the rules accept it
        parts = scoresheet.sheet_parts(rec, sheet, summary)
        now = seated[row_id] if len(seated[row_id]) == len(parts["names"]) else [None] * len(parts["names"])
        cols = [strangers[i] if n is None else color[people.key(n)] for i, n in enumerate(now)]
        sheets.append({
            "row": row_id, "game": rec.get("game"), "device": jsonin.printable(table_of(rec)),
            "head": jsonin.printable(parts["head"]), "unit": parts["unit"][0],
            "names": [jsonin.printable(n) for n in parts["names"]],
            "rows": [(jsonin.printable(label), [(jsonin.printable(c), t) for c, t in cells])
                     for label, cells in parts["rows"]],
            "totals": [(jsonin.printable(n), t) for n, t in parts["totals"]],
            "result": jsonin.printable(parts["result"]),
            "decided": jsonin.printable(parts["decided"]) if parts["decided"] else None,
            "played": parts["played"], "open": len(sheets) < OPEN_SHEETS,
            "chart": running_chart(parts, cols) if parts["rows"] and len(sheets) < CHARTED_SHEETS else None})

    devices = sorted(set(table_of(rec) for _, rec in stored))
    return {"evening": evening_view(db, evening), "provisional_games": ratings.PROVISIONAL_GAMES,
            "sections": sections, "rated": [x for x in sections if x["ratings"]], "model": ratings.MODEL_NAME,
            "game_ids": game_ids, "game_titles": [_title(g) for g in game_ids], "players": player_rows,
            "players_chart": chart, "sheets": sheets, "skipped": [skipped_line(x) for x in skipped],
            "unlinked": unlinked,
            "count": len(stored), "devices": [jsonin.printable(d) for d in devices]}


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
    ids = sorted(set(r["game"] for r in t.standings),
                 key=lambda g: (games.IDS.index(g) if g in games.IDS else len(games.IDS), g))
    data["games"] = [{"id": g, "title": _title(g), "bonus": _has_bonus(g), "score_means": _score_means(g),
                      "games": sum(1 for x in t.placement.placed() if x.record.get("game") == g),
                      "rows": [standings_cells(r) for r in t.standings if r["game"] == g]} for g in ids]
    return data


def file_name(path):
    """A database's file name without its folders (split at either slash, a
    Windows path too): the page is on a screen the whole room sees, and a
    person's home folder is none of its business."""
    return str(path).replace("\\", "/").rsplit("/", 1)[-1]


def render(db, source="", refresh_s=None, now=None, version=None, evening=None, url=None):
    """(the page as one HTML string, the lines naming the rows left out).
    source: the database, named on the page by its file name alone.
    version: the served page's (what /events says), which makes it live;
    evening: the evening its Evening view shows (page_data); url: the
    address it is served at, shown as a QR code in the Evening view."""
    now = now or datetime.datetime.now().astimezone()
    data = page_data(db, evening)
    text = templating.environment().get_template(TEMPLATE).render(
        csp=CSP if version is None else LIVE_CSP, live_js=LIVE_JS if version is not None else None,
        qr=evening_page.qr_data_uri(url) if url and data["evening"] else None, url=url,
        version=version, source=jsonin.printable(file_name(source)), refresh_s=refresh_s,
        generated=now.strftime("%Y-%m-%d %H:%M"), **data)
    return text, data["skipped"]


# --- --serve ----------------------------------------------------------------
class _Handler(http.server.BaseHTTPRequestHandler):
    open_db = None        # set by make_server(): () -> a ResultsDB to read and close
    source = ""
    url = None            # the address the room opens (its QR code is on the page)
    evening = None        # which evening the Evening view and /round show (None: the latest)
    public = False        # served beyond this machine: no file path in any answer
    made = None           # [(games, slaps, changes) stored, the page made from them]: screens reload
                          # the page every 30 s, and most of the time nothing new was stored

    def handle(self):
        # a client that goes away before its answer (a screen reloading, a
        # browser closing its tab) ends its connection, no traceback
        try:
            http.server.BaseHTTPRequestHandler.handle(self)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True

    def do_HEAD(self):
        self.do_GET()            # the same status and headers; _send leaves the body out

    def send_error(self, code, message=None, explain=None):
        """An error answer: the status's own words only (never the request's
        text, which may hold anything), with the pages' headers."""
        phrase = self.responses.get(code, ("Error",))[0]
        self._send(code, ("%d %s\n" % (code, phrase)).encode("ascii"), "text/plain; charset=utf-8",
                   phrase=phrase)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/events":
            return self._events()
        if path == "/round":
            return self._round()
        if path not in ("/", "/index.html"):
            return self._send(404, b"not found\n", "text/plain; charset=utf-8")
        try:
            db = self.open_db()
            try:
                ratings.settle(db)       # what is due rated once and kept, not at every page
                # rows are only ever added (a game with its slaps, in one
                # transaction; a change to names, or its undo), so the counts
                # say whether anything changed
                with db.snapshot():      # the counts and the page: one moment's database
                    key = stored_key(db)
                    cached = self.made[0]
                    if cached is None or cached[0] != key:
                        cached = self.made[0] = (key, render(db, self.source, refresh_s=SERVE_REFRESH_S,
                                                             version=version_of(key), evening=self.evening,
                                                             url=self.url if self.public else None)[0]
                                                      .encode("utf-8"))
                body = cached[1]
            finally:
                db.close()
        except DatabaseProblem as e:
            return self._problem(e)
        self._send(200, body, "text/html; charset=utf-8", csp=LIVE_CSP)

    def _round(self):
        """/round: the current round's printable page (evening_page.round_page)."""
        try:
            db = self.open_db()
            try:
                ratings.settle(db)      # the evening's table breaks ties by the ratings kept
                with db.snapshot():
                    try:
                        ev = evening.find(db, self.evening)
                        t = evening.tonight(db, ev)
                    except evening.Refused:
                        t = None
                    if t is None or not t.rounds:
                        return self._send(404, b"no round yet\n", "text/plain; charset=utf-8")
                    body = evening_page.round_page(t, t.rounds[-1], datetime.datetime.now().astimezone()
                                                   .strftime("%Y-%m-%d %H:%M")).encode("utf-8")
            finally:
                db.close()
        except DatabaseProblem as e:
            return self._problem(e)
        self._send(200, body, "text/html; charset=utf-8", csp=evening_page.CSP)

    def _events(self):
        """Server-sent events: the database's version now, then again each
        time it changes (looked at every EVENTS_POLL_S), until the client
        goes or the server stops."""
        try:
            db = self.open_db()
        except DatabaseProblem as e:
            return self._problem(e)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.close_connection = True
            if self.command == "HEAD":
                return
            shown, quiet = None, 0.0
            stopping = getattr(self.server, "stopping", None) or threading.Event()
            while not stopping.is_set():
                try:
                    with db.snapshot():
                        version = version_of(stored_key(db))
                except DatabaseProblem:
                    version = shown  # a busy moment: asked again at the next look
                if version != shown:
                    self.wfile.write(("retry: 2000\ndata: %s\n\n" % version).encode("ascii"))
                    shown, quiet = version, 0.0
                elif quiet >= EVENTS_KEEPALIVE_S:
                    self.wfile.write(b": still here\n\n")
                    quiet = 0.0
                self.wfile.flush()
                stopping.wait(EVENTS_POLL_S)
                quiet += EVENTS_POLL_S
        finally:
            db.close()

    def _problem(self, e):
        """A database that cannot be read: its one line, the database named
        by its file name as the page names it; served to the room, not named
        at all."""
        if self.public:
            text = "the results database cannot be read just now"
        else:
            text = str(e).replace(self.source, file_name(self.source)) if self.source else str(e)
        return self._send(500, (jsonin.printable(text) + "\n").encode("utf-8"), "text/plain; charset=utf-8")

    def _send(self, status, body, ctype, phrase=None, csp=CSP):
        self.send_response(status, phrase)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", csp)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD" and status >= 200 and status not in (204, 304):
            self.wfile.write(body)

    def log_message(self, *a):
        pass


def stored_key(db):
    """What the database holds, counted: games, slaps and changes to names
    are only ever added (an undo is a change too), so equal counts mean the
    same page (changes: how many made, how many undone)."""
    return (db.count_games(), db.count_slaps()) + tuple(db.count_changes())


def version_of(key):
    """The database's version as the live page and /events name it."""
    return "-".join("%d" % n for n in key)


def qr_for_terminal(url):
    """The QR code of `url` in Unicode blocks, or a line saying where it is
    when this terminal's encoding cannot draw them."""
    import sys
    text = evening_page.qr_text(url)
    try:
        text.encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return "(this terminal cannot draw the QR code: the page shows it, under the Evening view)"
    return text


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *a):
        self.stopping = threading.Event()  # ends the /events streams
        http.server.ThreadingHTTPServer.__init__(self, *a)

    def shutdown(self):
        self.stopping.set()
        http.server.ThreadingHTTPServer.shutdown(self)

    def server_close(self):
        self.stopping.set()
        http.server.ThreadingHTTPServer.server_close(self)


def loopback(host):
    """Does an address answer this machine only?"""
    return host in ("localhost", "::1") or host.startswith("127.")


def make_server(open_db, source="", port=DEFAULT_PORT, host=HOST, evening=None):
    """A server on host:port (127.0.0.1 unless the organiser names another
    address; port 0: any free port) answering with the page from open_db():
    made again when a game or slap was stored since the page it made last,
    else that page; /events tells a page on screen when to take the new one
    (server-sent events); /round is the current round's printable page.
    Served beyond this machine, no answer names the database's file."""
    public = not loopback(host)
    cls = _Server6 if ":" in host else _Server
    srv = cls((host, port), type("Handler", (_Handler,), {
        "open_db": staticmethod(open_db), "source": "" if public else source, "made": [None],
        "evening": evening, "public": public}))
    srv.RequestHandlerClass.url = page_url(host, srv.server_address[1])
    return srv


def page_url(host, port):
    """The address people type or scan: for a server on every address
    (0.0.0.0, ::), this machine's address on the network it would reach
    the room by."""
    if host in ("0.0.0.0", "::", ""):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect(("192.0.2.1", 9))     # no packet is sent: this only picks the interface
                host = s.getsockname()[0]
        except OSError:
            host = "127.0.0.1"
    return "http://%s:%d/" % ("[%s]" % host if ":" in host else host, port)


def serve(srv, out=print):
    """Serve until Ctrl-C: 0, or 2 when the line saying where could not be
    written (out() said so on stderr; the page is served all the same).
    Served to the room, the address is printed with its QR code."""
    handler = getattr(srv, "RequestHandlerClass", _Handler)
    url = handler.url or page_url(*srv.server_address[:2])
    if handler.public:
        said = out("serving the results page to the room on %s (read-only); Ctrl-C stops" % url)
        said = said or out(qr_for_terminal(url))
    else:
        said = out("serving the results page on %s (this machine only); Ctrl-C stops" % url)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    return 2 if said else 0


class _Server6(_Server):
    address_family = socket.AF_INET6
