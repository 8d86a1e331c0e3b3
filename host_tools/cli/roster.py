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
gives the table its next match (host_tools/board/match.py:
docs/serial-protocol.md, "The match"): over USB, or with --mqtt on the
table's match topic through the club's broker (QoS 1, retained; the
listener's account, its password from $SPEEDREF_MQTT_PASSWORD:
host_tools/intake/mqtt.py).  Every
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
import sys

from speedref import games
from speedref import names as N
from host_tools import jsonin
from host_tools.board.roster import (ANSWER_S, ROSTER, BadAnswer, BadInput, Board, Problem, batches,
                                     check_roster, open_port, read_names)
from host_tools.argtypes import seconds
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


# --- the match (host_tools/board/match.py, intake/mqtt.py) ------------------------------
MATCH_VERBS = ("show", "send", "clear")


def match_plan(args):
    """(verb, match or None) for `match ...`, the match made and checked
    first: BadInput before any board or broker is looked for."""
    from host_tools.board import match as M
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
    from host_tools.board import match as M
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
    from host_tools.board import match as M
    if state == "older":
        raise Problem("the board keeps a newer version of match %s: %s not sent (--version higher)"
                      % (m["id"], M.describe(m)))
    out.write("%s: %s\n" % (M.describe(m), _SAID.get(state, state)))
    return 0


def mqtt_match(args, out, plan_):
    """`match ... --mqtt URL`: the table's match topic on the club's broker."""
    import os
    from host_tools.board import match as M
    from host_tools.intake import mqtt
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
            got = mqtt.read_match(args.mqtt, args.club, args.to, password, args.ca, args.timeout)
            out.write("%s\n" % M.describe(got))
        elif verb == "clear":
            mqtt.clear_match(args.mqtt, args.club, args.to, password, args.ca, args.timeout)
            out.write("no match on %s\n" % M.topic(args.club, args.to))
        else:
            mqtt.publish_match(args.mqtt, args.club, args.to, m, password, args.ca, args.timeout)
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
        ser = open_port(args.port)
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
