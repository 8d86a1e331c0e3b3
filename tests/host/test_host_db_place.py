"""Where the results database lives: one documented place by default
($SPEEDREF_DB, else the user's data folder), and a read-only command given a
database that does not exist says so and exits 2, creating nothing."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from host_fixtures import speed_single
from host_tools.club import db as dbmod
from log_pty import run_log

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def clean_env(tmp_path, **extra):
    env = dict(os.environ, HOME=str(tmp_path / "home"))
    for k in ("SPEEDREF_DB", "XDG_DATA_HOME"):
        env.pop(k, None)
    env.update(extra)
    return env


def tool(name, args, env, cwd):
    r = subprocess.run([str(BIN / name)] + args, capture_output=True, text=True, env=env, cwd=cwd)
    assert "Traceback" not in r.stderr, r.stderr
    return r


@pytest.mark.parametrize("cmd", [["speedref-results"], ["speedref-results", "--json"],
                                 ["speedref-results", "--csv", "out.csv"],
                                 ["speedref-score", "--id", "1"]])
def test_a_read_only_command_on_a_database_that_does_not_exist_exits_2_creating_nothing(tmp_path, cmd):
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(tmp_path)
    r = tool(cmd[0], cmd[1:] + ["--db", "typo.db"], env, work)
    assert r.returncode == 2 and "typo.db" in r.stderr and "no results database" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert list(work.iterdir()) == [] and not (tmp_path / "home").exists()


def test_without_db_the_default_place_is_used_and_nothing_is_left_in_the_current_folder(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(tmp_path)
    want = tmp_path / "home" / ".local" / "share" / "speedref" / "results.db"
    r = tool("speedref-results", [], env, work)
    assert r.returncode == 2 and str(want) in r.stderr and "speedref-results import" in r.stderr
    rc, out, err = run_log(None, (json.dumps({"ev": "game_end", "record": speed_single(ident="d1")}) + "\n").encode(),
                           env=env, cwd=work, until=lambda out: "stored as #" in out)
    assert rc == 0 and want.exists(), err
    r = tool("speedref-results", ["--json"], env, work)
    assert r.returncode == 0 and {x["player"] for x in json.loads(r.stdout)["standings"]} == {"Ann", "Bob"}
    r = tool("speedref-score", ["--id", "d1"], env, work)
    assert r.returncode == 0 and "record d1" in r.stdout
    assert list(work.iterdir()) == []


def test_the_default_place_follows_speedref_db_then_xdg_data_home(tmp_path):
    home = str(tmp_path / "home")
    assert dbmod.default_path({"HOME": home}) == os.path.join(home, ".local", "share", "speedref", "results.db")
    assert dbmod.default_path({"HOME": home, "XDG_DATA_HOME": "/data"}) == "/data/speedref/results.db"
    assert dbmod.default_path({"HOME": home, "XDG_DATA_HOME": "rel"}) == \
        os.path.join(home, ".local", "share", "speedref", "results.db")     # XDG: a relative path is ignored
    assert dbmod.default_path({"HOME": home, "XDG_DATA_HOME": "/data", "SPEEDREF_DB": "/x/club.db"}) == "/x/club.db"
    env = clean_env(tmp_path, SPEEDREF_DB=str(tmp_path / "club.db"))
    r = tool("speedref-results", ["import", str(ROOT / "tests" / "golden" / "nope.json")], env, tmp_path)
    assert r.returncode == 2
    f = tmp_path / "one.json"
    f.write_text(json.dumps(speed_single(ident="c1")))
    r = tool("speedref-results", ["import", str(f)], env, tmp_path)
    assert r.returncode == 0 and (tmp_path / "club.db").exists(), r.stderr


def test_help_names_the_default_place(tmp_path):
    env = clean_env(tmp_path, SPEEDREF_DB=str(tmp_path / "club.db"))
    for name in ("speedref-results", "speedref-log", "speedref-score"):
        r = tool(name, ["--help"], env, tmp_path)
        assert "SPEEDREF_DB" in " ".join(r.stdout.split()), (name, r.stdout)
