"""Record ids on the emulated Pico, with its flash wiped between games.

A short game of partners (tests/sim_scripts/partners.txt to 20, as
tests/board/test_board_powercut.py plays it) is played on a board, again on the same
flash, then on a board whose flash was wiped and speedref installed afresh.
rp2040js reads machine.unique_id() as zeros, so every emulated board is the
same device: only the install id, drawn from os.urandom at the first start
(MicroPython's pico_rand: ROSC random bits, the timer, the board id), tells
the installs apart.  The two games on one flash share it and count on; the
wiped board starts again at 1 under a new one.
"""
import re

import pytest

from board_rig import needs_board
from emu.board import NS_PER_US
from emu.referee import Referee

pytestmark = [pytest.mark.board, needs_board]

MS = 1000 * NS_PER_US
ID = re.compile(r"^0{16}-(?P<inst>[0-9a-f]{8})-(?P<seq>[0-9]+)$")


def play(ref, events):
    from test_board_powercut import start_partners
    start_partners(ref)
    p = ref.pico
    n = len(ref.lines)
    t0 = p.ns
    for t_us, button, down in events:
        p.run_until(max(p.ns, t0 + t_us * NS_PER_US))
        (p.press if down else p.release)(button)
    end = p.ns + 3000 * MS
    while p.ns < end:
        ends = [l for l in ref.lines[n:] if l.get("ev") == "game_end"]
        if ends:
            return ends[0]["record"]["id"]
        p.run_for(50000)
    raise AssertionError("no game_end; the board said %r" % ref.lines[n:][-5:])


@pytest.mark.long
def test_ids_differ_after_the_flash_is_wiped():
    from test_board_powercut import schedule
    events, _lines, _saves = schedule()
    ids = []
    ref = Referee()
    try:
        ref.boot()
        ids.append(play(ref, events))
        ids.append(play(ref, events))  # the same flash: the same install, counting on
    finally:
        ref.close()
    ref = Referee()  # a wiped flash, speedref installed again
    try:
        ref.boot()
        ids.append(play(ref, events))
    finally:
        ref.close()
    m = [ID.match(i) for i in ids]
    assert all(m), ids
    assert [x["seq"] for x in m] == ["1", "2", "1"]
    assert m[0]["inst"] == m[1]["inst"]
    assert m[2]["inst"] != m[0]["inst"], "a wiped board repeated its ids: %r" % ids
