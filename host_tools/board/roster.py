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
import json
import sys
import time

from speedref import names as N
from host_tools.jsonin import printable

LINE_MAX = 256        # the board's longest command line (speedref/device.py LINE_MAX)
FILE_MAX = 1 << 20    # a roster file is a few hundred bytes; 1 MB is no roster
ANSWER_S = 10.0       # a board at its menu answers in milliseconds; a flash write takes some
SHOWN = 10            # bad lines of a file listed, then a count of the rest


class Problem(Exception):
    """One line on stderr, exit 1 (2 for a bad command line)."""


def read_names(path, text=None):
    """The names of a roster file, in order, a case-only repeat kept once:
    one a line, blank lines and lines starting with '#' skipped, spaces
    around a name dropped.  Problem naming every bad line (the first
    SHOWN), or a file holding more than a board keeps."""
    if text is None:
        try:
            with open(path, "rb") as f:
                data = f.read(FILE_MAX + 1)
        except OSError as e:
            raise Problem("cannot read %s: %s" % (path, e.strerror or e))
        if len(data) > FILE_MAX:
            raise Problem("%s is larger than %d KB: not a roster (one name a line); nothing sent"
                          % (path, FILE_MAX >> 10))
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = data[:e.start].count(b"\n") + 1
            raise Problem("%s: line %d is not UTF-8 text; nothing sent" % (path, line))
    out = []
    seen = set()  # the names folded to lower case: one person each
    bad = []
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip(" \t")
        if not s or s.startswith("#"):
            continue
        try:
            name = N.clean(s)
        except N.BadName as e:
            bad.append("line %d: %s" % (i, e))
            continue
        if name.lower() not in seen:
            seen.add(name.lower())
            out.append(name)
    if bad:
        more = "" if len(bad) <= SHOWN else "\n  ... and %d more" % (len(bad) - SHOWN)
        raise Problem("%s: %d name%s the board would refuse; nothing sent:\n  %s%s" % (
            path, len(bad), "" if len(bad) == 1 else "s", "\n  ".join(bad[:SHOWN]), more))
    if len(out) > N.ROSTER_MAX:
        raise Problem("%s holds %d names; a board keeps %d at most: nothing sent (split the club's "
                      "list, or push the %d who play at this table)" % (
                          path, len(out), N.ROSTER_MAX, N.ROSTER_MAX))
    return out


def batches(key, names, extra=None):
    """Command dicts carrying `names` under `key`, each line within LINE_MAX."""
    out = []
    cur = []
    for name in names:
        trial = dict(extra or {}, cmd="roster", **{key: cur + [name], "part": 99, "end": False})
        if cur and len(json.dumps(trial)) > LINE_MAX - 8:
            out.append(cur)
            cur = []
        cur.append(name)
    out.append(cur)
    return out


class Board:
    """The board's console: a command line out, its answer back."""

    def __init__(self, port, timeout=ANSWER_S, out=None):
        self.port = port
        self.timeout = timeout
        self.seen = out if out is not None else []   # every JSON line read, for tests

    def ask(self, cmd):
        """Send one command; the board's answer (a roster line, a roster
        part's or a refusal).  Other lines (a game's, the REPL's) are skipped."""
        line = json.dumps(cmd, separators=(",", ":")) + "\n"
        self.port.write(line.encode())
        timeout = self.timeout
        end = time.monotonic() + timeout
        buf = b""
        while time.monotonic() < end:
            chunk = self.port.read(4096)
            if not chunk:
                continue
            buf += chunk
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                try:
                    obj = json.loads(raw.decode("utf-8", "replace").strip("\r"))
                except ValueError:
                    continue
                if not isinstance(obj, dict):
                    continue
                self.seen.append(obj)
                ev = obj.get("ev")
                if ev in ("roster", "roster_part"):
                    return obj
                if ev == "error" and obj.get("what") in ("roster", "command"):
                    raise Problem("the board refused it: %s" % printable(str(obj.get("msg"))))
        raise Problem("no answer from the board in %g s: is the referee running at its menu "
                      "(not at the REPL, not in another program's hands)?" % timeout)


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
