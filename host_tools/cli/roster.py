"""speedref-roster: the club's names and the table's name on a referee board.

    speedref-roster [--port PORT] list
    speedref-roster [--port PORT] add NAME [NAME ...]
    speedref-roster [--port PORT] remove NAME [NAME ...]
    speedref-roster [--port PORT] push FILE      (one name a line; replaces the roster)
    speedref-roster [--port PORT] pull [FILE]    (the roster, one name a line)
    speedref-roster [--port PORT] --table-name "Table 3" [VERB ...]

Over the board's USB serial console while the referee runs at its menu
(docs/serial-protocol.md, "Roster commands"; docs/host-tools.md).  Every
name, the table's name and a file are checked here first, before any board
is looked for, with the board's own check (speedref/names.py): a name the
board would refuse, or a file with more names than a board keeps (100), is
refused whole and nothing is sent: the roster on the board stays as it was.
A file's names are one a line, its lines ending at \n or \r\n only: any
other line separator (VT, FF, FS, GS, RS, NEL, U+2028, U+2029, a lone CR) is
a character inside a name, and refused as one.

The board's answers are checked as strictly as the board checks the
laptop's commands (speedref/roster.py): an answer of the wrong shape (no
names, names that are not a list of names the board would take, a name
twice, no table name or a bad one, a push part's receipt out of turn, JSON
the laptop would not accept) is one line saying what is wrong, and nothing
is written.

Exit status: 0 done; 1 the board refused (its reason), did not answer, or
cannot be reached; 2 a bad command line, name or file, or an answer from
the board that is not one it would send.
"""
import argparse
import math
import sys

from speedref import names as N
from host_tools import jsonin
from host_tools.board.roster import (ANSWER_S, ROSTER, BadAnswer, BadInput, Board, Problem, batches,
                                     check_roster, read_names)
from host_tools.jsonin import printable


def plan(args):
    """[(command, what answers it)] for a command line, every name, the
    table's name and a file checked first: BadInput, before any board is
    looked for."""
    cmds = []
    if args.table_name is not None:
        try:
            name = N.clean_table(args.table_name)
        except N.BadName as e:
            raise BadInput("%s; nothing sent" % e)
        cmds.append(({"cmd": "table", "name": name}, ROSTER))
    verb = args.verb
    if verb in ("add", "remove"):
        if not args.names:
            raise BadInput("%s: which names?" % verb)
        names = []
        for n in args.names:
            try:
                names.append(N.clean(n))
            except N.BadName as e:
                raise BadInput("%s; nothing sent" % e)
        for part in batches(verb, names):
            cmds.append(({"cmd": "roster", verb: part}, ROSTER))
    elif verb == "push":
        if len(args.names) != 1:
            raise BadInput("push FILE: one file, one name a line")
        parts = batches("push", read_names(args.names[0]))
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            cmds.append(({"cmd": "roster", "push": part, "part": i, "end": last}, ROSTER if last else i))
    elif verb in ("list", "pull") or not cmds:
        if verb in ("list", None) and args.names:
            raise BadInput("list takes no names")
        if verb == "pull" and len(args.names) > 1:
            raise BadInput("pull [FILE]: one file at most")
        cmds.append(({"cmd": "roster"}, ROSTER))
    return cmds


def run(board, args, out, commands=None):
    """Send the command line's commands (plan()) and show the answers."""
    answer = None
    for cmd, expect in plan(args) if commands is None else commands:
        answer = board.ask(cmd, expect)
        if cmd["cmd"] == "table":
            table = N.clean_table(answer["table"])
            if table != cmd["name"]:
                raise BadAnswer('it gives the table name "%s", not "%s"' % (printable(table), cmd["name"]))
            out.write("table name: %s\n" % printable(table))
    table, names = check_roster(answer)
    if args.verb == "pull":
        text = "".join(n + "\n" for n in names)
        if args.names:
            try:
                with open(args.names[0], "w", encoding="utf-8") as f:
                    f.write(text)
            except OSError as e:
                raise Problem("cannot write %s: %s" % (args.names[0], e.strerror or e))
            out.write("%d names written to %s\n" % (len(names), args.names[0]))
        else:
            out.write(text)
        return 0
    out.write("%s: %d of %d names\n" % (printable(table), len(names), answer["max"]))
    for i, n in enumerate(names, 1):
        out.write("%3d  %s\n" % (i, printable(n)))
    return 0


def seconds(text):
    """--timeout: a number of seconds above 0."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError("%r is not a number of seconds above 0" % text)
    return v


def build_parser():
    p = argparse.ArgumentParser(prog="speedref-roster",
                                description="The club's names and the table's name on a referee board.")
    p.add_argument("verb", nargs="?", choices=("list", "add", "remove", "push", "pull"),
                   help="list (default), add NAME..., remove NAME..., push FILE, pull [FILE]")
    p.add_argument("names", nargs="*", metavar="NAME|FILE")
    p.add_argument("--port", help="the board's serial port (default: the one MicroPython board attached)")
    p.add_argument("--table-name", metavar="NAME", help="set this board's table name (1-16 characters)")
    p.add_argument("--timeout", type=seconds, default=ANSWER_S, help="seconds to wait for each answer")
    return p


def main(argv=None, out=None):
    args = build_parser().parse_args(argv)
    jsonin.setup_stdio()
    out = out or sys.stdout
    try:
        commands = plan(args)   # every name, the table's name and a file, before any port
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
            return run(Board(ser, args.timeout), args, out, commands)
        finally:
            ser.close()
    except Problem as e:
        sys.stderr.write("speedref-roster: %s\n" % e)
        return e.status


if __name__ == "__main__":
    sys.exit(main())
