"""speedref-sim: the referee device on a virtual board.

  speedref-sim                      interactive, in the terminal (works over SSH)
  speedref-sim --window             interactive, in a desktop window (pygame)
  speedref-sim --script FILE        headless and deterministic; prints the USB log
                                    [--json] [--seed N] [--game G] [--screens DIR]
  speedref-sim --play GAME          you (P1) against computer players [--pace P] [--length L]
  speedref-sim --roster FILE        the club's roster on the board: each seat picks its name
                                    (or --names A,B with no game: names for the roster)
See docs/simulator.md.
"""
import argparse
import json
import os
import sys

from sim import compat
from sim.terminal import NoTerminal

from speedref import games as registry


class UsageError(Exception):
    """A problem with the command line or its files: one line on stderr, exit 2."""


def positive_int(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number" % text)
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1, not %d" % n)
    return n


# --length: the game's Length option, for --play of a game whose menu has one
# (Speed Run's, SR-2); its values and default are the registry entry's.
LENGTH = "length"


def length_games():
    """[(game, its Length values, their default)] of the games --play plays
    that have a Length option."""
    out = []
    for g in registry.GAMES:
        for key, label, values in g.options:
            if key == LENGTH and g.person:
                out.append((g.id, values, g.defaults.get(key, values[0])))
    return out


def length_help():
    """--length's help and the --play it needs, from the registry."""
    games = length_games()
    plays = " or ".join("--play " + g for g, _, _ in games)
    defaults = sorted(set(str(d) for _, _, d in games))
    return plays, "with %s: the game's length (default: the device's own, %s)" % (plays, ", ".join(defaults))


def build_parser():
    p = argparse.ArgumentParser(prog="speedref-sim", description=__doc__.split("\n")[0])
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--script", metavar="FILE",
                      help="run an event script headless ('-' for stdin)")
    mode.add_argument("--window", action="store_true", help="open a desktop window (pygame)")
    # The computer players: the sim/table package.
    mode.add_argument("--table", metavar="GAME", choices=registry.IDS,
                      help="computer players play GAME at a virtual table; the app's verdicts "
                           "are checked against what really happened (--games N --seed S)")
    # A person at the table with cards on screen: each game's entry names the
    # module (its `person`), a game without one has no --play.
    mode.add_argument("--play", metavar="GAME", choices=tuple(g.id for g in registry.GAMES if g.person),
                      help="play GAME with cards on screen against computer players")
    p.add_argument("--pace", choices=("slow", "normal", "fast"), default=None,
                   help="with --play: how quickly the computer players play (default normal)")
    p.add_argument("--length", choices=tuple(dict.fromkeys(v for _, vs, _ in length_games() for v in vs)),
                   default=None, help=length_help()[1])
    p.add_argument("--games", type=positive_int, default=100, help="with --table: how many games (default 100)")
    p.add_argument("--seats", type=positive_int, default=None, metavar="N",
                   help="with --table, --play, --script or --game: N players, within what the game's "
                        "rules seat and its referee plays (default: the fewest; a script's '# seats: N' "
                        "header)")
    p.add_argument("--names", metavar="A,B[,...]",
                   help="with --script, --table, --play or --game: the players' names, one a seat in seat "
                        "order (1-10 characters each, ASCII and accented Latin letters; Guest keeps the seat's label); "
                        "the number of names is the number of players.  Alone (the terminal or the "
                        "window): names added to the board's roster, each seat picks its own on the device")
    p.add_argument("--roster", metavar="FILE",
                   help="the club's roster: a names file as speedref-roster push reads it (one name a "
                        "line; speedref-roster pull FILE writes one), put on the virtual board over its "
                        "console: before each game every seat picks its name on the device (the "
                        "terminal, the window, --script)")
    p.add_argument("--table-name", metavar="NAME",
                   help="this store's table name, kept in it and written into each record (default: "
                        "'Table' and the store's install id)")
    p.add_argument("--json", action="store_true",
                   help="print the device's log lines as JSON (default: readable text)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the simulator's randomness (the referee app itself draws none)")
    p.add_argument("--game", choices=registry.IDS, help="start directly in this game with default options "
                   "(a script can name its game in a '# game: G' header line instead)")
    p.add_argument("--screens", metavar="DIR", help="with --script: a PNG of the OLED after each event")
    p.add_argument("--store", metavar="DIR",
                   help="the board's flash directory (default: a fresh temporary one)")
    p.add_argument("--start-us", type=int, default=0,
                   help="first ticks_us value (e.g. 1073000000 to cross the 2**30 wrap)")
    p.add_argument("--repeat-delay", type=int, default=500, metavar="MS",
                   help="terminal: events of the same key within this long of its first are auto-repeats, swallowed (default 500)")
    p.add_argument("--repeat-interval", type=int, default=150, metavar="MS",
                   help="terminal: and within this long of each auto-repeat (default 150)")
    p.add_argument("--log-buzzer", action="store_true",
                   help="terminal: the buzzer's cues in the event log too (the status line "
                        "always shows them)")
    p.add_argument("--scale", type=int, default=6, help="window: OLED pixel size (default 6)")
    return p


def read_script(path):
    """The script's text: '-' is stdin; UTF-8, a byte order mark ignored."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as e:
        raise UsageError("cannot read %s: %s" % (path, e.strerror or e))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise UsageError("%s: line %d is not UTF-8 text (save the script as UTF-8)" % (path, line))


def check_dir(option, path):
    """Make sure path is (or can be made) a directory we can write into."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError("%s %s: not a directory (it is a file)" % (option, path))
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise UsageError("%s %s: cannot create it: %s" % (option, path, e.strerror or e))
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError("%s %s: cannot write into it" % (option, path))


def check_store_for_cards(args):
    """--table and --play deal their own cards, so they start new games only:
    a --store holding a game in progress (a --play quit half way, a terminal
    session cut off) is refused, never discarded; the terminal mode resumes it."""
    if not args.store:
        return
    check_dir("--store", args.store)
    from speedref import storage
    if any(os.path.exists(os.path.join(args.store, storage.GAME + suffix)) for suffix in ("", ".bak", ".tmp")):
        raise UsageError("--store %s holds a game in progress (%s): --table and --play deal new cards, so"
                         " they start new games only; resume or abandon it with `speedref-sim --store %s`,"
                         " or use another folder" % (args.store, storage.GAME, args.store))


def make_board(args, **kw):
    """The virtual board, with the run's roster on it (put_roster)."""
    from sim.board import Board
    if args.store:
        check_dir("--store", args.store)
    try:
        board = Board(root=args.store, start_us=args.start_us, seed=args.seed, **kw)
    except OSError as e:
        raise UsageError("--store %s: %s" % (args.store, e.strerror or e))
    try:
        put_roster(board, args)
    except BaseException:
        board.close()
        raise
    return board


def read_roster(args):
    """--roster FILE's names, read as speedref-roster push reads a file (and
    refused whole for the same reasons), before any board is made."""
    args.roster_names = None
    if args.roster is None:
        return
    from host_tools.board.roster import read_names, Problem
    try:
        args.roster_names = read_names(args.roster)
    except Problem as e:
        # the tool's words are about sending; here the file is loaded
        lines = [x.strip() for x in str(e).replace("nothing sent", "nothing loaded").splitlines()]
        raise UsageError("--roster %s" % " ".join(x for x in lines if x))


def put_roster(board, args):
    """The run's roster onto the board, over its console as speedref-roster
    puts one on a board: --roster FILE's names become the roster (push), then
    --names given without a game to seat join it (add)."""
    try:
        if getattr(args, "roster_names", None) is not None:
            board.roster("push", args.roster_names)
        if getattr(args, "roster_add", None):
            board.roster("add", args.roster_add)
    except ValueError as e:
        raise UsageError("the board refused the roster: %s" % e)


def load_script(path, game=None, seats=None):
    """(game, seats, events) of a script file: `game` if given, else the one
    its '# game: G' header names (or None); `seats` if given, else its
    '# seats: N' header's (or None); UsageError for a bad file or line."""
    from sim import script as script_mod
    text = read_script(path)
    try:
        return (game or script_mod.header_game(text), seats or script_mod.header_seats(text),
                script_mod.parse(text))
    except script_mod.ScriptError as e:
        raise UsageError("%s: %s" % (path, e))


def check_seats(game, seats):
    """UsageError unless `game` seats `seats` players and its referee plays
    them (None: the game's fewest)."""
    if seats is None:
        return
    from sim.table.runner import seat_choice
    if game is None:
        raise UsageError("--seats %d: which game? name it (--game G, or a '# game: G' script header)" % seats)
    try:
        if not seat_choice(game, seats):
            raise ValueError("%s seats %d players only" % (registry.get(game).title, seats))
    except ValueError as e:
        raise UsageError("--seats %d: %s" % (seats, e))


def run_script(args, out=None):
    from sim.tui import describe
    out = out or sys.stdout  # the stdout of this call (not the one at import)
    game, seats, events = load_script(args.script, args.game, args.seats)
    check_seats(game, seats)
    if args.screens:
        check_dir("--screens", args.screens)
    shown = [0]

    def show(obj):
        shown[0] += 1
        out.write((json.dumps(obj) if args.json else describe(obj)) + "\n")

    board = make_board(args)
    try:
        board.on_line = show
        for line in board.lines:  # what the device printed while booting
            show(json.loads(line))
        board.step()  # the loop's first pass shows the boot screen
        if game:
            board.start_game(game, seats, pick=True)
        shots = None
        try:
            if args.screens:
                from sim.oled import ScreenWriter
                shots = ScreenWriter(args.screens)
                shots.write(board.screen(), 0, "start")
            for n, (t_us, button, down, lineno) in enumerate(events, 1):
                board.event(t_us, button, down)
                if shots:
                    shots.write(board.screen(), n, "line%d" % lineno)
            # Let whatever the last event started (a tie window, a countdown) finish.
            end = (events[-1][0] if events else 0) + 2000000
            board.run_until(end)
            if shots:
                shots.write(board.screen(), len(events) + 1, "end")
        except OSError as e:
            raise UsageError("--screens %s: cannot write: %s" % (args.screens, e.strerror or e))
    finally:
        board.close()
    if not shown[0]:
        why = ("it started %s, whose events printed nothing" % game if game else
               "it started at the game menu: name the game in a '# game: G' line at the top "
               "of the script, or pass --game G")
        sys.stderr.write("speedref-sim: %s: the device printed no log lines; %s\n" % (args.script, why))
    return 0


def no_display():
    """Why a window cannot open here, or None (X11 or Wayland on Linux and BSD)."""
    if sys.platform.startswith(("win", "darwin", "cygwin")):
        return None
    if os.environ.get("SDL_VIDEODRIVER") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return ("--window needs a display (neither DISPLAY nor WAYLAND_DISPLAY is set): "
            "use the terminal mode (no --window), or SDL_VIDEODRIVER=dummy for a headless window")


def interactive(args):
    if args.window:
        why = no_display()
        if why:
            raise UsageError(why)
    check_seats(args.game, args.seats)
    board = make_board(args, realtime=True)
    ran = False  # the person had the board: then they hear what is kept
    try:
        board.step()
        if args.game:
            board.start_game(args.game, args.seats, pick=True)
        if args.window:
            from sim import window
            try:
                window.main(board, scale=args.scale)
                ran = True
            except KeyboardInterrupt:
                ran = True
                raise
            except ImportError as e:
                raise UsageError("--window needs pygame: %s" % e)
            except Exception as e:   # pygame.error: no video device, and the like
                if type(e).__name__ != "error":
                    raise
                raise UsageError("--window: cannot open a window: %s" % e)
        else:
            from sim import tui
            try:
                tui.main(board, args.repeat_delay * 1000, args.repeat_interval * 1000, args.log_buzzer)
                ran = True
            except KeyboardInterrupt:
                ran = True
                raise
    finally:
        words = board.farewell() if ran else None  # the terminal is back to normal by now
        board.close()
        if words:
            sys.stderr.write("speedref-sim: %s\n" % words)
    return 0


def how_many(n, word):
    """1, "name" -> "1 name"; 2 -> "2 names"."""
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def named(args):
    """--names and --table-name, checked as the board checks them
    (speedref/names.py), for every board this run makes (sim.board.NAMED);
    --names sets --seats when it is not given."""
    from speedref import names as N
    from sim import board
    if args.table_name is not None:
        try:
            board.NAMED["table_name"] = N.clean_table(args.table_name)
        except N.BadName as e:
            raise UsageError("--table-name: %s" % e)
    args.roster_add = None
    if args.names is None:
        return
    if not (args.table or args.play or args.script or args.game):
        # no game to seat them in: names for the board's roster, each seat
        # picks its own on the device (put_roster)
        try:
            names = [N.clean(n) for n in args.names.split(",")]
            N.check_game(names)  # one person once
        except N.BadName as e:
            raise UsageError("--names: %s" % e)
        args.roster_add = names
        return
    try:
        names = N.check_game(args.names.split(","))
    except N.BadName as e:
        raise UsageError("--names: %s" % e)
    if args.seats is not None and args.seats != len(names):
        raise UsageError("--names: %s for --seats %d: one name a seat" % (how_many(len(names), "name"), args.seats))
    game = args.table or args.play or args.game
    if game is None and args.script:
        game = load_script(args.script)[0]
    if game is not None:
        lo, hi = registry.get(game).seats
        if not lo <= len(names) <= hi:
            raise UsageError("--names: %s, but %s seats %s players" % (
                how_many(len(names), "name"), registry.get(game).title, lo if lo == hi else "%d to %d" % (lo, hi)))
        if lo != hi and args.seats is None:
            args.seats = len(names)
    board.NAMED["names"] = names


def main(argv=None):
    compat.install()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.screens and not args.script:
        parser.error("--screens needs --script")
    if args.pace and not args.play:
        parser.error("--pace needs --play")
    if args.roster and (args.table or args.play):
        parser.error("--roster: the computer players start their games without the name picker; "
                     "name the seats with --names")
    if args.seats and not (args.table or args.play or args.script or args.game):
        parser.error("--seats needs --table, --play, --script or --game")
    if args.length and args.play not in [g for g, _, _ in length_games()]:
        parser.error("--length needs " + length_help()[0])
    try:
        named(args)
        read_roster(args)
        if args.script:
            return run_script(args)
        if args.table:
            from sim.table import runner
            check_store_for_cards(args)
            return runner.main(args.table, args.games, 1 if args.seed is None else args.seed, sys.stdout,
                               store=args.store, seats=args.seats)
        if args.play:
            from sim.table import person
            check_seats(args.play, args.seats)
            check_store_for_cards(args)
            return person.main(args)
        return interactive(args)
    except (UsageError, NoTerminal) as e:
        sys.stderr.write("speedref-sim: %s\n" % e)
        return 2
    except KeyboardInterrupt:     # Ctrl-C: the person is done; no traceback
        return 130


if __name__ == "__main__":
    sys.exit(main())
