# Files on the board's flash that survive a power cut at any instant.
#
# Every file is written whole to "<name>.tmp", then renamed over "<name>"
# (a rename is atomic on littlefs, the rp2 and esp32 default).  The old good
# file is first renamed to "<name>.bak", so there is always a complete file
# to fall back to.  Each file starts with a header line holding a CRC-32 and
# the body's length, so a torn or bit-flipped file is recognised:
#
#     SRF1 <crc32 as 8 hex digits> <body length>\n<JSON body>
#
# A save streams: json.dump writes the body straight into the file after a
# blank header of the same width, the body is read back in small chunks for
# its CRC and length, and the header is written over the blank one.  So no
# copy of the body is ever held in the heap (a Long Speed Run's final record
# is about 2 KB, and a 64 KB heap late in a game may have no free block that
# big).  Loading streams the same way.  The length is written as 10 digits;
# files with a shorter length field (written before streaming) load the same.
#
# A damaged file is set aside as "<name>.bad" (kept for a person to look at),
# a short problem string is returned for the app to show, and the ".bak" is
# used if it is good.  Writes happen only when the app asks (hand boundaries,
# settings changes): flash wears out.
#
# Finished game records live one per file in rec/, named by the sequence
# number the game got when it started, the newest KEEP kept.  A game never
# finds the flash too full for its saves and its record while older records
# are kept: make_room removes the oldest (the app logs each) until ROOM is
# free, as a game starts and again as it ends.
#
# On a board with the Wi-Fi uplink the records the club's listener has not
# acknowledged are its spool (speedref/uplink.py sets `acked`, the newest
# record number acknowledged): they are never removed, neither for KEEP nor
# for room; the acknowledged ones go first, oldest first.  The spool holds
# at most KEEP records: a record that would be one more raises SpoolFull
# and waits (the app keeps the finished game saved, SP-24).  Each gets an
# id no other game anywhere has: "<device>-<install>-<sequence>".  The
# device is machine.unique_id() in hex ("sim" in the simulator, "web" in a
# browser).  The install is 8 random hex digits drawn at the store's first
# start and kept, from its first game on, beside the sequence in seq.json
# ({"seq": n, "install": "..."}), so a flash wiped (or a simulator store or
# browser profile made afresh) starts its sequence again at 1 under a new
# install, never repeating an id it gave before.  Records of the older form
# "<device>-<sequence>" load as they are, and a seq.json holding a bare
# number (from before installs) counts on from it.
import json
import os

from micropython import const



def _crc32(data, value=None):
    # For a port built without binascii.crc32: same polynomial, bit by bit.
    crc = (value or 0) ^ 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


try:
    from binascii import crc32
except ImportError:
    crc32 = _crc32

KEEP = 50  # game records kept on flash (at least 50 games of history)
# Free flash a game needs, checked as it starts and as it ends (make_room):
# its save, the save's .bak and the .tmp of the next (a block each on
# littlefs, 4 KB), seq.json's new copy, its record (a Long Speed Run's is
# about 2 KB) and the blocks littlefs takes for its own metadata as files
# are renamed.  At its end only the record is still to be written:
# RECORD_ROOM, the record's block and littlefs's.  A file of up to 512
# bytes (block/8: a short Speed or Spit record) lives inline in littlefs's
# directory metadata, so removing one frees space there but often no
# block: make_room then goes on to the next oldest.
ROOM = 24 * 1024
RECORD_ROOM = 8 * 1024
GAME = "game.json"
_SETTINGS = const("settings.json")
ROSTER = "roster.json"  # {"names": [...], "last": [the last game's players]}
MATCH = "match.json"  # the match the club's laptop gave this table (speedref/match.py)
_SEQ = const("seq.json")
_REC_DIR = const("rec")



class SpoolFull(OSError):
    """KEEP records wait for the club's acknowledgement: one more is not
    stored.  Its one argument says how many wait, for the table."""


# Load outcomes of one file.
OK = 0
_MISSING = const(1)
_DAMAGED = const(2)


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def _replace(src, dst):
    # littlefs and POSIX replace dst; a FAT volume refuses, so remove first.
    try:
        os.rename(src, dst)
    except OSError:
        _remove(dst)
        os.rename(src, dst)


BLANK_HEAD = b"SRF1 00000000 0000000000\n"  # the width of every header written
_CHUNK = const(256)  # bytes read back at a time for the CRC


def _head(crc, n):
    return b"SRF1 %08x %010d\n" % (crc & 0xFFFFFFFF, n)


def _crc_rest(f):
    """(CRC-32, length) of the rest of open binary file f, read a chunk at a time."""
    buf = bytearray(_CHUNK)
    mv = memoryview(buf)
    crc = 0
    n = 0
    while True:
        k = f.readinto(buf)
        if not k:
            return crc & 0xFFFFFFFF, n
        crc = crc32(mv[:k], crc)
        n += k


def write_file(path, obj):
    """Write obj as a checked file at path (not atomic: see Store._write)."""
    with open(path, "w") as f:
        f.write(BLANK_HEAD.decode())
        json.dump(obj, f)
    with open(path, "r+b") as f:
        f.seek(len(BLANK_HEAD))
        crc, n = _crc_rest(f)
        f.seek(0)
        f.write(_head(crc, n))


def read_file(f):
    """(OK, obj) for an intact open binary file, (_DAMAGED, None) otherwise."""
    head = f.readline(40)
    parts = head.split()
    if len(parts) != 3 or parts[0] != b"SRF1" or head[-1:] != b"\n":
        return _DAMAGED, None
    try:
        want_crc = int(parts[1], 16)
        want_n = int(parts[2])
        crc, n = _crc_rest(f)
        if n != want_n or crc != want_crc:
            return _DAMAGED, None
        f.seek(len(head))
        return OK, json.load(f)
    except (ValueError, RuntimeError):  # RuntimeError: JSON nested past the recursion limit
        return _DAMAGED, None


def encode(obj):
    """The bytes write_file puts on flash, built in memory (for tests and
    tools on a computer: it holds the body twice)."""
    body = json.dumps(obj).encode()
    return _head(crc32(body), len(body)) + body


def decode(data):
    """(OK, obj) for an intact file's bytes, (_DAMAGED, None) otherwise: the
    whole-file loader, kept for tools; read_file streams the same check."""
    nl = data.find(b"\n")
    if nl < 0:
        return _DAMAGED, None
    parts = data[:nl].split()
    body = data[nl + 1:]
    try:
        if len(parts) != 3 or parts[0] != b"SRF1":
            return _DAMAGED, None
        if int(parts[2]) != len(body) or int(parts[1], 16) != crc32(body) & 0xFFFFFFFF:
            return _DAMAGED, None
        return OK, json.loads(body)
    except ValueError:
        return _DAMAGED, None


def _check_roster(obj):
    """None for a roster file this version reads, else why not."""
    from .names import why_not, NAME_MAX, ROSTER_MAX
    if not isinstance(obj, dict):
        return "not a roster"
    names = obj.get("names")
    last = obj.get("last", [])
    if not isinstance(names, list) or not isinstance(last, list) or len(names) > ROSTER_MAX:
        return "not a roster"
    for n in names:
        if why_not(n, NAME_MAX) is not None:
            return "bad name"
    for n in last:
        if why_not(n, NAME_MAX) is not None:
            return "bad name"
    return None


def _draw():
    """A new install id, 8 hex digits: os.urandom, which on the rp2 port is
    the pico-sdk's pico_rand (ROSC random bits, the timer, the board id) and
    on the ESP32 its hardware RNG; the WebAssembly port has no urandom but
    seeds its random module from the browser's crypto.getRandomValues."""
    try:
        return "%08x" % int.from_bytes(os.urandom(4), "big")
    except AttributeError:
        import random
        return "%08x" % random.getrandbits(32)


def _unique_id():
    try:
        import machine
        return "".join("%02x" % b for b in machine.unique_id())
    except (ImportError, AttributeError):
        return "sim"


class Store:
    def __init__(self, root, uid=None, keep=KEEP):
        self.root = root.rstrip("/") if len(root) > 1 else root
        self.uid = uid if uid is not None else _unique_id()
        # This store's install id: seq.json's, or drawn at its first start (and
        # written with the first game's number).  Drawn now, as the boot
        # builds the heap, not when a game starts and its objects fill it.
        self.install = None
        self.keep = keep
        self.settings_problem = None  # set by load_settings for the app to show
        self.writes = 0  # files written (flash wear, for tests and the log)
        self.dropped = 0  # the highest record number make_room removed: never given again
        # The newest record number the club acknowledged (the uplink sets it),
        # or None: no acknowledgement awaited, every record may go.
        self.acked = None
        self._dirs()
        self._seq_file()

    def _dirs(self):
        # Made at boot, and again as a game starts and as its record is
        # stored if rec/ is missing: a flash full at boot may have had no
        # room for them then.
        for d in (self.root, self._p(_REC_DIR)):
            try:
                os.mkdir(d)
            except OSError:
                pass  # already there (or still no room: the write says so)

    def _p(self, name):
        return self.root + "/" + name

    # --- one file, atomically -------------------------------------------
    def _write(self, name, obj, keep_bak=True):
        path = self._p(name)
        tmp = path + ".tmp"
        try:
            write_file(tmp, obj)
        except BaseException:
            _remove(tmp)  # a write the flash refused (full) takes no room
            raise
        if keep_bak and _exists(path):
            _replace(path, path + ".bak")
        _replace(tmp, path)
        self.writes += 1

    def _read(self, path):
        try:
            f = open(path, "rb")
        except OSError:
            return _MISSING, None
        try:
            return read_file(f)
        except OSError:
            return _MISSING, None  # as if the file were not there (as before streaming)
        finally:
            f.close()

    def _load(self, name, check=None):
        """(obj or None, problem or None), falling back to the .bak.
        check(obj): None for a file the caller can use, else why not; such
        a file is set aside as a damaged one is (an intact file of the wrong
        shape: another version's, or written by hand)."""
        path = self._p(name)
        problem = None
        status, obj, why = self._judge(path, check)
        if status == _MISSING:
            # A cut between "main -> .bak" and ".tmp -> main" leaves a
            # complete .tmp: it is the newest good state.
            tstatus, tobj, _ = self._judge(path + ".tmp", check)
            if tstatus == OK:
                _replace(path + ".tmp", path)
                return tobj, None
        _remove(path + ".tmp")  # an unfinished write, never the only copy
        if status == OK:
            return obj, None
        if status == _DAMAGED:
            _replace(path, path + ".bad")
            problem = name + (" damaged, set aside" if why is None else " set aside: " + why)
        bstatus, bobj, bwhy = self._judge(path + ".bak", check)
        if bstatus == OK:
            if problem:
                problem += "; backup used"
            return bobj, problem
        if bstatus == _DAMAGED:
            _replace(path + ".bak", path + ".bak.bad")
            what = "backup damaged" if bwhy is None else "backup: " + bwhy
            problem = (problem + "; " + what) if problem else name + " " + what
        return None, problem

    def _judge(self, path, check):
        """(status, obj, why): _DAMAGED with why when check refuses obj."""
        status, obj = self._read(path)
        if status == OK and check is not None:
            why = check(obj)
            if why is not None:
                return _DAMAGED, None, why
        return status, obj, None

    # --- the interface the app uses -------------------------------------
    def load_settings(self):
        obj, self.settings_problem = self._load(_SETTINGS)
        return obj if isinstance(obj, dict) else {}

    def save_settings(self, d):
        self._write(_SETTINGS, d)

    # --- the club's roster (names.py says what a name may be) -------------
    def load_roster(self):
        """(roster, problem): {"names": [...], "last": [...]} as kept, or an
        empty roster when there is none; a damaged file, or one of the
        wrong shape, is set aside (roster.json.bad) and `problem` says so:
        a roster never stops a game."""
        obj, problem = self._load(ROSTER, _check_roster)
        if obj is None:
            obj = {"names": [], "last": []}
            if problem:
                problem += "; roster empty"
        return obj, problem

    def save_roster(self, d):
        self._write(ROSTER, d)

    def kept(self, name):
        """Is file `name` on the flash (or its backup, or its new copy
        written whole)?  A look, before its reader is loaded."""
        p = self._p(name)
        return _exists(p) or _exists(p + ".bak") or _exists(p + ".tmp")

    def save_game(self, d):
        self._write(GAME, d)

    def load_game(self, check=None):
        """(state dict or None, problem string or None).  check(state): None,
        or why the app cannot resume it (then it is set aside, as a damaged
        file is, and the backup is tried)."""
        def judge(obj):
            if not isinstance(obj, dict):
                return "not a game state"
            return None if check is None else check(obj)
        return self._load(GAME, judge)

    def set_aside_game(self):
        """The saved game cannot be resumed after all: keep it as game.json.bad
        for a person to look at, and offer nothing (nor its backup, an older
        save of the same game)."""
        path = self._p(GAME)
        for suffix in (".tmp", ".bak"):
            _remove(path + suffix)
        if _exists(path):
            _replace(path, path + ".bad")

    def clear_game(self):
        """The game ended or was abandoned: nothing to resume.  The older
        copies go first, so a cut half way leaves the newest save or nothing,
        never an older save brought back."""
        for suffix in (".tmp", ".bak", ""):
            _remove(self._p(GAME) + suffix)

    # --- finished game records --------------------------------------------
    # A game gets its sequence number (so its record's id and file name) when
    # it starts (new_game_seq, saved with the game); its record is stored
    # under that number.  Storing it again replaces the same file, and a
    # saved game whose record file exists is over (SP-24): "record stored"
    # and "game over" are one fact on flash, the rename of that file.
    def _seqs(self):
        out = []
        try:
            names = os.listdir(self._p(_REC_DIR))
        except OSError:
            return out  # no rec/ (a flash full from the first boot): no records
        for name in names:
            if name.endswith(".json") and name[:-5].isdigit():
                out.append(int(name[:-5]))
        out.sort()
        return out

    def _scan(self, above=None):
        """(how many records, the oldest's number, the newest's), counted
        as the folder is read, with no list of them (a list of 51 numbers
        is a 512-byte block a heap late in a game may not have).  With
        `above`, only the records numbered above it."""
        n = 0
        lo = hi = None
        d = self._p(_REC_DIR)
        try:
            try:
                names = os.ilistdir(d)
            except AttributeError:
                names = os.listdir(d)  # CPython
        except OSError:
            return 0, None, None  # no rec/ (a flash full from the first boot)
        for e in names:
            name = e if isinstance(e, str) else e[0]
            if name.endswith(".json") and name[:-5].isdigit():
                seq = int(name[:-5])
                if above is not None and seq <= above:
                    continue
                n += 1
                if lo is None or seq < lo:
                    lo = seq
                if hi is None or seq > hi:
                    hi = seq
        return n, lo, hi

    def _rec_name(self, seq):
        return _REC_DIR + "/%08d.json" % seq

    def _seq_file(self):
        """(the last sequence number seq.json gives, whether it holds the
        install id); self.install is drawn when there is none yet (the
        caller writes it)."""
        last, _ = self._load(_SEQ)  # {"seq": n, "install": ...}, or a bare n from before
        kept = False
        if isinstance(last, dict):
            inst = last.get("install")
            last = last.get("seq")
            try:
                kept = inst == "%08x" % int(inst, 16)  # 8 lowercase hex digits
            except (TypeError, ValueError):
                pass
            if kept:
                self.install = inst
        if self.install is None:
            self.install = _draw()
        return (last if type(last) is int and last > 0 else 0), kept

    def _numbers(self):
        """(the last sequence number given, whether seq.json holds the
        install id), from seq.json and the record files."""
        last, kept = self._seq_file()
        hi = self._scan()[2]
        if hi is not None and hi > last:
            last = hi
        return max(last, self.dropped), kept

    def new_game_seq(self):
        """Reserve the next sequence number for a game being started (never
        reused: a game abandoned leaves a gap)."""
        seq = self._numbers()[0] + 1
        self._dirs()
        self._write(_SEQ, {"seq": seq, "install": self.install})
        return seq

    def sweep(self):
        """At boot: a record write a power cut left unfinished.  A .tmp
        written whole (the cut came before its rename) is the record, and
        takes its name; any other is removed, so none stays on flash for
        good whatever the table then does with the saved game."""
        rec = self._p(_REC_DIR)
        try:
            names = os.listdir(rec)
        except OSError:
            return  # no rec/ yet: nothing was written there
        for name in names:
            if not name.endswith(".json.tmp"):
                continue
            path = rec + "/" + name
            status, obj = self._read(path)
            if status == OK and isinstance(obj, dict) and name[:-9].isdigit():
                _replace(path, path[:-4])
            else:
                _remove(path)

    def free(self):
        """Bytes free on the store's flash, or None where the port cannot
        say (no os.statvfs).  littlefs counts its used blocks best effort,
        over rather than under (blocks shared copy-on-write count twice),
        so on a full flash it can count more than it has: the free count
        wraps round to near 2**32, which is none free.  The count being
        low, make_room may take a few records more than strictly needed
        (on the emulated Pico's filled volume, where littlefs counted 11
        blocks too many: 17 records of a block each for ROOM's 6)."""
        try:
            st = os.statvfs(self.root)
        except (AttributeError, OSError):
            return None
        free = st[3]
        return st[0] * free if free <= st[2] else 0

    def make_room(self, need=ROOM):
        """Remove the oldest records until `need` bytes are free or none is
        left: a full flash must not cost the game at the table its saves or
        its record.  Returns the ids of those removed, oldest first (an
        unreadable one as its file name); none while there is room, or where
        the port cannot say how much there is."""
        gone = []
        free = self.free()
        last = None
        while free is not None and free < need:
            seq = self.oldest_record()
            if seq is None or seq == last:
                break  # none left, or one that would not go
            gone.append(self.drop_record(seq))
            last = seq
            free = self.free()
        return gone

    def oldest_record(self):
        """The number of the oldest record that may be removed, or None:
        the oldest kept, unless the club has not acknowledged it (acked)."""
        seq = self._scan()[1]
        acked = self.acked
        return None if seq is None or (acked is not None and seq > acked) else seq

    def waiting(self, but=None):
        """How many records wait for the club's acknowledgement (0 without
        the uplink), the one numbered `but` left out."""
        if self.acked is None:
            return 0
        n = self._scan(self.acked)[0]
        if but is not None and but > self.acked and self.has_record(but):
            n -= 1
        return n

    def drop_record(self, seq):
        """Remove the record numbered `seq`; returns its id (for the log),
        or its file name if it cannot be read."""
        name = self._rec_name(seq)
        path = self._p(name)
        rid = None
        try:
            status, obj = self._read(path)
            if status == OK and isinstance(obj, dict):
                rid = obj.get("id")
        except MemoryError:
            pass  # the id is not worth the room: the file name says which
        obj = None
        _remove(path)
        if seq > self.dropped:
            self.dropped = seq
        return rid if isinstance(rid, str) else name

    def next_seq(self):
        """The number the next game would get, reserving nothing (a record
        stored under it keeps it taken: _numbers counts record files)."""
        return self._numbers()[0] + 1

    def has_record(self, seq):
        """Is the record of the game numbered `seq` stored?"""
        return isinstance(seq, int) and _exists(self._p(self._rec_name(seq)))

    def add_record(self, rec, seq=None):
        """Keep a finished game's record under its game's number `seq` (a new
        number when None); sets and returns rec["id"].  Storing the same
        game again replaces its file: one record per game.  SpoolFull when
        KEEP records wait for the club's acknowledgement: rec has its id
        then if it has a number (the game_end line carries it, as when the
        flash is full), and none is drawn for it if not."""
        waiting = self.waiting(seq)
        if waiting >= self.keep:
            if seq is not None:
                rec["id"] = "%s-%s-%d" % (self.uid, self.install, seq)
            raise SpoolFull("%d games wait for the club" % waiting)
        if seq is None:
            seq = self.new_game_seq()
        elif self.install is None:
            last, kept = self._numbers()
            if not kept:  # a game begun before install ids, or seq.json lost since: keep it now
                self._write(_SEQ, {"seq": max(last, seq), "install": self.install})
        rec["id"] = "%s-%s-%d" % (self.uid, self.install, seq)
        if not _exists(self._p(_REC_DIR)):
            self._dirs()
        self._write(self._rec_name(seq), rec, keep_bak=False)
        n = self._scan()[0]
        for _ in range(n - self.keep):  # bounded: a file that will not go is not tried for ever
            lo = self.oldest_record()
            if lo is None:
                break  # the rest wait for the club (at most KEEP of them)
            _remove(self._p(self._rec_name(lo)))
        return rec["id"]

    def iter_records(self):
        """Stored records, oldest first, one at a time (a dump of 50 records
        would not fit in a small heap as one list).  A damaged file is set
        aside and skipped."""
        for seq in self._seqs():
            path = self._p(self._rec_name(seq))
            status, obj = self._read(path)
            if status == OK:
                yield obj
            elif status == _DAMAGED:
                _replace(path, path + ".bad")

    def records(self):
        return list(self.iter_records())
