"""speedref-roster: the club's names and the table's name on a referee board.

    speedref-roster [--port PORT] list
    speedref-roster [--port PORT] add NAME [NAME ...]
    speedref-roster [--port PORT] remove NAME [NAME ...]
    speedref-roster [--port PORT] push FILE      (one name a line; replaces the roster)
    speedref-roster [--port PORT] pull [FILE]    (the roster, one name a line)
    speedref-roster [--port PORT] --table-name "Table 3" [VERB ...]
    speedref-roster [--port PORT] match [show]   (the match the board keeps)
    speedref-roster [--port PORT] match send --evening N --round N --game G [--option KEY=VALUE ...]
                    [--table "Table 3"] [--id ID] [--version N] NAME NAME ...   (one a seat; or FILE.json)
    speedref-roster [--port PORT] match clear
    speedref-roster match ... --mqtt mqtt://listener@HOST --club CLUB --to TABLE   (over Wi-Fi instead)

Over the board's USB serial console while the referee runs at its menu
(docs/serial-protocol.md, "Roster commands"; docs/host-tools.md).  `match`
gives the table its next match (host_tools/match.py: docs/serial-protocol.md,
"The match"): over USB, or with --mqtt on the table's match topic through
the club's broker (QoS 1, retained; the listener's account, its password
from $SPEEDREF_MQTT_PASSWORD).  Every
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
import json
import math
import re
import sys
import time

from speedref import games
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
        if N.find(out, name) < 0:
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
    for i, n in enumerate(got, 1):
        if not isinstance(n, str):
            raise BadAnswer("name %d is %s, not text" % (i, _kind(n)), raw)
        try:
            n = N.clean(n)
        except N.BadName as e:
            raise BadAnswer("name %d: %s" % (i, e), raw)
        first = N.find(names, n)
        if first >= 0:
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


# --- the command line -----------------------------------------------------------------
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


# --- the match (host_tools/match.py) ---------------------------------------------------
MATCH_VERBS = ("show", "send", "clear")


def match_plan(args):
    """(verb, match or None) for `match ...`, the match made and checked
    first: BadInput before any board or broker is looked for."""
    from host_tools import match as M
    words = list(args.names)
    verb = words.pop(0) if words and words[0] in MATCH_VERBS else "show"
    if verb != "send":
        if words:
            raise BadInput("match %s takes no names" % verb)
        return verb, None
    try:
        if len(words) == 1 and words[0].endswith(".json"):
            try:
                with open(words[0], "rb") as f:
                    data = f.read(M.MESSAGE_MAX * 4 + 1)
            except OSError as e:
                raise BadInput("cannot read %s: %s" % (words[0], e.strerror or e))
            m = M.parse_message(data)
            if m is None:
                raise BadInput("%s is empty: no match" % words[0])
            return verb, m
        if not words:
            raise BadInput("match send: the players, one a seat (NAME NAME ...), or a FILE.json")
        for need in ("evening", "round", "game"):
            if getattr(args, need) is None:
                raise BadInput("match send needs --%s" % need)
        if args.game not in M.games.IDS:
            raise BadInput("--game: one of %s" % ", ".join(M.games.IDS))
        opts = {}
        for item in args.option or ():
            key, eq, value = item.partition("=")
            if not eq:
                raise BadInput("--option %r: KEY=VALUE" % item)
            opts[key.strip()] = M.option_value(args.game, key.strip(), value)
        table = args.table
        if table is None:
            if args.mqtt:
                raise BadInput("match send --mqtt needs --table (the table's name shown on the board)")
            table = ""  # the board's own name, asked first (run_match)
        m = {"id": args.id or "e%dr%d" % (args.evening, args.round), "version": args.version,
             "evening": args.evening, "round": args.round, "table": table, "game": args.game,
             "opts": opts, "names": words}
        M.check_match(m if table else dict(m, table="Table"))  # all but the board's own name
        return verb, m
    except M.BadMatch as e:
        raise BadInput("the match: %s; nothing sent" % e)


def run_match(board, args, out, plan_):
    """`match` over USB: send, clear or show; the board's answers shown."""
    from host_tools import match as M
    verb, m = plan_
    if verb == "show":
        answer = M.board_match_now(board)
        out.write("%s (%s)\n" % (M.describe(answer.get("match")), answer["state"]))
        return 0
    if verb == "clear":
        M.clear_board(board)
        out.write("no match on the board\n")
        return 0
    if not m["table"]:
        table, _ = check_roster(board.ask({"cmd": "roster"}))
        m = dict(m, table=table)
    try:
        M.check_match(m)
    except M.BadMatch as e:
        raise BadInput("the match: %s; nothing sent" % e)
    answer = M.send_match(board, m)
    return _said(answer["state"], m, out)


_SAID = {"offered": "offered", "waiting": "waiting: a game is in play, offered when it ends",
         "same": "offered already", "played": "played already: not offered again",
         "cleared": "cleared", "none": "no match"}


def _said(state, m, out):
    from host_tools import match as M
    if state == "older":
        raise Problem("the board keeps a newer version of match %s: %s not sent (--version higher)"
                      % (m["id"], M.describe(m)))
    out.write("%s: %s\n" % (M.describe(m), _SAID.get(state, state)))
    return 0


def mqtt_match(args, out, plan_):
    """`match ... --mqtt URL`: the table's match topic on the club's broker."""
    import os
    from host_tools import match as M
    from host_tools import mqtt
    verb, m = plan_
    if not args.club or not args.to:
        raise BadInput("--mqtt needs --club CLUB and --to TABLE (the table's name on its topic)")
    try:
        M.topic(args.club, args.to)
    except M.BadMatch as e:
        raise BadInput(str(e))
    password = os.environ.get(mqtt.PASSWORD_ENV)
    try:
        if verb == "show":
            got = M.read_match(args.mqtt, args.club, args.to, password, args.ca, args.timeout)
            out.write("%s\n" % M.describe(got))
        elif verb == "clear":
            M.clear_match(args.mqtt, args.club, args.to, password, args.ca, args.timeout)
            out.write("no match on %s\n" % M.topic(args.club, args.to))
        else:
            M.publish_match(args.mqtt, args.club, args.to, m, password, args.ca, args.timeout)
            out.write("%s: published on %s\n" % (M.describe(m), M.topic(args.club, args.to)))
    except ValueError as e:  # a bad URL
        raise BadInput(str(e))
    except mqtt.Refused as e:
        raise Problem(str(e))
    return 0


def whole_number(text):
    """--evening, --round, --version: a whole number from 1."""
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError("%r is not a whole number from 1" % text)
    return v


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
    p.add_argument("verb", nargs="?", choices=("list", "add", "remove", "push", "pull", "match"),
                   help="list (default), add NAME..., remove NAME..., push FILE, pull [FILE], "
                        "match [show | send NAME... | send FILE.json | clear]")
    p.add_argument("names", nargs="*", metavar="NAME|FILE")
    p.add_argument("--port", help="the board's serial port (default: the one MicroPython board attached)")
    p.add_argument("--table-name", metavar="NAME", help="set this board's table name (1-16 characters)")
    p.add_argument("--timeout", type=seconds, default=ANSWER_S, help="seconds to wait for each answer")
    m = p.add_argument_group("match", "the table's next match (docs/serial-protocol.md, \"The match\")")
    m.add_argument("--evening", type=whole_number, help="the evening's number (speedref-club)")
    m.add_argument("--round", type=whole_number, help="the round's number")
    m.add_argument("--game", help="the game (%s)" % ", ".join(games.IDS))
    m.add_argument("--option", action="append", metavar="KEY=VALUE", help="an option the round sets (repeat)")
    m.add_argument("--table", metavar="NAME", help="the table's name the board shows (USB default: the board's own)")
    m.add_argument("--id", help="the match's id (default e<evening>r<round>)")
    m.add_argument("--version", type=whole_number, default=1,
                   help="a re-pairing of the same id: a higher version replaces the one the board keeps")
    m.add_argument("--mqtt", metavar="URL", help="over Wi-Fi: the club's broker, mqtt://listener@HOST[:PORT]")
    m.add_argument("--club", help="--mqtt: the club's name on the topic")
    m.add_argument("--to", metavar="TABLE", help="--mqtt: the table's name on its topic (its account's)")
    m.add_argument("--ca", metavar="FILE", help="--mqtt with mqtts://: the CA certificate to trust")
    return p


def main(argv=None, out=None):
    args = build_parser().parse_intermixed_args(argv)  # a match's players after its options
    jsonin.setup_stdio()
    out = out or sys.stdout
    try:
        if args.verb == "match":
            mplan = match_plan(args)  # the match made and checked, before any port or broker
            if args.table_name is not None:
                raise BadInput("--table-name and match: one at a time")
            if args.mqtt:
                return mqtt_match(args, out, mplan)
            commands = None
        else:
            commands = plan(args)   # every name, the table's name and a file, before any port
        port = args.port
        if port is None:
            from host_tools.log import find_port
            port = find_port()
            if port is None:
                raise Problem("no board found: plug it in, or name its port with --port")
        import serial
        try:
            ser = serial.Serial(port, 115200, timeout=0.1)
        except (serial.SerialException, OSError) as e:
            raise Problem("cannot open %s: %s" % (port, e))
        try:
            if args.verb == "match":
                return run_match(Board(ser, args.timeout), args, out, mplan)
            return run(Board(ser, args.timeout), args, out, commands)
        finally:
            ser.close()
    except Problem as e:
        sys.stderr.write("speedref-roster: %s\n" % e)
        return e.status


if __name__ == "__main__":
    sys.exit(main())
