"""The simulator's virtual table: computer players (and, in --play, a
person) at the referee on a virtual board.

The shared kit, which names no game:
  base.py       Table: the virtual board, fingers on its buttons, the
                simulated clock, the menu presses that start a game
  runner.py     --table GAME: games at fresh tables, the summary
Each game's own modules, side by side, importing only the kit:
  <game>_table.py   its computer players and the truth they keep
                    (the registry entry's `table`)
The registry (speedref/games.py) names each game's modules; nothing here
lists the games.
"""
