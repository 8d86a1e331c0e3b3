"""The game registry (speedref/games.py): the one list of games, and the lazy
import that tells a game this device does not carry from a defect inside a
game's code."""
import sys

import pytest

import mpyrun
from app_rig import Rig
from speedref import games
from speedref.app import menu
from speedref.engine import records
from speedref.engine.errors import RuleError

ROOT = mpyrun.ROOT


def test_each_game_is_registered_once_with_its_own_rules_file():
    assert len(set(games.IDS)) == len(games.IDS)
    assert len(set(g.prefix for g in games.GAMES)) == len(games.GAMES)
    for g in games.GAMES:
        text = (ROOT / "seeds" / (g.rules + ".md")).read_text(encoding="utf-8")
        assert "**%s-1" % g.prefix in text, "%s: rule %s-1 is in seeds/%s.md" % (g.id, g.prefix, g.rules)
        assert 2 <= g.seats[0] <= g.seats[1] <= 4, "one slap pad per player, four pads"


def test_the_menu_lists_the_registry_in_its_order_with_its_options():
    s = menu.merge_settings({})
    assert s["game"] == games.IDS[0]
    for g in games.GAMES:
        assert menu.game_name(g.id) == g.title
        assert set(s[g.id]) == set(k for k, _, _ in g.options)
        for key, _, values in g.options:
            assert s[g.id][key] == g.defaults.get(key, values[0])


def test_an_unknown_game_in_a_record_is_refused_by_name():
    with pytest.raises(RuleError) as e:
        records.replay({"game": "chess"})
    assert e.value.rule == "REC-1" and "chess" in str(e.value) and "partners" in str(e.value)


def test_a_missing_module_is_a_missing_game(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(games.MissingGame):
        games.load("nosuchgame_flow:Flow")


def test_a_broken_import_inside_a_flow_is_not_hidden(tmp_path, monkeypatch):
    # a flow whose own import is mistyped must fail loudly, not show as
    # "not on this device yet"
    (tmp_path / "typo_flow.py").write_text("from speedref.engine import nosuchmodule\nclass Flow:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError) as e:
        games.load("typo_flow:Flow")
    assert not isinstance(e.value, games.MissingGame)
    sys.modules.pop("typo_flow", None)


def _with_entry(monkeypatch, flow):
    g = games.Game("dummy", "Dummy", (2, 2), "DU", "dummy", "deal", "speedref.engine.speed",
                   "speedref.engine.speed_cards", flow, "speed_table:SpeedTable", (), {}, None, None, None)
    monkeypatch.setattr(games, "GAMES", games.GAMES + (g,))
    monkeypatch.setattr(games, "IDS", games.IDS + ("dummy",))


def test_the_app_says_a_game_is_not_on_this_device(tmp_path, monkeypatch):
    _with_entry(monkeypatch, "nosuchgame_flow:Flow")
    rig = Rig(str(tmp_path))
    rig.app.start("dummy", rig.t, {})
    assert rig.app.flow is None
    assert rig.screen_name() == "Message"
    assert " ".join(rig.app.screen.lines) == "dummy is not on this device yet"


def test_the_app_does_not_hide_a_typo_in_a_flow(tmp_path, monkeypatch):
    # a flow outside speedref.app, named with its package (a dotted name)
    (tmp_path / "typo2pkg").mkdir()
    (tmp_path / "typo2pkg" / "__init__.py").write_text("")
    (tmp_path / "typo2pkg" / "typo2_flow.py").write_text("import speedref.engine.nosuchmodule\nclass Flow:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _with_entry(monkeypatch, "typo2pkg.typo2_flow:Flow")
    rig = Rig(str(tmp_path / "store"))
    with pytest.raises(ImportError) as e:
        rig.app.start("dummy", rig.t, {})
    assert not isinstance(e.value, games.MissingGame)
    sys.modules.pop("typo2pkg.typo2_flow", None)
    sys.modules.pop("typo2pkg", None)


def test_a_module_named_without_a_dot_is_in_its_fields_package():
    """Entries name their own modules short (heap on the board): a name
    without a dot is in the package its field names, a dotted one is itself."""
    assert games.module("speed_flow:SpeedFlow", "speedref.app") == "speedref.app.speed_flow"
    assert games.module("speed", "speedref.engine") == "speedref.engine.speed"
    assert games.module("speed_table:SpeedTable", "sim.table") == "sim.table.speed_table"
    assert games.module("sim.other:OtherTable", "sim.table") == "sim.other"
    assert games.module("dummy_game.coin_flow:CoinFlow", "speedref.app") == "dummy_game.coin_flow"
    assert games.module("typo_flow:Flow") == "typo_flow"
    assert games.load("speed_flow:SpeedFlow", "speedref.app").GAME == "speed"
    for g in games.GAMES:
        assert games.load(g.engine, "speedref.engine").__name__ == "speedref.engine." + g.id


MP_CHECK = """
import sys
sys.path.insert(0, %r)
from speedref import games
try:
    games.load("nosuchgame_flow:Flow")
    print("loaded")
except games.MissingGame:
    print("missing")
try:
    games.load("typo3_flow:Flow")
    print("loaded")
except games.MissingGame:
    print("missing")
except ImportError:
    print("defect")
print(games.load("speedref.engine.speed").__name__)
"""


def test_on_micropython_a_missing_game_and_a_typo_are_told_apart(tmp_path):
    (tmp_path / "typo3_flow.py").write_text("from speedref.engine import nosuchmodule\n")
    out = mpyrun.run(code=MP_CHECK % str(tmp_path)).stdout.split()
    assert out == ["missing", "defect", "speedref.engine.speed"]


def test_score_titles_and_units_come_from_the_registry():
    from host_tools.views import scoresheet
    from spit_golden import play
    rec = play(1)[1]
    text = scoresheet.sheet_text(rec, records.replay(rec), records.summary(rec))
    assert text.startswith(games.get("spit").title)
    assert "Round" in text
