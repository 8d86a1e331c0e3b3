"""speedref-log: read the referee's JSON lines from USB serial into the results database.

    speedref-log [--port PORT] [--db FILE]
    speedref-log --mqtt mqtt://[USER@]HOST[:PORT] [--club CLUB] [--league] [--db FILE]

The database is --db, else $SPEEDREF_DB, else results.db in the user's data
folder (~/.local/share/speedref; host_tools/club/db.py default_path).  A log, a
record or a store saved to a file goes in with `speedref-results import`,
through this same line core.

The device prints one JSON object per line, each with an "ev" key (see
docs/serial-protocol.md).  This tool shows them live in a readable form, stores
every finished game record ("game_end", and "stored" ones pulled from the
device's flash with {"cmd": "dump"} at every connect) after validating it with
the engine, and every slap verdict.  Garbage, cut lines and invalid records are
reported on stderr and skipped.  A port that vanishes (cable pulled) is
reopened when it comes back.  With --mqtt it listens to the tables on Wi-Fi
through an MQTT broker instead (host_tools/intake/mqtt.py).

This module is the command line: the line core (host_tools/intake/lines.py) does
the work, the USB reader (host_tools/intake/usb.py) or the MQTT listener feeds it,
and the live view and the summary are printed here.
"""
import argparse
import math
import os
import sys
import threading

from host_tools import jsonin
from host_tools.club import db as dbmod
from host_tools.club.db import ResultsDB, DatabaseProblem
from host_tools.intake import mqtt, usb
from host_tools.intake.lines import LineCore


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


def mqtt_args(ap):
    """speedref-log's MQTT options."""
    ap.add_argument("--mqtt", metavar="URL",
                    help="listen to the tables on an MQTT broker: mqtt://[USER@]HOST[:PORT] or mqtts://"
                         " (TLS); the password from $%s" % mqtt.PASSWORD_ENV)
    ap.add_argument("--club", help="--mqtt: only this club's tables (default: every club)")
    ap.add_argument("--ca", metavar="FILE", help="--mqtt with mqtts://: the CA certificate (PEM) to trust")
    ap.add_argument("--allow-anonymous-broker", action="store_true",
                    help="--mqtt with a user name: use a broker that also lets in clients without one")
    ap.add_argument("--league", action="store_true",
                    help="--mqtt on a league's broker: store every club's games with its club, answer no table")


def run_mqtt(args, listener, prog):
    """speedref-log --mqtt: listen until Ctrl-C (or --idle-exit); the exit status."""
    stop = threading.Event()
    if args.idle_exit is not None:
        idle_stop(listener, stop, args.idle_exit)
    try:
        mqtt.listen(listener, args.mqtt, password=os.environ.get(mqtt.PASSWORD_ENV), club=args.club, ca=args.ca,
               allow_anonymous=args.allow_anonymous_broker, stop=stop)
    except (mqtt.Refused, ValueError) as e:
        return jsonin.complain(prog, str(e))
    return 0


def idle_stop(listener, stop, seconds):
    """Set `stop` once `seconds` pass without a message."""
    def watch():
        seen = -1
        while not stop.is_set():
            now = listener.messages
            if now == seen:
                stop.set()
                return
            seen = now
            with listener.changed:
                listener.changed.wait(seconds)
    threading.Thread(target=watch, daemon=True).start()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="speedref-log", description=__doc__.splitlines()[0])
    ap.add_argument("--port", help="serial port (default: the one attached MicroPython board)")
    ap.add_argument("--db", type=stored_db, help="SQLite results database (%s)" % dbmod.db_help())
    ap.add_argument("--idle-exit", type=seconds, metavar="SECONDS",
                    help="exit after SECONDS without data (scripts and tests)")
    mqtt_args(ap)
    args = ap.parse_args(argv)
    if args.mqtt and args.port:
        ap.error("--mqtt and --port: one source at a time (run two speedref-log for both)")
    for opt in ("club", "ca", "league"):
        if getattr(args, opt) and not args.mqtt:
            ap.error("--%s is an option of --mqtt" % opt)
    jsonin.setup_stdio()
    dbmod.ignore_file_size_signal()
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
    if args.mqtt:  # the tables on Wi-Fi, through a broker (host_tools/intake/mqtt.py)
        listener = mqtt.Listener(db, view, err, league=args.league)
        core = listener.core
    else:
        core = LineCore(db, out=view, err=err)
    status = 0
    try:
        if args.mqtt:
            status = run_mqtt(args, listener, prog)
        else:
            usb.run(core, port=args.port, idle_exit=args.idle_exit)
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
