# The two timed pieces every real-time flow needs, written once: the 3-2-1-GO
# countdown that starts play (Speed SP-6/SP-14, Spit SPIT-4/SPIT-8), and a pad
# that means two things told apart by how long it is held (a tap or a hold:
# Speed's "I'm out" / "stuck", Spit's "cleared" / "stuck", Speed Run's trick /
# reveal).
#
# Both are polled, in the style of Peter Hinch's Pushbutton (one object per
# input, its timing documented) but without callbacks or asyncio: the flow
# passes every edge and tick in with its time and acts on what comes back.
# They never read a clock and compare times only with ticks_diff (ticks wrap
# at 2**30 on a board).  Nothing here allocates after __init__, so a flow may
# call them from its press handler (tests/app/test_app_*_mpy.py, heap_lock).
from ..ticks import ticks_diff, ticks_add
from .ui import COUNT, UP
from ..tunables import COUNT_STEP_US, COUNT_GO_US, FOUL_US

from micropython import const

OFF = const(5)  # Countdown.cue of a countdown called off by a false start


def press_countdown(flow, b, t_us):
    """A flow's press handler for its countdown phases (listed as is in its
    _PRESS table): a pad `b` pressed at t_us while `flow.countdown` runs.
    Before GO, and while a countdown a false start called off runs on, the
    press is a false start: never a ready call, a stuck call, a clearing or
    a live press (Speed SP-22, Spit SPIT-18).  Once the called-off countdown
    is over, the press belongs to the phase the flow goes back to (its
    _called_off_over); after GO, to play.  The flow gives _false_start(p, early_us, t_us), _called_off_over(),
    _go() and _press_play(b, t_us)."""
    if b >= UP:
        return
    cd = flow.countdown
    if cd.resumes(t_us):
        flow._called_off_over()
        flow._PRESS[flow.phase](flow, b, t_us)
    elif cd.called_off(t_us) or cd.early_us(t_us) > 0:
        flow._false_start(b, cd.early_us(t_us), t_us)
    else:
        flow._go()  # the press came after GO (the tick that gives GO is still to come)
        flow._press_play(b, t_us)


class Countdown:
    """3-2-1-GO on the flow's screen and buzzer.  start(t) shows "3" with a
    COUNT beep at t, "2" at t+1 s, "1" at t+2 s, and GO is at exactly t+3 s
    (a cue is due at its instant, not after it; COUNT_STEP_US and COUNT_GO_US
    in speedref/tunables.py).

    tick(now_us): gives every cue whose time has come, in order (a late tick
      catches up): app.redraw() for each, a COUNT beep for 3, 2 and 1.  True
      once, when GO is due: the flow then does what GO means (its GO sound,
      the start cards, the flip).  A countdown not running says False.
    early_us(t_us): how long before GO t_us is.  More than 0 means a press
      at t_us came before GO (a false start); 0 or less means it belongs to
      play, even when no tick has given GO yet.
    go(): GO is given now (such a press came first); tick() says no more.
    at_go(t_us): GO was given and t_us is its very instant.  A pad that goes
      down then is neither a false start nor live (SP-25, SPIT-20): it was
      pressed before anyone could hear GO, and it means the same whether the
      tick that gives GO or the press came first.
    shown(): the digit on screen, 3, 2 or 1, or 0 once GO is given.

    False starts (SP-6, SPIT-18): a press before GO calls the countdown off.
    It gives no GO, and it stays called off until the later of its GO
    instant and FOUL_US after that first false start: every press until then
    is a false start too (by anyone: a pad pressed before GO never starts
    play, never marks a player ready and never becomes a tap or a hold).
    false_start(p, t_us): pad p pressed at t_us, before GO or while the
      countdown is called off.  True when it is p's first false start in this
      countdown (count and log it), False for p's repeat (the same jump).
    called_off(t_us): the countdown is called off and t_us is within it.
    resumes(now_us): True once, at the first tick at or after the end of a
      called-off countdown: the flow goes back to where the countdown began
      (READY, PLAY).
    stop(): not running and not called off (pause, undo).
    """

    def __init__(self, app):
        self.app = app
        self.t0 = 0     # when the running countdown started
        self.cue = 4    # cues given: 0 before "3", 4 after GO (not running), OFF
        self.end = 0    # OFF: when the called-off countdown is over
        self.fouled = 0  # bit p: pad p made a false start in this countdown
        self.gone = False  # GO was given (at t0 + COUNT_GO_US)

    def start(self, t_us):
        self.t0 = t_us
        self.cue = 0
        self.fouled = 0
        self.gone = False
        self.app.wake(t_us)
        self.app.quiet()  # GO is 3 s away: the heap is collected now, not then

    def stop(self):
        self.cue = 4
        self.fouled = 0
        self.gone = False

    def false_start(self, p, t_us):
        if self.cue < 4:
            self.cue = OFF
            go = ticks_add(self.t0, COUNT_GO_US)
            end = ticks_add(t_us, FOUL_US)
            self.end = end if ticks_diff(end, go) > 0 else go
            self.app.wake(self.end)  # resumes() is due then
            self.app.redraw()
        bit = 1 << p
        first = not (self.fouled & bit)
        self.fouled |= bit
        return first

    def called_off(self, t_us):
        return self.cue == OFF and ticks_diff(t_us, self.end) < 0

    def resumes(self, now_us):
        if self.cue == OFF:
            if ticks_diff(now_us, self.end) >= 0:
                self.cue = 4
                self.fouled = 0
                self.app.redraw()
                return True
            self.app.wake(self.end)
        return False

    def tick(self, now_us):
        while self.cue < 4 and ticks_diff(now_us, ticks_add(self.t0, self.cue * COUNT_STEP_US)) >= 0:
            self.cue += 1
            self.app.redraw()
            if self.cue == 4:
                self.gone = True
                return True
            self.app.sound(COUNT)
        if self.cue < 4:
            # the next cue's instant: the loop wakes for it (GO on the beat)
            self.app.wake(ticks_add(self.t0, self.cue * COUNT_STEP_US))
        return False

    def early_us(self, t_us):
        return -ticks_diff(t_us, ticks_add(self.t0, COUNT_GO_US))

    def go(self):
        self.cue = 4
        self.gone = True

    def at_go(self, t_us):
        return self.gone and ticks_diff(t_us, ticks_add(self.t0, COUNT_GO_US)) == 0

    def shown(self):
        c = self.cue
        return 0 if c >= 4 else (3 if c < 2 else 4 - c)

    def face(self, go_word):
        """The big word the screen shows: the digit, go_word once GO is
        given, or FOUL while a false start has called it off."""
        if self.cue == OFF:
            return "FOUL"
        c = self.shown()
        return str(c) if c else go_word


class PadHold:
    """One pad that is either tapped or held.  A press is "live" when it may
    mean something (the flow says so when it goes down, e.g. it began in
    play); a live press held hold_us is a hold, let go sooner it is a tap.
    The boundary belongs to the hold: down exactly hold_us is a hold.

    press(t_us, live): the pad went down at t_us.
    held(now_us): True once, at the first tick at least hold_us after a live
      press: it became a hold.  From then on the press is no longer live, so
      letting go is not a tap (the flow decides what letting go of a hold
      means: Speed and Spit take the stuck call back).
    release(t_us): the pad went up; True when this was a tap (a live press
      let go within hold_us, even if no tick came in between).
    cancel(): the press in progress means nothing any more (GO came, a false
      start); the pad stays down.
    forget(): as if the pad were up (the pause menu opened over it).

    down (the pad is down), t (when it went down) and live are read by flows
    (Speed's slap-to-win verdict waits for pads to come up).

    With an app, held() asks it for a tick at the instant a live press
    becomes a hold (App.wake): a stuck call, and the countdown it starts,
    come on time however long the loop naps.
    """

    def __init__(self, hold_us, app=None):
        self.hold_us = hold_us
        self.app = app
        self.down = False
        self.t = 0
        self.live = False

    def press(self, t_us, live):
        self.down = True
        self.t = t_us
        self.live = live

    def held(self, now_us):
        if self.live:
            if ticks_diff(now_us, self.t) >= self.hold_us:
                self.live = False
                return True
            if self.app is not None:
                self.app.wake(ticks_add(self.t, self.hold_us))
        return False

    def release(self, t_us):
        tap = self.live and ticks_diff(t_us, self.t) < self.hold_us
        self.down = False
        self.live = False
        return tap

    def cancel(self):
        self.live = False

    def forget(self):
        self.down = False
        self.live = False
