"""Golden Speed Run playthroughs: the committed transcripts must come out
byte-identical on CPython and on the real MicroPython Unix port (heap 64wK,
loading the compiled .mpy files).  Every rule the transcript shows (SR-5 first
player, SR-7 choices, SR-9 directions, SR-11 trick winners, SR-14..SR-23 scores,
SR-24..SR-28 end) is checked again by replaying the record."""
from pathlib import Path

import pytest

import mpyrun
from play_speedrun import play
from speedref.engine import speedrun as sr

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = [(1, "long"), (2, "long"), (7, "long"), (3, "short"), (5, "medium")]


def golden_path(seed, length):
    return GOLDEN / ("speedrun_%d.txt" % seed if length == "long" else "speedrun_%d_%s.txt" % (seed, length))


@pytest.mark.parametrize("seed,length", CASES)
def test_golden_transcript_on_cpython(seed, length):
    lines, record = play(seed, length)
    assert "\n".join(lines) + "\n" == golden_path(seed, length).read_text()
    g = sr.replay(record)
    assert lines[-1].startswith("end after %d hands" % g.hands_played)
    assert ("totals %s" % g.totals) in lines[-1]


@pytest.mark.parametrize("seed,length", CASES)
def test_golden_transcript_on_micropython(seed, length):
    r = mpyrun.run(script=Path(mpyrun.SUPPORT) / "play_speedrun.py", args=(str(seed), length), heap="64wK")
    assert r.stdout == golden_path(seed, length).read_text()


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
