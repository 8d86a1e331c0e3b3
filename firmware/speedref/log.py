# The game log: one JSON object per line on the USB console, so a laptop
# (speedref-log) can follow a game live and keep every record.  Every line
# has an "ev" key naming its type; docs/serial-protocol.md lists them.
import json
import sys


def _stdout_write(s):
    sys.stdout.write(s)


class Log:
    def __init__(self, write=None):
        self._write = write or _stdout_write
        self.lines = 0

    def emit(self, obj):
        """Print obj as one JSON line.  A malformed event (no "ev", or a
        value JSON cannot encode) becomes an error line: logging never
        crashes the referee."""
        try:
            if not isinstance(obj, dict) or "ev" not in obj:
                raise TypeError("log line without an ev key")
            line = json.dumps(obj)
        except (TypeError, ValueError) as e:
            line = json.dumps({"ev": "error", "what": "log", "msg": str(e)})
        self._write(line + "\n")
        self.lines += 1

    def error(self, what, msg, **extra):
        d = {"ev": "error", "what": what, "msg": msg}
        for k in extra:
            d[k] = extra[k]
        self.emit(d)

    def exception(self, e, what="crash"):
        """An exception with its traceback as one error line."""
        self.error(what, repr(e), traceback=format_exception(e))


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
