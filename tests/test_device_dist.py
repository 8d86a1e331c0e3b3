"""Distribution: firmware/package.json lists every firmware module the board
runs (mip), main.py stays a thin entry without a reset loop."""
import json
from pathlib import Path

import mpyrun

ROOT = Path(__file__).resolve().parent.parent
FW = ROOT / "firmware"


def expected_urls():
    """The files speedref-flash puts on a board of any kind (main.py and the
    speedref package), not the card level: the app never imports it."""
    from host_tools import flash
    return [[str(rel), str(rel)] for rel in flash.firmware_files(FW) if rel.suffix == ".py"]


def test_package_json_matches_the_firmware_tree():
    pkg = json.loads((FW / "package.json").read_text())
    want = expected_urls()
    assert pkg["urls"] == want, "firmware/package.json is out of date: run python tests/test_device_dist.py"
    assert pkg["deps"] == []  # hw/display.py has its own SSD1306 init
    assert pkg["version"]


def test_manifest_freezes_the_package_and_needs_no_display_driver():
    text = (FW / "manifest.py").read_text()
    assert 'package("speedref"' in text and "require(" not in text
    compile(text, "manifest.py", "exec")


MAIN_DRIVER = r'''
import sys
import machine
from speedref import wiring
from speedref.hw import boards
boards._uname_machine = lambda: "Raspberry Pi Pico with RP2040"
def build(board=None, root="/data"):
    raise OSError(5)  # e.g. the OLED not answering at boot
wiring.build = build
src = open(MAIN).read().replace('"/crashes"', repr(CRASH))
for run in range(4):
    try:
        exec(src, {"__name__": "__main__"})
        print("RETURNED", run)
    except machine.ResetCalled:
        print("RESET", run)
'''


def test_main_logs_the_crash_resets_and_stops_after_three(tmp_path):
    """build() raises -> a crash line with its traceback, a reset; the third crash
    in a row stays at the REPL and says so."""
    code = "MAIN = %r\nCRASH = %r\n" % (str(FW / "main.py"), str(tmp_path / "crashes")) + MAIN_DRIVER
    r = mpyrun.run(code=code, use_mpy=False)
    lines = r.stdout.splitlines()
    assert [l for l in lines if l.startswith(("RESET", "RETURNED"))] == [
        "RESET 0", "RESET 1", "RETURNED 2", "RETURNED 3"]
    crashes = [json.loads(l) for l in lines if l.startswith("{")]
    assert all(c["ev"] == "error" for c in crashes)
    assert sum(1 for c in crashes if c["what"] == "crash") == 4
    assert "OSError" in crashes[0]["msg"] and "Traceback" in crashes[0]["traceback"]
    loops = [c for c in crashes if c["what"] == "crash_loop"]
    assert len(loops) == 2 and "staying at the REPL" in loops[0]["msg"]


def write_package_json():
    pkg = {"urls": expected_urls(), "deps": [], "version": "0.1.0"}
    (FW / "package.json").write_text(json.dumps(pkg, indent=1) + "\n")


if __name__ == "__main__":  # python tests/test_device_dist.py: regenerate package.json
    write_package_json()
