"""speedref-roster: the club's names and the table's name on a referee board.

    speedref-roster [--port PORT] list
    speedref-roster [--port PORT] add NAME [NAME ...]
    speedref-roster [--port PORT] remove NAME [NAME ...]
    speedref-roster [--port PORT] push FILE      (one name a line; replaces the roster)
    speedref-roster [--port PORT] pull [FILE]    (the roster, one name a line)
    speedref-roster [--port PORT] --table-name "Table 3" [VERB ...]

Over the board's USB serial console while the referee runs at its menu
(docs/serial-protocol.md, "Roster commands"; docs/host-tools.md).  Every
name is checked here first with the board's own check (speedref/names.py):
1-10 printable ASCII characters, no seat label (P1..P4) or "Guest"; a table
name up to 16.  A file with any name the board would refuse, or with more
names than a board keeps (100), is refused whole and nothing is sent: the
roster on the board stays as it was.
"""
import argparse
import sys

from speedref import names as N
from host_tools.board.roster import ANSWER_S, Board, Problem, batches, read_names
from host_tools.jsonin import printable


def run(board, args, out):
    answer = None
    if args.table_name is not None:
        try:
            name = N.clean_table(args.table_name)
        except N.BadName as e:
            raise Problem(str(e))
        answer = board.ask({"cmd": "table", "name": name})
        out.write("table name: %s\n" % printable(str(answer["table"])))
    verb = args.verb
    if verb in ("add", "remove"):
        if not args.names:
            raise Problem("%s: which names?" % verb)
        names = []
        for n in args.names:
            try:
                names.append(N.clean(n))
            except N.BadName as e:
                raise Problem("%s; nothing sent" % e)
        for part in batches(verb, names):
            answer = board.ask({"cmd": "roster", verb: part})
    elif verb == "push":
        if len(args.names) != 1:
            raise Problem("push FILE: one file, one name a line")
        names = read_names(args.names[0])
        parts = batches("push", names)
        for i, part in enumerate(parts):
            answer = board.ask({"cmd": "roster", "push": part, "part": i, "end": i == len(parts) - 1})
    elif verb in ("list", "pull") or answer is None:
        if verb not in ("list", "pull") and verb is not None:
            raise Problem("unknown verb %r" % verb)
        if verb == "pull" and len(args.names) > 1:
            raise Problem("pull [FILE]: one file at most")
        answer = board.ask({"cmd": "roster"})
    if verb == "pull":
        # what the board sent is written only if the board would take it back
        good = [n for n in answer["names"] if N.why_not(n) is None]
        if len(good) != len(answer["names"]):
            sys.stderr.write("speedref-roster: %d names from the board are no names (left out)\n"
                             % (len(answer["names"]) - len(good)))
        text = "".join(n + "\n" for n in good)
        if args.names:
            try:
                with open(args.names[0], "w", encoding="utf-8") as f:
                    f.write(text)
            except OSError as e:
                raise Problem("cannot write %s: %s" % (args.names[0], e.strerror or e))
            out.write("%d names written to %s\n" % (len(answer["names"]), args.names[0]))
        else:
            out.write(text)
        return 0
    if answer.get("ev") == "roster":
        names = answer["names"]
        out.write("%s: %d of %s names\n" % (printable(str(answer["table"])), len(names),
                                              printable(str(answer.get("max", N.ROSTER_MAX)))))
        for i, n in enumerate(names, 1):
            out.write("%3d  %s\n" % (i, printable(str(n))))
    return 0


def build_parser():
    p = argparse.ArgumentParser(prog="speedref-roster",
                                description="The club's names and the table's name on a referee board.")
    p.add_argument("verb", nargs="?", choices=("list", "add", "remove", "push", "pull"),
                   help="list (default), add NAME..., remove NAME..., push FILE, pull [FILE]")
    p.add_argument("names", nargs="*", metavar="NAME|FILE")
    p.add_argument("--port", help="the board's serial port (default: the one MicroPython board attached)")
    p.add_argument("--table-name", metavar="NAME", help="set this board's table name (1-16 characters)")
    p.add_argument("--timeout", type=float, default=ANSWER_S, help="seconds to wait for each answer")
    return p


def main(argv=None, out=None):
    args = build_parser().parse_args(argv)
    out = out or sys.stdout
    try:
        if args.verb == "push" and len(args.names) == 1:
            read_names(args.names[0])  # a bad file is refused before any port is opened
        port = args.port
        if port is None:
            from host_tools.board.ports import find_port
            port = find_port()
            if port is None:
                raise Problem("no board found: plug it in, or name its port with --port")
        import serial
        try:
            ser = serial.Serial(port, 115200, timeout=0.1)
        except (serial.SerialException, OSError) as e:
            raise Problem("cannot open %s: %s" % (port, e))
        try:
            return run(Board(ser, args.timeout), args, out)
        finally:
            ser.close()
    except Problem as e:
        sys.stderr.write("speedref-roster: %s\n" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
