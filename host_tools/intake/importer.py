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

Everything goes through speedref-log's own line core (host_tools.intake.lines.LineCore),
so a record is validated by the same rules, stored once under the same key,
and a log's slap verdicts are tied to their own game the same way: importing
the same thing twice adds nothing.  Anything else gets one clear line, and the
exit status is 2 when a PATH could not be read or recognised, or when a game
record in it was refused; lines of noise in a log are reported and skipped, as
speedref-log does, without changing the status.  Nothing is written into the
files and folders read.
"""
import codecs
import os

from host_tools import jsonin
from host_tools.club import db as dbmod
from host_tools.club.db import DatabaseProblem
from host_tools.intake import recordfiles
from host_tools.intake.lines import LineCore

MAX_FILE = 256 * 1024 * 1024     # bigger is no capture of a card table's evening
CHUNK = 64 * 1024                # a capture is read and handled this many bytes at a time
WHOLE_MAX = 4 * 1024 * 1024      # a bigger file is a log capture or nothing (no record is this big)
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
        self.current = None      # the PATH being imported: its LineCore

    def core(self):
        self.current = LineCore(self.db, out=self.out, err=self.err, source="import", live=False)
        return self.current

    def kept(self):
        """New game records stored so far, the PATH being imported included."""
        return self.new + (self.current.stored if self.current is not None else 0)

    def path(self, path):
        """Import one PATH; DatabaseProblem stops the whole import."""
        try:
            if os.path.isdir(path):
                what, core = self.store(path)
            else:
                what, core = self.file(path)
        except NotImportable as e:
            self.failed += 1
            self.new = self.kept()       # what a capture cut short had stored stays
            self.current = None
            self.err("%s: %s" % (path, e))
            return
        self.refused += core.refused
        self.new += core.stored
        self.current = None
        self.out("%s: %s: %s, %d already stored, %s, %s skipped" % (
            path, what, _plural(core.stored, "new game record"), core.duplicates,
            _plural(core.slaps, "slap verdict"), _plural(core.skipped, "line" if what == "log capture" else "file")))

    # --- a store folder -----------------------------------------------------------------
    def store(self, path):
        try:
            files = recordfiles.store_files(path)
        except recordfiles.Invalid as e:
            raise NotImportable(str(e).split(": ", 1)[-1])
        top = path if os.path.basename(os.path.normpath(path)) != "rec" else os.path.dirname(os.path.normpath(path))
        if os.path.exists(os.path.join(top, "game.json")):
            self.out("%s: a game in progress (game.json) is not a finished game: not imported" % top)
        core = self.core()
        for f in files:
            try:
                rec, name = recordfiles.read_record_file(f)
            except recordfiles.Invalid as e:
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
        try:
            f = recordfiles.open_regular(path)
        except recordfiles.Invalid as e:
            raise NotImportable(str(e).split(": ", 1)[-1] + ": " + KINDS + " is imported")
        with f:
            try:
                if os.fstat(f.fileno()).st_size > MAX_FILE:
                    raise NotImportable("larger than %d MB: not %s" % (MAX_FILE >> 20, KINDS))
                chunks = self.chunks(path, f)
                head = b""
                for chunk in chunks:
                    head += chunk
                    if len(head) > WHOLE_MAX:
                        break
                else:
                    return self.whole(path, head)
                return self.stream(path, head, chunks)
            except OSError as e:
                raise NotImportable("cannot read: %s" % (e.strerror or e))

    def chunks(self, path, f):
        """The file's text as UTF-8 bytes, CHUNK bytes read at a time: a UTF-8
        BOM dropped, UTF-16 (with its BOM, as PowerShell's `>` writes a
        capture) decoded."""
        first = f.read(CHUNK)
        if first.startswith((b"\xff\xfe", b"\xfe\xff")):
            self.out("%s: UTF-16 text (as PowerShell's > writes it): read as UTF-16" % path)
            dec = codecs.getincrementaldecoder("utf-16")()
            data = first
            try:
                while data:
                    text = dec.decode(data)
                    if text:
                        yield text.encode("utf-8", "surrogatepass")
                    data = f.read(CHUNK)
                dec.decode(b"", final=True)
            except UnicodeDecodeError as e:
                raise NotImportable("UTF-16 text (it begins with a UTF-16 BOM) that is not valid UTF-16: %s"
                                    % e.reason)
            return
        if first.startswith(b"\xef\xbb\xbf"):
            first = first[3:]    # a UTF-8 BOM some editors write
        data = first
        while data:
            yield data
            data = f.read(CHUNK)

    def whole(self, path, data):
        """A file of at most WHOLE_MAX bytes: a record, or a short capture."""
        if not data.strip():
            raise NotImportable("empty file: not " + KINDS)
        if data.startswith(b"SRF1"):
            try:
                body = recordfiles.device_file_body(data, path)
            except recordfiles.Invalid as e:
                raise NotImportable(str(e).split(": ", 1)[-1])
            return self.one_record(path, body, "device record file")
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
        return self.stream(path, data, iter(()))

    def stream(self, path, head, chunks):
        """A log capture: `head` (its first bytes, already read), then the
        rest as it is read, CHUNK bytes at a time, so memory stays bounded
        whatever the capture's size.  A file bigger than WHOLE_MAX is a
        capture or nothing: its head must hold a log line."""
        if len(head) > WHOLE_MAX and not _has_log_line(head[:head.rfind(b"\n") + 1]):
            raise NotImportable("not %s (no log line in its first %d KB)" % (KINDS, WHOLE_MAX >> 10))
        core = self.core()
        for i in range(0, len(head), CHUNK):
            core.feed(head[i:i + CHUNK])
        for chunk in chunks:
            core.feed(chunk)
        core.feed(b"\n")
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
    # one import is one moment: its games are ordered by their tables'
    # numbers, not by the order of the PATHs (people.time_order)
    db.moment = db.moment or dbmod.now()
    try:
        for p in paths:
            imp.path(p)
    except DatabaseProblem as e:
        return jsonin.complain(prog, "%s; %s stored before this %s kept" % (
            e, _plural(imp.kept(), "new game record"), "is" if imp.kept() == 1 else "are"))
    if len(paths) > 1:
        out("%s imported: %s; %s not imported, %s refused" % (
            _plural(len(paths) - imp.failed, "path"), _plural(imp.new, "new game record"),
            _plural(imp.failed, "path"), _plural(imp.refused, "game record")))
    return 2 if imp.failed or imp.refused else 0
