"""Game records saved to files, read strictly: a record as JSON, a device
record file (a first line `SRF1 <crc32> <length>`, then the JSON body:
firmware/speedref/storage.py; its CRC and length checked) and a device
store folder (its `rec/NNNNNNNN.json` files, oldest first).

Only a regular file is read, and only up to RECORD_MAX bytes: a pipe, a
device or a huge file is refused in one line (Invalid), never waited on.
speedref-score and speedref-results import read records through here.
"""
import os
import stat
import sys
import zlib

from host_tools import jsonin


class Invalid(Exception):
    """A record we refuse: the message is the one line for stderr."""


RECORD_MAX = 4 * 1024 * 1024     # a game record file is a few KB; a bigger one is not read


def open_regular(path):
    """path opened for reading in binary, if it is a regular file (a symlink
    to one included); Invalid for a pipe, a device, a socket or a folder,
    which is never read: opened without blocking (a named pipe with no writer
    would wait forever), then checked on the open file itself."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise Invalid("%s: cannot read: %s" % (path, e.strerror or e))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = ("a named pipe" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                    else "a socket" if stat.S_ISSOCK(mode) else "a folder" if stat.S_ISDIR(mode) else "not a file")
            raise Invalid("%s: not a regular file (%s)" % (path, what))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_limited(path, limit=None):
    """The bytes of the regular file at path, at most `limit` (RECORD_MAX) of
    them: Invalid for anything else or anything bigger."""
    limit = RECORD_MAX if limit is None else limit
    with open_regular(path) as f:
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise Invalid("%s: cannot read: %s" % (path, e.strerror or e))
    if len(data) > limit:
        raise Invalid("%s: larger than %d KB: not a game record file" % (path, limit >> 10))
    return data


def read_record_file(path):
    """(record, name) from a JSON file or a device record file ('-' = stdin);
    only a regular file of at most RECORD_MAX bytes is read."""
    name = "<stdin>" if path == "-" else path
    if path == "-":
        try:
            data = sys.stdin.buffer.read(RECORD_MAX + 1)
        except OSError as e:
            raise Invalid("%s: cannot read: %s" % (name, e.strerror or e))
        if len(data) > RECORD_MAX:
            raise Invalid("%s: larger than %d KB: not a game record" % (name, RECORD_MAX >> 10))
    else:
        data = read_limited(path)
    if data.startswith(b"SRF1"):
        data = device_file_body(data, name)
    elif data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]          # a UTF-8 BOM some editors write
    try:
        return jsonin.loads(data), name
    except jsonin.BadJSON as e:
        raise Invalid("%s: bad JSON: %s" % (name, e))


def device_file_body(data, name):
    """The JSON body of a device record file, after checking its header line."""
    nl = data.find(b"\n")
    parts = data[:nl].split() if 0 < nl <= 40 else []
    try:
        if len(parts) != 3 or parts[0] != b"SRF1" or len(parts[1]) != 8:
            raise ValueError
        want_crc, want_len = int(parts[1], 16), int(parts[2])
    except ValueError:
        raise Invalid("%s: bad record file header (expected 'SRF1 <crc32 8 hex> <length>')" % name)
    body = data[nl + 1:]
    if len(body) != want_len:
        raise Invalid("%s: damaged record file: length %d, header says %d (cut short?)"
                      % (name, len(body), want_len))
    crc = zlib.crc32(body) & 0xFFFFFFFF
    if crc != want_crc:
        raise Invalid("%s: damaged record file: CRC %08x, header says %08x" % (name, crc, want_crc))
    return body


def store_files(directory):
    """The record files of a device store (DIR/rec, or DIR itself), oldest first."""
    rec_dir = os.path.join(directory, "rec")
    if not os.path.isdir(rec_dir):
        rec_dir = directory
    try:
        names = os.listdir(rec_dir)
    except OSError as e:
        raise Invalid("%s: cannot read: %s" % (directory, e.strerror or e))
    # a record's number is ASCII digits: "².json" or "①.json" is no record file
    seqs = sorted(n for n in names if n.endswith(".json") and n[:-5].isascii() and n[:-5].isdigit())
    if not seqs:
        raise Invalid("%s: no record files (NNNNNNNN.json) in it or in its rec/ folder" % directory)
    return [os.path.join(rec_dir, n) for n in sorted(seqs, key=lambda n: int(n[:-5]))]
