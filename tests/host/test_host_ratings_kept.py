"""The ratings kept in the database (host_tools/club/ratings.py: each
person's mu and sigma after each rated game, rated again only from the first
game that changed) are the ratings of every game rated from scratch, after
any sequence of imports, games that arrive late (their place in time order
before games stored already), the same games again, games of several clubs
(a league's database), reads that keep the ratings, and name fixes (rename,
merge, assign, undo): a stateful property test.  The invariant compares bit for bit: each game's rated count, each
person's mu, sigma and games, and their line of ratings; and every kept
summary equals a replay of its record (speedref-results check)."""
import itertools

from hypothesis import HealthCheck, event, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from host_tools.club import changes, check, ratings, standings
from host_tools.club.db import ResultsDB
from host_tools.intake.lines import LineCore

PEOPLE = ["Ann", "ann", "Bob", "Cat", "Dan", "Zo\u00eb"]
NOBODY = ["P1", "Guest"]
NEW_NAMES = PEOPLE + ["Cy", "Dee"]
# when games reached the database: an evening's imports, and a board's flash
# read a day late (its games belong before those stored already)
MOMENTS = ["2026-12-07T20:00:00+00:00", "2026-12-07T22:00:00+00:00", "2026-12-08T09:00:00+00:00"]


def speed_game(players, winner, ident, finished=True, left=3):
    """A Speed game at 2-4 seats (SP-35: a count per player, the winner's 0);
    unfinished: the first deal of a best of 3 (SP-36), nobody's win."""
    n = len(players)
    counts = left if n == 2 else [0 if s == winner else left + s for s in range(n)]
    match = {"single": True} if finished else {"best_of": 3}
    return {"game": "speed", "layout": "pagat", "match": match, "players": list(players),
            "deals": [{"winner": winner, "left": counts}], "id": ident}


SEATS = st.lists(st.sampled_from(PEOPLE + NOBODY), min_size=2, max_size=4)


class KeptRatings(RuleBasedStateMachine):
    @initialize()
    def open_db(self):
        self.db = ResultsDB(":memory:")
        self.core = LineCore(self.db, out=lambda t: None, err=lambda t: None, source="import", live=False)
        self.seq = dict((t, itertools.count(1)) for t in ("t1", "t2", "t3"))
        self.records = []

    def teardown(self):
        if hasattr(self, "db"):
            self.db.close()

    def persons(self):
        return sorted(set(n for g in standings.played(self.db) for n in g.names if n is not None))

    # --- games come in ------------------------------------------------------------------
    @rule(players=SEATS, table=st.sampled_from(["t1", "t2", "t3"]), when=st.sampled_from(MOMENTS),
          finished=st.booleans(), left=st.integers(1, 12), club=st.sampled_from([None, None, "riverside", "hilltop"]),
          data=st.data())
    def import_game(self, players, table, when, finished, left, club, data):
        """A game, from a file or from a club's broker (a league's database:
        a second club makes every named seat a person of its club)."""
        winner = data.draw(st.integers(0, len(players) - 1))
        rec = speed_game(players, winner, "%s-%d" % (table, next(self.seq[table])), finished, left)
        self.db.moment = when
        self.core.club = club
        row = self.core.record(rec, "file", where="game.json")
        if row is not None:
            self.records.append(rec)
            later = self.db.query("SELECT COUNT(*) FROM game_summary WHERE ord > (SELECT ord FROM game_summary"
                                  " WHERE game_ref = ?)", (row,))[0][0]
            event("a game placed before games stored already" if later else "a game placed last")
            if self.db.query("SELECT value FROM summary_state WHERE key = 'several'") == [("1",)]:
                event("a game in a database of several clubs")

    @precondition(lambda self: self.records)
    @rule(data=st.data(), club=st.sampled_from([None, "riverside", "hilltop"]))
    def import_again(self, data, club):
        """The same record again (over a club's broker: a game stored
        without its club takes it)."""
        rec = data.draw(st.sampled_from(self.records))
        games = self.db.count_games()
        self.core.club = club
        self.core.record(rec, "file", where="again.json")
        assert self.db.count_games() == games

    @rule()
    def read_and_keep(self):
        """A reader of the ratings rates what is due and keeps it."""
        assert ratings.settle(self.db)
        assert self.db.query("SELECT COUNT(*) FROM ratings_due")[0][0] == 0

    # --- names fixed -------------------------------------------------------------------
    def change(self, verb, args):
        try:
            changes.make(self.db, verb, args)
            event("%s made" % verb)
        except changes.Refused:
            event("%s refused" % verb)

    @precondition(lambda self: self.records)
    @rule(data=st.data(), new=st.sampled_from(NEW_NAMES))
    def rename(self, data, new):
        self.change("rename", [data.draw(st.sampled_from(self.persons() + ["Nobody"])), new])

    @precondition(lambda self: self.records)
    @rule(data=st.data())
    def merge(self, data):
        pool = self.persons() + ["Nobody"]
        self.change("merge", [data.draw(st.sampled_from(pool)), data.draw(st.sampled_from(pool))])

    @precondition(lambda self: self.records)
    @rule(data=st.data(), name=st.sampled_from(NEW_NAMES + ["Guest"]))
    def assign(self, data, name):
        row = data.draw(st.integers(1, self.db.count_games()))
        self.change("assign", [str(row), str(data.draw(st.integers(1, 4))), name])

    @precondition(lambda self: self.db.changes())
    @rule(data=st.data())
    def undo(self, data):
        made = [c.number for c in self.db.changes()]
        try:
            changes.undo(self.db, [str(data.draw(st.sampled_from(made)))])
            event("undo made")
        except changes.Refused:
            event("undo refused")

    # --- the invariant -----------------------------------------------------------------
    @invariant()
    def kept_ratings_are_a_fresh_rating(self):
        if not hasattr(self, "db"):
            return
        lines, played = check.games(self.db)
        assert lines == []
        assert check.rated(self.db, played) == []
        kept, fresh = ratings.stored_boards(self.db), ratings.boards(played)
        assert list(kept) == list(fresh)
        for game, b in fresh.items():
            a = kept[game]
            assert a.rated == b.rated
            assert dict((k, (r.mu, r.sigma)) for k, r in a.rating.items()) == \
                dict((k, (r.mu, r.sigma)) for k, r in b.rating.items())
            assert a.games == b.games
            assert dict((k, a.history[k]) for k in b.history) == b.history


KeptRatings.TestCase.settings = settings(max_examples=100, stateful_step_count=30, deadline=None,
                                         suppress_health_check=[HealthCheck.too_slow])
test_kept_ratings_equal_a_fresh_rating = KeptRatings.TestCase
