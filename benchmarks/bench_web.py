"""The referee's web page in headless Chromium: numbers for docs/web.md.

    .venv/bin/python benchmarks/bench_web.py [--loads 5] [--races 5]

Prints:
  - page load to the first OLED frame (the boot menu): cold (a new browser
    profile, nothing cached) and cached (reloads served by the service
    worker), and whether the page starts with the network off;
  - touch to verdict drawn: a Spit slap race by pointer events, from the
    first touch's event.timeStamp to the canvas holding the verdict, at the
    page's default hold (40 ms) and at hold 0;
  - peak live MicroPython heap per game in the 32-bit WebAssembly runtime:
    every committed sim script replayed with a collection after every event.
Needs chromium, chromedriver and `npm ci` (as tests/web/test_web.py).
"""
import argparse
import base64
import functools
import http.server
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "firmware"), str(ROOT / "tests"), str(ROOT / "tests" / "web"), str(ROOT / "web")]

import build as web_build  # noqa: E402  (web/build.py)
from test_web import (QuietHandler, why_missing, make_driver, py, board_ms, tap, touch,  # noqa: E402
                      wait_board, GAMES, SCRIPTS)


def serve(tmp):
    out = Path(tmp) / "site"
    web_build.build(out)
    srv = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(out)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "http://127.0.0.1:%d/" % srv.server_address[1]


def until(cond, timeout=120):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError
        time.sleep(0.02)


def menu_ms(drv):
    until(lambda: drv.execute_script("return window.speedref && window.speedref.marks.menu"))
    return drv.execute_script("return window.speedref.marks.menu")


def loads(tmp, url, n):
    cold, cached = [], []
    offline = None
    for i in range(n):
        drv = make_driver(Path(tmp) / ("profile%d" % i))
        try:
            drv.get(url)
            cold.append(menu_ms(drv))
            # the service worker has cached every file and controls the page
            until(lambda: drv.execute_script("return !!navigator.serviceWorker.controller"))
            for _ in range(n):
                drv.refresh()
                cached.append(menu_ms(drv))
            if offline is None:
                drv.execute_cdp_cmd("Network.enable", {})
                drv.execute_cdp_cmd("Network.emulateNetworkConditions", {
                    "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
                drv.refresh()
                try:
                    menu_ms(drv)
                    offline = True
                except TimeoutError:
                    offline = False
        finally:
            drv.quit()
    return cold, cached, offline


def races(tmp, url, n, hold):
    out = []
    drv = make_driver(Path(tmp) / ("race%d" % hold))
    try:
        for _ in range(n):
            drv.get("about:blank")
            drv.get(url + "#game=spit&sw=0&hold=%d" % hold)
            until(lambda: drv.execute_script("return window.speedref && window.speedref.ready"))
            t = board_ms(drv) + 100
            tap(drv, 6, t)
            tap(drv, 0, t + 150)
            tap(drv, 1, t + 300, 2)
            until(lambda: py(drv, "board.app.flow.phase") == 3)
            tap(drv, 0, board_ms(drv) + 100)
            until(lambda: py(drv, "board.app.flow.phase") == 5)
            wait_board(drv, board_ms(drv) + 1100)
            # Two touches now, 3 ms apart, with the events' own timestamps.
            first = drv.execute_script("""
                const sel = (b) => document.querySelector('#table [data-button="' + b + '"]');
                const down = (b, id) => { const e = new PointerEvent('pointerdown', {pointerId: id,
                  bubbles: true, cancelable: true, pointerType: 'touch'}); sel(b).dispatchEvent(e);
                  return e.timeStamp; };
                const t = down(1, 2);
                const end = performance.now() + 3; while (performance.now() < end) {}
                down(0, 1);
                return t;""")
            until(lambda: drv.execute_script("return window.speedref.marks.verdict"))
            out.append(drv.execute_script("return window.speedref.marks.verdict") - first)
            touch(drv, 0, "pointerup", board_ms(drv), 1)
            touch(drv, 1, "pointerup", board_ms(drv), 2)
    finally:
        drv.quit()
    return out


def heaps(tmp, url):
    out = {}
    drv = make_driver(Path(tmp) / "heap")
    try:
        for g in GAMES:
            code = base64.urlsafe_b64encode((SCRIPTS / (g + ".txt")).read_bytes()).decode().rstrip("=")
            drv.get("about:blank")
            drv.get(url + "#game=%s&heap=1&script=%s" % (g, code))
            until(lambda: drv.title == "done", 600)
            out[g] = drv.execute_script("return window.speedref.heap")
    finally:
        drv.quit()
    return out


def ms(xs):
    return "median %.0f ms, min %.0f, max %.0f (n=%d)" % (statistics.median(xs), min(xs), max(xs), len(xs))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument("--races", type=int, default=5)
    a = ap.parse_args(argv)
    why = why_missing()
    if why:
        print("bench_web: skipped: " + why)
        return 0
    with tempfile.TemporaryDirectory(prefix="speedref-bench-web-") as tmp:
        srv, url = serve(tmp)
        try:
            cold, cached, offline = loads(tmp, url, a.loads)
            print("page load to menu, cold:   " + ms(cold))
            print("page load to menu, cached: " + ms(cached))
            print("starts with the network off: %s" % ("yes" if offline else "NO"))
            for hold in (40, 0):
                print("touch to verdict drawn, hold %d ms, tie window 17 ms: %s"
                      % (hold, ms(races(tmp, url, a.races, hold))))
            for g, h in heaps(tmp, url).items():
                dev = h["peak"] - h["base"] - h["script"]
                print("peak live heap, %-9s %7d bytes: runtime %d, script events %d, device and game %d"
                      % (g + ":", h["peak"], h["base"], h["script"], dev))
        finally:
            srv.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
