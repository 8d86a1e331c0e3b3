"""Installing speedref on the emulated Pico as a user does, and booting it.

- The stock MicroPython image on a blank flash, then speedref-flash through
  the pty that emu.serve bridges to the board's USB CDC: the real mpremote and
  the raw REPL, exactly as with /dev/ttyACM0.  After its reset the board runs
  main.py and the OLED shows the game menu.
- speedref-pico-RPI_PICO.uf2, speedref frozen into the firmware (the one-file install:
  hold BOOTSEL, drag the file onto the drive), with main.py alone on the
  filesystem, boots to the same menu.
Both menus must be the simulator's, pixel for pixel.
"""
import subprocess
import sys

import pytest

from board_rig import needs_board
from emu import fs as emu_fs
from emu import images
from emu.board import NS_PER_US, Pico
from emu.referee import Referee
from emu.serve import Bridge

pytestmark = [pytest.mark.board, needs_board]


def simulator_menu():
    from sim.board import Board
    b = Board()
    try:
        b.step()
        b.run_until(300000)
        return b.screen()
    finally:
        b.close()


def menu_after_boot(ref):
    boot = ref.boot()
    ref.pico.run_for(300000)
    return boot, ref.screen()


def test_speedref_flash_installs_onto_a_blank_board_through_the_pty():
    pico = Pico()  # the stock image, a blank flash: MicroPython formats it at boot
    bridge = Bridge(pico)
    try:
        pico.boot()
        bridge.start()
        exe = [sys.executable, "-m", "host_tools.cli.flash", "--port", bridge.path, "--board", "pico"]
        r = subprocess.run(exe, capture_output=True, text=True, timeout=300)
        bridge.stop()
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        assert "flashed" in r.stdout
        ref = Referee(pico=pico)
        end = pico.ns + 10000000 * NS_PER_US
        while not any(l.get("ev") == "boot" for l in ref.lines):
            assert pico.ns < end, "main.py did not start: %r" % ref.other[-5:]
            pico.run_for(20000)
        pico.run_for(300000)
        assert pico.state()["resets"] >= 1  # speedref-flash reset the board at the end
        boot = [l for l in ref.lines if l["ev"] == "boot"][-1]
        assert boot["board"] == "pico" and boot["capture"] == "pio"
        assert ref.screen() == simulator_menu()
        files = emu_fs.files(pico.flash_image())
        assert "/main.py" in files and "/speedref/device.mpy" in files
    finally:
        bridge.close()
        pico.close()


@pytest.mark.skipif(not __import__("os").path.exists(
    __import__("os").path.join(images.directory(), images.FROZEN)),
    reason="emulated Pico: %s not found in %s" % (images.FROZEN, images.directory()))
def test_the_frozen_image_boots_to_the_menu():
    ref = Referee(frozen=True)
    try:
        boot, screen = menu_after_boot(ref)
        assert boot["capture"] == "pio"
        assert screen == simulator_menu()
        ref.pico.interrupt()
        out = ref.pico.exec("import speedref.device as d\nprint(d.__file__)")
        assert not out.strip().startswith("/"), out  # frozen: not a file on the volume
    finally:
        ref.close()
