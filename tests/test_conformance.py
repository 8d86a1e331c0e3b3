"""One conformance suite over the game registry (speedref/games.py): every
check of tests/conformance.py on every registered game, through the common
API only (the registry entry, the flow through the app, records.replay,
the card level's State, the game's sim script and golden playthrough).
A new game gets all of them by its registry entry and its own files
(docs/architecture.md, "Adding a game"); tests/test_dummy_game.py shows it.

The checks are the same for every game; the rules of a game a check stands
for are cited below with rule= (a game need not list any)."""
import pytest

import conformance as C
from speedref import games

RULES = {}


def cite(game, check, rule):
    """Rule `rule` of `game` is what `check` checks for it (named in its failures)."""
    RULES.setdefault((game, check.__name__), []).append(rule)


# the card level: its turn structure, every card in one place, its record
cite("speed", C.check_card_level, rule="SP-21")
cite("spit", C.check_card_level, rule="SPIT-16")
cite("speedrun", C.check_card_level, rule="SR-6")
cite("speedrun", C.check_card_level, rule="SR-12")
cite("speedrun", C.check_card_level, rule="SR-24")
cite("speedrun", C.check_card_level, rule="SR-29")
cite("partners", C.check_card_level, rule="PT-2")
cite("partners", C.check_card_level, rule="PT-10")
cite("partners", C.check_card_level, rule="PT-14")
cite("partners", C.check_card_level, rule="PT-18")
cite("partners", C.check_card_level, rule="PT-21")
# the golden playthroughs: same-instant plays, relayouts, the record
cite("speed", C.check_golden, rule="SP-13")
cite("spit", C.check_golden, rule="SPIT-12")
cite("speedrun", C.check_golden, rule="SR-29")
cite("partners", C.check_golden, rule="PT-21")
# a finished game is stored once, whatever the power does
for _g in games.IDS:
    cite(_g, C.check_power_cut, rule="SP-24")
    cite(_g, C.check_script, rule="SP-24")

CASES = [pytest.param(check, g, id="%s-%s" % (check.__name__[len("check_"):], g.id))
         for check in C.CHECKS for g in games.GAMES]


@pytest.mark.parametrize("check,g", CASES)
def test_every_game_conforms(check, g, tmp_path_factory):
    check(C.Subject(g), tmp_path_factory.mktemp(g.id), rules=RULES.get((g.id, check.__name__), ()))


def test_every_golden_transcript_belongs_to_a_registered_game():
    stems = [p.stem for p in (C.TESTS / "golden").glob("*.txt")]
    owned = set(p.stem for g in games.GAMES for p, _ in C.golden_cases(C.Subject(g)))
    assert sorted(set(stems) - owned) == []


def test_every_sim_script_is_a_registered_games():
    assert sorted(p.stem for p in (C.TESTS / "sim_scripts").glob("*.txt")) == sorted(games.IDS)
