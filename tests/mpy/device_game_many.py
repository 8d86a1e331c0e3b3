# Many short games in a row through the whole device (board_sim.Board), in
# one MicroPython process: after each game the heap is collected and its size
# noted, so a leak of even a few bytes per game shows over 100 games.
# Games: single-deal Speed (SP-19 "single"): [["speed", winner, left, flips], ...]
import gc
import json

from board_sim import Board, choose_game, report
from device_game_speed import play_deal


def main(root, arg_file):
    with open(arg_file) as f:
        games = json.load(f)["games"]
    bd = Board(root)
    opts = {"match": "single"}
    sizes = [0] * len(games)  # preallocated: a growing list would be the leak we measure
    for i in range(len(games)):
        g = games[i]
        choose_game(bd, "speed", opts)
        play_deal(bd, {"events": "F" * g[3], "winner": g[1], "left": g[2]}, opts)
        g = None
        gc.collect()
        sizes[i] = gc.mem_alloc()
    report({"sizes": sizes, "free": gc.mem_free(), "records": sum(1 for _ in bd.store.iter_records()),
            "screen": bd.screen_name()})
