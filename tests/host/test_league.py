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
    league.broker.start()  # the link is back
    league.db.wait_stored(len(ids))
    got = rows(league.db.path)
    assert sorted(r for r, _ in got) == sorted(ids)  # each game once
    for rid, club in got:
        assert club == ("riverside" if rid.startswith("br") else "hilltop"), (rid, club)
    for club in CLUBS:  # each club's own database: its games, with its club
        mine = rows(league.listeners[club].path)
        assert sorted(r for r, _ in mine) == sorted(r for r in ids if r.startswith("b" + club[0]))
        assert set(c for _, c in mine) == {club}
