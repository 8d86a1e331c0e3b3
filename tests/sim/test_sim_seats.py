"""Seats are data in the simulator: its tables, the people at them and the
runner read the seat count from the registry (speedref/games.py `seats`)
and a game's options (its "seats" option), never from a two-seat (or
three-, four-seat) literal written into a table module
(tests/sim/seat_literals.py says which literals those are)."""
from pathlib import Path

import pytest

import seat_literals as S

ROOT = Path(__file__).resolve().parents[2]
TABLES = sorted((ROOT / "sim" / "table").glob("*.py")) + [ROOT / "sim" / "bots.py"]

# (file, a piece of the line, why that literal counts no seats)
ALLOW = (
    ("sim/table/spit_table.py", "k = 1 - k", "the other centre pile: Spit has two (SPIT-3)"),
    ("sim/table/spit_person.py", "1 - kw", "the other centre pile (SPIT-3, SPIT-10)"),
    ("sim/table/speedrun_table.py", "self.chose = [None, None]",
     "the two choosers, of the trump and of the ranking (SR-7)"),
    ("sim/table/partners_table.py", "self.rng.randrange(2)", "a coin flip: the bid estimate one higher or not"),
)


# the same for the flows that seat a range
FLOW_ALLOW = (
    ("firmware/speedref/app/speed_flow.py", '_NAMES = ("P1", "P2", "P3", "P4")',
     "a name for each of the device's four pads, sliced to the seats: constants, so a game's names "
     "take no heap (a heap string each was left behind by stale pointers after a game)"),
)


def test_sp27_no_seat_count_is_written_into_a_simulator_table():
    """SP-27: the seat count is data (the checker reads the table modules)."""
    left = S.find(TABLES, ALLOW, ROOT)
    assert not left, ("a seat count written into the simulator: read it from the table's `seats` "
                      "(the registry's, or the game's options) or name what else it counts:\n"
                      + "\n".join(left))


def test_every_allowed_literal_is_still_there():
    """An excuse for a literal that went away goes too."""
    for path, piece, why in ALLOW + FLOW_ALLOW:
        assert piece in (ROOT / path).read_text(encoding="utf-8"), "%s: %r is gone (%s)" % (path, piece, why)


@pytest.mark.parametrize("code", [
    "for p in range(2): pass", "q = 1 - p", "x = [None, None]", "x = [0, 0, 0]", "x = [False] * 4",
    "d = '01'[p]", "for p in (0, 1): pass", "s = rng.randrange(3)", "q = (p + rng.randrange(1, 4)) % 4",
    "BOTS = (1, 2)", "NAMES = ('P1', 'P2', 'P3', 'P4')", "x = [bytearray(), bytearray()]",
    "self.race = Race(2, w)", "pads = (PadHold(h), PadHold(h))", "if b >= 2 and b < UP: pass",
    "if p < 2: pass", "State(seed, seats=3)",
])
def test_the_check_finds_a_seat_literal(code):
    assert S.in_source(code), code


@pytest.mark.parametrize("code", [
    "for p in range(self.seats): pass", "q = self.opponent(p)", "x = self.per_seat(None)",
    "x = [0] * len(SUITS)", "for k in (2, 1, 0): pass", "edge = i % 2 == 1", "x = (2, 1)  # a comment: (0, 1)",
    "s = 'range(2) in a string'", "n = 5 % 13",
    "self.race = Race(n, w)", "pads = tuple([PadHold(h) for _ in range(n)])", "if b >= self.seats: pass",
    "k = 3 if col >= 48 else 2", "if len(others) == 1: pass", "State(seed, seats=n)",
])
def test_the_check_leaves_other_code_alone(code):
    assert not S.in_source(code), code


# The flows of games that seat a range of players: every count from `seats`.
SEATED_FLOWS = [ROOT / "firmware" / "speedref" / "app" / "speed_flow.py"]


def test_sp27_no_seat_count_is_written_into_a_seated_flow():
    """SP-27: Speed's flow referees 2 to 4 players, so no two-seat literal
    (Race(2, ...), two PadHolds, [0, 0], "01"[p], 1 - claimant, b >= 2 ...)
    may come back into it."""
    from speedref import games
    assert [g.id for g in games.GAMES if g.seats[0] < g.seats[1]] == ["speed"]
    left = S.find(SEATED_FLOWS, FLOW_ALLOW, ROOT)
    assert not left, ("a seat count written into a flow that seats a range: read it from its `seats`:\n"
                      + "\n".join(left))


def test_the_check_reads_the_flows_too():
    """Pointed at a referee flow, the same check reads it (the flows keep
    their own list of what is still written for two players)."""
    flows = sorted((ROOT / "firmware" / "speedref" / "app").glob("*_flow.py"))
    assert flows
    for path in flows:
        S.find([path])  # parses and reports; what it finds is the flows' own list


# -- the runner and the tables take the count from the registry ------------------------------
def test_every_table_seats_its_registry_count():
    from sim.table import runner
    from speedref import games
    for g in games.GAMES:
        tb = runner.table_class(g.id)("seats")
        try:
            assert tb.seats == g.seats[0] and len(tb.people) == tb.seats, (g.id, tb.seats)
            assert tb.others(0) == list(range(1, tb.seats)) and tb.player_names()[-1] == "P%d" % tb.seats
        finally:
            tb.close()


def test_sp27_the_runner_seats_what_the_rules_and_the_referee_allow():
    """--table GAME --seats N: a count the entry does not seat, or its flow
    does not referee, is refused before any game (exit 2, one line)."""
    import io
    from sim.table import runner
    from speedref import games
    for g in games.GAMES:
        lo, hi = g.seats
        out = io.StringIO()
        assert runner.main(g.id, 1, 1, out, seats=hi + 1) == 2, g.id
        flow = games.load(g.flow, "speedref.app")
        flo, fhi = getattr(flow, "SEAT_RANGE", g.seats)
        if fhi < hi:  # the rules seat more than this referee plays yet
            assert runner.main(g.id, 1, 1, out, seats=fhi + 1) == 2, g.id
        assert out.getvalue() == ""  # refused before any game
    s = runner.run("speed", 1, 5, out=io.StringIO(), seats=2)
    assert s["games"] == 1 and s["disagreements"] == 0


def test_the_command_line_says_why_a_seat_count_is_refused(capsys):
    from sim.__main__ import main
    assert main(["--table", "spit", "--seats", "3", "--games", "1"]) == 2
    assert capsys.readouterr().err == "speedref-sim: --seats 3: Spit seats 2 players, not 3\n"
    assert main(["--table", "speedrun", "--seats", "3", "--games", "1"]) == 0
    assert "speedrun table (3 players): games 1, agreements 1, disagreements 0" in capsys.readouterr().out
