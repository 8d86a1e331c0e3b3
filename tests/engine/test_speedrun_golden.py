"""Speed Run records replay identically on both runtimes (the golden
playthroughs, tests/golden/speedrun_*.txt, are checked with every game's by
tests/test_conformance.py)."""
import mpyrun

RECORDS = [
    # valid: a revealed Perfect Bonus, a Redo that lowers, a Pass (SR-16, SR-18, SR-20, SR-21)
    {"game": "speedrun", "length": "short", "players": ["A", "B", "C"],
     "hands": [{"tricks": [4, 5, 3], "contracts": ["W4", "MIDDLE", "W0"], "revealed": [True, False, False]},
               {"tricks": [12, 0, 0], "contracts": ["PASS", "W0", "REDO:W0"]}]},
    # invalid: SR-12, SR-19, SR-22, SR-28
    {"game": "speedrun", "length": "short", "players": ["A", "B", "C"],
     "hands": [{"tricks": [4, 4, 3], "contracts": ["W4", "W4", "W4"]}]},
    {"game": "speedrun", "length": "short", "players": ["A", "B", "C"],
     "hands": [{"tricks": [4, 4, 4], "contracts": ["W4", "REDO:W4", "W4"]}]},
    {"game": "speedrun", "length": "short", "players": ["A", "B", "C"],
     "hands": [{"tricks": [4, 4, 4], "contracts": ["W4", "W4", "PASS"], "revealed": [False, False, True]}]},
    {"game": "speedrun", "length": "short", "players": ["A", "B", "C"],
     "hands": [{"tricks": [4, 4, 4], "contracts": [c, c, c]} for c in
               ["W0", "W1", "W4", "W5", "MIDDLE", "PASS", "REDO:W0"]]},
]

_REPLAY = """
import json
from speedref.engine import records
from speedref.engine.errors import RuleError
for r in json.loads(%r):
    try:
        s = records.summary(r)
        print(s["totals"], s["winners"], s["tiebreak"], s["hands_played"], s["ended_early"])
    except RuleError as e:
        print(str(e))
"""


def test_sr29_records_replay_identically_on_both_runtimes():
    import contextlib
    import io
    import json
    code = _REPLAY % json.dumps(RECORDS)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(code, {})
    expected = buf.getvalue()
    assert expected.splitlines() == [
        "[-4, -1, -2] [0] lowest total 2 True",  # 2 of 6 hands: ended early (SR-28)
        "SR-12: hand 1, all players: tricks 4+4+3 add up to 11, not 12",
        "SR-19: hand 1, player 2 (B): REDO:W4 names W4, which that player has not completed",
        "SR-22: hand 1, player 3 (C): a Pass cannot be revealed",
        "SR-28: hand 7, all players: the game was already over",
    ]
    assert mpyrun.run(code=code, heap="64wK").stdout == expected
