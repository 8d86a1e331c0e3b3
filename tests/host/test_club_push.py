"""A club night whose rounds go to the tables (speedref-club, host_tools/club/matches.py):
`speedref-club pair` publishes each table's match through the club's own
Mosquitto (docs/mosquitto/club.conf and club.acl, as docs/host-tools.md sets
it up), two tables the firmware's whole device with its uplink on the
MicroPython Unix port (tests/mpy/match_table.py) and one a recorded stream
with the table's account; the boards show the match and play it with its
names, their records come back over MQTT to the club's listener tagged with
the evening and the round, and the evening places every one in its round by
that tag.  A re-pairing replaces the matches, a table taken out is cleared, a
bye gets nothing.  Over USB, `speedref-club push --usb` gives one table its
match through the console of the firmware's device loop on a pseudo-terminal."""
import datetime
import json
import os
import subprocess
import sys
import threading
import tty
from pathlib import Path

import pytest

import mqtt_rig
from host_tools.board import match as M
from host_tools.club import evening as E
from host_tools.club import matches as MT
from host_tools.club.db import ResultsDB
from host_tools.intake import mqtt
from test_match_push import HEAP, TICKS
from test_uplink_mqtt import WAIT_S, Club

pytestmark = pytest.mark.skipif(mqtt_rig.why_missing() is not None, reason=str(mqtt_rig.why_missing()))

BIN = Path(sys.executable).parent
ACCOUNTS = {"listener": "pw-listener", "t1": "pw-t1", "t2": "pw-t2", "t3": "pw-t3"}
PEOPLE = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus"]


def club_cmd(db, *args, status=0, password=ACCOUNTS["listener"]):
    env = dict(os.environ)
    env.pop(mqtt.PASSWORD_ENV, None)
    if password is not None:
        env[mqtt.PASSWORD_ENV] = password
    r = subprocess.run([str(BIN / "speedref-club"), *map(str, args), "--db", str(db)], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == status, (args, r.stdout, r.stderr)
    return r.stdout if status == 0 else r.stderr


class Stream:
    """Table t3 as a recorded stream: a client with the table's account
    that keeps every match it is given (None: cleared) and, when told,
    answers the last with a recorded game of its players, tagged with its
    evening and round as a board's record is."""

    def __init__(self, port, table="t3"):
        import paho.mqtt.client as pm
        self.table = table
        self.matches = []
        self.cond = threading.Condition()
        self.c = pm.Client(pm.CallbackAPIVersion.VERSION2, client_id="stream-" + table, protocol=pm.MQTTv311)
        self.c.username_pw_set(table, ACCOUNTS[table])
        self.c.on_message = self._message
        subscribed = threading.Event()
        self.c.on_subscribe = lambda *a: subscribed.set()
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        self.c.subscribe("speedref/club/%s/match" % table, 1)
        assert subscribed.wait(WAIT_S)

    def _message(self, client, userdata, msg):
        with self.cond:
            self.matches.append(M.parse_message(msg.payload))
            self.cond.notify_all()

    def wait(self, pred):
        with self.cond:
            assert self.cond.wait_for(lambda: pred(self.matches), WAIT_S), self.matches

    def play(self, n):
        m = self.matches[-1]
        rec = {"game": "speed", "layout": "pagat", "match": {"single": True}, "players": m["names"],
               "deals": [{"winner": 0, "left": 6}], "id": "stream%s-0000cafe-%d" % (self.table, n),
               "table": m["table"], "evening": m["evening"], "round": m["round"]}
        self.c.publish("speedref/club/%s/game" % self.table, json.dumps(rec).encode(), qos=1)

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()


@pytest.fixture
def room(tmp_path):
    made = []

    class Room:
        def __init__(self):
            self.b = mqtt_rig.ClubBroker(tmp_path / "broker", ACCOUNTS).start()
            made.append(self.b.stop)
            self.db = tmp_path / "club.db"
            ResultsDB(self.db).close()
            self.listener = Club(tmp_path, self.b.url, db="club.db", password=ACCOUNTS["listener"])
            made.append(self.listener.close)

        def board(self, table):
            b = mqtt_rig.BoardProc(tmp_path / table, self.b.port, table=table, user=table,
                                   password=ACCOUNTS[table], uid="b0" + table, heap=HEAP, script="match_table.py")
            made.append(b.close)
            return b

        def stream(self):
            s = Stream(self.b.port)
            made.append(s.close)
            return s

        def tonight(self):
            db = ResultsDB(self.db)
            try:
                with db.snapshot():
                    return E.tonight(db, E.find(db))
            finally:
                db.close()

        def retained(self, table):
            return mqtt.read_match(self.b.url, "club", table, ACCOUNTS["listener"])

    yield Room()
    for stop in reversed(made):
        stop()


def shows(board, rnd, table, version=1):
    """The board's menu offers round `rnd`'s match at `table` (its version),
    the seats named as the round seats them."""
    want = ["P%d %s" % (i + 1, n) for i, (_, n) in enumerate(dict(rnd.tables)[table])]

    def offered():
        return [(o["version"], o["from"]) for o in board.lines
                if o.get("ev") == "match" and o.get("round") == rnd.number and o["state"] == "offered"]
    got = board.ask(run={"until": "match", "round": rnd.number, "ticks": TICKS})
    for _ in range(100):        # a re-pairing: the newer version comes after the one shown
        if offered()[-1:] == [(version, "wifi")]:
            break
        got = board.ask(run={"ticks": 20})
    assert offered()[-1:] == [(version, "wifi")], board.lines[-5:]
    assert got["screen"] == "Match" and got["head"] == "Round %d %s" % (rnd.number, table), got
    assert got["items"][:3] == ["Play Speed"] + want, got


def test_pair_sends_each_table_its_match_and_the_games_come_back_to_their_round(room):
    db = room.db
    out = club_cmd(db, "start", "Thursday club", "--tables", "3", "--mqtt", room.b.url, "--club", "club")
    assert "rounds go to the tables through %s, club club: Table 1 on t1, Table 2 on t2, Table 3 on t3" % room.b.url \
        in out
    club_cmd(db, "checkin", *PEOPLE)
    boards = {"Table 1": room.board("t1"), "Table 2": room.board("t2")}
    stream = room.stream()

    # round 1: seven people at three tables, a bye
    out = club_cmd(db, "pair", "--game", "speed", "--option", "match=single")
    assert out.splitlines()[-1] == "round 1 sent to 3 tables on club club's broker: Table 1 (t1), Table 2 (t2)," \
                                   " Table 3 (t3)"
    rnd = room.tonight().rounds[0]
    assert [t for t, _ in rnd.tables] == ["Table 1", "Table 2", "Table 3"] and len(rnd.byes) == 1
    for table, b in boards.items():
        shows(b, rnd, table)
    stream.wait(lambda ms: len(ms) == 1)
    given = [room.retained(t) for t in ("t1", "t2", "t3")]
    assert [m["names"] for m in given] == [[n for _, n in seated] for _, seated in rnd.tables]
    assert all((m["id"], m["version"], m["evening"], m["round"], m["opts"]) ==
               ("e1r1", 1, 1, 1, {"match": "single", "seats": 2}) for m in given)
    bye = rnd.byes[0][1]
    assert all(bye not in m["names"] for m in given)              # a bye gets nothing
    for b in boards.values():
        b.ask(play={"winner": 0, "left": 3})
        assert b.ask(run={"acks": 1, "ticks": TICKS})["acks"] == 1
    stream.play(1)
    room.listener.wait_stored(3)
    t = room.tonight()
    assert t.placement.unplaced == [] and sorted(t.placement.how.values()) == ["board"] * 3
    for table, seated in rnd.tables:
        [g] = t.placement.slots[(1, table)]
        assert g.record["players"] == [n for _, n in seated] and g.record["table"] == table
        assert (g.record["evening"], g.record["round"]) == (t.evening.id, 1)     # the evening's own number

    # round 2, then made anew: three people leave, Table 3 is taken out
    out = club_cmd(db, "pair", "--game", "speed", "--option", "match=single")
    rnd2 = room.tonight().rounds[1]
    assert "round 2 sent to 3 tables" in out
    for table, b in boards.items():
        shows(b, rnd2, table)
    stream.wait(lambda ms: len(ms) == 2)
    here = [n for _, seated in rnd2.tables[:2] for _, n in seated]
    club_cmd(db, "leave", *[p for p in PEOPLE if p not in here])
    assert club_cmd(db, "table", "out", "Table 3").startswith("Table 3 is out")
    out = club_cmd(db, "pair", "--game", "speed", "--option", "match=single", "--again")
    assert out.splitlines()[-2:] == ["round 2, version 2, sent to 2 tables on club club's broker: Table 1 (t1),"
                                     " Table 2 (t2)", "no match now at Table 3 (t3, out)"]
    again = room.tonight().rounds[1]
    assert again.id != rnd2.id and [t for t, _ in again.tables] == ["Table 1", "Table 2"]
    for table, b in boards.items():
        shows(b, again, table, version=2)
    stream.wait(lambda ms: ms[-1] is None)                      # the table out: its match cleared
    assert room.retained("t3") is None and room.retained("t1")["version"] == 2
    for b in boards.values():
        b.ask(play={"winner": 1, "left": 2})
        assert b.ask(run={"acks": 2, "ticks": TICKS})["acks"] == 2
        assert [(o["round"], o["version"]) for o in b.lines if o.get("ev") == "match" and o["state"] == "offered"] \
            == [(1, 1), (2, 1), (2, 2)]
    room.listener.wait_stored(5)
    t = room.tonight()
    assert t.placement.unplaced == [] and len(t.placement.results(2)) == 2
    for table, seated in again.tables:
        [g] = t.placement.slots[(2, table)]
        assert g.record["players"] == [n for _, n in seated] and t.placement.how[g.row] == "board"
    assert not [e for e in room.listener.err if "names table" in e], room.listener.err

    # push sends the round again: the boards have it already, the topics hold it still
    out = club_cmd(db, "push")
    assert "round 2, version 2, sent to 2 tables" in out
    assert json.loads(club_cmd(db, "standings", "--json"))["unplaced"] == []


def test_a_table_with_no_topic_name_or_no_password_is_refused_before_the_round_is_made(room):
    db = room.db
    assert "table Big Oak has no topic name on the broker" in club_cmd(
        db, "start", "Club", "--table", "Table 1", "--table", "Big Oak", "--mqtt", room.b.url, "--club", "club",
        status=2)
    club_cmd(db, "start", "Club", "--table", "Table 1", "--table", "Big Oak=t2", "--mqtt", room.b.url,
             "--club", "club")
    assert "speedref-club table topic" in club_cmd(db, "table", "add", "Window seat", status=2)
    assert "Window seat added" in club_cmd(db, "table", "add", "Window seat=t3")
    club_cmd(db, "checkin", "Ann", "Bob")
    assert "SPEEDREF_MQTT_PASSWORD is not set" in club_cmd(db, "pair", "--game", "speed", status=2, password=None)
    assert room.tonight().rounds == []                          # nothing made
    err = club_cmd(db, "pair", "--game", "speed", status=1, password="wrong")
    assert "round 1 is kept, but not sent to the tables" in err and "speedref-club push sends it" in err
    assert len(room.tonight().rounds) == 1
    out = club_cmd(db, "push")                                  # the password given: sent now
    assert out.splitlines() == ["round 1 sent to 1 table on club club's broker: Table 1 (t1)",
                                "no match now at Big Oak (t2, no group this round), Window seat (t3, no group"
                                " this round)"]
    assert room.retained("t1")["names"] == [n for _, n in room.tonight().rounds[0].tables[0][1]]
    line = club_cmd(db, "push", "--json", "--table", "table 1").strip()
    assert json.loads(line) == room.retained("t1")
    assert "Table 1 (t1)" in club_cmd(db, "status")


def test_the_topic_name_of_a_table(tmp_path):
    assert [MT.default_topic(n) for n in ("Table 3", "table 12", "t3", "Oak", "Big Oak", "listener")] == \
        ["t3", "t12", "t3", "Oak", None, None]
    assert MT.split_table("Big Oak=oak") == ("Big Oak", "oak")
    with pytest.raises(E.Refused, match="cannot be Big Oak's topic name"):
        MT.split_table("Big Oak=big oak")
    db = ResultsDB(tmp_path / "r.db")
    ev, _ = E.start(db, "Club", "2026-12-10", ["Table 1", "Table 2"], [])
    with pytest.raises(E.Refused, match="Table 1 and Table 2 would both be t1"):
        MT.check_topics([E.Table(1, "Table 1", None, None), E.Table(2, "Table 2", None, "t1")])
    with pytest.raises(E.Refused, match="Table 1 is t1 on the broker already"):
        MT.set_topic(db, ev, "table 2", "t1")
    assert MT.set_topic(db, ev, "table 2", "window") == "Table 2 is window on the broker"
    assert MT.check_topics(E.tables(db, ev)) == {"Table 1": "t1", "Table 2": "window"}
    assert MT.names_table(db, "Table 2", "window") and MT.names_table(db, "Table 1", "t1")
    assert not MT.names_table(db, "Table 1", "t2")
    db.close()


# --- over USB: the firmware's device loop on a pseudo-terminal ----------------------------------
class PtyBoard:
    """The simulator's board (the firmware's device loop) whose USB console
    is the far end of a pseudo-terminal: the port a laptop opens."""

    def __init__(self, root, name):
        from sim.board import Board
        self.board = Board(root=str(root))
        self.board.step()
        self.board.command({"cmd": "table", "name": name})
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        import select
        buf = b""
        while not self.stop.is_set():
            r, _, _ = select.select([self.master], [], [], 0.05)
            if not r:
                continue
            try:
                buf += os.read(self.master, 4096)
            except OSError:
                return
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                n = len(self.board.lines)
                self.board.command(line.decode("utf-8", "replace").strip())
                for out in self.board.lines[n:]:
                    os.write(self.master, out.encode() + b"\r\n")

    def close(self):
        self.stop.set()
        self.thread.join(5)
        os.close(self.master)
        os.close(self.slave)
        self.board.close()


def test_push_usb_gives_one_table_its_match_through_the_boards_console(tmp_path):
    db = tmp_path / "club.db"
    club_cmd(db, "start", "Club", "--date", datetime.date.today().isoformat(), "--tables", "2")
    club_cmd(db, "checkin", "Ann", "Bob", "Cat")
    club_cmd(db, "pair", "--game", "speed", "--option", "match=best_of")
    d = ResultsDB(db)
    ev = E.find(d)
    rnd = E.rounds(d, ev)[0]
    d.close()
    seated = [n for _, n in dict(rnd.tables)["Table 1"]]
    right, wrong = PtyBoard(tmp_path / "b1", "Table 1"), PtyBoard(tmp_path / "b2", "Table 7")
    try:
        out = club_cmd(db, "push", "--usb", "--table", "table 1", "--port", right.port, "--timeout", "20")
        assert out == "evening %d round 1 at Table 1: speed (match best_of, seats 2), %s (match e%dr1 version 1)" \
                      " over USB: offered\n" % (ev.id, " v ".join(seated), ev.id)
        screen = right.board.app.screen
        assert type(screen).__name__ == "Match" and screen.m["names"] == seated and screen.m["evening"] == ev.id
        assert "over USB: offered already" in club_cmd(db, "push", "--usb", "--table", "Table 1", "--port",
                                                        right.port, "--timeout", "20")
        err = club_cmd(db, "push", "--usb", "--table", "Table 1", "--port", wrong.port, "--timeout", "20", status=1)
        assert "the board on %s is Table 7, not Table 1" % wrong.port in err
        assert type(wrong.board.app.screen).__name__ != "Match"
        # Table 2 has no group (three people, one pair): the board's match is cleared
        right.board.command({"cmd": "table", "name": "Table 2"})
        assert "Table 2 has no match in round 1 (no group this round): none on the board now" in club_cmd(
            db, "push", "--usb", "--table", "Table 2", "--port", right.port, "--timeout", "20")
        assert type(right.board.app.screen).__name__ == "Games"
    finally:
        right.close()
        wrong.close()
    assert "one table's match" in club_cmd(db, "push", "--usb", status=2)
