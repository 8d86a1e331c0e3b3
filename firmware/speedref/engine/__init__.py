# The rules engine: pure code, no I/O, no clock, no hardware.
# Import a game's module only when that game starts (each costs heap on the board).
# Every game follows one API ("Engine API" in docs/architecture.md): a table-level
# game object with .phase / .over and the sheet interface (records.py), and a
# card-level `State` (OpenSpiel style) whose current_player() answers with a
# player index or one of these ids (OpenSpiel's values):
CHANCE = -1        # a chance step is due: apply(CHANCE, DEAL)
SIMULTANEOUS = -2  # Speed, Spit: both players act at once (actors())
TERMINAL = -4      # the game is over
