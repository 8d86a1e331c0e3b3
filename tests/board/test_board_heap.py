"""Heap on the real port: the referee on the emulated Pico (MicroPython's rp2
firmware, ~240 KB of GC heap on an RP2040), each game started as
speedref-emu --script starts it (emu.referee.Referee.start_game: main.py
stopped, the device built afresh, the game begun with its default options)
on a board powered up afresh, and played through the pins (tests/sim_scripts,
every button through the PIO state machine), the heap read over USB
with {"cmd": "mem"} (figures after a collection: what the game really
holds).  Twice: the .mpy install speedref-flash makes (bytecode loaded into
the heap) and speedref-pico-RPI_PICO.uf2 (bytecode frozen in flash).

Samples: at the menu; in each game just after Start, after every log line
that closes a step of the game (a hand, a deal, a round, a slap, a
contract, a reveal, a false start, the game's end) and every
SAMPLE_EVERY script events; at the end.  Partners is played whole (its
script is a game to 100 with hands scored and saved); the
longer games are cut after their first moves (time on the emulated board
costs ~9x wall time; a game's heap is mostly its code and state, which
are in place once the first moves are handled).

Margin: a game fails when any sample leaves less than MARGIN free.  32 KB
covers what a sample after a collection does not show: the garbage a loop
pass makes between collections, the save at the end of a hand (a record
serialised to JSON, a few KB that need one contiguous block in a heap that
never compacts), and the growth of a long game over the short one played
here (one record per hand: a few hundred bytes each, tens of hands).
The menu figure is main.py's device at its menu; a game's figures are the
device that start_game builds after a soft reset (main.py's is gone).
"""
import threading

import pytest

from board_rig import needs_board
from speedref.games import IDS

pytestmark = [pytest.mark.board, needs_board, pytest.mark.long]

MARGIN = 32 * 1024
SAMPLE_EVERY = 4
SETTLE_US = 150000
# Script time played per game (ms of events; None: the whole script).
# speed_4p: Speed with 4 players (SP-27), its first deal whole (four pads'
# state, the count a loser, the deal's save).
PLAYED_MS = {"speed": 1000, "spit": 1000, "speedrun": 1000, "partners": None, "speed_4p": 21090}
GAMES = list(IDS) + ["speed_4p"]  # every registered game, and Speed at its most players
STEP_EVENTS = ("hand", "deal", "round", "slap", "contract", "reveal", "false_start", "game_end")
MEM = b'{"cmd": "mem"}\n'


def script_events(game, until_ms=None):
    """(events, game named in the script's header, its '# seats: N' or None)
    of tests/sim_scripts/GAME.txt, cut after until_ms of script time."""
    from pathlib import Path
    from sim import script
    text = (Path(__file__).resolve().parents[1] / "sim_scripts" / (game + ".txt")).read_text()
    events = script.parse(text)
    if until_ms is not None:
        events = [e for e in events if e[0] <= until_ms * 1000]
    return events, script.header_game(text), script.header_seats(text)


def _mem_lines(ref):
    return [l for l in ref.lines if l.get("ev") == "mem"]


def _await_mem(ref, n, limit_us=3000000):
    end = ref.pico.ns + limit_us * 1000
    while len(_mem_lines(ref)) < n and ref.pico.ns < end:
        ref.pico.run_for(20000)
    return _mem_lines(ref)


def play_with_samples(ref, game, t0, events):
    """Drive the script's events from t0 (ns), asking for the heap as the
    game goes; returns (samples [(script ms, alloc, free)], log lines)."""
    from emu.board import NS_PER_US
    p = ref.pico
    asked = []  # script ms at each request
    step = [False]
    ref.on_line = lambda o: step.__setitem__(0, step[0] or o.get("ev") in STEP_EVENTS)

    def ask():
        asked.append((p.ns - t0) // 1000000)
        p.serial_write(MEM)

    p.run_until(t0 + SETTLE_US * NS_PER_US)
    ask()
    for n, (t_us, button, down, _lineno) in enumerate(events, 1):
        p.run_until(max(p.ns, t0 + t_us * NS_PER_US))
        (ref.press if down else ref.release)(button)
        if step[0] or n % SAMPLE_EVERY == 0:
            step[0] = False
            ask()
    p.run_for(SETTLE_US)
    ask()
    ref.on_line = None
    mems = _await_mem(ref, len(asked))
    assert len(mems) == len(asked), "the board answered %d of %d heap requests" % (len(mems), len(asked))
    samples = [(ms, m["alloc"], m["free"]) for ms, m in zip(asked, mems)]
    return samples, [l for l in ref.lines if l.get("ev") != "mem"]


def heap_run(frozen):
    """One build (the .mpy install, or the frozen image): the menu, then each
    game on a board powered up afresh.  Returns {"menu": (alloc, free),
    "boot": boot line, game: {"samples": .., "lines": ..}}."""
    from emu import referee
    out = {}
    ref = referee.Referee(frozen=frozen)
    try:
        out["boot"] = ref.boot()
        ref.pico.run_for(200000)
        ref.pico.serial_write(MEM)
        m = _await_mem(ref, 1)[0]
        out["menu"] = (m["alloc"], m["free"])
        for i, game in enumerate(GAMES):
            if i:
                ref.close()
                ref = referee.Referee(frozen=frozen)
                ref.boot()
            events, named, seats = script_events(game, PLAYED_MS[game])
            assert named == game.split("_")[0]
            ref.start_game(named, **({} if seats is None else {"seats": seats}))
            samples, lines = play_with_samples(ref, game, ref.pico.ns, events)
            out[game] = {"samples": samples, "lines": lines}
    finally:
        ref.close()
    return out


@pytest.fixture(scope="module")
def runs():
    """Both builds, each on its own emulated board, side by side."""
    result, errors = {}, []

    def one(name, frozen):
        try:
            result[name] = heap_run(frozen)
        except BaseException as e:  # reported by the tests below
            errors.append((name, e))

    threads = [threading.Thread(target=one, args=(n, f)) for n, f in (("mpy", False), ("frozen", True))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0][1]
    for name in ("mpy", "frozen"):
        r = result[name]
        print("\n%s: menu alloc %d free %d" % (name, r["menu"][0], r["menu"][1]))
        for g in GAMES:
            s = r[g]["samples"]
            print("%s %s: peak alloc %d, least free %d, %d samples" % (
                name, g, max(a for _, a, _ in s), min(f for _, _, f in s), len(s)))
    return result


@pytest.mark.parametrize("build", ["mpy", "frozen"])
def test_the_menu_leaves_room_for_a_game(runs, build):
    r = runs[build]
    alloc, free = r["menu"]
    assert r["boot"]["capture"] == "pio"
    assert free + alloc > 200 * 1024  # the rp2 port's GC heap: ~240 KB on an RP2040
    # The heavier of the games, started from here, must still keep MARGIN.
    need = max(max(a for _, a, _ in r[g]["samples"]) for g in GAMES) - alloc
    assert free - need >= MARGIN, (alloc, free, need)


@pytest.mark.parametrize("build", ["mpy", "frozen"])
@pytest.mark.parametrize("game", GAMES)
def test_a_game_keeps_the_margin_free_at_every_sample(runs, build, game):
    r = runs[build][game]
    samples = r["samples"]
    assert len(samples) >= 3
    menu_alloc = runs[build]["menu"][0]
    # The game is loaded: its flow and engine hold heap the menu did not.
    assert max(a for _, a, _ in samples) > menu_alloc
    worst = min(samples, key=lambda s: s[2])
    assert worst[2] >= MARGIN, "%s (%s): %d bytes free at %d ms into the game" % (
        game, build, worst[2], worst[0])
    assert not [l for l in r["lines"] if l.get("ev") == "error"], r["lines"]


@pytest.mark.parametrize("build", ["mpy", "frozen"])
def test_partners_scores_its_hands_on_the_board(runs, build):
    """The whole partners script is played: three hands at least are bid,
    played and scored.  (From hand 3 on, the board's run of this script can
    differ from the simulator's: the game is started with the pin-interrupt
    capture and its 0.1 ms tie window, see Referee.start_game.)"""
    lines = runs[build]["partners"]["lines"]
    hands = [l for l in lines if l.get("ev") == "hand"]
    assert len(hands) >= 3 and [h["hand"] for h in hands] == list(range(1, len(hands) + 1)), lines


@pytest.mark.parametrize("game", GAMES)
def test_frozen_bytecode_leaves_more_heap_than_mpy(runs, game):
    """Frozen bytecode runs from flash: the same game holds less heap."""
    peak = {b: max(a for _, a, _ in runs[b][game]["samples"]) for b in ("mpy", "frozen")}
    assert peak["frozen"] < peak["mpy"], peak


@pytest.mark.parametrize("build", ["mpy", "frozen"])
def test_speed_with_four_players_counts_its_first_deal_on_the_board_SP35(runs, build):
    """speed_4p's first deal is played whole: counted (one count a player)
    and saved with the margin kept at every sample (above)."""
    lines = runs[build]["speed_4p"]["lines"]
    deals = [l for l in lines if l.get("ev") == "deal"]
    assert [d["left"] for d in deals] == [[0, 15, 14, 13]], lines
