"""The club's names and the table's name on a referee board, over its USB
serial console while the referee runs at its menu (docs/serial-protocol.md,
"Roster commands"; the command line is speedref-roster,
host_tools/cli/roster.py).  Every name is checked here first with the
board's own check (speedref/names.py): 1-10 printable ASCII characters, no
seat label (P1..P4) or "Guest"; a table name up to 16.  A file with any name
the board would refuse, or with more names than a board keeps (100), is
refused whole and nothing is sent: the roster on the board stays as it was.
"""
import json
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
