"""Spit's log lines in words (sim/words/__init__.py): a round's end."""
from sim.words import count, nums


def describe(obj, seat):
    if obj.get("ev") == "round":
        if obj.get("blocked"):
            how = "blocked"
        else:
            how = seat(obj.get("cleared")) + " cleared"
            if "slap" in obj:
                how += ", " + seat(obj.get("slap")) + " took smaller"
        return "ROUND %s %s: %s, cards %s, %s" % (
            obj.get("game", ""), obj.get("round", "?"), how, nums(obj.get("cards")),
            count(obj.get("restarts"), "restart"))
    return None
