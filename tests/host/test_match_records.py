"""A game of a match carries "evening" and "round" (and the round's table
name as its "table"): the device's, not the game's, as its "id" and
"table" are.  Every game's rules replay such a record to the same sheet,
and the laptop's strict paths (the USB log, a record file, the MQTT
listener) store it as it came, tags and all, so the laptop finds the
round a result belongs to."""
import json

import pytest

from host_fixtures import partners_game, speed_match, speedrun_short
from host_tools.club.db import ResultsDB
from host_tools.intake import lines, mqtt
from speedref.engine import records

TAGS = {"table": "Table 3", "evening": 12, "round": 4}


@pytest.mark.parametrize("make", [speed_match, partners_game, speedrun_short])
def test_every_game_replays_a_tagged_record_to_the_same_sheet(make):
    plain = make(0) if make is speed_match else make()
    tagged = dict(plain, id="e6614c31-0000aaaa-7", **TAGS)
    assert records.summary(tagged) == records.summary(plain)
    assert records.replay(tagged).to_record() == records.replay(plain).to_record()  # the tags are not the game's


def test_the_usb_log_a_file_and_the_listener_store_the_tags_as_they_came(tmp_path):
    db = ResultsDB(str(tmp_path / "r.db"), write=True)
    try:
        out, err = [], []
        core = lines.LineCore(db, out=out.append, err=err.append)
        rec = dict(speed_match(1), id="b1-0000aaaa-1", **TAGS)
        core.feed(json.dumps({"ev": "game_end", "record": rec}).encode() + b"\n")
        listener = mqtt.Listener(db, out.append, err.append)
        over_wifi = dict(speedrun_short(), id="b2-0000aaaa-1", **TAGS)
        listener.message("speedref/riverside/t3/game", json.dumps(over_wifi).encode())
        stored = [r for _, r in db.games()]
        assert stored == [rec, over_wifi] and core.stored == 1 and listener.core.stored == 1
        assert [c for c in db.clubs().values()] == ["riverside"]  # the topic's club, kept with the game
        assert not [e for e in err if "skipped" in e], err
    finally:
        db.close()
    f = tmp_path / "record.json"
    f.write_text(json.dumps(dict(partners_game(), id="b3-0000aaaa-1", **TAGS)))
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", str(tmp_path / "r.db"), "import",
                        str(f)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    db = ResultsDB(str(tmp_path / "r.db"))
    try:
        assert [r.get("round") for _, r in db.games()] == [4, 4, 4]
    finally:
        db.close()
