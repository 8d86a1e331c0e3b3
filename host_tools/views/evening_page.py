"""The club night as people see it: a round in the terminal and on a
printed page, tonight's results and table, the "Evening" view of the
results page, and the QR code of the served page's address.

Nothing here decides anything: the evening, its rounds and where each game
went are host_tools/club/evening.py's, tonight's standings the standings
library's.  Names come from people and devices, so they are text: escaped
for the terminal (jsonin.printable) and by Jinja2's autoescape on a page.
"""
import io

import wcwidth

from speedref import games as registry
from speedref.engine import records

from host_tools import jsonin
from host_tools.club import evening as E
from host_tools.club import people
from host_tools.views import report, templating

ROUND_TEMPLATE = "round.html"
# The round page: no script, no network (as the results page)
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
RESULTS_SHOWN = 40        # the Evening view's results, newest first


def shown(text):
    return jsonin.printable(str(text))


def seat_label(i):
    return "P%d" % (i + 1)


def _title(game):
    try:
        return registry.get(game).title
    except registry.UnknownGame:
        return shown(game)


def result_text(g):
    """One game's result in a line: each seat's total and who won."""
    s = g.summary
    return result_line(g.names, s["totals"], s["winners"], records.counts_as_win(s))


def result_line(names, totals, winners, finished):
    """A result in a line from its parts: the name each seat goes by (None:
    nobody named), the totals scored, the winning seats, and whether it
    counts as a win (records.counts_as_win)."""
    names = [shown(n) if n is not None else seat_label(i) for i, n in enumerate(names)]
    totals = ", ".join("%s %s" % (n, t) for n, t in zip(names, totals))
    win = [names[i] for i in winners]
    if not finished:
        return "%s: not finished, nobody's win" % totals
    if not win:
        return "%s: no winner" % totals
    return "%s: %s won" % (totals, " and ".join(win))


# --- the terminal -----------------------------------------------------------------
def _columns(rows):
    """Text rows in columns by the cells a terminal gives each character."""
    widths = [max(wcwidth.width(r[i]) if i < len(r) else 0 for r in rows) for i in range(max(len(r) for r in rows))]
    return ["  " + "  ".join(wcwidth.ljust(c, w) for c, w in zip(r, widths)).rstrip() for r in rows]


def round_text(ev, rnd, placement=None):
    """A round as the terminal shows it: its header, a line a table (its
    seats in order, and its result once in), the byes."""
    lines = ["%s, %s: round %d: %s" % (shown(ev.name), ev.date, rnd.number, E.format_text(rnd.game, rnd.seats, rnd.options))]
    rows = [["table"] + [seat_label(i) for i in range(rnd.seats)] + (["result"] if placement else [])]
    for t, seated in rnd.tables:
        row = [shown(t)] + [shown(n) for _, n in seated]
        if placement is not None:
            got = placement.slots.get((rnd.number, t)) or []
            row.append("; ".join(result_text(g) for g in got) or "playing")
        rows.append(row)
    lines += _columns(rows)
    if rnd.byes:
        lines.append("  bye: " + ", ".join(shown(n) for _, n in rnd.byes))
    return "\n".join(lines)


def tonight_rows(t):
    """The evening's own table as rows: {place, player, points, wins, byes, rounds}."""
    return [{"place": i + 1, "player": s.name, "points": s.points, "wins": s.wins, "byes": s.byes,
             "rounds": s.rounds} for i, s in enumerate(t.table)]


TONIGHT_HEADS = ["", "player", "points", "wins", "byes", "rounds"]


def tonight_text(t):
    """Tonight: the evening's table (what the next round pairs by), then the
    standings of each game played tonight (the standings' own text table)."""
    ev = t.evening
    lines = ["%s, %s: %s, %s present, %s" % (
        shown(ev.name), ev.date, jsonin.count(len(t.rounds), "round"), len(t.present),
        jsonin.count(len(t.placement.placed()), "result"))]
    rows = tonight_rows(t)
    if rows:
        lines += _columns([TONIGHT_HEADS] + [[str(r["place"]), shown(r["player"]), str(r["points"]), str(r["wins"]),
                                              str(r["byes"]), str(r["rounds"])] for r in rows])
    lines.append("  points: a round won or a bye is a point; the next round pairs by them, then by rating")
    if t.standings:
        lines += ["", report.text_report(t.standings, t.unlinked)]
    if t.placement.unplaced:
        lines += ["", "%s not placed in a round (speedref-club results):" % jsonin.count(
            len(t.placement.unplaced), "game")]
    return "\n".join(lines)


def tonight_json(t, skipped):
    """Tonight as --json prints it: the evening, its table, the standings
    library's rows over tonight's games, and the games still to place."""
    ev = t.evening
    return {"evening": {"number": ev.id, "name": ev.name, "date": ev.date, "rounds": len(t.rounds)},
            "tonight": tonight_rows(t), "standings": t.standings, "unlinked_slaps": t.unlinked,
            "unplaced": [{"row": g.row, "why": why} for g, why in t.placement.unplaced], "skipped": skipped}


def results_text(t):
    """Every round's tables and results, then the games the organiser has
    to place (with why), then those dropped."""
    lines = []
    for rnd in t.rounds:
        lines.append(round_text(t.evening, rnd, t.placement))
        lines.append("")
    if not t.rounds:
        lines.append("no round yet: speedref-club pair --game G makes the first")
    if t.placement.unplaced:
        lines.append("not placed in any round (speedref-club place GAME ROUND TABLE, or drop GAME):")
        for g, why in t.placement.unplaced:
            lines.append("  #%d %s at %s: %s; %s" % (g.row, _title(g.record.get("game")),
                                                   shown(people.table_of(g.record)), result_text(g), shown(why)))
    if t.placement.dropped:
        lines.append("none of tonight's (dropped): " + ", ".join("#%d" % g.row for g in t.placement.dropped))
    return "\n".join(lines).rstrip()


# --- the QR code --------------------------------------------------------------------
def qr_text(url):
    """The QR code of `url` for a terminal (Unicode half blocks, two rows
    of modules a line)."""
    import segno
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True)
    return out.getvalue().rstrip("\n")


def qr_data_uri(url):
    """The QR code of `url` as an SVG data: URL (the page's CSP allows
    pictures from data: only)."""
    import segno
    return segno.make(url, error="m").svg_data_uri(scale=10, border=2)


# --- the pages --------------------------------------------------------------------------
def now_playing(t):
    """The current round, table by table, with each table's result once in."""
    if not t.rounds:
        return None
    rnd = t.rounds[-1]
    out = []
    for tbl, seated in rnd.tables:
        got = t.placement.slots.get((rnd.number, tbl)) or []
        out.append({"table": shown(tbl), "seats": [(seat_label(i), shown(n)) for i, (_, n) in enumerate(seated)],
                    "result": "; ".join(result_text(g) for g in got) or None})
    return {"number": rnd.number, "game": _title(rnd.game), "format": E.format_text(rnd.game, rnd.seats, rnd.options),
            "tables": out, "byes": [shown(n) for _, n in rnd.byes], "seats": rnd.seats}


def arrived(t):
    """Tonight's results, the newest first: placed ones with their round
    and table, and those waiting for the organiser with why."""
    where = {}
    for (number, tbl), gs in t.placement.slots.items():
        for g in gs:
            where[g.row] = "round %d, %s" % (number, shown(tbl))
    out = [{"row": g.row, "where": where[g.row], "game": _title(g.record.get("game")), "result": result_text(g),
            "unplaced": None} for g in t.placement.placed()]
    out += [{"row": g.row, "where": "at %s" % shown(people.table_of(g.record)), "game": _title(g.record.get("game")),
             "result": result_text(g), "unplaced": shown(why)} for g, why in t.placement.unplaced]
    out.sort(key=lambda x: -x["row"])
    return out[:RESULTS_SHOWN]


def evening_data(t):
    """The Evening view's contents (host_tools/views/templates/evening.html)."""
    ev = t.evening
    return {"name": shown(ev.name), "date": ev.date, "number": ev.id, "rounds": len(t.rounds),
            "present": len(t.present), "tables_out": [shown(x.name) for x in t.tables if x.out_at is not None],
            "now": now_playing(t), "arrived": arrived(t), "unplaced": len(t.placement.unplaced),
            "table": [dict(r, player=shown(r["player"])) for r in tonight_rows(t)]}


def round_page(t, rnd, generated):
    """The printable page of one round (templates/round.html): a row a
    table, big enough to read from the door, and print CSS."""
    data = {"evening": shown(t.evening.name), "date": t.evening.date, "number": rnd.number,
            "format": E.format_text(rnd.game, rnd.seats, rnd.options), "seats": rnd.seats,
            "tables": [{"table": shown(tbl), "seats": [shown(n) for _, n in seated]} for tbl, seated in rnd.tables],
            "byes": [shown(n) for _, n in rnd.byes], "generated": generated, "csp": CSP}
    return templating.environment().get_template(ROUND_TEMPLATE).render(**data)
