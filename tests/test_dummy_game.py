"""A fifth game is one registry entry plus its own files.  Coin, a dummy
game (tests/dummy_game/: its rules, table level, card level, flow, the
simulator's table and person modules, sim script and golden playthrough),
is registered in a temporary registry: it passes the whole conformance
suite, the menu lists it, and records, the score sheet, the simulator, its
virtual table (--table) and its play mode (--play) all reach it through the
registry, with no shared module edited for it."""
import io
import json
from pathlib import Path

import pytest

import conformance as C
from speedref import games
from speedref.engine import records

HERE = Path(__file__).resolve().parent / "dummy_game"

COIN = games.Game("coin", "Coin", (2, 2), "CN", "coin", "point",
                  "dummy_game.coin", "dummy_game.coin_cards",
                  "dummy_game.coin_flow:CoinFlow", "dummy_game.coin_table:CoinTable",
                  (("target", "Target", (3, 5)),), {}, "dummy_game.coin_person", None, None)


@pytest.fixture
def coin(monkeypatch):
    """Coin registered after the real games, for this test only."""
    monkeypatch.setattr(games, "GAMES", games.GAMES + (COIN,))
    monkeypatch.setattr(games, "IDS", games.IDS + (COIN.id,))
    return C.Subject(COIN, script=HERE / "coin.txt", golden_dir=HERE / "golden",
                     playthrough="dummy_game.coin_golden", mpy_path=(C.TESTS,), rules_dir=HERE)


@pytest.mark.parametrize("check", C.CHECKS, ids=[c.__name__[len("check_"):] for c in C.CHECKS])
def test_the_dummy_game_passes_the_conformance_suite(coin, check, tmp_path):
    check(coin, tmp_path)


def test_records_and_the_score_sheet_dispatch_to_it(coin):
    rec = {"game": "coin", "players": ["Ann", "Bo"], "target": 3, "points": [1, 0, 1, 1]}
    sheet = records.replay(rec)
    assert sheet.totals == [1, 3] and sheet.winners() == [1] and sheet.to_record() == rec
    assert records.summary(rec)["over"] is True
    from host_tools.views import scoresheet
    assert scoresheet.sheet_text(rec, sheet, records.summary(rec)).startswith("Coin")
    with pytest.raises(records.RuleError) as e:
        records.replay(dict(rec, points=[1, 1, 1, 0]))
    assert e.value.rule == "CN-3"


def test_the_simulator_plays_its_script(coin, capsys):
    from sim.__main__ import main
    assert main(["--script", str(HERE / "coin.txt"), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    ends = [x["record"] for x in lines if x.get("ev") == "game_end"]
    assert [dict((k, v) for k, v in r.items() if k not in ("id", "table")) for r in ends] == [
        {"game": "coin", "players": ["P1", "P2"], "target": 3, "points": [0, 1, 0, 0]}]


def test_its_virtual_table_plays_through_the_shared_runner(coin):
    from sim.table import runner
    out = io.StringIO()
    s = runner.run("coin", 3, 7, out=out)
    assert s["games"] == 3 and s["disagreements"] == 0, out.getvalue()
    assert "coin table: games 3" in out.getvalue() and "points" in out.getvalue()


def test_the_menu_scrolls_to_it_and_back(coin, tmp_path):
    from app_rig import Rig
    from speedref.app.core import OK, DOWN
    r = Rig(str(tmp_path))
    r.tap(OK)
    titles = []
    for _ in range(len(games.GAMES) + 1):  # every game, then "Check wiring"
        titles.append([t for t in C.draw(r.app.screen).texts if t in [g.title for g in games.GAMES]])
        r.tap(DOWN)
    assert titles[0] == [g.title for g in games.GAMES][:5]
    assert "Coin" in titles[-1] and r.app.screen.cursor == 0


def test_a_person_plays_it_in_the_shared_play_mode(coin):
    """--play coin: the shared play mode (sim/table/person.py) finds its
    person module by the registry; you slap first every point and win 3-0."""
    from sim.__main__ import build_parser
    from sim.table import person
    from sim.tui import TerminalSim
    assert "coin" in person.play_games()
    mod = person.play_module("coin")
    cls, _ = mod.terminal_class()
    assert issubclass(cls, TerminalSim)
    live = mod.table(build_parser().parse_args(["--play", "coin", "--seed", "3"]))
    assert live.realtime and live.seats == 2
    live.close()
    tb = mod.CoinPlay(3, realtime=False)
    try:
        tb.start()
        f = tb.board.app.flow
        for _ in range(3):
            assert f.phase == 0
            tb.tap(tb.t, mod.HUMAN, 100000)  # your pad, well before the computer's reaction
            tb.advance(150000)
        tb.advance(1000000)
        assert f.phase == 1 and tb.panel()[1] == "Points: P1 P1 P1"
        tb.tap(tb.t, 6, 100000)  # OK: store it
        tb.advance(500000)
        got = [dict((k, v) for k, v in r.items() if k not in ("id", "table")) for r in tb.board.records()]
        assert got == [{"game": "coin", "players": ["P1", "P2"], "target": 3, "points": [0, 0, 0]}]
    finally:
        tb.close()
