"""MicroPython's `micropython` module, the part the firmware uses, for CPython.

The firmware writes `from micropython import const` as micropython-lib does
(and `@micropython.viper` over the one function drawn as machine code):
on a board (and on the Unix port, and in the web page's WebAssembly build)
that is the built-in module, which always takes precedence over a file of
the same name, and the compiler folds every const() away.  CPython, where
the simulator, the host tools and the tests import the same engine and app
code, finds this file instead.  It is never copied to a board.
"""


def viper(f):
    """The function itself: on CPython a viper function (machine code on a
    board) runs as the plain Python it is written in."""
    return f


def const(x):
    """The value itself: on CPython a constant is an ordinary global."""
    return x
