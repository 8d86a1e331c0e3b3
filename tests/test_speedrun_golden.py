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
