"""speedref-score: print the scoresheet of a game record.

    speedref-score FILE [--json]          FILE is a record (JSON object); '-' = stdin
    speedref-score --db FILE --id ID      a record kept in the results database

The record is checked by replaying it through its game's rules (the engine's
records.replay), the same code the referee keeps score with.  An invalid record
exits 2 with one line on stderr naming the hand, the player and the rule, and
prints nothing on stdout.
"""
import argparse
import json
import sys

from speedref.engine import records
from speedref.engine.errors import RuleError

TITLES = {"speed": "Speed", "spit": "Spit", "speedrun": "Speed Run", "partners": "Partners"}
# What one row of the sheet is called in each game (hands_played counts these).
UNITS = {"speed": ("Deal", "deals"), "spit": ("Round", "rounds")}


class Invalid(Exception):
    """A record we refuse: the message is the one line for stderr."""


def load_record(args):
    if args.db:
        from host_tools.db import ResultsDB
        if args.id is None:
            raise Invalid("--db needs --id ID (the record's id, or its row number)")
        db = ResultsDB(args.db)
        try:
            rec = db.find_record(args.id)
        finally:
            db.close()
        if rec is None:
            raise Invalid("%s: no record with id %s" % (args.db, args.id))
        return rec, "%s#%s" % (args.db, args.id)
    if args.file is None:
        raise Invalid("give a record FILE ('-' for stdin) or --db FILE --id ID")
    name = "<stdin>" if args.file == "-" else args.file
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise Invalid("%s: cannot read: %s" % (name, e))
    try:
        return json.loads(text), name
    except ValueError as e:
        raise Invalid("%s: bad JSON: %s" % (name, e))


def check(record, name):
    """(sheet, summary dict), or Invalid naming the rule, hand and player."""
    try:
        return records.replay(record), records.summary(record)
    except RuleError as e:
        # The game modules word it "hand 3, player 2: ..." and the rule leads.
        raise Invalid("%s: invalid record: %s" % (name, e))
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise Invalid("%s: invalid record: %s: %s" % (name, type(e).__name__, e))


def table(header, rows):
    """Left-aligned text columns wide enough for every cell."""
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = []
    for r in [header] + rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def sheet_text(record, sheet, summary):
    players = [str(p) for p in sheet.players]
    title = TITLES.get(record.get("game"), str(record.get("game")))
    extra = [str(record[k]) for k in ("length", "layout") if isinstance(record.get(k), str)]
    head = title + (" (" + ", ".join(extra) + ")" if extra else "")
    if record.get("id") is not None:
        head += "  record " + str(record["id"])
    lines = [head, ""]
    ncol = len(summary["totals"])
    names = players if len(players) == ncol else ["side %d" % (i + 1) for i in range(ncol)]
    rows = []
    for label, cells, running in sheet.rows():
        row = [str(label)]
        for c, t in zip(cells, running):
            row.append(("%s  = %s" % (c, t)) if str(c) != "" else "= %s" % t)
        rows.append(row)
    unit = UNITS.get(record.get("game"), ("Hand", "hands"))
    lines += table([unit[0]] + names, rows)
    lines.append("")
    lines.append("Totals: " + ", ".join("%s %s" % (n, t) for n, t in zip(names, summary["totals"])))
    win = summary["winners"]
    who = " and ".join(players[w] if w < len(players) else "seat %d" % w for w in win)
    if len(win) > 1:
        lines.append("Shared win: " + who)
    elif win:
        lines.append("Winner: " + who)
    else:
        lines.append("No winner")
    if summary.get("tiebreak"):
        lines.append("Decided by: " + str(summary["tiebreak"]))
    lines.append("%d %s played%s" % (summary["hands_played"], unit[1],
                                     ", ended early" if summary["ended_early"] else ""))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="speedref-score", description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", help="record file (JSON); '-' reads stdin")
    ap.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    ap.add_argument("--db", help="results database (speedref-log's)")
    ap.add_argument("--id", help="with --db: the record's id (or row number)")
    args = ap.parse_args(argv)
    try:
        record, name = load_record(args)
        sheet, summary = check(record, name)
        # Build all output before printing anything: an error halfway must
        # leave stdout empty.
        text = json.dumps(summary) if args.json else sheet_text(record, sheet, summary)
    except Invalid as e:
        print(str(e).replace("\n", " "), file=sys.stderr)
        return 2
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
