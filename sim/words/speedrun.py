"""Speed Run's log lines in words (sim/words/__init__.py): a hand's end
and a contract revealed during play (SR-21)."""
from sim.words import nums


def describe(obj, seat):
    ev = obj.get("ev")
    if ev == "hand":
        return "HAND %s %s: %s" % (obj.get("game", ""), obj.get("hand", "?"), _hand(obj))
    if ev == "reveal":
        from speedref.app.speedrun_flow import word
        c = obj.get("contract")
        try:
            c = word(c)
        except (KeyError, TypeError):
            c = repr(c)
        return "REVEAL %s %s: %s turns %s face up before trick %s" % (
            obj.get("game", ""), obj.get("hand", "?"), seat(obj.get("seat")), c, obj.get("trick", "?"))
    return None


def _hand(obj):
    """The trump and ranking, tricks, contracts (a revealed one starred),
    scores and totals."""
    rev = obj.get("revealed") or []
    cs = obj.get("contracts") or []
    contracts = " ".join(str(c) + ("*" if i < len(rev) and rev[i] else "") for i, c in enumerate(cs))
    scores = nums([None if x is None else "%+d" % x for x in obj.get("scores") or []], " ")
    out = "%s %s, tricks %s, contracts %s, scores %s, totals %s" % (
        obj.get("trump", "?"), obj.get("ranking", "?"), nums(obj.get("tricks"), "/"),
        contracts, scores, nums(obj.get("totals"), "/"))
    if obj.get("over"):
        out += ", game over" + (" (ended early)" if obj.get("ended_early") else "")
    return out
