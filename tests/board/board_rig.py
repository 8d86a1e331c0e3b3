"""Helpers for the tests that run on the emulated Pico (tests/board/).

A board test needs Node.js, npm's rp2040js (package-lock.json) and two images
that this repository does not carry (emu/images.py says where they are looked
up and docs/emulator.md how to get them).  Without them every board test is
skipped with one line saying what is missing.
"""
import pytest

from emu import images

WHY = images.why_missing()
needs_board = pytest.mark.skipif(WHY is not None, reason="emulated Pico: %s" % WHY)


def at_repl(fs_files=None, firmware=None):
    """A booted Pico with speedref on its flash, main.py stopped, at the REPL."""
    from emu import fs as emu_fs
    from emu.board import Pico
    files = emu_fs.speedref_files() if fs_files is None else fs_files
    p = Pico(firmware=firmware, fs_image=emu_fs.image(files))
    p.boot()
    p.run_for(200000)
    p.clean_repl()
    p.serial_read()
    return p


def exec_installed(install, module, code, timeout_us=600000000):
    """Run `code` at the REPL of a Pico with speedref installed as `install`
    ("mpy": speedref-flash's .mpy files, -march=armv6m; "frozen": frozen
    into speedref-pico-RPI_PICO.uf2 with the port's mpy-cross flags), after
    checking that `module` comes from there; returns what it printed."""
    from emu import fs as emu_fs
    p = at_repl() if install == "mpy" else at_repl(emu_fs.main_only(), firmware=images.frozen_firmware())
    try:
        where = p.exec("import %s\nprint(%s.__file__)\n" % (module, module))
        assert where.strip().endswith(".mpy") == (install == "mpy"), where  # a file, or frozen
        return p.exec(code, timeout_us=timeout_us)
    finally:
        p.close()


def mem(ref, label, out):
    """The heap after a collection, as the board reports it ({"cmd":
    "mem"} over USB): out[label] = bytes in use."""
    n = len(ref.lines)
    ref.pico.serial_write(b'{"cmd": "mem"}\n')
    for _ in range(50):
        ref.pico.run_for(100000)
        got = [l for l in ref.lines[n:] if l.get("ev") == "mem"]
        if got:
            out[label] = got[-1]["alloc"]
            return
    raise AssertionError("no heap figure (%s): %s %s" % (label, ref.lines[-5:], ref.other[-5:]))
