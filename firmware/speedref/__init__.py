# speedref: a referee for fast card games. This package is copied to the board
# as it is; CPython imports it from firmware/ for the simulator and host tools.
VERSION = "0.1.0"

import sys as _sys

if _sys.implementation.name == "micropython":
    # The heap collected at the referee's quiet moments (the end of a pass
    # that saved, a game's start and end), so the allocator never has to
    # inside a race.
    from gc import collect
else:
    def collect():
        """CPython frees an object by reference count as soon as it is
        dropped; a full collection there walks every object of the process
        (milliseconds in a test run, most of a simulated game's time) and
        frees nothing a board's would.  Only the youngest generation, where
        the app's own reference cycles are, is collected."""
        import gc
        gc.collect(0)


def forget(name):
    """Drop module `name` (from sys.modules and from its package), so its
    code is collected once nothing refers to it: a .mpy module's bytecode
    lives in the heap.  The boot's wiring, the menu while a game runs, a
    finished game.  Only on MicroPython: CPython has the memory, and its
    tools and tests keep references to the modules' classes."""
    import sys
    if sys.implementation.name != "micropython" or name not in sys.modules:
        return
    del sys.modules[name]
    pkg, _, leaf = name.rpartition(".")
    parent = sys.modules.get(pkg)
    if parent is not None and hasattr(parent, leaf):
        delattr(parent, leaf)
