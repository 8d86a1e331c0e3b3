# The game log: one JSON object per line on the USB console, so a laptop
# (speedref-log) can follow a game live and keep every record.  Every line
# has an "ev" key naming its type; docs/serial-protocol.md lists them.
#
# On the board a line is streamed: json.dump writes it piece by piece into
# the console, so a game_end line (a whole record, ~2 KB) never exists as
# one string in a 64 KB heap.  The simulator and tests pass write= instead
# and get each line as one string.  A board whose console is a slow UART
# (the ESP32) queues its lines instead: speedref/spool.py's SpoolLog, loaded
# only there.
import json
import sys

_MAX_DEPTH = 16  # records nest 4 deep; deeper means a bug, not a record


class Log:
    def __init__(self, write=None, stream=None):
        """write: a function called once per line with the whole line (ending
        in "\\n").  stream: an object with write() that json.dump can write
        into (on MicroPython a real stream: sys.stdout, a file, or an
        io.IOBase subclass, whose write() gets short bytes-like pieces).
        Neither: the line is streamed to sys.stdout."""
        self._write = write
        self._stream = stream if (stream is not None or write is not None) else sys.stdout
        self.lines = 0

    def emit(self, obj):
        """Print obj as one JSON line.  A malformed event (no "ev", or a
        value JSON cannot encode) becomes an error line: logging never
        crashes the referee.  The whole object is checked before the first
        byte goes out, so a streamed line is never cut in the middle."""
        try:
            if not isinstance(obj, dict) or "ev" not in obj:
                raise TypeError("log line without an ev key")
            _check(obj, 0)
        except (TypeError, ValueError) as e:
            obj = {"ev": "error", "what": "log", "msg": str(e)}
        self._put(obj)

    def _put(self, obj):
        """Write a checked line out (SpoolLog queues it instead)."""
        if self._write is not None:
            self._write(json.dumps(obj) + "\n")
        else:
            json.dump(obj, self._stream)
            self._stream.write("\n")
        self.lines += 1

    def error(self, what, msg, **extra):
        d = {"ev": "error", "what": what, "msg": msg}
        for k in extra:
            d[k] = extra[k]
        self.emit(d)

    def exception(self, e, what="crash"):
        """An exception with its traceback as one error line."""
        self.error(what, repr(e), traceback=format_exception(e))


def _check(v, depth):
    """Raise TypeError unless v is plain JSON: MicroPython's json writes
    any other object as its repr (not JSON) instead of refusing it."""
    if v is None or isinstance(v, (bool, int, str)):
        return
    if isinstance(v, float):
        if v - v != 0:  # nan or an infinity: JSON has neither
            raise ValueError("log value is not a finite number")
        return
    if depth >= _MAX_DEPTH:
        raise ValueError("log value nested too deep")
    if isinstance(v, dict):
        for k in v:
            if not isinstance(k, str):
                raise TypeError("log key is not a string: %r" % (k,))
            _check(v[k], depth + 1)
    elif isinstance(v, (list, tuple)):
        for x in v:
            _check(x, depth + 1)
    else:
        raise TypeError("log value is not JSON: %s" % type(v).__name__)


def format_exception(e):
    """The traceback text of e on either runtime."""
    pe = getattr(sys, "print_exception", None)
    if pe is not None:  # MicroPython
        import io
        buf = io.StringIO()
        pe(e, buf)
        return buf.getvalue()
    import traceback  # type: ignore[import-not-found]  # CPython only (simulator)
    return "".join(traceback.format_exception(type(e), e, e.__traceback__))
