# The match the club's laptop gives this table: the next game of an
# evening's round, who sits where, and how it is played
# (docs/serial-protocol.md, "The match").  It comes over Wi-Fi
# (speedref/<club>/<table>/match, retained: uplink.py) or the USB console
# ({"cmd": "match", ...}: device.py), as a JSON object:
#
#   {"id": "e3r2", "version": 1, "evening": 3, "round": 2, "table": "Table 3",
#    "game": "speed", "opts": {"match": "best_of"}, "names": ["Ann", "Bob"]}
#
# id and version: the laptop's name for this pairing and its revision.
# evening and round: the laptop's numbers for them, which the game's record
# then carries, so the laptop finds the round a result belongs to.  opts:
# the game's options the round sets (the rest are the game's defaults).
# names: one a seat, in seat order ("Guest" for a seat nobody named).
#
# The board keeps it on flash (match.json), with whether its game has been
# played, so a board switched off and on still offers it, and a broker that
# hands the same retained match over again at every connect changes
# nothing.  A match replaces the one kept unless it is the same, or an older
# version of the same id (a re-pairing sent twice, in the wrong order): a
# re-pairing replaces the match, and the replaced one is no longer offered.
# An empty match clears it.  A match that arrives while a game is in play
# waits for that game's end: the uplink reads nothing then, and the
# console's copy is held in the heap (Inbox).
#
# Loaded only for a match's arrival, at the menu and at a game's end; a
# game's heap never holds it.
from . import names as N
from . import games
from .storage import MATCH as FILE  # {"match": {...}, "n": the number this board gave it, "played": bool}
ID_MAX = 24          # characters of a match's id
ROUND_MAX = 999      # rounds in an evening
MESSAGE_MAX = 512    # bytes of a match's JSON (the laptop refuses a longer one)
FIELDS = ("id", "version", "evening", "round", "table", "game", "opts", "names")


def _whole(v, lo, hi):
    return type(v) is int and lo <= v <= hi


def why_not(m):
    """None when `m` is a match this board can offer, else why not (one
    line for the laptop).  The laptop checks its matches with this too."""
    if not isinstance(m, dict):
        return "a match is a JSON object"
    rid = m.get("id")
    if not isinstance(rid, str) or not 0 < len(rid) <= ID_MAX:
        return "id: 1 to %d characters" % ID_MAX
    for c in rid:
        if not " " < c <= "~":
            return "id: printable ASCII, no spaces"
    if not _whole(m.get("version", 1), 1, 1 << 30):
        return "version: a whole number from 1"
    if not _whole(m.get("evening"), 1, 1 << 30):
        return "evening: the evening's number, from 1"
    if not _whole(m.get("round"), 1, ROUND_MAX):
        return "round: the round's number, 1 to %d" % ROUND_MAX
    why = N.why_not(m.get("table"), N.TABLE_MAX, "table name")
    if why:
        return why
    if m.get("game") not in games.IDS:
        return "game: one of " + ", ".join(games.IDS)
    g = games.get(m["game"])
    opts = m.get("opts", {})
    if not isinstance(opts, dict):
        return "opts: an object of the game's options"
    known = {}
    for key, label, values in g.options:
        known[key] = values
    for key in opts:
        if key not in known:
            return "opts: %s has no option %s" % (g.title, str(key)[:20])
        if not allowed(opts[key], known[key]):
            return "opts: %s cannot be %s" % (key, str(opts[key])[:20])
    n = opts.get("seats", g.seats[0])
    names = m.get("names")
    if not isinstance(names, list) or len(names) != n:
        return "names: %d wanted, one a seat" % n
    try:
        N.check_game(names)
    except N.BadName as e:
        return "names: %s" % e
    return None


def allowed(v, values):
    """v is one of an option's values: equal and of the same type (True ==
    1, but True is no tie window)."""
    for x in values:
        if x == v and type(x) is type(v):
            return True
    return False


def load(store):
    """(match, its number, played) as kept on flash; (None, number, True)
    when none is offered.  A damaged file is set aside (the laptop sends
    the match again: a retained one at the next connect)."""
    obj, _ = store._load(FILE, _check_file)
    if obj is None:
        return None, 0, True
    return obj["match"], obj["n"], obj["played"]


def _check_file(obj):
    if not isinstance(obj, dict) or type(obj.get("n")) is not int or type(obj.get("played")) is not bool:
        return "not a match file"
    if obj.get("match") is not None and why_not(obj["match"]) is not None:
        return "not a match file"
    return None


def offered(store):
    """The match to offer at the menu, with its number: (match, n), or
    (None, 0)."""
    m, n, played = load(store)
    return (None, 0) if m is None or played else (m, n)


def show(store, log):
    """The console's {"cmd": "match"}: the match kept, and whether it is
    offered or its game played ("none": no match)."""
    m, n, was = load(store)
    log.emit({"ev": "match", "state": "none" if m is None else "played" if was else "offered",
              "from": "usb", "match": m})


def same(a, b):
    """Two matches alike, but for a version left out as 1."""
    for k in FIELDS:
        if k == "version":
            if a.get(k, 1) != b.get(k, 1):
                return False
        elif k == "opts":
            if a.get(k, {}) != b.get(k, {}):
                return False
        elif a.get(k) != b.get(k):
            return False
    return True


def take(store, log, m, source):
    """Keep match `m` (None: clear it), from `source` ("wifi", "usb"):
    checked, compared with the one kept and written when it changes
    anything.  Returns True when the match offered has changed.  One log
    line says what became of it; a bad match is an error line and changes
    nothing."""
    if m is not None:
        why = why_not(m)
        if why is not None:
            log.emit({"ev": "error", "what": "match", "msg": why, "from": source})
            return False
    old, n, played = load(store)
    if m is None:
        state = "none" if old is None else "cleared"
    elif old is not None and same(m, old):
        state = "played" if played else "same"
    elif old is not None and m["id"] == old["id"] and m.get("version", 1) < old.get("version", 1):
        state = "older"
    else:
        state = "offered"
    line = {"ev": "match", "state": state, "from": source}
    if m is not None:
        line["id"] = m["id"]
        line["version"] = m.get("version", 1)
    if state == "offered" or state == "cleared":
        try:
            store._write(FILE, {"match": m, "n": n + 1, "played": m is None})
        except (OSError, MemoryError) as e:
            log.emit({"ev": "error", "what": "match", "msg": "match not saved: %s" % e, "from": source})
            return False
    if state == "offered":
        line["evening"] = m["evening"]
        line["round"] = m["round"]
        line["table"] = m["table"]
    log.emit(line)
    return state == "offered" or state == "cleared"


def played(store, opts):
    """A game started from the match numbered opts["match_n"] has ended
    (its record stored, or waiting for room: App.finish): that match is no
    longer offered (unless it was replaced meanwhile: then the new one
    stays offered)."""
    m, n, was = load(store)
    if m is not None and not was and opts.get("match_n") == n:
        store._write(FILE, {"match": m, "n": n, "played": True})


def game_opts(m, n):
    """The options a game started from match `m` (numbered n) starts with:
    the game's defaults, the round's options over them, the seats' names,
    and what its record carries (App.finish): the table's name the round
    gave it, the evening's and round's numbers; and this board's number
    for the match, which is marked played when the game ends (played())
    unless another match has replaced it meanwhile."""
    g = games.get(m["game"])
    opts = {}
    for key, label, values in g.options:
        opts[key] = g.defaults.get(key, values[0])
    for key in m.get("opts", {}):
        opts[key] = m["opts"][key]
    opts["names"] = N.check_game(m["names"])  # "Guest" is the seat's label
    opts["table"] = m["table"]
    opts["evening"] = m["evening"]
    opts["round"] = m["round"]
    opts["match_n"] = n
    return opts


def title(m):
    """"Round 2 Table 3": the match's round and table in one screen row."""
    s = "Round %d %s" % (m["round"], m["table"])
    if len(s) > 16:
        s = N.fit("R%d " % m["round"], m["table"])
    return s


def console(dev, cmd):
    """A console match line at the device (device.Device): a match (or a
    part of one), a clear, or (neither) the match kept.  One given during a
    game waits in dev.inbox for its end (Inbox.release, from the loop)."""
    if dev.store is None:
        dev.log.emit({"ev": "error", "what": "match", "msg": "no flash to keep a match on", "from": "usb"})
        return
    if "match" not in cmd and "clear" not in cmd:
        show(dev.store, dev.log)
        return
    box = dev.inbox
    if box is None:
        box = dev.inbox = Inbox()
    app = dev.app
    got = box.command(dev.log, cmd, app.flow is not None and not app.over)
    if got is not False:
        offer(dev, got, "usb")
    if box.empty():
        dev.inbox = None


def offer(dev, m, source):
    """Keep match `m` (None: clear it) and show it: the menu's first screen
    changes to it (App.match_changed).  A failure of the flash or the heap
    is said; the match comes again (a retained one at the next connect)."""
    try:
        if take(dev.store, dev.log, m, source):
            dev.app.match_changed()
    except (OSError, MemoryError) as e:
        dev.log.emit({"ev": "error", "what": "match", "msg": str(e), "from": source})


class Inbox:
    """The console's match between lines: the parts of one sent in parts
    (a match longer than a console line), and a match that waits for the
    game in play to end."""

    def __init__(self):
        self.parts = None  # the keys of a match in parts so far, or None
        self.part = 0      # the part expected next
        self.waiting = 0   # 0: nothing waits; 1: `held` waits (None: a clear)
        self.held = None

    def empty(self):
        return self.parts is None and not self.waiting

    def command(self, log, cmd, in_play):
        """One {"cmd": "match"} line.  Returns the match to take now
        (a dict, or None to clear), or False when there is nothing to take
        yet (a part, a refusal, a match that waits: each answered here)."""
        if "clear" in cmd:
            if cmd["clear"] is not True:
                return self._refuse(log, 'clear: true, or no "clear"')
            m = None
        elif "match" in cmd:
            piece = cmd["match"]
            part = cmd.get("part", 0)
            if not isinstance(piece, dict):
                return self._refuse(log, "match: a JSON object")
            if part == 0:
                self.parts = {}
            elif self.parts is None or part != self.part:
                self.parts = None
                return self._refuse(log, "match part %s out of order: send it again from part 0" % (part,))
            for k in piece:
                self.parts[k] = piece[k]
            self.part = part + 1
            if cmd.get("end", True) is not True:
                log.emit({"ev": "match_part", "part": part})
                return False
            m = self.parts
            self.parts = None
        else:
            return self._refuse(log, 'a match ("match": {...}) or "clear": true')
        if in_play:
            why = None if m is None else why_not(m)
            if why is not None:
                log.emit({"ev": "error", "what": "match", "msg": why, "from": "usb"})
                return False
            self.held = m
            self.waiting = 1
            line = {"ev": "match", "state": "waiting", "from": "usb"}
            if m is not None:
                line["id"] = m["id"]
                line["version"] = m.get("version", 1)
            log.emit(line)
            return False
        return m

    def release(self, dev):
        """The game is over (the loop, at rest): the match that waited is
        taken now."""
        self.waiting = 0
        m = self.held
        self.held = None
        offer(dev, m, "usb")
        if self.empty():
            dev.inbox = None

    def _refuse(self, log, why):
        log.emit({"ev": "error", "what": "match", "msg": why, "from": "usb"})
        return False
