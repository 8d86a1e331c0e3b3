# A piezo buzzer on PWM that never blocks: cues wait in a small queue and
# the device loop's now_us decides when a tone ends and the next starts.
from ..ticks import ticks_add, ticks_diff

from micropython import const

_QUEUE = const(8)  # cues waiting; more are dropped (a beep late is worse than none)
_DUTY_ON = const(32768)  # half duty: the loudest square wave for a piezo


class Buzzer:
    def __init__(self, pwm):
        self.pwm = pwm
        self._f = [0] * _QUEUE  # freq_hz (0 = a rest)
        self._ms = [0] * _QUEUE
        self._head = 0
        self._n = 0
        self._busy = False
        self._end = 0  # when the sounding tone ends
        self.dropped = 0
        pwm.duty_u16(0)

    def play(self, freq_hz, ms):
        """Queue a cue; it starts at the next update()."""
        if self._n == _QUEUE:
            self.dropped += 1
            return
        i = (self._head + self._n) % _QUEUE
        self._f[i] = freq_hz
        self._ms[i] = ms
        self._n += 1

    def update(self, now_us):
        if self._busy:
            if ticks_diff(now_us, self._end) < 0:
                return
            self._busy = False
            self.pwm.duty_u16(0)
        if self._n:
            f = self._f[self._head]
            ms = self._ms[self._head]
            self._head = (self._head + 1) % _QUEUE
            self._n -= 1
            if f > 0:
                self.pwm.freq(f)
                self.pwm.duty_u16(_DUTY_ON)
            self._busy = True
            self._end = ticks_add(now_us, ms * 1000)

    def silence(self):
        """Stop the tone now and drop the queued cues (the loop stopping)."""
        self._n = 0
        self._busy = False
        self.pwm.duty_u16(0)

    def busy(self):
        return self._busy or self._n > 0

    def due(self):
        """When the sounding tone ends (the loop updates the buzzer then),
        or None."""
        return self._end if self._busy else None
