"""Distribution: firmware/package.json lists every firmware module the board
runs (mip), main.py stays a thin entry without a reset loop."""
import json
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
FW = ROOT / "firmware"


def expected_urls():
    """The files speedref-flash puts on a board of any kind (main.py and the
    speedref package), not the card level: the app never imports it."""
    from host_tools.board import flash
    return [[str(rel), str(rel)] for rel in flash.firmware_files(FW) if rel.suffix == ".py"]


def test_package_json_matches_the_firmware_tree():
    pkg = json.loads((FW / "package.json").read_text())
    want = expected_urls()
    assert pkg["urls"] == want, "firmware/package.json is out of date: run python tests/device/test_device_dist.py"
    assert pkg["deps"] == []  # hw/display.py has its own SSD1306 init
    assert pkg["version"]


def test_manifest_freezes_the_package_and_needs_no_display_driver():
    text = (FW / "manifest.py").read_text()
    assert 'package("speedref"' in text and "require(" not in text
    compile(text, "manifest.py", "exec")


def write_package_json():
    pkg = {"urls": expected_urls(), "deps": [], "version": "0.1.0"}
    (FW / "package.json").write_text(json.dumps(pkg, indent=1) + "\n")


if __name__ == "__main__":  # python tests/device/test_device_dist.py: regenerate package.json
    write_package_json()
