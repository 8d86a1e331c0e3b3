# The timings a person at the table feels, in one place: how long a pad is
# held to call "stuck", how soon a held key repeats, how long OK is held to
# mean BACK, how long a countdown step is, how long a contact is debounced,
# how close two slaps are to count as a tie.  Each says what a player feels
# and why that value, the way micropython-async's Pushbutton keeps
# long_press_ms and double_click_ms on the class with the reason beside them.
#
# Every module that times something a player notices reads it from here
# (docs/timing.md lists them).  Times are microseconds (ticks_us), compared
# only with ticks_diff.  Where a rule in seeds/ states the value, it is
# named: change the rule's text with the value.  The rules' own timings
# stay with the rules (engine/spit.SLAP_GO_US, SPIT-17), and the device
# loop's pace (device.IDLE_MS) is felt by nobody: presses are stamped by the
# capture, not the loop.
#
# Module constants (micropython.const): a user that imports one gets a small
# int, nothing is allocated when it is read.  Users copy them when they are
# imported (`from ..tunables import X`), and nothing reads this
# module afterwards: the board forgets it once the device is built and once
# a game's modules have loaded (wiring.build, App._run): its names leave the heap.
from micropython import const

# ---- the nav keys ------------------------------------------------------------
# OK held this long is BACK, for boards without a BACK button, so OK acts
# when it is let go.  0.8 s (SP-26): well past a firm click (0.1-0.3 s), so
# nobody backs out of a screen by pressing OK slowly, and short enough that
# a player who means BACK does not wonder whether it worked.
LONG_OK_US = const(800000)

# UP or DOWN held this long starts repeating (Spit's card count after a
# relayout, 1..51, SPIT-12) ...
REPEAT_US = const(500000)
# ... one step this often: 12 a second, 25 cards in about 2 s, and still
# slow enough to let go on the number you want.
REPEAT_EVERY_US = const(80000)

# ---- a pad tapped or held (timing.PadHold) ----------------------------------
# Speed: a pad held this long is a stuck call, let go sooner it is a tap
# ("I'm out", a slap); the opponent's pad held this long answers "yes" to
# an out claim.  0.5 s (SP-14, SP-16, SP-26): a tap or a slap is up again
# in 0.1-0.3 s, and a stuck player can wait half a second.  A slap-to-win
# verdict waits at most this long for the pads to come up (SP-17): a
# winner still down then was calling stuck, not slapping.
SPEED_HOLD_US = const(500000)
# Spit: held this long is a stuck call, a tap is "my stock piles are empty"
# (SPIT-9, SPIT-21).  0.5 s, as in Speed, for the same hands.
SPIT_HOLD_US = const(500000)
# Speed Run: held this long opens a reveal, a tap is "I won the trick"
# (SR-11, SR-21, SR-32).  0.8 s, longer than Speed's: nothing in Speed Run
# is a race, and a reveal doubles a score, so a trick tap that lingers must
# not become one.
SPEEDRUN_HOLD_US = const(800000)

# Speed: a pad press that begins this soon after "P1 is out?" appears is a
# reflex to the claimant's tap (110-300 ms is normal) and means nothing;
# after it the opponent answers deliberately.  0.5 s (SP-16).
CLAIM_WAIT_US = const(500000)

# ---- countdowns (timing.Countdown) ------------------------------------------
# "3", "2", "1" a second apart, then GO, both with a beep: a pace anyone can
# anticipate, which is what makes a flip at GO simultaneous (SP-6, SP-14,
# SPIT-4, SPIT-8).
COUNT_STEP_US = const(1000000)
COUNT_GO_US = const(3 * COUNT_STEP_US)  # GO exactly three steps after "3"
# A false start calls the countdown off until its GO instant and at least
# this long after the false start, so the other player's press just after
# it counts as the same anticipation, not as play (SP-22, SPIT-18).
FOUL_US = const(500000)

# ---- Spit's slap ------------------------------------------------------------
# After the first slap counts, the verdict waits this long for the second,
# so its margin is shown ("P1 by 3.2 ms"); later, the lone slap wins
# (SPIT-10).  1 s: a player who slaps at all slaps well within it.
SLAP_WAIT_US = const(1000000)

# ---- pad lights -------------------------------------------------------------
# A verdict lights the winner's pad (both on a tie), a false start blinks
# the jumper's, for this long: long enough to look down at the pads after
# the buzzer, short enough not to linger into what comes next.
LIGHT_US = const(1500000)
# Half a blink: 4 blinks a second, unmistakably "foul", not "ready".
BLINK_US = const(125000)

# ---- debounce ---------------------------------------------------------------
# After a button's edge is taken, its changes are ignored this long: the
# arcade microswitches settle in a few ms.  A player feels it as "two taps
# closer than 10 ms are one"; a tap shorter than it is still seen (the
# level is resynchronised when the lockout ends).
BOUNCE_US = const(10000)   # the input decoder (inputs.Inputs), every board
LOCKOUT_US = const(10000)  # the pin-interrupt capture (hw/capture.Capture)

# ---- tie windows ------------------------------------------------------------
# Two slaps closer than this are a tie (SP-17, SPIT-10).  The default of a
# game's "Tie ms: auto" follows the capture path that stamps the presses
# (docs/timing.md, benchmarks/fairness.py): at least the error of the
# margin shown, so "P1 by 0.3 ms" is true, and no wrong verdict.
TIE_PIO_US = const(10)         # rp2 PIO: margins exact to 1 us
TIE_RP2_IRQ_US = const(100)    # rp2 hard pin interrupts: margins off by up to ~75 us
TIE_ESP32_IRQ_US = const(5000)  # ESP32 soft interrupts: stamps off by up to ~5 ms
# Without a board (the simulator): 5 ms, the window its recorded scripts
# were written for.
TIE_DEFAULT_US = const(5000)
