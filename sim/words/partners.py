"""Partners' log lines in words (sim/words/__init__.py): a hand's contract
(who bid what with whom, and who moves, PT-8) and a hand's end."""
from sim.words import nums


def describe(obj, seat):
    ev = obj.get("ev")
    if ev == "contract":
        return "CONTRACT %s %s: %s" % (obj.get("game", ""), obj.get("hand", "?"), _contract(obj, seat))
    if ev == "hand":
        return "HAND %s %s: %s" % (obj.get("game", ""), obj.get("hand", "?"), _hand(obj, seat))
    return None


def _contract(obj, seat):
    out = "%s+%s bid %s %s (%s dealt); " % (
        seat(obj.get("contractor")), seat(obj.get("partner")), obj.get("bid", "?"),
        obj.get("trump", "?"), seat(obj.get("dealer")))
    swap = obj.get("swap")
    seats = obj.get("seats")
    if not swap:
        return out + "nobody moves"
    a, b = swap[0], swap[1]
    if isinstance(seats, list) and a in seats and b in seats:
        return out + "%s and %s swap seats: %s to pad %d, %s to pad %d" % (
            seat(a), seat(b), seat(a), seats.index(a) + 1, seat(b), seats.index(b) + 1)
    return out + "%s and %s swap seats" % (seat(a), seat(b))


def _hand(obj, seat):
    out = "%s+%s bid %s %s, tricks %s, scores %s%s, totals %s" % (
        seat(obj.get("contractor")), seat(obj.get("partner")), obj.get("bid", "?"),
        obj.get("trump", "?"), nums(obj.get("tricks"), "/"), nums(obj.get("scores"), "/"),
        " (doubled)" if obj.get("doubled") else "", nums(obj.get("totals"), "/"))
    if obj.get("over"):
        return out + ", game over" + (" (ended early)" if obj.get("ended_early") else "")
    return out + ", next dealer " + seat(obj.get("next_dealer"))
