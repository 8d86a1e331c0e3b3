"""Fragment the MicroPython heap on purpose (tests and benchmarks of code that
must work when no large block is free).

fragment(hole) fills the heap with equal blocks of `hole` bytes and frees every
other one, so no free block is much bigger than `hole`.  It returns the list
keeping the other half alive: drop it to give the memory back.
"""
import gc


def fragment(hole=512, slots=2000):
    keep = [None] * slots
    gc.collect()
    n = 0
    try:
        while n < slots:
            keep[n] = (0,) * ((hole - 16) // 8)  # a tuple of this many words is `hole` bytes
            n += 1
    except MemoryError:
        pass
    for k in range(0, n, 2):
        keep[k] = None
    gc.collect()
    return keep
