"""Speed's log lines in words (sim/words/__init__.py): a deal's end."""
from sim.words import count, nums


def describe(obj, seat):
    if obj.get("ev") == "deal":
        return "DEAL %s %s: %s out, %s left, totals %s (%s, %s)" % (
            obj.get("game", ""), obj.get("deal", "?"), seat(obj.get("winner")), obj.get("left", "?"),
            nums(obj.get("totals")), count(obj.get("flips"), "flip"),
            count(obj.get("rebuilds"), "rebuild"))
    return None
