"""Where the emulated Pico's parts come from.

Three binaries the bench needs are not in this repository, because all are
built from other projects' sources:

  - MicroPython v1.28.0 for RPI_PICO (the stock `firmware.uf2` users flash,
    from micropython.org/download/RPI_PICO, or built from the micropython
    repository at tag v1.28.0 with `make -C ports/rp2 BOARD=RPI_PICO`);
    the same build with speedref frozen in (FROZEN_MANIFEST =
    firmware/manifest.py), speedref-pico-RPI_PICO.uf2, for --frozen and the
    tests that boot it;
  - the RP2040 B1 bootrom, 16 KB (raspberrypi/pico-bootrom, tag b1; rp2040js
    ships it as demo/bootrom.ts in its repository).

They are looked up in $SPEEDREF_PICO_DIR, else ~/.cache/speedref/pico, under
the names below.  docs/emulator.md says how to get them.  Without them the
board tests are skipped with one line saying so.
"""
import os
import shutil

STOCK = "firmware-v1.28.0-RPI_PICO.uf2"
FROZEN = "speedref-pico-RPI_PICO.uf2"
BOOTROM = "bootrom.bin"

# RPI_PICO, MicroPython v1.28.0: 2 MB flash, the last 1408 KB a littlefs
# volume (ports/rp2/boards/RPI_PICO/mpconfigboard.h: MICROPY_HW_FLASH_STORAGE_BYTES).
FS_OFFSET = 0xA0000
FS_SIZE = 1408 * 1024
FS_BLOCK = 4096
FS_BLOCKS = FS_SIZE // FS_BLOCK


class Missing(RuntimeError):
    pass


def directory():
    return os.environ.get("SPEEDREF_PICO_DIR") or os.path.expanduser("~/.cache/speedref/pico")


def _find(name):
    path = os.path.join(directory(), name)
    if not os.path.isfile(path):
        raise Missing("%s not found in %s (see docs/emulator.md)" % (name, directory()))
    return path


def stock_firmware():
    return _find(STOCK)


def frozen_firmware():
    return _find(FROZEN)


def bootrom():
    return _find(BOOTROM)


def node():
    path = shutil.which("node")
    if path is None:
        raise Missing("node (Node.js 18 or newer) is not installed: the emulated Pico needs it")
    return path


def module_dir():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(here, "node_modules", "rp2040js")


def why_missing():
    """None when the bench can run, else one line saying what is missing."""
    try:
        node()
        stock_firmware()
        bootrom()
    except Missing as e:
        return str(e)
    if not os.path.isdir(module_dir()):
        return "node_modules/rp2040js is missing: run npm ci"
    return None
