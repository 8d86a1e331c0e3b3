"""The results pages as --serve answers them: a first screen a phone loads
at once, and the rest a page each, linked from it (host_tools/views/serve.py
serves them, each made once per change of the database).

    /                        the first screen, live: tonight (the Evening view) and
                             the standings, each game's first FIRST_ROWS rows
    /standings/GAME[?page=N] a game's standings, PAGE_ROWS a page, with the wins chart
    /tables/GAME             a game's standings at each table
    /ratings/GAME[?page=N]   a game's ratings, with the chart of the best
    /players[?page=N]        every player over every game, with the chart of their wins
    /player/KEY[?page=N]     a person: standings and ratings in each game, their
                             rating after each game, their games, newest first
    /games[?page=N]          every game, newest first, GAMES_ROWS a page
    /game/ROW                a game's score sheet, with its running totals' chart
    /evenings, /evening/N    the club nights, and one of them as its Evening view
    /notes                   the rows the standings left out
    /round                   the current round's printable page

Every page but the first is plain HTML without a script; each links to the
others by plain links, so the pages work without JavaScript.  The first
screen is kept small whatever the database holds: a count of what is behind
each link, never the list itself.  The contents are the one-file page's
(host_tools/views/results_page.py: the same cells, charts and template
parts), read for one page at a time.
"""
import datetime
import json
import math
import urllib.parse

from speedref import games as registry

from host_tools import jsonin
from host_tools.club import evening, people, ratings, standings
from host_tools.views import evening_page, results_page as P, serve, templating

HTML = "text/html; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
TEMPLATE = "page.html"
FIRST_ROWS = 12           # the first screen's rows of each game's standings (the rest: /standings/GAME)
PAGE_ROWS = 100           # a long table's rows a page (standings, ratings, players)
GAMES_ROWS = 50           # a list of games' rows a page
PREPARE_WAIT_MS = 200     # how long the server waits for another program's write to keep the ratings due


def person_href(name):
    """The address of a person's page (their key, people.key, quoted whole)."""
    return "/player/" + urllib.parse.quote(people.key(name), safe="")


def _page_number(query):
    """The ?page=N of a query (1 without one); None for anything else."""
    got = urllib.parse.parse_qs(query, keep_blank_values=True)
    if not got:
        return 1
    if set(got) != {"page"} or len(got["page"]) != 1:
        return None
    text = got["page"][0]
    if not (text.isascii() and text.isdigit()) or len(text) > 9 or int(text) < 1:
        return None
    return int(text)


def pages(total, per, at, base, newer="newer", older="older"):
    """The pager of a list of `total` rows `per` a page, at page `at` of
    the address `base`: {"at", "of", "first", "prev", "next", ...}, or None
    when the list fits one page."""
    of = max(1, math.ceil(total / per))
    if of == 1:
        return None
    link = lambda n: base if n == 1 else "%s?page=%d" % (base, n)
    return {"at": at, "of": of, "first": link(1) if at > 2 else None,
            "prev": link(at - 1) if at > 1 else None, "prev_label": newer,
            "next": link(at + 1) if at < of else None, "next_label": older}


class NotFound(Exception):
    """No such page: its one line."""


class Site:
    """The pages of one database, served to this machine or to the room
    (`public`: no file path in any answer; the QR code of `url` on the
    first screen).  `evening`: the evening the first screen and /round
    show (None: the latest)."""

    CSP = P.CSP

    def __init__(self, source="", evening=None, url=None, public=False):
        self.source = "" if public else source
        self.evening = evening
        self.url = url
        self.public = public

    def prepare(self, db):
        """Once a change, on the server's watching connection, before any
        page of it is made: the ratings due rated and kept (ratings.settle),
        not worked out again at every page.  An import holding the database
        is not waited for (PREPARE_WAIT_MS): the pages then rate what is due
        in memory, and the next change keeps it."""
        was = db.query("PRAGMA busy_timeout")[0][0]
        db.query("PRAGMA busy_timeout = %d" % PREPARE_WAIT_MS)
        try:
            ratings.settle(db)
        finally:
            db.query("PRAGMA busy_timeout = %d" % was)

    # --- addresses ---------------------------------------------------------------
    def route(self, path, query):
        """(the page's key, make(db, version) -> (status, body, type, CSP)),
        or None: no such address."""
        if path in ("/", "/index.html"):
            return ("/", self.first) if not query else None
        if path == "/round":
            return "/round", self.round
        parts = path.strip("/").split("/")
        n = _page_number(query)
        if n is None:
            return None
        key = path if n == 1 else "%s?page=%d" % (path, n)
        if len(parts) == 1:
            page = {"players": self.players, "games": self.games, "evenings": self.evenings,
                    "notes": self.notes}.get(parts[0])
            return (key, lambda db, v: page(db, n)) if page else None
        if len(parts) != 2 or not parts[1]:
            return None
        what = urllib.parse.unquote(parts[1])
        if parts[0] in ("standings", "ratings", "player"):
            page = {"standings": self.standings, "ratings": self.ratings, "player": self.player}[parts[0]]
            return key, lambda db, v: page(db, what, n)
        if n != 1:
            return None
        if parts[0] == "tables":
            return key, lambda db, v: self.tables(db, what)
        if parts[0] in ("game", "evening") and what.isascii() and what.isdigit() and len(what) <= 18:
            page = self.sheet if parts[0] == "game" else self.evening_page
            return key, lambda db, v: page(db, int(what))
        return None

    def problem_text(self, e):
        """A database that cannot be read, in one line: named by its file
        name as the page names it; served to the room, not named at all."""
        if self.public:
            return "the results database cannot be read just now"
        return str(e).replace(self.source, P.file_name(self.source)) if self.source else str(e)

    # --- the frame -----------------------------------------------------------------
    def _page(self, db, title, parts, live=False, version=None, rated_games=None, **data):
        """A page: the frame (header, nav) around the template parts `parts`
        (`rated_games`: _rated(db), when the page has read it)."""
        now = datetime.datetime.now().astimezone()
        text = templating.environment().get_template(TEMPLATE).render(
            csp=P.LIVE_CSP if live else P.CSP, live_js=P.LIVE_JS if live else None,
            version=version if live else None, refresh_s=P.SERVE_REFRESH_S if live else None,
            title=title, parts=parts, count=_counted(db), source=jsonin.printable(P.file_name(self.source)),
            generated=now.strftime("%Y-%m-%d %H:%M"), nav=self._nav(_rated(db) if rated_games is None else rated_games), **data)
        return 200, text.encode("utf-8"), HTML, P.LIVE_CSP if live else P.CSP

    def _nav(self, rated):
        """The links on every page; `rated`: the games with ratings."""
        out = [("Tonight", "/"), ("Standings", "/#standings")]
        out += [("Ratings: " + P.title_of(g), "/ratings/" + urllib.parse.quote(g, safe="")) for g in rated]
        out += [("Players", "/players"), ("Games", "/games"), ("Evenings", "/evenings")]
        return out

    def _missing(self, what):
        return 404, ("%s\n" % what).encode("utf-8"), TEXT, self.CSP

    # --- the first screen ----------------------------------------------------------------
    def first(self, db, version):
        """Tonight and the standings: each game's first FIRST_ROWS rows,
        links to everything else."""
        skipped = []
        rows, unlinked = standings.standings(db, skipped)
        counts = _game_counts(db)
        rated = _rated(db)
        sections = []
        for g in _game_ids(rows):
            mine = [r for r in rows if r["game"] == g]
            q = urllib.parse.quote(g, safe="")
            links = []
            if len(mine) > FIRST_ROWS:
                links.append(("all %d in the standings" % len(mine), "/standings/" + q))
            else:
                links.append(("wins chart", "/standings/" + q))
            if g in rated:
                links.append(("ratings", "/ratings/" + q))
            links.append(("at each table", "/tables/" + q))
            sections.append(_section(g, counts.get(g, 0), mine[:FIRST_ROWS], links=links))
        ev = P.evening_view(db, self.evening)
        if ev is not None:
            ev["sheet_links"] = True
        return self._page(db, "speedref results", ["evening.html"] * (ev is not None) + ["standings.html", "notes_link.html"],
                          live=True, version=version, rated_games=rated, evening=ev, sections=sections,
                          qr=evening_page.qr_data_uri(self.url) if self.public and self.url and ev else None,
                          url=self.url, not_counted=len(skipped), unlinked=unlinked)

    # --- a game's standings, ratings, tables ----------------------------------------------
    def standings(self, db, game, n):
        rows, _ = standings.standings(db, [])
        mine = [r for r in rows if r["game"] == game]
        if not mine:
            return self._missing("no standings of %s" % jsonin.printable(game))
        at = mine[(n - 1) * PAGE_ROWS:n * PAGE_ROWS]
        if not at:
            return self._missing("no page %d" % n)
        first = (n - 1) * PAGE_ROWS
        color = _colors(rows)
        names = [r["player"] for r in at]
        chart = P.wins_chart("Wins", [jsonin.printable(x) for x in names], [r["wins"] for r in at],
                             [color[people.key(x)] if r["person"] else P.UNNAMED_COLOR for x, r in zip(names, at)])
        q = urllib.parse.quote(game, safe="")
        s = _section(game, _game_counts(db).get(game, 0), at, first=first, chart=chart,
                     links=[("ratings", "/ratings/" + q)] * (game in _rated(db)) + [("at each table", "/tables/" + q)],
                     pages=pages(len(mine), PAGE_ROWS, n, "/standings/" + q, "before", "after"))
        return self._page(db, "%s standings" % P.title_of(game), ["standings.html"], sections=[s])

    def tables(self, db, game):
        by_table = _tables_of(db, game)
        if not by_table:
            return self._missing("no games of %s" % jsonin.printable(game))
        tables = []
        for dev in sorted(by_table):
            sub, _ = standings.standings(db, [], rows=by_table[dev])
            tables.append({"device": jsonin.printable(dev), "games": len(by_table[dev]),
                           "rows": [P.standings_cells(r, href=_href(r)) for r in sub if r["game"] == game]})
        s = dict(_section(game, sum(len(v) for v in by_table.values()), []), tables=tables)
        return self._page(db, "%s at each table" % P.title_of(game), ["tables.html"], sections=[s])

    def ratings(self, db, game, n):
        rows, boards = _ratings(db)
        if game not in boards:
            return self._missing("no ratings of %s" % jsonin.printable(game))
        cells = P.rating_cells(game, rows, boards, href=_href)
        at = cells[(n - 1) * PAGE_ROWS:n * PAGE_ROWS]
        if not at:
            return self._missing("no page %d" % n)
        s = {"id": game, "title": P.title_of(game), "rated": boards[game].rated, "ratings": at,
             "rating_chart": P.rating_chart(game, boards, _colors(standings.standings(db, [])[0])) if n == 1 else None,
             "rating_pages": pages(len(cells), PAGE_ROWS, n, "/ratings/" + urllib.parse.quote(game, safe=""),
                                   "before", "after")}
        return self._page(db, "%s ratings" % P.title_of(game), ["ratings.html"], rated=[s], model=ratings.MODEL_NAME,
                          provisional_games=ratings.PROVISIONAL_GAMES)

    # --- players ------------------------------------------------------------------------
    def players(self, db, n):
        rows, _ = standings.standings(db, [])
        every = P.player_rows(rows)
        game_ids = _game_ids(rows)
        at = every[(n - 1) * PAGE_ROWS:n * PAGE_ROWS]
        if not at and n > 1:
            return self._missing("no page %d" % n)
        color = _colors(rows)
        for p in at:
            p["href"] = person_href(p["key"])
        chart = P.players_chart([p["player"] for p in at], [p["wins"] for p in at],
                                [color[p["key"]] for p in at]) if at else None
        return self._page(db, "Players", ["players.html"], players=at, players_chart=chart, game_ids=game_ids,
                          game_titles=[P.title_of(g) for g in game_ids],
                          players_pages=pages(len(every), PAGE_ROWS, n, "/players", "before", "after"))

    def player(self, db, key, n):
        rows, _ = standings.standings(db, [])
        mine = [r for r in rows if r["person"] and people.key(r["player"]) == key]
        if not mine:
            return self._missing("nobody called %s has played" % jsonin.printable(key))
        name = mine[0]["player"]
        sections = [_section(r["game"], r["games"], [r], first=_place(rows, r) - 1) for r in mine]
        for s in sections:
            s["links"] = [("all the standings", "/standings/" + urllib.parse.quote(s["id"], safe=""))]
        rating_rows, boards = _ratings(db)
        rated = []
        color = _colors(rows)
        for g in boards:
            cells = P.rating_cells(g, rating_rows, boards)
            own = [c for c in cells if people.key(c["player"]) == key]
            if own:
                rated.append({"id": g, "title": P.title_of(g), "rated": boards[g].rated, "ratings": own,
                              "rating_pages": None,
                              "rating_chart": P.rating_chart(g, boards, {key: color.get(key, P.PALETTE[0])}, [key])})
        games, total = _games_of(db, key, n)
        if not games and n > 1:
            return self._missing("no page %d" % n)
        return self._page(db, jsonin.printable(name), ["person.html", "standings.html", "ratings.html", "game_list.html"],
                          person=jsonin.printable(name), sections=sections, rated=rated, model=ratings.MODEL_NAME,
                          provisional_games=ratings.PROVISIONAL_GAMES, games=games, games_total=total,
                          games_pages=pages(total, GAMES_ROWS, n, person_href(name)))

    # --- games ----------------------------------------------------------------------------
    def games(self, db, n):
        games, total = _games_of(db, None, n)
        if not games and n > 1:
            return self._missing("no page %d" % n)
        return self._page(db, "Games", ["game_list.html"], games=games, games_total=total, person=None,
                          games_pages=pages(total, GAMES_ROWS, n, "/games"))

    def sheet(self, db, row):
        got = db.query("SELECT g.record FROM games g JOIN game_summary s ON s.game_ref = g.id"
                       " WHERE g.id = ? AND s.counted", (row,))
        if not got:
            return self._missing("no game #%d the standings count" % row)
        rec = jsonin.loads(got[0][0])
        now = standings.seated(db, standings.Pick(rows=[row])).get(row, [])
        color = _colors(standings.standings(db, [])[0])
        palette = P.colours(len(color) + len(now))
        sheet = P.sheet_data(row, rec, now, color, palette[len(color):])
        return self._page(db, "Game #%d" % row, ["sheets.html"], sheets=[sheet])

    # --- evenings -----------------------------------------------------------------------------
    def evenings(self, db, n):
        every = list(reversed(evening.evenings(db)))
        at = every[(n - 1) * GAMES_ROWS:n * GAMES_ROWS]
        if not at and n > 1:
            return self._missing("no page %d" % n)
        out = []
        for ev in at:
            out.append({"number": ev.id, "name": jsonin.printable(ev.name), "date": ev.date,
                        "rounds": len(evening.rounds(db, ev)), "present": len(evening.present(db, ev, everyone=True))})
        return self._page(db, "Evenings", ["evening_list.html"], evenings=out,
                          evenings_pages=pages(len(every), GAMES_ROWS, n, "/evenings"))

    def evening_page(self, db, number):
        try:
            ev = evening.by_id(db, number)
        except evening.Refused:
            return self._missing("no evening #%d" % number)
        data = P.evening_view(db, ev)
        data["sheet_links"] = True
        return self._page(db, "%s, %s" % (jsonin.printable(ev.name), ev.date), ["evening.html"], evening=data,
                          qr=None, url=None)

    def notes(self, db, n):
        skipped = []
        _, unlinked = standings.standings(db, skipped)
        return self._page(db, "Not counted", ["notes.html"], skipped=[P.skipped_line(x) for x in skipped],
                          unlinked=unlinked)

    def round(self, db, version):
        """The current round's printable page; 404 before the first round."""
        try:
            t = evening.tonight(db, evening.find(db, self.evening))
        except evening.Refused:
            t = None
        if t is None or not t.rounds:
            return 404, b"no round yet\n", TEXT, self.CSP
        made = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M")
        return 200, evening_page.round_page(t, t.rounds[-1], made).encode("utf-8"), HTML, evening_page.CSP


# --- what the pages read --------------------------------------------------------------------
def _game_ids(rows):
    """The games of standings rows: the registry's order, then any it does not know."""
    return sorted(set(r["game"] for r in rows),
                  key=lambda g: (registry.IDS.index(g) if g in registry.IDS else len(registry.IDS), g))


def _counted(db):
    """How many stored games the standings count (the header's count, as the one-file page's)."""
    return db.query("SELECT COUNT(*) FROM game_summary WHERE counted")[0][0]


def _game_counts(db):
    """{game: how many of its stored games the standings count}."""
    return dict(db.query("SELECT game, COUNT(*) FROM game_summary WHERE counted GROUP BY game"))


def _rated(db):
    """The games with ratings, kept or due (ratings.stored_boards rates what
    is due), in the registry's order (a game it does not know is never
    counted, so never rated): a look in the ratings' index for each."""
    due = set(g for g, in db.query("SELECT game FROM ratings_due"))
    return [g for g in registry.IDS if g in due or db.query("SELECT 1 FROM ratings WHERE game = ? LIMIT 1", (g,))]


def _ratings(db):
    """(rating rows, {game: Board}) as the one-file page shows them: the kept ratings."""
    boards = ratings.stored_boards(db)
    return ratings.rows_of(boards, standings.names(db)), boards


def _colors(rows):
    """{person key: colour}: one a person, in the order of the standings (results_page.colours)."""
    persons = list(dict.fromkeys(people.key(r["player"]) for r in rows if r["person"]))
    return dict(zip(persons, P.colours(len(persons))))


def _href(row):
    return person_href(row["player"]) if row.get("person", True) else None


def _place(rows, row):
    """A row's place in its game's standings."""
    return [r for r in rows if r["game"] == row["game"]].index(row) + 1


def _section(game, count, rows, first=0, chart=None, links=None, pages=None):
    """A game's card of the standings (templates/standings.html)."""
    return {"id": game, "title": P.title_of(game), "games": count, "bonus": P.has_bonus(game),
            "score_means": P.score_means(game), "chart": chart, "links": links, "pages": pages, "tables": [],
            "rows": [P.standings_cells(r, first + i + 1, _href(r)) for i, r in enumerate(rows)]}


def _games_of(db, key, n):
    """([a game's row of the list], total): page n of the stored games the
    standings count (those of the person `key`; None: everyone's), the
    newest first (time order), GAMES_ROWS a page; from their summaries."""
    if key is None:
        total = db.query("SELECT COUNT(*) FROM game_summary WHERE counted")[0][0]
        rows = [r for r, in db.query("SELECT game_ref FROM game_summary WHERE counted ORDER BY ord DESC"
                                     " LIMIT ? OFFSET ?", (GAMES_ROWS, (n - 1) * GAMES_ROWS))]
    else:
        total = db.query("SELECT COUNT(DISTINCT game_ref) FROM game_players WHERE person = ?", (key,))[0][0]
        rows = [r for r, _ in db.query("SELECT game_ref, MAX(ord) FROM game_players WHERE person = ?"
                                       " GROUP BY game_ref ORDER BY MAX(ord) DESC LIMIT ? OFFSET ?",
                                       (key, GAMES_ROWS, (n - 1) * GAMES_ROWS))]
    if not rows:
        return [], total
    pick = standings.Pick(rows=rows)
    seats = {}
    for row, name, total_, won in db.query(
            "SELECT p.game_ref, p.shown, p.total, p.won FROM game_players p%s ORDER BY p.game_ref, p.seat"
            % pick.where("p", first=True), pick.args):
        seats.setdefault(row, []).append((name, total_, won))
    about = dict((r[0], r[1:]) for r in db.query(
        "SELECT r.id, r.game, r.received_at, s.finished, %s FROM games r JOIN game_summary s ON s.game_ref = r.id"
        " WHERE r.id IN (SELECT value FROM json_each(?))" % TABLE_SQL, (json.dumps(rows),)))
    out = []
    for row in rows:
        game, stored, finished, *where = about[row]
        mine = seats.get(row, [])
        totals = [t for _, t, _ in mine]
        totals = totals[:totals.index(None)] if None in totals else totals
        out.append({"row": row, "title": P.title_of(game), "table": jsonin.printable(_table(db, row, *where)),
                    "result": evening_page.result_line([x for x, _, _ in mine], totals,
                                                       [i for i, (_, _, w) in enumerate(mine) if w], finished),
                    "stored": stored[:16].replace("T", " ")})
    return out, total


# a record's "table" and "id" as people.table_of reads them, by SQLite's JSON
# (`r`: the games row): the value and its JSON type
TABLE_SQL = ("json_extract(r.record, '$.table'), json_type(r.record, '$.table'),"
             " json_extract(r.record, '$.id'), json_type(r.record, '$.id')")


def _table(db, row, table, table_type, ident, ident_type):
    """A game's table (people.table_of) from its record's "table" and "id"
    as SQL read them; an id that is neither text nor a whole number (a
    record from somewhere odd) is read from the record itself."""
    if ident_type not in ("text", "integer", None):
        return people.table_of(jsonin.loads(db.query("SELECT record FROM games WHERE id = ?", (row,))[0][0]))
    return people.table_of({"table": table if table_type == "text" else None, "id": ident})


def _tables_of(db, game):
    """{table: [game rows]} of a game's counted games (people.table_of:
    the record's "table", else its device)."""
    out = {}
    for row, *where in db.query("SELECT r.id, %s FROM game_summary s JOIN games r ON r.id = s.game_ref"
                                " WHERE s.counted AND s.game = ?" % TABLE_SQL, (game,)):
        out.setdefault(_table(db, row, *where), []).append(row)
    return out


def make_server(open_db, source="", port=serve.DEFAULT_PORT, host=serve.HOST, evening=None,
                poll_s=serve.EVENTS_POLL_S):
    """serve.make_server with the results pages of the database open_db()
    opens (`source`: its path, named by its file name alone)."""
    return serve.make_server(open_db, lambda url, public: Site(source, evening, url, public), port, host, poll_s)
