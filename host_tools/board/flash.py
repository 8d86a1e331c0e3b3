"""Put the firmware on a board over USB: the work of speedref-flash
(host_tools/cli/flash.py):

1. find the board (the one MicroPython USB device attached, or --port);
2. read its MicroPython version and .mpy version (mpremote exec), the free
   flash, and a SHA-256 of every firmware file already on it;
3. refuse a board whose MicroPython is too old (or newer than our mpy-cross);
4. compile firmware/ with mpy-cross for the board's architecture (-march):
   what that board loads, not the card level (the simulator's), nor another
   board's own files (board_files: the rp2's PIO capture, the ESP32's log queue);
5. copy only the files whose hash differs, delete stale firmware files (a stale
   .py would shadow its new .mpy), refuse up front when they do not fit;
6. `mpremote mip install` the micropython-lib dependencies it lacks (package.json
   "deps"; none today: the display code has its own SSD1306 init);
7. copy main.py (kept as source: MicroPython runs main.py only as .py), reset.

--uplink FILE (a board with Wi-Fi): the club's Wi-Fi and MQTT broker settings
(JSON: docs/hardware.md) are checked, written as the board's checked file
/data/uplink.json, and micropython-lib's MQTT client (umqtt.simple, UMQTT_VERSION)
is installed with mip.  The settings are never printed: only the club and
table they name.

--dry-run compiles (for the sizes) and prints the exact mpy-cross and mpremote
commands it would run, touching no board: with no board read it assumes every
file is new and the board of --board (default pico).
"""
import ast
import hashlib
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from host_tools import jsonin
from host_tools.board import build
from host_tools.board.ports import candidate_ports, describe

# sys.implementation._mpy: bits 0-7 .mpy version, 8-9 sub-version, 10+ native arch.
ARCH_NAMES = {0: None, 1: "x86", 2: "x64", 3: "armv6", 4: "armv6m", 5: "armv7m", 6: "armv7em",
              7: "armv7emsp", 8: "armv7emdp", 9: "xtensa", 10: "xtensawin", 11: "rv32imc",
              12: "rv64imc"}
BOARD_ARCH = {"pico": "armv6m", "esp32": "xtensawin"}
BOARD_PLATFORM = {"pico": "rp2", "esp32": "esp32"}  # sys.platform on each
# The firmware is written for MicroPython 1.2x (docs/architecture.md).
MIN_VERSION = (1, 20, 0)
DEFAULT_DEPS = []  # without a package.json: no micropython-lib packages
# Files under firmware/ that never go to the board: the freezing manifest and
# package.json (the card level never goes either: card_level()).
NOT_ON_BOARD_NAMES = {"manifest.py", "package.json"}
# micropython-lib's MQTT client for the Wi-Fi uplink: the version MicroPython
# v1.28.0 pins (lib/micropython-lib at 8380c7bb).
UMQTT_VERSION = "1.7.0"
UPLINK_PATH = "/data/uplink.json"   # in the Store's root (speedref/wiring.py)
# Room left for the filesystem's own blocks and the saved games.
FLASH_MARGIN = 16 * 1024

PROBE = """\
import sys, os, json
try:
    import hashlib, binascii
except ImportError:
    hashlib = None
files = {}
dirs = []
def digest(p):
    if hashlib is None:
        return None
    h = hashlib.sha256()
    with open(p, 'rb') as f:
        while True:
            b = f.read(512)
            if not b:
                break
            h.update(b)
    return binascii.hexlify(h.digest()).decode()
def walk(d, hashed):
    try:
        entries = list(os.ilistdir(d))
    except OSError:
        return
    for e in entries:
        p = (d.rstrip('/') + '/' + e[0])
        if e[1] & 0x4000:
            dirs.append(p)
            walk(p, hashed)
        else:
            files[p] = [os.stat(p)[6], digest(p) if hashed else None]
walk('/speedref', True)
walk('/lib', False)
for n in ('/main.py', '/boot.py'):
    try:
        files[n] = [os.stat(n)[6], digest(n)]
    except OSError:
        pass
try:
    s = os.statvfs('/')
    free = s[0] * s[3]
except (AttributeError, OSError):
    free = None
print('SPEEDREF-PROBE ' + json.dumps({'mpy': getattr(sys.implementation, '_mpy', 0),
      'version': list(sys.implementation.version[:3]), 'platform': sys.platform,
      'free': free, 'files': files, 'dirs': dirs}))
"""


class FlashError(Exception):
    """Something the person at the laptop must fix; the message says what."""


def mpremote_path():
    exe = Path(sys.executable).parent / "mpremote"
    return str(exe) if exe.exists() else "mpremote"


def decode_mpy(value):
    """sys.implementation._mpy -> (major, sub, arch name or None)."""
    return value & 0xFF, (value >> 8) & 3, ARCH_NAMES.get(value >> 10, "arch%d" % (value >> 10))


def check_board(info, ours, board=None):
    """The -march to compile with; FlashError when the board cannot run our .mpy files."""
    major, sub, arch = decode_mpy(info.get("mpy") or 0)
    version = tuple(info.get("version") or (0, 0, 0))
    shown = ".".join(str(v) for v in version)
    if major == 0:
        raise FlashError("the board's MicroPython %s cannot load .mpy files (no sys.implementation._mpy):"
                         " install MicroPython %d.%d or newer" % (shown, MIN_VERSION[0], MIN_VERSION[1]))
    if major < ours[0] or version < MIN_VERSION:
        raise FlashError("the board runs MicroPython %s (.mpy v%d.%d): too old for this firmware, which"
                         " needs MicroPython %d.%d or newer (.mpy v%d); update it from"
                         " https://micropython.org/download/"
                         % (shown, major, sub, MIN_VERSION[0], MIN_VERSION[1], ours[0]))
    if major > ours[0]:
        raise FlashError("the board's MicroPython %s uses .mpy v%d, newer than our mpy-cross (v%d.%d):"
                         " update the mpy-cross pin in requirements-dev.txt" % (shown, major, ours[0], ours[1]))
    if arch is None:
        raise FlashError("the board's MicroPython %s has no native code emitter (its .mpy files name no"
                         " architecture), and speedref draws its big text with a viper function: install"
                         " a build that has one (every rp2 and esp32 build from"
                         " https://micropython.org/download/ does)" % shown)
    if board and arch != BOARD_ARCH[board]:
        raise FlashError("--board %s expects %s, but the board on this port reports %s (%s)"
                         % (board, BOARD_ARCH[board], arch, info.get("platform")))
    return arch


def card_level(sources, root):
    """The card level among firmware `sources`: the `*_cards` game models
    (full play with real cards, for the simulator's computer players and the
    tests) and the modules nothing but they import (the deck, the seeded
    shuffle).  The referee app never imports any of them."""
    card = set(rel for rel in sources if rel.stem.endswith("_cards"))
    users = {}  # module name -> the files that import it
    for rel in sources:
        for name in build.imports(rel, root):
            users.setdefault(name, set()).add(rel)
    grew = True
    while grew:
        grew = False
        for rel in sources:
            by = users.get(build.module_name(rel))
            # a package's __init__ goes wherever the package's modules go
            if rel not in card and rel.name != "__init__.py" and by and by <= card:
                card.add(rel)
                grew = True
    return card


def board_files(root):
    """{platform: the files only boards of that sys.platform get}: each board
    file (speedref/hw/board_*.py, by its PLATFORM) and the OWN_FILES it
    names (the rp2's PIO capture, the ESP32's log queue)."""
    own = {}
    for path in sorted(Path(root).glob("speedref/hw/board_*.py")):
        consts = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                    getattr(node.targets[0], "id", None) in ("PLATFORM", "OWN_FILES"):
                consts[node.targets[0].id] = ast.literal_eval(node.value)
        files = own.setdefault(consts["PLATFORM"], set())
        files.add(path.relative_to(root))
        files.update(Path(f) for f in consts.get("OWN_FILES", ()))
    return own


def firmware_files(root, platform=None):
    """firmware/ files that go to a board of `platform` (sys.platform:
    "rp2", "esp32"; None: every board's), relative paths (sorted)."""
    sources = [rel for rel in build.firmware_sources(root) if rel.name not in NOT_ON_BOARD_NAMES]
    leave = card_level([rel for rel in sources if rel.suffix == ".py"], root)
    own = board_files(root)
    if platform in own:
        for other, files in own.items():
            if other != platform:
                leave |= files - own[platform]
    return [rel for rel in sources if rel not in leave]


def deps_of(root):
    """micropython-lib dependencies from firmware/package.json ("deps"), else none."""
    pj = Path(root) / "package.json"
    if not pj.exists():
        return list(DEFAULT_DEPS)
    deps = json.loads(pj.read_text()).get("deps", [])
    out = []
    for d in deps:
        name, ver = (d[0], d[1]) if isinstance(d, list) else (d, "latest")
        if "://" in name or name.startswith("github:"):
            continue      # our own files; not a micropython-lib package
        out.append((name, ver))
    return out


def compile_for(root, out_dir, arch, platform=None):
    """Compile the files for a board of `platform` (firmware_files); returns
    ([(board path, local path, size, sha256)], [mpy-cross argv])."""
    mpyc = build.mpy_cross_path()
    extra = ["-march=" + arch] if arch else []
    out_dir = Path(out_dir)
    files, cmds = [], []
    for rel in firmware_files(root, platform):
        if rel.parent == Path(".") and rel.name in build.KEEP_SOURCE:
            dest = out_dir / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes((Path(root) / rel).read_bytes())
        else:
            dest = out_dir / rel.with_suffix(".mpy")
            dest.parent.mkdir(parents=True, exist_ok=True)
            cmd = build.mpy_cross_command(mpyc, rel, dest, extra, root)
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise FlashError("mpy-cross rejects firmware/%s: %s" % (rel, r.stderr.strip()))
            cmds.append(cmd)
        data = dest.read_bytes()
        board_path = "/" + dest.relative_to(out_dir).as_posix()
        files.append((board_path, str(dest), len(data), hashlib.sha256(data).hexdigest()))
    return files, cmds


def native_files(files):
    """Board paths of .mpy files that carry native code (arch bits set in the header)."""
    out = []
    for board_path, local, _, _ in files:
        if local.endswith(".mpy"):
            head = Path(local).read_bytes()[:4]
            if len(head) == 4 and head[2] >> 2:
                out.append(board_path)
    return out


def plan(files, board, deps):
    """What to change on the board: (mkdirs, copies, removals, deps to install, bytes needed).

    `board` is the probe's answer, or None (dry run): then everything is new.
    """
    remote = (board or {}).get("files", {})
    have_dirs = set((board or {}).get("dirs", []))
    local_paths = set(f[0] for f in files)
    copies, replaced = [], 0
    for board_path, local, size, digest in files:
        old = remote.get(board_path)
        if old and old[1] == digest:
            continue
        copies.append((local, board_path, size))
        if old:
            replaced += old[0]
    mkdirs = []
    for _, board_path, _ in copies:
        parts = board_path.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/" + "/".join(parts[:i])
            if d not in have_dirs and d not in mkdirs:
                mkdirs.append(d)
    removals = sorted(p for p in remote if p.startswith("/speedref/") and p not in local_paths)
    freed = sum(remote[p][0] for p in removals)
    lib = set(os.path.basename(p).rsplit(".", 1)[0] for p in remote if p.startswith("/lib/"))
    lib |= set(os.path.basename(d) for d in have_dirs if d.startswith("/lib/"))
    need_deps = [(n, v) for n, v in deps if n.split("/")[-1] not in lib]
    needed = sum(c[2] for c in copies) - replaced - freed
    return mkdirs, copies, removals, need_deps, needed


def mpremote_commands(port, mkdirs, copies, removals, deps):
    """The mpremote argv list, in order: one chained filesystem update, mip installs, reset."""
    base = [mpremote_path(), "connect", port]
    fs = []
    for d in mkdirs:
        fs += ["mkdir", ":" + d]
    for p in removals:
        fs += ["rm", ":" + p]
    # main.py last: a board reset halfway never boots a main.py newer than its modules.
    for local, board_path, _ in sorted(copies, key=lambda c: c[1] in ("/main.py", "/boot.py")):
        fs += ["cp", local, ":" + board_path]
    cmds = []
    if fs:
        chained = list(base)
        for i, word in enumerate(fs):
            if word in ("mkdir", "rm", "cp") and i and len(chained) > len(base):
                chained.append("+")
            chained.append(word)
        cmds.append(chained)
    for name, ver in deps:
        cmds.append(base + ["mip", "install", name if ver in ("latest", None) else name + "@" + ver])
    cmds.append(base + ["reset"])
    return cmds


def explain_mpremote_failure(port, stderr):
    low = stderr.lower()
    if "failed to access" in low or "busy" in low or "in use" in low:
        return ("cannot open %s: it is in use by another program (close Thonny, a serial monitor or"
                " speedref-log) or you lack permission (on Linux: the dialout group)" % port)
    if "no device found" in low:
        return "no board answered on %s: is it plugged in and running MicroPython?" % port
    if "enospc" in low or "errno 28" in low or "no space" in low:
        return ("the board's flash is full: free space with `mpremote connect %s fs rm :FILE` (old"
                " files) and flash again" % port)
    return "mpremote failed on %s: %s" % (port, stderr.strip().splitlines()[-1] if stderr.strip() else "?")


def run_mpremote(cmd, port):
    # a path (/dev/ttyACM0) that is not there: not plugged in, or a typo
    # (mpremote would call it busy).  Its shortcuts (a0, u0) and COM3 are no paths.
    if ("/" in port or os.sep in port) and not os.path.exists(port):
        raise FlashError("no serial port %s: is the board plugged in? (`python -m serial.tools.list_ports`"
                         " lists the ports there are)" % port)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise FlashError(explain_mpremote_failure(port, r.stderr + r.stdout))
    return r.stdout


# The probe's answer, field by field: (type, what it must be).  A board (or
# something pretending to be one) answering anything else is refused before
# any of it is used.
PROBE_FIELDS = {
    "mpy": (int, "an int"),
    "version": (list, "a list of ints"),
    "platform": (str, "a string"),
    "free": ((int, type(None)), "an int or null"),
    "files": (dict, "an object of [size, sha256] pairs"),
    "dirs": (list, "a list of strings"),
}


def probe_problem(info):
    """Why the probe's answer cannot be used, or None."""
    if not isinstance(info, dict):
        return "not a JSON object"
    for name, (kind, what) in PROBE_FIELDS.items():
        v = info.get(name)
        if not isinstance(v, kind) or isinstance(v, bool):
            return "%s is not %s" % (name, what)
    if not all(type(x) is int for x in info["version"]):
        return "version is not a list of ints"
    if not all(isinstance(d, str) for d in info["dirs"]):
        return "dirs is not a list of strings"
    for path, v in info["files"].items():
        if not (isinstance(v, list) and len(v) == 2 and type(v[0]) is int and
                (v[1] is None or isinstance(v[1], str))):
            return "files[%r] is not [size, sha256]" % path
    return None


def probe(port, runner=run_mpremote):
    out = runner([mpremote_path(), "connect", port, "exec", PROBE], port)
    for ln in out.splitlines():
        if ln.startswith("SPEEDREF-PROBE "):
            try:
                info = jsonin.loads(ln[len("SPEEDREF-PROBE "):])
            except jsonin.BadJSON as e:
                info, why = None, "not JSON: %s" % e
            else:
                why = probe_problem(info)
            if why:
                raise FlashError("the board on %s gave a probe answer we cannot use (%s)" % (port, why))
            return info
    raise FlashError("the board on %s did not answer the probe (is it at the REPL?): %r"
                     % (port, out[-200:]))


def choose_port(port, board, dry_run, comports=None):
    if port:
        return port
    found = candidate_ports(board, comports)
    if len(found) == 1:
        return found[0].device
    if dry_run:
        return "auto"     # mpremote's own choice at run time
    if not found:
        raise FlashError("no MicroPython board found on USB%s: plug it in (a data cable, not a"
                         " charge-only one) or give --port" % (" (%s)" % board if board else ""))
    raise FlashError("several boards found: %s; choose one with --port"
                     % ", ".join(describe(p) for p in found))


def quote(cmd):
    return " ".join(shlex.quote(str(w)) for w in cmd)


def flash(args, out=print, runner=run_mpremote, comports=None):
    # what the board reports (its platform, its files) is printed escaped
    raw_out = out

    def out(text):
        raw_out(jsonin.printable(text))
    root = Path(args.firmware)
    if not (root / "main.py").exists():
        raise FlashError("%s has no main.py: nothing would start the referee on the board" % root)
    port = choose_port(args.port, args.board, args.dry_run, comports)
    ours = build.mpy_cross_version()
    if args.dry_run:
        info = None
        arch = BOARD_ARCH[args.board or "pico"]
        platform = BOARD_PLATFORM[args.board or "pico"]
        out("dry run: no board read; assuming %s (-march=%s, .mpy v%d.%d) and every file new"
            % (args.board or "pico", arch, ours[0], ours[1]))
    else:
        info = probe(port, runner)
        arch = check_board(info, ours, args.board)
        platform = info.get("platform")
        out("board on %s: MicroPython %s on %s, .mpy v%d.%d, %s; %s bytes free"
            % (port, ".".join(str(v) for v in info["version"]), info.get("platform"),
               decode_mpy(info["mpy"])[0], decode_mpy(info["mpy"])[1], arch or "no native arch",
               info.get("free")))
    files, cross_cmds = compile_for(root, args.build, arch, platform)
    if info and native_files(files) and decode_mpy(info["mpy"])[1] != ours[1]:
        raise FlashError("%s contain native code compiled for .mpy v%d.%d, but the board is v%d.%d:"
                         " update the board's MicroPython" % (", ".join(native_files(files)),
                                                              ours[0], ours[1], *decode_mpy(info["mpy"])[:2]))
    deps = deps_of(root)
    if getattr(args, "uplink", None):
        files = files + [uplink_file(args.uplink, args.build, out)]
        deps.append(("umqtt.simple", UMQTT_VERSION))
    mkdirs, copies, removals, deps, needed = plan(files, info, deps)
    if info and info.get("free") is not None and needed + FLASH_MARGIN > info["free"]:
        raise FlashError("the board's flash is full: the firmware needs %d more bytes (plus %d spare)"
                         " but only %d are free; remove old files with `mpremote connect %s fs rm :FILE`"
                         % (needed, FLASH_MARGIN, info["free"], port))
    cmds = mpremote_commands(port, mkdirs, copies, removals, deps)
    if args.dry_run:
        out("# compile (%d files)" % len(cross_cmds))
        for c in cross_cmds:
            out(quote(c))
        out("# files for the board (%d, %d bytes)" % (len(files), sum(f[2] for f in files)))
        for board_path, _, size, _ in files:
            out("%8d  %s" % (size, board_path))
        out("# board update")
        for c in cmds:
            out(quote(c))
        return 0
    out("%d files to copy (%d bytes), %d unchanged, %d stale to remove, %d dependencies to install"
        % (len(copies), sum(c[2] for c in copies), len(files) - len(copies), len(removals), len(deps)))
    for c in cmds:
        out("$ " + quote(c))
        runner(c, port)
    out("flashed; the board is resetting into the referee")
    return 0


def uplink_file(path, build_dir, out):
    """The board's uplink.json from the laptop's settings file: checked as the
    board checks it, written as a checked file (speedref/storage.py).  A
    (board path, local path, size, sha256) entry for plan()."""
    from speedref import storage, uplink
    try:
        with open(path, encoding="utf-8") as f:
            conf = jsonin.loads(f.read())
    except OSError as e:
        raise FlashError("cannot read the uplink settings %s: %s" % (path, e.strerror or e))
    except jsonin.BadJSON as e:
        raise FlashError("the uplink settings %s are not JSON: %s" % (path, e))
    why = uplink.check(conf)
    if why is not None:
        raise FlashError("the uplink settings %s cannot be used: %s" % (path, why))
    known = {"ssid", "wifi_password", "broker", "port", "user", "password", "tls", "ca", "club", "table"}
    extra = sorted(set(conf) - known)
    if extra:
        raise FlashError("the uplink settings %s have fields the board does not know: %s"
                         % (path, ", ".join(extra)))
    data = storage.encode(conf)
    dest = Path(build_dir) / "uplink.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(str(dest), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # it holds passwords
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    out("uplink: club %s, table %s, broker%s%s (settings not shown)"
        % (conf["club"], conf.get("table") or "named by the board's id", " with TLS" if conf.get("tls") else "",
           ", with a user name" if conf.get("user") else ""))
    if conf.get("user") and conf.get("user") != conf.get("table"):
        # the club's ACL lets an account publish only under its own name:
        # the broker would take this table's games and drop them
        out("uplink: note: the user name is not the table's name: the club's broker (docs/mosquitto/club.acl)"
            " lets a table publish only on the topic of its own user name, so its games would wait on the"
            " board for good")
    return (UPLINK_PATH, str(dest), len(data), hashlib.sha256(data).hexdigest())
