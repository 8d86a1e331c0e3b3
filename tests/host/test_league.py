"""A league of clubs over bridged brokers: two clubs' brokers (the club's
own configuration, docs/mosquitto/club.conf, with the bridge's lines,
docs/mosquitto/bridge.conf, added as docs/host-tools.md says) joined to a
league's broker (docs/mosquitto/league.conf and league.acl, TLS), each
club's tables the firmware's uplink on the MicroPython Unix port, each
club's own listener answering its tables, and the league's listener
(speedref-log --mqtt --league) storing every club's games.  The link is cut
mid-evening (the league's broker stopped, a club's broker restarted while
it is down) and restored: every game of both clubs is in the league's
database exactly once, with its club, and the clubs' two "Ann"s stay two
people."""
import json
import subprocess
import sys

import pytest

import mqtt_rig
from host_tools.club.db import ResultsDB
from test_uplink_mqtt import Club

pytestmark = pytest.mark.skipif(mqtt_rig.why_missing() is not None, reason=str(mqtt_rig.why_missing()))

LEAGUE = {"league": "pw-league", "riverside": "pw-riverside", "hilltop": "pw-hilltop"}
CLUBS = {"riverside": ("t1", "t2"), "hilltop": ("t1",)}
TICKS = 20000


@pytest.fixture
def league(tmp_path):
    made = []

    class League:
        def __init__(self):
            self.broker = mqtt_rig.LeagueBroker(tmp_path / "league", LEAGUE).start()
            made.append(self.broker.stop)
            self.clubs, self.listeners, self.boards = {}, {}, {}
            for club, tables in CLUBS.items():
                accounts = dict([("listener", "pw-l")] + [(t, "pw-" + t) for t in tables])
                b = mqtt_rig.ClubBroker(tmp_path / club, accounts, bridge={
                    "club": club, "port": self.broker.port, "ca": self.broker.ca,
                    "password": LEAGUE[club]}).start()
                made.append(b.stop)
                self.clubs[club] = b
                c = Club(tmp_path, b.url, db=club + ".db", password="pw-l")
                made.append(c.close)
                self.listeners[club] = c
                for t in tables:
                    board = mqtt_rig.BoardProc(tmp_path / club / t, b.port, club=club, table=t, user=t,
                                               password=accounts[t], uid="b%s%s" % (club[0], t))
                    made.append(board.close)
                    self.boards[(club, t)] = board
            self.db = Club(tmp_path, self.broker.url, db="league.db", league=True, password=LEAGUE["league"],
                           ca=str(self.broker.ca))
            made.append(self.db.close)
            self.acked = dict((k, 0) for k in self.boards)

        def play(self, n):
            """Each table finishes n games; each club's listener has them all
            (the boards have their answers)."""
            ids = []
            for board in self.boards.values():
                ids += board.ask(add=n)["ids"]
            for k, board in self.boards.items():
                self.acked[k] += n
                got = board.ask(run={"acks": self.acked[k], "ticks": TICKS})
                assert got["backlog"] == 0, got
            return ids

    yield League()
    for stop in reversed(made):
        stop()


def rows(path):
    db = ResultsDB(path)
    try:
        clubs = db.clubs()
        return [(rec["id"], clubs.get(row)) for row, rec in db.games()]
    finally:
        db.close()


def test_every_game_of_both_clubs_is_in_the_leagues_database_once_with_its_club(league):
    ids = league.play(3)
    league.db.wait_stored(len(ids))
    league.broker.stop()  # the link is cut: the league's broker is down
    ids += league.play(3)  # the evening goes on: each club's own listener answers its tables
    hill = league.clubs["hilltop"]
    hill.stop()  # a club's broker restarted while the link is down: what it queued for the league stays
    hill.start()
    ids += league.play(2)
    assert league.db.listener.core.stored == 9  # nothing has reached the league since the cut
    league.broker.start()  # the link is back: each bridge tries again within its restart_timeout's cap (60 s)
    league.db.wait_stored(len(ids), timeout=120)
    assert league.db.listener.answers == 0  # the league answers no table: each club's own listener does
    got = rows(league.db.path)
    assert sorted(r for r, _ in got) == sorted(ids)  # each game once
    for rid, club in got:
        assert club == ("riverside" if rid.startswith("br") else "hilltop"), (rid, club)
    for club in CLUBS:  # each club's own database: its games, with its club
        mine = rows(league.listeners[club].path)
        assert sorted(r for r, _ in mine) == sorted(r for r in ids if r.startswith("b" + club[0]))
        assert set(c for _, c in mine) == {club}
    # the standings: the whole league, and each club (speedref-results --club), the two Anns apart
    whole = results(league.db.path, "--json")
    assert people_games(whole) == {"Ann (riverside)": 16, "Bob (riverside)": 16, "Ann (hilltop)": 8,
                                   "Bob (hilltop)": 8}
    assert people_games(results(league.db.path, "--json", "--club", "hilltop")) == {
        "Ann (hilltop)": 8, "Bob (hilltop)": 8}
    rated = json.loads(subprocess.run(
        [sys.executable, "-m", "host_tools.cli.results", "--db", league.db.path, "ratings", "--club", "riverside",
         "--json"], capture_output=True, text=True, check=True).stdout)["ratings"]
    assert sorted((r["player"], r["games"]) for r in rated) == [("Ann (riverside)", 16), ("Bob (riverside)", 16)]
    # a club's own database: its people as they are named
    assert people_games(results(league.listeners["hilltop"].path, "--json")) == {"Ann": 8, "Bob": 8}
    # one person across clubs only where the league says so
    out = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", league.db.path, "merge",
                          "Ann (hilltop)", "Ann (riverside)"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert people_games(results(league.db.path, "--json"))["Ann (riverside)"] == 24


def results(path, *args):
    r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", path] + list(args),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def people_games(answer):
    return dict((r["player"], r["games"]) for r in answer["standings"] if r["person"])


def test_a_club_is_the_only_one_to_publish_in_its_name_on_the_leagues_broker(tmp_path):
    import paho.mqtt.client as pm
    broker = mqtt_rig.LeagueBroker(tmp_path / "league", LEAGUE).start()
    db = Club(tmp_path, broker.url, db="league.db", league=True, password=LEAGUE["league"], ca=str(broker.ca))
    try:
        answers = {}
        c = pm.Client(pm.CallbackAPIVersion.VERSION2, client_id="hilltop-forger", protocol=pm.MQTTv5)
        c.username_pw_set("hilltop", LEAGUE["hilltop"])
        c.tls_set(ca_certs=str(broker.ca))
        c.on_publish = lambda client, userdata, mid, reason, props: answers.__setitem__(mid, reason)
        c.connect("localhost", broker.port)
        c.loop_start()
        rec = {"game": "speed", "layout": "pagat", "match": {"single": True}, "players": ["Ann", "Bob"],
               "deals": [{"winner": 0, "left": 3}]}
        for club, n in (("riverside", 1), ("hilltop", 2)):
            info = c.publish("speedref/%s/t1/game" % club, json.dumps(dict(rec, id="bh-0000aaaa-%d" % n)), qos=1)
            info.wait_for_publish(10)
            assert answers[info.mid].is_failure == (club == "riverside"), (club, answers[info.mid])
        db.wait_stored(1)
        assert rows(db.path) == [("bh-0000aaaa-2", "hilltop")]
        c.loop_stop()
        c.disconnect()
    finally:
        db.close()
        broker.stop()


@pytest.mark.parametrize("argv, says", [
    (["-m", "host_tools.cli.log", "--league"], "--league is an option of --mqtt"),
    (["-m", "host_tools.cli.results", "--club", "hilltop", "--html", "x.html"], "--club goes with the standings"),
    (["-m", "host_tools.cli.results", "--club", "hilltop", "--evening"], "--club goes with the whole season"),
    (["-m", "host_tools.cli.results", "--club", "hilltop", "changes"], "--club goes with the standings and ratings"),
])
def test_the_league_options_go_where_they_mean_something(argv, says, tmp_path):
    r = subprocess.run([sys.executable] + argv + ["--db", str(tmp_path / "r.db")], capture_output=True, text=True)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr
