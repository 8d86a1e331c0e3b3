# A complete Spit game through the whole device (board_sim.Board): the menu,
# then app_spit_game.GAME (every kind of round: slaps won and lost by the
# clearer, one centre pile, a blocked round, the win; SPIT-3, SPIT-11,
# SPIT-14) played with pads and buttons by app_spit_game's table script.
from board_sim import Board, choose_game, game_end, report
from speedref.app.core import OK
import app_spit_game as G


def main(root, arg_file):
    bd = Board(root)
    choose_game(bd, "spit", {"tie_ms": "auto"})  # 5 ms on the simulated board
    for r in G.GAME:
        G.play_round(bd, r, 7300)
    bd.tap(OK)  # the final screen: store and end
    report({"record": game_end(bd), "stored": bd.store.records(), "screen": bd.screen_name(),
            "saved": bd.store.load_game()[0], "wrapped": bd.t < bd.t0,
            "dropped": bd.ring.dropped})
