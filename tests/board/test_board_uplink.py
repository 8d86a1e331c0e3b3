"""The uplink on the emulated Pico (RPI_PICO: no Wi-Fi chip, no `network`
module): with the club's settings on its flash, the uplink's code is there,
finds no network, says so in one line and leaves the referee as it is: the
menu comes up as the simulator's, and a game is played as without it.  The
uplink's work against a real broker is tests/device/test_uplink_mqtt.py's (the
Unix port, whose sockets are real)."""
import os

import pytest

from board_rig import needs_board
from emu import images
from emu.referee import Referee
from speedref import storage
from test_board_boot import simulator_menu

pytestmark = [pytest.mark.board, needs_board]

CONF = {"ssid": "clubnet", "wifi_password": "wifi-pw-31", "broker": "10.0.0.2", "club": "riverside",
        "table": "t3", "user": "t3", "password": "mqtt-pw-77"}
NO_NETWORK = {"ev": "uplink", "state": "off", "msg": "no network interface on this board"}


def booted(frozen):
    ref = Referee(frozen=frozen, store_files={"/data/uplink.json": storage.encode(CONF)})
    ref.boot()
    ref.pico.run_for(300000)
    return ref


def check(ref):
    assert NO_NETWORK in ref.lines, ref.lines
    assert ref.screen() == simulator_menu()
    text = repr(ref.lines) + repr(ref.other)
    for secret in ("wifi-pw-31", "mqtt-pw-77", "clubnet", "10.0.0.2"):
        assert secret not in text


def test_with_settings_and_no_wifi_chip_the_uplink_says_so_once_and_the_menu_is_the_same():
    ref = booted(False)
    try:
        check(ref)
        assert sum(1 for l in ref.lines if l.get("ev") == "uplink") == 1
    finally:
        ref.close()


@pytest.mark.skipif(not os.path.exists(os.path.join(images.directory(), images.FROZEN)),
                    reason="emulated Pico: %s not found in %s" % (images.FROZEN, images.directory()))
def test_the_frozen_image_carries_the_uplink_and_finds_no_network():
    ref = booted(True)
    try:
        check(ref)
    finally:
        ref.close()
