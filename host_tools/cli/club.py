"""speedref-club: run a club night from the laptop (docs/host-tools.md, "Evening").

    speedref-club start NAME [--date D] [--tables N | --table NAME...] [--roster FILE]
    speedref-club checkin NAME... [--walk-in] | checkin --everyone | leave NAME...
    speedref-club table out|in|add NAME
    speedref-club pair --game G [--seats N] [--option KEY=VALUE]... [--again | --anyway] [--html FILE]
    speedref-club round [N] [--html FILE]        a round in the terminal, or its printable page
    speedref-club [status] | results | standings [--csv FILE] [--json] | evenings
    speedref-club place GAME ROUND TABLE | drop GAME | corrections | undo [N]

The evening, its rounds and where each result goes are host_tools/club/evening.py's,
the grouping host_tools/club/pairing.py's, what is shown host_tools/views/evening_page.py's.
This module parses, calls them and prints.  Every command but start reads or
changes the latest evening (--evening WHICH: its number, date or name).
"""
import argparse
import datetime
import json
import sys

from speedref import games as games_registry

from host_tools import jsonin
from host_tools.board import roster as roster_file
from host_tools.club import db as dbmod
from host_tools.club import evening as E
from host_tools.club import ratings
from host_tools.club.db import DatabaseProblem, ResultsDB, db_help, default_path
from host_tools.views import evening_page, report

PROG = "speedref-club"


def round_number(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a round number" % text)
    if not 1 <= n <= 999:
        raise argparse.ArgumentTypeError("%d is not a round number (1 and up)" % n)
    return n


def table_count(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of tables" % text)
    if not 1 <= n <= 99:
        raise argparse.ArgumentTypeError("%d tables: an evening has 1 to 99" % n)
    return n


def seat_count(text):
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seats" % text)


def file_name(text):
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty file name")
    return text


def build_parser():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", help="results database (%s)" % db_help())
    common.add_argument("--evening", metavar="WHICH",
                        help="the evening: its number, date (YYYY-MM-DD) or name (default: the latest)")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("start", parents=[common], help="start (or resume) an evening")
    p.add_argument("name", help="the evening's name, such as \"Thursday club\"")
    p.add_argument("--date", help="its day, YYYY-MM-DD (default: today)")
    p.add_argument("--tables", type=table_count, help="Table 1 .. Table N (default %d)" % E.DEFAULT_TABLES)
    p.add_argument("--table", action="append", default=[], metavar="NAME",
                   help="a table by its board's name (speedref-roster --table-name), in order; again for each")
    p.add_argument("--roster", metavar="FILE",
                   help="the club's roster file (one name a line, as speedref-roster push takes): who may check in")

    p = sub.add_parser("checkin", parents=[common], help="check people in (on the roster, or --walk-in)")
    p.add_argument("names", nargs="*", metavar="NAME")
    p.add_argument("--walk-in", action="store_true", help="the names are new: not on the roster")
    p.add_argument("--everyone", action="store_true", help="everyone on the evening's roster")

    p = sub.add_parser("leave", parents=[common], help="people leave: no longer paired")
    p.add_argument("names", nargs="+", metavar="NAME")

    p = sub.add_parser("table", parents=[common], help="take a table out (a broken board), put it back, add one")
    p.add_argument("verb", choices=["out", "in", "add"])
    p.add_argument("name", metavar="NAME")

    p = sub.add_parser("pair", parents=[common], help="make the next round and show it")
    p.add_argument("--game", required=True, choices=list(games_registry.IDS))
    choose = ", ".join("%s %d-%d" % (g.title, g.seats[0], g.seats[1]) for g in games_registry.GAMES
                       if g.seats[0] != g.seats[1])
    p.add_argument("--seats", type=seat_count,
                   help="players a table, for a game that lets them choose (%s); default its fewest" % choose)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="the match format: an option of the game's menu, such as match=best_of or target=25;"
                        " again for each")
    p.add_argument("--again", action="store_true", help="make the current round anew (no result in it yet)")
    p.add_argument("--anyway", action="store_true", help="pair although the round before waits for results")
    p.add_argument("--html", metavar="FILE", type=file_name, help="also write the round's printable page")

    p = sub.add_parser("round", parents=[common], help="show a round (default: the current one)")
    p.add_argument("number", nargs="?", type=round_number)
    p.add_argument("--html", metavar="FILE", type=file_name, help="write its printable page instead")

    for name, what in (("results", "every round's results, and those to place"),
                       ("status", "the evening: tables, who is here, the current round"),
                       ("evenings", "every evening in the database"),
                       ("corrections", "every correction, undone ones marked")):
        sub.add_parser(name, parents=[common], help=what)

    p = sub.add_parser("standings", parents=[common], help="tonight's table and standings")
    p.add_argument("--csv", metavar="FILE", type=file_name, help="also write tonight's standings as CSV")
    p.add_argument("--json", action="store_true", help="print them as JSON")

    p = sub.add_parser("place", parents=[common], help="a game is the result of a table in a round")
    p.add_argument("game", metavar="GAME", help="a record id, or the row number speedref-log printed")
    p.add_argument("round", type=round_number, metavar="ROUND")
    p.add_argument("table", metavar="TABLE")

    p = sub.add_parser("drop", parents=[common], help="a game is none of tonight's")
    p.add_argument("game", metavar="GAME")

    p = sub.add_parser("undo", parents=[common], help="undo a correction (default: the last)")
    p.add_argument("number", nargs="?", type=round_number, metavar="N")
    ap.commands = sub.choices           # {command: its parser}
    return ap


def say(text):
    return jsonin.write_out(text + "\n", PROG)


def write_file(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise E.Refused("cannot write %s: %s" % (path, e.strerror or e))


def _stamp():
    return datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M")


def start(args, db):
    date = E.parse_date(args.date) if args.date else datetime.date.today().isoformat()
    if args.tables is not None and args.table:
        raise E.Refused("--tables or --table, not both")
    tables = E.table_names(args.tables, args.table)
    names = []
    if args.roster:
        try:
            names = roster_file.read_names(args.roster)
        except roster_file.Problem as e:
            raise E.Refused(str(e).replace("nothing sent", "no evening started"))
    ev, new = E.start(db, args.name, date, tables, names)
    if not new:
        return say("evening #%d %s, %s resumed: %s, %s checked in, %s" % (
            ev.id, evening_page.shown(ev.name), ev.date, jsonin.count(len(E.tables(db, ev)), "table"),
            len(E.present(db, ev)), jsonin.count(len(E.rounds(db, ev)), "round")))
    return say("evening #%d %s, %s started: tables %s; %s" % (
        ev.id, evening_page.shown(ev.name), ev.date, ", ".join(evening_page.shown(t) for t in tables),
        "roster of %s" % jsonin.count(len(names), "name") if names else "no roster: every name checks in"))


def status(db, ev):
    lines = ["evening #%d %s, %s" % (ev.id, evening_page.shown(ev.name), ev.date)]
    lines.append("tables: " + ", ".join(evening_page.shown(t.name) + (" (out)" if t.out_at else "")
                                        for t in E.tables(db, ev)))
    here = E.present(db, ev)
    lines.append("%s present: %s" % (len(here), ", ".join(evening_page.shown(p.name) for p in here) or "nobody yet"))
    gone = [p for p in E.present(db, ev, everyone=True) if p.left_at]
    if gone:
        lines.append("left: " + ", ".join(evening_page.shown(p.name) for p in gone))
    rnds = E.rounds(db, ev)
    lines.append("rounds: %d" % len(rnds) + ("; the current one: round %d, %s" % (
        rnds[-1].number, E.format_text(rnds[-1].game, rnds[-1].seats, rnds[-1].options)) if rnds else ""))
    return "\n".join(lines)


def evenings_text(db):
    rows = E.evenings(db)
    if not rows:
        return "no evening yet: speedref-club start NAME starts one"
    return "\n".join("#%d  %s  %s  (%s)" % (e.id, e.date, evening_page.shown(e.name),
                                            jsonin.count(len(E.rounds(db, e)), "round")) for e in rows)


def corrections_text(db, ev):
    every = E.corrections(db, ev, in_force=False)
    if not every:
        return "no corrections tonight"
    return "\n".join("%d  %s  %s%s" % (c.number, c.made_at, E.correction_text(c),
                                       "  (undone %s)" % c.undone_at if c.undone_at else "") for c in every)


def standings_out(args, db, ev):
    skipped = []
    ratings.settle(db)          # tonight's table breaks ties by the ratings kept
    with db.snapshot():
        t = E.tonight(db, ev, skipped)
    for s in skipped:
        jsonin.complain(None, "skipped: %s row #%d: %s" % (s["table"], s["row"], s["why"]), 0)
    if args.csv:
        try:
            report.write_csv(args.csv, t.standings)
        except OSError as e:
            raise E.Refused("cannot write %s: %s" % (args.csv, e.strerror or e))
    if args.json:
        text = json.dumps(evening_page.tonight_json(t, skipped), indent=1)
    else:
        text = evening_page.tonight_text(t)
    return say(text) or (2 if skipped else 0)


def run(args, db):
    """The command on an open database: its exit status."""
    if args.command == "start":
        return start(args, db)
    if args.command == "evenings":
        with db.snapshot():
            return say(evenings_text(db))
    ev = E.find(db, args.evening)
    c = args.command
    if c == "checkin":
        if args.everyone:
            if args.names or args.walk_in:
                raise E.Refused("--everyone checks in the whole roster: no names with it")
            if not ev.roster:
                raise E.Refused("the evening has no roster (speedref-club start --roster FILE): name who is here")
            return say("\n".join(E.checkin(db, ev, ev.roster)))
        if not args.names:
            raise E.Refused("checkin needs names, or --everyone")
        return say("\n".join(E.checkin(db, ev, args.names, args.walk_in)))
    if c == "leave":
        return say("\n".join(E.leave(db, ev, args.names)))
    if c == "table":
        return say(E.table(db, ev, args.verb, args.name))
    if c == "pair":
        if args.again and args.anyway:
            raise E.Refused("--again or --anyway, not both")
        rnd = E.pair(db, ev, args.game, args.seats, args.option, again=args.again, anyway=args.anyway)
        t = E.tonight(db, ev)
        if args.html:
            write_file(args.html, evening_page.round_page(t, rnd, _stamp()))
        return say(evening_page.round_text(ev, rnd) + (
            "\nwrote %s: the round's page, to print" % jsonin.printable(args.html) if args.html else ""))
    if c == "round":
        ratings.settle(db)
        with db.snapshot():
            t = E.tonight(db, ev)
        if not t.rounds:
            raise E.Refused("no round yet: speedref-club pair --game G makes the first")
        which = [r for r in t.rounds if r.number == (args.number or t.rounds[-1].number)]
        if not which:
            raise E.Refused("no round %d tonight (%s so far)" % (args.number, jsonin.count(len(t.rounds), "round")))
        if args.html:
            write_file(args.html, evening_page.round_page(t, which[0], _stamp()))
            return say("wrote %s: round %d's page, to print" % (jsonin.printable(args.html), which[0].number))
        return say(evening_page.round_text(ev, which[0], t.placement))
    if c == "results":
        ratings.settle(db)
        with db.snapshot():
            t = E.tonight(db, ev)
        return say(evening_page.results_text(t))
    if c == "standings":
        return standings_out(args, db, ev)
    if c == "status":
        with db.snapshot():
            return say(status(db, ev))
    if c == "place":
        return say(E.place(db, ev, args.game, args.round, args.table))
    if c == "drop":
        return say(E.drop(db, ev, args.game))
    if c == "corrections":
        with db.snapshot():
            return say(corrections_text(db, ev))
    if c == "undo":
        return say(E.undo(db, ev, args.number))
    raise AssertionError(c)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = build_parser()
    if not set(argv) & (set(ap.commands) | {"-h", "--help"}):
        argv = ["status"] + argv          # the tool alone: where the evening stands
    args = ap.parse_args(argv)
    jsonin.setup_stdio()
    path = args.db or default_path()
    if not dbmod.keeps(path):
        return jsonin.complain(PROG, "--db %s keeps nothing: give a database file" % path)
    dbmod.ignore_file_size_signal()
    writes = args.command not in ("round", "results", "standings", "status", "evenings", "corrections")
    try:
        db = ResultsDB(path, create=args.command == "start", write=writes)
        try:
            return run(args, db)
        finally:
            db.close()
    except DatabaseProblem as e:
        return jsonin.complain(PROG, str(e))
    except E.Refused as e:
        return jsonin.complain(PROG, "%s: %s" % (args.command, e))


if __name__ == "__main__":
    sys.exit(main())
