# A complete Speed Run game through the whole device (board_sim.Board): the
# menu, then every hand of a canonical record (a seeded card-level game,
# written one hand per line by app_speedrun_game.write_record) entered with
# pads and buttons by app_speedrun_game's table script.
import json

from board_sim import Board, choose_game, game_end, report
import app_speedrun_game as G


def main(root, arg_file):
    with open(arg_file) as f:
        path = json.load(f)["path"]
    with open(path) as f:
        length = json.loads(f.readline())["length"]
    bd = Board(root)
    choose_game(bd, "speedrun", {"length": length})
    G.play_game(bd, path, start=False)
    report({"record": game_end(bd), "stored": bd.store.records(), "screen": bd.screen_name(),
            "saved": bd.store.load_game()[0], "wrapped": bd.t < bd.t0,
            "dropped": bd.ring.dropped})
