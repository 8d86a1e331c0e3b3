"""Full seeded games per second, run on either runtime (CPython or MicroPython).

    micropython benchmarks/engine_games.py GAME N      (MICROPYPATH: build/mpy:tests/mpy)
    python benchmarks/engine_games.py GAME N

Plays N full games with the golden-playthrough drivers (card-level engine plus
the table-level scorer) and prints one line: `GAME N MILLISECONDS LIVE_PEAK`.
With a 4th argument `peak`, the transcript sink runs gc.collect() and samples
gc.mem_alloc() at every event: LIVE_PEAK is then the high-water mark of live
heap (bytes, this runtime's word size), at event granularity; otherwise 0.
Lines are streamed to the sink, so the heap holds the game, not its transcript.
"""
import sys
import time
import gc

_PEAK = [0]
_SAMPLE = [False]


def _clock():
    if hasattr(time, "ticks_ms"):
        return time.ticks_ms()
    return int(time.perf_counter() * 1000)


def _sink(line):
    if _SAMPLE[0]:
        gc.collect()
        a = gc.mem_alloc()
        if a > _PEAK[0]:
            _PEAK[0] = a


def one(game, seed):
    # Each game's golden-playthrough driver, tests/mpy/<game>_golden.py, plays
    # one whole game with real cards: play(seed, out=line_sink).
    try:
        m = __import__(game + "_golden")
    except ImportError:
        raise SystemExit("unknown game " + game)
    m.play(seed, out=_sink)


def main(argv):
    game = argv[1]
    n = int(argv[2]) if len(argv) > 2 else 10
    first = 1
    _SAMPLE[0] = len(argv) > 3 and argv[3] == "peak"
    gc.collect()
    t0 = _clock()
    for seed in range(first, first + n):
        one(game, seed)
    ms = _clock() - t0
    if hasattr(time, "ticks_diff"):
        ms = time.ticks_diff(_clock(), t0)
    print(game, n, ms, _PEAK[0])


main(sys.argv)
