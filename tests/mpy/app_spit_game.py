# Drive the Spit referee flow through the app with (button, t_us) events, on
# CPython and on the MicroPython Unix port.  Built on app_rig.Rig (the same
# clock, store and log as the Speed tests).  A game is a list of rounds:
#   ("slap", cleared, first, cards_p1, restarts)   two centre piles, a slap race
#   ("pile", cleared, cards_p1, restarts)          one centre pile (SPIT-11)
#   ("blocked", cards_p1)                          restarts until nobody can spit (SPIT-13)
#   ("out", cleared, restarts)                     the win (SPIT-14)
from app_rig import Rig, MS
from speedref.app.core import UP, DOWN, OK

SPIT_DELAY_US = 3100 * MS   # past a 3-2-1 countdown
SLAP_GO_US = 1000 * MS      # from the clearing tap to the slap's GO


def spit_opts(**kw):
    o = {"tie_ms": 5}
    for k in kw:
        o[k] = kw[k]
    return o


def flow_phase(rig):
    return rig.app.flow.phase


def start_round(rig):
    """From the layout screen to play: OK, both call Spit!, 3-2-1, GO."""
    rig.tap(OK)
    rig.tap(0)
    rig.tap(1)
    rig.wait(SPIT_DELAY_US)


def both_stuck(rig):
    """Both players hold their pads until the device takes them as stuck."""
    rig.press(0)
    rig.wait(100 * MS)
    rig.press(1)
    rig.wait(700 * MS)
    rig.release(0)
    rig.release(1)


def restart(rig):
    """Both stuck, then the restart countdown runs to GO (SPIT-8)."""
    both_stuck(rig)
    rig.wait(3000 * MS)


def slap(rig, first, gap_us):
    """Wait for the slap's GO, then `first` slaps and the other `gap_us` later."""
    rig.wait(SLAP_GO_US)
    rig.press(first)
    rig.wait(gap_us)
    rig.press(1 - first)
    rig.wait(60 * MS)
    rig.release(0)
    rig.release(1)
    rig.wait(60 * MS)


def enter_cards(rig, a):
    """UP/DOWN from the suggested count to P1's count `a`, then OK."""
    f = rig.app.flow
    while f.count != a:
        was = f.count
        rig.tap(UP if f.count < a else DOWN, 30 * MS, 30 * MS)
        if f.count == was:
            raise AssertionError("the round cannot leave P1 %d cards (SPIT-22)" % a)
    rig.tap(OK)


def play_round(rig, r, gap_us=7300):
    kind = r[0]
    start_round(rig)
    if kind == "blocked":
        while True:
            both_stuck(rig)
            if _is_cards(rig):
                break
            rig.wait(3000 * MS)
        enter_cards(rig, r[1])
        return
    restarts = r[4] if kind == "slap" else r[-1]
    for _ in range(restarts):
        restart(rig)
    rig.tap(r[1])  # "my stock piles are empty"
    if kind == "slap":
        slap(rig, r[2], gap_us)
        enter_cards(rig, r[3])
    elif kind == "pile":
        enter_cards(rig, r[2])


def _is_cards(rig):
    from speedref.app import spit_flow
    return rig.app.flow.phase == spit_flow.CARDS


def play_game(rig, rounds, opts=None, gap_us=7300):
    """Start Spit and play `rounds`; ends on the final screen with OK, so the
    record is stored and logged.  Returns the logged record."""
    rig.app.start("spit", rig.t, opts or spit_opts())
    for r in rounds:
        play_round(rig, r, gap_us)
    rig.tap(OK)
    ends = rig.log.of("game_end")
    return ends[-1]["record"] if ends else None


# A whole game that visits every kind of round: the slap lost and won by the
# clearer, one centre pile (P1 has 12 cards, no spit cards: SPIT-3/SPIT-11;
# taking it P1 gets P2's 15 stock cards, the 3 spit cards turned and P1's own
# plays), a blocked round after every spit card is used (11 on each pile, so
# P1 keeps at least 12: SPIT-22), and the win by a player without spit cards
# (SPIT-14).
GAME = [
    ("slap", 0, 1, 20, 1),
    ("slap", 0, 0, 12, 0),
    ("pile", 1, 30, 2),
    ("blocked", 12),
    ("out", 0, 1),
]


def spit_game_report(root, rounds=GAME, opts=None, gap_us=7300):
    """The facts the tests compare across runtimes, as one JSON-able dict."""
    from speedref.engine import spit
    rig = Rig(root)
    rec = play_game(rig, rounds, opts, gap_us)
    plain = dict(rec)
    del plain["id"]
    plain.pop("table", None)
    g = spit.replay(plain)
    return {
        "record": rec,
        "engine": g.to_record(),
        "totals": g.totals,
        "winners": g.winners(),
        "stored": rig.store.records()[-1],
        "round_lines": rig.log.of("round"),
        "slaps": rig.log.of("slap"),
        "screen": rig.screen_name(),
        "saved_game": rig.store.load_game()[0],
    }
