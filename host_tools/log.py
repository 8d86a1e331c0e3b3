"""speedref-log: read the referee's JSON lines from USB serial into the results database.

    speedref-log [--port PORT] [--db FILE]
    speedref-log --mqtt mqtt://[USER@]HOST[:PORT] [--club CLUB] [--db FILE]

The database is --db, else $SPEEDREF_DB, else results.db in the user's data
folder (~/.local/share/speedref; host_tools/db.py default_path).  A log, a
record or a store saved to a file goes in with `speedref-results import`,
through this same line core.

The device prints one JSON object per line, each with an "ev" key (see
docs/serial-protocol.md).  This tool shows them live in a readable form, stores
every finished game record ("game_end", and "stored" ones pulled from the
device's flash with {"cmd": "dump"} at every connect) after validating it with
the engine, and every slap verdict.  Garbage, cut lines and invalid records are
reported on stderr and skipped.  A port that vanishes (cable pulled) is
reopened when it comes back.  With --mqtt it listens to the tables on Wi-Fi
through an MQTT broker instead (host_tools/mqtt.py).

`LineCore` is the line-processing core, with no serial I/O, so tests can drive
it with bytes; `run()` is the serial loop around it.
"""
import argparse
import json
import math
import os
import sys
import time

from speedref.engine import records
from speedref.engine.errors import RuleError, is_int

from host_tools import jsonin, people
from host_tools import db as dbmod
from host_tools.db import ResultsDB, DatabaseProblem

DUMP_COMMAND = b'{"cmd": "dump"}\n'
MAX_LINE = 64 * 1024          # a "line" longer than this is noise, not a record
BAUD = 115200
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
    the same name, case and the spaces around it aside, host_tools/people.py),
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
        got = self.db.add_game(rec, source, slaps)
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
        one (host_tools/people.py): kept, two people, and said."""
        from host_tools import changes
        try:
            lines = changes.report_held(self.db, row, [str(p) for p in rec.get("players", [])])
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


# --- the serial side ----------------------------------------------------------
def find_port():
    """The one attached MicroPython board's port, or None (see host_tools.ports)."""
    from host_tools.ports import candidate_ports
    found = candidate_ports()
    return found[0].device if len(found) == 1 else None


def open_serial(port):
    import serial
    return serial.Serial(port, BAUD, timeout=0.2)


def run(core, port=None, opener=open_serial, finder=find_port, sleep=time.sleep,
        clock=time.monotonic, idle_exit=None, retry_s=1.0):
    """Read forever (or until `idle_exit` seconds pass with no data), reconnecting.

    Returns when idle_exit is reached; KeyboardInterrupt propagates to main().
    """
    import serial
    lost = (serial.SerialException, OSError)
    last_data = clock()
    said = None
    while True:
        if idle_exit is not None and clock() - last_data > idle_exit:
            return
        dev = port or finder()
        if not dev:
            if said != "none":
                core.err("waiting for a board (none, or several: use --port) ...")
                said = "none"
            sleep(retry_s)
            continue
        try:
            ser = opener(dev)
        except lost as e:
            if said != "open":
                core.err("cannot open %s (%s); retrying" % (dev, e))
                said = "open"
            sleep(retry_s)
            continue
        said = None
        core.out("connected to %s; asking the device for the records on its flash" % dev)
        try:
            ser.write(DUMP_COMMAND)
            while True:
                data = ser.read(4096)
                if data:
                    last_data = clock()
                    core.feed(data)
                elif idle_exit is not None and clock() - last_data > idle_exit:
                    return
        except lost as e:
            core.disconnected()
            core.err("lost %s (%s); reconnecting" % (dev, e))
        finally:
            try:
                ser.close()
            except lost:
                pass
        sleep(retry_s)


def ignore_file_size_signal():
    """A file-size limit (ulimit -f) kills a process at the write past it
    (SIGXFSZ) unless the signal is ignored: then the write fails, SQLite rolls
    back, and the tool can say what happened."""
    import signal
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


class ViewGone(BaseException):
    """The live view's reader went away (`| head -1`): the run ends quietly.
    A BaseException, as KeyboardInterrupt is, so that no line's fault
    handling takes it for a bad line."""


class LiveView:
    """The live view on stdout.  Storing is the job: a view that cannot be
    written (/dev/full) is reported once on stderr and the tool goes on."""

    def __init__(self, prog):
        self.prog = prog
        self.broken = False

    def __call__(self, text):
        if self.broken:
            return
        stream = sys.stdout
        try:
            if stream is None:
                raise ValueError("stdout is closed")
            stream.write(text + "\n")
            stream.flush()
        except BrokenPipeError:
            self.broken = True
            jsonin.quiet_broken_pipe()
            raise ViewGone()
        except (OSError, ValueError) as e:
            self.broken = True
            jsonin.quiet_broken_pipe()
            jsonin.complain(self.prog, "cannot write the live view (%s); still storing"
                            % (getattr(e, "strerror", None) or e))


def summary_line(core):
    return ("%s, %s, %s, %s" % (jsonin.count(core.stored, "new game record"), jsonin.count(core.duplicates, "duplicate"),
                                jsonin.count(core.slaps, "slap verdict"), jsonin.count(core.skipped, "line skipped",
                                                                                    "lines skipped")))


def stopped_by(prog, core, e):
    """The line for a database failure mid-run: what happened, what is kept."""
    return ("%s; what was stored before this is kept (%s); a board keeps its records on"
            " its flash and sends them again when %s reconnects" % (e, jsonin.count(core.stored, "new game record"), prog))


def seconds(text):
    """--idle-exit: a finite number of seconds, 0 or more."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text)
    if not math.isfinite(x) or x < 0:
        raise argparse.ArgumentTypeError("%s is not a number of seconds (0 or more)" % text)
    return x


def stored_db(text):
    """--db for a tool that stores: a file, not a database that vanishes."""
    if not dbmod.keeps(text):
        raise argparse.ArgumentTypeError("%s keeps nothing: give a database file" % text)
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(prog="speedref-log", description=__doc__.splitlines()[0])
    ap.add_argument("--port", help="serial port (default: the one attached MicroPython board)")
    ap.add_argument("--db", type=stored_db, help="SQLite results database (%s)" % dbmod.db_help())
    ap.add_argument("--idle-exit", type=seconds, metavar="SECONDS",
                    help="exit after SECONDS without data (scripts and tests)")
    from host_tools import mqtt
    mqtt.main_args(ap)
    args = ap.parse_args(argv)
    if args.mqtt and args.port:
        ap.error("--mqtt and --port: one source at a time (run two speedref-log for both)")
    for opt in ("club", "ca"):
        if getattr(args, opt) and not args.mqtt:
            ap.error("--%s is an option of --mqtt" % opt)
    jsonin.setup_stdio()
    ignore_file_size_signal()
    prog = "speedref-log"
    if args.port and os.path.isfile(args.port):
        return jsonin.complain(prog, "%s is a file, not a serial port: to read a saved log, record or store"
                                     " into the database, run: speedref-results import %s"
                               % (args.port, args.port))
    path = args.db or dbmod.default_path()
    try:
        db = ResultsDB(path, write=True)
    except DatabaseProblem as e:
        return jsonin.complain(prog, str(e))
    view = LiveView(prog)
    err = lambda text: jsonin.complain(None, text, 0)  # noqa: E731
    if args.mqtt:  # the tables on Wi-Fi, through a broker (host_tools/mqtt.py)
        listener = mqtt.Listener(db, view, err)
        core = listener.core
    else:
        core = LineCore(db, out=view, err=err)
    status = 0
    try:
        if args.mqtt:
            status = mqtt.run_cli(args, listener, prog)
        else:
            run(core, port=args.port, idle_exit=args.idle_exit)
    except (KeyboardInterrupt, ViewGone):
        pass
    except DatabaseProblem as e:
        status = jsonin.complain(prog, stopped_by(prog, core, e))
    finally:
        try:
            core.finish()
        except ViewGone:
            pass
        db.close()
    if view.broken:
        jsonin.complain(prog, summary_line(core), 0)
    else:
        try:
            view(summary_line(core))
        except ViewGone:
            pass
    return status


if __name__ == "__main__":
    sys.exit(main())
