"""Type-check the hardware-facing firmware against the MicroPython stubs of each
board's port (PyPI micropython-rp2-stubs, micropython-esp32-stubs) with mypy.

Both stub packages put machine.pyi etc. at the top of site-packages, so in one
venv the second install overwrites the first; each port therefore gets its own
copy under .venv/stubs/<port> (made here with pip --target from the versions
pinned in requirements-dev.txt when missing).  Errors inside the stubs
themselves are not ours and are not counted.

Usage: python tests/device/typecheck.py [rp2|esp32 ...]   (exit 1 on any error)
"""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
MODULES = [
    "firmware/main.py", "firmware/speedref/wiring.py",
    "firmware/speedref/hw/boards.py", "firmware/speedref/hw/board_pico.py",
    "firmware/speedref/hw/board_esp32.py", "firmware/speedref/hw/capture.py",
    "firmware/speedref/hw/buzzer.py", "firmware/speedref/hw/display.py", "firmware/speedref/hw/leds.py",
    "firmware/speedref/hw/ring.py", "firmware/speedref/device.py",
    "firmware/speedref/inputs.py", "firmware/speedref/tunables.py", "firmware/speedref/arbiter.py",
    "firmware/speedref/storage.py", "firmware/speedref/log.py", "firmware/speedref/spool.py",
    "firmware/speedref/app/spit_flow.py",
]
PORTS = ("rp2", "esp32")


def pinned(name):
    for line in (ROOT / "requirements-dev.txt").read_text().splitlines():
        if line.strip().lower().startswith(name + "=="):
            return line.strip()
    raise SystemExit("%s is not pinned in requirements-dev.txt" % name)


def stub_dir(port):
    d = ROOT / ".venv" / "stubs" / port
    if not (d / "machine.pyi").exists():
        std = "micropython-stdlib-stubs"
        reqs = [pinned("micropython-%s-stubs" % port)]
        try:
            reqs.append(pinned(std))
        except SystemExit:
            reqs.append(std)  # pulled in by the port stubs; any version they accept
        subprocess.run([PY, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--no-deps", "--target", str(d)] + reqs, check=True)
    return d


def check(port):
    """Returns the list of mypy error lines about our own files."""
    d = stub_dir(port)
    env = dict(os.environ, MYPYPATH=os.pathsep.join([str(d), str(ROOT / "firmware")]))
    cmd = [PY, "-m", "mypy", "--custom-typeshed-dir", str(d), "--python-version", "3.11",
           "--no-incremental", "--follow-imports=silent", "--platform", "linux",
           "--no-error-summary", "--show-error-codes"] + MODULES
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    own = [l for l in r.stdout.splitlines()
           if re.match(r"firmware/.*: error:", l)]
    if r.returncode not in (0, 1) or "error: " in r.stderr:
        own.append("mypy failed to run: " + r.stderr.strip()[-500:])
    return own


def main(argv):
    bad = 0
    for port in argv or PORTS:
        errs = check(port)
        print("%s: %d error(s) in our files" % (port, len(errs)))
        for e in errs:
            print("  " + e)
        bad += len(errs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
