# Canonical game records: one JSON object per game, used by the device's log,
# the simulator, the host tools' database and the tests.  A record is checked
# by replaying it through its game's table-level model (the same code the
# referee app keeps score with), so there is one set of rules, not two.
#
# Every game module provides `replay(record) -> sheet`, raising RuleError
# ("hand 3, player 2: ...") for an invalid record.  A sheet has:
#   players        list of names
#   totals         list of ints, one per player (or per side) as scored
#   hands_played   int: hands or deals counted
#   ended_early    bool: the game has fewer hands/deals than a game played to
#                  its end by the rules (SR-28, SP-20, SPIT-15, PT-20); Speed Run's
#                  all-Pass end (SR-28) is ended early and still over
#   over           bool: the game reached its end by its rules (a winner decided);
#                  the same as phase == "over" (every game object has a phase)
#   winners()      list of seat indices (several when the win is shared)
#   tiebreak       str: what decided the winner, for a person to read
#   rows()         [(label, [cell str per player], [running total per player])]
#   to_record()    the canonical record (replay(r).to_record() == r, normalised)
# A record the device stores also has its "id" and its "table" (the table's
# name, speedref/names.py): where it was played, not part of the game, so
# no sheet carries them.
from .errors import RuleError
from .. import games


def game_module(name):
    """A game's table-level module, imported only when it is needed (heap on
    the board)."""
    try:
        g = games.get(name)
    except games.UnknownGame as e:
        raise RuleError("REC-1", str(e))
    return games.load(g.engine, "speedref.engine")


def replay(record):
    """Validate a record and return its scored sheet (RuleError if invalid)."""
    if not isinstance(record, dict):
        raise RuleError("REC-1", "a game record is a JSON object")
    return game_module(record.get("game")).replay(record)


def summary(record):
    """The scoresheet as a plain dict: what `speedref-score --json` prints."""
    sheet = replay(record)
    over = sheet.over
    return {
        "game": record["game"],
        "players": list(sheet.players),
        "totals": list(sheet.totals),
        "winners": sheet.winners(),
        "tiebreak": sheet.tiebreak,
        "hands_played": sheet.hands_played,
        "ended_early": sheet.ended_early,
        "over": over,
        # PT-20: the table agreed on the device to stop before the end (a
        # confirmed "Stop game now?"); only then does an unfinished game's
        # leader count as its winner in standings
        "stopped": (not over) and record.get("stopped") is True,
    }


def counts_as_win(summary):
    """Standings count a winner of a game that reached its end, or of one the
    table agreed to stop (PT-20); an unfinished record is nobody's win."""
    return summary["over"] or summary["stopped"]
