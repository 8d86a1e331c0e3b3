"""The match on the emulated Pico: a match sent over the board's USB console
(the lines speedref-roster match sends, in parts when longer than a
console line) is offered at the menu, and its screen is the simulator's,
byte for byte: the round and table, the players, the options; UP/DOWN move
on it as there; OK starts the game with the seats named, its first screen
the simulator's too.  The heap is read with {"cmd": "mem"} at the menu
before the match, with it offered and in its game, and in the same game
chosen from the game list (the figures in docs/figures.md).  Twice: the
.mpy install speedref-flash makes and speedref-pico-RPI_PICO.uf2 (frozen)."""
import pytest

from board_rig import mem, needs_board
from host_tools.board import match as M

pytestmark = [pytest.mark.board, needs_board]

UP, DOWN, OK = 4, 5, 6
MS = 1000
# four seats and every option of Speed set: longer than a console line, so it goes in parts
MATCH = M.make_match(12, 3, "Table 7", "speed", ["Ann", "Bob", "Cat", "Guest"],
                     {"seats": 4, "match": "best_of", "jokers": True, "target": 100, "tie_ms": 2,
                      "layout": "classic", "doubles": True, "hand_limit": 6, "slap_to_win": True})
# what a person does at the table, in order: (button or None for the match's arrival, hold ms)
STEPS = [None, DOWN, DOWN, UP, UP, OK]


def lines_of(m):
    import json
    return [json.dumps(c, separators=(",", ":")).encode() + b"\n" for c in M.console_commands(m)]


def on_simulator():
    from sim.board import Board
    b = Board()
    frames, lines = [], []
    b.on_line = lines.append
    try:
        b.step()
        b.run_until(500 * MS)
        for step in STEPS:
            if step is None:
                for line in lines_of(MATCH):
                    b.command(line.decode().strip())
            else:
                t = b.clock.elapsed_us
                b.set_button(step, True)
                b.run_until(t + 60 * MS)
                b.set_button(step, False)
            b.run_until(b.clock.elapsed_us + 300 * MS)
            frames.append(bytes(b.screen()))
        return frames, lines, b.app.flow.opts["names"]
    finally:
        b.close()


@pytest.mark.parametrize("frozen", [False, True], ids=["mpy", "frozen"])
def test_a_console_match_is_offered_as_the_simulator_shows_it_and_plays_with_its_names(frozen):
    from emu.referee import Referee
    want, sim_lines, names = on_simulator()
    assert len(lines_of(MATCH)) > 1, "the match fits one line: the parts are not proven"
    ref = Referee(frozen=frozen)
    heap, frames = {}, []
    try:
        ref.boot()
        p = ref.pico
        p.run_for(500 * MS)
        mem(ref, "menu", heap)
        for step in STEPS:
            if step is None:
                for line in lines_of(MATCH):
                    p.serial_write(line)
                    p.run_for(100 * MS)
            else:
                p.press(step)
                p.run_for(60 * MS)
                p.release(step)
            # a game's start loads its code and writes the flash (the players, its number, its first save)
            p.run_for((1500 if step == OK else 300) * MS)
            frames.append(bytes(ref.screen()))
            if step is None:
                mem(ref, "match", heap)
        p.run_for(300 * MS)
        mem(ref, "game", heap)
        errors = [l for l in ref.lines if l.get("ev") == "error"]
        assert not errors, errors
        offered = [l for l in ref.lines if l.get("ev") == "match"]
        assert [(l["state"], l["round"], l["table"]) for l in offered] == [("offered", 3, "Table 7")]
        parts = [l["part"] for l in ref.lines if l.get("ev") == "match_part"]
        assert parts == list(range(len(lines_of(MATCH)) - 1))
    finally:
        ref.close()
    for i, (board, sim) in enumerate(zip(frames, want)):
        assert board == sim, "screen after step %d (%r) differs from the simulator's" % (i, STEPS[i])
    assert names == ["Ann", "Bob", "Cat", "P4"]
    # the same game chosen from the game list (four players), on a board with no match
    ref = Referee(frozen=frozen)
    try:
        ref.boot()
        p = ref.pico
        p.run_for(500 * MS)

        def tap(b, n=1):
            for _ in range(n):
                p.press(b)
                p.run_for(60 * MS)
                p.release(b)
                p.run_for(120 * MS)
        tap(OK)        # the boot screen: the game list, on Speed
        tap(OK)        # Speed's options, on Start
        tap(UP)        # the last row, Players: 2
        tap(OK, 2)     # 3, 4
        tap(DOWN)      # Start
        tap(OK)
        p.run_for(1500 * MS)
        mem(ref, "plain game", heap)
        assert not [l for l in ref.lines if l.get("ev") == "error"]
    finally:
        ref.close()
    print("heap (bytes after a collection, %s):" % ("frozen" if frozen else ".mpy"), heap)
    # the match, its screen, and the names its modules intern (qstrs: kept, as every module's), speedref/match.py let go
    assert heap["match"] - heap["menu"] < 6 * 1024
    assert heap["game"] - heap["plain game"] < 1024  # in the game: only its options' tags
