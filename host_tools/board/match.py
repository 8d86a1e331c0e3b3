"""The match a table plays next: made on the club's laptop, sent to its board.

A match names the evening and round it belongs to, the table, the game and
the options the round sets, and the players seat by seat
(docs/serial-protocol.md, "The match"; the board's side is
firmware/speedref/match.py, whose check this module uses, so the laptop
refuses what a board would).  The board offers it at its menu, starts it
with the seats named, and the game's record carries the evening's and the
round's numbers, so the laptop finds the round a result belongs to.

Two ways to a board, the same match:

* Wi-Fi: host_tools/intake/mqtt.py's `publish_match(client_or_url, club,
  table, match)` puts it on the table's topic `speedref/<club>/<table>/match`
  (topic() here), QoS 1 and retained, so a board that is off gets it when it
  connects; `clear_match(...)` takes it away (an empty retained message).
  Only the listener's account may publish there (docs/mosquitto/club.acl);
  the laptop speaks MQTT 5 to the broker, which says when it refuses a
  publish (MQTT 3.1.1 drops it without a word), and Refused says so.
* USB: `send_match(board, match)` through the board's console
  (`speedref-roster match ...`), in parts when it is longer than a console
  line.

A match is replaced on the board by any other match, except an older
version of the same id: a re-pairing gives the same id a higher version
(or simply other players), and the table is offered the new one.

    from host_tools.board.match import make_match
    from host_tools.intake.mqtt import publish_match
    m = make_match(evening=3, round_no=2, table="Table 3", game="speed",
                   names=["Ann", "Bob"], options={"match": "best_of"})
    publish_match("mqtt://listener@192.168.1.10", "riverside", "t3", m, password=...)
"""
import json

from speedref import games
from speedref import match as board_match
from speedref import names as N
from speedref.uplink import topic_name

from host_tools import jsonin

TOPIC_ROOT = "speedref"
FIELDS = board_match.FIELDS
MESSAGE_MAX = board_match.MESSAGE_MAX
LINE_MAX = 256             # the board's longest console line (speedref/device.py LINE_MAX)


class BadMatch(ValueError):
    """A match a board would refuse: the message is one line."""


# --- the match itself -----------------------------------------------------------------
def option_value(game, key, text):
    """An option's value from its text on a command line ("best_of", "100",
    "true", "auto"): one of the values the game's registry entry lists for
    it; BadMatch naming them."""
    g = games.get(game)
    for k, label, values in g.options:
        if k == key:
            for v in values:
                shown = json.dumps(v) if isinstance(v, bool) else str(v)
                if text.strip().lower() == shown.lower():
                    return v
            raise BadMatch("%s's %s is one of %s, not %r" % (g.title, key, ", ".join(
                json.dumps(v) if isinstance(v, bool) else str(v) for v in values), text))
    raise BadMatch("%s has no option %r (it has %s)" % (g.title, key, ", ".join(k for k, _, _ in g.options)))


def make_match(evening, round_no, table, game, names, options=None, version=1, match_id=None):
    """A match, checked (check_match): `names` one a seat in seat order
    ("Guest" for a seat nobody named); `options` the round's options
    ({key: value}, values as the registry lists them); `match_id` defaults
    to "e<evening>r<round>" (the table's topic tells the tables apart)."""
    m = {"id": match_id if match_id is not None else "e%sr%s" % (evening, round_no),
         "version": version, "evening": evening, "round": round_no, "table": table,
         "game": game, "opts": dict(options or {}), "names": list(names)}
    return check_match(m)


def check_match(m):
    """`m` if a board would take it; BadMatch saying why not (one line).
    Stricter than the board: a field it does not know is refused (a typo
    would otherwise be dropped in silence), and the JSON must fit
    MESSAGE_MAX bytes."""
    if not isinstance(m, dict):
        raise BadMatch("a match is a JSON object")
    extra = sorted(str(k) for k in m if k not in FIELDS)
    if extra:
        raise BadMatch("unknown field%s %s (a match has %s)" % (
            "" if len(extra) == 1 else "s", ", ".join(extra), ", ".join(FIELDS)))
    why = board_match.why_not(m)
    if why is not None:
        raise BadMatch(why)
    size = len(message(m))
    if size > MESSAGE_MAX:
        raise BadMatch("%d bytes of JSON, %d at most" % (size, MESSAGE_MAX))
    return m


def message(m):
    """The match's JSON as published (compact, UTF-8)."""
    return json.dumps(m, separators=(",", ":"), ensure_ascii=False).encode()


def parse_message(payload):
    """A match from a message's bytes (None for an empty one: no match);
    BadMatch for anything a board would refuse."""
    if not payload:
        return None
    try:
        m = jsonin.loads(bytes(payload).decode("utf-8"))
    except (UnicodeDecodeError, jsonin.BadJSON) as e:
        raise BadMatch("not JSON: %s" % e)
    return check_match(m)


# --- Wi-Fi: the table's match topic (publishing it: host_tools/intake/mqtt.py) ----------------
def topic(club, table):
    """speedref/<club>/<table>/match, the club and table as the board's
    uplink.json names them (topic levels: no / + #, printable ASCII)."""
    for what, name in (("club", club), ("table", table)):
        if topic_name(name) is None:
            raise BadMatch("%s %r cannot be a topic level (1-32 printable ASCII characters, no spaces, / + #)"
                           % (what, name))
    return "%s/%s/%s/match" % (TOPIC_ROOT, club, table)


# --- USB: the board's console ---------------------------------------------------------------
def console_commands(m):
    """The console lines that send match `m`: one {"cmd": "match",
    "match": {...}} when it fits a console line, else parts (part 0, 1, ...,
    the last with "end": true) that each carry some of its fields."""
    one = {"cmd": "match", "match": m}
    if len(json.dumps(one, separators=(",", ":"), ensure_ascii=False).encode()) <= LINE_MAX - 1:
        return [one]
    parts, cur = [], {}
    for k in FIELDS:
        if k not in m:
            continue
        trial = dict(cur, **{k: m[k]})
        line = {"cmd": "match", "match": trial, "part": 99, "end": False}
        if cur and len(json.dumps(line, separators=(",", ":"), ensure_ascii=False).encode()) > LINE_MAX - 1:
            parts.append(cur)
            trial = {k: m[k]}
        cur = trial
    parts.append(cur)
    return [{"cmd": "match", "match": p, "part": i, "end": i == len(parts) - 1} for i, p in enumerate(parts)]


STATES = ("offered", "same", "played", "older", "waiting", "cleared", "none")


def answer_in(raw, expect):
    """The board's answer to a match line, checked: a dict, or None for a
    line that is no answer.  A refusal is a roster.Problem (exit 1), an
    answer of the wrong shape roster.BadAnswer (exit 2).  `expect`: "match",
    or the number of the part whose receipt is due."""
    from host_tools.board.roster import BadAnswer, Problem
    raw = raw.strip()
    try:
        loose = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(loose, dict):
        return None
    ev = loose.get("ev")
    refusal = ev == "error" and loose.get("what") in ("match", "command")
    if ev not in ("match", "match_part") and not refusal:
        return None
    try:
        answer = jsonin.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, jsonin.BadJSON) as e:
        raise BadAnswer("not strict JSON: %s" % e, raw)
    if refusal:
        msg = answer.get("msg")
        if not isinstance(msg, str) or not msg.strip():
            raise BadAnswer("a refusal without its reason", raw)
        raise Problem("the board refused the match: %s" % jsonin.printable(msg[:200]))
    if expect == "match":
        if ev != "match":
            raise BadAnswer("a part's receipt, not the match's answer", raw)
        if answer.get("state") not in STATES:
            raise BadAnswer('"state" is %s, not one of %s' % (jsonin.printable(repr(answer.get("state"))[:40]),
                                                             ", ".join(STATES)), raw)
    else:
        if ev != "match_part" or answer.get("part") != expect:
            raise BadAnswer("not part %d's receipt" % expect, raw)
    return answer


def send_match(board, m):
    """Send match `m` (checked first) to the board on USB (a
    host_tools.board.roster.Board); the board's answer ({"ev": "match", "state":
    "offered" | "same" | "played" | "older" | "waiting"})."""
    check_match(m)
    answer = None
    cmds = console_commands(m)
    for i, cmd in enumerate(cmds):
        answer = board.ask(cmd, "match" if cmd.get("end", True) else i, answer_in)
    from host_tools.board.roster import BadAnswer
    if answer.get("id") != m["id"]:
        raise BadAnswer("the answer names match %s, not %s" % (jsonin.printable(repr(answer.get("id"))[:40]), m["id"]))
    return answer


def clear_board(board):
    """No match on the board on USB; its answer."""
    return board.ask({"cmd": "match", "clear": True}, "match", answer_in)


def board_match_now(board):
    """The match the board keeps, and whether it is offered: its answer
    ({"state": "offered" | "played" | "none", "match": {...} or null})."""
    answer = board.ask({"cmd": "match"}, "match", answer_in)
    if answer.get("match") is not None:
        from host_tools.board.roster import BadAnswer
        try:
            check_match(answer["match"])
        except BadMatch as e:
            raise BadAnswer("its match: %s" % e)
    return answer


def describe(m):
    """One line for a person: "round 2 at Table 3: speed, Ann v Bob"."""
    if m is None:
        return "no match"
    shown = [N.GUEST if N.reserved(p) else p for p in m["names"]]
    opts = ", ".join("%s %s" % (k, json.dumps(v) if isinstance(v, bool) else v) for k, v in m.get("opts", {}).items())
    return jsonin.printable("evening %d round %d at %s: %s%s, %s (match %s version %d)" % (
        m["evening"], m["round"], m["table"], m["game"], " (%s)" % opts if opts else "", " v ".join(shown),
        m["id"], m.get("version", 1)))
