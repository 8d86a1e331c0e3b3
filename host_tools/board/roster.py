"""The club's names and the table's name on a referee board, over its USB
serial console while the referee runs at its menu (docs/serial-protocol.md,
"Roster commands"; the command line is speedref-roster, host_tools/cli/roster.py).
Every name, the table's name and a file are checked here first, before any
board is looked for, with the board's own check (speedref/names.py): a name
the board would refuse, or a file with more names than a board keeps (100),
is refused whole and nothing is sent: the roster on the board stays as it
was.  A file's names are one a line, its lines ending at \n or \r\n only: any
other line separator (VT, FF, FS, GS, RS, NEL, U+2028, U+2029, a lone CR) is
a character inside a name, and refused as one.

The board's answers are checked as strictly as the board checks the
laptop's commands (speedref/roster.py): an answer of the wrong shape (no
names, names that are not a list of names the board would take, a name
twice, no table name or a bad one, a push part's receipt out of turn, JSON
the laptop would not accept) is one line saying what is wrong, and nothing
is written.
"""
import json
import re
import time

from speedref import names as N
from host_tools import jsonin
from host_tools.jsonin import printable

LINE_MAX = 256        # the board's longest command line (speedref/device.py LINE_MAX)
FILE_MAX = 1 << 20    # a roster file is a few hundred bytes; 1 MB is no roster
ANSWER_S = 10.0       # a board at its menu answers in milliseconds; a flash write takes some
ANSWER_MAX = 64 * 1024  # bytes in one line from the board: 100 names are under 2 KB
SHOWN = 10            # bad lines of a file listed, then a count of the rest
ROSTER = "roster"     # what answers a table, add, remove, list and a push's last part


class Problem(Exception):
    """One line on stderr, exit 1: the board refused, did not answer, or
    cannot be reached."""
    status = 1


class BadInput(Problem):
    """A bad command line, name or file: exit 2, nothing sent."""
    status = 2


class BadAnswer(Problem):
    """An answer the board would not send: exit 2, nothing written."""
    status = 2

    def __init__(self, why, raw=None):
        shown = "" if raw is None else " (answer: %s)" % _excerpt(raw)
        Problem.__init__(self, "the board's answer is wrong: %s%s" % (why, shown))


def _excerpt(raw, n=80):
    text = printable(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw))
    return text if len(text) <= n else text[:n - 3] + "..."


def lines(text):
    """A file's lines: split at \n and \r\n, and nowhere else (a VT, FF,
    NEL, U+2028 or lone CR inside a line stays in it, for the name check
    to refuse by name)."""
    out = text.split("\n")
    if out and out[-1] == "":
        out.pop()            # the file's last line end
    return [line[:-1] if line.endswith("\r") else line for line in out]


def read_names(path, text=None):
    """The names of a roster file, in order, a case-only repeat kept once:
    one a line (lines()), blank lines and lines starting with '#' skipped,
    spaces and tabs around a name dropped.  BadInput naming every bad line
    (the first SHOWN), or a file holding more than a board keeps."""
    if text is None:
        try:
            with open(path, "rb") as f:
                data = f.read(FILE_MAX + 1)
        except OSError as e:
            raise BadInput("cannot read %s: %s" % (path, e.strerror or e))
        if len(data) > FILE_MAX:
            raise BadInput("%s is larger than %d KB: not a roster (one name a line); nothing sent"
                           % (path, FILE_MAX >> 10))
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = data[:e.start].count(b"\n") + 1
            raise BadInput("%s: line %d is not UTF-8 text; nothing sent" % (path, line))
    out = []
    seen = set()        # each name kept, folded: a case-only repeat found in one look
    bad = []
    for i, line in enumerate(lines(text), 1):
        s = line.strip(" \t")
        if not s or s.startswith("#"):
            continue
        try:
            name = N.clean(s)
        except N.BadName as e:
            bad.append("line %d: %s" % (i, e))
            continue
        key = N.fold(name)
        if key not in seen:
            seen.add(key)
            out.append(name)
    if bad:
        more = "" if len(bad) <= SHOWN else "\n  ... and %d more" % (len(bad) - SHOWN)
        raise BadInput("%s: %d name%s the board would refuse; nothing sent:\n  %s%s" % (
            path, len(bad), "" if len(bad) == 1 else "s", "\n  ".join(bad[:SHOWN]), more))
    if len(out) > N.ROSTER_MAX:
        raise BadInput("%s holds %d names; a board keeps %d at most: nothing sent (split the club's "
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


# --- the board's answers ------------------------------------------------------------
def _kind(v):
    """What a JSON value is, in words."""
    if v is None or isinstance(v, bool):
        return json.dumps(v)
    if isinstance(v, str):
        return "a string"
    if isinstance(v, (int, float)):
        return "a number"
    return "a list" if isinstance(v, list) else "an object"


def _whole(answer, field, low, raw):
    """answer[field], a whole number from `low`; BadAnswer."""
    if field not in answer:
        raise BadAnswer('no "%s"' % field, raw)
    v = answer[field]
    if isinstance(v, bool) or not isinstance(v, int):
        raise BadAnswer('"%s" is %s, not a whole number' % (field, _kind(v)), raw)
    if v < low:
        raise BadAnswer('"%s" is %d, not a whole number from %d' % (field, v, low), raw)
    return v


def check_roster(answer, raw=None):
    """A roster answer ({"ev": "roster", "table", "names", "max"}) checked
    as the board checks a push (speedref/roster.py, names.py): the table's
    name and every name one the board would take, no name twice, no more
    than a board keeps.  (table, [names]); BadAnswer saying what is wrong."""
    if "table" not in answer:
        raise BadAnswer('no "table" (the table\'s name)', raw)
    if not isinstance(answer["table"], str):
        raise BadAnswer('"table" is %s, not text' % _kind(answer["table"]), raw)
    try:
        table = N.clean_table(answer["table"])
    except N.BadName as e:
        raise BadAnswer('"table": %s' % e, raw)
    if "names" not in answer:
        raise BadAnswer('no "names" (the roster: a list of names)', raw)
    got = answer["names"]
    if not isinstance(got, list):
        raise BadAnswer('"names" is %s, not a list of names' % _kind(got), raw)
    names = []
    where = {}          # a name folded -> its index in names
    for i, n in enumerate(got, 1):
        if not isinstance(n, str):
            raise BadAnswer("name %d is %s, not text" % (i, _kind(n)), raw)
        try:
            n = N.clean(n)
        except N.BadName as e:
            raise BadAnswer("name %d: %s" % (i, e), raw)
        first = where.setdefault(N.fold(n), len(names))
        if first < len(names):
            raise BadAnswer("name %d, %s, is %s's again: one person is on a roster once" % (i, n, names[first]), raw)
        names.append(n)
    most = _whole(answer, "max", 1, raw)
    if len(names) > N.ROSTER_MAX:
        raise BadAnswer("%d names, more than a board keeps (%d)" % (len(names), N.ROSTER_MAX), raw)
    if len(names) > most:
        raise BadAnswer('%d names, more than its "max" (%d)' % (len(names), most), raw)
    return table, names


def check_receipt(answer, part, raw=None):
    """A push part's receipt ({"ev": "roster_part", "part", "count"}) for part `part`."""
    got = _whole(answer, "part", 0, raw)
    if got != part:
        raise BadAnswer("push part %d's receipt, not part %d's" % (got, part), raw)
    if _whole(answer, "count", 0, raw) > N.ROSTER_MAX:
        raise BadAnswer('"count" is %d, more than a board keeps (%d)' % (answer["count"], N.ROSTER_MAX), raw)


# an answer's start, found even in a line cut short or garbled
_ANSWER_START = re.compile(r'"ev"\s*:\s*"roster(_part)?"')
ANSWERS = ("roster", "roster_part")


def answer_in(raw, expect):
    """The board's answer in one line from its console, checked: a dict, or
    None for a line that is no answer (a game's, the REPL's, noise).  A
    refusal is a Problem; an answer of the wrong shape BadAnswer.
    `expect`: ROSTER, or the number of the push part whose receipt is due."""
    raw = raw.strip()
    text = raw.decode("utf-8", "replace")
    try:
        loose = json.loads(text)
    except ValueError:
        if text.startswith("{") and _ANSWER_START.search(text):
            raise BadAnswer("not JSON (a line cut short?)", raw)
        return None
    if not isinstance(loose, dict):
        return None
    ev = loose.get("ev")
    refusal = ev == "error" and loose.get("what") in ("roster", "command")
    if ev not in ANSWERS and not refusal:
        return None
    try:
        answer = jsonin.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadAnswer("not UTF-8 text", raw)
    except jsonin.BadJSON as e:
        raise BadAnswer("not strict JSON: %s" % e, raw)
    if refusal:
        msg = answer.get("msg")
        if not isinstance(msg, str) or not msg.strip():
            raise BadAnswer("a refusal without its reason", raw)
        raise Problem("the board refused it: %s" % printable(msg[:200]))
    if expect == ROSTER:
        if ev != "roster":
            raise BadAnswer('a push part\'s receipt ("roster_part"), not the roster', raw)
        check_roster(answer, raw)
    else:
        if ev != "roster_part":
            raise BadAnswer('the roster ("roster"), not push part %d\'s receipt' % expect, raw)
        check_receipt(answer, expect, raw)
    return answer


def open_port(port=None):
    """The board's serial port opened (`port`, or the one board plugged in:
    board/ports.py); Problem saying what to do when there is none or it
    cannot be opened."""
    if port is None:
        from host_tools.board.ports import find_port
        port = find_port()
        if port is None:
            raise Problem("no board found: plug it in, or name its port with --port")
    import serial
    try:
        return serial.Serial(port, 115200, timeout=0.1)
    except (serial.SerialException, OSError) as e:
        raise Problem("cannot open %s: %s" % (port, e))


class Board:
    """The board's console: a command line out, its answer back."""

    def __init__(self, port, timeout=ANSWER_S, out=None):
        self.port = port
        self.timeout = timeout
        self.seen = out if out is not None else []   # every answer read, for tests

    def ask(self, cmd, expect=ROSTER, reader=None):
        """Send one command; the board's answer (answer_in, or `reader`:
        checked).  Other lines (a game's, the REPL's) are skipped."""
        reader = reader or answer_in
        line = json.dumps(cmd, separators=(",", ":")) + "\n"
        self.port.write(line.encode())
        end = time.monotonic() + self.timeout
        buf = b""
        skipping = False      # inside a line too long for any answer: dropped to its end
        while time.monotonic() < end:
            chunk = self.port.read(4096)
            if not chunk:
                time.sleep(0.01)
                continue
            buf += chunk
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                if skipping:
                    skipping = False
                    continue
                answer = reader(raw, expect)
                if answer is not None:
                    self.seen.append(answer)
                    return answer
            if len(buf) > ANSWER_MAX:
                if _ANSWER_START.search(buf[:200].decode("utf-8", "replace")):
                    raise BadAnswer("a line longer than %d KB: no roster is that long" % (ANSWER_MAX >> 10))
                buf, skipping = b"", True
        raise Problem("no answer from the board in %g s: is the referee running at its menu "
                      "(not at the REPL, not in another program's hands)?" % self.timeout)
