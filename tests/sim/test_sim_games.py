"""Every game's full flow through the simulator, headless:
`speedref-sim --script tests/sim_scripts/<game>.txt --json --game <game>`
is run as a subprocess (the installed console script) and its JSON log is
checked: the deal/round/hand/slap lines a laptop would read, and the final
`game_end` record, which must equal both what `records.replay` computes from
it and a fixed expected record.  Rule numbers from seeds/*.md.

The scripts are committed text (the documented `<time_ms> <button> <down|up>`
format, commented block by block).  They were written by the recorder at the
bottom of this file, which plays the game through a virtual board with the
same presses the app's own tests use and writes down each edge with its
time.  To rewrite them after a flow changes on purpose:

    .venv/bin/python tests/sim/test_sim_games.py [speed spit partners speedrun]
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "sim_scripts"
SIM = ROOT / ".venv" / "bin" / "speedref-sim"


def run_script(game, *extra):
    """Run the committed script for `game` through the installed console
    script; return the parsed JSON lines (the device's USB log)."""
    exe = str(SIM) if SIM.exists() else None
    cmd = ([exe] if exe else [sys.executable, "-m", "sim"])
    cmd += ["--script", str(SCRIPTS / (game + ".txt")), "--json", "--game", game] + list(extra)
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT), timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    return [json.loads(s) for s in r.stdout.splitlines()]


def of(lines, ev):
    return [x for x in lines if x.get("ev") == ev]


def final_record(lines):
    """The single game_end record, with its store id checked and removed,
    after checking it against the engine's own replay (REC-1)."""
    from speedref.engine import records
    ends = of(lines, "game_end")
    assert len(ends) == 1, "exactly one game_end"
    assert lines[-1] is ends[0], "the game ends the log"
    rec = dict(ends[0]["record"])
    assert rec.pop("id")
    rec.pop("table", None)
    assert records.replay(rec).to_record() == rec
    return rec


def summary(rec):
    from speedref.engine import records
    s = records.summary(rec)
    return s["totals"], s["winners"]


# ---- the games ----------------------------------------------------------------
@pytest.fixture(scope="module")
def speed():
    return run_script("speed")


def test_speed_match_to_25_with_false_start_flips_and_rebuild_SP6_SP14_SP15_SP18_SP19(speed):
    rec = final_record(speed)
    assert rec == {"game": "speed", "layout": "pagat", "match": {"target": 25},
                   "players": ["P1", "P2"],
                   "deals": [{"winner": 0, "left": 15}, {"winner": 1, "left": 5},
                             {"winner": 0, "left": 12}]}
    assert summary(rec) == ([27, 5], [0])
    deals = of(speed, "deal")
    assert [(d["deal"], d["winner"], d["left"]) for d in deals] == [(1, 0, 15), (2, 1, 5), (3, 0, 12)]
    assert [d["flips"] for d in deals] == [2, 11, 0]  # deal 2: 10 reserve flips, a rebuild, one more (SP-15)
    assert [d["rebuilds"] for d in deals] == [0, 1, 0]
    # SP-6: P2 pressed 1.5 s into the first countdown
    fs = of(speed, "false_start")
    assert [(f["seat"], f["deal"]) for f in fs] == [(1, 1)]
    assert fs[0]["early_us"] == 1380000  # GO was due 1.38 s later
    assert of(speed, "slap") == []  # slap-to-win is off by default


@pytest.fixture(scope="module")
def spit():
    return run_script("spit")


def test_spit_game_slaps_one_pile_blocked_and_win_SPIT4_SPIT8_SPIT10_SPIT15(spit):
    rec = final_record(spit)
    assert rec == {"game": "spit", "players": ["P1", "P2"], "rounds": [
        {"cleared": 0, "slap": 1, "cards": [20, 32]},
        {"cleared": 0, "slap": 0, "cards": [12, 40]},
        {"cleared": 1, "cards": [30, 22]},     # one centre pile: P1 takes it (SPIT-11)
        {"blocked": True, "cards": [12, 40]},  # SPIT-13
        {"cleared": 0, "cards": [0, 52]},      # P1 out of cards: the win (SPIT-14)
    ]}
    assert summary(rec) == ([0, 52], [0])
    rounds = of(spit, "round")
    assert [x["round"] for x in rounds] == [1, 2, 3, 4, 5]
    assert [x["cards"] for x in rounds] == [x["cards"] for x in rec["rounds"]]
    assert [x["restarts"] for x in rounds] == [1, 0, 2, 10, 1]
    # SPIT-10: the slaps, decided by the capture timestamps to the microsecond
    slaps = of(spit, "slap")
    assert [(x["round"], x["winner"], x["margin_us"], x["takes_smaller"], x["presses"])
            for x in slaps] == [(1, 1, 7300, 1, [1, 0]), (2, 0, 7300, 0, [0, 1])]
    fs = of(spit, "false_start")  # SPIT-4: P1 jumped the first countdown
    assert [(x["round"], x["seat"], x["early_us"]) for x in fs] == [(1, 0, 1380000)]


@pytest.fixture(scope="module")
def partners():
    return run_script("partners")


def test_partners_game_to_100_swaps_doubling_and_winner_PT8_PT14_PT16_PT19(partners):
    rec = final_record(partners)
    assert rec == {"game": "partners", "target": 100, "players": ["P1", "P2", "P3", "P4"], "hands": [
        {"dealer": 0, "contractor": 1, "partner": 2, "bid": 9, "trump": "hearts", "tricks": [2, 6, 4, 1]},
        {"dealer": 1, "contractor": 0, "partner": 1, "bid": 10, "trump": "notrump", "tricks": [7, 3, 2, 1]},
        {"dealer": 0, "contractor": 3, "partner": 2, "bid": 8, "trump": "spades", "tricks": [4, 2, 3, 4]},
        {"dealer": 3, "contractor": 2, "partner": 0, "bid": 13, "trump": "diamonds", "tricks": [6, 0, 7, 0]},
    ]}
    assert summary(rec) == ([105, 52, 55, 2], [0])
    hands = of(partners, "hand")
    assert [h["scores"] for h in hands] == [[2, 15, 13, 1], [17, 13, 2, 1], [48, 24, 0, 0], [38, 0, 40, 0]]
    assert [h["doubled"] for h in hands] == [False, False, True, True]
    assert [h["totals"] for h in hands][-1] == [105, 52, 55, 2]
    assert [h["over"] for h in hands] == [False, False, False, True]
    # PT-8: the partner moves opposite the contractor; pads stay where they are
    contracts = of(partners, "contract")
    assert [c["swap"] for c in contracts] == [[2, 3], [1, 3], None, [0, 3]]
    assert contracts[-1]["seats"] == [3, 0, 1, 2]


# The 3- and 4-player matches the scripts speed_3p.txt and speed_4p.txt play
# (default options: first to 50 with three, 75 with four, SP-36): (winner,
# one count a player) a deal.
SEATED_DEALS = {3: [(0, [0, 15, 14]), (2, [3, 3, 0]), (0, [0, 11, 10])],
                4: [(0, [0, 15, 14, 13]), (3, [3, 3, 3, 0]), (0, [0, 11, 11, 11])]}


@pytest.mark.parametrize("seats", sorted(SEATED_DEALS))
def test_speed_script_with_3_and_4_players_SP27_SP33_SP35_SP36(seats):
    """The script's header names the game and its players: no --game, no
    --seats on the command line."""
    exe = str(SIM) if SIM.exists() else None
    cmd = ([exe] if exe else [sys.executable, "-m", "sim"]) + [
        "--script", str(SCRIPTS / ("speed_%dp.txt" % seats)), "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=str(ROOT), timeout=600)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    lines = [json.loads(s) for s in r.stdout.splitlines()]
    rec = final_record(lines)
    assert rec["players"] == ["P%d" % (p + 1) for p in range(seats)]
    assert [(d["winner"], d["left"]) for d in rec["deals"]] == SEATED_DEALS[seats], "SP-35: one count a player"
    assert [(x["seat"], x["count"]) for x in of(lines, "false_start")] == [(seats - 1, 1)], "SP-30"
    assert [(x["seat"], x["verdict"]) for x in of(lines, "claim")] == [(1, "rejected")], "SP-33"
    assert [(d["flips"], d["rebuilds"]) for d in of(lines, "deal")] == [(2, 0), (11, 1), (0, 0)], "SP-31, SP-32"
    from speedref.engine import speed
    totals, winners = summary(rec)
    target = speed.default_target(seats)
    assert rec["match"] == {"target": target}, "SP-36: 25 for each other player"
    assert totals[0] >= target and winners == [0], "SP-36: P1 reaches the target first"


# The long game tests/mpy/speedrun_golden.py plays with real cards (seed 1), as
# the Speed Run record keeps it: tricks, contracts, reveals, first player,
# trump and ranking of each hand.
SPEEDRUN_HANDS = json.loads("""[
{"tricks": [4, 3, 5], "contracts": ["W7", "MOST", "W4"], "revealed": [true, true, false], "first": 1, "trump": "geckos", "ranking": "bell-10"},
{"tricks": [4, 6, 2], "contracts": ["W9", "PASS", "MIDDLE"], "revealed": [true, false, true], "first": 2, "trump": "raccoons", "ranking": "bell-1"},
{"tricks": [4, 5, 3], "contracts": ["MIDDLE", "W0", "W7"], "revealed": [true, true, true], "first": 0, "trump": "raccoons", "ranking": "slalom-1"},
{"tricks": [5, 4, 3], "contracts": ["W4", "MIDDLE", "PASS"], "revealed": [true, true, false], "first": 1, "trump": "gorillas", "ranking": "10-high"},
{"tricks": [5, 1, 6], "contracts": ["W5", "W5", "REDO:W4"], "revealed": [false, false, true], "first": 2, "trump": "none", "ranking": "slalom-1"},
{"tricks": [5, 3, 4], "contracts": ["PASS", "W1", "REDO:W7"], "revealed": [false, true, true], "first": 0, "trump": "earthworms", "ranking": "10-high"},
{"tricks": [3, 6, 3], "contracts": ["REDO:MIDDLE", "W4", "W9"], "revealed": [true, true, true], "first": 1, "trump": "geckos", "ranking": "slalom-10"},
{"tricks": [0, 8, 4], "contracts": ["REDO:W7", "REDO:MIDDLE", "PASS"], "revealed": [true, true, false], "first": 2, "trump": "geckos", "ranking": "bell-10"},
{"tricks": [4, 8, 0], "contracts": ["PASS", "REDO:MOST", "W5"], "revealed": [false, true, false], "first": 0, "trump": "none", "ranking": "slalom-1"},
{"tricks": [5, 5, 2], "contracts": ["FEWEST", "PASS", "FEWEST"], "revealed": [true, false, true], "first": 1, "trump": "raccoons", "ranking": "slalom-1"},
{"tricks": [2, 4, 6], "contracts": ["W1", "W7", "MOST"], "revealed": [true, true, true], "first": 2, "trump": "gorillas", "ranking": "10-high"},
{"tricks": [5, 5, 2], "contracts": ["W0", "FEWEST", "W0"], "revealed": [true, false, false], "first": 0, "trump": "gorillas", "ranking": "slalom-10"}]""")


@pytest.fixture(scope="module")
def speedrun():
    return run_script("speedrun")


def test_speedrun_long_game_tricks_reveals_contracts_and_standings_SR2_SR21_SR24(speedrun):
    rec = final_record(speedrun)
    assert rec == {"game": "speedrun", "length": "long", "players": ["P1", "P2", "P3"],
                   "hands": SPEEDRUN_HANDS}
    assert summary(rec) == ([30, 23, 22], [2])  # SR-24: the lowest total wins
    hands = of(speedrun, "hand")
    assert [h["hand"] for h in hands] == list(range(1, 13))  # SR-2: a long game is 12 hands
    assert [h["tricks"] for h in hands] == [h["tricks"] for h in SPEEDRUN_HANDS]
    assert hands[-1]["totals"] == [30, 23, 22] and hands[-1]["over"] and not hands[-1]["ended_early"]
    # SR-21: every reveal made during play is logged with the hand and the trick
    reveals = of(speedrun, "reveal")
    assert len(reveals) == sum(sum(h["revealed"]) for h in SPEEDRUN_HANDS) == 24
    assert reveals[0]["hand"] == 1 and reveals[0]["seat"] == 0 and reveals[0]["contract"] == "W7"


def test_the_card_level_game_is_what_the_script_plays():
    """The fixed record above is the seeded card-level playthrough's."""
    from speedrun_golden import play
    rec = play(SPEEDRUN_SEED, "long")[1]
    assert rec["hands"] == SPEEDRUN_HANDS


# ---- the README's screenshots (docs/screens, tools/readme_screens.py) ----------
def test_readme_png_is_the_oled_scaled_3x_with_a_pixel_grid():
    from tools import readme_screens as R
    frame = bytearray(1024)
    frame[0] = 0b101  # pixels (0, 0) and (0, 2) lit
    frame[1023] = 0x80  # pixel (127, 63)
    import tempfile
    from PIL import Image
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f.png")
        R.to_png(bytes(frame), path)
        img = Image.open(path).convert("RGB")
        assert img.size == (384, 192)
        px = img.load()
        assert [px[x, 0] for x in range(4)] == [R.LIT, R.LIT, R.GAP, R.DARK]  # dot, dot, gap, next pixel
        assert px[0, 2] == R.GAP and px[0, 3] == R.DARK and px[0, 6] == R.LIT
        assert px[381, 189] == R.LIT and px[383, 191] == R.GAP
        assert R.from_png(path) == bytes(frame)


SCREEN_NAMES = ["menu", "speed_countdown", "speed_slap", "speedrun_tricks", "partners_hand",
                "partners_final", "speedrun_final"]


def test_readme_screens_are_what_the_simulator_shows_now():
    """The committed PNGs show today's screens.  After a screen changes on
    purpose: .venv/bin/python -m tools.readme_screens (and look at them)."""
    from tools import readme_screens as R
    assert list(R.SCREENS) == SCREEN_NAMES
    for name in SCREEN_NAMES:
        shown = R.SCREENS[name]()
        assert any(shown), name
        assert R.from_png(ROOT / "docs" / "screens" / (name + ".png")) == shown, (
            "docs/screens/%s.png is stale: rerun python -m tools.readme_screens" % name)


def test_readme_slap_screen_is_a_real_race_decided_by_timestamps_SP17():
    """The slap verdict screenshot comes from a slap-to-win race through the
    virtual pads: P1 first by 7.3 ms, logged and shown on the claim screen."""
    from tools import readme_screens as R
    p = R.slap_race()
    slaps = [x for x in (json.loads(s) for s in p.board.lines) if x.get("ev") == "slap"]
    assert [(x["winner"], x["margin_us"], x["presses"]) for x in slaps] == [(0, 7300, [0, 1])]
    assert p.flow().slap_text == "P1 by 7.3 ms"
    assert p.board.screen() == R.speed_slap()


# ---- the recorder that wrote the scripts ----------------------------------------
# Not used by the tests above (they run the committed text).  A RecRig has the
# interface of tests/mpy/app_rig.Rig (t, press, release, wait, tap, app.flow,
# log.of), so the app tests' own game drivers play through it; but every
# press and release goes through a virtual board (sim.board.Board, exactly as
# `speedref-sim --script --game G` builds it) and is written down as a script
# line at its time since the start.
class _RecLog:
    def __init__(self, board):
        self.board = board

    def of(self, ev):
        return [x for x in (json.loads(s) for s in self.board.lines) if x.get("ev") == ev]


class _RecApp:
    """The board's app; start() is the simulator's --game start (default
    options), refusing options a script could not reproduce."""

    def __init__(self, rig):
        self._rig = rig

    def __getattr__(self, k):
        return getattr(self._rig.board.app, k)

    def start(self, game, t_us, opts=None):
        from speedref.app import menu
        want = menu.merge_settings({})[game]
        if opts is not None and dict(opts) != want:
            raise ValueError("--game %s starts with %r, not %r" % (game, want, opts))
        self._rig.game = game


class RecRig:
    def __init__(self, game, seats=None):
        from sim.board import Board
        self.board = Board()
        self.board.step()
        self.board.start_game(game, seats)  # as `--game game [--seats N]` does, at time 0
        self.game = game
        self.seats = seats
        self.app = _RecApp(self)
        self.log = _RecLog(self.board)
        self.store = self.board.store
        self.t = 0  # microseconds since the start, as the script counts
        self.sounds = []
        self.out = []

    def comment(self, text):
        if self.out and self.out[-1] != "":
            self.out.append("")
        for s in text.split("\n"):
            self.out.append("# " + s)

    def _edge(self, b, down):
        from sim.script import NAMES
        self.board.event(self.t, b, down)
        ms = "%d" % (self.t // 1000) if self.t % 1000 == 0 else "%d.%03d" % (self.t // 1000, self.t % 1000)
        self.out.append("%s %s %s" % (ms, NAMES[b], "down" if down else "up"))

    def press(self, b):
        self._edge(b, True)

    def release(self, b):
        self._edge(b, False)

    def wait(self, us):
        self.t += us
        self.board.run_until(self.t)

    def tap(self, b, hold_us=60000, gap_us=60000):
        self.press(b)
        self.wait(hold_us)
        self.release(b)
        self.wait(gap_us)

    def phase(self):
        f = self.board.app.flow
        return None if f is None or self.board.app.screen is not f else f.phase

    def screen_name(self):
        return type(self.board.app.screen).__name__

    def text(self, header):
        # The first line names the game (sim/script.py), so the script runs as is.
        header = "game: %s\n%s%s" % (self.game, "" if self.seats is None else "seats: %d\n" % self.seats, header)
        return "\n".join(["# " + s for s in header.split("\n")] + [""] + self.out) + "\n"


MS = 1000
OK, UP, DOWN = 6, 4, 5


def record_speed():
    from app_rig import start_deal, reserve_flip, enter_left, confirm_claim
    r = RecRig("speed")
    r.t = 500 * MS
    r.comment("Deal 1.  OK: the cards are laid out (pagat 10 / 1 1 / 10, SP-2).\n"
              "P1 and P2 tap their pads: ready (SP-6); the 3-2-1 countdown starts.")
    r.tap(OK)
    r.tap(0)
    r.tap(1)
    r.wait(1500 * MS)
    r.comment("P2 slaps 1.6 s into the countdown (1.38 s before GO): a false start (SP-6); the\n"
              "countdown is called off until its GO instant (SP-22), then back to ready.")
    r.tap(1)
    r.wait(1500 * MS)
    r.comment("Both ready again; 3-2-1, GO after 3 s: the start cards are turned.")
    r.tap(0)
    r.tap(1)
    r.wait(3100 * MS)
    for k in range(2):
        r.comment("Both stuck: each holds their pad past 0.5 s (SP-14), then the 3-2-1 flip\n"
                  "countdown turns a reserve card each (flip %d)." % (k + 1))
        reserve_flip(r)
    r.comment("P1 taps: out (SP-16); P2 waits for the question, then holds: yes.")
    r.tap(0)
    confirm_claim(r, 1)
    r.comment("P2's cards left: UP from 1 to 15 (SP-18), OK.  Then OK: next deal.")
    enter_left(r, 15)
    r.tap(OK)

    r.comment("Deal 2.  Layout OK, both ready, 3-2-1 GO.")
    start_deal(r)
    r.comment("Ten reserve flips: every card of both 10-card reserves (SP-14).")
    for _ in range(10):
        reserve_flip(r)
    r.comment("Stuck again with empty reserves: the device asks for a rebuild (SP-15);\n"
              "OK when the piles are shuffled into new reserves, then the flip countdown.")
    r.press(0)
    r.press(1)
    r.wait(600 * MS)
    r.release(0)
    r.release(1)
    r.wait(60 * MS)
    r.tap(OK)
    r.wait(3000 * MS)
    r.comment("P2 is out, P1 confirms (a hold after the question, SP-16); P1 has 5 left.\n"
              "OK: next deal.")
    r.tap(1)
    confirm_claim(r, 0)
    enter_left(r, 5)
    r.tap(OK)

    r.comment("Deal 3.  Layout OK, both ready, 3-2-1 GO; P1 out at once, P2 confirms;\n"
              "P2 has 12 left: 15 + 12 = 27 reaches 25 (SP-19).")
    start_deal(r)
    r.tap(0)
    confirm_claim(r, 1)
    enter_left(r, 12)
    r.comment("OK on the final standings: the record is stored and logged (game_end).")
    r.tap(OK)
    return r.text("Speed, a complete match with the default options (pagat layout, first to 25).\n"
                  "  .venv/bin/speedref-sim --script tests/sim_scripts/speed.txt [--json]\n"
                  "Written by tests/sim/test_sim_games.py (its recorder); checked by its tests.")


def record_speed_seats(n):
    """Speed with `n` players (SP-27..SP-36): every phase, with a false start,
    flips, a rebuild, a rejected claim and one count a loser."""
    from app_rig import start_deal, reserve_flip, enter_left, confirm_claim
    from speedref.engine import speed
    r = RecRig("speed", n)
    names = ", ".join("P%d" % (p + 1) for p in range(n))
    last = n - 1
    (w1, left1), (w2, left2), (w3, left3) = SEATED_DEALS[n]
    r.t = 500 * MS
    r.comment("Deal 1.  OK: the cards are laid out (pagat, a reserve and a start card a player,\n"
              "SP-28, SP-29).  %s tap their pads: ready (SP-30); the countdown starts." % names)
    r.tap(OK)
    for p in range(n):
        r.tap(p)
    r.wait(1500 * MS)
    r.comment("P%d slaps before GO: a false start calls the countdown off for all (SP-30),\n"
              "then everyone taps again." % n)
    r.tap(last)
    r.wait(1500 * MS)
    for p in range(n):
        r.tap(p)
    r.wait(3100 * MS)
    for k in range(2):
        r.comment("Everyone stuck: each holds their pad past 0.5 s (SP-31), then the flip\n"
                  "countdown turns a reserve card each onto its pile (flip %d)." % (k + 1))
        reserve_flip(r, n)
    r.comment("P2 taps: out?  P%d taps after the question: no (SP-33); play goes on." % n)
    r.tap(1)
    r.wait(600 * MS)
    r.tap(last)
    r.wait(300 * MS)
    r.comment("P%d taps: out; P2 holds after the question: yes (the first answer, SP-33)." % (w1 + 1))
    r.tap(w1)
    confirm_claim(r, 1)
    r.comment("Each loser's cards left in seat order: UP from 1, OK (SP-35): %s.\n"
              "Then OK: next deal." % ", ".join("P%d %d" % (p + 1, left1[p]) for p in range(n) if p != w1))
    enter_left(r, left1)
    r.tap(OK)

    r.comment("Deal 2.  Layout OK, everyone ready, 3-2-1 GO; ten flips empty the reserves.")
    start_deal(r, n)
    for _ in range(10):
        reserve_flip(r, n)
    r.comment("Stuck again with empty reserves: rebuild every reserve (SP-32), OK, the flip.")
    for p in range(n):
        r.press(p)
    r.wait(600 * MS)
    for p in range(n):
        r.release(p)
    r.wait(60 * MS)
    r.tap(OK)
    r.wait(3000 * MS)
    r.comment("P%d is out, P1 confirms; the others' counts: %s.  OK: next deal."
              % (w2 + 1, ", ".join("P%d %d" % (p + 1, left2[p]) for p in range(n) if p != w2)))
    r.tap(w2)
    confirm_claim(r, 0)
    enter_left(r, left2)
    r.tap(OK)

    r.comment("Deal 3.  P%d out at once, P2 confirms; %s: P1 reaches %d (SP-36)."
              % (w3 + 1, ", ".join("P%d %d" % (p + 1, left3[p]) for p in range(n) if p != w3),
                 speed.default_target(n)))
    start_deal(r, n)
    r.tap(w3)
    confirm_claim(r, 1)
    enter_left(r, left3)
    r.comment("OK on the final standings: the record is stored and logged (game_end).")
    r.tap(OK)
    return r.text("Speed with %d players, a complete match with the default options (pagat, first to %d).\n"
                  "  .venv/bin/speedref-sim --script tests/sim_scripts/speed_%dp.txt [--json]\n"
                  "Written by tests/sim/test_sim_games.py (its recorder); checked by its tests."
                  % (n, speed.default_target(n), n))


def record_spit():
    from app_spit_game import start_round, both_stuck, restart, slap, enter_cards, _is_cards
    r = RecRig("spit")
    r.t = 500 * MS

    def go(n, extra=""):
        r.comment("Round %d.  OK: laid out (SPIT-2/3); P1 and P2 tap: Spit! (SPIT-4); 3-2-1 GO.%s"
                  % (n, extra))

    def cards(a, why):
        r.comment("%s\nP1's cards after the relayout: UP/DOWN to %d (P2 has the rest of 52), OK\n"
                  "(SPIT-12)." % (why, a))
        enter_cards(r, a)

    r.comment("Round 1.  OK: laid out (SPIT-2/3); P1 and P2 tap: Spit! (SPIT-4).")
    r.tap(OK)
    r.tap(0)
    r.tap(1)
    r.wait(1500 * MS)
    r.comment("P1 taps 1.6 s into the countdown: a false start (SPIT-18); the countdown is\n"
              "called off until its GO instant (every press until then is a false start too),\n"
              "then back to ready.")
    r.tap(0)
    r.wait(1500 * MS)
    r.comment("Both call Spit! again; 3-2-1 GO.")
    r.tap(0)
    r.tap(1)
    r.wait(3100 * MS)
    r.comment("Both stuck (each holds their pad past 0.5 s): 3-2-1, new spit cards (SPIT-8).")
    restart(r)
    r.comment("P1 taps: my stock piles are empty (SPIT-9).  Two centre piles: one second\n"
              "later GO for the slap; P2 slaps first, P1 7.3 ms later (SPIT-10).")
    r.tap(0)
    slap(r, 1, 7300)
    cards(20, "P2 took the smaller pile.")

    go(2)
    start_round(r)
    r.comment("P1 clears again and this time slaps first, by 7.3 ms (SPIT-10).")
    r.tap(0)
    slap(r, 0, 7300)
    cards(12, "P1 took the smaller pile.")

    go(3, "\nP1 has 12 cards: no spit cards, one centre pile (SPIT-3).")
    start_round(r)
    r.comment("Two restarts (SPIT-8): only P2 has spit cards and turns one onto the pile.")
    restart(r)
    restart(r)
    r.comment("P2 taps: stock piles empty; P1 takes the one centre pile (SPIT-11), with\n"
              "P2's 15 stock cards and the 3 spit cards in it: 28 at least (SPIT-22).")
    r.tap(1)
    cards(30, "")

    go(4)
    start_round(r)
    r.comment("Both stuck again and again: restarts until nobody has a spit card left;\n"
              "then the round is blocked (SPIT-13).")
    while True:
        both_stuck(r)
        if _is_cards(r):
            break
        r.wait(3000 * MS)
    cards(12, "Blocked: each takes the pile on their side, 11 spit cards at least, and\n"
             "keeps a stock card: 12 at least (SPIT-22).")

    go(5)
    start_round(r)
    r.comment("One restart, then P1 clears their stock piles with no spit cards left:\n"
              "P1 wins (SPIT-14).")
    restart(r)
    r.tap(0)
    r.comment("OK on the final screen: the record is stored and logged (game_end).")
    r.tap(OK)
    return r.text("Spit, a complete game with the default options (tie window 5 ms): slaps lost\n"
                  "and won, one centre pile, a blocked round and the win (SPIT-14).\n"
                  "  .venv/bin/speedref-sim --script tests/sim_scripts/spit.txt [--json]\n"
                  "Written by tests/sim/test_sim_games.py (its recorder); checked by its tests.")


def record_partners():
    import app_partners_game as P
    r = RecRig("partners")
    r.t = 500 * MS
    table = P.Table()
    r.comment("P1 taps their pad: P1 deals the first hand (PT-3).")
    P.tap(r, 0)
    notes = [
        "P1 deals; P2 bids 9 hearts and names P3 as partner: P3 and P4 swap seats (PT-8).\n"
        "Tricks P1..P4 2 6 4 1: made with 10 (PT-14).",
        "P2 deals; P1 bids 10 no trump with P2: P2 and P4 swap.  Tricks 7 3 2 1: made.",
        "P1 deals; P4 bids 8 spades with P3, who sits opposite already.  Tricks 4 2 3 4:\n"
        "failed with 7, and P1's 8 + 4*4 = 24 >= 20 doubles the hand (PT-16).",
        "P4 deals; P3 bids 13 diamonds with P1: P1 and P4 swap.  All 13 taken, doubled (PT-16).\n"
        "Totals 105 52 55 2: P1 passes 100 alone and wins (PT-19).",
    ]
    for i, hand in enumerate(P.GAME_100):
        bid, trump, c, p, tricks = hand
        r.comment("Hand %d.  %s" % (i + 1, notes[i]))
        r.comment("The final bid: UP from 7 to %d, OK; the trump: UP to %s, OK (PT-4, PT-5).\n"
                  "The contractor taps their pad, then the partner (PT-7, PT-8)." % (bid, trump))
        P.tap(r, UP, bid - 7)
        P.tap(r, OK)
        P.tap(r, UP, P.TRUMPS.index(trump))
        P.tap(r, OK)
        P.tap(r, table.pad(c))
        P.tap(r, table.pad(p))
        if table.name_partner(c, p) is not None:
            r.comment("OK: the two players have changed seats (pad k stays seat k).")
            P.tap(r, OK)
        r.comment("The winner of each of the 13 tricks taps the pad where they sit (PT-13).")
        P.play_tricks(r, table, P.winners(tricks))
        r.comment("OK on the hand's scores; OK on the totals: %s." % (
            "next hand" if i < len(P.GAME_100) - 1 else
            "the final standings, where OK stores the record (game_end)"))
        P.tap(r, OK)
        if i == 0:
            r.comment("DOWN on the totals asks \"Stop the game now?\" (PT-20); UP: no, play on.")
            P.tap(r, DOWN)
            P.tap(r, UP)
        P.tap(r, OK)
    return r.text("Partners, a complete game to 100 (the default target), worked out by hand from\n"
                  "seeds/partners.md: seat swaps, a failed contract doubled, a grand slam.\n"
                  "  .venv/bin/speedref-sim --script tests/sim_scripts/partners.txt [--json]\n"
                  "Written by tests/sim/test_sim_games.py (its recorder); checked by its tests.")


SPEEDRUN_SEED = 1  # tests/mpy/speedrun_golden.play(1, "long"): real cards, dealt and played


def record_speedrun():
    import app_speedrun_game as G
    from speedrun_golden import play
    rec = play(SPEEDRUN_SEED, "long")[1]
    r = RecRig("speedrun")
    r.t = 500 * MS
    for i, h in enumerate(rec["hands"]):
        who = ["P%d" % (s + 1) for s in range(3) if h["revealed"][s]]
        r.comment("Hand %d: tricks P1..P3 %d %d %d; contracts %s%s." % (
            i + 1, h["tricks"][0], h["tricks"][1], h["tricks"][2], " ".join(h["contracts"]),
            "; %s reveal%s during play (SR-21)" % (" and ".join(who), "s" if len(who) == 1 else "")
            if who else ""))
        if i == 0 and h["first"] != 0:
            r.comment("P%d holds the first-player card and taps their pad (SR-5)." % (h["first"] + 1))
            r.tap(h["first"])
        r.comment("OK; the trump %s: DOWN to it, OK (SR-7); the ranking %s: DOWN to it, OK (SR-9)."
                  % (h["trump"], h["ranking"]))
        G.choose(r, h["trump"], h["ranking"])
        r.comment("Each trick's winner taps their pad (SR-11); a reveal is a 0.9 s hold, then\n"
                  "DOWN to the contract and OK (SR-21, SR-22).")
        G.play_seq(r, G.hand_seq(h))
        r.comment("After the 12th trick: each unrevealed contract in seat order, DOWN to it, OK\n"
                  "(SR-13); a Redo then names the contract it plays again (SR-19).  OK: %s."
                  % ("next hand" if i < len(rec["hands"]) - 1 else "the final standings"))
        G.enter_contracts(r, h)
        r.tap(OK)
    r.comment("OK on the final standings: the record is stored and logged (game_end).")
    r.tap(OK)
    return r.text("Speed Run, a complete long game (12 hands, three players, the default length),\n"
                  "played with real cards by tests/mpy/speedrun_golden.py (seed %d).\n"
                  "  .venv/bin/speedref-sim --script tests/sim_scripts/speedrun.txt [--json]\n"
                  "Written by tests/sim/test_sim_games.py (its recorder); checked by its tests." % SPEEDRUN_SEED)


RECORDERS = {"speed": record_speed, "spit": record_spit, "partners": record_partners,
             "speedrun": record_speedrun, "speed_3p": lambda: record_speed_seats(3),
             "speed_4p": lambda: record_speed_seats(4)}


def main(argv):
    SCRIPTS.mkdir(parents=True, exist_ok=True)
    for game in argv or list(RECORDERS):
        text = RECORDERS[game]()
        (SCRIPTS / (game + ".txt")).write_text(text)
        print("wrote", SCRIPTS / (game + ".txt"), len(text.splitlines()), "lines")


if __name__ == "__main__":
    for p in (ROOT / "firmware", ROOT, ROOT / "tests", ROOT / "tests" / "mpy"):
        sys.path.insert(0, str(p))
    from sim import compat
    compat.install()
    main(sys.argv[1:])
