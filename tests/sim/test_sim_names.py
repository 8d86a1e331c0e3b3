"""speedref-sim --names and --table-name, speedref-emu --names: the players'
names and the table's name into every game a run starts, each checked as the
board checks a name (speedref/names.py); a bad one is one line and exit 2."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
SCRIPTS = Path(__file__).resolve().parents[1] / "sim_scripts"


def sim(*args):
    return subprocess.run([str(BIN / "speedref-sim")] + list(args), capture_output=True, text=True,
                          timeout=300)


def records(out):
    return [json.loads(l)["record"] for l in out.splitlines() if '"game_end"' in l]


def test_a_script_plays_with_the_names_and_the_table_name_SP35():
    r = sim("--script", str(SCRIPTS / "speed_3p.txt"), "--json", "--names", "Ann, Bob ,Guest",
            "--table-name", "Club 9")
    assert r.returncode == 0, r.stderr
    rec, = records(r.stdout)
    assert rec["players"] == ["Ann", "Bob", "P3"] and rec["table"] == "Club 9"
    # the same game as without names: the deals are the players' (SP-35), not their names'
    plain = sim("--script", str(SCRIPTS / "speed_3p.txt"), "--json")
    other, = records(plain.stdout)
    assert other["players"] == ["P1", "P2", "P3"] and other["table"].startswith("Table ")
    assert other["deals"] == rec["deals"]


def test_accented_names_are_names_and_a_decomposed_one_is_composed():
    """Zo\u00eb and Jos\u00e9 as a club writes them; "Jose" with a combining
    acute (as some files spell it) is the same Jos\u00e9 in the record (NFC)."""
    import unicodedata
    r = sim("--script", str(SCRIPTS / "spit.txt"), "--json", "--names",
            "Zo\u00eb," + unicodedata.normalize("NFD", "Jos\u00e9"), "--table-name", "T\u00e1bla 3")
    assert r.returncode == 0, r.stderr
    rec, = records(r.stdout)
    assert rec["players"] == ["Zo\u00eb", "Jos\u00e9"] and rec["table"] == "T\u00e1bla 3"


def test_the_computer_players_table_keeps_the_names_in_its_store(tmp_path):
    r = sim("--table", "spit", "--games", "2", "--seed", "3", "--names", "Ann,Bob", "--store", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    from speedref.storage import Store
    recs = Store(str(tmp_path)).records()
    assert len(recs) == 2 and all(x["players"] == ["Ann", "Bob"] for x in recs)
    assert len({x["table"] for x in recs}) == 1  # the store's own default, the same for both


@pytest.mark.parametrize("args, why", [
    (["--names", "Ann,ann"], "--names: ann is playing already: one seat each"),
    (["--names", "Ann,\u0416enya"], "character U+0416 cannot be shown on the board"),
    (["--names", "Ann,\x1b[2J"], "character U+001B"),
    (["--names", "Ann,"], "--names: empty name"),
    (["--names", "Ann,Bob,Cat"], "--names: 3 names, but Spit seats 2 players"),
    (["--names", "Ann,Bob", "--seats", "3"], "--names: 2 names for --seats 3"),
    (["--names", "Ann"], "--names: 1 name, but Spit seats 2 players"),
    (["--names", "Ann", "--seats", "2"], "--names: 1 name for --seats 2"),
    (["--table-name", "x" * 17], "--table-name: table name"),
])
def test_bad_names_are_refused_before_anything_runs(args, why):
    r = sim("--script", str(SCRIPTS / "spit.txt"), *args)
    assert r.returncode == 2 and why in r.stderr, r.stderr
    assert "\x1b" not in r.stderr and r.stdout == ""


def test_speedref_emu_checks_its_names_before_the_board_boots():
    r = subprocess.run([str(BIN / "speedref-emu"), "--script", str(SCRIPTS / "partners.txt"),
                        "--names", "Ann,Bob"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--names: 2 names do not seat" in r.stderr, r.stderr


def test_speedref_emu_checks_its_names_even_on_a_machine_without_the_board_images(tmp_path):
    # The script and its options are the user's to mend, whatever the machine
    # lacks: told first, in one line; only then what the emulated board needs.
    import os
    env = dict(os.environ, SPEEDREF_PICO_DIR=str(tmp_path))  # no images there
    emu = [str(BIN / "speedref-emu"), "--script", str(SCRIPTS / "partners.txt")]
    r = subprocess.run(emu + ["--names", "Ann,Bob"], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 2 and r.stderr.splitlines() == [
        "speedref-emu: --names: 2 names do not seat this script's game (partners)"], r.stderr
    r = subprocess.run(emu + ["--names", "Ann,Bob,Cy,Di"], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and str(tmp_path) in r.stderr, r.stderr
