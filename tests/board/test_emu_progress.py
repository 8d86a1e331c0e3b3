"""speedref-emu --script tells how far it has got (emu/__main__.Progress):
the emulated Pico runs slower than real time, and a script that printed its
first line and then nothing for minutes looked hung."""
import io

from emu.__main__ import Progress


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_progress_says_board_time_against_wall_time_every_few_seconds_and_at_the_end():
    err, clock = io.StringIO(), Clock()
    p = Progress(err, clock, every_s=5.0)
    clock.t += 1.0
    p(300000, 60000000)                 # 1 s in: quiet
    assert err.getvalue() == ""
    clock.t += 4.5
    p(1800000, 60000000)                # 5.5 s in: a line
    clock.t += 1.0
    p(2100000, 60000000)                # 1 s after it: quiet again
    clock.t += 194.5
    p(60000000, 60000000)               # the end: always a line
    lines = err.getvalue().splitlines()
    assert lines == [
        "speedref-emu: board 1.8 of 60.0 s, 6 s wall (0.33x real time)",
        "speedref-emu: board 60.0 of 60.0 s, 201 s wall (0.30x real time)",
    ]


def test_a_short_script_says_only_where_it_ended():
    err, clock = io.StringIO(), Clock()
    p = Progress(err, clock, every_s=5.0)
    for k in range(1, 10):
        clock.t += 0.2
        p(k * 100000, 1000000)
    clock.t += 0.2
    p(1000000, 1000000)
    assert err.getvalue().splitlines() == ["speedref-emu: board 1.0 of 1.0 s, 2 s wall (0.50x real time)"]
