"""From every table to the standings, each game exactly once.

Games are played everywhere a game can be played: in the simulator (a
committed script into a --store, computer players with --table, and --play
with a scripted person at the play terminal), in the web page (headless
Chromium: the committed scripts on its live board, then its "record JSON"
and "log" downloads), on the emulated Pico (two games on one flash, then a
copy of that flash), and on an emulated Pico whose flash was wiped between
its games (a fresh filesystem: its numbering starts again).  The board
plays the partners script, the shortest (4.6 s of board time, ~25 s of
emulation; Spit's 80 s take minutes), the same game each time: three
records alike but for their ids, two of them numbered 1.  Everything is
brought in with `speedref-results import`, then `speedref-results --json`
must count every game played once, and the database must hold each record
once.  Needs the board images and Chromium (markers board and web)."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from speedref.engine import records

from host_tools.club import people, standings

# the web page's fixtures and helpers, and the scripted person at the Spit play terminal
from test_web import browser, site, log_lines, open_page, plant, stored, wait  # noqa: F401
from test_sim_spit_person import SpitPerson

pytestmark = [pytest.mark.board, pytest.mark.web]

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SCRIPTS = ROOT / "tests" / "sim_scripts"


def ends(lines):
    return [o["record"] for o in lines if o.get("ev") == "game_end"]


def sim_script(script, store):
    """speedref-sim --script FILE --json --store DIR: (the log's lines as text, game_end records)."""
    r = subprocess.run([str(BIN / "speedref-sim"), "--script", str(SCRIPTS / script), "--json",
                        "--store", str(store)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    return r.stdout, ends(json.loads(l) for l in r.stdout.splitlines())


def sim_table(game, games, seed, store):
    r = subprocess.run([str(BIN / "speedref-sim"), "--table", game, "--games", str(games), "--seed", str(seed),
                        "--store", str(store)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


def sim_play_spit(seed, store):
    """speedref-sim --play spit --store DIR with a scripted person at its terminal:
    the game's record."""
    from sim.table.spit_person import SpitPlay, terminal_class
    cls, _ = terminal_class()
    tb = SpitPlay(seed, realtime=False, pace="fast", store=str(store))
    try:
        tb.start()
        term = cls(tb, 500000, 150000)
        person = SpitPerson(tb, term, random.Random(seed))
        tb.at(tb.t + 100000, person.tick)
        tb.run(lambda: tb.done, limit_us=3 * 3600 * 1000000)
        return [o["record"] for _, o in tb.lines if o.get("ev") == "game_end"]
    finally:
        tb.close()


PLAY_ON_PAGE = """
from sim import script as _s
_t = board.clock.elapsed_us + 1000
board.run_until(_t)
board.start_game(_game)
for _e in _s.parse(_script):
    board.edge(_t + _e[0], _e[1], _e[2])
board.run_until(board.clock.elapsed_us + 2000000)
"""


def web_games(drv, site_url, scripts, out):
    """The scripts played one after another on the page's live board, in one
    browser profile; then its "record JSON" (the last game), "log" and
    "records" (every record on its flash) downloads, moved into out.  Returns (paths, game_end records)."""
    plant(drv, site_url, None)
    open_page(drv, site_url + "#sw=0")
    for f in list(drv.downloads.glob("speedref-*")):
        f.unlink()
    played = []
    for game, script in scripts:
        drv.execute_script("window.speedref.mp.globals.set('_script', arguments[0])", (SCRIPTS / script).read_text())
        drv.execute_script("window.speedref.mp.globals.set('_game', arguments[0])", game)
        drv.execute_script("window.speedref.mp.runPython(arguments[0])", PLAY_ON_PAGE)
        played = wait(drv, lambda: ends(log_lines(drv)) if len(ends(log_lines(drv))) > len(played) else None,
                      "the %s game's end on the page" % game, 60)
    wait(drv, lambda: (stored(drv) or "").count("rec/") >= len(scripts), "the records saved", 30)
    drv.find_element("id", "record").click()
    rec_file = wait(drv, lambda: list(drv.downloads.glob("speedref-*.json")), "the record download", 30)[0]
    drv.find_element("id", "logbutton").click()
    drv.find_element("id", "logfile").click()
    log_file = wait(drv, lambda: list(drv.downloads.glob("speedref-log.jsonl")), "the log download", 30)[0]
    drv.find_element("id", "records").click()
    all_file = wait(drv, lambda: list(drv.downloads.glob("speedref-records.jsonl")), "the records download", 30)[0]
    paths = []
    for f in (rec_file, log_file, all_file):
        dest = out / f.name
        dest.write_bytes(f.read_bytes())
        paths.append(dest)
    assert json.loads(paths[0].read_text()) == played[-1]
    return paths, played


def pico_game(script, flash_files=None):
    """One committed script on the emulated Pico (the stock rp2 firmware with
    speedref installed), on a flash holding flash_files (the /data files of an
    earlier game) or a fresh one.  Returns (log bytes as the USB sends them,
    the game_end records, the flash's /data files after the game)."""
    from emu import fs as emu_fs
    from emu import referee
    from sim.__main__ import load_script
    game, _, events = load_script(str(SCRIPTS / script))
    ref, volume = referee.run_script(events, game=game, store_files=flash_files)
    data = b"".join(json.dumps(o).encode() + b"\r\n" for o in ref.lines)
    files = dict((p, b) for p, b in emu_fs.files(volume).items() if p.startswith("/data/"))
    return data, ends(ref.lines), files


def write_files(files, root):
    for path, data in files.items():
        dest = root / path.strip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)


@pytest.mark.long
def test_every_game_from_every_table_reaches_the_standings_exactly_once(tmp_path, browser, site):  # noqa: F811
    from emu import images
    why = images.why_missing()
    if why:
        pytest.skip("board images missing: " + why)
    played, paths = [], []
    # the simulator: two scripts into one store (its log captured too), the
    # computer players' table, and a person at the play terminal
    logs = []
    for script in ("speed.txt", "spit.txt"):
        text, recs = sim_script(script, tmp_path / "sim-script")
        played += recs
        logs.append(text)
    (tmp_path / "sim-script.log").write_text("".join(logs))
    paths += [tmp_path / "sim-script", tmp_path / "sim-script.log"]
    sim_table("spit", 2, 7, tmp_path / "sim-table")
    table_recs = [r for r in _store_records(tmp_path / "sim-table")]
    assert len(table_recs) == 2
    played += table_recs
    paths.append(tmp_path / "sim-table")
    played += sim_play_spit(3, tmp_path / "sim-play")
    paths.append(tmp_path / "sim-play")
    # the web page: Speed then Spit on its live board
    web_paths, web_recs = web_games(browser, site, [("speed", "speed.txt"), ("spit", "spit.txt")], tmp_path)
    played += web_recs
    paths += web_paths
    # the emulated Pico: two games on the same flash; its USB log and a copy of its flash
    log1, recs1, flash1 = pico_game("partners.txt")
    log2, recs2, flash2 = pico_game("partners.txt", flash1)
    played += recs1 + recs2
    (tmp_path / "pico.log").write_bytes(log1 + log2)
    write_files(flash2, tmp_path / "pico-flash")
    paths += [tmp_path / "pico.log", tmp_path / "pico-flash" / "data"]
    # the same board wiped between games (a fresh filesystem), then the same
    # game played again: the same cards, the same entries, numbered 1 again
    log3, recs3, _ = pico_game("partners.txt")
    played += recs3
    (tmp_path / "pico-wiped.log").write_bytes(log3)
    paths.append(tmp_path / "pico-wiped.log")
    assert len(played) == 10
    # (a wiped flash is a new store: a new install id, so a new default table name)
    unnumbered = lambda rec: dict(rec, id=None, table=None)   # noqa: E731
    assert unnumbered(recs3[0]) == unnumbered(recs2[0]) == unnumbered(recs1[0])  # the same game each time
    assert recs3[0]["id"].endswith("-1") and recs1[0]["id"].endswith("-1")

    db = tmp_path / "club.db"
    r = subprocess.run([str(BIN / "speedref-results"), "import"] + [str(p) for p in paths] + ["--db", str(db)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    again = subprocess.run([str(BIN / "speedref-results"), "import"] + [str(p) for p in paths] + ["--db", str(db)],
                           capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert again.returncode == 0 and "0 new game records" in again.stdout.splitlines()[-1], again.stdout

    import sqlite3
    con = sqlite3.connect(db)
    stored_recs = [json.loads(t) for (t,) in con.execute("SELECT record FROM games ORDER BY id")]
    con.close()
    canon = lambda rec: json.dumps(rec, sort_keys=True)   # noqa: E731
    lost = [rec["id"] for rec in played if canon(rec) not in set(map(canon, stored_recs))]
    assert lost == [], "games played but not in the database (SP-24: ids unique across wipes)"
    assert sorted(map(canon, stored_recs)) == sorted(map(canon, played))     # each game once
    assert len(set(rec["id"] for rec in played)) == len(played), "every game its own id"

    r = subprocess.run([str(BIN / "speedref-results"), "--db", str(db), "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = dict(((x["game"], x["player"]), (x["games"], x["wins"])) for x in json.loads(r.stdout)["standings"])
    want = {}
    for rec in played:
        s = records.summary(rec)
        for seat, name in enumerate(s["players"]):
            # seats nobody named (P1..P4) are one "(unnamed seats)" row, a seat at a time
            name = standings.UNNAMED if people.unnamed(name) else name
            games, wins = want.get((rec["game"], name), (0, 0))
            want[(rec["game"], name)] = (games + 1, wins + (seat in s["winners"] and records.counts_as_win(s)))
    assert got == want
    assert sum(g for (game, _), (g, _) in got.items() if game == "spit") == 2 * 5   # 5 Spit games, 2 players each
    assert sum(g for (game, _), (g, _) in got.items() if game == "partners") == 4 * 3  # the board's 3, 4 players each


def _store_records(store):
    from speedref import storage
    out = []
    for f in sorted((Path(store) / "rec").glob("*.json")):
        status, rec = storage.decode(f.read_bytes())
        assert status == storage.OK
        out.append(rec)
    return out
