"""speedref-results: standings per game and player from the results database.

    speedref-results [--db FILE] [--club CLUB] [--csv FILE] [--json] [--evening [WHICH] | --since DATE]
    speedref-results [--db FILE] --html FILE     the results page (host_tools/views/results_page.py)
    speedref-results [--db FILE] --serve [--port N] [--host ADDRESS]   the same page, live
    speedref-results import PATH... [--db FILE]   (host_tools/intake/importer.py)
    speedref-results ratings [--game G] [--club CLUB] [--json | --csv FILE] [--provisional N]  (host_tools/club/ratings.py)
    speedref-results rename OLD NEW | merge A B | assign GAME SEAT NAME
    speedref-results changes | undo [N]           (host_tools/club/changes.py)
    speedref-results gaps [--json]                record numbers never seen (host_tools/club/gaps.py)
    speedref-results check                        the kept summaries against a replay
                                                  (host_tools/club/check.py): exit 1 on a difference
    speedref-results rebuild                      every game's summary made again from its record

What the standings count is host_tools/club/standings.py's; the text table and
the CSV are host_tools/views/report.py's.  This module is the command line: it
parses, calls them and prints.

--club CLUB: the standings or the ratings of one club's games, in a league's
database (each game stored with its club: speedref-log --mqtt --league);
without it, the whole league's.  In a database of several clubs every person
is of a club, "Ann (riverside)" (host_tools/club/people.py).
"""
import argparse
import json
import sys

from speedref import games as games_registry

from host_tools import jsonin
from host_tools.argtypes import file_name
from host_tools.club import db as dbmod
from host_tools.club import ratings as ratings_mod
from host_tools.club import standings, summary
from host_tools.club.db import ResultsDB, DatabaseProblem, db_help, default_path
from host_tools.views import report

PROG = "speedref-results"


def port_number(text):
    """--port: a TCP port, 1..65535, or 0 for any free one."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a port number (0..65535)" % text)
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError("%d is not a port number (0..65535; 0: any free port)" % n)
    return n


def since_date(text):
    import datetime
    try:
        return datetime.date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a date (YYYY-MM-DD)" % text)


def game_count(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of games" % text)
    if not 1 <= n <= 1000:
        raise argparse.ArgumentTypeError("%d: a number of games, 1 to 1000" % n)
    return n


def host_address(text):
    """--host: an IP address (IPv4 or IPv6) this laptop can listen on."""
    import ipaddress
    try:
        return str(ipaddress.ip_address(text.strip().strip("[]")))
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not an IP address (0.0.0.0 serves every network of this laptop)"
                                         % text)


def build_parser():
    """The command line: the standings (with --csv, --json), or `import PATH...`;
    other outputs of the same standings go beside --csv and --json."""
    ap = argparse.ArgumentParser(
        prog=PROG, description=__doc__.splitlines()[0],
        epilog="speedref-results import PATH... [--db FILE]: bring game records into the database from log"
               " captures (JSON lines), record files (JSON, or a device's SRF1 file), simulator --store"
               " folders and copies of a board's flash store (host_tools/intake/importer.py)")
    ap.add_argument("command", nargs="?", choices=list(VERBS),
                    help="import PATH...; ratings; rename OLD NEW; merge A B; assign GAME SEAT NAME;"
                         " changes; undo [N]; gaps (record numbers of a table never seen); check; rebuild"
                         " (default: the standings)")
    ap.add_argument("paths", nargs="*", metavar="ARG", help="with import: what to import; the other verbs' arguments")
    ap.add_argument("--game", help="with ratings: this game only (%s)" % ", ".join(games_registry.IDS))
    ap.add_argument("--club", help="the standings (with ratings: the ratings) of this club's games only (a league's"
                                   " database; default: every club's)")
    ap.add_argument("--db", help="results database (%s)" % db_help())
    ap.add_argument("--csv", metavar="FILE", type=file_name,
                    help="also write the standings (with ratings: the ratings) as CSV")
    ap.add_argument("--evening", nargs="?", const="", metavar="WHICH",
                    help="tonight's standings: the evening's games only (speedref-club; WHICH: its number, date or"
                         " name, default the latest); with --html, a page of that evening's games; with --serve,"
                         " the evening the first screen shows")
    ap.add_argument("--since", metavar="DATE", type=since_date,
                    help="the standings of the games stored since DATE (YYYY-MM-DD, from local midnight);"
                         " with --html, a page of those games")
    ap.add_argument("--provisional", type=game_count, default=ratings_mod.PROVISIONAL_GAMES, metavar="N",
                    help="with ratings: a rating from fewer than N games is provisional, listed last"
                         " (default %(default)s)")
    ap.add_argument("--json", action="store_true", help="print the standings (with ratings: the ratings) as JSON")
    ap.add_argument("--html", metavar="FILE", type=file_name,
                    help="write the results page: standings, score sheets and charts in one file (every game;"
                         " --since DATE or --evening: a span of them)")
    ap.add_argument("--serve", action="store_true",
                    help="serve the results page on 127.0.0.1 until Ctrl-C (made again only when something new"
                         " was stored since the last request)")
    ap.add_argument("--host", metavar="ADDRESS", type=host_address,
                    help="with --serve: the address to serve on, for the room: 0.0.0.0 (every network of this"
                         " laptop) or one of its addresses; read-only, no file path shown (default 127.0.0.1:"
                         " this machine only)")
    ap.add_argument("--port", type=port_number, default=8080,
                    help="with --serve: the port, 0 for any free one (default %(default)s)")
    return ap


STANDINGS_ONLY = ("csv", "json", "html", "serve", "host", "since", "club")   # options of the standings, not of import
# the verbs and how many arguments each takes (fewest, most)
VERBS = {"import": (1, None), "ratings": (0, 0), "rename": (2, 2), "merge": (2, 2), "assign": (3, 3),
         "changes": (0, 0), "undo": (0, 1), "gaps": (0, 0), "check": (0, 0), "rebuild": (0, 0)}
VERB_USE = {"rename": "rename OLD NEW", "merge": "merge A B", "assign": "assign GAME SEAT NAME",
            "undo": "undo [N]", "ratings": "ratings [--game G]", "changes": "changes", "gaps": "gaps [--json]",
            "check": "check", "rebuild": "rebuild"}
READ_ONLY = ("ratings", "changes", "gaps", "check")     # verbs that store nothing of their own


def import_main(args, ap):
    from host_tools.intake import importer
    if not args.paths:
        ap.error("import needs at least one PATH")
    for name in STANDINGS_ONLY + ("evening",):
        if getattr(args, name) is not None and getattr(args, name) is not False:
            ap.error("--%s does not go with import" % name)
    if args.db is not None and not dbmod.keeps(args.db):
        ap.error("--db %s keeps nothing: give a database file" % args.db)
    dbmod.ignore_file_size_signal()
    try:
        db = ResultsDB(args.db or default_path(), write=True)
    except DatabaseProblem as e:
        return jsonin.complain(PROG, str(e))
    out = Output()
    try:
        status = importer.run(db, args.paths, PROG, out=out, err=lambda t: jsonin.complain(None, t, 0))
    finally:
        db.close()
    return status or out.status


class Output:
    """Lines for stdout: an output that cannot be written is said once on
    stderr (jsonin.write_out), nothing more is written, and `status` is 2."""

    def __init__(self):
        self.status = 0

    def __call__(self, text):
        if not self.status:
            self.status = jsonin.write_out(text + "\n", PROG)


def verb_main(args, ap):
    """ratings, rename, merge, assign, changes, undo, check, rebuild: exit
    status 0, or 2 with one line on stderr (a refused change stores
    nothing); check: 1 when a kept summary differs from the replay."""
    from host_tools.club import changes, check, ratings
    fewest, most = VERBS[args.command]
    if not fewest <= len(args.paths) <= most:
        ap.error("use: %s %s" % (PROG, VERB_USE[args.command]))
    for name in ("html", "serve", "host", "since", "evening") + (
            () if args.command in ("ratings", "gaps") else ("json",)) + (() if args.command == "ratings" else ("csv",)):
        if getattr(args, name) is not None and getattr(args, name) is not False:
            ap.error("--%s does not go with %s" % (name, args.command))
    if args.command == "ratings" and args.json and args.csv:
        ap.error("--json or --csv, not both")
    if args.provisional != ratings_mod.PROVISIONAL_GAMES and args.command != "ratings":
        ap.error("--provisional goes with ratings only")
    if args.game is not None and args.command != "ratings":
        ap.error("--game goes with ratings only")
    if args.club is not None and args.command != "ratings":
        ap.error("--club goes with the standings and ratings only")
    if args.game is not None and args.game not in games_registry.IDS:
        ap.error("--game %s: no such game (%s)" % (jsonin.printable(args.game), ", ".join(games_registry.IDS)))
    path = args.db or default_path()
    try:
        db = ResultsDB(path, create=False, write=args.command not in READ_ONLY)
        try:
            if args.command == "check":
                lines, n = check.check(db)
                if lines:
                    text = "\n".join(lines + ["%s: %s between what it keeps and a replay of its %s"
                                               % (jsonin.printable(path), jsonin.count(len(lines), "difference"),
                                                  jsonin.count(n, "stored game"))])
                    return jsonin.write_out(text + "\n", PROG) or 1
                text = "%s: every summary, the standings and the ratings are what a replay of the %s gives" % (
                    jsonin.printable(path), jsonin.count(n, "stored game"))
            elif args.command == "rebuild":
                n = db.rebuild()
                text = "%s: the summaries of %s made again from their records (rules %s)" % (
                    jsonin.printable(path), jsonin.count(n, "game"), summary.RULES)
            elif args.command == "ratings":
                skipped, text, rows = ratings.report(db, args.game, args.json, args.provisional, club=args.club)
                for s in skipped:
                    jsonin.complain(None, "skipped: %s row #%d: %s" % (s["table"], s["row"], s["why"]), 0)
                if args.csv:
                    try:
                        # numbers as numbers (a text "-1.83" would be taken for a formula)
                        report.write_csv(args.csv, [dict(r, provisional=ratings.yes_no(r["provisional"]),
                                                         **dict((c, float(r[c])) for c in ratings.NUMBERS))
                                                    for r in rows], ratings.COLUMNS)
                    except OSError as e:
                        return jsonin.complain(PROG, "cannot write %s: %s" % (args.csv, e.strerror or e))
                return jsonin.write_out(text + "\n", PROG) or (2 if skipped else 0)
            elif args.command == "changes":
                with db.snapshot():
                    text = changes.listing(db)
            elif args.command == "gaps":
                from host_tools.club import gaps
                with db.snapshot():
                    text = gaps.listing(db, args.json)
            elif args.command == "undo":
                text = changes.undo(db, args.paths)
            else:
                text = changes.make(db, args.command, args.paths)
        finally:
            db.close()
    except DatabaseProblem as e:
        return jsonin.complain(PROG, str(e))
    except changes.Refused as e:
        return jsonin.complain(PROG, "%s: %s (nothing changed)" % (args.command, e))
    except standings.NoClub as e:
        return jsonin.complain(PROG, str(e))
    return jsonin.write_out(text + "\n", PROG)


def page_main(args):
    """--html FILE / --serve: exit status 0; 2 with one line on stderr when
    the database cannot be read, the file written or the port served; 2
    also when rows were left out (each named on stderr and on the page, as
    the text report names them)."""
    from host_tools.club import ratings
    from host_tools.views import results_page   # Jinja2 and pygal: loaded for the page only
    name = str(args.db)
    status = 0
    if args.html:
        try:
            db = ResultsDB(args.db, create=False)
            try:
                ratings.settle(db)       # what is due rated and kept (a read-only file: in memory)
                with db.snapshot():
                    which = which_evening(db, args.evening)
                    span = (results_page.Span(evening=which) if which is not None
                            else results_page.Span(since=args.since) if args.since else None)
                    text, data = results_page.render_page(db, name, evening=which, span=span)
                    skipped, n = data["skipped"], data["count"]
            finally:
                db.close()
        except DatabaseProblem as e:
            return jsonin.complain(PROG, str(e))
        for line in skipped:
            jsonin.complain(None, line, 0)
        try:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            return jsonin.complain(PROG, "cannot write %s: %s" % (args.html, e.strerror or e))
        status = jsonin.write_out("wrote %s: %s, %d bytes\n"
                                  % (jsonin.printable(args.html), jsonin.count(n, "game"), len(text.encode("utf-8"))),
                                  PROG)
        status = status or (2 if skipped else 0)
    if args.serve:
        from host_tools.views import serve, site
        host = args.host or serve.HOST
        try:
            db = ResultsDB(args.db, create=False)   # a missing database: said once, not at every request
            try:
                which = which_evening(db, args.evening)
            finally:
                db.close()
        except DatabaseProblem as e:
            return jsonin.complain(PROG, str(e))
        try:
            srv = site.make_server(lambda: ResultsDB(args.db, create=False), name, args.port, host,
                                   evening=None if which is None else which.id)
        except OSError as e:
            return jsonin.complain(PROG, "cannot serve on %s:%d: %s" % (host, args.port, e.strerror or e))
        return serve.serve(srv, out=lambda t: jsonin.write_out(t + "\n", PROG)) or status
    return status


def which_evening(db, which):
    """The evening --evening names (None: the latest, if any), or exit 2."""
    from host_tools.club import evening
    if which is None:
        return None
    try:
        return evening.find(db, which)
    except evening.Refused as e:
        raise SystemExit(jsonin.complain(PROG, "--evening: %s" % e))


def span_main(args):
    """--evening / --since: the standings of a span of the games, as text,
    CSV and JSON (tonight's with the evening's own table and the games to
    place)."""
    from host_tools.club import evening, ratings
    from host_tools.views import evening_page
    skipped = []
    try:
        db = ResultsDB(args.db, create=False)
        try:
            if args.evening is not None:
                ratings.settle(db)       # tonight's table breaks ties by the ratings kept
            with db.snapshot():
                if args.evening is not None:
                    t = evening.tonight(db, which_evening(db, args.evening), skipped)
                    rows = t.standings
                else:
                    rows, unlinked = evening.since(db, args.since, skipped)
        finally:
            db.close()
    except DatabaseProblem as e:
        return jsonin.complain(PROG, str(e))
    for s in skipped:
        jsonin.complain(None, "skipped: %s row #%d: %s" % (s["table"], s["row"], s["why"]), 0)
    if args.csv:
        try:
            report.write_csv(args.csv, rows)
        except OSError as e:
            return jsonin.complain(PROG, "cannot write %s: %s" % (args.csv, e.strerror or e))
    if args.evening is not None:
        text = (json.dumps(evening_page.tonight_json(t, skipped), indent=1) if args.json
                else evening_page.tonight_text(t))
    else:
        text = (json.dumps({"since": args.since, "standings": rows, "unlinked_slaps": unlinked, "skipped": skipped},
                           indent=1) if args.json else report.text_report(rows, unlinked))
    return jsonin.write_out(text + "\n", PROG) or (2 if skipped else 0)


def main(argv=None):
    ap = build_parser()
    args = ap.parse_args(argv)
    jsonin.setup_stdio()
    if args.command == "import":
        return import_main(args, ap)
    if args.command is not None:
        return verb_main(args, ap)
    if args.game is not None:
        ap.error("--game goes with ratings only")
    if args.paths:
        ap.error("unrecognized arguments: %s" % " ".join(args.paths))
    if args.provisional != ratings_mod.PROVISIONAL_GAMES:
        ap.error("--provisional goes with ratings only")
    if args.host is not None and not args.serve:
        ap.error("--host goes with --serve")
    if args.evening is not None and args.since is not None:
        ap.error("--evening or --since, not both")
    path = args.db = args.db or default_path()
    if args.html or args.serve:
        if args.club is not None:
            ap.error("--club goes with the standings as text, CSV or JSON, and with ratings")
        if args.since is not None and args.serve:
            ap.error("--since goes with the standings (text, --csv, --json) and --html")
        return page_main(args)
    if args.evening is not None or args.since is not None:
        if args.club is not None:
            ap.error("--club goes with the whole season's standings, not with --evening or --since")
        return span_main(args)
    try:
        rows, unlinked, skipped = standings.read_standings(path, club=args.club)
    except (DatabaseProblem, standings.NoClub) as e:
        return jsonin.complain(PROG, str(e))
    for s in skipped:
        jsonin.complain(None, "skipped: %s row #%d: %s" % (s["table"], s["row"], s["why"]), 0)
    if args.csv:
        try:
            report.write_csv(args.csv, rows)
        except OSError as e:
            return jsonin.complain(PROG, "cannot write %s: %s" % (args.csv, e.strerror or e))
    text = (json.dumps({"standings": rows, "unlinked_slaps": unlinked, "skipped": skipped}, indent=1)
            if args.json else report.text_report(rows, unlinked))
    status = jsonin.write_out(text + "\n", PROG)
    return status or (2 if skipped else 0)


if __name__ == "__main__":
    sys.exit(main())
