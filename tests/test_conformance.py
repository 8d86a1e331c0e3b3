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

# the seat range is data (SP-27: Speed seats 2 to 4 players; SPIT-1 two; SR-1 three; PT-1 four)
cite("speed", C.check_seats, rule="SP-27")
cite("spit", C.check_seats, rule="SPIT-1")
cite("speedrun", C.check_seats, rule="SR-1")
cite("partners", C.check_seats, rule="PT-1")
# Speed at 3 and 4 players: the deck and layout, random play that ends, the goldens
cite("speed", C.check_card_level, rule="SP-28")
cite("speed", C.check_card_level, rule="SP-31")
cite("speed", C.check_golden, rule="SP-35")


def _id(check, g, n):
    name = "%s-%s" % (check.__name__[len("check_"):], g.id)
    return name if g.seats[0] == g.seats[1] else "%s-%dp" % (name, n)


CASES = [pytest.param(check, g, n, id=_id(check, g, n)) for g in games.GAMES for check, n in C.seated_checks(g)]


@pytest.mark.parametrize("check,g,seats", CASES)
def test_every_game_conforms(check, g, seats, tmp_path_factory):
    check(C.Subject(g, seats=seats), tmp_path_factory.mktemp(g.id),
          rules=RULES.get((g.id, check.__name__), ()))


def test_speed_runs_at_every_seat_count_of_its_range():
    g = games.get("speed")
    assert g.seats == (2, 4)
    for check in C.RULES:
        assert [n for c, n in C.seated_checks(g) if c is check] == [2, 3, 4], (check.__name__, "SP-27")


def test_every_golden_transcript_belongs_to_a_registered_game():
    stems = [p.stem for p in (C.TESTS / "golden").glob("*.txt")]
    owned = set(p.stem for g in games.GAMES for p, _ in C.golden_cases(C.Subject(g)))
    seated = set(p.stem for g in games.GAMES for n in C.seat_counts(g)
                 for p, _ in C.seated_golden_cases(C.Subject(g, seats=n)))
    assert seated == owned, "golden transcripts whose players fit no seat count: %s" % sorted(owned - seated)
    assert sorted(set(stems) - owned) == []


def test_every_sim_script_is_a_registered_games():
    # one a seat count the game's flow referees (SP-27: Speed's 2, 3 and 4)
    want = [C.script_name(g, n) for g in games.GAMES for n in C.flow_seats(g)]
    assert sorted(p.stem for p in (C.TESTS / "sim_scripts").glob("*.txt")) == sorted(want)
