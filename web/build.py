"""Build the referee's web page into build/web/ (`make web`).

    python web/build.py [--out build/web]

What goes in:
  - MicroPython for WebAssembly (node_modules/@micropython/micropython-webassembly-pyscript,
    pinned in package.json; `npm ci` puts it there);
  - py-bundle.json: the Python the page writes into the WebAssembly file
    system at start: the firmware's modules as firmware/package.json
    installs them on a board (a viper function as plain Python: plain_python), the simulator's virtual parts (sim/hardware.py)
    and script parser (sim/script.py), and the web board (web/board.py);
  - the page itself (web/static/), icons drawn here, and a service worker
    that caches every file above under a name derived from their contents.
No server-side code: any static file server will do (`make web-serve`).
"""
import argparse
import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
MPY_PKG = ROOT / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
RUNTIME = ("micropython.mjs", "micropython.wasm")
SIM_FILES = ("sim/__init__.py", "sim/hardware.py", "sim/script.py")


def plain_python(text):
    """A firmware module as the page runs it.  The page's MicroPython
    (WebAssembly) has no native code emitter, and its compiler rejects
    `@micropython.viper`: a viper function (app/ui.py's glyphs) runs there as
    the plain Python it is written in, with ui.py's stand-in for ptr8."""
    return re.sub(r"^[ \t]*@micropython\.viper[ \t]*(#.*)?\n", "", text, flags=re.M)


def python_sources():
    """{path inside the page's /lib: source text}."""
    out = {}
    urls = json.loads((ROOT / "firmware" / "package.json").read_text())["urls"]
    for dest, src in urls:
        if dest == "main.py":
            continue  # the board's entry point: the page is the entry point here
        out[dest] = plain_python((ROOT / "firmware" / src).read_text(encoding="utf-8"))
    for f in SIM_FILES:
        out[f] = (ROOT / f).read_text(encoding="utf-8")
    out["web/__init__.py"] = ""
    out["web/board.py"] = (WEB / "board.py").read_text(encoding="utf-8")
    return dict(sorted(out.items()))


def draw_icon(size, path):
    """The app icon: a dark OLED with two slap pads."""
    from PIL import Image, ImageDraw
    im = Image.new("RGB", (size, size), (16, 20, 28))
    d = ImageDraw.Draw(im)
    s = size / 16.0
    d.rounded_rectangle([2 * s, 2 * s, 14 * s, 7.5 * s], radius=s, fill=(0, 0, 0),
                        outline=(90, 200, 255), width=max(1, int(s / 2)))
    for x in (2 * s, 9 * s):
        d.ellipse([x, 9 * s, x + 5 * s, 14 * s], fill=(230, 60, 60) if x < 5 * s else (60, 130, 230))
    d.rectangle([3.5 * s, 4.2 * s, 12.5 * s, 5.2 * s], fill=(220, 240, 255))
    im.save(path, optimize=True)


def build(out):
    out = Path(out)
    missing = [f for f in RUNTIME if not (MPY_PKG / f).exists()]
    if missing:
        sys.exit("web/build.py: %s missing: run `npm ci` (package.json pins "
                 "@micropython/micropython-webassembly-pyscript)" % ", ".join(missing))
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for f in RUNTIME:
        shutil.copyfile(MPY_PKG / f, out / f)
    version = json.loads((MPY_PKG / "package.json").read_text())["version"]
    bundle = {"micropython": version, "files": python_sources()}
    (out / "py-bundle.json").write_text(json.dumps(bundle, sort_keys=True), encoding="utf-8")
    for f in sorted((WEB / "static").iterdir()):
        if f.is_file() and f.name != "sw.js":
            shutil.copyfile(f, out / f.name)
    draw_icon(192, out / "icon-192.png")
    draw_icon(512, out / "icon-512.png")
    files = sorted(p.name for p in out.iterdir() if p.is_file())
    h = hashlib.sha256()
    for name in files:
        h.update(name.encode() + b"\0" + (out / name).read_bytes())
    sw = (WEB / "static" / "sw.js").read_text(encoding="utf-8")
    sw = sw.replace("__CACHE__", "speedref-" + h.hexdigest()[:16])
    sw = sw.replace("__FILES__", json.dumps(["./"] + files))
    (out / "sw.js").write_text(sw, encoding="utf-8")
    return files


def main(argv=None):
    p = argparse.ArgumentParser(description="build the referee's web page")
    p.add_argument("--out", default=str(ROOT / "build" / "web"))
    a = p.parse_args(argv)
    files = build(a.out)
    print("web: %d files in %s" % (len(files) + 1, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
