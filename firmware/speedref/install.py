# A store's install id (storage.py): 8 random hex digits, drawn the first
# time a store numbers a game, so a wiped flash, a fresh simulator store or
# a new browser profile never repeats a record id.  Loaded only to draw one.
import os


def draw():
    """8 hex digits nobody else drew: os.urandom, which on the rp2 port is
    the pico-sdk's pico_rand (ROSC random bits, the timer, the board id) and
    on the ESP32 its hardware RNG; the WebAssembly port has no urandom, but
    seeds its random module from the browser's crypto.getRandomValues.  The
    clock is mixed in too, for a port whose generator is missing or weak (the
    instant a table starts its first game differs in its microseconds from
    one install to the next)."""
    try:
        raw = bytearray(os.urandom(4))
    except AttributeError:
        try:
            import random
            r = random.getrandbits(32)
            raw = bytearray([(r >> (8 * i)) & 0xFF for i in range(4)])
        except (ImportError, AttributeError):
            raw = bytearray(4)
    try:
        from time import ticks_cpu, ticks_us
        t = ticks_us() ^ (ticks_cpu() << 7)
    except ImportError:  # CPython
        from time import time
        t = int(time() * 1000000)
    for i in range(4):
        raw[i] ^= (t >> (8 * i)) & 0xFF
    return "%02x%02x%02x%02x" % (raw[0], raw[1], raw[2], raw[3])
