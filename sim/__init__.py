# The desktop simulator: the firmware's own referee app on a virtual board.
