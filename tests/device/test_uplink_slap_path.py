"""The network never delays the referee: the same scripted slap-to-win
match (SP-17) on the device loop under the Unix port gives the same lines,
verdicts and record with the uplink on and its broker wedged (it took the
connection and a PUBLISH, and answers nothing), or talking all the time
(the club's answers and requests to send again, every millisecond, waiting
in the socket), as with no uplink at all; and the same game started from
the table's match gives the same lines when a re-pairing of that match
arrives every few milliseconds through the race as when the match came on
the console and nothing arrives.  The uplink is not called once while the
game is in play, so nothing it receives is read then: the re-pairing is
taken after the game."""
import json
import subprocess

import pytest

import mpyhelp
import mpyrun
import mqtt_rig

pytestmark = pytest.mark.skipif(mqtt_rig.why_missing() is not None, reason=str(mqtt_rig.why_missing()))


# The device's heap plus the uplink's code: here umqtt.simple is compiled from
# its source (the heap holds the compiler's work), and the uplink's bytecode
# sits in the heap, where a board has both frozen in flash; both modes get it.
# Measured: the match's game (a re-pairing every few milliseconds before it
# starts) loads its flow in a heap that the match's waiting has fragmented:
# the smallest heap that starts it is DEVICE_WK + 56 with the accented names'
# drawing code in ui and names.py (+24 before it, while the heap in use at
# its start grew 3.6 KB); +60 leaves it a margin.
HEAP = "%dwK" % (mpyrun.DEVICE_WK + 60)


def play(tmp_path, port, mode):
    env_path = mpyrun.micropath(use_mpy=mpyrun.MPY_BUILD.exists(), extra=[mqtt_rig.umqtt_dir()])
    import os
    r = subprocess.run([str(mpyrun.MICROPYTHON), "-X", "heapsize=" + HEAP,
                        str(mpyrun._short(mpyrun.SUPPORT / "uplink_slap.py")), str(tmp_path / mode), str(port),
                        mode], capture_output=True, text=True, timeout=300, cwd=mpyrun.ROOT,
                       env=dict(os.environ, MICROPYPATH=env_path))
    assert r.returncode == 0, r.stderr[-3000:]
    lines = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    result = next(o for o in lines if "result" in o)
    game = mpyhelp.one_install([o for o in lines if "ev" in o and o["ev"] != "uplink"
                                and not (o["ev"] == "match" and o["state"] == "same")])
    return game, result, [o for o in lines if o.get("ev") == "uplink"]


def test_a_wedged_broker_changes_no_verdict_and_is_never_called_in_play_SP17(tmp_path):
    stalled = mqtt_rig.Stalled()
    try:
        off, r_off, _ = play(tmp_path, stalled.port, "off")
        on, r_on, up = play(tmp_path, stalled.port, "stalled")
    finally:
        stalled.close()
    assert r_on["ticks"] > 0 and r_on["sends"] >= 1 and r_on["acks"] == 0  # it was busy, and stuck
    assert r_on["in_play"] == 0
    assert [o["state"] for o in up][:1] == ["online"], up
    assert on == off
    slaps = [o for o in on if o["ev"] == "slap"]
    assert [(s["winner"], s["margin_us"]) for s in slaps] == [(None, 200), (0, 3200), (0, 1800)]
    assert [o for o in on if o["ev"] == "game_end"]


def test_a_broker_that_never_stops_talking_changes_no_verdict_and_is_never_read_in_play_SP17(tmp_path):
    chatty = mqtt_rig.Chatty()
    try:
        off, _, _ = play(tmp_path, chatty.port, "off")
        on, r_on, up = play(tmp_path, chatty.port, "chatty")
    finally:
        chatty.close()
    assert r_on["in_play"] == 0
    assert r_on["acks"] >= 1, "the board never took an answer: the test proves nothing"
    assert {"ev": "uplink", "state": "resend", "seq": 1, "last": 1} in up
    assert on == off


# the match tests/mpy/uplink_slap.py gives on the console (usb) and the broker at the subscription
# (match), and the re-pairing the broker then sends through the race
MATCH = {"id": "e1r1", "evening": 1, "round": 1, "table": "Table 1", "game": "speed",
         "opts": {"slap_to_win": True, "match": "best_of", "tie_ms": 1}, "names": ["Ann", "Bob"]}
REPAIRED = dict(MATCH, version=2, names=["Bob", "Ann"])


def test_a_match_arriving_mid_race_changes_no_verdict_and_waits_for_the_games_end_SP17(tmp_path):
    import json
    broker = mqtt_rig.Matchmaker(json.dumps(MATCH).encode(), json.dumps(REPAIRED).encode())
    try:
        usb, r_usb, _ = play(tmp_path, broker.port, "usb")
        on, r_on, up = play(tmp_path, broker.port, "match")
    finally:
        broker.close()
    assert r_on["in_play"] == 0
    assert broker.pubacks > 1, "no re-pairing reached the board: the test proves nothing"
    game = [o for o in on if o["ev"] != "match"]
    assert game == [o for o in usb if o["ev"] != "match"]  # the same lines, verdicts and record
    slaps = [o for o in game if o["ev"] == "slap"]
    assert [(s["winner"], s["margin_us"]) for s in slaps] == [(None, 200), (0, 3200), (0, 1800)]
    end = [i for i, o in enumerate(on) if o["ev"] == "game_end"]
    rec = on[end[0]]["record"]
    assert rec["players"] == ["Ann", "Bob"] and (rec["evening"], rec["round"]) == (1, 1)
    taken = [(i, o["version"]) for i, o in enumerate(on) if o["ev"] == "match" and o["state"] == "offered"]
    assert taken[0][1] == 1 and taken[0][0] < end[0]  # the match, before the game
    assert [v for i, v in taken[1:]] == [2] and taken[1][0] > end[0]  # the re-pairing: after it
    assert r_on["screen"] == "Match" and r_on["items"][1:3] == ["P1 Bob", "P2 Ann"]
