"""speedref-results import PATH... [--db FILE]: every way a game leaves a table,
into the results database.

Each PATH is one of:

* a USB log capture: the JSON lines a board prints (as speedref-log reads them,
  banner and noise included), or the web page's "log" download;
* one game record: JSON (the web page's "record JSON" download, a file
  speedref-score reads) or a device record file (`SRF1 <crc32> <length>`, then
  the JSON body: firmware/speedref/storage.py);
* a store folder: `speedref-sim --store DIR`, or a copy of a board's flash
  (its `rec/NNNNNNNN.json` files; DIR or DIR/rec).

Everything goes through speedref-log's own line core (host_tools.log.LineCore),
so a record is validated by the same rules, stored once under the same key,
and a log's slap verdicts are tied to their own game the same way: importing
the same thing twice adds nothing.  Anything else gets one clear line, and the
exit status is 2 when a PATH could not be read or recognised, or when a game
record in it was refused; lines of noise in a log are reported and skipped, as
speedref-log does, without changing the status.  Nothing is written into the
files and folders read.
"""
import os

from host_tools import jsonin, score
from host_tools.db import DatabaseProblem
from host_tools.log import LineCore

MAX_FILE = 256 * 1024 * 1024     # bigger is no capture of a card table's evening
KINDS = "a game record (JSON or a device record file), a log capture (JSON lines with \"ev\") or a store folder"


class NotImportable(Exception):
    """A PATH that is none of the sources: the message is its one line."""


def _plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


class Importer:
    """Imports PATHs into `db`; `out` and `err` as LineCore's."""

    def __init__(self, db, out, err):
        self.db = db
        self.out = out
        self.err = err
        self.failed = 0          # PATHs not imported at all
        self.refused = 0         # game records refused in them
        self.new = 0

    def core(self):
        return LineCore(self.db, out=self.out, err=self.err, source="import", live=False)

    def path(self, path):
        """Import one PATH; DatabaseProblem stops the whole import."""
        try:
            if os.path.isdir(path):
                what, core = self.store(path)
            else:
                what, core = self.file(path)
        except NotImportable as e:
            self.failed += 1
            self.err("%s: %s" % (path, e))
            return
        self.refused += core.refused
        self.new += core.stored
        self.out("%s: %s: %s, %d already stored, %s, %s skipped" % (
            path, what, _plural(core.stored, "new game record"), core.duplicates,
            _plural(core.slaps, "slap verdict"), _plural(core.skipped, "line" if what == "log capture" else "file")))

    # --- a store folder -----------------------------------------------------------------
    def store(self, path):
        try:
            files = score.store_files(path)
        except score.Invalid as e:
            raise NotImportable(str(e).split(": ", 1)[-1])
        top = path if os.path.basename(os.path.normpath(path)) != "rec" else os.path.dirname(os.path.normpath(path))
        if os.path.exists(os.path.join(top, "game.json")):
            self.out("%s: a game in progress (game.json) is not a finished game: not imported" % top)
        core = self.core()
        for f in files:
            try:
                rec, name = score.read_record_file(f)
            except score.Invalid as e:
                core.refused += 1
                core.skip(str(e))
                continue
            self.record(core, rec, name)
        return "store", core

    def record(self, core, rec, name):
        if not isinstance(rec, dict) or not isinstance(rec.get("game"), str):
            core.refused += 1
            core.skip("%s: not a game record (no \"game\")" % name)
            return
        core.record(rec, "file", where=name)

    # --- one file -----------------------------------------------------------------------
    def file(self, path):
        if not os.path.exists(path):
            raise NotImportable("cannot read: no such file or folder")
        if not os.path.isfile(path):
            raise NotImportable("not a file or a folder (a device or a pipe?): " + KINDS + " is imported")
        try:
            if os.path.getsize(path) > MAX_FILE:
                raise NotImportable("larger than %d MB: not %s" % (MAX_FILE >> 20, KINDS))
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise NotImportable("cannot read: %s" % (e.strerror or e))
        if not data.strip():
            raise NotImportable("empty file: not " + KINDS)
        if data.startswith(b"SRF1"):
            try:
                body = score.device_file_body(data, path)
            except score.Invalid as e:
                raise NotImportable(str(e).split(": ", 1)[-1])
            return self.one_record(path, body, "device record file")
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]      # a UTF-8 BOM some editors write
        try:
            whole = jsonin.loads(data)
        except jsonin.BadJSON as e:
            whole, why = None, e
        else:
            why = None
        if isinstance(whole, dict) and "ev" not in whole:
            return self.one_record(path, data, "record")
        if whole is not None and not isinstance(whole, dict):
            raise NotImportable("not %s (JSON, but a %s)" % (KINDS, type(whole).__name__))
        if whole is None and not _has_log_line(data):
            hint = " (as JSON: %s)" % why if data.lstrip()[:1] in (b"{", b"[") else ""
            raise NotImportable("not %s%s" % (KINDS, hint))
        core = self.core()
        core.feed(data if data.endswith(b"\n") else data + b"\n")
        core.finish()
        return "log capture", core

    def one_record(self, path, body, what):
        try:
            rec = jsonin.loads(body)
        except jsonin.BadJSON as e:
            raise NotImportable("bad JSON: %s" % e)
        if not isinstance(rec, dict) or not isinstance(rec.get("game"), str):
            raise NotImportable("not %s (JSON without a \"game\")" % KINDS)
        core = self.core()
        core.record(rec, "file", where=path)
        return what, core


def _has_log_line(data):
    """Does any line hold a JSON object with a string "ev" (a board's log line)?"""
    for raw in data.split(b"\n"):
        raw = raw.strip()
        if raw.startswith(b"{") and b'"ev"' in raw:
            try:
                ev = jsonin.loads(raw)
            except jsonin.BadJSON:
                continue
            if isinstance(ev, dict) and isinstance(ev.get("ev"), str):
                return True
    return False


def run(db, paths, prog, out, err):
    """Import every PATH: the exit status (0, or 2: see the module docstring)."""
    imp = Importer(db, out, err)
    try:
        for p in paths:
            imp.path(p)
    except DatabaseProblem as e:
        return jsonin.complain(prog, "%s; %d new game records stored before this are kept" % (e, imp.new))
    if len(paths) > 1:
        out("%s imported: %s; %s not imported, %s refused" % (
            _plural(len(paths) - imp.failed, "path"), _plural(imp.new, "new game record"),
            _plural(imp.failed, "path"), _plural(imp.refused, "game record")))
    return 2 if imp.failed or imp.refused else 0
