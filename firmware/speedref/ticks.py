# Tick arithmetic for timestamps in microseconds.  On a board these are
# MicroPython's own (they wrap at 2**30 on 32-bit ports).  On CPython (the
# simulator) we mirror a 32-bit board exactly, wrap included, so a time
# comparison that forgets ticks_diff breaks in the simulator too.
try:
    from time import ticks_diff, ticks_add
except ImportError:
    _PERIOD = 1 << 30
    _HALF = 1 << 29

    def ticks_diff(a, b):
        return ((a - b + _HALF) & (_PERIOD - 1)) - _HALF

    def ticks_add(a, d):
        return (a + d) & (_PERIOD - 1)
