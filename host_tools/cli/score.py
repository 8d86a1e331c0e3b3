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
import sys

from host_tools import jsonin
from host_tools.intake.recordfiles import Invalid, read_record_file, store_files
from host_tools.views.scoresheet import render


def load_record(args):
    if args.db or args.id is not None:
        from host_tools.club.db import ResultsDB, DatabaseProblem, default_path
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


def main(argv=None):
    ap = argparse.ArgumentParser(prog="speedref-score", description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", help="record file (JSON); '-' reads stdin")
    ap.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    from host_tools.club.db import db_help
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
