# Drive the Speed Run flow with (button, t_us) events, on CPython and on the
# MicroPython Unix port: a canonical record (with "first", "trump" and
# "ranking" on each hand) is turned into the presses a table would make.
# Only the engine's table-level module is needed, never the card level.
from app_rig import Rig, MS
from speedref.app.core import UP, DOWN, OK, BACK
from speedref.engine import speedrun

HOLD = 900 * MS  # longer than the flow's 0.8 s: a reveal


def trick_order(tricks):
    """Trick winners in an order that gives these counts (round robin)."""
    rem = list(tricks)
    out = []
    i = 0
    while len(out) < 12:
        s = i % 3
        if rem[s]:
            out.append(s)
            rem[s] -= 1
        i += 1
    return out


def hand_seq(h):
    """The hand's entries as the flow keeps them: a seat per trick, and each
    reveal ([seat, contract], a Redo revealed as "REDO") after 3*seat+1 tricks."""
    order = trick_order(h["tricks"])
    rev = h.get("revealed", [False, False, False])
    seq = []
    for k in range(12):
        for s in range(3):
            if rev[s] and k == 3 * s + 1:
                c = h["contracts"][s]
                seq.append([s, "REDO" if c[:5] == "REDO:" else c])
        seq.append(order[k])
    return seq


def pick(rig, value):
    """In a pick phase: step DOWN until `value` is under the cursor, then OK."""
    f = rig.app.flow
    for _ in range(len(f.choices)):
        if f.choices[f.cursor] == value:
            rig.tap(OK, 30 * MS, 30 * MS)
            return
        rig.tap(DOWN, 30 * MS, 30 * MS)
    raise AssertionError("%r not offered in %r" % (value, f.choices))


def choose(rig, trump, ranking):
    """HAND -> TRUMP -> RANK -> PLAY."""
    rig.tap(OK)
    pick(rig, trump)
    pick(rig, ranking)


def reveal(rig, seat, contract):
    rig.press(seat)
    rig.wait(HOLD)
    rig.release(seat)
    rig.wait(60 * MS)
    pick(rig, contract)


def play_seq(rig, seq):
    for e in seq:
        if isinstance(e, int):
            rig.tap(e)
        else:
            reveal(rig, e[0], e[1])


def enter_contracts(rig, h):
    """After the 12th trick: each unrevealed contract, a Redo's target."""
    rev = h.get("revealed", [False, False, False])
    for s in range(3):
        c = h["contracts"][s]
        redo = c[:5] == "REDO:"
        if not rev[s]:
            pick(rig, "REDO" if redo else c)
        if redo:
            pick(rig, c[5:])


def play_hand(rig, h):
    """One hand from HAND to RESULT."""
    choose(rig, h["trump"], h["ranking"])
    play_seq(rig, hand_seq(h))
    enter_contracts(rig, h)


def play_game(rig, record, start=True):
    """Start Speed Run and play every hand of `record`; OK on RESULT and on
    FINAL, so the record is stored and logged.  Returns the logged record."""
    if start:
        rig.app.start("speedrun", rig.t, {"length": record["length"]})
    hands = record["hands"]
    for i in range(len(hands)):
        h = hands[i]
        if i == 0 and h.get("first", 0) != 0:
            rig.tap(h["first"])  # SR-5: who holds the first-player card
        play_hand(rig, h)
        rig.tap(OK)  # RESULT -> next HAND, or FINAL
    rig.tap(OK)      # FINAL: save and end
    ends = rig.log.of("game_end")
    return ends[-1]["record"] if ends else None


def report(root, record):
    """The facts the tests compare across runtimes, as one JSON-able dict."""
    rig = Rig(root)
    rec = play_game(rig, record)
    plain = dict(rec)
    del plain["id"]
    g = speedrun.replay(plain)
    return {
        "record": rec,
        "engine": g.to_record(),
        "totals": g.totals,
        "winners": g.winners(),
        "tiebreak": g.tiebreak,
        "ended_early": g.ended_early,
        "stored": rig.store.records()[-1],
        "hand_lines": rig.log.of("hand"),
        "screen": rig.screen_name(),
        "saved_game": rig.store.load_game()[0],
    }
