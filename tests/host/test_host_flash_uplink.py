"""speedref-flash --uplink: a Wi-Fi board's settings go to its flash as the
checked file the firmware reads (speedref/uplink.py), umqtt.simple is
installed with mip at the pinned version, and no secret is ever printed."""
import json

import pytest

from host_tools.cli import flash as flash_cli
from speedref import storage
from test_host_flash import MPREMOTE, tiny_firmware

CONF = {"ssid": "clubnet", "wifi_password": "wifi-pw-31", "broker": "10.0.0.2", "port": 1883,
        "user": "table3", "password": "mqtt-pw-77", "club": "riverside", "table": "t3"}


def dry(tmp_path, conf, capsys):
    fw, out = tiny_firmware(tmp_path), tmp_path / "out"
    path = tmp_path / "uplink-settings.json"
    path.write_text(json.dumps(conf))
    rc = flash_cli.main(["--dry-run", "--port", "/dev/ttyACM0", "--firmware", str(fw), "--build", str(out),
                     "--uplink", str(path)])
    got = capsys.readouterr()
    return rc, got.out, got.err, out


def test_the_settings_go_to_the_flash_checked_and_umqtt_is_installed(tmp_path, capsys):
    rc, out, err, build = dry(tmp_path, CONF, capsys)
    assert rc == 0, err
    assert "uplink: club riverside, table t3, broker, with a user name (settings not shown)" in out
    assert "cp %s :/data/uplink.json" % (build / "uplink.json") in out
    assert "mkdir :/data" in out
    assert MPREMOTE + " connect /dev/ttyACM0 mip install umqtt.simple@1.7.0" in out.splitlines()
    for secret in ("wifi-pw-31", "mqtt-pw-77", "clubnet", "10.0.0.2"):
        assert secret not in out + err
    data = (build / "uplink.json").read_bytes()
    assert storage.decode(data) == (storage.OK, CONF)
    assert (build / "uplink.json").stat().st_mode & 0o077 == 0  # only its owner reads it


@pytest.mark.parametrize("conf, said", [(CONF, True), (dict(CONF, user="t3"), False),
                                         (dict(CONF, table=None), True)])
def test_a_user_name_that_is_not_the_tables_name_is_said_without_naming_it(tmp_path, capsys, conf, said):
    rc, out, err, _ = dry(tmp_path, dict((k, v) for k, v in conf.items() if v is not None), capsys)
    assert rc == 0, err
    assert ("the user name is not the table's name" in out) == said
    assert "table3" not in out + err


@pytest.mark.parametrize("conf, why", [
    (dict(CONF, club="a/b"), "club is not a topic name"),
    (dict(CONF, table="t#1"), "table is not a topic name"),
    ({k: v for k, v in CONF.items() if k != "ssid"}, "no ssid"),
    (dict(CONF, port=70000), "port out of range"),
    (dict(CONF, pasword="typo"), "fields the board does not know: pasword"),
])
def test_settings_the_board_could_not_use_are_refused(tmp_path, capsys, conf, why):
    rc, out, err, _ = dry(tmp_path, conf, capsys)
    assert rc == 2 and why in err
    assert "mqtt-pw-77" not in out + err
