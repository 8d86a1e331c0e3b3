# A complete partners game (seed 003, to 100) through the whole device
# (board_sim.Board): the hands worked out by hand in app_partners_game.GAME_100,
# the trick winners tapping the pad of the seat they sit in (PT-8 seat swaps
# tracked by the driver's own table).

from board_sim import Board, game_end, report
from device_game_e2e import partners


def main(root, arg_file):
    bd = Board(root)
    partners(bd)
    rec = game_end(bd)
    report({"record": rec, "stored": bd.store.records(),
            "screen": bd.screen_name(), "saved": bd.store.load_game()[0],
            "wrapped": bd.t < bd.t0, "dropped": bd.ring.dropped})
