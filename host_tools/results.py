"""speedref-results: standings per game and player from the results database.

    speedref-results [--db FILE] [--csv FILE] [--json]
    speedref-results [--db FILE] --html FILE     the results page (host_tools/results_page.py)
    speedref-results [--db FILE] --serve [--port N]   the same page on 127.0.0.1
    speedref-results import PATH... [--db FILE]   (host_tools/importer.py)
    speedref-results ratings [--game G] [--json]  (host_tools/ratings.py)
    speedref-results rename OLD NEW | merge A B | assign GAME SEAT NAME
    speedref-results changes | undo [N]           (host_tools/changes.py)
    speedref-results gaps [--json]                record numbers never seen (host_tools/gaps.py)

Per game and person (host_tools/people.py: a name, without case or the
spaces around it; every seat nobody named in one "(unnamed seats)" row):
games played, wins (a shared win counts for each winner; an unfinished game is nobody's win unless the table agreed to stop it, PT-20),
average final score, Perfect Bonuses (Speed Run), and slap wins with the median
winning margin (Speed, and any game whose slaps the device logged).  Slap
verdicts are tied to a game by speedref-log when that game's record arrives.

Every seat of every counted game is in the standings, once: a change to names
never seats one person twice in a game (host_tools/people.py).  A person
listed twice in one record is malformed (speedref-log refuses such records);
in one already in an older database the first seat is the person's and the
later one an unnamed seat.
Text output escapes control characters in names; CSV cells that a spreadsheet
would run as a formula (starting with = + - @ tab or CR) get a leading '.
"""
import argparse
import collections
import csv
import json
import statistics
import sys
import unicodedata

import wcwidth

from speedref import games as games_registry
from speedref.engine import records
from speedref.engine.errors import RuleError, is_int

from host_tools import db as dbmod
from host_tools import jsonin, people
from host_tools.db import ResultsDB, DatabaseProblem, db_help, default_path

COLUMNS = ["game", "player", "games", "wins", "average_score", "perfect_bonuses",
           "slap_wins", "median_margin_us"]
# Names a game module may give its per-seat Perfect Bonus counts (Speed Run).
PERFECT_ATTRS = ("perfect_bonuses", "perfects", "perfect")


def perfect_counts(record):
    """Per-seat Perfect Bonus counts from the Speed Run sheet, or None if it has none."""
    sheet = records.replay(record)
    for name in PERFECT_ATTRS:
        v = getattr(sheet, name, None)
        if callable(v):
            v = v()
        if isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v):
            return list(v)
    return None


def _replayable(text):
    """(record, summary) of a stored record's text, or raise ValueError saying
    why it cannot be counted: not strict JSON, not an object, or refused by
    the rules as they are now (tampered, or written under older rules)."""
    try:
        rec = jsonin.loads(text)
    except jsonin.BadJSON as e:
        raise ValueError("not JSON (%s)" % e)
    if not isinstance(rec, dict):
        raise ValueError("not a game record (a JSON object)")
    try:
        s = records.summary(rec)
        perfect = perfect_counts(rec) if rec.get("game") == "speedrun" else None
    except RuleError as e:
        raise ValueError("the rules refuse it: %s" % e)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
        raise ValueError("the rules cannot replay it: %s: %s" % (type(e).__name__, e))
    names = [str(p) for p in rec.get("players", [])]
    return rec, s, names, perfect


def _slap_problem(winner, margin, names):
    """Why a stored slap verdict cannot be counted for its game, or None."""
    if winner is not None and (not is_int(winner) or not 0 <= winner < len(names)):
        return "winner %s is not a seat of its game (0..%d, or null for a tie)" % (
            jsonin.printable(repr(winner))[:30], len(names) - 1)
    if margin is not None and (not is_int(margin) or margin < 0):
        return "margin_us %s is not a whole number of microseconds" % jsonin.printable(repr(margin))[:30]
    if winner is None and margin is None:
        return "a tie without a margin"
    return None


Played = collections.namedtuple("Played", "row record summary names perfect")


def played(db, skipped=None, changes=None, held=None):
    """[Played] every stored game the rules can count, in time order
    (people.time_order): its record, summary, the name each seat now goes
    by (people.Resolver: None for a seat nobody named; never one person at
    two seats) and Speed Run's Perfect Bonuses.  A row that cannot be
    counted goes into `skipped`.  `changes`: the changes to names to apply
    (default: those in force); `held`, a dict, gets {row: [people.Held]}
    for each game a change does not hold for."""
    skipped = [] if skipped is None else skipped
    resolver = people.Resolver(db.changes() if changes is None else changes)
    out = []
    for row_id, text in db.game_rows():
        try:
            rec, s, names, perfect = _replayable(text)
        except ValueError as e:
            skipped.append({"table": "games", "row": row_id, "why": str(e)})
            continue
        out.append(Played(row_id, rec, s, resolver.seats(row_id, names), perfect))
    if held is not None:
        held.update(resolver.held)
    return people.time_order(out, db.arrivals())


def spellings(games):
    """{person key: the spelling of their most recent game}."""
    shown = {}
    for g in games:
        for n in g.names:
            if n is not None:
                shown[people.key(n)] = n
    return shown


UNNAMED = "(unnamed seats)"    # the standings' row of every seat nobody named, in one game


def standings(db, skipped=None, games=None):
    """(rows as dicts in COLUMNS order, number of slaps not tied to any game).

    A row per game and person (people.py: a name normalised), the name shown
    as they spelled it last; every seat nobody named (P1..P4, Guest) is in one
    row of its own, UNNAMED, counted a seat at a time (an unnamed seat is
    nobody in particular: a game with two counts twice), after the people.
    A row says whether it is a person ("person").
    A stored row that cannot be counted (a record that is not JSON or that the
    rules refuse, a slap whose winner is not a seat of its game or whose margin
    is not a whole number) is left out; `skipped`, a list, gets
    {"table", "row", "why"} for each.
    """
    skipped = [] if skipped is None else skipped
    games = played(db, skipped) if games is None else games
    shown = spellings(games)
    table = {}   # (game, person key or None) -> accumulating dict

    def entry(game, name):
        k = None if name is None else people.key(name)
        if (game, k) not in table:
            table[(game, k)] = {"game": game, "player": UNNAMED if k is None else shown[k], "person": k is not None,
                                "games": 0, "wins": 0, "_scores": [], "perfect_bonuses": None, "slap_wins": 0,
                                "_margins": []}
        return table[(game, k)]

    players_of = {}
    for g in games:
        rec, s, names, perfect = g.record, g.summary, g.names, g.perfect
        players_of[g.row] = names
        # wins from the record itself, so a database filled before the
        # unfinished-game rule (PT-20) is counted the same way
        winners = s["winners"] if records.counts_as_win(s) else ()
        for seat, name in enumerate(names):      # each seat someone of its own (people.Resolver)
            e = entry(rec["game"], name)
            e["games"] += 1
            e["wins"] += 1 if seat in winners else 0
            if seat < len(s["totals"]):
                e["_scores"].append(s["totals"][seat])
        # Perfect Bonuses (SR-16, SR-26) are Speed Run's own column: no other
        # game's sheet counts them
        if perfect is not None:
            for seat, name in enumerate(names[:len(perfect)]):
                e = entry("speedrun", name)
                e["perfect_bonuses"] = (e["perfect_bonuses"] or 0) + perfect[seat]
    unlinked = 0
    for slap_id, game, kind, winner, margin, game_ref in db.slap_rows():
        if game_ref is None or game_ref not in players_of:
            unlinked += 1
            continue
        names = players_of[game_ref]
        why = _slap_problem(winner, margin, names)
        if why:
            skipped.append({"table": "slaps", "row": slap_id, "why": why})
            continue
        if winner is None:
            continue          # a tie is nobody's win
        e = entry(game, names[winner])
        e["slap_wins"] += 1
        if margin is not None:  # a lone slap has no margin
            e["_margins"].append(margin)
    out = []
    for e in table.values():
        scores, margins = e.pop("_scores"), e.pop("_margins")
        e["average_score"] = round(sum(scores) / len(scores), 2) if scores else None
        e["median_margin_us"] = statistics.median(margins) if margins else None
        out.append(dict((c, e[c]) for c in COLUMNS + ["person"]))
    out.sort(key=lambda r: (r["game"], not r["person"], -r["wins"], -(r["average_score"] or 0), r["player"]))
    return out, unlinked


def _cell(v):
    return "-" if v is None else str(v)


def text_report(rows, unlinked):
    if not rows:
        return "no games in the database yet"
    lines = []
    heads = ["player", "games", "wins", "avg score", "perfect", "slap wins", "median margin"]
    for game in sorted(set(r["game"] for r in rows)):
        mine = [r for r in rows if r["game"] == game]
        body = []
        for r in mine:
            margin = r["median_margin_us"]
            body.append([jsonin.printable(r["player"]), str(r["games"]), str(r["wins"]), _cell(r["average_score"]),
                         _cell(r["perfect_bonuses"]), str(r["slap_wins"]),
                         "-" if margin is None else "%.1f ms" % (margin / 1000)])
        widths = [max(wcwidth.width(x[i]) for x in [heads] + body) for i in range(len(heads))]
        lines.append(jsonin.printable(game))
        for x in [heads] + body:
            lines.append("  " + "  ".join(wcwidth.ljust(c, w) for c, w in zip(x, widths)).rstrip())
        lines.append("")
    if unlinked:
        lines.append("%d slap verdicts not tied to a finished game (not counted)" % unlinked)
    return "\n".join(lines).rstrip()


# What a spreadsheet runs as a formula (OWASP, "CSV Injection"): a cell whose
# first character is = + - or @, or that starts with a tab or a carriage
# return (and ASVS adds NUL).  Spreadsheets differ in what they skip before
# looking: some trim spaces, NBSP, a BOM, bidirectional marks, zero-width
# characters or line breaks, and some (Excel with an East Asian IME among
# them) read the fullwidth ＝ ＋ － ＠ and the small ﹦ ﹢ ﹣ as their ASCII
# selves.  So a cell is neutralised when its first visible character, in its
# NFKC form, is one of these, whatever invisible characters come before it.
FORMULA_CHARS = "=+-@"
FORMULA_START = ("\t", "\r", "\x00")


def _invisible(ch):
    # white space (Zs, Zl, Zp and the C0 blanks) and control or format
    # characters (Cc, Cf: BOM, RLO, ZWSP...) show nothing a person would see
    return ch.isspace() or unicodedata.category(ch)[0] in "CZ"


def runs_as_formula(text):
    if text.startswith(FORMULA_START):
        return True
    for ch in text:
        if not _invisible(ch):
            return unicodedata.normalize("NFKC", ch)[:1] in FORMULA_CHARS
    return False


def csv_cell(v):
    """A CSV cell a spreadsheet shows as text: a string it could run as a
    formula gets a leading ' (OWASP's advice on CSV injection)."""
    if v is None:
        return ""
    if isinstance(v, str) and runs_as_formula(v):
        return "'" + v
    return v


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(dict((k, csv_cell(v)) for k, v in r.items()))


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


def file_name(text):
    """A file to write: a name, not an empty string."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty file name")
    return text


def build_parser():
    """The command line: the standings (with --csv, --json), or `import PATH...`;
    other outputs of the same standings go beside --csv and --json."""
    ap = argparse.ArgumentParser(
        prog=PROG, description=__doc__.splitlines()[0],
        epilog="speedref-results import PATH... [--db FILE]: bring game records into the database from log"
               " captures (JSON lines), record files (JSON, or a device's SRF1 file), simulator --store"
               " folders and copies of a board's flash store (host_tools/importer.py)")
    ap.add_argument("command", nargs="?", choices=list(VERBS),
                    help="import PATH...; ratings; rename OLD NEW; merge A B; assign GAME SEAT NAME;"
                         " changes; undo [N]; gaps (record numbers of a table never seen)"
                         " (default: the standings)")
    ap.add_argument("paths", nargs="*", metavar="ARG", help="with import: what to import; the other verbs' arguments")
    ap.add_argument("--game", help="with ratings: this game only (%s)" % ", ".join(games_registry.IDS))
    ap.add_argument("--db", help="results database (%s)" % db_help())
    ap.add_argument("--csv", metavar="FILE", type=file_name, help="also write the standings as CSV")
    ap.add_argument("--json", action="store_true", help="print the standings (with ratings: the ratings) as JSON")
    ap.add_argument("--html", metavar="FILE", type=file_name,
                    help="write the results page: standings, score sheets and charts in one file")
    ap.add_argument("--serve", action="store_true",
                    help="serve the results page on 127.0.0.1 until Ctrl-C (made again only when something new"
                         " was stored since the last request)")
    ap.add_argument("--port", type=port_number, default=8080,
                    help="with --serve: the port, 0 for any free one (default %(default)s)")
    return ap


STANDINGS_ONLY = ("csv", "json", "html", "serve")   # options that belong to the standings, not to import
# the verbs and how many arguments each takes (fewest, most)
VERBS = {"import": (1, None), "ratings": (0, 0), "rename": (2, 2), "merge": (2, 2), "assign": (3, 3),
         "changes": (0, 0), "undo": (0, 1), "gaps": (0, 0)}
VERB_USE = {"rename": "rename OLD NEW", "merge": "merge A B", "assign": "assign GAME SEAT NAME",
            "undo": "undo [N]", "ratings": "ratings [--game G]", "changes": "changes", "gaps": "gaps [--json]"}


def read_standings(path):
    """(rows, unlinked slaps, skipped rows) of the database at path (it must
    exist: a read-only command creates nothing); DatabaseProblem."""
    db = ResultsDB(path, create=False)
    try:
        skipped = []
        with db.snapshot():
            rows, unlinked = standings(db, skipped)
    finally:
        db.close()
    return rows, unlinked, skipped


def import_main(args, ap):
    from host_tools import importer
    from host_tools.log import ignore_file_size_signal
    if not args.paths:
        ap.error("import needs at least one PATH")
    for name in STANDINGS_ONLY:
        if getattr(args, name):
            ap.error("--%s does not go with import" % name)
    if args.db is not None and not dbmod.keeps(args.db):
        ap.error("--db %s keeps nothing: give a database file" % args.db)
    ignore_file_size_signal()
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
    """ratings, rename, merge, assign, changes, undo: exit status 0, or 2 with
    one line on stderr (a refused change stores nothing)."""
    from host_tools import changes, ratings
    fewest, most = VERBS[args.command]
    if not fewest <= len(args.paths) <= most:
        ap.error("use: %s %s" % (PROG, VERB_USE[args.command]))
    for name in ("csv", "html", "serve") + (() if args.command in ("ratings", "gaps") else ("json",)):
        if getattr(args, name):
            ap.error("--%s does not go with %s" % (name, args.command))
    if args.game is not None and args.command != "ratings":
        ap.error("--game goes with ratings only")
    if args.game is not None and args.game not in games_registry.IDS:
        ap.error("--game %s: no such game (%s)" % (jsonin.printable(args.game), ", ".join(games_registry.IDS)))
    path = args.db or default_path()
    try:
        db = ResultsDB(path, create=False, write=args.command not in ("ratings", "changes", "gaps"))
        try:
            if args.command == "ratings":
                skipped, text = ratings.main(db, args.game, args.json)
                for s in skipped:
                    jsonin.complain(None, "skipped: %s row #%d: %s" % (s["table"], s["row"], s["why"]), 0)
                return jsonin.write_out(text + "\n", PROG) or (2 if skipped else 0)
            if args.command == "changes":
                with db.snapshot():
                    text = changes.listing(db)
            elif args.command == "gaps":
                from host_tools import gaps
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
    return jsonin.write_out(text + "\n", PROG)


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
    path = args.db = args.db or default_path()
    if args.html or args.serve:
        from host_tools import results_page
        return results_page.main(args)
    try:
        rows, unlinked, skipped = read_standings(path)
    except DatabaseProblem as e:
        return jsonin.complain(PROG, str(e))
    for s in skipped:
        jsonin.complain(None, "skipped: %s row #%d: %s" % (s["table"], s["row"], s["why"]), 0)
    if args.csv:
        try:
            write_csv(args.csv, rows)
        except OSError as e:
            return jsonin.complain(PROG, "cannot write %s: %s" % (args.csv, e.strerror or e))
    text = (json.dumps({"standings": rows, "unlinked_slaps": unlinked, "skipped": skipped}, indent=1)
            if args.json else text_report(rows, unlinked))
    status = jsonin.write_out(text + "\n", PROG)
    return status or (2 if skipped else 0)


if __name__ == "__main__":
    sys.exit(main())
