"""A board on Wi-Fi keeps every game the club has not acknowledged (SP-24):
the records above the club's acknowledgement (Store.acked, which the uplink
keeps) are its spool, never removed, neither to keep KEEP records nor to
make room on a full flash; the spool holds at most KEEP.  When that many
wait, the newest game waits: its record goes out on the log, the game stays
saved on its final screen, the table is told how many games wait for the
club, and OK stores it once an acknowledgement has come (the oldest
acknowledged record then goes).  The committed game scripts are played in
the simulator, the firmware's own app and store."""
import os

import pytest

from speedref import storage
from test_flash_full import GAMES, fill, finish, full, old_records, play, script, stored_games  # noqa: F401

KEEP = 3


def waiting_store(b, acked):
    b.app.store.keep = KEEP
    b.app.store.acked = acked  # as speedref/uplink.py sets it from sent.json


@pytest.mark.parametrize("game", GAMES)
def test_a_full_spool_keeps_the_newest_game_saved_and_tells_the_table(full, game):  # noqa: F811
    root, fs = full
    old_records(root, KEEP)  # three games the club has not acknowledged
    before, after = script(game)
    b, lines = play(root, game, before, fs, None)
    try:
        waiting_store(b, 0)
        finish(b, after)
        ends = [l for l in lines if l["ev"] == "game_end"]
        assert len(ends) == 1, "the laptop on USB did not get the game"
        assert ends[0]["record"]["id"].endswith("-4"), "USB and Wi-Fi would store it under two keys"
        assert {"ev": "error", "what": "app", "msg": "record not stored: 3 games wait for the club"} in lines
        screen = b.app.screen
        assert type(screen).__name__ == "Unstored"
        assert " ".join(screen.lines) == "Wi-Fi: 3 games wait for the club. This one stays saved. OK: try again"
        assert len(screen.lines) <= 5, screen.lines  # above the hint
        assert os.path.exists(os.path.join(root, "game.json")), "the save was cleared"
        assert [r["id"] for r in stored_games(root)] == ["old-1", "old-2", "old-3"], "a waiting game removed"
        # OK with no acknowledgement yet: still waiting, nothing lost
        t = after[-1][0] + 1000000
        b.event(t, 6, True)
        b.event(t + 60000, 6, False)
        b.run_until(t + 500000)
        assert type(b.app.screen).__name__ == "Unstored"
        assert [r["id"] for r in stored_games(root)] == ["old-1", "old-2", "old-3"]
        # the club acknowledges the oldest: OK stores the game, that record goes
        b.app.store.acked = 1
        t += 1000000
        b.event(t, 6, True)
        b.event(t + 60000, 6, False)
        b.run_until(t + 500000)
        kept = stored_games(root)
        assert [r["id"] for r in kept[:2]] == ["old-2", "old-3"] and kept[2] == ends[0]["record"]
        assert not os.path.exists(os.path.join(root, "game.json"))
        assert type(b.app.screen).__name__ == "Games"
        assert len([l for l in lines if l["ev"] == "game_end"]) == 1
        assert not [l for l in lines if l["ev"] == "error" and l["what"] == "room"]
    finally:
        b.close()


@pytest.mark.parametrize("acked", [0, 1])
def test_records_the_club_has_not_acknowledged_never_make_room_on_a_full_flash(full, acked):  # noqa: F811
    root, fs = full
    old_records(root, 10)
    before, after = script("speed")
    b, lines = play(root, "speed", before, fs, None)
    try:
        b.app.store.acked = acked  # the club has 1..acked; the rest wait
        fill(fs, root)
        finish(b, after)
        room = [l["id"] for l in lines if l["ev"] == "error" and l["what"] == "room"]
        assert room == ["old-%d" % i for i in range(1, acked + 1)], room
        kept = [r["id"] for r in stored_games(root)]
        assert kept[:10 - acked] == ["old-%d" % i for i in range(acked + 1, 11)]
        if acked:  # the room the acknowledged record left takes the game
            assert type(b.app.screen).__name__ == "Games" and len(kept) == 11 - acked
        else:
            assert type(b.app.screen).__name__ == "Unstored" and len(kept) == 10
            assert " ".join(b.app.screen.lines).startswith("Flash full: game not stored")
    finally:
        b.close()


def test_without_the_uplink_the_oldest_records_go_as_before(tmp_path):
    s = storage.Store(str(tmp_path), uid="u", keep=KEEP)
    rec = {"game": "speed"}
    for _ in range(KEEP + 2):
        s.add_record(dict(rec))
    assert s._seqs() == [3, 4, 5] and s.waiting() == 0


def test_the_spool_counts_only_what_waits_and_a_game_stored_again_is_no_more(tmp_path):
    s = storage.Store(str(tmp_path), uid="u", keep=KEEP)
    s.acked = 0
    for _ in range(KEEP):
        s.add_record({"game": "speed"})
    assert s.waiting() == KEEP and s.oldest_record() is None
    s.add_record({"game": "speed", "again": True}, 2)  # the same game stored again replaces its file
    with pytest.raises(storage.SpoolFull, match="3 games wait for the club"):
        s.add_record({"game": "speed"})
    assert s._seqs() == [1, 2, 3]
    s.acked = 2
    assert s.waiting() == 1 and s.oldest_record() == 1
    s.add_record({"game": "speed"})
    assert s._seqs() == [2, 3, 4], "the oldest acknowledged record goes first"
    s.acked = 4
    assert s.make_room(1 << 40) == ["u-%s-2" % s.install, "u-%s-3" % s.install, "u-%s-4" % s.install]
    s.acked = 3
    s.add_record({"game": "speed"})
    assert s.make_room(1 << 40) == [] and s._seqs() == [5], "nothing the club lacks is removed"
