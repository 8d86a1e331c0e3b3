# speedref: a referee for fast card games. This package is copied to the board
# as it is; CPython imports it from firmware/ for the simulator and host tools.
VERSION = "0.1.0"
