"""The referee's web page (web/, docs/web.md) in headless Chromium: the real
MicroPython WebAssembly runtime running the firmware's own device.

Checked: boot to the menu (canvas pixels equal the simulator's screen); every
committed sim script replayed on the page gives the simulator's JSON log
lines and final screen; a slap race by synthetic pointer events is decided
by the events' timestamps, not by the order the page handles them; a game
save survives a reload; the downloaded record is the engine's record.

Needs Chromium and chromedriver (Debian: apt-get install chromium
chromium-driver) and the npm runtime (npm ci); without them every test here
skips with one line saying what is missing.
"""
import base64
import functools
import http.server
import json
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mpyhelp import one_install
from speedref.games import IDS

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "sim_scripts"
GAMES = IDS  # every registered game
RUNTIME = ROOT / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"

pytestmark = pytest.mark.web


def why_missing():
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium not installed (requirements-dev.txt)"
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        return "chromium not installed (apt-get install chromium chromium-driver)"
    if not shutil.which("chromedriver"):
        return "chromedriver not installed (apt-get install chromium-driver)"
    if not (RUNTIME / "micropython.wasm").exists():
        return "MicroPython WebAssembly runtime not installed (npm ci)"
    return None


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    why = why_missing()
    if why:
        pytest.skip("web tests skipped: " + why)
    out = tmp_path_factory.mktemp("web")
    sys.path.insert(0, str(ROOT / "web"))
    try:
        import build as web_build
    finally:
        sys.path.pop(0)
    web_build.build(out)
    handler = functools.partial(QuietHandler, directory=str(out))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d/" % srv.server_address[1]
    srv.shutdown()
    srv.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                          **{".wasm": "application/wasm", ".mjs": "text/javascript",
                             ".webmanifest": "application/manifest+json"})

    def log_message(self, *a):
        pass


def make_driver(profile, downloads=None):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--user-data-dir=%s" % profile, "--window-size=1024,768"):
        opts.add_argument(a)
    if downloads:
        opts.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                               "download.prompt_for_download": False,
                                               "profile.default_content_setting_values.automatic_downloads": 1})
    drv = webdriver.Chrome(options=opts, service=Service(shutil.which("chromedriver")))
    drv.set_script_timeout(60)
    return drv


@pytest.fixture(scope="module")
def browser(site, tmp_path_factory):
    downloads = tmp_path_factory.mktemp("downloads")
    drv = make_driver(tmp_path_factory.mktemp("profile"), downloads)
    drv.downloads = downloads
    yield drv
    drv.quit()


def wait(drv, cond, what, timeout=120):
    end = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if drv.title == "error":
            pytest.fail("the page failed: " + drv.find_element("id", "log").get_attribute("textContent"))
        if time.monotonic() > end:
            pytest.fail("timed out waiting for %s; the page says: %s" % (what, page_state(drv)))
        time.sleep(0.05)


def page_state(drv):
    """What the page shows the person at the device, and its last log lines."""
    try:
        return drv.execute_script(
            "const t = (id) => (document.getElementById(id) || {}).textContent;"
            "return JSON.stringify({title: document.title, status: t('status'), note: t('note'),"
            " log: (window.speedref && window.speedref.logLines || []).slice(-5)})")
    except Exception as e:  # noqa: BLE001 - a page that cannot answer says so
        return "(no answer: %s)" % e


def open_page(drv, url):
    drv.get("about:blank")
    drv.get(url)
    wait(drv, lambda: drv.execute_script("return window.speedref && window.speedref.ready"),
         "the page to start")


def canvas_bits(drv):
    """The OLED canvas as 1024 MONO_VLSB bytes (a pixel is lit when bright)."""
    px = drv.execute_script(
        "const c = document.getElementById('oled').getContext('2d');"
        "return Array.from(c.getImageData(0, 0, 128, 64).data);")
    out = bytearray(1024)
    for y in range(64):
        for x in range(128):
            if px[(y * 128 + x) * 4] > 127:
                out[(y // 8) * 128 + x] |= 1 << (y % 8)
    return bytes(out)


def sim_screen(until_us, game=None):
    from sim.board import Board
    b = Board()
    try:
        b.step()
        if game:
            b.start_game(game)
        b.run_until(until_us)
        return b.screen()
    finally:
        b.close()


def log_lines(drv):
    return [json.loads(s) for s in drv.execute_script("return window.speedref.logLines")]


def py(drv, expr):
    return drv.execute_script("return window.speedref.py(arguments[0])", expr)


FLASH_KEY = "speedref-flash"
SET_ASIDE_KEY = "speedref-flash.bad"


def plant(drv, site, value, key=FLASH_KEY):
    """localStorage[key] = value (None: cleared) from a same-origin page that
    runs no referee (a running page saves its flash as it leaves)."""
    drv.get("about:blank")
    drv.get(site + "no-referee-here")
    drv.execute_script("localStorage.clear();"
                       "if (arguments[1] !== null) localStorage.setItem(arguments[0], arguments[1]);",
                       key, value)


def stored(drv, key=FLASH_KEY):
    return drv.execute_script("return localStorage.getItem(arguments[0])", key)


# Synthetic pointer events with a chosen timeStamp (the page reads only
# event.timeStamp for when a touch happened).
POINTER_JS = """
const [sel, type, ts, id] = arguments;
const el = document.querySelector(sel);
const e = new PointerEvent(type, {pointerId: id, bubbles: true, cancelable: true,
                                  pointerType: 'touch', isPrimary: id === 1});
Object.defineProperty(e, 'timeStamp', {value: ts});
el.dispatchEvent(e);
"""


def touch(drv, button, type, at_ms, pid):
    """Dispatch a pointer event on a button at board time at_ms (ms after
    the page's board started)."""
    drv.execute_script(POINTER_JS, '#table [data-button="%d"]' % button, type,
                       drv.execute_script("return window.speedref.t0") + at_ms, pid)


def board_ms(drv):
    return drv.execute_script("return performance.now() - window.speedref.t0")


def tap(drv, button, at_ms, pid=1):
    touch(drv, button, "pointerdown", at_ms, pid)
    touch(drv, button, "pointerup", at_ms + 60, pid)


def wait_board(drv, at_ms):
    """Until the board's clock has passed at_ms (it runs HOLD behind the page)
    and every touch dispatched so far has been handed to it (a touch whose
    dispatch came late, on a busy machine, after the clock passed at_ms)."""
    wait(drv, lambda: py(drv, "board.clock.elapsed_us") > at_ms * 1000
         and drv.execute_script("return window.speedref.pending.length") == 0, "the board's clock", 30)


# ---- tests ------------------------------------------------------------------
def test_boot_to_menu(browser, site):
    open_page(browser, site + "#sw=0")
    lines = log_lines(browser)
    assert lines[0]["ev"] == "boot" and lines[0]["board"] == "web"
    assert lines[0]["tie_us"] == 17000
    expect = sim_screen(0)
    wait(browser, lambda: canvas_bits(browser) == expect, "the boot screen on the canvas", 30)
    assert any(expect), "the boot screen is not blank"
    assert py(browser, "type(board.app.screen).__name__") == "Boot"
    # OK leads to the game list, as on the board.
    now = board_ms(browser) + 60
    tap(browser, 6, now)
    wait_board(browser, now + 100)
    assert py(browser, "type(board.app.screen).__name__") == "Games"


@pytest.mark.parametrize("name", sorted(p.stem for p in SCRIPTS.glob("*.txt")))
def test_replay_equals_simulator(browser, site, name, tmp_path):
    """Every committed script (speed_3p and speed_4p: Speed with 3 and 4
    players, their '# seats: N' header read on the page as by the simulator)."""
    script = SCRIPTS / (name + ".txt")
    game = name.split("_")[0]
    r = subprocess.run([sys.executable, "-m", "sim", "--script", str(script), "--game", game,
                        "--json", "--screens", str(tmp_path)],
                       capture_output=True, text=True, cwd=str(ROOT), timeout=600)
    assert r.returncode == 0, r.stderr
    expect = [json.loads(s) for s in r.stdout.splitlines()]
    code = base64.urlsafe_b64encode(script.read_bytes()).decode().rstrip("=")
    open_page(browser, site + "#game=%s&script=%s" % (game, code))
    wait(browser, lambda: browser.title == "done", "the replay to finish", 300)
    text = browser.find_element("id", "log").get_attribute("textContent")
    got = [json.loads(s) for s in text.splitlines()]
    # the same log but for the install ids of the two fresh stores
    assert one_install(got) == one_install(expect)
    assert any(x["ev"] == "game_end" for x in got)
    from PIL import Image
    end = sorted(tmp_path.glob("*-end.png"))[-1]
    im = Image.open(end).convert("L")
    want = bytearray(1024)
    for y in range(64):
        for x in range(128):
            if im.getpixel((x, y)) > 127:
                want[(y // 8) * 128 + x] |= 1 << (y % 8)
    assert canvas_bits(browser) == bytes(want)


def test_slap_race_follows_timestamps(browser, site):
    """Spit: both players out of stock cards, then the slap race.  P1's touch
    is handed to the page first but is 25 ms later than P2's: P2 wins by
    exactly 25.000 ms (the web board's tie window is 17 ms)."""
    open_page(browser, site + "#game=spit&sw=0")
    t = board_ms(browser) + 100
    tap(browser, 6, t)             # OK: laid out
    tap(browser, 0, t + 150)       # P1 ready
    tap(browser, 1, t + 300, 2)    # P2 ready: Spit! 3-2-1 GO
    wait(browser, lambda: py(browser, "board.app.flow.phase") == 3, "GO (play)", 30)
    t = board_ms(browser) + 100
    tap(browser, 0, t)             # P1: my stock piles are empty
    wait(browser, lambda: py(browser, "board.app.flow.phase") == 5, "the slap phase", 30)
    wait_board(browser, board_ms(browser) + 1100)  # past the slap's GO
    t = int(board_ms(browser)) + 100
    # Handed over in the wrong order: P1 (later) first, then P2.
    touch(browser, 0, "pointerdown", t + 25, 1)
    touch(browser, 1, "pointerdown", t, 2)
    touch(browser, 0, "pointerup", t + 90, 1)
    touch(browser, 1, "pointerup", t + 90, 2)
    slap = wait(browser, lambda: [x for x in log_lines(browser) if x["ev"] == "slap"],
                "the slap verdict", 30)[0]
    assert slap["winner"] == 1 and slap["tie"] == []
    assert slap["margin_us"] == 25000
    assert slap["presses"] == [1, 0]


# The page's commit watched: the saves (flash writes) each commit made, and
# whether the page had taken the screen the passes drew before it.
WATCH_COMMIT = """
_saves = []
def _commit(b=board, orig=board.commit, saves=_saves):
    w = b.store.writes
    taken = b.oled.updates == b._shown
    orig()
    if b.store.writes != w:
        saves.append([taken, b.store.writes - w, type(b.app.flow).__name__])
board.commit = _commit
_writes0 = board.store.writes
"""


def test_the_page_draws_the_verdict_before_it_saves_it_SPIT10(browser, site):
    """The page keeps the board's order (docs/web.md): each frame it draws
    the screen the loop's passes made and starts their tones, and only then
    writes their save (board.commit).  Spit's slap race: the verdict's save
    is written after the page took the verdict's screen, every save comes
    through that commit, and the verdict's mark is the canvas drawn."""
    open_page(browser, site + "#game=spit&sw=0")
    browser.execute_script("window.speedref.mp.runPython(arguments[0])", WATCH_COMMIT)
    t = board_ms(browser) + 100
    tap(browser, 6, t)             # OK: laid out
    tap(browser, 0, t + 150)       # P1 ready
    tap(browser, 1, t + 300, 2)    # P2 ready: Spit! 3-2-1 GO
    wait(browser, lambda: py(browser, "board.app.flow.phase") == 3, "GO (play)", 30)
    t = board_ms(browser) + 100
    tap(browser, 0, t)             # P1: my stock piles are empty
    wait(browser, lambda: py(browser, "board.app.flow.phase") == 5, "the slap phase", 30)
    wait_board(browser, board_ms(browser) + 1100)  # past the slap's GO
    before = py(browser, "len(_saves)")
    t = int(board_ms(browser)) + 100
    touch(browser, 1, "pointerdown", t, 2)
    touch(browser, 0, "pointerdown", t + 7, 1)
    touch(browser, 0, "pointerup", t + 90, 1)
    touch(browser, 1, "pointerup", t + 90, 2)
    wait(browser, lambda: [x for x in log_lines(browser) if x["ev"] == "slap"], "the slap verdict", 30)
    wait(browser, lambda: py(browser, "len(_saves)") > before or None, "the verdict's save", 30)
    saves = py(browser, "_saves")
    assert saves[before:], "the slap verdict saved (SPIT-10)"
    assert all(taken for taken, _n, _f in saves), "a save before the page took its screen: %r" % saves
    assert py(browser, "board.store.writes - _writes0") == sum(n for _t, n, _f in saves), \
        "a save outside the page's commit"
    assert browser.execute_script("return window.speedref.marks.verdict") is not None


def test_save_survives_reload(browser, site):
    plant(browser, site, None)
    open_page(browser, site + "#game=spit&sw=0")
    wait(browser, lambda: py(browser, "board.store.writes") >= 1, "the game's first save", 30)
    wait(browser, lambda: "game.json" in browser.execute_script(
        "return localStorage.getItem('speedref-flash') || ''") or None,
        "the save in the browser's storage", 30)
    open_page(browser, site + "#sw=0")  # a fresh page: nothing but the stored flash
    assert py(browser, "type(board.app.screen).__name__") == "Boot"
    assert py(browser, "board.app.screen.saved['game']") == "spit"
    t = board_ms(browser) + 60
    tap(browser, 6, t)  # OK: resume
    wait_board(browser, t + 100)
    assert py(browser, "board.app.flow is not None and board.app.flow.GAME") == "spit"


def test_a_browser_profile_numbers_its_games_under_its_own_install_id(browser, site):
    """The page's store is the firmware's: a profile's first start draws a
    random install id (the WebAssembly port has no os.urandom: its
    random module, seeded from crypto.getRandomValues), kept in the stored
    flash, so a reload counts on under it and a new profile (storage
    cleared) starts at 1 under another."""
    number = "board.store.add_record({'game': 'x'}, board.store.new_game_seq())"
    ids = []
    for fresh in (True, False, True):
        if fresh:
            plant(browser, site, None)
        open_page(browser, site + "#sw=0")
        ids.append(py(browser, number))
        wait(browser, lambda: "seq.json" in (stored(browser) or ""), "seq.json stored", 30)
    m = [re.match(r"^web-([0-9a-f]{8})-([0-9]+)$", i) for i in ids]
    assert all(m), ids
    assert [x.group(2) for x in m] == ["1", "2", "1"]
    assert m[0].group(1) == m[1].group(1) != m[2].group(1), ids


def test_record_download_is_the_engines_record(browser, site):
    from speedref.engine import records
    script = SCRIPTS / "partners.txt"
    code = base64.urlsafe_b64encode(script.read_bytes()).decode().rstrip("=")
    open_page(browser, site + "#game=partners&script=" + code)
    wait(browser, lambda: browser.title == "done", "the replay to finish", 300)
    for f in browser.downloads.glob("*.json"):
        f.unlink()
    browser.execute_script("document.getElementById('record').click()")
    f = wait(browser, lambda: list(browser.downloads.glob("speedref-*.json")), "the download", 30)[0]
    rec = json.loads(f.read_text())
    end = [x for x in log_lines(browser) if x["ev"] == "game_end"][0]["record"]
    assert rec == end
    assert re.match(r"^sim-[0-9a-f]{8}-1$", rec["id"]), rec["id"]
    body = dict(rec)
    body.pop("id")
    body.pop("table", None)
    assert records.replay(body).to_record() == body


# ---- bad input: the stored flash ----------------------------------------------
def note(drv):
    return drv.find_element("id", "note").get_attribute("textContent")


def screen_name(drv):
    return py(drv, "type(board.app.screen).__name__")


def b64(data):
    return base64.b64encode(data).decode()


def flash_file(obj):
    """A file's bytes as the storage module writes it on flash."""
    from speedref import storage
    return storage.encode(obj)


def assert_usable(drv):
    """The board's clock runs and OK leads from the boot screen to the game list."""
    assert drv.title == "speedref"
    assert screen_name(drv) == "Boot"
    t = board_ms(drv) + 60
    tap(drv, 6, t)
    wait_board(drv, t + 100)
    assert screen_name(drv) == "Games"


# Stores the page cannot use as they are: not a JSON object of file names to
# base64 text, names that are no file in the flash folder, text that is not
# base64.
BAD_STORES = [
    "null", "[1,2]", '"text"', "5", "true", "{", "{}}", '{"game.json":5}', '{"game.json":null}',
    '{"game.json":"not base64!"}', '{"game.json":{"a":1}}', '{"rec":"aGk="}', '{"":"aGk="}',
    '{"rec/":"aGk="}', '{"/":"aGk="}', '{"rec//x.json":"aGk="}', '{"game.json/x":"aGk="}',
    '{"rec/00000001.json/x":"aGk=","rec/00000001.json":"aGk="}',
]


@pytest.mark.parametrize("value", BAD_STORES)
def test_bad_store_is_set_aside_and_the_page_boots(browser, site, value):
    plant(browser, site, value)
    open_page(browser, site + "#sw=0")
    assert "set aside" in note(browser)
    assert stored(browser, SET_ASIDE_KEY) == value  # kept as it was, for a person to look at
    # the store the page writes back holds only files it can restore
    now = wait(browser, lambda: stored(browser), "the flash saved again", 30)
    assert isinstance(json.loads(now), dict)
    assert_usable(browser)
    open_page(browser, site + "#sw=0")  # the next load is clean
    assert note(browser) == ""
    assert screen_name(browser) == "Boot"


def test_bad_store_keeps_the_good_files(browser, site):
    """One bad entry sets the store aside, but every good file is restored:
    the finished game's record is still there."""
    rec = {"game": "spit", "v": 1, "id": "web-7"}
    value = json.dumps({"rec/00000007.json": b64(flash_file(rec)), "rec": "aGk=",
                        "seq.json": b64(flash_file(7))})
    plant(browser, site, value)
    open_page(browser, site + "#sw=0")
    assert "set aside" in note(browser)
    assert stored(browser, SET_ASIDE_KEY) == value
    assert py(browser, "board.store.records()") == [rec]
    assert py(browser, "board.store.new_game_seq()") == 8


def test_damaged_files_are_the_firmwares_to_set_aside(browser, site):
    """Files that are base64 but damaged on "flash" are the storage module's
    business (set aside as .bad, the backup used): the page boots."""
    value = json.dumps({"game.json": b64(b"SRF1 junk"), "settings.json": b64(b"\xff\x00"),
                        "seq.json": b64(flash_file("seven")), "rec/00000001.json": b64(b"{}")})
    plant(browser, site, value)
    open_page(browser, site + "#sw=0")
    assert_usable(browser)


def test_a_store_the_device_crashes_on_is_set_aside(browser, site, tmp_path):
    """Whatever the store holds, the page never stays broken.  A device that
    crashes is restarted from its flash, as a board resets; when it crashes
    again and again, the store is set aside (its records kept) and the page
    boots without it."""
    rec = {"game": "spit", "v": 1, "id": "web-1"}
    value = json.dumps({"game.json": b64(flash_file(a_spit_save(tmp_path))),
                        "rec/00000001.json": b64(flash_file(rec))})
    plant(browser, site, value)
    open_page(browser, site + "#sw=0")
    assert note(browser) == ""
    assert py(browser, "board.app.screen.saved['game']") == "spit"
    # from now on the device's loop raises while that save is on its flash
    browser.execute_script("window.speedref.mp.runPython(arguments[0])", CRASH_ON_SAVE)
    wait(browser, lambda: "set aside" in note(browser), "the store set aside", 30)
    assert json.loads(stored(browser, SET_ASIDE_KEY)) == json.loads(value)  # the flash it crashed on
    crashes = [x for x in log_lines(browser) if x["ev"] == "error" and x.get("what") == "crash"]
    assert len(crashes) == 3 and "ZeroDivisionError" in crashes[0]["msg"]
    assert py(browser, "board.store.records()") == [rec]
    assert_usable(browser)


def a_spit_save(folder):
    """A save the firmware itself wrote as the second game, a Spit game,
    starts (a save of the wrong shape is set aside at boot, and a save
    whose record is stored is a finished game: neither is offered)."""
    from app_rig import Rig
    from app_spit_game import spit_opts
    rig = Rig(str(folder))
    rig.store.add_record({"game": "spit", "v": 1, "id": "cpython-1"}, 1)
    rig.app.start("spit", rig.t, spit_opts())
    saved = rig.store.load_game()[0]
    assert saved["seq"] == 2
    return saved


CRASH_ON_SAVE = """
import os
from speedref import device
_step = device.Device.step
def _crashing(self, now):
    try:
        os.stat("/flash/game.json")
    except OSError:
        return _step(self, now)
    1 // 0
device.Device.step = _crashing
"""


# ---- bad input: file names from storage never leave the flash folder --------------
PLANTED = "import builtins\nbuiltins.PLANTED = True\n"
ESCAPES = ["../lib/speedref/app/menu.py", "/lib/speedref/app/menu.py", "rec/../../lib/speedref/app/menu.py",
           "../lib/speedref/app/core.py", "..", "rec/..", "./game.json", "../flash2/x", "rec/../../x.py"]


def test_stored_names_never_leave_the_flash_folder(browser, site):
    web_build = _web_build()
    menu = web_build.python_sources()["speedref/app/menu.py"]
    rec = {"game": "spit", "v": 1, "id": "web-1"}
    files = {k: b64((PLANTED + menu).encode()) for k in ESCAPES}
    files["rec/00000001.json"] = b64(flash_file(rec))
    value = json.dumps(files)
    plant(browser, site, value)
    open_page(browser, site + "#sw=0")
    assert "set aside" in note(browser)
    assert stored(browser, SET_ASIDE_KEY) == value
    assert py(browser, "open('/lib/speedref/app/menu.py').read()") == menu
    assert py(browser, "open('/lib/speedref/app/core.py').read()") == \
        web_build.python_sources()["speedref/app/core.py"]
    for d, name in (("/", "x.py"), ("/", "flash2"), ("/lib", "x.py")):
        assert name not in py(browser, "__import__('os').listdir(%r)" % d), d + name
    assert py(browser, "board.store.records()") == [rec]  # the good file is kept
    assert_usable(browser)  # the menu is imported now: still the bundle's
    assert not py(browser, "hasattr(__import__('builtins'), 'PLANTED')")
    saved = json.loads(wait(browser, lambda: stored(browser), "the flash saved again", 30))
    assert sorted(saved) == ["rec/00000001.json"]


def _web_build():
    sys.path.insert(0, str(ROOT / "web"))
    try:
        import build as web_build
    finally:
        sys.path.pop(0)
    return web_build


# ---- bad input: page options ----------------------------------------------------
BAD_OPTIONS = [
    ("hold=abc", "hold"), ("hold=1e12", "hold"), ("hold=-5", "hold"), ("hold=Infinity", "hold"),
    ("hold=", "hold"), ("hold=0x10", "hold"), ("game=chess", "game"), ("game=", "game"),
    ("pads=9", "pads"), ("pads=abc", "pads"), ("flat=yes", "flat"), ("uid=../../x", "uid"),
    ("uid=" + "x" * 200, "uid"), ("script=%%%", "script"), ("script=AAAA", "script"),
    ("heap=2", "heap"), ("sw=maybe", "sw"), ("colour=red", "colour"), ("constructor=1", "constructor"),
    ("__proto__=1", "__proto__"), ("toString=x", "toString"), ("<b>x</b>=1", "<b>x</b>"),
]


@pytest.mark.parametrize("option,name", BAD_OPTIONS)
def test_bad_page_option_is_ignored_with_a_note(browser, site, option, name):
    plant(browser, site, None)
    open_page(browser, site + "#sw=0&" + option)
    assert browser.title == "speedref"
    assert name in note(browser) and "ignored" in note(browser)
    assert browser.execute_script("return window.speedref.hold") == 40
    if name == "uid":
        assert py(browser, "board.store.uid") != option.partition("=")[2]
    assert py(browser, "board.app.flow") is None  # no game started
    assert len(visible_pads(browser)) == 2
    wait_board(browser, board_ms(browser) + 200)  # the board's clock runs
    assert_usable(browser)


def test_good_page_options_give_no_note(browser, site):
    plant(browser, site, None)
    open_page(browser, site + "#sw=0&hold=25&pads=3&flat=1&uid=table-2&game=speed")
    assert note(browser) == ""
    assert browser.execute_script("return window.speedref.hold") == 25
    assert py(browser, "board.store.uid") == "table-2"
    assert py(browser, "board.app.flow.GAME") == "speed"


def visible_pads(drv):
    """The labels of the pads on screen, in page order."""
    return drv.execute_script(
        "return [...document.querySelectorAll('#table .pad')]"
        ".filter((e) => e.getClientRects().length).map((e) => e.textContent)")


# ---- the table: pads follow the game, the log out of the way, every layout fits ---
SIZES = [(1280, 800), (800, 1280), (390, 844)]
ARTEFACTS = ROOT / "build" / "test-artifacts" / "web"  # screenshots of every layout (docs/web.md)


@pytest.fixture
def viewport(browser):
    """set(w, h): the page's viewport at exactly w x h CSS pixels."""
    def set_size(w, h):
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
    yield set_size
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


GEOMETRY_JS = """
const box = (e) => { const r = e.getBoundingClientRect();
  return {x: r.left, y: r.top, w: r.width, h: r.height, label: e.textContent,
          near: !!e.closest('.near')}; };
const shown = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.getClientRects().length);
return {vw: innerWidth, vh: innerHeight,
        sw: document.documentElement.scrollWidth, sh: document.documentElement.scrollHeight,
        pads: shown('#table .pad').map(box), oleds: shown('canvas.oled').map(box),
        nav: shown('.nav button').map(box), table: box(document.getElementById('table'))};
"""


def geometry(drv):
    return drv.execute_script(GEOMETRY_JS)


def inside(b, g):
    return b["x"] >= -0.5 and b["y"] >= -0.5 and b["x"] + b["w"] <= g["vw"] + 0.5 \
        and b["y"] + b["h"] <= g["vh"] + 0.5


def centre(b):
    return (b["x"] + b["w"] / 2, b["y"] + b["h"] / 2)


def assert_fits(g, n, what):
    labels = sorted(p["label"] for p in g["pads"])
    assert labels == ["P%d" % (i + 1) for i in range(n)], what
    for b in g["pads"] + g["oleds"] + g["nav"]:
        assert inside(b, g), "%s: %s %r is not whole on the screen (%dx%d)" % (
            what, b["label"] or "OLED", b, g["vw"], g["vh"])
    sizes = {(round(p["w"]), round(p["h"])) for p in g["pads"]}
    assert max(p["w"] for p in g["pads"]) - min(p["w"] for p in g["pads"]) < 1.5 and \
        max(p["h"] for p in g["pads"]) - min(p["h"] for p in g["pads"]) < 1.5, \
        "%s: the pads are not all the same size: %s" % (what, sizes)
    assert min(p["w"] for p in g["pads"]) >= 60 and min(p["h"] for p in g["pads"]) >= 60, what
    assert g["sw"] <= g["vw"], "%s: the page scrolls sideways (%d > %d)" % (what, g["sw"], g["vw"])
    assert g["sh"] <= g["vh"], "%s: the page scrolls (%d > %d)" % (what, g["sh"], g["vh"])


def shoot(drv, name):
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    drv.save_screenshot(str(ARTEFACTS / (name + ".png")))


@pytest.mark.parametrize("flat", [0, 1], ids=["upright", "flat"])
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("size", SIZES, ids=["%dx%d" % s for s in SIZES])
def test_layout_fits_the_screen(browser, site, viewport, size, n, flat):
    """Every pad whole on the screen, all the same size, nothing scrolling;
    lying flat, each seat faces its own side, and with four the partners'
    seats (P1 and P3, P2 and P4) are opposite each other."""
    w, h = size
    what = "%dx%d %s %d pads" % (w, h, "flat" if flat else "upright", n)
    viewport(w, h)
    plant(browser, site, None)
    open_page(browser, site + "#sw=0&pads=%d&flat=%d" % (n, flat))
    time.sleep(0.2)  # a frame or two: the OLED drawn for the screenshot
    g = geometry(browser)
    assert (g["vw"], g["vh"]) == (w, h)
    shoot(browser, "layout-%dx%d-%s-%dpads" % (w, h, "flat" if flat else "upright", n))
    assert_fits(g, n, what)
    pads = {p["label"]: p for p in g["pads"]}
    if not flat:
        assert all(p["near"] for p in g["pads"]), what
        return
    assert len(g["oleds"]) == 2, what + ": an OLED for each side"
    assert pads["P1"]["near"] and not pads["P2" if n == 2 else "P3"]["near"], what
    if n == 4:
        cx, cy = centre(g["table"])
        for a, b in (("P1", "P3"), ("P2", "P4")):
            (ax, ay), (bx, by) = centre(pads[a]), centre(pads[b])
            assert pads[a]["near"] != pads[b]["near"], "%s: %s and %s on one side" % (what, a, b)
            assert abs(ax + bx - 2 * cx) < 2 and abs(ay + by - 2 * cy) < 2, \
                "%s: %s and %s are not opposite each other" % (what, a, b)


@pytest.mark.parametrize("game", GAMES)
def test_pads_follow_the_game(browser, site, game):
    """As a game starts, the pads are its seats (with its default options:
    the fewest of the registry's seat range); the selector still changes
    them afterwards."""
    from speedref.games import get
    seats = get(game).seats[0]
    plant(browser, site, None)
    other = 4 if seats != 4 else 2
    open_page(browser, site + "#sw=0&pads=%d" % other)
    assert len(visible_pads(browser)) == other
    open_page(browser, site + "#sw=0&game=" + game)
    wait(browser, lambda: len(visible_pads(browser)) == seats, "%d pads for %s" % (seats, game), 10)
    assert visible_pads(browser) == ["P%d" % (i + 1) for i in range(seats)]
    assert browser.find_element("id", "npads").get_attribute("value") == str(seats)
    from selenium.webdriver.support.ui import Select
    Select(browser.find_element("id", "npads")).select_by_visible_text(str(other))
    assert len(visible_pads(browser)) == other


def test_pads_follow_speeds_players_three_SP27(browser, site):
    """Speed started from the menu with Players 3: three pads (pads_for reads
    the game's `seats`), each a player's; P3's touch is P3's ready call."""
    from speedref.games import get
    plant(browser, site, None)
    open_page(browser, site + "#sw=0&pads=2")
    row = [k for k, _, _ in get("speed").options].index("seats") + 1
    t = board_ms(browser) + 60
    # OK (boot), OK (Speed), DOWN to Players, OK (2 -> 3), UP to Start, OK
    for i, b in enumerate([6, 6] + [5] * row + [6] + [4] * row + [6]):
        tap(browser, b, t + 150 * i)
    wait(browser, lambda: py(browser, "board.app.flow and board.app.flow.seats") == 3,
         "Speed with 3 players started from the menu", 30)
    wait(browser, lambda: len(visible_pads(browser)) == 3, "3 pads", 10)
    assert visible_pads(browser) == ["P1", "P2", "P3"]
    t = board_ms(browser) + 60
    tap(browser, 6, t)  # OK: laid out
    for p in range(3):
        tap(browser, p, t + 200 + 150 * p)  # each player's ready tap
    wait(browser, lambda: py(browser, "board.app.flow.phase") == 2, "everyone ready: the countdown (SP-30)", 30)


def test_pads_follow_a_game_started_from_the_menu_and_resumed(browser, site):
    plant(browser, site, None)
    open_page(browser, site + "#sw=0&pads=2")
    t = board_ms(browser) + 60
    for i, b in enumerate((6, 5, 5, 6, 6)):  # OK, DOWN, DOWN (Speed Run), OK, OK: Start
        tap(browser, b, t + 150 * i)
    wait(browser, lambda: py(browser, "board.app.flow and board.app.flow.GAME") == "speedrun",
         "Speed Run started from the menu", 30)
    wait(browser, lambda: len(visible_pads(browser)) == 3, "3 pads", 10)
    wait(browser, lambda: "game.json" in (stored(browser) or ""), "the game saved", 30)
    open_page(browser, site + "#sw=0&pads=2")  # a reload: 2 pads until the game resumes
    assert len(visible_pads(browser)) == 2
    t = board_ms(browser) + 60
    tap(browser, 6, t)  # OK: resume
    wait(browser, lambda: len(visible_pads(browser)) == 3, "3 pads for the resumed game", 10)


LONG_LINE = "board.log.emit({'ev': 'note', 'text': 'x' * 3000})"


@pytest.mark.parametrize("size", SIZES, ids=["%dx%d" % s for s in SIZES])
def test_log_is_behind_its_button(browser, site, viewport, size):
    """The raw log is not on the players' screen; opened, it covers part of
    the page without moving or shrinking a pad, and nothing scrolls sideways,
    however many and however long its lines."""
    w, h = size
    viewport(w, h)
    plant(browser, site, None)
    open_page(browser, site + "#sw=0&game=partners&flat=1")
    wait(browser, lambda: len(visible_pads(browser)) == 4, "4 pads", 10)
    log = browser.find_element("id", "log")
    assert not log.is_displayed()
    before = geometry(browser)
    assert_fits(before, 4, "log closed")
    for _ in range(40):
        py(browser, LONG_LINE + " or 0")
    wait_board(browser, board_ms(browser))
    assert geometry(browser)["pads"] == before["pads"]
    browser.find_element("id", "logbutton").click()
    assert log.is_displayed()
    wait(browser, lambda: "xxxx" in log.get_attribute("textContent"), "the lines in the log", 10)
    shoot(browser, "log-open-%dx%d" % (w, h))
    g = geometry(browser)
    assert g["pads"] == before["pads"], "opening the log moved or shrank a pad"
    assert g["sw"] <= g["vw"], "the log scrolls the page sideways"
    panel = browser.execute_script("const r = document.getElementById('logpanel').getBoundingClientRect();"
                                   "return [r.left, r.right, r.bottom, document.getElementById('log').scrollWidth,"
                                   "document.getElementById('log').clientWidth]")
    assert panel[0] >= 0 and panel[1] <= w and panel[2] <= h
    assert panel[3] <= panel[4], "the log's lines run off its side"
    browser.find_element("id", "logclose").click()
    assert not log.is_displayed()


def test_records_download_after_a_reload(browser, site):
    """A game finished on the page is kept on its flash; after a reload its
    record is still downloaded by "record JSON" (what speedref-score reads),
    and every stored record as log lines (what speedref-log reads)."""
    plant(browser, site, None)
    open_page(browser, site + "#sw=0")
    assert browser.find_element("id", "record").get_attribute("disabled")
    # nothing stored: no empty file to download (speedref-results import refuses one)
    records = browser.find_element("id", "records")
    assert records.get_attribute("disabled") and "nothing stored" in records.get_attribute("title")
    text = (SCRIPTS / "spit.txt").read_text()
    browser.execute_script("window.speedref.mp.globals.set('_script', arguments[0])", text)
    # The committed Spit game, played on the live board from now on (its
    # clock runs ahead of the page's for the length of the game).
    browser.execute_script("window.speedref.mp.runPython(arguments[0])", PLAY_SCRIPT)
    end = wait(browser, lambda: [x for x in log_lines(browser) if x["ev"] == "game_end"],
               "the game's end", 30)[0]["record"]
    wait(browser, lambda: "rec/" in (stored(browser) or ""), "the record saved", 30)
    open_page(browser, site + "#sw=0")
    assert not [x for x in log_lines(browser) if x["ev"] == "game_end"]
    assert not browser.find_element("id", "record").get_attribute("disabled")
    for f in list(browser.downloads.glob("*.json*")):
        f.unlink()
    browser.find_element("id", "record").click()
    f = wait(browser, lambda: list(browser.downloads.glob("speedref-*.json")), "the download", 30)[0]
    assert json.loads(f.read_text()) == end
    browser.find_element("id", "logbutton").click()
    assert not browser.find_element("id", "records").get_attribute("disabled")
    browser.find_element("id", "records").click()
    f = wait(browser, lambda: list(browser.downloads.glob("speedref-records.jsonl")), "the download", 30)[0]
    assert [json.loads(s) for s in f.read_text().splitlines()] == [{"ev": "stored", "record": end}]


PLAY_SCRIPT = """
from sim import script as _s
_t = board.clock.elapsed_us + 1000
board.run_until(_t)
board.start_game("spit")
for _e in _s.parse(_script):
    board.edge(_t + _e[0], _e[1], _e[2])
board.run_until(board.clock.elapsed_us + 2000000)
"""


@pytest.mark.parametrize("value", ["null", "[", '{"pads":9,"flat":"yes"}', '{"pads":"4"}', '"4"'])
def test_bad_layout_settings_are_left_out(browser, site, value):
    plant(browser, site, value, key="speedref-prefs")
    open_page(browser, site + "#sw=0")
    assert visible_pads(browser) == ["P1", "P2"]
    assert browser.find_element("id", "table").get_attribute("class") == "upright pads-2"
    assert_usable(browser)


def test_check_wiring_is_the_simulators_screen(browser, site):
    """The menu's "Check wiring" on the page: the touches' own timestamps
    time a pad's chatter (2 ms of it) as the pins' capture does on a board,
    and the canvas is the simulator's frame after the same presses."""
    open_page(browser, site + "#sw=0")
    t = board_ms(browser) + 100
    tap(browser, 6, t)        # OK: the game list
    tap(browser, 4, t + 200)  # UP: round to its last row
    tap(browser, 6, t + 400)  # OK: Check wiring
    wait(browser, lambda: py(browser, "type(board.app.screen).__name__") == "WiringCheck", "Check wiring", 30)
    # a second ahead: all five touches reach the page before its board's
    # loop passes their instants, even on a busy machine
    t = int(board_ms(browser)) + 1000
    for i, dt in enumerate((0, 0.5, 1, 1.5, 2)):
        touch(browser, 0, "pointerdown" if i % 2 == 0 else "pointerup", t + dt, 1)
    touch(browser, 0, "pointerup", t + 300, 1)
    wait_board(browser, t + 400)
    assert py(browser, "board.app.screen.pad_line(0)") == "P1 2.0/2.0 ms"
    from sim.board import Board
    b = Board()
    try:
        b.step()
        for k, button in enumerate((6, 4, 6)):
            b.event(100000 + 200000 * k, button, True)
            b.event(160000 + 200000 * k, button, False)
        for i, dt in enumerate((0, 500, 1000, 1500, 2000)):
            b.event(1000000 + dt, 0, i % 2 == 0)
        b.event(1300000, 0, False)
        b.run_until(1500000)
        expect = b.screen()
    finally:
        b.close()
    wait(browser, lambda: canvas_bits(browser) == expect, "the simulator's Check wiring screen", 30)
