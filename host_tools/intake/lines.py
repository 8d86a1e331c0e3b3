"""The line core: the JSON lines a board prints (docs/serial-protocol.md),
turned into stored game records and a readable view.

Every way a game reaches the results database goes through `LineCore`: the
USB reader (host_tools/intake/usb.py, speedref-log), a saved log, record or store
(host_tools/intake/importer.py, speedref-results import) and the tables on Wi-Fi
(host_tools/intake/mqtt.py, speedref-log --mqtt).  It does no I/O of its own: it
takes bytes (feed) or a record (record), so tests drive it with bytes.

Every finished game record ("game_end", and "stored" ones pulled from the
device's flash with {"cmd": "dump"}) is validated with the engine before it
is stored, and every slap verdict is held until its game's record arrives.
Garbage, cut lines and invalid records are reported and skipped.
"""
import json
import sys

from speedref.engine import records
from speedref.engine.errors import RuleError, is_int

from host_tools import jsonin
from host_tools.club import people, summary
from host_tools.club.db import DatabaseProblem

MAX_LINE = 64 * 1024          # a "line" longer than this is noise, not a record
MARGIN_MAX_US = 2 ** 30       # ticks_us wraps at 2**30: no margin between two presses is longer
NAME_MAX = 64                 # a game or slap kind name is a short word
LOCK_RETRIES = 3              # busy timeouts waited out again for another program's lock


def _short(text, n=60):
    text = repr(text)
    if len(text) > 4 * n:
        text = text[: 4 * n]
    return text if len(text) <= n else text[: n - 3] + "..."


def _seat_name(record, seat):
    players = record.get("players") if isinstance(record, dict) else None
    if isinstance(players, list) and isinstance(seat, int) and 0 <= seat < len(players):
        return str(players[seat])
    return "P%d" % (seat + 1)


def slap_problem(ev):
    """Why a slap event cannot be stored, or None when it is well formed.

    Every field that reaches the database is checked for type and range here.
    """
    if not isinstance(ev.get("game"), str) or not 0 < len(ev["game"]) <= NAME_MAX:
        return "slap without a game name"
    kind = ev.get("kind")
    if kind is not None and (not isinstance(kind, str) or len(kind) > NAME_MAX):
        return "slap kind %s is not a short string or null" % _short(kind)
    if "winner" not in ev:
        return "slap without a winner (a seat, or null for a tie)"
    w = ev["winner"]
    if w is not None and (not is_int(w) or not 0 <= w <= 3):
        return "slap winner %r is not a seat 0..3 or null" % (w,)
    m = ev.get("margin_us")
    if m is None and w is not None and "margin_us" in ev:
        return None  # a lone slap: nobody else slapped, so there is no margin
    if not is_int(m) or not 0 <= m < MARGIN_MAX_US:
        return "slap margin_us %s is not an int 0..%d" % (_short(m), MARGIN_MAX_US - 1)
    return None


def players_problem(record):
    """Why a record's player list cannot be counted (one person at two seats:
    the same name, case and the spaces around it aside, host_tools/club/people.py),
    or None.  Seats nobody named (P1..P4, Guest) are no one: two Guests are
    two seats."""
    players = record.get("players")
    if not isinstance(players, list):
        return None
    seen = {}
    for p in players:
        if isinstance(p, str) and people.unnamed(p):
            continue
        key = people.key(str(p))
        if key in seen:
            first = seen[key]
            return "player %s listed twice%s" % (_short(str(p)), "" if first == str(p) else " (and as %s)"
                                                 % _short(first))
        seen[key] = str(p)
    return None


# The field that numbers a game's part on its lines: a Speed deal, a Spit round.
PART_FIELDS = ("deal", "round", "hand")


def part_number(ev):
    """The deal/round/hand number a game line carries, or None."""
    for f in PART_FIELDS:
        n = ev.get(f)
        if is_int(n):
            return n
    return None


class LineCore:
    """Turns bytes from the device into stored rows and readable lines.

    `out(text)` gets the live view, `err(text)` the problems, both escaped
    (nothing the device sends reaches a terminal raw).  Counters (stored,
    duplicates, slaps, skipped) let callers and tests see what happened.

    A slap verdict is held until its game's record arrives (`game_end`) and is
    stored with it; the verdicts of a game abandoned, or of one that ended
    unseen (its deal numbers start again), are never any game's.  A database
    failure is a DatabaseProblem out of feed(): the line's own writes are rolled
    back, everything stored before stays.  A lock held by another program is
    waited out LOCK_RETRIES more times first.
    """

    def __init__(self, db, out=print, err=None, source=None, live=True):
        self.db = db
        raw_err = err or (lambda text: print(text, file=sys.stderr))
        self.out = lambda text: out(jsonin.printable(text))
        # live=False (an import): only records and problems are shown, not
        # the play by play (deals, rounds, slaps, boots)
        self.live = self.out if live else (lambda text: None)
        self.showing = live
        self.err = lambda text: raw_err(jsonin.printable(text))
        self.source = source      # 'import' for files; None: game_end 'live', dump 'stored'
        self.club = None          # the club of the records now coming (an MQTT topic's), or None
        self.buf = bytearray()
        self.discarding = False   # inside an over-long line: drop bytes to its newline
        self.stored = 0
        self.duplicates = 0
        self.slaps = 0
        self.skipped = 0
        self.refused = 0          # game records refused (invalid, or damaged)
        self.pending_slaps = {}   # game name -> slap events not yet tied to a finished game
        self.dump_new = 0

    # --- bytes in ------------------------------------------------------------
    def feed(self, data):
        """Take the next bytes: every whole line in them is handled, the rest
        is kept for the next feed.  Each line is sliced out of the buffer once
        and the handled part dropped once at the end, so a feed costs time in
        proportion to its bytes, however many lines they hold."""
        self.buf += data
        buf, start = self.buf, 0
        try:
            while True:
                nl = buf.find(b"\n", start)
                if nl < 0:
                    break
                line, start = buf[start:nl], nl + 1
                if self.discarding:
                    self.discarding = False       # the over-long line's tail: reported already
                elif len(line) > MAX_LINE:
                    self.skip("line longer than %d bytes" % MAX_LINE)
                else:
                    self.line(bytes(line))
        finally:
            # the lines handled are gone, even when one stopped the feed
            # (a DatabaseProblem): it is never handled twice
            del buf[:start]
        if len(buf) > MAX_LINE:
            if not self.discarding:
                self.skip("line longer than %d bytes without a newline" % MAX_LINE)
            self.discarding = True
            del buf[:]

    def disconnected(self):
        """The port went away: whatever half line we hold was cut, so drop it."""
        if self.buf.strip() and not self.discarding:
            self.skip("line cut by the disconnect: %s" % _short(bytes(self.buf)))
        del self.buf[:]
        self.discarding = False

    def finish(self):
        """The end of the input: slap verdicts still waiting for their game's
        record are not stored, and the count says so."""
        self.disconnected()
        for game in sorted(self.pending_slaps):
            self.drop_slaps(game, "of a %s game whose record has not arrived" % game)

    def skip(self, why):
        self.skipped += 1
        self.err("skipped: " + why)

    # --- one line ------------------------------------------------------------
    def line(self, raw):
        for attempt in range(LOCK_RETRIES + 1):
            try:
                return self._line(raw)
            except DatabaseProblem as e:
                if not e.locked or attempt == LOCK_RETRIES:
                    raise
                self.err("%s; trying again (%d of %d)" % (e, attempt + 1, LOCK_RETRIES))
            except Exception as e:
                # A line that trips a fault of ours: that line is lost, never the rest.
                return self.skip("could not handle the line (%s: %s): %s"
                                 % (type(e).__name__, _short(str(e), 80), _short(raw)))

    def _line(self, raw):
        raw = raw.strip()
        if not raw:
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return self.skip("not UTF-8: %s" % _short(raw))
        try:
            ev = jsonin.loads(text)
        except jsonin.BadJSON as e:
            return self.skip("not JSON (%s): %s" % (e, _short(text)))
        if not isinstance(ev, dict) or not isinstance(ev.get("ev"), str):
            return self.skip("JSON without an \"ev\" key: %s" % _short(text))
        kind = ev["ev"]
        self.notice_part(ev)
        if kind in ("game_end", "stored"):
            self.record(ev.get("record"), kind)
        elif kind == "slap":
            self.slap(ev)
        elif kind == "abandon":
            game = ev.get("game")
            self.live("game abandoned on the device: %s" % _short(game))
            if isinstance(game, str):
                self.drop_slaps(game, "of the abandoned %s game" % game)
        elif kind == "dump_end":
            n = ev.get("count")
            self.live("device flash: %s %s kept, %d new here" % (_short(n, 20), "record" if n == 1 else "records",
                                                                 self.dump_new))
            self.dump_new = 0
        elif kind == "boot":
            self.live("device booted")
        elif kind == "error":
            self.live("device reports: %s" % ev.get("msg", ev.get("error", text)))
        elif self.showing:
            # deal / hand / round and anything newer: shown, not stored.
            rest = dict((k, v) for k, v in ev.items() if k != "ev")
            self.live("%s: %s" % (kind, json.dumps(rest, sort_keys=True)))

    # --- slap verdicts and the game they belong to --------------------------------------
    def notice_part(self, ev):
        """A line numbering its game's deal or round below a held slap's: a
        new game began, so the held slaps were a game's that ended unseen
        (a reset whose save was lost, or while no laptop listened)."""
        game = ev.get("game")
        n = part_number(ev)
        if n is None or not isinstance(game, str) or game not in self.pending_slaps:
            return
        if any((part_number(s) or 0) > n for s in self.pending_slaps[game]):
            self.drop_slaps(game, "of a %s game that ended unseen (its deal or round numbers began again)"
                            % game)

    def drop_slaps(self, game, why):
        held = self.pending_slaps.pop(game, None)
        if held:
            self.out("%d slap verdict%s %s: not counted" % (len(held), "" if len(held) == 1 else "s", why))

    def slap(self, ev):
        problem = slap_problem(ev)
        if problem:
            return self.skip(problem)
        self.pending_slaps.setdefault(ev["game"], []).append(ev)
        if ev["winner"] is None:
            verdict = "tie (%.1f ms apart)" % (ev["margin_us"] / 1000)
        elif ev["margin_us"] is None:
            verdict = "P%d (nobody else slapped)" % (ev["winner"] + 1)
        else:
            verdict = "P%d by %.1f ms" % (ev["winner"] + 1, ev["margin_us"] / 1000)
        kind = (" " + ev["kind"]) if ev.get("kind") else ""
        self.live("slap%s (%s): %s" % (kind, ev["game"], verdict))

    def slaps_for(self, rec, sheet):
        """The held slap verdicts of the game that just ended: those numbered
        within its deals or rounds (a higher number was another game's)."""
        held = self.pending_slaps.pop(rec["game"], [])
        mine = [s for s in held if (part_number(s) or 0) <= sheet["hands_played"]]
        if len(mine) < len(held):
            n = len(held) - len(mine)
            self.out("%d slap verdict%s numbered beyond this %s game's %d: not counted"
                     % (n, "" if n == 1 else "s", rec["game"], sheet["hands_played"]))
        return mine

    # --- game records -----------------------------------------------------------
    def record(self, rec, kind, where=None):
        """A game record from a `game_end` or `stored` line (or a file: kind
        'file', `where` naming it): validated, then stored once."""
        where = where or ("from flash" if kind == "stored" else "game over")
        try:
            sheet = records.summary(rec)
            # what the standings and ratings need, worked out from the same
            # replay (host_tools/club/summary.py)
            worked = summary.work(rec, sheet)
        except RuleError as e:
            return self.refuse(rec, kind, "invalid record (%s): %s" % (where, e))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as e:
            # A game module that trips over a malformed record instead of
            # raising RuleError: still not a valid record.
            return self.refuse(rec, kind, "invalid record (%s): %s: %s" % (where, type(e).__name__, e))
        problem = players_problem(rec)
        if problem:
            return self.refuse(rec, kind, "invalid record (%s): %s" % (where, problem))
        # only the game that ends while we listen owns the slaps we hold; a
        # record from the flash dump or a file is an older game's
        slaps = self.slaps_for(rec, sheet) if kind == "game_end" else []
        source = self.source or ("live" if kind == "game_end" else "stored")
        got = self.db.add_game(rec, source, slaps, club=self.club, worked=worked)
        self.slaps += got.slaps
        scores = ", ".join("%s %s" % (p, t) for p, t in zip(sheet["players"], sheet["totals"]))
        won = " and ".join(_seat_name(rec, w) for w in sheet["winners"]) or "nobody"
        verdicts = "%d slap verdict%s" % (got.slaps, "" if got.slaps == 1 else "s")
        if got.reused is not None and got.new:
            # never dropped in silence: a game that reused a stored game's id
            # (a board numbering again after its flash was wiped, two stores
            # both at "sim-1") is a game of its own
            self.err("record %s (%s) differs from the one already stored as #%d under that id: "
                     "kept both, this one as #%d" % (_short(rec.get("id")), where, got.reused, got.row))
        if got.new:
            self.stored += 1
            if kind == "stored":
                self.dump_new += 1
            self.out("%s: %s: %s; winner %s (stored as #%d%s)" % (
                where, rec["game"], scores, won, got.row, " with " + verdicts if got.slaps else ""))
            self.held_note(got.row, rec)
        else:
            self.duplicates += 1
            self.out("%s: %s: %s; already stored as #%d%s" % (
                where, rec["game"], scores, got.row, "; %s added to it" % verdicts if got.slaps else ""))
        return got.row

    def held_note(self, row, rec):
        """A game just stored that seats two people a change to names made
        one (host_tools/club/people.py): kept, two people, and said."""
        from host_tools.club import changes
        try:
            lines = changes.report_held(self.db, row)
        except DatabaseProblem as e:
            lines = ["cannot check the changes to names for it: %s" % e]
        ident = rec.get("id")
        for text in lines:
            self.err("%s: %s" % ("game #%d" % row if ident is None else "record %s" % str(ident)[:60], text))

    def refuse(self, rec, kind, why):
        self.refused += 1
        if kind == "game_end" and isinstance(rec, dict) and isinstance(rec.get("game"), str):
            self.drop_slaps(rec["game"], "of that refused %s record" % rec["game"])
        return self.skip(why)
