"""speedref-club: run a club night from the laptop (docs/host-tools.md, "Evening").

    speedref-club start NAME [--date D] [--tables N | --table NAME[=TOPIC]...] [--roster FILE]
                  [--mqtt mqtt://listener@HOST --club CLUB [--ca FILE]]
    speedref-club checkin NAME... [--walk-in] | checkin --everyone | leave NAME...
    speedref-club table out|in|add NAME[=TOPIC] | table topic NAME TOPIC
    speedref-club pair --game G [--seats N] [--option KEY=VALUE]... [--again | --anyway] [--html FILE]
    speedref-club push [--table NAME]... [--usb [--port PORT] | --json]   the round's matches again
    speedref-club round [N] [--html FILE]        a round in the terminal, or its printable page
    speedref-club [status] | results | standings [--csv FILE] [--json] | evenings
    speedref-club place GAME ROUND TABLE | drop GAME | corrections | undo [N]

The evening, its rounds and where each result goes are host_tools/club/evening.py's,
the grouping host_tools/club/pairing.py's, each table's match and its topic
host_tools/club/matches.py's, what is shown host_tools/views/evening_page.py's.
This module parses, calls them and prints, and sends the round's matches:
through the club's MQTT broker (host_tools/intake/mqtt.py) when the evening
keeps one (start --mqtt), or a table's over its board's USB cable (push --usb,
host_tools/board/match.py).  Every command but start reads or changes the
latest evening (--evening WHICH: its number, date or name).

Exit status: 0 done; 1 the round is kept but a table was not sent its match
(the broker or the board refused, did not answer, or cannot be reached: push
sends it again); 2 a bad command line or input, nothing changed.
"""
import argparse
import datetime
import json
import os
import sys

from speedref import games as games_registry

from host_tools import jsonin
from host_tools.board import roster as roster_file
from host_tools.argtypes import file_name, seconds
from host_tools.club import db as dbmod
from host_tools.club import evening as E
from host_tools.club import matches as MT
from host_tools.club import ratings
from host_tools.club.db import DatabaseProblem, ResultsDB, db_help, default_path
from host_tools.intake import mqtt
from host_tools.views import evening_page, report

PROG = "speedref-club"


def round_number(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a round number" % text)
    if not 1 <= n <= 999:
        raise argparse.ArgumentTypeError("%d is not a round number (1 and up)" % n)
    return n


def table_count(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of tables" % text)
    if not 1 <= n <= 99:
        raise argparse.ArgumentTypeError("%d tables: an evening has 1 to 99" % n)
    return n


def seat_count(text):
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seats" % text)


class NotSent(Exception):
    """The round is kept, but a table was not sent its match: one line, exit 1."""


def build_parser():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", help="results database (%s)" % db_help())
    common.add_argument("--evening", metavar="WHICH",
                        help="the evening: its number, date (YYYY-MM-DD) or name (default: the latest)")
    wired = argparse.ArgumentParser(add_help=False)
    w = wired.add_argument_group("the club's broker", "the tables on Wi-Fi (docs/host-tools.md, \"Evening\")")
    w.add_argument("--mqtt", metavar="URL",
                   help="the club's broker, mqtt://listener@HOST[:PORT] or mqtts://...; the password from $%s"
                        % mqtt.PASSWORD_ENV)
    w.add_argument("--club", help="--mqtt: the club's name on the topics (the boards' uplink.json \"club\")")
    w.add_argument("--ca", metavar="FILE", help="--mqtt with mqtts://: the CA certificate (PEM) to trust")
    w.add_argument("--timeout", type=seconds, default=mqtt.CONNECT_TIMEOUT_S,
                   help="seconds to wait for the broker's or the board's answer (%g)" % mqtt.CONNECT_TIMEOUT_S)
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("start", parents=[common, wired], help="start (or resume) an evening")
    p.add_argument("name", help="the evening's name, such as \"Thursday club\"")
    p.add_argument("--date", help="its day, YYYY-MM-DD (default: today)")
    p.add_argument("--tables", type=table_count, help="Table 1 .. Table N (default %d)" % E.DEFAULT_TABLES)
    p.add_argument("--table", action="append", default=[], metavar="NAME[=TOPIC]",
                   help="a table by its board's name (speedref-roster --table-name), in order; again for each;"
                        " =TOPIC: its name on the broker's topics (uplink.json \"table\"), where no rule gives it")
    p.add_argument("--roster", metavar="FILE",
                   help="the club's roster file (one name a line, as speedref-roster push takes): who may check in")

    p = sub.add_parser("checkin", parents=[common], help="check people in (on the roster, or --walk-in)")
    p.add_argument("names", nargs="*", metavar="NAME")
    p.add_argument("--walk-in", action="store_true", help="the names are new: not on the roster")
    p.add_argument("--everyone", action="store_true", help="everyone on the evening's roster")

    p = sub.add_parser("leave", parents=[common], help="people leave: no longer paired")
    p.add_argument("names", nargs="+", metavar="NAME")

    p = sub.add_parser("table", parents=[common],
                       help="take a table out (a broken board), put it back, add one, or give its topic name")
    p.add_argument("verb", choices=["out", "in", "add", "topic"])
    p.add_argument("name", metavar="NAME", help="the table (add: NAME or NAME=TOPIC)")
    p.add_argument("topic", nargs="?", metavar="TOPIC", help="topic: its name on the broker (uplink.json \"table\")")

    p = sub.add_parser("pair", parents=[common, wired], help="make the next round, show it, send it to the tables")
    p.add_argument("--game", required=True, choices=list(games_registry.IDS))
    choose = ", ".join("%s %d-%d" % (g.title, g.seats[0], g.seats[1]) for g in games_registry.GAMES
                       if g.seats[0] != g.seats[1])
    p.add_argument("--seats", type=seat_count,
                   help="players a table, for a game that lets them choose (%s); default its fewest" % choose)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="the match format: an option of the game's menu, such as match=best_of or target=25;"
                        " again for each")
    p.add_argument("--again", action="store_true", help="make the current round anew (no result in it yet)")
    p.add_argument("--anyway", action="store_true", help="pair although the round before waits for results")
    p.add_argument("--html", metavar="FILE", type=file_name, help="also write the round's printable page")

    p = sub.add_parser("push", parents=[common, wired], help="send the current round's matches to the tables again")
    p.add_argument("--table", action="append", default=[], metavar="NAME", help="only this table (again for each)")
    p.add_argument("--usb", action="store_true",
                   help="over the board's USB cable instead (one --table): the one board attached, or --port")
    p.add_argument("--port", help="--usb: the board's serial port")
    p.add_argument("--json", action="store_true",
                   help="print the matches instead, one JSON a line (speedref-roster match send FILE.json takes one)")

    p = sub.add_parser("round", parents=[common], help="show a round (default: the current one)")
    p.add_argument("number", nargs="?", type=round_number)
    p.add_argument("--html", metavar="FILE", type=file_name, help="write its printable page instead")

    for name, what in (("results", "every round's results, and those to place"),
                       ("status", "the evening: tables, who is here, the current round"),
                       ("evenings", "every evening in the database"),
                       ("corrections", "every correction, undone ones marked")):
        sub.add_parser(name, parents=[common], help=what)

    p = sub.add_parser("standings", parents=[common], help="tonight's table and standings")
    p.add_argument("--csv", metavar="FILE", type=file_name, help="also write tonight's standings as CSV")
    p.add_argument("--json", action="store_true", help="print them as JSON")

    p = sub.add_parser("place", parents=[common], help="a game is the result of a table in a round")
    p.add_argument("game", metavar="GAME", help="a record id, or the row number speedref-log printed")
    p.add_argument("round", type=round_number, metavar="ROUND")
    p.add_argument("table", metavar="TABLE")

    p = sub.add_parser("drop", parents=[common], help="a game is none of tonight's")
    p.add_argument("game", metavar="GAME")

    p = sub.add_parser("undo", parents=[common], help="undo a correction (default: the last)")
    p.add_argument("number", nargs="?", type=round_number, metavar="N")
    ap.commands = sub.choices           # {command: its parser}
    return ap


def say(text):
    return jsonin.write_out(text + "\n", PROG)


def write_file(path, text):
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise E.Refused("cannot write %s: %s" % (path, e.strerror or e))


def _stamp():
    return datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M")


def start(args, db):
    date = E.parse_date(args.date) if args.date else datetime.date.today().isoformat()
    if args.tables is not None and args.table:
        raise E.Refused("--tables or --table, not both")
    given = [MT.split_table(t) for t in args.table]
    tables = E.table_names(args.tables, [n for n, _ in given])
    topics = dict((name, topic) for name, (_, topic) in zip(tables, given) if topic is not None) if given else {}
    wiring = given_broker(args)
    names = []
    if args.roster:
        try:
            names = roster_file.read_names(args.roster)
        except roster_file.Problem as e:
            raise E.Refused(str(e).replace("nothing sent", "no evening started"))
    if wiring is not None:      # every table needs a topic name: said before anything is kept
        MT.check_topics([E.Table(i + 1, t, None, topics.get(t)) for i, t in enumerate(tables)])
    ev, new = E.start(db, args.name, date, tables, names, topics)
    wired = [MT.wire(db, ev, wiring)] if wiring is not None else []
    if not new:
        return say("\n".join(["evening #%d %s, %s resumed: %s, %s checked in, %s" % (
            ev.id, evening_page.shown(ev.name), ev.date, jsonin.count(len(E.tables(db, ev)), "table"),
            len(E.present(db, ev)), jsonin.count(len(E.rounds(db, ev)), "round"))] + wired))
    return say("\n".join(["evening #%d %s, %s started: tables %s; %s" % (
        ev.id, evening_page.shown(ev.name), ev.date, ", ".join(evening_page.shown(t) for t in tables),
        "roster of %s" % jsonin.count(len(names), "name") if names else "no roster: every name checks in")] + wired))


# --- the round's matches to the tables ----------------------------------------------------
def given_broker(args):
    """The Broker the command line gives (--mqtt, --club, --ca), or None;
    Refused for a bad URL or club, or --club/--ca without --mqtt."""
    if not args.mqtt:
        if args.club or args.ca:
            raise E.Refused("--club and --ca go with --mqtt URL (the club's broker)")
        return None
    try:
        mqtt.parse_url(args.mqtt)
    except ValueError as e:
        raise E.Refused("--mqtt: %s" % e)
    if not args.club:
        raise E.Refused("--mqtt needs --club CLUB: the club's name on the topics (the boards' uplink.json \"club\")")
    return MT.Broker(args.mqtt, MT.check_club(args.club), args.ca)


def password_for(b):
    """The listener's password ($SPEEDREF_MQTT_PASSWORD) for Broker b;
    Refused when its URL names a user and the variable is not set."""
    password = os.environ.get(mqtt.PASSWORD_ENV)
    if password is None and mqtt.parse_url(b.url)[3] is not None:
        raise E.Refused("$%s is not set: the password of %s on the broker (never a command-line word)"
                        % (mqtt.PASSWORD_ENV, mqtt.parse_url(b.url)[3]))
    return password


def chosen(pairs, names):
    """The (Table, match) pairs of the tables named (all when none); Refused for a table not tonight's."""
    if not names:
        return pairs
    out = []
    for n in names:
        got = [p for p in pairs if p[0].name.lower() == n.strip().lower()]
        if not got:
            raise E.Refused("no table %r tonight (%s)" % (evening_page.shown(n.strip()),
                                                         ", ".join(evening_page.shown(t.name) for t, _ in pairs)))
        if got[0] not in out:
            out.append(got[0])
    return out


def the_round(db, ev, only=()):
    """(the current Round, its matches [(Table, match or None)] of the
    tables named (all when none), its version), read at one moment."""
    with db.snapshot():
        rnds = E.rounds(db, ev)
        if not rnds:
            raise E.Refused("no round yet: speedref-club pair --game G makes the first")
        rnd = rnds[-1]
        return rnd, chosen(MT.round_matches(db, ev, rnd), only), MT.version(db, rnd)


def send_round(rnd, pairs, version, topics, b, password, timeout):
    """Round `rnd`'s matches (`pairs`: [(Table, match or None)]) through
    Broker b: each seated table's on its topic (QoS 1, retained), the
    others' cleared; the lines to print.  NotSent when the broker cannot be
    used or refuses one.  No database is held open meanwhile."""
    try:
        client = mqtt.match_client(b.url, password, b.ca, timeout)
    except (mqtt.Refused, ValueError) as e:
        raise NotSent("round %d is kept, but not sent to the tables: %s; speedref-club push sends it"
                      % (rnd.number, e))
    sent, cleared = [], []
    try:
        for t, m in pairs:
            what = "%s (%s)" % (evening_page.shown(t.name), topics[t.name])
            try:
                if m is not None:
                    mqtt.publish_match(client, b.club, topics[t.name], m, timeout=timeout)
                    sent.append(what)
                else:
                    mqtt.clear_match(client, b.club, topics[t.name], timeout=timeout)
                    cleared.append("%s (%s, %s)" % (evening_page.shown(t.name), topics[t.name], MT.why_none(rnd, t)))
            except mqtt.Refused as e:
                raise NotSent("round %d: %s not sent its match: %s%s; speedref-club push sends it" % (
                    rnd.number, what, e, " (sent: %s)" % ", ".join(sent) if sent else ""))
    finally:
        mqtt.close_client(client)
    lines = []
    if sent:
        lines.append("round %d%s sent to %s on club %s's broker: %s" % (
            rnd.number, ", version %d," % version if version > 1 else "", jsonin.count(len(sent), "table"), b.club,
            ", ".join(sent)))
    if cleared:
        lines.append("no match now at %s" % ", ".join(cleared))
    return lines


def push_usb(rnd, pairs, args):
    """One table's match over its board's USB cable (docs/serial-protocol.md,
    "The match"), the board checked to be that table; the line to print."""
    from host_tools.board import match as BM
    from host_tools.board.roster import Board, Problem, check_roster, open_port
    [(t, m)] = pairs
    try:
        ser = open_port(args.port)
        try:
            board = Board(ser, args.timeout)
            table, _ = check_roster(board.ask({"cmd": "roster"}))
            if table.lower() != t.name.lower():
                raise Problem("the board on %s is %s, not %s: plug in %s's board, or name this one so"
                              " (speedref-roster --table-name \"%s\")" % (
                                  ser.port, jsonin.printable(table), evening_page.shown(t.name),
                                  evening_page.shown(t.name), evening_page.shown(t.name)))
            if m is None:
                BM.clear_board(board)
                return "%s has no match in round %d (%s): none on the board now" % (
                    evening_page.shown(t.name), rnd.number, MT.why_none(rnd, t))
            state = BM.send_match(board, m)["state"]
        finally:
            ser.close()
    except Problem as e:
        raise NotSent("%s not sent its match over USB: %s" % (evening_page.shown(t.name), e))
    if state == "older":
        raise NotSent("the board at %s keeps a newer version of match %s than round %d's: not sent" % (
            evening_page.shown(t.name), m["id"], rnd.number))
    said = {"offered": "offered", "same": "offered already", "played": "played already: not offered again",
            "waiting": "waiting: a game is in play, offered when it ends"}.get(state, state)
    return "%s over USB: %s" % (BM.describe(m), said)


def push(args, db, ev):
    """The current round's matches again: printed (--json), over USB
    (--usb), or through the evening's broker."""
    if args.json and (args.usb or args.port or args.mqtt):
        raise E.Refused("--json prints the matches: not with --usb, --port or --mqtt")
    if (args.usb or args.port) and args.mqtt:
        raise E.Refused("--usb or --mqtt, not both")
    if (args.usb or args.port) and len(args.table) != 1:
        raise E.Refused("--usb sends one table's match: name it with --table NAME (the board on the cable)")
    b = None
    if not (args.json or args.usb or args.port):
        b = given_broker(args) or MT.broker(db, ev)
        if b is None:
            raise E.Refused("the evening keeps no broker: speedref-club start NAME --mqtt URL --club CLUB gives it"
                            " one, push --mqtt URL --club CLUB sends through one now, push --usb --table NAME over"
                            " a cable")
    rnd, pairs, version = the_round(db, ev, args.table)
    if args.json:
        return say("\n".join(json.dumps(m, separators=(",", ":")) for _, m in pairs if m is not None)
                   or "no table has a match in round %d" % rnd.number)
    if b is None:
        return say(push_usb(rnd, pairs, args))
    topics = MT.check_topics(E.tables(db, ev))
    return say("\n".join(send_round(rnd, pairs, version, topics, b, password_for(b), args.timeout)))


def status(db, ev):
    lines = ["evening #%d %s, %s" % (ev.id, evening_page.shown(ev.name), ev.date)]
    b = MT.broker(db, ev)
    notes = [(([MT.topic_of(t) or "no topic name"] if b else []) + (["out"] if t.out_at else [])) for t in E.tables(db, ev)]
    lines.append("tables: " + ", ".join(evening_page.shown(t.name) + (" (%s)" % ", ".join(x) if x else "")
                                        for t, x in zip(E.tables(db, ev), notes)))
    if b is not None:
        lines.append("rounds go to the tables through %s, club %s" % (evening_page.shown(b.url), b.club))
    here = E.present(db, ev)
    lines.append("%s present: %s" % (len(here), ", ".join(evening_page.shown(p.name) for p in here) or "nobody yet"))
    gone = [p for p in E.present(db, ev, everyone=True) if p.left_at]
    if gone:
        lines.append("left: " + ", ".join(evening_page.shown(p.name) for p in gone))
    rnds = E.rounds(db, ev)
    lines.append("rounds: %d" % len(rnds) + ("; the current one: round %d, %s" % (
        rnds[-1].number, E.format_text(rnds[-1].game, rnds[-1].seats, rnds[-1].options)) if rnds else ""))
    return "\n".join(lines)


def evenings_text(db):
    rows = E.evenings(db)
    if not rows:
        return "no evening yet: speedref-club start NAME starts one"
    return "\n".join("#%d  %s  %s  (%s)" % (e.id, e.date, evening_page.shown(e.name),
                                            jsonin.count(len(E.rounds(db, e)), "round")) for e in rows)


def corrections_text(db, ev):
    every = E.corrections(db, ev, in_force=False)
    if not every:
        return "no corrections tonight"
    return "\n".join("%d  %s  %s%s" % (c.number, c.made_at, E.correction_text(c),
                                       "  (undone %s)" % c.undone_at if c.undone_at else "") for c in every)


def standings_out(args, db, ev):
    skipped = []
    ratings.settle(db)          # tonight's table breaks ties by the ratings kept
    with db.snapshot():
        t = E.tonight(db, ev, skipped)
    for s in skipped:
        jsonin.complain(None, "skipped: %s row #%d: %s" % (s["table"], s["row"], s["why"]), 0)
    if args.csv:
        try:
            report.write_csv(args.csv, t.standings)
        except OSError as e:
            raise E.Refused("cannot write %s: %s" % (args.csv, e.strerror or e))
    if args.json:
        text = json.dumps(evening_page.tonight_json(t, skipped), indent=1)
    else:
        text = evening_page.tonight_text(t)
    return say(text) or (2 if skipped else 0)


def run(args, db):
    """The command on an open database: its exit status."""
    if args.command == "start":
        return start(args, db)
    if args.command == "evenings":
        with db.snapshot():
            return say(evenings_text(db))
    ev = E.find(db, args.evening)
    c = args.command
    if c == "checkin":
        if args.everyone:
            if args.names or args.walk_in:
                raise E.Refused("--everyone checks in the whole roster: no names with it")
            if not ev.roster:
                raise E.Refused("the evening has no roster (speedref-club start --roster FILE): name who is here")
            return say("\n".join(E.checkin(db, ev, ev.roster)))
        if not args.names:
            raise E.Refused("checkin needs names, or --everyone")
        return say("\n".join(E.checkin(db, ev, args.names, args.walk_in)))
    if c == "leave":
        return say("\n".join(E.leave(db, ev, args.names)))
    if c == "table":
        if args.verb == "topic":
            if args.topic is None:
                raise E.Refused("table topic NAME TOPIC: the table, and its name on the broker")
            return say(MT.set_topic(db, ev, args.name, args.topic))
        if args.topic is not None:
            raise E.Refused("table %s NAME takes no topic (add NAME=TOPIC, or table topic NAME TOPIC)" % args.verb)
        if args.verb == "add":
            name, topic = MT.split_table(args.name)
            check = MT.check_topics if MT.broker(db, ev) is not None else None
            return say(E.table(db, ev, "add", name, topic, check))
        return say(E.table(db, ev, args.verb, args.name))
    if c == "pair":
        if args.again and args.anyway:
            raise E.Refused("--again or --anyway, not both")
        b = given_broker(args) or MT.broker(db, ev)
        password = None
        if b is not None:       # said before the round is made: every table has its topic, the password is there
            MT.check_topics(E.tables(db, ev))
            password = password_for(b)
        rnd = E.pair(db, ev, args.game, args.seats, args.option, again=args.again, anyway=args.anyway)
        with db.snapshot():
            t = E.tonight(db, ev)
        if args.html:
            write_file(args.html, evening_page.round_page(t, rnd, _stamp()))
        said = say(evening_page.round_text(ev, rnd) + (
            "\nwrote %s: the round's page, to print" % jsonin.printable(args.html) if args.html else ""))
        if b is None:
            return said
        rnd, pairs, version = the_round(db, ev)
        return say("\n".join(send_round(rnd, pairs, version, MT.check_topics(E.tables(db, ev)), b, password,
                                        args.timeout)))
    if c == "push":
        return push(args, db, ev)
    if c == "round":
        ratings.settle(db)
        with db.snapshot():
            t = E.tonight(db, ev)
        if not t.rounds:
            raise E.Refused("no round yet: speedref-club pair --game G makes the first")
        which = [r for r in t.rounds if r.number == (args.number or t.rounds[-1].number)]
        if not which:
            raise E.Refused("no round %d tonight (%s so far)" % (args.number, jsonin.count(len(t.rounds), "round")))
        if args.html:
            write_file(args.html, evening_page.round_page(t, which[0], _stamp()))
            return say("wrote %s: round %d's page, to print" % (jsonin.printable(args.html), which[0].number))
        return say(evening_page.round_text(ev, which[0], t.placement))
    if c == "results":
        ratings.settle(db)
        with db.snapshot():
            t = E.tonight(db, ev)
        return say(evening_page.results_text(t))
    if c == "standings":
        return standings_out(args, db, ev)
    if c == "status":
        with db.snapshot():
            return say(status(db, ev))
    if c == "place":
        return say(E.place(db, ev, args.game, args.round, args.table))
    if c == "drop":
        return say(E.drop(db, ev, args.game))
    if c == "corrections":
        with db.snapshot():
            return say(corrections_text(db, ev))
    if c == "undo":
        return say(E.undo(db, ev, args.number))
    raise AssertionError(c)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = build_parser()
    if not set(argv) & (set(ap.commands) | {"-h", "--help"}):
        argv = ["status"] + argv          # the tool alone: where the evening stands
    args = ap.parse_args(argv)
    jsonin.setup_stdio()
    path = args.db or default_path()
    if not dbmod.keeps(path):
        return jsonin.complain(PROG, "--db %s keeps nothing: give a database file" % path)
    dbmod.ignore_file_size_signal()
    writes = args.command not in ("round", "results", "standings", "status", "evenings", "corrections", "push")
    try:
        db = ResultsDB(path, create=args.command == "start", write=writes)
        try:
            return run(args, db)
        finally:
            db.close()
    except DatabaseProblem as e:
        return jsonin.complain(PROG, str(e))
    except E.Refused as e:
        return jsonin.complain(PROG, "%s: %s" % (args.command, e))
    except NotSent as e:
        return jsonin.complain(PROG, "%s: %s" % (args.command, e), 1)


if __name__ == "__main__":
    sys.exit(main())
