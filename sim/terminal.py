"""What the terminal modes (the terminal simulator, --play) need before
curses starts: stdin and stdout on a terminal the system knows.  Without
one curses fails halfway (after writing its screen-reset escape), so the
check comes first and says why in one line."""
import sys

HEADLESS = "use --script FILE for a headless run, --table GAME for computer players, or --window"


class NoTerminal(Exception):
    """No terminal for a terminal mode: one line on stderr, exit 2."""


def need_terminal(what="the terminal mode"):
    """NoTerminal unless stdin and stdout are a terminal curses can drive.
    Writes nothing to the terminal."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        try:
            tty = stream is not None and stream.isatty()
        except (AttributeError, ValueError):   # closed, or a stand-in without isatty
            tty = False
        if not tty:
            raise NoTerminal("%s needs a terminal, and %s is not one: %s" % (what, name, HEADLESS))
    import curses
    try:
        curses.setupterm(fd=sys.stdout.fileno())
    except curses.error:
        import os
        raise NoTerminal("%s needs a terminal this system knows, and TERM=%s is not one (try TERM=xterm)"
                         % (what, os.environ.get("TERM", "")))
