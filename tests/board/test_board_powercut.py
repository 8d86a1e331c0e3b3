"""Power cuts on the emulated Pico.

A short game of Partners (tests/sim_scripts/partners.txt to a target of 20:
two hands, then the final standings, where OK stores the record) is played
through the pins while the flash is copied, as a power cut at that instant
would leave it, at well over 100 instants: spread over the game, inside flash
erases (several during one erase), inside page programs, between any two
flash operations, and densely inside App.finish (the record save, the
game_end line, forgetting the saved game).

Every copy is mounted on the host and booted with the firmware's own code on
CPython (speedref.storage.Store and App, as the simulator builds them), and
checked for:

  - no corrupt state loaded: a saved game that loads is one the referee
    really saved, a record that loads is the game's record, and a damaged
    file is set aside, never left under its good name;
  - no completed hand lost: each hand whose "hand" line had gone out and
    whose save had finished (a hand's screen and line go out first and its
    save ends that loop pass, so any OLED write after the line means the
    save is done) is in the saved game or in the record;
  - the game stored at most once, also after the saved game is resumed and
    its final OK pressed, as a player would.

Then a few of the copies are booted on a new emulated Pico: main.py runs, the
OLED shows what the host predicted, {"cmd": "dump"} over USB lists the
records, and resuming on the board keeps the same promises.

The board shows a verdict before it saves it (the pad lights and the screen
first, then the flash: tests/board/test_board_order.py), so a cut can fall between
the two.  Spit's first slap race (tests/sim_scripts/spit.txt) is cut every
millisecond from the deciding slap until its save is long done: each copy
either restores the verdict on resume (the save had finished) or resumes at
the round's start, before the race, and the resume screen says so ("at round
1 start"); never a save that is not one of the game's, never the verdict
lost once its save is on flash.
"""
import json
import os
import tempfile
import zlib

import pytest

from board_rig import needs_board
from mpyhelp import texts_drawn
from emu import fs as emu_fs
from emu.board import NS_PER_US, Pico
from emu.referee import Referee
from emu.trace import Moment

pytestmark = [pytest.mark.board, needs_board]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tests", "sim_scripts", "partners.txt")
TARGET = 20  # hand 2 takes P2 to 28: the game ends after two hands
LAST_LINE = 2640  # the script's time of the final OK (stores the record)
PAUSE_US = 250000  # the table looks at a hand's scores while it is saved
OK = 6
MS = 1000 * NS_PER_US

def options():
    from speedref.app import menu
    opts = dict(menu.merge_settings({})["partners"])
    opts["target"] = TARGET
    return opts


def schedule():
    """The script's events up to the final OK, played on the simulator (the
    same firmware code on CPython) with a pause after each hand.  Returns
    (events [(t_us, button, down)], the simulator's log lines, every game
    state the simulator saved)."""
    from sim import script
    from sim.board import Board
    events = [e for e in script.parse(open(SCRIPT).read()) if e[0] <= LAST_LINE * 1000]
    board = Board()
    saves = []
    real_save = board.store.save_game
    board.store.save_game = lambda d: (saves.append(json.loads(json.dumps(d))), real_save(d))
    lines = []
    board.on_line = lines.append
    board.app.start("partners", board.now(), options())
    board.step()
    out = []
    shift = 0
    for t_us, button, down, _ in events:
        hands = sum(1 for l in lines if l["ev"] == "hand")
        board.event(t_us + shift, button, down)
        out.append((t_us + shift, button, down))
        if sum(1 for l in lines if l["ev"] == "hand") > hands:
            shift += PAUSE_US
    board.run_until(out[-1][0] + 500000)
    board.close()
    return out, lines, saves


def start_partners(ref):
    """Stop main.py, build the device and start Partners to TARGET."""
    ref.start_game("partners", target=TARGET)


class Cut:
    """One cut instant: when, what the flash was doing, the copy (zlib)."""

    def __init__(self, ns, busy, volume, where):
        self.ns = ns
        self.busy = busy
        self.volume = zlib.compress(volume, 1)
        self.where = where  # "game", "finish"
        self.files = emu_fs.files(volume)
        self.committed = 0  # completed hands whose save had finished
        self.ended = False  # game_end had gone out
        self.host = None

    def image(self):
        return zlib.decompress(self.volume)


def host_boot(files, resume=True):
    """Boot the firmware's App on CPython from the files of a flash copy.
    Returns what it loaded, what it showed and what resuming left."""
    from speedref.app.core import App
    from speedref.log import Log
    from speedref.storage import Store, decode
    with tempfile.TemporaryDirectory(prefix="speedref-cut-") as tmp:
        for path, data in files.items():
            dest = os.path.join(tmp, path.strip("/"))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(data)
        data_dir = os.path.join(tmp, "data")
        store = Store(data_dir, uid="board")
        lines = []
        app = App(store, Log(write=lambda s: lines.append(json.loads(s))))
        saved, problem = app.screen.saved, app.screen.problem
        app.render()  # the boot screen, as the loop's first pass draws it
        frame = bytes(app.buf)
        records = store.records()
        # every file left under a good name is intact
        left_damaged = []
        for root, _dirs, names in os.walk(data_dir):
            for n in names:
                if n.endswith(".json") or n.endswith(".json.bak"):
                    with open(os.path.join(root, n), "rb") as f:
                        if decode(f.read())[0] != 0:
                            left_damaged.append(n)
        after = records
        final = False
        if resume and saved is not None:
            app.press(OK, 0)
            app.release(OK, 1000)
            from speedref.app import partners_flow
            final = app.flow is not None and app.flow.phase == partners_flow.FINAL
            if final:
                app.press(OK, 2000)
                app.release(OK, 3000)  # the final standings: OK stores the record
            after = store.records()
    return {"saved": saved, "problem": problem, "frame": frame, "records": records,
            "left_damaged": left_damaged, "final": final, "after": after, "lines": lines}


@pytest.fixture(scope="module")
def run():
    events, sim_lines, sim_saves = schedule()
    ref = Referee()
    try:
        ref.boot()
        start_partners(ref)
        p = ref.pico
        arrivals = []  # [ns the line had reached the host by, line]
        fresh = []
        ref.on_line = fresh.append
        cuts = []
        last = {"ops": p.state()["flash_ops"], "since": None, "snap_ops": None, "t": 0}
        t0 = p.ns
        final_press = t0 + events[-1][0] * NS_PER_US

        def stamp():
            for obj in fresh:
                arrivals.append((p.ns, obj))
            del fresh[:]

        def in_finish():
            ended = [a for a, o in arrivals if o["ev"] == "game_end"]
            if p.ns < final_press:
                return False
            if not ended:
                return True
            return not any(ns >= ended[0] for ns, _ in p.i2c_log)

        def snap(where):
            volume, busy = p.flash_snapshot()
            cuts.append(Cut(p.ns, busy, volume, where))
            last["snap_ops"] = last["ops"]
            last["t"] = p.ns

        def advance(until):
            while p.ns < until:
                st = p.state()
                busy = st["flash_busy"]
                finishing = in_finish()
                where = "finish" if finishing else "game"
                if busy == "erase":
                    snap(where)
                    step = 4 * MS  # about ten cuts through each 45 ms erase
                elif busy == "program":
                    if st["flash_since"] != last["since"]:
                        last["since"] = st["flash_since"]
                        snap(where)
                    step = MS // 10
                else:
                    if st["flash_ops"] != last["snap_ops"] or p.ns - last["t"] >= 50 * MS:
                        snap(where)  # a new flash content, or one more spread-out cut
                    elif finishing and p.ns - last["t"] >= MS:
                        snap(where)
                    recent = st["flash_ops"] != last["ops"] or (fresh and not finishing)
                    last["ops"] = st["flash_ops"]
                    step = MS // 5 if (recent or finishing) else 2 * MS
                    if recent:
                        last["window"] = p.ns + 20 * MS
                    if p.ns < last.get("window", 0):
                        step = MS // 5
                p.run_until(min(until, p.ns + step))
                stamp()

        for t_us, button, down in events:
            advance(t0 + t_us * NS_PER_US)
            (p.press if down else p.release)(button)
        advance(p.ns + 300 * MS)
        end_volume = p.flash_image()
        i2c = [ns for ns, _ in p.i2c_log]

        # What had been promised by each cut instant.
        for c in cuts:
            done = 0
            for a, obj in arrivals:
                if a > c.ns:
                    break
                if obj["ev"] in ("hand", "game_end") and any(a <= r <= c.ns for r in i2c):
                    done += obj["ev"] == "hand"
                if obj["ev"] == "game_end":
                    c.ended = True
            c.committed = done
            c.host = host_boot(c.files)
        yield {"cuts": cuts, "lines": [o for _, o in arrivals], "sim_lines": sim_lines,
               "sim_saves": sim_saves, "end": emu_fs.files(end_volume)}
    finally:
        ref.close()


def game_lines(lines):
    return [l for l in lines if l["ev"] in ("contract", "hand", "game_end")]


def strip_id(rec):
    return {k: v for k, v in rec.items() if k not in ("id", "table")}


def test_the_board_played_the_game_and_was_cut_everywhere(run):
    """The board played the same game as the simulator, and the cut instants
    cover the run: erases (several cuts each), programs, App.finish."""
    board = game_lines(run["lines"])
    sim = game_lines(run["sim_lines"])
    assert [strip_id(l.get("record", l)) for l in board] == [strip_id(l.get("record", l)) for l in sim]
    assert board[-1]["ev"] == "game_end"
    cuts = run["cuts"]
    assert len(cuts) >= 100
    erase = [c for c in cuts if c.busy == "erase"]
    assert len(erase) >= 10 and len({c.ns // (45 * MS) for c in erase}) < len(erase)
    assert len([c for c in cuts if c.busy == "program"]) >= 10
    assert len([c for c in cuts if c.where == "finish"]) >= 10
    # The game's two hands and its end came while cuts were taken.
    assert max(c.committed for c in cuts) == 2 and any(c.ended for c in cuts)
    assert any(not c.ended for c in cuts if c.where == "finish")


def test_no_cut_loads_a_corrupt_state(run):
    """A saved game that loads is one the referee saved; a record that loads
    is the game's record; nothing damaged is left under a good name."""
    legit = [json.dumps(s, sort_keys=True) for s in run["sim_saves"]]
    record = strip_id(game_lines(run["lines"])[-1]["record"])
    for c in run["cuts"]:
        h = c.host
        if h["saved"] is not None:
            assert json.dumps(h["saved"], sort_keys=True) in legit, (c.ns, c.busy, h["saved"])
        for rec in h["records"]:
            assert strip_id(rec) == record, (c.ns, c.busy, rec)
        assert not h["left_damaged"], (c.ns, c.busy, h["left_damaged"])


def test_no_cut_loses_a_completed_hand(run):
    """Each hand whose line had gone out and whose save had finished is in
    the saved game or in the record; once game_end is out, the record is."""
    for c in run["cuts"]:
        h = c.host
        kept = len(h["saved"]["state"]["hands"]) if h["saved"] else 0
        in_record = max([len(r["hands"]) for r in h["records"]] or [0])
        assert max(kept, in_record) >= c.committed, (c.ns, c.busy, c.where, kept, in_record)
        if c.ended:
            assert h["records"], (c.ns, c.busy)


def test_no_cut_stores_the_game_twice(run):
    """SP-24: at most one record of the game; once it is stored no saved game
    of it is offered for resuming; and resuming whatever was saved and pressing
    OK on the final standings still leaves one record."""
    twice = [(c.ns, c.busy, c.where) for c in run["cuts"]
             if len(c.host["records"]) > 1 or len(c.host["after"]) > 1]
    offered = [(c.ns, c.busy, c.where) for c in run["cuts"]
               if c.host["records"] and c.host["saved"] is not None]
    assert not twice and not offered, "%d cuts store the game twice (e.g. %r), %d offer a " \
        "stored game for resuming (e.g. %r)" % (len(twice), twice[:2], len(offered), offered[:2])


# -- real reboots -------------------------------------------------------------------
def pick(run, kind):
    cuts = run["cuts"]
    if kind == "erase":
        found = ([c for c in cuts if c.busy == "erase" and c.committed >= 1]
                 or [c for c in cuts if c.busy == "erase"])
    elif kind == "program":
        found = [c for c in cuts if c.busy == "program" and c.host["saved"]
                 and c.host["saved"]["state"]["hands"]]
    elif kind == "finish":  # the record being written: not stored yet
        found = [c for c in cuts if c.where == "finish" and c.busy and not c.host["records"]]
    else:  # "after_end": game_end is out, a file of the saved game still on flash
        found = [c for c in cuts if c.ended and any(k.startswith("/data/game.json") for k in c.files)]
    assert found, kind
    return found[len(found) // 2]


def dump(ref):
    p = ref.pico
    n = len(ref.lines)
    p.serial_write(b'{"cmd": "dump"}\n')
    p.wait_for(b'"dump_end"', 20000000)
    p.run_for(20000)
    got = ref.lines[n:]
    end = [l for l in got if l["ev"] == "dump_end"][0]
    stored = [l["record"] for l in got if l["ev"] == "stored"]
    assert end["count"] == len(stored)
    return stored


def reboot(cut):
    """A new Pico with the cut's flash: boot, the OLED, the records over USB,
    then resume the saved game as a player would.  Returns what it saw."""
    pico = Pico(fs_image=cut.image())
    ref = Referee(pico=pico)
    try:
        boot = ref.boot()
        pico.run_for(150000)
        seen = {"boot": boot, "frame": bytes(pico.oled.frame), "before": dump(ref)}
        if cut.host["saved"] is not None:
            for _ in range(2 if cut.host["final"] else 1):
                pico.press(OK)
                pico.run_for(30000)
                pico.release(OK)
                pico.run_for(250000)
        seen["after"] = dump(ref)
        seen["lines"] = list(ref.lines)
        return seen
    finally:
        ref.close()


def check_reboot(run, cut):
    h = cut.host
    seen = reboot(cut)
    assert seen["boot"]["ev"] == "boot"
    # The OLED shows what the firmware's App showed on CPython for these files:
    # the resume prompt for a saved game, or the title (and any problem).
    assert seen["frame"] == h["frame"]
    assert [strip_id(r) for r in seen["before"]] == [strip_id(r) for r in h["records"]]
    kept = len(h["saved"]["state"]["hands"]) if h["saved"] else 0
    in_record = max([len(r["hands"]) for r in seen["before"]] or [0])
    assert max(kept, in_record) >= cut.committed
    return seen


@pytest.mark.parametrize("kind", ["erase", "program", "finish"])
def test_reboot_after_a_cut(run, kind):
    """On the board: a cut inside a flash erase, inside a page program, or
    inside App.finish while the record is being written boots to the screen
    the host predicted, lists the records it predicted, keeps every saved
    hand, and after resuming stores the game at most once."""
    cut = pick(run, kind)
    seen = check_reboot(run, cut)
    assert len(seen["after"]) <= 1
    assert len(seen["after"]) == len(cut.host["after"])


def test_reboot_after_game_end_stores_the_game_once(run):
    """SP-24, on the board: a cut after game_end went out, with the finished
    game's save still on flash, boots to the title screen (its record is
    stored: nothing is offered for resuming), and pressing OK as a player would
    leaves one record of the game."""
    cut = pick(run, "after_end")
    seen = check_reboot(run, cut)
    assert len(seen["before"]) == 1
    no_game = {k: v for k, v in cut.files.items() if not k.startswith("/data/game.json")}
    assert len(seen["after"]) == 1, "stored again: %r" % [r["id"] for r in seen["after"]]
    assert seen["frame"] == host_boot(no_game, resume=False)["frame"], "'Resume game?' shown"


# -- a cut between a verdict shown and its save -------------------------------------
SPIT = os.path.join(ROOT, "tests", "sim_scripts", "spit.txt")
SLAP_EDGE = 12247300  # the script's time of P1's slap, 7.3 ms after P2's: the verdict
WINDOW_US = 90000  # cuts from that edge on: the lights, the screen, the line, the save


def spit_host_boot(files):
    """The firmware's App on CPython on a flash copy: what it offers to
    resume, the words on its resume screen, and the screen resuming gives."""
    from speedref.app.core import App, OK
    from speedref.log import Log
    from speedref.storage import Store, decode
    with tempfile.TemporaryDirectory(prefix="speedref-cut-") as tmp:
        for path, data in files.items():
            dest = os.path.join(tmp, path.strip("/"))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(data)
        damaged = []
        for root, _dirs, names in os.walk(os.path.join(tmp, "data")):
            for n in names:
                if n.endswith(".json") or n.endswith(".json.bak"):
                    with open(os.path.join(root, n), "rb") as f:
                        if decode(f.read())[0] != 0:
                            damaged.append(n)
        app = App(Store(os.path.join(tmp, "data"), uid="board"), Log(write=lambda s: None))
        app.render()
        out = {"saved": app.screen.saved, "boot": texts_drawn(app.screen.draw), "damaged": damaged,
               "frame": bytes(app.buf), "resumed": None}
        if out["saved"] is not None:
            app.press(OK, 0)
            app.release(OK, 1000)
            app.render()
            app.commit()
            out["resumed"] = (app.flow.phase, texts_drawn(app.screen.draw))
            out["resumed_frame"] = bytes(app.buf)
        return out


@pytest.fixture(scope="module")
def verdict_cuts():
    """Spit to P1's slap on the board; a flash copy every millisecond from
    that edge on, and the trace of what the board did meanwhile."""
    from sim import script
    events = [e for e in script.parse(open(SPIT).read()) if e[0] <= SLAP_EDGE]
    assert events[-1][0] == SLAP_EDGE
    ref = Referee(trace=True)
    try:
        ref.boot()
        ref.start_game("spit")
        p = ref.pico
        t0 = p.ns
        for t_us, button, down, _ in events:
            p.run_until(max(p.ns, t0 + t_us * NS_PER_US))
            (ref.press if down else ref.release)(button)
        edge = p.ns
        cuts = []
        while p.ns < edge + WINDOW_US * NS_PER_US:
            volume, busy = p.flash_snapshot()
            cuts.append((p.ns, busy, emu_fs.files(volume)))
            p.run_for(1000)
        p.run_for(200000)
        m = Moment(p.trace, edge, edge + WINDOW_US * NS_PER_US)
        saves = [e for e in p.trace if e[0] == "flash" and e[1] >= edge]
        yield {"edge": edge, "moment": m, "cuts": cuts, "lines": list(ref.lines),
               "flash": saves}
    finally:
        ref.close()


def test_a_cut_between_the_verdict_shown_and_its_save_resumes_before_the_race_and_says_so_SPIT10(verdict_cuts):
    """Every cut from the deciding slap on: the saved game is the round's
    start (the slap not yet saved: the resume screen says "at round 1
    start" and resuming lays the round out again) or the round's end with
    its verdict (the screen says "at round 1 count", resuming shows who
    took the smaller pile and the margin).  Cuts fall after the verdict was
    on the OLED and before its save; once the verdict is on flash, no later
    cut loses it."""
    m = verdict_cuts["moment"]
    shown = m.pages_ns([0])  # the title: who takes the smaller pile
    assert shown is not None and verdict_cuts["flash"], "the verdict shown, then saved"
    assert verdict_cuts["flash"][0][1] > m.frame_ns
    restored = False
    between = 0
    for ns, busy, files in verdict_cuts["cuts"]:
        h = spit_host_boot(files)
        where = "cut %.1f ms after the slap (flash %s)" % ((ns - verdict_cuts["edge"]) / 1e6, busy)
        assert not h["damaged"], where
        saved = h["saved"]
        assert saved is not None and saved["game"] == "spit", where
        now = saved["state"]["now"]
        if now == "":
            assert not restored, "%s: the verdict's save was on flash and is lost" % where
            assert saved["at"] == "round 1 start" and "at round 1 start" in h["boot"], (where, h["boot"])
            assert h["resumed"][0] == 0 and "Round 1 layout" in h["resumed"][1], (where, h["resumed"])
            if ns > shown:
                between += 1
        else:
            assert now == "SR0b", (where, now)  # Spit!, Spit again (stuck), P1 cleared, P2 won the slap
            restored = True
            assert saved["at"] == "round 1 count" and "at round 1 count" in h["boot"], (where, h["boot"])
            texts = h["resumed"][1]
            assert "P2 took smaller" in texts and "P2 by 7.3 ms" in texts, (where, texts)
    assert restored, "the verdict's save finished inside the window"
    assert between >= 10, "%d cuts between the verdict shown and its save" % between


def test_reboot_between_the_verdict_shown_and_its_save(verdict_cuts):
    """On the board: a copy cut after the verdict was on the OLED and before
    its save boots to the resume screen the host predicted ("at round 1
    start"), and OK lays round 1 out again."""
    m = verdict_cuts["moment"]
    shown = m.pages_ns([0])
    cut = None
    for ns, busy, files in verdict_cuts["cuts"]:
        if ns > m.frame_ns and spit_host_boot(files)["saved"]["state"]["now"] == "":
            cut = files
            break
    assert cut is not None and shown < m.frame_ns
    host = spit_host_boot(cut)
    pico = Pico(fs_image=emu_fs.image(cut))
    ref = Referee(pico=pico)
    try:
        ref.boot()
        pico.run_for(150000)
        assert bytes(pico.oled.frame) == host["frame"], "the resume screen with 'at round 1 start'"
        pico.press(OK)
        pico.run_for(30000)
        pico.release(OK)
        pico.run_for(250000)
        assert [l for l in ref.lines if l.get("ev") == "error"] == []
        assert bytes(pico.oled.frame) == host["resumed_frame"], "round 1 laid out again"
    finally:
        ref.close()
