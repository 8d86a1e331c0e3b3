"""A game's score sheet: its record replayed through the game's rules
(the engine's records.replay, the same code the referee keeps score with),
laid out as the parts speedref-score prints and the results page shows.
"""
import json

import wcwidth

from speedref.engine import records
from speedref.engine.errors import RuleError
from speedref import games

from host_tools import jsonin
from host_tools.intake.recordfiles import Invalid


def _game(record):
    """The registry's entry for a record's game, or None for an unknown one."""
    try:
        return games.get(record.get("game"))
    except games.UnknownGame:
        return None


def check(record, name):
    """(sheet, summary dict), or Invalid naming the rule, hand and player."""
    try:
        return records.replay(record), records.summary(record)
    except RuleError as e:
        # The game modules word it "hand 3, player 2: ..." and the rule leads.
        raise Invalid("%s: invalid record: %s" % (name, e))
    except (KeyError, TypeError, IndexError, AttributeError, ValueError, RecursionError) as e:
        raise Invalid("%s: invalid record: %s: %s" % (name, type(e).__name__, e))


def table(header, rows):
    """Left-aligned text columns wide enough for every cell, measured in the
    cells a terminal gives the text (wcwidth: a name in CJK or with an emoji
    takes two a character, a combining mark none)."""
    widths = [max(wcwidth.width(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = []
    for r in [header] + rows:
        lines.append("  ".join(wcwidth.ljust(c, w) for c, w in zip(r, widths)).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def sheet_parts(record, sheet, summary):
    """The score sheet as its parts, for the text here and the results page
    (host_tools/views/results_page.py), so both show the same numbers:
      head     the title line: game, options, record id
      unit     what one row is called, (singular, plural): ("Deal", "deals")
      names    a column per scored side: the players, or "side N"
      rows     [(label, [(cell, running total) per column])]
      totals   [(name, total)]
      result   "Winner: Ann", "Shared win: Ann and Bob" or "No winner"
      decided  what decided it, or None
      played   "3 deals played" ("1 deal played"), ", ended early" when it was
    Strings are as the device sent them: the text escapes control characters,
    the page HTML-escapes."""
    players = [str(p) for p in sheet.players]
    g = _game(record)
    title = g.title if g else str(record.get("game"))
    extra = [str(record[k]) for k in ("length", "layout") if isinstance(record.get(k), str)]
    head = title + (" (" + ", ".join(extra) + ")" if extra else "")
    if record.get("id") is not None:
        head += "  record " + str(record["id"])
    ncol = len(summary["totals"])
    names = players if len(players) == ncol else ["side %d" % (i + 1) for i in range(ncol)]
    rows = [(str(label), list(zip((str(c) for c in cells), running)))
            for label, cells, running in sheet.rows()]
    win = summary["winners"]
    who = " and ".join(players[w] if w < len(players) else "seat %d" % w for w in win)
    if len(win) > 1:
        result = "Shared win: " + who
    elif win:
        result = "Winner: " + who
    else:
        result = "No winner"
    # what one row of the sheet is called (hands_played counts these)
    unit = (g.unit.capitalize(), g.unit + "s") if g else ("Hand", "hands")
    return {"head": head, "unit": unit, "names": names, "rows": rows,
            "totals": list(zip(names, summary["totals"])), "result": result,
            "decided": str(summary["tiebreak"]) if summary.get("tiebreak") else None,
            "played": "%s played%s" % (jsonin.count(summary["hands_played"], g.unit if g else "hand", unit[1]),
                                       ", ended early" if summary["ended_early"] else "")}


def cell_text(cell, running):
    """One sheet cell with its running total: "won +15  = 15", or "= 40"."""
    return ("%s  = %s" % (cell, running)) if cell != "" else "= %s" % running


def sheet_text(record, sheet, summary):
    parts = sheet_parts(record, sheet, summary)
    p = jsonin.printable
    lines = [parts["head"], ""]
    # escaped before the columns are measured: an escape is longer than its character
    rows = [[p(label)] + [p(cell_text(c, t)) for c, t in cells] for label, cells in parts["rows"]]
    lines += table([parts["unit"][0]] + [p(n) for n in parts["names"]], rows)
    lines.append("")
    lines.append("Totals: " + ", ".join("%s %s" % (n, t) for n, t in parts["totals"]))
    lines.append(parts["result"])
    if parts["decided"]:
        lines.append("Decided by: " + parts["decided"])
    lines.append(parts["played"])
    return "\n".join(jsonin.printable(line) for line in lines)


def render(record, name, as_json):
    sheet, summary = check(record, name)
    return json.dumps(summary) if as_json else sheet_text(record, sheet, summary)
