"""A full flash on the emulated Pico never loses the finished game.

The littlefs volume is built (emu/fs.py) with the speedref install and then
filled with other files until no block is free, so the game's very first
save finds no room.  A short game of partners (tests/sim_scripts/partners.txt
to 20, as tests/board/test_board_powercut.py plays it) is then played through the
pins:

  - with 20 older records on flash, the oldest go (one `room` line each)
    when the game starts, its saves and its record are stored, and
    {"cmd": "dump"} lists it;
  - with nothing to remove, the saves fail (an error line each), the game
    goes on, and at its end the game_end line still goes out, an error says
    the record was not stored and the OLED tells the table so.
Neither crashes or resets the board.
"""
import pytest

from board_rig import needs_board
from emu import fs as emu_fs
from emu.board import NS_PER_US, Pico
from emu.referee import Referee

pytestmark = [pytest.mark.board, needs_board]

MS = 1000 * NS_PER_US


def old_record_files(n, deals=1):
    """n Speed records from earlier games: of one deal (about 250 bytes,
    kept inline in littlefs's directory metadata, so removing one frees no
    block), or of `deals` deals (over 512 bytes: a block each)."""
    from speedref import storage
    rec = {"game": "speed", "layout": "pagat", "match": {"single": deals == 1},
           "players": ["P1", "P2"], "deals": [{"winner": 0, "left": 12}] * deals}
    return {"/data/rec/%08d.json" % i: storage.encode(dict(rec, id="old-%d" % i))
            for i in range(1, n + 1)}


def play(extra):
    from test_board_ids import play as play_game
    from test_board_powercut import schedule
    events, _lines, _saves = schedule()
    files = emu_fs.speedref_files(extra)
    pico = Pico(fs_image=emu_fs.image(files, fill=True))
    ref = Referee(pico=pico)
    try:
        ref.boot()
        ident = play_game(ref, events)
        pico.run_for(500000)
        n = len(ref.lines)
        pico.serial_write(b'{"cmd": "dump"}\n')
        end = pico.ns + 3000 * MS
        while not [l for l in ref.lines[n:] if l.get("ev") == "dump_end"] and pico.ns < end:
            pico.run_for(50000)
        dumped = [l["record"]["id"] for l in ref.lines[n:] if l.get("ev") == "stored"]
        return ref, ident, dumped, bytes(pico.oled.frame)
    finally:
        ref.close()


def no_crash(ref):
    assert not [l for l in ref.lines if l.get("what") in ("crash", "crash_loop")]
    assert not [t for t in ref.other if "Traceback" in t], ref.other[-5:]


def test_older_records_make_room_for_the_game_on_a_full_flash():
    ref, ident, dumped, _ = play(old_record_files(20))
    room = [l for l in ref.lines if l.get("ev") == "error" and l.get("what") == "room"]
    assert room, "no record made room"
    assert [l["id"] for l in room] == ["old-%d" % (i + 1) for i in range(len(room))]
    assert ident.endswith("-21")
    assert ident in dumped, dumped
    assert not [l for l in ref.lines if "not stored" in l.get("msg", "")
                or "save failed" in l.get("msg", "")]
    no_crash(ref)


def test_only_the_records_needed_make_room_when_each_frees_a_block():
    # 18 records of a block each: with the installed firmware's files and the
    # filler on the same volume, littlefs has no room to build it with 20
    ref, ident, dumped, _ = play(old_record_files(18, deals=30))
    room = [l["id"] for l in ref.lines if l.get("ev") == "error" and l.get("what") == "room"]
    assert room == ["old-%d" % (i + 1) for i in range(len(room))]
    assert 0 < len(room) < 18, room
    assert ident.endswith("-19") and ident in dumped
    assert "old-18" in dumped
    assert not [l for l in ref.lines if "not stored" in l.get("msg", "")
                or "save failed" in l.get("msg", "")]
    no_crash(ref)


def test_with_nothing_to_remove_the_table_is_told_on_the_oled():
    from test_sim_screen_text import find
    ref, ident, dumped, frame = play({})
    assert [l for l in ref.lines if "save failed" in l.get("msg", "")]
    assert [l for l in ref.lines if "record not stored" in l.get("msg", "")]
    assert ident not in dumped
    assert find(frame, "not stored") is not None, "the OLED does not say so"
    no_crash(ref)
