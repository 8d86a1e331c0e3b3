"""The club laptop's listener (host_tools/intake/mqtt.py, speedref-log --mqtt)
against a real Mosquitto: what is not a board's record is skipped in one
line, a broker that lets anyone in is refused when credentials are given,
and 32 tables at once lose and double nothing."""
import os
import subprocess
import sys
import threading

import pytest

import host_fixtures as fx
import mqtt_rig
from host_tools.intake import mqtt
from host_tools.club.db import ResultsDB
import test_uplink_mqtt as _up
from test_uplink_mqtt import Club, WAIT_S

broker, club, boards = _up.broker, _up.club, _up.boards  # the same fixtures

pytestmark = pytest.mark.skipif(mqtt_rig.why_missing(board=False) is not None,
                                reason=str(mqtt_rig.why_missing(board=False)))


def publisher(port, cid, user=None, password=None):
    import paho.mqtt.client as pm
    c = pm.Client(pm.CallbackAPIVersion.VERSION2, client_id=cid, protocol=pm.MQTTv311)
    if user:
        c.username_pw_set(user, password)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def publish(c, topic, payload):
    info = c.publish(topic, payload, qos=1)
    info.wait_for_publish(WAIT_S)
    assert info.is_published()


def test_messages_not_from_a_board_are_skipped_in_one_line_each(broker, club):
    c = publisher(broker.port, "prankster")
    bad = [b"\xff\xfe\x00", b"not json at all", b'{"ev": "boot"}', b"[1, 2, 3]",
           b'{"game": "speed", "players": ["Ann", "Bob"], "deals": "lots"}',
           b'{"game": "speed", "layout": "pagat", "match": {"single": true}, "players": ["Ann", "Ann"],'
           b' "deals": [{"winner": 0, "left": 3}]}',
           b'{"a": ' * 5000 + b"1" + b"}" * 5000]
    try:
        for p in bad:
            publish(c, "speedref/club/t9/game", p)
        publish(c, "speedref/club/t9/game", mqtt.record_json(fx.speed_single(ident="dev9-aaaa0001-1")))
        club.wait_stored(1)
    finally:
        c.loop_stop()
        c.disconnect()
    skipped = [e for e in club.err if e.startswith("skipped:")]
    assert len(skipped) == len(bad), skipped
    assert all("\n" not in e and len(e) < 300 for e in skipped)
    assert club.ids() == ["dev9-aaaa0001-1"]


def test_a_1_mb_message_is_skipped_and_the_next_game_is_stored(broker, club):
    c = publisher(broker.port, "big")
    try:
        publish(c, "speedref/club/t1/game", b"{" + b" " * (1 << 20) + b"}")
        publish(c, "speedref/club/t1/game", mqtt.record_json(fx.speed_single(ident="dev1-aaaa0001-1")))
        club.wait_stored(1)
    finally:
        c.loop_stop()
        c.disconnect()
    assert [e for e in club.err if "1048578 bytes is no game record" in e]
    assert club.ids() == ["dev1-aaaa0001-1"]


def test_a_record_naming_another_table_than_its_topic_is_stored_and_said(broker, club):
    c = publisher(broker.port, "mixup")
    rec = dict(fx.speed_single(ident="dev2-aaaa0001-1"), table="t7")
    try:
        publish(c, "speedref/club/t2/game", mqtt.record_json(rec))
        club.wait_stored(1)
    finally:
        c.loop_stop()
        c.disconnect()
    assert any("club/t2: the record names table 't7'" in e for e in club.err)


def test_with_credentials_a_broker_open_to_anyone_is_refused_unless_allowed(tmp_path, monkeypatch):
    b = mqtt_rig.Broker(tmp_path / "b", users={"laptop": "pw-1"}, anonymous=True).start()
    try:
        url = "mqtt://laptop@127.0.0.1:%d" % b.port
        with pytest.raises(mqtt.Refused, match="lets in clients without a user name"):
            mqtt.listen(None, url, password="pw-1", timeout=5)
        c = Club(tmp_path, url, password="pw-1", allow_anonymous=True)
        c.close()
        assert not c.failed
    finally:
        b.stop()


def test_a_closed_broker_with_the_right_password_is_used_and_a_wrong_one_refused(tmp_path):
    b = mqtt_rig.Broker(tmp_path / "b", users={"laptop": "pw-1", "t1": "pw-t"}).start()
    try:
        url = "mqtt://laptop@127.0.0.1:%d" % b.port
        with pytest.raises(mqtt.Refused, match="refused the connection"):
            mqtt.listen(None, url, password="wrong", timeout=5)
        c = Club(tmp_path, url, password="pw-1")
        p = publisher(b.port, "t1", "t1", "pw-t")
        try:
            publish(p, "speedref/club/t1/game", mqtt.record_json(fx.speed_single(ident="dev1-aaaa0001-1")))
            c.wait_stored(1)
        finally:
            p.loop_stop()
            p.disconnect()
            c.close()
    finally:
        b.stop()


def test_a_password_in_the_url_is_refused():
    with pytest.raises(ValueError, match="visible to every user"):
        mqtt.parse_url("mqtt://u:secret@host")
    assert mqtt.parse_url("mqtts://u@host") == (True, "host", 8883, "u")
    assert mqtt.table_of("speedref/club/t1/game") == ("club", "t1")
    assert mqtt.table_of("speedref/club/t1/x") is None


def test_speedref_log_mqtt_stores_and_exits_when_idle(tmp_path, broker):
    db = tmp_path / "r.db"
    p = subprocess.Popen([sys.executable, "-m", "host_tools.cli.log", "--mqtt", broker.url, "--db", str(db),
                          "--idle-exit", "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    try:
        line = p.stdout.readline()
        assert line.startswith("connected to 127.0.0.1:%d, listening on speedref/+/+/game" % broker.port), line
        c = publisher(broker.port, "t1")
        publish(c, "speedref/club/t1/game", mqtt.record_json(fx.speed_single(ident="dev1-aaaa0001-1")))
        publish(c, "speedref/club/t1/game", mqtt.record_json(fx.speed_single(ident="dev1-aaaa0001-1")))
        c.loop_stop()
        c.disconnect()
        out, err = p.communicate(timeout=WAIT_S)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert "table club/t1: speed" in out
    assert "1 new game record, 1 duplicate" in out
    r = ResultsDB(str(db))
    assert [rec["id"] for _, rec in r.games()] == ["dev1-aaaa0001-1"]
    r.close()


@pytest.mark.skipif(mqtt_rig.why_missing() is not None, reason=str(mqtt_rig.why_missing()))
def test_32_tables_at_once_nothing_lost_nothing_doubled_each_game_tied_to_its_table(tmp_path, broker, club,
                                                                                   boards):
    # three tables are the firmware on the Unix port, 29 replay recorded streams
    firm = [boards(tmp_path / ("f%d" % i), broker.port, table="t%02d" % i, uid="f%d" % i) for i in range(3)]
    ids = {}
    for i, b in enumerate(firm):
        ids["t%02d" % i] = b.ask(add=3)["ids"]
    streams = {}
    for i in range(3, 32):
        table = "t%02d" % i
        recs = [dict(fx.speed_match(i * 10 + k, ident="dev%02d-aaaa00%02d-%d" % (i, i, k)), table=table)
                for k in range(3)]
        streams[table] = recs
        ids[table] = [r["id"] for r in recs]

    def replay(table, recs):
        c = publisher(broker.port, "rec-" + table)
        try:
            for r in recs + recs[:1]:  # the first one delivered twice, as after a lost PUBACK
                publish(c, "speedref/club/%s/game" % table, mqtt.record_json(r))
        finally:
            c.loop_stop()
            c.disconnect()
    threads = [threading.Thread(target=replay, args=kv) for kv in streams.items()]
    for b in firm:  # the boards' commands go out first, their loops run while the replays do
        b.proc.stdin.write(b'{"run": {"acks": 3, "ticks": 3000}}\n')
        b.proc.stdin.flush()
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT_S)
    for b in firm:
        assert b._until(lambda o: "reply" in o, WAIT_S)["acks"] == 3
    club.wait_stored(32 * 3)
    core = club.listener.core
    assert club.listener.wait(lambda: core.duplicates >= 29, WAIT_S)
    got = club.ids()
    assert len(got) == 96 and set(got) == {x for v in ids.values() for x in v}
    db = ResultsDB(club.path)
    for _, rec in db.games():
        if "table" in rec:
            assert rec["id"] in ids[rec["table"]]
    db.close()
    # 29 copies replayed; a board's record sent again while the listener was
    # busy (the rig's fast clock: 100 ms of loop time a pass) is one more
    assert core.stored == 96 and core.duplicates >= 29
    assert not [e for e in club.err if "names table" in e]
    for b in firm:  # each board's games under its own table's topic
        assert {o["msg"] for o in b.uplink_lines() if o["state"] == "stored"} == {
            "speedref/club/%s/game" % b.conf["table"]}


def test_mqtt_options_without_mqtt_or_with_a_port_are_refused(capsys):
    from host_tools.cli import log
    for argv in (["--mqtt", "mqtt://h", "--port", "/dev/ttyACM0"], ["--club", "x"], ["--ca", "c.pem"]):
        with pytest.raises(SystemExit) as e:
            log.main(argv)
        assert e.value.code == 2
    assert "one source at a time" in capsys.readouterr().err
