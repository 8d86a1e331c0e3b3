# A test rig for the referee app that runs on CPython and on the MicroPython
# Unix port: a Store in a given directory, a log that collects every line,
# a clock (ticks_us values, starting just before the 2**30 wrap so every
# comparison that forgets ticks_diff breaks) and helpers to tap and hold
# buttons while the app gets its ticks.
import json
from speedref.ticks import ticks_add, ticks_diff
from speedref.storage import Store
from speedref.log import Log
from speedref.app.core import App, UP, DOWN, OK, BACK

MS = 1000
TICK_US = 10 * MS  # the device loop ticks much faster; 10 ms is plenty for tests
START_US = (1 << 30) - 2500 * MS


class ListLog:
    """The device's own Log, writing into a list instead of USB: each line
    is parsed back, so the tests see exactly what a laptop would read."""

    def __init__(self):
        self.lines = []
        self._log = Log(write=self._write)

    def _write(self, s):
        self.lines.append(json.loads(s))

    def emit(self, obj):
        self._log.emit(obj)

    def of(self, ev):
        return [x for x in self.lines if x.get("ev") == ev]


class Rig:
    def __init__(self, root, t_us=START_US, log=None):
        self.root = root
        self.t = t_us
        self.log = log if log is not None else ListLog()
        self.store = Store(root)
        self.app = App(self.store, self.log)
        self.app.render()
        self.sounds = []

    def reboot(self):
        """A power cut: a new Store and App on the same files, same clock."""
        self.store = Store(self.root)
        self.app = App(self.store, self.log)
        self.app.render()

    def end_pass(self):
        """What the device loop does after the app's events: the frame drawn,
        the log lines and the save written (App.render, App.commit)."""
        self.app.render()
        self.app.commit()

    def _drain(self):
        self.end_pass()
        while True:
            s = self.app.pop_sound()
            if s is None:
                return
            self.sounds.append(s)

    def wait(self, us):
        """Let `us` pass, ticking the app every TICK_US."""
        end = ticks_add(self.t, us)
        while us > 0:
            step = TICK_US if us > TICK_US else us
            self.t = ticks_add(self.t, step)
            us -= step
            self.app.tick(self.t)
            self.end_pass()
        self.t = end
        self._drain()

    def press(self, b):
        self.app.press(b, self.t)
        self._drain()

    def release(self, b):
        self.app.release(b, self.t)
        self._drain()

    def tap(self, b, hold_us=60 * MS, gap_us=60 * MS):
        self.press(b)
        self.wait(hold_us)
        self.release(b)
        self.wait(gap_us)

    def back(self):
        self.tap(BACK)

    def to_instant(self, t, tick_first):
        """Bring the clock to instant `t` (a countdown's GO) and stop there:
        up to 1 us before it with ticks, then either the device loop's tick
        reaches `t` first (tick_first) or the next event arrives at `t`."""
        self.wait(ticks_diff(t, self.t) - 1)
        if tick_first:
            self.app.tick(t)
            self.end_pass()
        self.t = t

    def phase(self):
        f = self.app.flow
        return None if f is None or self.app.screen is not f else f.phase

    def screen_name(self):
        return type(self.app.screen).__name__


# ---- Speed -------------------------------------------------------------------

def pause_pick(rig, item):
    """BACK opens the pause menu; pick `item` ("Continue", "Undo last",
    "Abandon") by name."""
    rig.back()
    p = rig.app.screen
    assert type(p).__name__ == "Pause"
    for _ in range(p.items.index(item)):
        rig.tap(DOWN)
    rig.tap(OK)


def lit(rig):
    """How many OLED pixels are on."""
    return sum([bin(b).count("1") for b in rig.app.buf])


def draw_alone(rig, f):
    """Draw flow `f`'s screen on a cleared frame; how many pixels are on."""
    rig.app.fb.fill(0)
    f.draw(rig.app.fb)
    return lit(rig)

def speed_opts(**kw):
    o = {"layout": "pagat", "jokers": False, "doubles": False, "hand_limit": 5,
         "slap_to_win": False, "match": "target", "target": 25, "tie_ms": 5}
    for k in kw:
        o[k] = kw[k]
    return o


def start_deal(rig, seats=2):
    """From the layout screen to play: OK, everyone ready (P1 first), the
    3-2-1 countdown."""
    rig.tap(OK)
    for p in range(seats):
        rig.tap(p)
    rig.wait(3100 * MS)


def reserve_flip(rig, seats=2):
    """Every player holds their pad (stuck), 0.1 s apart; the flip
    countdown runs."""
    rig.press(0)
    for p in range(1, seats):
        rig.wait(100 * MS)
        rig.press(p)
    rig.wait(700 * MS)
    for p in range(seats):
        rig.release(p)
    rig.wait(3000 * MS)


def confirm_claim(rig, p):
    """Pad `p` answers "yes" to the out claim on screen (SP-16): a press at
    least 0.5 s after the question, held 0.5 s."""
    rig.wait(600 * MS)
    rig.press(p)
    rig.wait(600 * MS)
    rig.release(p)
    rig.wait(60 * MS)


def enter_left(rig, left):
    """The count on screen: UP from the lowest, OK.  `left` a list (one
    count a player, SP-35): every loser's in turn, the winner's skipped."""
    f = rig.app.flow
    lo = f.deal.left_bounds()[0]
    if isinstance(left, int):
        left = [left]
    else:
        left = [left[p] for p in range(len(left)) if p != f.deal.claimant]
    for n in left:
        for _ in range(n - lo):
            rig.tap(UP, 30 * MS, 30 * MS)
        rig.tap(OK)


def play_deal(rig, winner, left, flips=0, slap_gap_us=None, seats=2):
    """One deal: start, `flips` reserve flips, the winner's claim, the
    next player's confirmation and the count (`left` the loser's, or one a
    player).  With slap-to-win and `slap_gap_us`, the next player slaps
    too, that much later."""
    other = (winner + 1) % seats
    start_deal(rig, seats)
    for _ in range(flips):
        reserve_flip(rig, seats)
    if slap_gap_us is None:
        rig.tap(winner)
    else:
        rig.press(winner)
        rig.wait(slap_gap_us)
        rig.press(other)
        rig.wait(60 * MS)
        rig.release(winner)
        rig.release(other)
        rig.wait(60 * MS)
    confirm_claim(rig, other)  # another player confirms
    enter_left(rig, left)


def play_match(rig, deals, opts=None, slap_gap_us=None):
    """Start Speed and play `deals` [(winner, left), ...]; ends on FINAL
    with OK, so the record is stored and logged.  Returns the record."""
    opts = opts or speed_opts()
    rig.app.start("speed", rig.t, opts)
    seats = opts.get("seats", 2)
    for i, (w, left) in enumerate(deals):
        play_deal(rig, w, left, flips=i % 3, slap_gap_us=slap_gap_us, seats=seats)
        rig.tap(OK)  # NEXT: next deal, or FINAL: save and end
    ends = rig.log.of("game_end")
    return ends[-1]["record"] if ends else None


def speed_match_report(root, deals, opts=None, slap_gap_us=None):
    """The facts the tests compare across runtimes, as one JSON-able dict."""
    from speedref.engine import speed
    rig = Rig(root)
    rec = play_match(rig, deals, opts, slap_gap_us)
    plain = dict(rec)
    del plain["id"]
    plain.pop("table", None)
    return {
        "record": rec,
        "engine": speed.replay(plain).to_record(),
        "stored": rig.store.records()[-1],
        "deal_lines": rig.log.of("deal"),
        "slaps": rig.log.of("slap"),
        "screen": rig.screen_name(),
        "saved_game": rig.store.load_game()[0],
    }
