"""The emulated Pico's filesystem: littlefs images in and out.

MicroPython's rp2 port mounts a littlefs v2 volume on the flash behind the
firmware (emu/images.py: FS_OFFSET, FS_SIZE) with 4 KB blocks, 256-byte
programs and 32-byte reads.  `image()` builds such a volume from files (the
speedref install that speedref-flash would copy, for a quick start);
`files()` reads every file back out of a flash dump (the referee's saves and
records after a game or a power cut).
"""
import functools
import os
import tempfile
from pathlib import Path

import littlefs

from emu import images

_GEOMETRY = dict(block_size=images.FS_BLOCK, block_count=images.FS_BLOCKS, prog_size=256,
                 read_size=32, lookahead_size=32)


def image(files, fill=False):
    """files: {board path: bytes} -> the volume as bytes (FS_SIZE long).
    fill: then other files (/junkNNNN) until not one more byte fits (a
    flash full of someone's files: tests/board/test_board_flash_full.py)."""
    fs = littlefs.LittleFS(**_GEOMETRY)
    for path in sorted(files):
        parts = path.strip("/").split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            try:
                fs.mkdir(d)
            except FileExistsError:
                pass
        with fs.open(path.strip("/"), "wb") as f:
            f.write(files[path])
    if fill:
        _fill(fs)
    return bytes(fs.context.buffer)


def _fill(fs):
    # Whole-block files while a block is free (littlefs-python aborts the
    # process when a file whose write failed is closed, so no write is let
    # fail): then nothing that needs a block of its own fits, as a save or
    # a record does; a few bytes may still go inline in a directory's
    # metadata.
    n = 0
    while fs.block_count - fs.used_block_count > 1:
        with fs.open("junk%04d" % n, "wb") as f:
            f.write(b"j" * images.FS_BLOCK)
        n += 1


def files(volume):
    """The volume's files as {board path: bytes}."""
    fs = littlefs.LittleFS(mount=False, **_GEOMETRY)
    fs.context.buffer = bytearray(volume)
    fs.mount()
    out = {}
    for root, _dirs, names in fs.walk("/"):
        for n in names:
            path = root.rstrip("/") + "/" + n
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    return out


def speedref_files(extra=None):
    """What speedref-flash puts on a board: the firmware compiled for the
    RP2040 (armv6m .mpy) plus main.py, as {board path: bytes}.  Compiled
    once per process for the same firmware sources (every emulated board a
    test suite boots takes the same install: 37 runs of mpy-cross, ~2 s);
    a source edited in between is compiled again."""
    result = dict(_compiled(_sources_key()))
    result.update(extra or {})
    return result


def _sources_key():
    from host_tools.board.build import FIRMWARE
    key = []
    for path in sorted(Path(FIRMWARE).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            st = path.stat()
            key.append((str(path), st.st_size, st.st_mtime_ns))
    return tuple(key)


@functools.lru_cache(maxsize=2)
def _compiled(_key):
    from host_tools.board import flash
    from host_tools.board.build import FIRMWARE
    with tempfile.TemporaryDirectory(prefix="speedref-mpy-") as out:
        built, _ = flash.compile_for(FIRMWARE, out, "armv6m", "rp2")
        result = {}
        for board_path, local, _size, _digest in built:
            with open(local, "rb") as f:
                result[board_path] = f.read()
    return result


def write_dir(volume, directory):
    """Unpack the volume's files into directory (speedref-emu --store)."""
    for path, data in files(volume).items():
        dest = os.path.join(directory, path.strip("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(data)


def main_only():
    """What a board flashed with speedref-pico-RPI_PICO.uf2 (speedref frozen in)
    has on its filesystem: main.py alone."""
    from host_tools.board.build import FIRMWARE
    with open(str(FIRMWARE / "main.py"), "rb") as f:
        return {"/main.py": f.read()}
