"""The computer players' tables with the players named (speedref-sim --table
GAME --names ...): the table's own truth knows who sits where, so the app's
record (its "players", SP-35, SPIT-1, SR-1, PT-1) agrees with it, game after
game, and a record naming anyone else is a disagreement."""
import subprocess
import sys
from pathlib import Path

import pytest

from sim import board as sim_board
from sim.table import runner
from speedref import games as registry

BIN = Path(sys.executable).parent

# names for each game's seats: as many as its referee seats
NAMES = {"speed": ["Ann", "Bob"], "spit": ["Ann", "Bob"], "speedrun": ["Bob", "Cy", "Eve"],
         "partners": ["Ann", "Bob", "Cy", "Dee"]}


def test_every_registered_game_has_names_here():
    assert set(NAMES) == set(registry.IDS)


@pytest.mark.parametrize("game", sorted(NAMES))
def test_a_named_table_agrees_with_the_app_and_says_so_briefly(game, tmp_path):
    r = subprocess.run([str(BIN / "speedref-sim"), "--table", game, "--games", "2", "--seed", "1",
                        "--names", ",".join(NAMES[game]), "--store", str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[:2000] + r.stderr
    assert "agreements 2, disagreements 0" in r.stdout and "DISAGREES" not in r.stdout, r.stdout[:2000]
    from speedref.storage import Store
    recs = Store(str(tmp_path)).records()
    assert [x["players"] for x in recs] == [NAMES[game]] * 2


@pytest.mark.parametrize("game", sorted(NAMES))
def test_the_tables_truth_holds_the_names_and_catches_a_record_naming_others(game, monkeypatch):
    names = NAMES[game]
    monkeypatch.setitem(sim_board.NAMED, "names", list(names))
    kw = runner.seat_choice(game, len(names))
    tb, bad = runner.play_game(game, 5, 0, **kw)
    assert bad == []
    assert tb.player_names() == names
    assert tb.record["players"] == names
    # the same game, its record naming the seats P1..Pn: the truth says no
    tb.record = dict(tb.record, players=["P%d" % (i + 1) for i in range(len(names))])
    tb.stored = [tb.record]
    assert any("record" in why for why in tb.compare()), tb.compare()


@pytest.mark.parametrize("game", sorted(NAMES))
def test_an_unnamed_table_names_its_seats_by_their_labels(game):
    tb, bad = runner.play_game(game, 6, 0)
    assert bad == []
    assert tb.record["players"] == tb.player_names() == ["P%d" % (i + 1) for i in range(tb.seats)]
