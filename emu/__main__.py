"""speedref-emu: the referee firmware on an emulated Pico.

  speedref-emu --script FILE [--json] [--game G] [--screens DIR] [--store DIR]
        the event script of speedref-sim --script, run on MicroPython's own
        rp2 firmware in rp2040js: pads through the PIO capture, nav buttons
        through the hard pin interrupt, the OLED through its I2C bytes, the
        log over USB CDC.  Prints what speedref-sim prints.
  speedref-emu --serve [--frozen]
        boot the board and print the path of a pty bridged to its USB CDC:
        mpremote, speedref-flash and speedref-log use it as a real board.
See docs/emulator.md.
"""
import argparse
import json
import sys

from sim import compat


def build_parser():
    p = argparse.ArgumentParser(prog="speedref-emu", description=__doc__.split("\n")[0])
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--script", metavar="FILE", help="run an event script ('-' for stdin)")
    mode.add_argument("--serve", action="store_true",
                      help="boot the board and bridge its USB to a pty (prints the path)")
    p.add_argument("--json", action="store_true", help="print the log lines as JSON")
    p.add_argument("--game", help="start directly in this game with default options")
    p.add_argument("--names", metavar="A,B[,...]",
                   help="with --script: the players' names, one a seat (as speedref-sim --names)")
    p.add_argument("--screens", metavar="DIR", help="with --script: a PNG of the OLED after each event")
    p.add_argument("--store", metavar="DIR", help="with --script: write the board's files here at the end")
    p.add_argument("--frozen", action="store_true",
                   help="run speedref-pico-RPI_PICO.uf2 (speedref frozen in) instead of the stock image + .mpy")
    p.add_argument("--blank", action="store_true",
                   help="with --serve: the stock image on a blank flash (nothing installed yet)")
    return p


class Progress:
    """How far a script has run on the emulated board, on stderr: board time
    against wall time ("board 12.3 of 250.0 s, 40 s wall (0.31x real
    time)"), a line every `every_s` wall seconds and one at the end.  The
    emulator runs slower than real time (docs/emulator.md), so a long script
    looked hung after its first line."""

    def __init__(self, err=None, clock=None, every_s=5.0):
        import time
        self.err = err or sys.stderr
        self.clock = clock or time.monotonic
        self.every_s = every_s
        self.t0 = self.clock()
        self.last = self.t0  # wall time of the last line (or the start)

    def text(self, done_us, total_us):
        wall = self.clock() - self.t0
        rate = " (%.2fx real time)" % (done_us / 1e6 / wall) if wall > 0 and done_us else ""
        return "speedref-emu: board %.1f of %.1f s, %.0f s wall%s" % (
            done_us / 1e6, total_us / 1e6, wall, rate)

    def __call__(self, done_us, total_us):
        now = self.clock()
        if done_us < total_us and now - self.last < self.every_s:
            return
        self.last = now
        self.err.write(self.text(done_us, total_us) + "\n")
        self.err.flush()


def run_script(args, out=sys.stdout):
    """speedref-sim --script's run, on the emulated board: the same script
    reading (a '# game: G' header names the game, '# seats: N' its players),
    the same output."""
    from sim.__main__ import UsageError, check_dir, check_seats, load_script
    from sim.tui import describe
    from emu import referee, fs as emu_fs
    try:
        game, seats, events = load_script(args.script, args.game)
        check_seats(game, seats)
        options = {} if seats is None else {"seats": seats}
        if getattr(args, "names", None):
            from speedref import names as N, games as registry
            try:
                names = N.check_game(args.names.split(","))
            except N.BadName as e:
                raise UsageError("--names: %s" % e)
            lo, hi = (2, 4) if game is None else registry.get(game).seats
            if game is None or not lo <= len(names) <= hi or (seats is not None and seats != len(names)):
                raise UsageError("--names: %d names do not seat this script's game (%s)" % (len(names), game))
            options["names"] = names
            if lo != hi:
                options["seats"] = len(names)
        for option in ("screens", "store"):
            if getattr(args, option):
                check_dir("--" + option, getattr(args, option))
    except UsageError as e:
        print("speedref-emu: %s" % e, file=sys.stderr)
        return 2
    if missing():  # the script and its options first: a mistake there is told without a board
        return 2

    def show(obj):
        if obj.get("ev") == "boot":
            return  # the simulator has no boot line (docs/emulator.md)
        out.write((json.dumps(obj) if args.json else describe(obj)) + "\n")
        out.flush()

    shots = None
    if args.screens:
        from sim.oled import ScreenWriter
        shots = ScreenWriter(args.screens)
    ref, volume = referee.run_script(events, game=game, show=show, shots=shots,
                                     frozen=args.frozen, progress=Progress(),
                                     options=options or None)
    if args.store:
        emu_fs.write_dir(volume, args.store)
    for line in ref.other:
        if "Traceback" in line or "Error" in line:
            print("speedref-emu: the board printed: %s" % line, file=sys.stderr)
    return 0


def serve(args, out=sys.stdout):
    """Bridge the board's USB CDC to a pty, in real time, until interrupted."""
    from emu import fs as emu_fs, images
    from emu.board import Pico
    from emu.serve import Bridge
    if args.blank:
        pico = Pico()
    elif args.frozen:
        pico = Pico(firmware=images.frozen_firmware(), fs_image=emu_fs.image(emu_fs.main_only()))
    else:
        pico = Pico(fs_image=emu_fs.image(emu_fs.speedref_files()))
    bridge = Bridge(pico)
    try:
        pico.boot()
        out.write(bridge.path + "\n")
        out.flush()
        bridge.serve_forever()
    except KeyboardInterrupt:
        return 0
    finally:
        bridge.close()
        pico.close()
    return 0


def missing():
    """Says on stderr what the emulated board lacks (images, Node.js,
    rp2040js), if anything: True then."""
    from emu import images
    why = images.why_missing()
    if why:
        print("speedref-emu: %s" % why, file=sys.stderr)
    return bool(why)


def main(argv=None):
    compat.install()
    args = build_parser().parse_args(argv)
    if args.serve:
        return 2 if missing() else serve(args)
    return run_script(args)


if __name__ == "__main__":
    sys.exit(main())
