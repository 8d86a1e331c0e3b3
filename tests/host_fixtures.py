"""Valid game records for the host-tool tests, built with the engine itself
(so they stay valid as the rules evolve).  No tests here."""
import random

from speedref.engine import speed

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]


def speed_match(seed, ident=None, target=25):
    """A finished Speed match to `target` (SP rules), random but seeded."""
    r = random.Random(seed)
    players = r.sample(NAMES, 2)
    m = speed.SpeedMatch("pagat", {"target": target}, players)
    while not m.over:
        m.add_deal(r.randrange(2), r.randint(1, 10))
    rec = m.to_record()
    if ident is not None:
        rec["id"] = ident
    return rec


def speed_single(winner=0, left=5, players=("Ann", "Bob"), ident=None):
    rec = {"game": "speed", "layout": "pagat", "match": {"single": True},
           "players": list(players), "deals": [{"winner": winner, "left": left}]}
    if ident is not None:
        rec["id"] = ident
    return rec


def partners_game(ident=None):
    """PT-14: the bid of 7 made: contractor and partner score bid + tricks."""
    rec = {"game": "partners", "target": 10, "players": ["Ann", "Bob", "Cat", "Dan"],
           "hands": [{"dealer": 0, "contractor": 0, "partner": 2, "bid": 7, "trump": "spades",
                      "tricks": [4, 3, 3, 3]}]}
    if ident is not None:
        rec["id"] = ident
    return rec


def speedrun_short(ident=None):
    """A Short Speed Run (SR: 6 hands); Ann and Bob hit W0/W1/W4/W5 exactly (SR-26)."""
    rec = {"game": "speedrun", "length": "short", "players": ["Ann", "Bob", "Cat"], "hands": [
        {"tricks": [4, 4, 4], "contracts": ["W4", "W4", "W4"]},
        {"tricks": [5, 5, 2], "contracts": ["W5", "W5", "W5"]},
        {"tricks": [1, 0, 11], "contracts": ["W1", "W0", "W1"]},
        {"tricks": [0, 1, 11], "contracts": ["W0", "W1", "W0"]},
        {"tricks": [3, 4, 5], "contracts": ["MIDDLE", "MIDDLE", "MIDDLE"]},
        {"tricks": [4, 4, 4], "contracts": ["PASS", "PASS", "PASS"]}]}
    if ident is not None:
        rec["id"] = ident
    return rec


def speed_seated(seats, seed, ident=None, target=25):
    """A finished Speed match of `seats` players (SP-35: one count a player,
    the winner's 0), random but seeded."""
    r = random.Random(seed)
    players = r.sample(NAMES, seats)
    m = speed.SpeedMatch("pagat", {"target": target}, players)
    while not m.over:
        w = r.randrange(seats)
        m.add_deal(w, [0 if p == w else r.randint(1, 10) for p in range(seats)])
    rec = m.to_record()
    if ident is not None:
        rec["id"] = ident
    return rec
