"""speedref-score: print the scoresheet of a game record.

    speedref-score FILE [--json]          FILE is a record (JSON object); '-' = stdin
    speedref-score [--db FILE] --id ID    a record kept in the results database
    speedref-score --store DIR [--json]   every record in a device store (DIR or DIR/rec)

FILE may be plain JSON or a record file as the device keeps it on flash
(a first line `SRF1 <crc32> <length>`, then the JSON body: speedref/storage.py);
its CRC and length are checked.

The record is checked by replaying it through its game's rules (the engine's
records.replay), the same code the referee keeps score with.  An invalid record
exits 2 with one line on stderr naming the hand, the player and the rule, and
prints nothing on stdout.
"""
import argparse
import json
import os
import stat
import sys
import zlib

import wcwidth

from speedref.engine import records
from speedref.engine.errors import RuleError
from speedref import games

from host_tools import jsonin



def _game(record):
    """The registry's entry for a record's game, or None for an unknown one."""
    try:
        return games.get(record.get("game"))
    except games.UnknownGame:
        return None


class Invalid(Exception):
    """A record we refuse: the message is the one line for stderr."""


def load_record(args):
    if args.db or args.id is not None:
        from host_tools.db import ResultsDB, DatabaseProblem, default_path
        if args.id is None:
            raise Invalid("--db needs --id ID (the record's id, or its row number)")
        path = args.db or default_path()
        try:
            db = ResultsDB(path, create=False)
            try:
                rec = db.find_record(args.id)
                others = db.rows_with_id(args.id)[1:]
            finally:
                db.close()
        except DatabaseProblem as e:
            raise Invalid(str(e))
        if rec is None:
            raise Invalid("%s: no record with id %s" % (path, args.id))
        if others:
            # games that reused this id were kept beside the first one
            jsonin.complain(None, "note: %s also holds %s with id %s: --id %s" % (
                path, "games" if len(others) > 1 else "a game", args.id,
                " or ".join(str(r) for r in others)), 0)
        return rec, "%s#%s" % (path, args.id)
    if args.file is None:
        raise Invalid("give a record FILE ('-' for stdin), --db FILE --id ID or --store DIR")
    return read_record_file(args.file)


RECORD_MAX = 4 * 1024 * 1024     # a game record file is a few KB; a bigger one is not read


def open_regular(path):
    """path opened for reading in binary, if it is a regular file (a symlink
    to one included); Invalid for a pipe, a device, a socket or a folder,
    which is never read: opened without blocking (a named pipe with no writer
    would wait forever), then checked on the open file itself."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise Invalid("%s: cannot read: %s" % (path, e.strerror or e))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = ("a named pipe" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                    else "a socket" if stat.S_ISSOCK(mode) else "a folder" if stat.S_ISDIR(mode) else "not a file")
            raise Invalid("%s: not a regular file (%s)" % (path, what))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_limited(path, limit=None):
    """The bytes of the regular file at path, at most `limit` (RECORD_MAX) of
    them: Invalid for anything else or anything bigger."""
    limit = RECORD_MAX if limit is None else limit
    with open_regular(path) as f:
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise Invalid("%s: cannot read: %s" % (path, e.strerror or e))
    if len(data) > limit:
        raise Invalid("%s: larger than %d KB: not a game record file" % (path, limit >> 10))
    return data


def read_record_file(path):
    """(record, name) from a JSON file or a device record file ('-' = stdin);
    only a regular file of at most RECORD_MAX bytes is read."""
    name = "<stdin>" if path == "-" else path
    if path == "-":
        try:
            data = sys.stdin.buffer.read(RECORD_MAX + 1)
        except OSError as e:
            raise Invalid("%s: cannot read: %s" % (name, e.strerror or e))
        if len(data) > RECORD_MAX:
            raise Invalid("%s: larger than %d KB: not a game record" % (name, RECORD_MAX >> 10))
    else:
        data = read_limited(path)
    if data.startswith(b"SRF1"):
        data = device_file_body(data, name)
    elif data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]          # a UTF-8 BOM some editors write
    try:
        return jsonin.loads(data), name
    except jsonin.BadJSON as e:
        raise Invalid("%s: bad JSON: %s" % (name, e))


def device_file_body(data, name):
    """The JSON body of a device record file, after checking its header line."""
    nl = data.find(b"\n")
    parts = data[:nl].split() if 0 < nl <= 40 else []
    try:
        if len(parts) != 3 or parts[0] != b"SRF1" or len(parts[1]) != 8:
            raise ValueError
        want_crc, want_len = int(parts[1], 16), int(parts[2])
    except ValueError:
        raise Invalid("%s: bad record file header (expected 'SRF1 <crc32 8 hex> <length>')" % name)
    body = data[nl + 1:]
    if len(body) != want_len:
        raise Invalid("%s: damaged record file: length %d, header says %d (cut short?)"
                      % (name, len(body), want_len))
    crc = zlib.crc32(body) & 0xFFFFFFFF
    if crc != want_crc:
        raise Invalid("%s: damaged record file: CRC %08x, header says %08x" % (name, crc, want_crc))
    return body


def store_files(directory):
    """The record files of a device store (DIR/rec, or DIR itself), oldest first."""
    rec_dir = os.path.join(directory, "rec")
    if not os.path.isdir(rec_dir):
        rec_dir = directory
    try:
        names = os.listdir(rec_dir)
    except OSError as e:
        raise Invalid("%s: cannot read: %s" % (directory, e.strerror or e))
    # a record's number is ASCII digits: "².json" or "①.json" is no record file
    seqs = sorted(n for n in names if n.endswith(".json") and n[:-5].isascii() and n[:-5].isdigit())
    if not seqs:
        raise Invalid("%s: no record files (NNNNNNNN.json) in it or in its rec/ folder" % directory)
    return [os.path.join(rec_dir, n) for n in sorted(seqs, key=lambda n: int(n[:-5]))]


def check(record, name):
    """(sheet, summary dict), or Invalid naming the rule, hand and player."""
    try:
        return records.replay(record), records.summary(record)
    except RuleError as e:
        # The game modules word it "hand 3, player 2: ..." and the rule leads.
        raise Invalid("%s: invalid record: %s" % (name, e))
    except (KeyError, TypeError, IndexError, AttributeError, ValueError, RecursionError) as e:
        raise Invalid("%s: invalid record: %s: %s" % (name, type(e).__name__, e))


def table(header, rows):
    """Left-aligned text columns wide enough for every cell, measured in the
    cells a terminal gives the text (wcwidth: a name in CJK or with an emoji
    takes two a character, a combining mark none)."""
    widths = [max(wcwidth.width(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = []
    for r in [header] + rows:
        lines.append("  ".join(wcwidth.ljust(c, w) for c, w in zip(r, widths)).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def sheet_parts(record, sheet, summary):
    """The score sheet as its parts, for the text here and the results page
    (host_tools/results_page.py), so both show the same numbers:
      head     the title line: game, options, record id
      unit     what one row is called, (singular, plural): ("Deal", "deals")
      names    a column per scored side: the players, or "side N"
      rows     [(label, [(cell, running total) per column])]
      totals   [(name, total)]
      result   "Winner: Ann", "Shared win: Ann and Bob" or "No winner"
      decided  what decided it, or None
      played   "3 deals played" ("1 deal played"), ", ended early" when it was
    Strings are as the device sent them: the text escapes control characters,
    the page HTML-escapes."""
    players = [str(p) for p in sheet.players]
    g = _game(record)
    title = g.title if g else str(record.get("game"))
    extra = [str(record[k]) for k in ("length", "layout") if isinstance(record.get(k), str)]
    head = title + (" (" + ", ".join(extra) + ")" if extra else "")
    if record.get("id") is not None:
        head += "  record " + str(record["id"])
    ncol = len(summary["totals"])
    names = players if len(players) == ncol else ["side %d" % (i + 1) for i in range(ncol)]
    rows = [(str(label), list(zip((str(c) for c in cells), running)))
            for label, cells, running in sheet.rows()]
    win = summary["winners"]
    who = " and ".join(players[w] if w < len(players) else "seat %d" % w for w in win)
    if len(win) > 1:
        result = "Shared win: " + who
    elif win:
        result = "Winner: " + who
    else:
        result = "No winner"
    # what one row of the sheet is called (hands_played counts these)
    unit = (g.unit.capitalize(), g.unit + "s") if g else ("Hand", "hands")
    return {"head": head, "unit": unit, "names": names, "rows": rows,
            "totals": list(zip(names, summary["totals"])), "result": result,
            "decided": str(summary["tiebreak"]) if summary.get("tiebreak") else None,
            "played": "%s played%s" % (jsonin.count(summary["hands_played"], g.unit if g else "hand", unit[1]),
                                       ", ended early" if summary["ended_early"] else "")}


def cell_text(cell, running):
    """One sheet cell with its running total: "won +15  = 15", or "= 40"."""
    return ("%s  = %s" % (cell, running)) if cell != "" else "= %s" % running


def sheet_text(record, sheet, summary):
    parts = sheet_parts(record, sheet, summary)
    p = jsonin.printable
    lines = [parts["head"], ""]
    # escaped before the columns are measured: an escape is longer than its character
    rows = [[p(label)] + [p(cell_text(c, t)) for c, t in cells] for label, cells in parts["rows"]]
    lines += table([parts["unit"][0]] + [p(n) for n in parts["names"]], rows)
    lines.append("")
    lines.append("Totals: " + ", ".join("%s %s" % (n, t) for n, t in parts["totals"]))
    lines.append(parts["result"])
    if parts["decided"]:
        lines.append("Decided by: " + parts["decided"])
    lines.append(parts["played"])
    return "\n".join(jsonin.printable(line) for line in lines)


def render(record, name, as_json):
    sheet, summary = check(record, name)
    return json.dumps(summary) if as_json else sheet_text(record, sheet, summary)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="speedref-score", description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", help="record file (JSON); '-' reads stdin")
    ap.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    from host_tools.db import db_help
    ap.add_argument("--db", help="results database (speedref-log's; %s)" % db_help())
    ap.add_argument("--id", help="a record in the database: its id (or row number)")
    ap.add_argument("--store", metavar="DIR",
                    help="every record in a device store folder (its rec/ files); "
                         "damaged ones are named on stderr and skipped (exit 2)")
    args = ap.parse_args(argv)
    jsonin.setup_stdio()
    try:
        if args.store:
            return print_store(args)
        record, name = load_record(args)
        # Build all output before printing anything: an error halfway must
        # leave stdout empty.
        text = render(record, name, args.json)
    except Invalid as e:
        print(one_line(e), file=sys.stderr)
        return 2
    return emit([text])


def one_line(e):
    return jsonin.printable(str(e).replace("\n", " "))


def print_store(args):
    texts, bad = [], 0
    for path in store_files(args.store):
        try:
            record, name = read_record_file(path)
            texts.append(render(record, name, args.json))
        except Invalid as e:
            print("skipped: " + one_line(e), file=sys.stderr)
            bad += 1
    status = emit(texts, sep="\n" if args.json else "\n\n")
    return 2 if bad else status


def emit(texts, sep="\n"):
    """Print: 0; a reader that went away (`| head -1`) ends the run quietly,
    an output that cannot be written is one line on stderr and 2."""
    return jsonin.write_out(sep.join(texts) + "\n" if texts else "", "speedref-score")


if __name__ == "__main__":
    sys.exit(main())
