"""speedref-results: standings per game and player from the results database.

    speedref-results [--db FILE] [--csv FILE] [--json]

Per game and player: games played, wins (a shared win counts for each winner;
an unfinished game is nobody's win unless the table agreed to stop it, PT-20),
average final score, Perfect Bonuses (Speed Run), and slap wins with the median
winning margin (Speed, and any game whose slaps the device logged).  Slap
verdicts are tied to a game by speedref-log when that game's record arrives.

A player listed twice in one record is malformed (speedref-log refuses such
records); one already in an older database counts once for that game: one game,
a win if any of those seats won, the first seat's score and Perfect Bonuses.
Text output escapes control characters in names; CSV cells that a spreadsheet
would run as a formula (starting with = + - @ tab or CR) get a leading '.
"""
import argparse
import csv
import json
import sqlite3
import statistics
import sys

from speedref.engine import records

from host_tools import jsonin
from host_tools.db import ResultsDB, DEFAULT_DB_NAME

COLUMNS = ["game", "player", "games", "wins", "average_score", "perfect_bonuses",
           "slap_wins", "median_margin_us"]
# Names a game module may give its per-seat Perfect Bonus counts (Speed Run).
PERFECT_ATTRS = ("perfect_bonuses", "perfects", "perfect")


def perfect_counts(record):
    """Per-seat Perfect Bonus counts from the Speed Run sheet, or None if it has none."""
    sheet = records.replay(record)
    for name in PERFECT_ATTRS:
        v = getattr(sheet, name, None)
        if callable(v):
            v = v()
        if isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v):
            return list(v)
    return None


def standings(db):
    """(rows as dicts in COLUMNS order, number of slaps not tied to any game)."""
    table = {}   # (game, player) -> accumulating dict

    def entry(game, player):
        key = (game, player)
        if key not in table:
            table[key] = {"game": game, "player": player, "games": 0, "wins": 0, "_scores": [],
                          "perfect_bonuses": None, "slap_wins": 0, "_margins": []}
        return table[key]

    players_of = {}
    for row_id, rec in db.games():
        names = [str(p) for p in rec.get("players", [])]
        players_of[row_id] = names
        # wins from the record itself, so a database filled before the
        # unfinished-game rule (PT-20) is counted the same way
        s = records.summary(rec)
        winners = s["winners"] if records.counts_as_win(s) else ()
        counted = {}   # name -> whether a win was counted: each player once a game
        for seat, name in enumerate(names):
            won = seat in winners
            e = entry(rec["game"], name)
            if name in counted:       # the same name at a second seat
                if won and not counted[name]:
                    e["wins"] += 1
                    counted[name] = True
                continue
            counted[name] = won
            e["games"] += 1
            e["wins"] += 1 if won else 0
            if seat < len(s["totals"]):
                e["_scores"].append(s["totals"][seat])
    # Perfect Bonuses (SR-16, SR-26) are Speed Run's own column: no other
    # game's sheet counts them, so only its records are asked
    for row_id, rec in db.games("speedrun"):
        counts = perfect_counts(rec)
        if counts is None:
            continue
        seen = set()
        for seat, name in enumerate(players_of[row_id]):
            if name in seen or seat >= len(counts):
                continue
            seen.add(name)
            e = entry("speedrun", name)
            e["perfect_bonuses"] = (e["perfect_bonuses"] or 0) + counts[seat]
    unlinked = 0
    for game, kind, winner, margin, game_ref in db.slaps():
        if game_ref is None or game_ref not in players_of:
            unlinked += 1
            continue
        names = players_of[game_ref]
        if winner is None or winner >= len(names):
            continue          # a tie is nobody's win
        e = entry(game, names[winner])
        e["slap_wins"] += 1
        if margin is not None:  # a lone slap has no margin
            e["_margins"].append(margin)
    out = []
    for e in table.values():
        scores, margins = e.pop("_scores"), e.pop("_margins")
        e["average_score"] = round(sum(scores) / len(scores), 2) if scores else None
        e["median_margin_us"] = statistics.median(margins) if margins else None
        out.append(dict((c, e[c]) for c in COLUMNS))
    out.sort(key=lambda r: (r["game"], -r["wins"], -(r["average_score"] or 0), r["player"]))
    return out, unlinked


def _cell(v):
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
            body.append([jsonin.printable(r["player"]), str(r["games"]), str(r["wins"]), _cell(r["average_score"]),
                         _cell(r["perfect_bonuses"]), str(r["slap_wins"]),
                         "-" if margin is None else "%.1f ms" % (margin / 1000)])
        widths = [max(len(x[i]) for x in [heads] + body) for i in range(len(heads))]
        lines.append(jsonin.printable(game))
        for x in [heads] + body:
            lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(x, widths)).rstrip())
        lines.append("")
    if unlinked:
        lines.append("%d slap verdicts not tied to a finished game (not counted)" % unlinked)
    return "\n".join(lines).rstrip()


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(v):
    """A CSV cell a spreadsheet shows as text: a string it would run as a
    formula gets a leading ' (OWASP's advice on CSV injection)."""
    if v is None:
        return ""
    if isinstance(v, str) and v.startswith(FORMULA_START):
        return "'" + v
    return v


def main(argv=None):
    ap = argparse.ArgumentParser(prog="speedref-results", description=__doc__.splitlines()[0])
    ap.add_argument("--db", default=DEFAULT_DB_NAME, help="results database (default %(default)s)")
    ap.add_argument("--csv", metavar="FILE", help="also write the standings as CSV")
    ap.add_argument("--json", action="store_true", help="print the standings as JSON")
    args = ap.parse_args(argv)
    jsonin.setup_stdio()
    try:
        db = ResultsDB(args.db)
        try:
            rows, unlinked = standings(db)
        finally:
            db.close()
    except sqlite3.Error as e:
        print("speedref-results: %s: cannot read the database: %s" % (args.db, e), file=sys.stderr)
        return 2
    if args.csv:
        try:
            with open(args.csv, "w", newline="", encoding="utf-8") as f:
                w = csv.DictWriter(f, fieldnames=COLUMNS)
                w.writeheader()
                for r in rows:
                    w.writerow(dict((k, csv_cell(v)) for k, v in r.items()))
        except OSError as e:
            print("speedref-results: cannot write %s: %s" % (args.csv, e.strerror or e), file=sys.stderr)
            return 2
    text = (json.dumps({"standings": rows, "unlinked_slaps": unlinked}, indent=1) if args.json
            else text_report(rows, unlinked))
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        jsonin.quiet_broken_pipe()
    return 0


if __name__ == "__main__":
    sys.exit(main())
