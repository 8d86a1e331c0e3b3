"""Strict JSON input and safe text output for the host tools.

Everything the host tools read comes from a device, a file or a person, so it
is checked before any of it reaches SQLite, the engine or the terminal:

* `loads(text)` parses JSON and raises `BadJSON` (a ValueError) for anything
  it will not accept: malformed text, a key given twice in one object (JSON
  leaves that undefined; Python would silently keep the last), NaN/Infinity
  and numbers too big for a double (`1e999`, which Python reads as infinity),
  nesting deeper than MAX_DEPTH (a very deep document would otherwise exhaust
  the parser's recursion: RecursionError), a string holding a lone UTF-16
  surrogate such as "\\ud800" (not text: it cannot be encoded as UTF-8 for
  SQLite or a terminal), and integers beyond 64 bits.
* `printable(text)` escapes control characters (a newline in a player's name
  would break a table), terminal escapes (ESC), bidirectional overrides and
  every other invisible format character for text output.
* `write_out(text)` writes the tool's output: a reader that went away ends it
  quietly, an output that cannot be written (`/dev/full`, a closed stdout) is
  one line on stderr and exit status 2.
* `setup_stdio()` makes stdout/stderr write any character (backslash escapes
  where the terminal's encoding has none, e.g. an emoji under cp1252).
"""
import json
import math
import re
import sys

MAX_DEPTH = 32          # a game record nests 4 deep; 32 is generous
INT_MAX = 2 ** 63 - 1   # SQLite's INTEGER range
INT_MIN = -(2 ** 63)


class BadJSON(ValueError):
    """Text we refuse as JSON; the message says why, in one line."""


def _no_duplicates(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise BadJSON("key %s given twice in one object" % json.dumps(k, ensure_ascii=True))
        obj[k] = v
    return obj


def _no_constant(name):
    raise BadJSON("%s is not a JSON number" % name)


def _finite(text):
    x = float(text)
    if not math.isfinite(x):
        raise BadJSON("%s is not a finite number" % text[:30])
    return x


def _bad_string(s):
    for ch in s:
        if "\ud800" <= ch <= "\udfff":
            return True
    return False


def check_value(obj):
    """Raise BadJSON unless obj (parsed JSON) is shallow, valid text and 64-bit ints.

    Walks iteratively, so it never recurses however deep obj is.
    """
    stack = [(obj, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, str):
            if _bad_string(v):
                raise BadJSON("a string holds a lone UTF-16 surrogate (not valid text): %s"
                              % json.dumps(v, ensure_ascii=True)[:60])
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise BadJSON("%r is not a finite number" % v)
        elif isinstance(v, bool) or v is None:
            pass
        elif isinstance(v, int):
            if not INT_MIN <= v <= INT_MAX:
                raise BadJSON("integer out of range: %s" % (str(v)[:30]))
        elif isinstance(v, (list, dict)):
            if depth > MAX_DEPTH:
                raise BadJSON("nested deeper than %d levels" % MAX_DEPTH)
            items = v.items() if isinstance(v, dict) else ((None, x) for x in v)
            for k, x in items:
                if k is not None and _bad_string(k):
                    raise BadJSON("a key holds a lone UTF-16 surrogate (not valid text): %s"
                                  % json.dumps(k, ensure_ascii=True)[:60])
                stack.append((x, depth + 1))


_LONG_NUMBER = re.compile(r"[0-9]{19}")


def _plainly_within_limits(text, decoded):
    """Can text's JSON value hold nothing check_value refuses?  True only when
    that is sure without walking it: no lone surrogate can be in it (text
    decoded from UTF-8 or ASCII holds none, and it has no \\u escape to
    spell one), fewer brackets than MAX_DEPTH (so it nests no deeper), no
    run of 19 digits (so no integer beyond 64 bits) and finite floats
    (parse_float refuses the others)."""
    return ((decoded or text.isascii()) and "\\u" not in text
            and text.count("{") + text.count("[") <= MAX_DEPTH and not _LONG_NUMBER.search(text))


def loads(text):
    """Parse JSON text (str or UTF-8 bytes) strictly: see the module docstring."""
    decoded = isinstance(text, (bytes, bytearray))
    if decoded:
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise BadJSON("not UTF-8: %s" % e)
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant,
                         parse_float=_finite)
    except BadJSON:
        raise
    except RecursionError:
        raise BadJSON("nested too deeply")
    except ValueError as e:   # JSONDecodeError, and int() refusing thousands of digits
        raise BadJSON(str(e).splitlines()[0] if str(e) else "bad JSON")
    if not _plainly_within_limits(text, decoded):
        check_value(obj)
    return obj


def printable(text):
    """text with everything a terminal would act on or hide escaped: control
    characters (ESC starts a terminal escape), line and paragraph separators,
    and format characters (the bidirectional overrides such as RLO, which turn
    the rest of a line around; zero-width characters; a BOM)."""
    text = str(text)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii"))
    return "".join(out)


def setup_stdio():
    """Never die writing a character the console cannot show: escape it."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass


def write_out(text, prog):
    """Write text to stdout and flush: 0, or 2 with one line on stderr when the
    output cannot be written (/dev/full, a closed stdout).  A reader that went
    away (`| head -1`) ends the run quietly (0)."""
    stream = sys.stdout
    if stream is None:           # started with its stdout closed
        return complain(prog, "cannot write the output: stdout is closed")
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        quiet_broken_pipe()
        return 0
    except (OSError, ValueError) as e:   # ENOSPC, EIO, EBADF; ValueError: closed file
        quiet_broken_pipe()              # the interpreter's last flush must not fail again
        return complain(prog, "cannot write the output: %s" % (getattr(e, "strerror", None) or e))
    return 0


def count(n, word, words=None):
    """n and its unit, singular for 1: count(1, "deal") is "1 deal",
    count(2, "deal") "2 deals" (`words`: a plural that is not word + "s")."""
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


def complain(prog, text, status=2):
    """One line on stderr (if there is one), escaped, after "prog: " unless prog
    is None; returns the exit status."""
    if sys.stderr is not None:
        try:
            sys.stderr.write((prog + ": " if prog else "") + printable(text) + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    return status


def quiet_broken_pipe():
    """The reader of our stdout went away (`| head -1`): stop quietly.

    Point stdout at devnull so the interpreter's final flush does not fail again.
    """
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
