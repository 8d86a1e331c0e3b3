# Drive the Speed Run flow with (button, t_us) events, on CPython and on the
# MicroPython Unix port: a canonical record (with "first", "trump" and
# "ranking" on each hand) is turned into the presses a table would make.
# Only the engine's table-level module is needed, never the card level.
import json
from app_rig import Rig, MS
from speedref.app.core import DOWN, OK
from speedref.log import Log


class FileLog:
    """Like app_rig.ListLog (the device's own Log, every line kept) but the
    lines go to a file, as they would to a laptop: a 12-hand game logs dozens
    of lines, and keeping them would take the 64 KB heap the app needs."""

    def __init__(self, path):
        self.path = path
        self._f = open(path, "w")
        # Streamed into the file as the board streams into USB (speedref/log.py):
        # a Long game's game_end line never exists as one string in the heap.
        self._log = Log(stream=self._f)

    def emit(self, obj):
        self._log.emit(obj)
        self._f.flush()

    def of(self, ev):
        out = []
        with open(self.path) as f:
            for s in f:
                d = json.loads(s)
                if d.get("ev") == ev:
                    out.append(d)
        return out


HOLD = 900 * MS  # longer than the flow's 0.8 s: a reveal


def trick_order(tricks):
    """Trick winners in an order that gives these counts (round robin)."""
    rem = list(tricks)
    out = []
    i = 0
    while len(out) < 12:
        s = i % 3
        if rem[s]:
            out.append(s)
            rem[s] -= 1
        i += 1
    return out


def hand_seq(h):
    """The hand's entries as the flow keeps them: a seat per trick, and each
    reveal ([seat, contract], a Redo revealed as "REDO") after 3*seat+1 tricks."""
    order = trick_order(h["tricks"])
    rev = h.get("revealed", [False, False, False])
    seq = []
    for k in range(12):
        for s in range(3):
            if rev[s] and k == 3 * s + 1:
                c = h["contracts"][s]
                seq.append([s, "REDO" if c[:5] == "REDO:" else c])
        seq.append(order[k])
    return seq


def pick(rig, value):
    """In a pick phase: step DOWN until `value` is under the cursor, then OK."""
    f = rig.app.flow
    for _ in range(len(f.choices)):
        if f.choices[f.cursor] == value:
            rig.tap(OK, 30 * MS, 30 * MS)
            return
        rig.tap(DOWN, 30 * MS, 30 * MS)
    raise AssertionError("%r not offered in %r" % (value, f.choices))


def choose(rig, trump, ranking):
    """HAND -> TRUMP -> RANK -> PLAY."""
    rig.tap(OK)
    pick(rig, trump)
    pick(rig, ranking)


def reveal(rig, seat, contract):
    rig.press(seat)
    rig.wait(HOLD)
    rig.release(seat)
    rig.wait(60 * MS)
    pick(rig, contract)


def play_seq(rig, seq):
    for e in seq:
        if isinstance(e, int):
            rig.tap(e)
        else:
            reveal(rig, e[0], e[1])


def enter_contracts(rig, h):
    """After the 12th trick: each unrevealed contract, a Redo's target."""
    rev = h.get("revealed", [False, False, False])
    for s in range(3):
        c = h["contracts"][s]
        redo = c[:5] == "REDO:"
        if not rev[s]:
            pick(rig, "REDO" if redo else c)
        if redo:
            pick(rig, c[5:])


def play_hand(rig, h):
    """One hand from HAND to RESULT."""
    choose(rig, h["trump"], h["ranking"])
    play_seq(rig, hand_seq(h))
    enter_contracts(rig, h)


def play_game(rig, record, start=True):
    """Start Speed Run and play every hand of `record`; OK on RESULT and on
    FINAL, so the record is stored and logged.  Returns the logged record.
    `record` may also be the path of a file written by write_record: the
    hands are then read one at a time (the 64 KB heap is for the app)."""
    if isinstance(record, str):
        f = open(record)
        length = json.loads(f.readline())["length"]
    else:
        f = record["hands"]
        length = record["length"]
    if start:
        rig.app.start("speedrun", rig.t, {"length": length})
    i = 0
    for h in f:
        if isinstance(h, str):
            h = json.loads(h)
        if i == 0 and h.get("first", 0) != 0:
            rig.tap(h["first"])  # SR-5: who holds the first-player card
        play_hand(rig, h)
        rig.tap(OK)  # RESULT -> next HAND, or FINAL
        rig.sounds = []  # the rig keeps every cue: don't let them pile up
        i += 1
    if isinstance(record, str):
        f.close()
    rig.tap(OK)      # FINAL: save and end
    ends = rig.log.of("game_end")
    return ends[-1]["record"] if ends else None


def write_record(path, record):
    """A record as lines: the header, then one hand per line."""
    with open(path, "w") as f:
        f.write(json.dumps({"length": record["length"]}) + "\n")
        for h in record["hands"]:
            f.write(json.dumps(h) + "\n")


def report(root, record):
    """The facts the tests compare across runtimes, as one JSON-able dict."""
    import gc
    import os
    try:
        os.mkdir(root)
    except OSError:
        pass  # already there
    rig = Rig(root, log=FileLog(root + "/usb.log"))
    rec = play_game(rig, record)
    out = {"record": rec, "screen": rig.screen_name()}
    rig.app = None  # the device is done: only what it left behind is read
    gc.collect()
    out["stored"] = rig.store.records()[-1]
    out["hand_lines"] = rig.log.of("hand")
    out["saved_game"] = rig.store.load_game()[0]
    plain = dict(rec)
    del plain["id"]
    plain.pop("table", None)
    # Imported here, not with this driver: a copy held from the start
    # would be a second one in the heap once the app forgets the game's
    # (App.close) and the next game loads it again.  A board has one.
    from speedref.engine import speedrun
    g = speedrun.replay(plain)
    out["engine"] = g.to_record()
    out["totals"] = g.totals
    out["winners"] = g.winners()
    out["tiebreak"] = g.tiebreak
    out["ended_early"] = g.ended_early
    return out


def print_report(root, path):
    """report() for MicroPython: one JSON line per key, each streamed into
    stdout as the board streams its log lines (speedref/log.py), so no
    string as long as a record (~2 KB) has to find a block in the heap the
    game left."""
    import sys
    r = report(root, path)
    for k in r:
        v = r[k]
        r[k] = None
        if k == "hand_lines":
            print(json.dumps([k, []]))
            while v:
                json.dump([k + "+", v.pop(0)], sys.stdout)
                print()
        else:
            json.dump([k, v], sys.stdout)
            print()
        v = None
