# Plays a Speed match through the whole device (board_sim.Board): the menu,
# then each deal as the two players would work the pads and buttons.
#
# A scenario is what a card-level game (engine/speed_cards.py, run by the test
# on CPython) decided, reduced to what the referee sees at the table:
#   {"opts": {menu options}, "deals": [{"events": "FFR.F", "winner": w,
#    "left": n}, ...]}
# events: one letter per time both players were stuck: F = flip the reserves
# (SP-14), R = the reserves ran out, rebuild, then flip (SP-15).
# The driver keeps its OWN count of the reserve cards (it does not read the
# flow), so it knows what a person would do: after the counted reserves run
# out the screen asks for a rebuild; after a rebuild of unknown size the
# players say "none left" with DOWN.
import json

from board_sim import Board, MS, choose_game, game_end, report
from speedref.app.core import UP, DOWN, OK

COUNTDOWN_US = 3000 * MS + 100 * MS  # 3-2-1-GO is exactly 3 s (SP-6), a little margin


def start_deal(bd):
    bd.tap(OK)          # LAYOUT: the cards are laid out
    bd.tap(0)           # READY: P1 ...
    bd.tap(1)           # ... and P2 (SP-6): the countdown runs
    bd.wait(COUNTDOWN_US)


def stuck_event(bd, ev, reserve):
    """Both players stuck (hold their pads 0.5 s, SP-14).  Returns the
    reserve count the players know of afterwards (None: unknown)."""
    bd.hold_both(0, 1)
    if ev == "R":
        if reserve is None:
            bd.tap(DOWN)    # the flip screen: "DOWN: none left" (rebuilt reserves empty)
        elif reserve != 0:
            raise RuntimeError("card level rebuilt with %d reserve cards counted" % reserve)
        bd.tap(OK)          # REBUILD: keep both tops, shuffle the rest (SP-15), OK
        reserve = None
    elif reserve is not None:
        reserve -= 1
    bd.wait(COUNTDOWN_US)   # the flip countdown, then both turn a card
    return reserve


def play_deal(bd, deal, opts):
    from speedref.engine import speed  # loaded by the flow by now: costs no heap here
    start_deal(bd)
    reserve = speed.reserve_size(opts.get("layout", "pagat"))
    for ev in deal["events"]:
        reserve = stuck_event(bd, ev, reserve)
    w = deal["winner"]
    bd.tap(w)               # "I'm out" (SP-16); with slap-to-win the slap (SP-17)
    bd.wait(600 * MS)       # the slap verdict waits up to 0.5 s
    bd.wait(600 * MS)       # a press sooner after the question is a reflex (SP-16)
    bd.tap(1 - w, 600 * MS)  # the opponent confirms: held 0.5 s
    lo = 0 if opts.get("slap_to_win") else 1  # the count starts at SP-18's lower bound
    bd.taps(UP, deal["left"] - lo)
    bd.tap(OK)              # LEFT: the loser's count
    bd.tap(OK)              # NEXT: next deal (or FINAL: store and end)


def play_match(bd, scenario):
    choose_game(bd, "speed", scenario["opts"])
    for deal in scenario["deals"]:
        play_deal(bd, deal, scenario["opts"])
    return game_end(bd)


def main(root, scenario_file):
    with open(scenario_file) as f:
        scenario = json.load(f)
    bd = Board(root)
    rec = play_match(bd, scenario)
    report({"record": rec, "stored": bd.store.records(),
            "screen": bd.screen_name(), "saved": bd.store.load_game()[0],
            "wrapped": bd.t < bd.t0, "events": bd.device.events,
            "dropped": bd.ring.dropped})
