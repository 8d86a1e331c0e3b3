"""The text tables line up in a terminal whatever the names hold: the
standings (speedref-results), the ratings (speedref-results ratings) and a
score sheet (speedref-score) pad each column by the width a terminal gives
its text, so a name in CJK, fullwidth letters, an emoji or a letter with a
combining mark keeps every column after it under its heading.

The widths are checked against Unicode's own data (unicodedata: East Asian
Wide and Fullwidth take two cells, a combining mark none), not against the
library the tools measure with.
"""
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

from hypothesis import given, settings, strategies as st

from host_tools.club import ratings
from host_tools.views import report, scoresheet
from host_tools.club.db import ResultsDB
from host_fixtures import speed_single, speedrun_short

BIN = Path(sys.executable).parent

# names a club may enter, each with a width a terminal agrees on
WIDE_NAMES = ["李小龍", "Ｂｏｂ", "👍Kim", "Zoq\u0307", "Ann"]


def cells_of(text):
    """How many terminal cells text takes (Unicode's data, one character at
    a time: East Asian Wide and Fullwidth two, a combining mark none)."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def column_starts(line):
    """The terminal column where each cell of a table line starts (cells are
    apart by two spaces or more; no name here holds two spaces)."""
    return [cells_of(line[:m.start()]) for m in re.finditer(r"(?<!\S)\S+(?: \S+)*", line)]


def assert_aligned(lines):
    starts = [column_starts(x) for x in lines]
    assert all(len(s) == len(starts[0]) for s in starts), lines
    assert all(s == starts[0] for s in starts), "\n" + "\n".join(lines)


def cut_at(line, starts):
    """A line cut at terminal columns: a cut that falls inside a character,
    right after text with no space before the next column, or before spaces
    (its cell starts further right), is misaligned."""
    pieces, at, col = [], 0, 0
    for stop in starts[1:] + [None]:
        begin = at
        while at < len(line) and (stop is None or col < stop):
            col += cells_of(line[at])
            at += 1
        # combining marks belong to the character before the cut
        while at < len(line) and cells_of(line[at]) == 0:
            at += 1
        assert stop is None or col == stop, ("a character across column %d" % stop, line)
        pieces.append(line[begin:at])
    assert all(p.endswith(" ") or not p.strip() for p in pieces[:-1]), ("no space before a column", line)
    assert all(not p.startswith(" ") for p in pieces), ("a cell not at its column", line)
    return [p.strip() for p in pieces]


def assert_sheet(lines, want):
    """A score sheet's table (heading, dashes, rows): every line cut at its
    dashes' columns gives the cells `want` holds, line by line."""
    dashes = lines[1]
    starts = [m.start() for m in re.finditer(r"-+", dashes)]
    assert [len(m.group()) for m in re.finditer(r"-+", dashes)] == [
        max(cells_of(r[i]) for r in want) for i in range(len(want[0]))], lines
    assert [cut_at(x, starts) for x in lines[:1] + lines[2:]] == want, "\n" + "\n".join(lines)


def tables(text):
    """The indented blocks of a report: [[line, ...] per game]."""
    out = []
    for line in text.splitlines():
        if line.startswith("  "):
            out[-1].append(line)
        elif line.strip():
            out.append([])
    return [t for t in out if t]


def fill(path):
    db = ResultsDB(path)
    seq = 0
    for i, a in enumerate(WIDE_NAMES):
        for b in WIDE_NAMES[i + 1:]:
            seq += 1
            db.add_record(speed_single(winner=seq % 2, left=seq, players=(a, b), ident="w-%d" % seq))
    rec = speedrun_short(ident="w-sr")
    rec["players"] = WIDE_NAMES[:3]
    db.add_record(rec)
    db.close()


def run(*args):
    r = subprocess.run([str(BIN / args[0])] + [str(a) for a in args[1:]], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return r.stdout


def test_the_standings_line_up_with_wide_and_combining_names(tmp_path):
    fill(tmp_path / "w.db")
    text = run("speedref-results", "--db", tmp_path / "w.db")
    blocks = tables(text)
    assert len(blocks) == 2 and all(len(b) >= 4 for b in blocks)
    shown = set(line.split("  ")[1] for b in blocks for line in b[1:])
    assert shown >= set(unicodedata.normalize("NFC", n) for n in WIDE_NAMES)
    for b in blocks:
        assert_aligned(b)


def test_the_ratings_line_up_with_wide_and_combining_names(tmp_path):
    fill(tmp_path / "w.db")
    blocks = tables(run("speedref-results", "ratings", "--db", tmp_path / "w.db"))
    assert len(blocks) == 2 and len(blocks[0]) == 1 + len(WIDE_NAMES)
    for b in blocks:
        assert_aligned(b)


def test_a_score_sheet_lines_up_under_wide_names(tmp_path):
    rec = speedrun_short()
    rec["players"] = ["李小龍", "👍Kim", "Zoq\u0307"]
    (tmp_path / "r.json").write_text(json.dumps(rec), encoding="utf-8")
    lines = run("speedref-score", tmp_path / "r.json").splitlines()
    table = lines[2:lines.index("", 2)]
    sheet, summary = scoresheet.check(rec, "r.json")
    want = [["Hand"] + rec["players"]] + [
        [label] + [scoresheet.cell_text(c, t) for c, t in cells] for label, cells in scoresheet.sheet_parts(rec, sheet, summary)["rows"]]
    assert len(want) == 7
    assert_sheet(table, want)


# a name: a few letters, each narrow, wide, fullwidth or an emoji, some
# with a combining mark (a mark alone would start a name with nothing under it)
LETTER = st.tuples(st.sampled_from(["a", "K", "é", "李", "龍", "Ｂ", "👍", "🎲"]),
                   st.sampled_from(["", "", "\u0307", "\u0323"])).map("".join)
NAME = st.lists(LETTER, min_size=1, max_size=6).map("".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(NAME, min_size=1, max_size=6, unique=True), st.data())
def test_every_text_table_lines_up_whatever_the_names(names, data):
    rows = [{"game": "speed", "player": n, "games": data.draw(st.integers(1, 999)),
             "wins": data.draw(st.integers(0, 99)), "average_score": data.draw(st.none() | st.floats(0, 999)),
             "perfect_bonuses": None, "slap_wins": 0,
             "median_margin_us": data.draw(st.none() | st.integers(0, 10 ** 7))} for n in names]
    assert_aligned(tables(report.text_report(rows, 0))[0])

    class Board:
        rated = 1
    rated = [{"game": "speed", "player": n, "rating": "25.00", "sigma": "8.33", "conservative": "0.00",
              "games": 1, "provisional": True} for n in names]
    assert_aligned(tables(ratings.text_report(rated, {"speed": Board()}))[0])

    want = [["Deal"] + names, ["1"] + ["won +%d  = %d" % (i, i) for i in range(len(names))]]
    assert_sheet(scoresheet.table(want[0], want[1:]), want)
