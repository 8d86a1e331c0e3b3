"""Events at an exact instant through the app rig (CPython tests), each then
the rest of the device loop's pass (the frame drawn, the log lines and the
save written: Rig.end_pass).  Kept out of tests/mpy/app_rig.py, which the
MicroPython tests load into their 64 KB heap."""


def press_at(rig, b, t):
    """Button b pressed at instant t (the rig's clock stays)."""
    rig.app.press(b, t)
    rig._drain()


def release_at(rig, b, t):
    rig.app.release(b, t)
    rig._drain()


def tick_at(rig, t):
    """The loop's tick at instant t (the rig's clock stays)."""
    rig.app.tick(t)
    rig._drain()
