"""A club's evening in a results database, for the results page's tests and
the README's picture of it.  No tests here.

Every game is a committed sim script (tests/sim_scripts/*.txt) played by
`speedref-sim --script FILE --json`: the device's own log lines, slap
verdicts and all.  Three boards ("tables") play them with different people
seated: each board's lines get its players' names and its own record ids
("<unique_id>-<seq>", as a board numbers them), and go into the database
through speedref-log's line core (host_tools.intake.lines.LineCore), the path a
board's USB log takes.
"""
import json
import subprocess
import sys
from pathlib import Path

from host_tools.club.db import ResultsDB
from host_tools.intake.lines import LineCore

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "tests" / "sim_scripts"

# board -> the games played at it, in order, each with who sat where
EVENING = {
    "e6614103e7a52b21": [("speed", ["Ann", "Bob"]), ("speed", ["Ann", "Cat"]), ("spit", ["Bob", "Ann"]),
                         ("speed", ["Bob", "Ann"]), ("partners", ["Ann", "Bob", "Cat", "Dan"])],
    "e6614c311b8d2a2f": [("speedrun", ["Bob", "Cat", "Ann"]), ("spit", ["Cat", "Dan"]),
                         ("speed", ["Ann", "Dan"]), ("speedrun", ["Dan", "Ann", "Cat"])],
    "e66138b8a3404f30": [("speed", ["Dan", "Cat"]), ("partners", ["Dan", "Cat", "Bob", "Ann"]),
                         ("spit", ["Ann", "Eve"]), ("speed", ["Eve", "Bob"]),
                         ("speedrun", ["Ann", "Eve", "Bob"])],
}

# Names and an id a device might send to get script into the page.
HOSTILE_NAMES = ['<script>alert("name")</script>', '"><img src=x onerror=alert(1)>',
                 "Zoë\u202eevil\n", "</svg><b>bold</b>"]
HOSTILE_DEVICE = "<i>dev</i>&amp;"


def script_lines(game, _cache={}):
    """The device's JSON log lines for the game's committed script."""
    if game not in _cache:
        out = subprocess.run([sys.executable, "-m", "sim", "--script", str(SCRIPTS / (game + ".txt")),
                              "--json"], cwd=str(ROOT), capture_output=True, text=True, check=True).stdout
        _cache[game] = [json.loads(s) for s in out.splitlines() if s.strip()]
    return _cache[game]


def board_lines(device, games, first_seq=1):
    """One board's log: each game's lines with the players seated and the
    board's record ids."""
    out = []
    for seq, (game, players) in enumerate(games, first_seq):
        for ev in script_lines(game):
            ev = json.loads(json.dumps(ev))
            if ev.get("ev") == "game_end":
                ev["record"]["players"] = list(players)
                ev["record"]["id"] = "%s-%d" % (device, seq)
                # a board's table is its device here: the script's own store's
                # table name would put every board at one table
                ev["record"].pop("table", None)
            out.append(ev)
    return out


def feed(db_path, lines):
    """Into the database as speedref-log stores a board's USB lines."""
    db = ResultsDB(db_path)
    try:
        core = LineCore(db, out=lambda t: None, err=lambda t: None)
        core.feed(b"".join(json.dumps(ev).encode("utf-8") + b"\n" for ev in lines))
    finally:
        db.close()
    return core


def make_evening(db_path, evening=EVENING):
    """The whole evening, every board's log; returns {device: [lines]}."""
    logs = dict((dev, board_lines(dev, games)) for dev, games in evening.items())
    for dev, lines in logs.items():
        core = feed(db_path, lines)
        assert core.stored == len(evening[dev]) and core.skipped == 0, (dev, core.stored, core.skipped)
    return logs


# 53 characters, as a person may type a full name on the web page
LONG_NAME = "Maximiliana Alexandrina Konstantinopoulou-Wetherspoon"


def make_long_name(db_path):
    """The evening, and a Speed game and a Spit game at one more table
    where one player's name is LONG_NAME."""
    logs = make_evening(db_path)
    lines = board_lines("longname", [("speed", [LONG_NAME, "Bob"]), ("spit", ["Ann", LONG_NAME])])
    core = feed(db_path, lines)
    assert core.stored == 2, core.stored
    logs["longname"] = lines
    return logs


def make_hostile(db_path):
    """Two games whose names and ids are markup (and control characters)."""
    lines = board_lines(HOSTILE_DEVICE, [("speed", HOSTILE_NAMES[:2]),
                                         ("partners", HOSTILE_NAMES)])
    core = feed(db_path, lines)
    assert core.stored == 2, core.stored
