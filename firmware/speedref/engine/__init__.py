# The rules engine: pure code, no I/O, no clock, no hardware.
# Import a game's module only when that game starts (each costs heap on the board).
