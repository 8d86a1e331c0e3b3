"""README.md's commands work as written: every command it quotes (in its code
blocks, in a code line's comment, and in backticks in its prose) is run with
its own options, far enough to show they are accepted: to the end where it
ends by itself (a script, an import, a page), in a real terminal (tmux, 80x24:
a default window) for the terminal modes, for a few seconds for what runs
until stopped (a server, the window, 100 computer games), and against no
board or an unreachable broker for what needs one (the answer is then the
tool's own line about the board, never argparse refusing an option).

Placeholders in the README's commands (PATH..., HOST, FILE, game.json,
club.txt) are given real files here, made by the simulator; every command runs
in a temporary folder with its own results database (SPEEDREF_DB) and HOME, so
nothing of the developer's is read or written."""
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```")


def scripts():
    """The installed tools' names (pyproject.toml's [project.scripts])."""
    text = (ROOT / "pyproject.toml").read_text()
    block = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return set(re.findall(r"^(speedref-[a-z]+)\s*=", block, re.M))


def _command(text):
    """`text` if it starts with a tool (or make), else None."""
    words = text.split()
    if not words:
        return None
    first = words[0][len(".venv/bin/"):] if words[0].startswith(".venv/bin/") else words[0]
    if first in scripts() or (first == "make" and len(words) > 1):
        return text.strip()
    return None


def readme_commands():
    """Every command README.md quotes: in a code block (the part before its
    comment, and one in parentheses in the comment), and in backticks in
    the prose."""
    out = []
    fenced = False
    prose = []   # the paragraph so far: a quote may run over a line's end

    def paragraph():
        for text in re.findall(r"`([^`]+)`", " ".join(prose)):
            c = _command(text)
            if c:
                out.append(c)
        del prose[:]

    for line in README.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.strip()):
            paragraph()
            fenced = not fenced
            continue
        if fenced:
            code, _, comment = line.partition("#")
            for text in [code] + re.findall(r"\(([^(),]+)", comment):
                c = _command(text)
                if c:
                    out.append(c)
        elif line.strip():
            prose.append(line.strip())
        else:
            paragraph()
    paragraph()
    return out


# How each command is run, and what shows it accepted its options.
#   ("ends", must_print): runs to its end, exit 0, printing must_print
#   ("terminal", shows, quit keys): in tmux at 80x24 until it shows `shows`, then quit
#   ("runs", shows, seconds): still running after `seconds`, or ended with exit 0
#       (`shows`, if any, printed on the way), then stopped
#   ("no board", says): ends at once with the tool's own line `says`
#   ("dry run", why): a make target this test cannot run (why): make -n shows
#       make has the target and every recipe it needs, and runs none of them
COMMANDS = {
    "make sim": ("terminal", "quit [q]", ["q"]),
    "make test": ("dry run", "the whole suite, this test among it"),
    "make quick": ("dry run", "most of the suite, this test among it"),
    "make mutate": ("dry run", "mutation testing: twenty minutes of the whole machine"),
    "make bench": ("dry run", "every benchmark: minutes of the machine, and a board for some"),
    "make flash": ("dry run", "needs a board on USB (speedref-flash's own options are run below)"),
    "make web-serve": ("runs", "200", 60),
    "speedref-roster push club.txt": ("no board", "no board found"),
    'speedref-roster --table-name "Table 3"': ("no board", "no board found"),
    "speedref-sim --names Ann,Bob": ("terminal", "quit [q]", ["q"]),
    "speedref-sim --roster club.txt": ("terminal", "ROSTER", ["q"]),
    ".venv/bin/speedref-sim --play speed --seats 4": ("terminal", "q q   quit", ["q", "q"]),
    ".venv/bin/speedref-sim --window": ("runs", None, 8),
    ".venv/bin/speedref-sim --table speed --games 100 --seed 1": ("runs", "agreements 100, disagreements 0", 15),
    ".venv/bin/speedref-sim --script tests/sim_scripts/speed.txt --json": ("ends", '"ev": "game_end"'),
    "speedref-log": ("runs", "waiting for a board", 60),
    "speedref-results": ("ends", "game"),
    ".venv/bin/speedref-log": ("runs", "waiting for a board", 60),
    ".venv/bin/speedref-log --mqtt mqtt://HOST": ("no board", "cannot reach"),
    "speedref-log --mqtt mqtt://HOST": ("no board", "cannot reach"),
    "speedref-log --mqtt mqtt://HOST --league": ("no board", "cannot reach"),
    "speedref-roster match": ("no board", "no board found"),
    "speedref-results --club riverside": ("no board", "no game of club 'riverside' in the database"),
    "speedref-flash --uplink FILE": ("no board", "no MicroPython board found"),
    ".venv/bin/speedref-results import PATH...": ("ends", "new game record"),
    ".venv/bin/speedref-results ratings": ("ends", "spit: 1 game rated"),
    ".venv/bin/speedref-results --html results.html": ("ends", ""),
    ".venv/bin/speedref-results --serve": ("runs", "200", 30),
    ".venv/bin/speedref-score game.json": ("ends", "Spit"),
    "speedref-club": ("ends", "evening #1 Thursday club"),
    ".venv/bin/speedref-club pair --game speed": ("ends", "round 1: Speed, 2 seats"),
    "speedref-results --serve --host 0.0.0.0": ("runs", "200", 30),
}


def test_every_command_the_readme_quotes_is_here():
    found = readme_commands()
    assert "speedref-sim --names Ann,Bob" in found                 # prose
    assert "speedref-flash --uplink FILE" in found                 # a code line's comment
    assert ".venv/bin/speedref-score game.json" in found           # a code block
    missing = sorted(set(found) - set(COMMANDS))
    assert not missing, "README commands this test does not run yet: %s" % missing
    gone = sorted(set(COMMANDS) - set(found))
    assert not gone, "commands no longer in README.md: %s" % gone


# ---- the world the commands run in -------------------------------------------------------
def port_free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A folder to run in, a results database, and the files the
    placeholders stand for: a simulator store with a Spit game (PATH...),
    its record (game.json), a roster (club.txt), uplink settings (FILE)."""
    tmp = tmp_path_factory.mktemp("readme")
    home = tmp / "home"
    home.mkdir()
    env = dict(os.environ, SPEEDREF_DB=str(tmp / "results.db"), HOME=str(home))
    env.pop("WEB_PORT", None)
    for k in ("LINES", "COLUMNS", "DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(k, None)
    store = tmp / "flash"
    r = subprocess.run([str(BIN / "speedref-sim"), "--script", str(ROOT / "tests" / "sim_scripts" / "spit.txt"),
                        "--store", str(store), "--names", "Ann,Bob"], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    from speedref.storage import Store
    rec = Store(str(store)).records()[0]
    (tmp / "game.json").write_text(json.dumps(rec))
    (tmp / "club.txt").write_text("# the club\nAnn\nBob\nCy\n")
    (tmp / "uplink.json").write_text(json.dumps({"ssid": "ClubNet", "wifi_password": "secret1234",
                                                 "broker": "192.168.1.10", "port": 1883}))
    places = {"PATH...": str(store), "club.txt": str(tmp / "club.txt"), "HOST": "127.0.0.1:%d" % closed_port(), "FILE": str(tmp / "uplink.json")}
    # the standings the results commands show: the store imported once
    r = subprocess.run([str(BIN / "speedref-results"), "import", str(store)], capture_output=True, text=True,
                       timeout=300, env=env, cwd=tmp)
    assert r.returncode == 0, r.stderr
    # a club night started, as the README's speedref-club line says: start NAME, checkin --everyone
    for args in (["start", "Thursday club", "--roster", str(tmp / "club.txt")], ["checkin", "--everyone"]):
        r = subprocess.run([str(BIN / "speedref-club")] + args, capture_output=True, text=True, timeout=300,
                           env=env, cwd=tmp)
        assert r.returncode == 0, r.stderr
    return {"tmp": tmp, "env": env, "places": places}


def argv_of(command, world):
    """The command's words as the shell reads them, its placeholders given
    their files, the tools and the repository's files by their paths."""
    out = []
    for w in shlex.split(command):
        if w.startswith(".venv/bin/"):
            w = str(BIN / w[len(".venv/bin/"):])
        elif w in scripts():
            w = str(BIN / w)
        elif w in world["places"]:
            w = world["places"][w]
        elif w.startswith("mqtt://") and w[7:] in world["places"]:
            w = "mqtt://" + world["places"][w[7:]]
        elif "/" in w and (ROOT / w).exists():
            w = str(ROOT / w)
        out.append(w)
    if out[0] == "make":
        out[1:1] = ["-s", "-C", str(ROOT)]
    return out


def refused_by_argparse(stderr):
    return bool(re.search(r"^usage: ", stderr, re.M) and re.search(r": error: ", stderr))


def _ends(argv, world, must_print):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=world["env"], cwd=world["tmp"])
    assert not refused_by_argparse(r.stderr), r.stderr
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert must_print in r.stdout + r.stderr, r.stdout[-2000:]
    return r


def _no_board(argv, world, says):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=world["env"], cwd=world["tmp"])
    assert not refused_by_argparse(r.stderr), r.stderr
    assert says in r.stderr + r.stdout and r.returncode in (1, 2), (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr


def _fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as f:
            return f.status
    except OSError:
        return None


def _runs(argv, world, shows, seconds, command):
    env = dict(world["env"])
    url = None
    if "--window" in argv:
        env["SDL_VIDEODRIVER"] = "dummy"   # a window with no display to show it on
    # the servers on their default ports, as written; on another free one
    # when that is taken (by another program on this machine)
    if command == "make web-serve":
        port = 8000
        if not port_free(port):
            port = env["WEB_PORT"] = str(closed_port())   # the Makefile's WEB_PORT=...
        url = "http://127.0.0.1:%s/" % port
    if "--serve" in argv:
        port = 8080
        if not port_free(port):
            port = closed_port()
            argv = argv + ["--port", str(port)]
        url = "http://127.0.0.1:%s/" % port
    out = world["tmp"] / ("out-%d.txt" % abs(hash(command)))
    with open(out, "w") as f:
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=world["tmp"],
                             start_new_session=True)
    try:
        end = time.monotonic() + seconds
        served = None
        while time.monotonic() < end and p.poll() is None:
            if url and served is None:
                served = _fetch(url)
                if served == 200:
                    break
            elif shows and shows in out.read_text():
                break
            time.sleep(0.2)
        text = out.read_text()
        assert not refused_by_argparse(text), text
        if p.poll() is not None:
            assert p.returncode == 0, text[-2000:]
        if url:
            assert served == 200, text[-2000:]
        elif shows and p.poll() is not None:
            assert shows in text, text[-2000:]
        elif shows == "waiting for a board":
            assert shows in text, text[-2000:]
        assert "Traceback" not in text, text
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)   # the group this test started: the tool and its children
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)


def _terminal(argv, world, shows, keys):
    if shutil.which("tmux") is None:
        pytest.skip("needs tmux")
    from test_sim_tui import Tmux
    env = world["env"]
    cmd = "cd %s && env -u LINES -u COLUMNS SPEEDREF_DB=%s HOME=%s %s; echo CMD-EXITED $?; sleep 60" % (
        shlex.quote(str(world["tmp"])), shlex.quote(env["SPEEDREF_DB"]), shlex.quote(env["HOME"]),
        " ".join(shlex.quote(a) for a in argv))
    t = Tmux(cmd, width=80, height=24)
    try:
        s = t.wait_for(shows, timeout=60)
        assert "too small" not in s and "usage:" not in s
        for k in keys:
            t.keys(k)
            time.sleep(0.5)
        s = t.wait_for("CMD-EXITED", timeout=30)
        assert "CMD-EXITED 0" in s, s
        assert "Traceback" not in s
    finally:
        t.close()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_readme_command_runs_as_written(command, world):
    how = COMMANDS[command]
    argv = argv_of(command, world)
    if how[0] == "dry run":
        r = subprocess.run(["make", "-n"] + argv[1:], capture_output=True, text=True, timeout=120,
                           env=world["env"], cwd=world["tmp"])
        assert r.returncode == 0 and "No rule" not in r.stderr, r.stderr
    elif how[0] == "ends":
        _ends(argv, world, how[1])
    elif how[0] == "no board":
        _no_board(argv, world, how[1])
    elif how[0] == "runs":
        _runs(argv, world, how[1], how[2], command)
    elif how[0] == "terminal":
        _terminal(argv, world, how[1], how[2])
    else:
        raise AssertionError(how)


def test_the_scan_keeps_the_commands_words_and_leaves_files_out(tmp_path):
    """A README file name like speedref-pico-RPI_PICO.uf2 is no command; a
    command's own quoting is kept for the shell's reading."""
    found = readme_commands()
    assert not [c for c in found if "uf2" in c]
    assert shlex.split('speedref-roster --table-name "Table 3"')[-1] == "Table 3"
    assert 'speedref-roster --table-name "Table 3"' in found
