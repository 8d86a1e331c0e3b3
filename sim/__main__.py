"""speedref-sim: the referee device on a virtual board.

  speedref-sim                      interactive, in the terminal (works over SSH)
  speedref-sim --window             interactive, in a desktop window (pygame)
  speedref-sim --script FILE        headless and deterministic; prints the USB log
                                    [--json] [--seed N] [--game G] [--screens DIR]
See docs/simulator.md.
"""
import argparse
import json
import sys

from sim import compat

GAMES = ("speed", "spit", "speedrun", "partners")


def build_parser():
    p = argparse.ArgumentParser(prog="speedref-sim", description=__doc__.split("\n")[0])
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--script", metavar="FILE",
                      help="run an event script headless ('-' for stdin)")
    mode.add_argument("--window", action="store_true", help="open a desktop window (pygame)")
    # The computer players (issue 4): the sim/table package.
    mode.add_argument("--table", metavar="GAME", choices=GAMES,
                      help="computer players play GAME at a virtual table; the app's verdicts "
                           "are checked against what really happened (--games N --seed S)")
    mode.add_argument("--play", metavar="GAME", choices=("speed", "speedrun"),
                      help="play GAME with cards on screen against computer players")
    p.add_argument("--games", type=int, default=100, help="with --table: how many games (default 100)")
    p.add_argument("--json", action="store_true",
                   help="print the device's log lines as JSON (default: readable text)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the simulator's randomness (the referee app itself draws none)")
    p.add_argument("--game", choices=GAMES, help="start directly in this game with default options")
    p.add_argument("--screens", metavar="DIR", help="with --script: a PNG of the OLED after each event")
    p.add_argument("--store", metavar="DIR",
                   help="the board's flash directory (default: a fresh temporary one)")
    p.add_argument("--start-us", type=int, default=0,
                   help="first ticks_us value (e.g. 1073000000 to cross the 2**30 wrap)")
    p.add_argument("--repeat-delay", type=int, default=500, metavar="MS",
                   help="terminal: events of the same key within this long of its first are auto-repeats, swallowed (default 500)")
    p.add_argument("--repeat-interval", type=int, default=150, metavar="MS",
                   help="terminal: and within this long of each auto-repeat (default 150)")
    p.add_argument("--scale", type=int, default=6, help="window: OLED pixel size (default 6)")
    return p


def run_script(args, out=sys.stdout):
    from sim import script as script_mod
    from sim.board import Board
    from sim.tui import describe
    try:
        text = sys.stdin.read() if args.script == "-" else open(args.script, encoding="utf-8").read()
    except OSError as e:
        print("speedref-sim: cannot read %s: %s" % (args.script, e), file=sys.stderr)
        return 2
    try:
        events = script_mod.parse(text)
    except script_mod.ScriptError as e:
        print("speedref-sim: %s: %s" % (args.script, e), file=sys.stderr)
        return 2

    def show(obj):
        out.write((json.dumps(obj) if args.json else describe(obj)) + "\n")

    board = Board(root=args.store, start_us=args.start_us, seed=args.seed)
    try:
        board.on_line = show
        for line in board.lines:  # what the device printed while booting
            show(json.loads(line))
        board.step()  # the loop's first pass shows the boot screen
        if args.game:
            board.start_game(args.game)
        shots = None
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
    finally:
        board.close()
    return 0


def main(argv=None):
    compat.install()
    args = build_parser().parse_args(argv)
    if args.screens and not args.script:
        build_parser().error("--screens needs --script")
    if args.script:
        return run_script(args)
    if args.table:
        from sim import table
        return table.main(args.table, args.games, 1 if args.seed is None else args.seed, sys.stdout)
    if args.play:
        from sim.table import play
        return play.main(args)
    from sim.board import Board
    board = Board(root=args.store, realtime=True, start_us=args.start_us, seed=args.seed)
    try:
        board.step()
        if args.game:
            board.start_game(args.game)
        if args.window:
            from sim import window
            window.main(board, scale=args.scale)
        else:
            from sim import tui
            tui.main(board, args.repeat_delay * 1000, args.repeat_interval * 1000)
    finally:
        board.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
