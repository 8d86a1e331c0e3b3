"""The standings as speedref-results prints them: a text table, and CSV.

Text output escapes control characters in names; CSV cells that a spreadsheet
would run as a formula (starting with = + - @ tab or CR) get a leading '.
"""
import csv
import unicodedata

import wcwidth

from host_tools import jsonin
from host_tools.club.standings import COLUMNS


def cell(v):
    """A value as a table shows it: "-" for none."""
    return "-" if v is None else str(v)


def text_report(rows, unlinked):
    if not rows:
        return "no games in the database yet"
    lines = []
    heads = ["player", "games", "wins", "avg score", "perfect", "slap wins", "median margin"]
    for game in sorted(set(r["game"] for r in rows)):
        mine = [r for r in rows if r["game"] == game]
        body = []
        for r in mine:
            margin = r["median_margin_us"]
            body.append([jsonin.printable(r["player"]), str(r["games"]), str(r["wins"]), cell(r["average_score"]),
                         cell(r["perfect_bonuses"]), str(r["slap_wins"]),
                         "-" if margin is None else "%.1f ms" % (margin / 1000)])
        widths = [max(wcwidth.width(x[i]) for x in [heads] + body) for i in range(len(heads))]
        lines.append(jsonin.printable(game))
        for x in [heads] + body:
            lines.append("  " + "  ".join(wcwidth.ljust(c, w) for c, w in zip(x, widths)).rstrip())
        lines.append("")
    if unlinked:
        lines.append("%d slap verdicts not tied to a finished game (not counted)" % unlinked)
    return "\n".join(lines).rstrip()


# What a spreadsheet runs as a formula (OWASP, "CSV Injection"): a cell whose
# first character is = + - or @, or that starts with a tab or a carriage
# return (and ASVS adds NUL).  Spreadsheets differ in what they skip before
# looking: some trim spaces, NBSP, a BOM, bidirectional marks, zero-width
# characters or line breaks, and some (Excel with an East Asian IME among
# them) read the fullwidth ＝ ＋ － ＠ and the small ﹦ ﹢ ﹣ as their ASCII
# selves.  So a cell is neutralised when its first visible character, in its
# NFKC form, is one of these, whatever invisible characters come before it.
FORMULA_CHARS = "=+-@"
FORMULA_START = ("\t", "\r", "\x00")


def _invisible(ch):
    # white space (Zs, Zl, Zp and the C0 blanks) and control or format
    # characters (Cc, Cf: BOM, RLO, ZWSP...) show nothing a person would see
    return ch.isspace() or unicodedata.category(ch)[0] in "CZ"


def runs_as_formula(text):
    if text.startswith(FORMULA_START):
        return True
    for ch in text:
        if not _invisible(ch):
            return unicodedata.normalize("NFKC", ch)[:1] in FORMULA_CHARS
    return False


def csv_cell(v):
    """A CSV cell a spreadsheet shows as text: a string it could run as a
    formula gets a leading ' (OWASP's advice on CSV injection)."""
    if v is None:
        return ""
    if isinstance(v, str) and runs_as_formula(v):
        return "'" + v
    return v


def write_csv(path, rows, columns=COLUMNS):
    """`rows` (dicts) as CSV with `columns` (the standings' by default), each
    text cell safe from a spreadsheet's formulas (csv_cell)."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(dict((k, csv_cell(v)) for k, v in r.items()))
