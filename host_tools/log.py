"""speedref-log: read the referee's JSON lines from USB serial into the results database.

    speedref-log [--port PORT] [--db FILE]

The device prints one JSON object per line, each with an "ev" key (see
docs/serial-protocol.md).  This tool shows them live in a readable form, stores
every finished game record ("game_end", and "stored" ones pulled from the
device's flash with {"cmd": "dump"} at every connect) after validating it with
the engine, and every slap verdict.  Garbage, cut lines and invalid records are
reported on stderr and skipped.  A port that vanishes (cable pulled) is
reopened when it comes back.

`LineCore` is the line-processing core, with no serial I/O, so tests can drive
it with bytes; `run()` is the serial loop around it.
"""
import argparse
import json
import sys
import time

from speedref.engine import records
from speedref.engine.errors import RuleError, is_int

from host_tools import jsonin
from host_tools.db import ResultsDB, DEFAULT_DB_NAME as DEFAULT_DB

DUMP_COMMAND = b'{"cmd": "dump"}\n'
MAX_LINE = 64 * 1024          # a "line" longer than this is noise, not a record
BAUD = 115200
MARGIN_MAX_US = 2 ** 30       # ticks_us wraps at 2**30: no margin between two presses is longer
NAME_MAX = 64                 # a game or slap kind name is a short word


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
    w = ev.get("winner")
    if w is not None and (not is_int(w) or not 0 <= w <= 3):
        return "slap winner %r is not a seat 0..3 or null" % (w,)
    m = ev.get("margin_us")
    if m is None and w is not None and "margin_us" in ev:
        return None  # a lone slap: nobody else slapped, so there is no margin
    if not is_int(m) or not 0 <= m < MARGIN_MAX_US:
        return "slap margin_us %s is not an int 0..%d" % (_short(m), MARGIN_MAX_US - 1)
    return None


def players_problem(record):
    """Why a record's player list cannot be counted (a name twice), or None."""
    players = record.get("players")
    if not isinstance(players, list):
        return None
    seen = set()
    for p in players:
        key = str(p)
        if key in seen:
            return "player %s listed twice" % _short(key)
        seen.add(key)
    return None


class LineCore:
    """Turns bytes from the device into stored rows and readable lines.

    `out(text)` gets the live view, `err(text)` the problems.  Counters
    (stored, duplicates, slaps, skipped) let callers and tests see what happened.
    """

    def __init__(self, db, out=print, err=None):
        self.db = db
        self.out = out
        self.err = err or (lambda text: print(text, file=sys.stderr))
        self.buf = b""
        self.stored = 0
        self.duplicates = 0
        self.slaps = 0
        self.skipped = 0
        self.pending_slaps = {}   # game name -> slap row ids not yet tied to a finished game
        self.dump_new = 0

    # --- bytes in ------------------------------------------------------------
    def feed(self, data):
        self.buf += data
        while True:
            nl = self.buf.find(b"\n")
            if nl < 0:
                break
            line, self.buf = self.buf[:nl], self.buf[nl + 1:]
            self.line(line)
        if len(self.buf) > MAX_LINE:
            self.skip("line longer than %d bytes without a newline" % MAX_LINE)
            self.buf = b""

    def disconnected(self):
        """The port went away: whatever half line we hold was cut, so drop it."""
        if self.buf.strip():
            self.skip("line cut by the disconnect: %s" % _short(self.buf))
        self.buf = b""

    def skip(self, why):
        self.skipped += 1
        self.err("skipped: " + why)

    # --- one line ------------------------------------------------------------
    def line(self, raw):
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
        if kind in ("game_end", "stored"):
            self.record(ev, "live" if kind == "game_end" else "stored")
        elif kind == "slap":
            self.slap(ev)
        elif kind == "dump_end":
            self.out("device flash: %s records kept, %d new here" % (ev.get("count"), self.dump_new))
            self.dump_new = 0
        elif kind == "boot":
            self.out("device booted")
        elif kind == "error":
            self.out("device reports: %s" % jsonin.printable(ev.get("msg", ev.get("error", text))))
        else:
            # deal / hand / round and anything newer: shown, not stored.
            rest = dict((k, v) for k, v in ev.items() if k != "ev")
            self.out("%s: %s" % (jsonin.printable(kind), json.dumps(rest, sort_keys=True)))

    def record(self, ev, source):
        rec = ev.get("record")
        where = "from flash" if source == "stored" else "game over"
        try:
            sheet = records.summary(rec)
        except RuleError as e:
            return self.skip("invalid record (%s): %s" % (where, e))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            # A game module that trips over a malformed record instead of
            # raising RuleError: still not a valid record.
            return self.skip("invalid record (%s): %s: %s" % (where, type(e).__name__, e))
        problem = players_problem(rec)
        if problem:
            return self.skip("invalid record (%s): %s" % (where, problem))
        row_id, new, same = self.db.add_record(rec, source, compare=True)
        scores = jsonin.printable(", ".join("%s %s" % (p, t) for p, t in zip(sheet["players"], sheet["totals"])))
        won = jsonin.printable(" and ".join(_seat_name(rec, w) for w in sheet["winners"]) or "nobody")
        if new:
            self.stored += 1
            if source == "stored":
                self.dump_new += 1
            pend = self.pending_slaps.pop(rec["game"], None)
            if pend:
                self.db.link_slaps(pend, row_id)
            self.out("%s: %s: %s; winner %s (stored as #%d)" % (where, rec["game"], scores, won, row_id))
        else:
            self.duplicates += 1
            if not same:
                self.err("record %s (%s) differs from the one already stored as #%d under that id; "
                         "kept the stored one" % (_short(rec.get("id")), where, row_id))
            self.out("%s: %s: %s; already stored as #%d" % (where, rec["game"], scores, row_id))

    def slap(self, ev):
        problem = slap_problem(ev)
        if problem:
            return self.skip(problem)
        slap_id = self.db.add_slap(ev)
        self.slaps += 1
        self.pending_slaps.setdefault(ev["game"], []).append(slap_id)
        if ev["winner"] is None:
            verdict = "tie (%.1f ms apart)" % (ev["margin_us"] / 1000)
        elif ev["margin_us"] is None:
            verdict = "P%d (nobody else slapped)" % (ev["winner"] + 1)
        else:
            verdict = "P%d by %.1f ms" % (ev["winner"] + 1, ev["margin_us"] / 1000)
        kind = (" " + jsonin.printable(ev["kind"])) if ev.get("kind") else ""
        self.out("slap%s (%s): %s" % (kind, jsonin.printable(ev["game"]), verdict))


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


def main(argv=None):
    ap = argparse.ArgumentParser(prog="speedref-log", description=__doc__.splitlines()[0])
    ap.add_argument("--port", help="serial port (default: the one attached MicroPython board)")
    ap.add_argument("--db", default=DEFAULT_DB, help="SQLite results database (default %(default)s)")
    ap.add_argument("--idle-exit", type=float, metavar="SECONDS",
                    help="exit after SECONDS without data (scripts and tests)")
    args = ap.parse_args(argv)
    jsonin.setup_stdio()
    import sqlite3
    try:
        db = ResultsDB(args.db)
    except sqlite3.Error as e:
        print("speedref-log: %s: cannot open the database: %s" % (args.db, e), file=sys.stderr)
        return 2
    core = LineCore(db, out=lambda t: print(t, flush=True))
    try:
        run(core, port=args.port, idle_exit=args.idle_exit)
    except KeyboardInterrupt:
        pass
    except BrokenPipeError:         # the live view's reader went away
        jsonin.quiet_broken_pipe()
        return 0
    finally:
        core.disconnected()
        db.close()
    print("%d new game records, %d duplicates, %d slap verdicts, %d lines skipped"
          % (core.stored, core.duplicates, core.slaps, core.skipped), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
