# The device loop's side of the referee app (docs/app.md), doing nothing:
# device-loop tests (on CPython and MicroPython) subclass it and override
# only the calls they watch.


class IdleApp:
    dirty = False
    lights = 0      # the pads to light
    news = 0        # the frame's rows to send before the rest of it
    out = (None,)   # log lines waiting for the pass's end (App.commit)
    pending = None  # a save waiting for the pass's end
    due = None      # the instant of the app's next cue (App.wake), or None

    def press(self, b, t_us):
        pass

    def release(self, b, t_us):
        pass

    def tick(self, now_us):
        pass

    def render(self):
        pass

    def commit(self):
        pass

    def pop_sound(self):
        return None
