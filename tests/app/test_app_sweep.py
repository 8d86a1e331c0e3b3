"""A sweep of every game flow: the app is driven through each phase of a
game, and at every stop each button is pressed alone and in pairs (same
instant), as a tap and, where pads mean something, held to just before and
exactly to the hold threshold.  The stops include the instants just before,
at (no tick yet) and just after every countdown's GO and the slap's GO.
Each probe runs on a copy of the app, so the game goes on unchanged.

What a table relies on, checked after every probe:
  - no press before GO changes a score (SP-22, SPIT-18);
  - a press never both starts and ends a race: no single event gives GO
    (the start, a flip, a spit) and also a verdict (a claim, a clearing,
    a slap, a round), SP-16, SPIT-19;
  - every verdict is logged once: each log line kind moves with the
    state it reports (deals, rounds, hands, slaps, false starts, reveals);
  - undo (the pause menu) after a probe that made one entry gives back the
    state before it exactly, its counters included (SP-23);
  - a press means the same whether or not the device ticked at the GO
    instant or while the pad was held to its threshold (SP-25, SPIT-20,
    SP-26, SPIT-21, SR-32).
Deterministic: the rig's own clock (it crosses the 2**30 tick wrap)."""
import copy
import itertools

import pytest

from app_rig import Rig, MS
from app_spit_game import spit_opts
from app_rig import speed_opts
from speedref.ticks import ticks_add
from speedref.app.core import UP, DOWN, OK, BACK
from speedref.tunables import COUNT_GO_US, SPEED_HOLD_US, SPIT_HOLD_US, SPEEDRUN_HOLD_US, CLAIM_WAIT_US
from speedref.app import speed_flow as spd
from speedref.app import spit_flow as spt
from speedref.app import speedrun_flow as srf
from speedref.app import partners_flow as ptf

BUTTONS = (0, 1, 2, 3, UP, DOWN, OK, BACK)
COMBOS = [(b,) for b in BUTTONS] + list(itertools.combinations(BUTTONS, 2))
TAP_US = 60 * MS
SETTLE_US = 1300 * MS   # longer than Spit's lone-slap wait and every hold
SETTLE_STEP_US = 50 * MS


# ---- what each flow shows the table ------------------------------------------------
def _speed(f):
    m, d = f.match, f.deal
    score = (tuple(tuple(x) for x in m.deals), tuple(m.totals))
    entry = (m.hands_played, f.entries)
    state = (f.phase, f.entries, score, tuple(f.false_starts), tuple(f.codes), d.phase, d.flips,
             d.rebuilds, f.left if f.phase == spd.LEFT else None)
    starts = (d.phase != "ready") + f.entries.count("F") + f.entries.count("R")
    ends = f.entries.count("0") + f.entries.count("1") + f.entries.count("X") + m.hands_played
    logged = {"deal": m.hands_played, "false_start": sum(f.false_starts),
              "claim": f.entries.count("X")}
    n = 1000 * m.hands_played + len(f.entries)
    return score, entry, state, starts, ends, logged, n


def _spit(f):
    g = f.game
    score = (tuple(tuple(x) for x in f.done), tuple(g.cards), g.phase == "over")
    entry = (len(f.done), f.entries)
    state = (f.phase, f.entries, score, tuple(f.false_starts), tuple(g.spit_left), g.restarts,
             f.count if f.phase == spt.CARDS else None)
    starts = f.entries.count("S") + f.entries.count("R")
    ends = sum(f.entries.count(c) for c in "01abB") + len(f.done)
    ab = sum((e.count("a") + e.count("b")) for e, _, _ in f.done) + f.entries.count("a") + f.entries.count("b")
    logged = {"round": len(f.done) + (g.phase == "over"), "slap": ab,
              "false_start": sum(f.false_starts)}
    n = 1000 * len(f.done) + len(f.entries)
    return score, entry, state, starts, ends, logged, n


def _speedrun(f):
    g = f.g
    score = (tuple(g.totals), g.hands_played, tuple(g.perfects))
    entry = (g.hands_played, srf.pack(f.seq), tuple(f.contracts), g.trump, g.ranking)
    # the reveal menu is a question, not an entry: undo goes back to play
    state = (srf.PLAY if f.phase == srf.REVEAL else f.phase, entry, score, tuple(g.tricks), tuple(g.revealed),
             tuple(tuple(h) for h in g.held), repr(g.sheet), repr(f.done))
    reveals = sum(1 for h in f.done for e in srf.unpack(h[2]) if not isinstance(e, int))
    logged = {"hand": g.hands_played, "reveal": reveals + sum(1 for e in f.seq if not isinstance(e, int))}
    n = (1000 * g.hands_played + 10 * len(f.seq) + (g.trump is not None)
         + sum(c is not None for c in f.contracts))
    return score, entry, state, 0, 0, logged, n


def _partners(f):
    g = f.game
    score = (tuple(g.totals), g.hands_played)
    entry = (repr(f.hands), g.contract, bytes(g.winners_seq), f.first)
    # the reveal menu is a question, not an entry: undo goes back to play
    state = (srf.PLAY if f.phase == srf.REVEAL else f.phase, entry, score, bytes(g.seats), tuple(g.tricks), g.dealer, f.bid, f.trump,
             f.stopped)
    logged = {"hand": g.hands_played}
    n = (1000 * g.hands_played + 10 * len(g.winners_seq) + (g.contract is not None)
         + (f.first is not None))
    return score, entry, state, 0, 0, logged, n


VIEWS = {"speed": _speed, "spit": _spit, "speedrun": _speedrun, "partners": _partners}
UNDO_LINES = {"deal", "round", "hand"}  # lines an undo takes back with an "undo" line


def view(rig):
    f = rig.app.flow
    return VIEWS[f.GAME](f) if f is not None else None


# ---- the sweep rig -----------------------------------------------------------------
class SweepRig(Rig):
    """Every event goes through step(), which checks that it did not both
    start and end a race."""

    def step(self, call):
        before = view(self)
        call()
        self._drain()
        after = view(self)
        if before is None or after is None or self.app.flow is None:
            return
        started = after[3] > before[3]
        ended = after[4] > before[4]
        assert not (started and ended), (
            "one event both started and ended a race (SP-16, SPIT-19): %r -> %r" % (before[2], after[2]))

    def press(self, b):
        self.step(lambda: self.app.press(b, self.t))

    def release(self, b):
        self.step(lambda: self.app.release(b, self.t))

    def tick(self):
        self.step(lambda: self.app.tick(self.t))

    def wait(self, us, step_us=10 * MS):
        end = ticks_add(self.t, us)
        while us > 0:
            s = step_us if us > step_us else us
            self.t = ticks_add(self.t, s)
            us -= s
            self.tick()
        self.t = end

    def skip(self, us):
        """Let time pass with no tick (the device loop's nap)."""
        self.t = ticks_add(self.t, us)


def fork(rig):
    """A copy of the rig and its app (the frame buffer rebuilt on the copy's bytes)."""
    import framebuf
    buf = bytearray(rig.app.buf)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    blank = framebuf.FrameBuffer(buf, 1024, 1, framebuf.GS8)  # App's fast clear
    return copy.deepcopy(rig, {id(rig.app.buf): buf, id(rig.app.fb): fb,
                                    id(rig.app._blank): blank})


def counts(rig):
    out = {}
    for x in rig.log.lines:
        out[x.get("ev")] = out.get(x.get("ev"), 0) + 1
    return out


def probe(rig, combo, hold_us, pre_go):
    """Press `combo` at the same instant, hold `hold_us`, let go, let it settle."""
    f0 = rig.app.flow
    v0 = view(rig)
    lines0 = counts(rig)
    for b in combo:
        rig.press(b)
    v_pressed = view(rig)
    started = v_pressed[3] > v0[3]  # this press gave GO (no tick had yet)
    if hold_us < 0:
        rig.skip(-hold_us)
    else:
        rig.wait(hold_us)
    if pre_go:
        # SP-22, SPIT-18: whatever was pressed before GO, no score moved
        assert view(rig)[0] == v0[0] and v_pressed[0] == v0[0], (
            "SP-22/SPIT-18: a press before GO changed a score: %r" % (combo,))
    for b in combo:
        rig.release(b)
    v_released = view(rig)
    if v_released is not None and rig.app.flow is f0:
        assert not (started and v_released[4] > v_pressed[4]), (
            "%r gave GO and, let go, ended the race it started (SP-16, SPIT-19)" % (combo,))
    rig.wait(SETTLE_US, SETTLE_STEP_US)
    v1 = view(rig)
    if v1 is None or rig.app.flow is not f0:
        return v0, None
    # every verdict logged once: each kind of line moved with its state
    lines1 = counts(rig)
    undos = lines1.get("undo", 0) - lines0.get("undo", 0)
    for ev, n1 in v1[5].items():
        d_state = n1 - v0[5][ev]
        d_lines = lines1.get(ev, 0) - lines0.get(ev, 0)
        if ev in UNDO_LINES:
            d_lines -= undos
        assert d_lines == d_state, (
            "%s: %d line(s) for %d verdict(s) after %r at phase %r" % (ev, d_lines, d_state, combo, v0[2][0]))
    return v0, v1


def undo_check(rig, v0, v1, combo):
    """One entry made: the pause menu's undo gives the state before it back."""
    if v1 is None or v1[6] <= v0[6] or v1[3] != v0[3] or rig.app.screen is not rig.app.flow:
        return  # no entry made, or GO came in between (GO is not an entry)
    if not rig.app.flow.can_undo():
        return
    rig.press(BACK)
    rig.release(BACK)
    p = rig.app.screen
    for _ in range(p.items.index("Undo last")):
        rig.press(DOWN)
        rig.release(DOWN)
    rig.press(OK)
    rig.release(OK)
    v2 = view(rig)
    assert v2[2] == v0[2], "SP-23: undo after %r did not restore the state:\n%r\n%r" % (combo, v0[2], v2[2])


class Sweep:
    def __init__(self, seats):
        self.seats = seats
        self.probes = 0
        self.stops = []

    def at(self, rig, name, holds=(TAP_US,), pre_go=False, down=()):
        """Probe every combination at this stop.  `down`: pads already held
        (not pressed again)."""
        self.stops.append(name)
        base = fork(rig)
        out = {}
        for combo in COMBOS:
            if any(b in down for b in combo):
                continue
            for h in holds:
                r = fork(base)
                v0, v1 = probe(r, combo, h, pre_go and any(b < self.seats for b in combo))
                out[combo, h] = v1 and v1[2]
                self.probes += 1
                if len(combo) == 1 and BACK not in combo:
                    undo_check(r, v0, v1, combo)
        for (combo, h), v in out.items():
            if h < 0:
                assert v == out[combo, -h], (
                    "SP-26, SPIT-21, SR-32: %r held %d us means one thing with or without a tick "
                    "while it was down, at %s" % (combo, -h, name))
        return out


def hold_set(hold_us):
    """A tap, held to just before the threshold, to it with the device's
    ticks, and to it with no tick while the pad was down (negative)."""
    return (TAP_US, hold_us - 1, hold_us, -hold_us)


def countdown_stops(sw, rig, name, t_start, holds=(TAP_US,)):
    """Stops at GO-1 us (ticked), at GO with no tick yet and with GO's tick
    given (a press at the GO instant means the same either way, whichever
    the device loop handled first), and just after GO."""
    rig.wait(ticks_diff(ticks_add(t_start, COUNT_GO_US - 1), rig.t))
    sw.at(rig, name + " GO-1us", pre_go=True)
    rig.skip(1)
    no_tick = sw.at(rig, name + " GO, no tick yet", holds)
    ticked = fork(rig)
    ticked.tick()
    assert sw.at(ticked, name + " GO ticked", holds) == no_tick, (
        "a press at the GO instant means one thing whether or not GO's tick came first")
    rig.skip(1)
    rig.tick()
    sw.at(rig, name + " GO+1us")


def ticks_diff(a, b):
    from speedref.ticks import ticks_diff as td
    return td(a, b)


@pytest.fixture
def rig(tmp_path):
    return SweepRig(str(tmp_path))


def tap(rig, b, hold=TAP_US):
    rig.press(b)
    rig.wait(hold)
    rig.release(b)
    rig.wait(TAP_US)


# ---- the four games -----------------------------------------------------------------
@pytest.mark.parametrize("slap_to_win", [False, True])
def test_speed_sweep_SP16_SP22_SP23_SP25_SP26(rig, slap_to_win):
    sw = Sweep(2)
    rig.app.start("speed", rig.t, speed_opts(slap_to_win=slap_to_win))
    f = rig.app.flow
    sw.at(rig, "LAYOUT")
    tap(rig, OK)
    sw.at(rig, "READY")
    tap(rig, 0)
    sw.at(rig, "READY P1 ready")
    rig.press(1)
    t0 = rig.t
    rig.wait(TAP_US)
    rig.release(1)
    sw.at(rig, "COUNT_DOWN", pre_go=True)
    countdown_stops(sw, rig, "start", t0, hold_set(SPEED_HOLD_US))
    assert f.phase == spd.PLAY
    rig.wait(200 * MS)
    sw.at(rig, "PLAY", hold_set(SPEED_HOLD_US))
    rig.press(0)
    rig.wait(SPEED_HOLD_US)
    sw.at(rig, "PLAY P1 stuck", hold_set(SPEED_HOLD_US), down=(0,))
    rig.press(1)
    rig.wait(SPEED_HOLD_US)
    assert f.phase == spd.FLIP
    t0 = f.countdown.t0
    rig.release(0)
    rig.release(1)
    countdown_stops(sw, rig, "flip", t0, hold_set(SPEED_HOLD_US))
    rig.wait(200 * MS)
    if slap_to_win:
        rig.press(0)
        rig.wait(7300)
        rig.press(1)
        rig.wait(TAP_US)
        rig.release(0)
        rig.release(1)
        rig.wait(200 * MS)
    else:
        tap(rig, 0)
    assert f.phase == spd.CLAIM
    t_claim = f.claim_t
    rig.wait(ticks_diff(ticks_add(t_claim, CLAIM_WAIT_US - 1), rig.t))
    sw.at(rig, "CLAIM reflex", hold_set(SPEED_HOLD_US))
    rig.skip(1)
    sw.at(rig, "CLAIM answer", hold_set(SPEED_HOLD_US))
    rig.press(1)
    rig.wait(SPEED_HOLD_US + 20 * MS)
    rig.release(1)
    assert f.phase == spd.LEFT
    sw.at(rig, "LEFT")
    tap(rig, OK)
    sw.at(rig, "NEXT")
    assert sw.probes > 500


def test_spit_sweep_SPIT18_SPIT19_SPIT20_SPIT21(rig):
    sw = Sweep(2)
    rig.app.start("spit", rig.t, spit_opts())
    f = rig.app.flow
    sw.at(rig, "LAYOUT")
    tap(rig, OK)
    sw.at(rig, "READY")
    tap(rig, 0)
    rig.press(1)
    t0 = rig.t
    rig.wait(TAP_US)
    rig.release(1)
    sw.at(rig, "START", pre_go=True)
    countdown_stops(sw, rig, "start", t0, hold_set(SPIT_HOLD_US))
    rig.wait(200 * MS)
    sw.at(rig, "PLAY", hold_set(SPIT_HOLD_US))
    rig.press(0)
    rig.wait(SPIT_HOLD_US)
    sw.at(rig, "PLAY P1 stuck", hold_set(SPIT_HOLD_US), down=(0,))
    rig.press(1)
    rig.wait(SPIT_HOLD_US)
    assert f.phase == spt.RESTART
    t0 = f.countdown.t0
    rig.release(0)
    rig.release(1)
    sw.at(rig, "RESTART", pre_go=True)
    countdown_stops(sw, rig, "restart", t0, hold_set(SPIT_HOLD_US))
    rig.wait(200 * MS)
    tap(rig, 0)
    assert f.phase == spt.SLAP
    go = f.go_t
    rig.wait(ticks_diff(ticks_add(go, -1), rig.t))
    sw.at(rig, "SLAP GO-1us", pre_go=True)
    rig.skip(1)
    sw.at(rig, "SLAP GO, no tick yet")
    rig.tick()
    rig.skip(1)
    rig.tick()
    sw.at(rig, "SLAP GO+1us")
    rig.press(1)
    rig.wait(TAP_US)
    rig.release(1)
    rig.wait(SETTLE_US)
    assert f.phase == spt.CARDS
    sw.at(rig, "CARDS")
    assert sw.probes > 500


def test_speedrun_sweep_SR12_SR21_SR32(rig):
    sw = Sweep(3)
    rig.app.start("speedrun", rig.t, {"length": "short"})
    f = rig.app.flow
    sw.at(rig, "HAND")
    for _ in range(2):
        if f.g.hands_played == 1:
            sw.at(rig, "HAND 2")
        tap(rig, OK)
        sw.at(rig, "TRUMP")
        tap(rig, OK)
        sw.at(rig, "RANK")
        tap(rig, OK)
        assert f.phase == srf.PLAY
        sw.at(rig, "PLAY", hold_set(SPEEDRUN_HOLD_US))
        for k in range(12):
            if k == 6 and f.g.hands_played == 1:
                rig.press(2)
                rig.wait(SPEEDRUN_HOLD_US)
                rig.release(2)
                assert f.phase == srf.REVEAL
                sw.at(rig, "REVEAL")
                while f.choices[f.cursor] != "REDO":
                    tap(rig, DOWN)
                tap(rig, OK)
            tap(rig, k % 3)
        assert f.phase == srf.CONTRACT
        sw.at(rig, "CONTRACT")
        while f.phase == srf.CONTRACT or f.phase == srf.TARGET:
            if f.phase == srf.TARGET:
                sw.at(rig, "TARGET")
            tap(rig, OK)
        assert f.phase == srf.RESULT
        sw.at(rig, "RESULT")
        tap(rig, OK)
    assert sw.probes > 500


def test_partners_sweep_PT13_PT23(rig):
    sw = Sweep(4)
    rig.app.start("partners", rig.t, {"target": 100})
    f = rig.app.flow
    sw.at(rig, "DEALER")
    tap(rig, 0)
    for ph in (ptf.BID, ptf.TRUMP):
        assert f.phase == ph
        sw.at(rig, "phase %d" % ph)
        tap(rig, OK)
    assert f.phase == ptf.CONTRACTOR
    sw.at(rig, "CONTRACTOR")
    tap(rig, 0)  # the dealer: 7 clubs is the dealer's contract only (PT-24)
    sw.at(rig, "PARTNER")
    tap(rig, 1)
    if f.phase == ptf.SWAP:
        sw.at(rig, "SWAP")
        tap(rig, OK)
    assert f.phase == ptf.TRICKS
    sw.at(rig, "TRICKS")
    for k in range(12):
        tap(rig, k % 4)
    sw.at(rig, "TRICK 13")
    tap(rig, 0)
    sw.at(rig, "HAND")
    tap(rig, OK)
    sw.at(rig, "TOTALS")
    assert sw.probes > 300
