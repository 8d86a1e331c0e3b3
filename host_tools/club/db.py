"""The results database: every finished game record and slap verdict, in SQLite.

One file, stdlib `sqlite3`, parameterized queries only.  The schema is versioned
with `PRAGMA user_version` and moved forward by the numbered migrations below, so
a database written by an older speedref-log opens (and is upgraded) in a newer one.

A game record is stored once: records carrying the device's "id" are keyed by it;
a record without one is keyed by a hash of its content (sorted-key JSON), so the
same game pulled twice (live, then again from the device's flash) is one row.
A record whose id is stored already with other content is another game that
reused the id (two simulator stores both at "sim-1", a board numbering again
from 1 after its flash was wiped): it is kept beside the first, keyed by its id
and its content's hash, and the caller is told both row numbers.  Any id is
accepted as it comes (the firmware's "<device>-<seq>" and
"<device>-<install>-<seq>", a number, any string).
A game's slap verdicts are stored with it, in the same transaction, so a game
is never half stored; the same verdicts received again add nothing.

Every SQLite or file-system failure comes out as `DatabaseProblem`: one line
naming the file and what went wrong, for the tools to print before exit 2.
Whatever a failed write was doing is rolled back; what was stored stays.
"""
import collections
import contextlib
import datetime
import hashlib
import json
import sqlite3

from speedref.engine import records

from host_tools.club import people, summary

DB_ENV = "SPEEDREF_DB"   # names the results database when --db is not given
BUSY_TIMEOUT_S = 30.0   # how long to wait for another process's write to finish
TABLES = ("games", "slaps", "game_players", "changes")
EVENING_TABLES = ("evenings", "evening_people", "evening_tables", "rounds", "round_seats", "evening_changes")
SUMMARY_TABLES = ("game_summary", "held", "ratings", "ratings_due", "summary_state", "summary_due")
CHUNK = 500             # rows named in one SQL statement (SQLite allows 32,766 parameters)


class DatabaseProblem(Exception):
    """The database cannot be opened, read or written: the message is one line.

    `locked`: another program held the write lock for the whole busy timeout
    (worth trying again); anything else will not mend by itself.
    """

    def __init__(self, message, locked=False):
        Exception.__init__(self, message)
        self.locked = locked


def _explain(e):
    """SQLite's words for a failure, with what they mean for a person."""
    text = str(e) or type(e).__name__
    low = text.lower()
    if "readonly" in low or "read-only" in low:
        return "the database is read-only (%s): check the file's and its folder's permissions" % text
    if "locked" in low or "busy" in low:
        return "the database is locked: another program has been writing to it for too long (%s)" % text
    if "disk i/o" in low or "full" in low:
        return "%s: the disk may be full, or a file-size limit (ulimit -f) reached" % text
    if "not a database" in low or "malformed" in low:
        return "not an SQLite database, or a damaged one (%s)" % text
    return text


def problem(path, doing, e):
    """A DatabaseProblem for an sqlite3 or OS error `e` met while `doing`."""
    if isinstance(e, DatabaseProblem):
        return e
    text = str(e).lower()
    return DatabaseProblem("%s: %s: %s" % (path, doing, _explain(e)),
                           locked="locked" in text or "busy" in text)


def default_path(environ=None):
    """The results database when no --db is given: $SPEEDREF_DB, else
    results.db in the user's data folder: $XDG_DATA_HOME/speedref (an absolute
    XDG_DATA_HOME only, as the XDG spec says), else ~/.local/share/speedref;
    on Windows %LOCALAPPDATA%\\speedref, on macOS ~/Library/Application
    Support/speedref.  One place, whichever folder the tools run in."""
    import os
    import sys
    env = os.environ if environ is None else environ
    if env.get(DB_ENV):
        return env[DB_ENV]
    home = env.get("HOME") or os.path.expanduser("~")
    if sys.platform.startswith("win") and env.get("LOCALAPPDATA"):
        base = env["LOCALAPPDATA"]
    elif sys.platform == "darwin":
        base = os.path.join(home, "Library", "Application Support")
    elif os.path.isabs(env.get("XDG_DATA_HOME") or ""):
        base = env["XDG_DATA_HOME"]
    else:
        base = os.path.join(home, ".local", "share")
    return os.path.join(base, "speedref", "results.db")


DEFAULT_HELP = ("default: $%s, else results.db in the user's data folder (now %%s)" % DB_ENV)


def keeps(path):
    """Does a database at `path` keep what is stored in it?  SQLite's
    ":memory:" database vanishes when it is closed."""
    return str(path) != ":memory:" and not str(path).startswith("file::memory:")


def db_help():
    """--db's help text, naming where the default is today."""
    return DEFAULT_HELP % default_path().replace("%", "%%")


def canonical_json(obj):
    """Key order and spacing fixed, so equal records give equal text and hashes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def dedup_key(record):
    if record.get("id") is not None:
        return "id:" + canonical_json(record["id"])
    return "sha256:" + hashlib.sha256(canonical_json(record).encode()).hexdigest()


def _players_rows(game_row_id, record):
    """(game_ref, seat, name, total, won) for each player, from the scored sheet."""
    s = records.summary(record)
    winners = set(s["winners"]) if records.counts_as_win(s) else set()
    totals = s["totals"]
    out = []
    for seat, name in enumerate(s["players"]):
        total = totals[seat] if seat < len(totals) else None
        out.append((game_row_id, seat, str(name), total, 1 if seat in winners else 0))
    return out


def _migrate_1(con):
    con.execute(
        "CREATE TABLE games ("
        " id INTEGER PRIMARY KEY,"
        " dedup_key TEXT NOT NULL UNIQUE,"   # 'id:<device id>' or 'sha256:<content>'
        " game TEXT NOT NULL,"
        " record TEXT NOT NULL,"             # the record as received (canonical JSON)
        " source TEXT NOT NULL,"             # 'live' (game_end), 'stored' (dump), 'import'
        " received_at TEXT NOT NULL)")
    con.execute(
        "CREATE TABLE slaps ("
        " id INTEGER PRIMARY KEY,"
        " game TEXT NOT NULL,"
        " kind TEXT,"
        " winner INTEGER,"                   # seat, NULL for a tie
        " margin_us INTEGER NOT NULL,"
        " line TEXT NOT NULL,"               # the whole event, for later questions
        " received_at TEXT NOT NULL)")


def _migrate_2(con):
    # Version 2: per-player results (for standings without replaying every game),
    # and the link from a slap to the game it was part of.
    con.execute(
        "CREATE TABLE game_players ("
        " game_ref INTEGER NOT NULL REFERENCES games(id),"
        " seat INTEGER NOT NULL,"
        " name TEXT NOT NULL,"
        " total INTEGER,"
        " won INTEGER NOT NULL,"
        " PRIMARY KEY (game_ref, seat))")
    con.execute("ALTER TABLE slaps ADD COLUMN game_ref INTEGER REFERENCES games(id)")
    con.execute("CREATE INDEX slaps_game_ref ON slaps(game_ref)")
    for row_id, text in con.execute("SELECT id, record FROM games").fetchall():
        con.executemany("INSERT INTO game_players VALUES (?, ?, ?, ?, ?)",
                        _players_rows(row_id, json.loads(text)))


def _migrate_3(con):
    # Version 3: a lone slap (nobody else slapped inside the race) has no margin,
    # so margin_us becomes nullable.  SQLite cannot drop NOT NULL in place: copy.
    con.execute(
        "CREATE TABLE slaps_v3 ("
        " id INTEGER PRIMARY KEY,"
        " game TEXT NOT NULL,"
        " kind TEXT,"
        " winner INTEGER,"                   # seat, NULL for a tie
        " margin_us INTEGER,"                # NULL for a lone slap
        " line TEXT NOT NULL,"
        " received_at TEXT NOT NULL,"
        " game_ref INTEGER REFERENCES games(id))")
    con.execute("INSERT INTO slaps_v3 (id, game, kind, winner, margin_us, line, received_at, game_ref)"
                " SELECT id, game, kind, winner, margin_us, line, received_at, game_ref FROM slaps")
    con.execute("DROP TABLE slaps")
    con.execute("ALTER TABLE slaps_v3 RENAME TO slaps")
    con.execute("CREATE INDEX slaps_game_ref ON slaps(game_ref)")


def _migrate_4(con):
    # Version 4: the changes to names made after the fact (speedref-results
    # rename, merge, assign), applied on top of the records as stored
    # (host_tools/club/people.py); an undone change stays, marked with its undo.
    con.execute(
        "CREATE TABLE changes ("
        " id INTEGER PRIMARY KEY,"
        " verb TEXT NOT NULL,"               # 'rename', 'merge', 'assign'
        " args TEXT NOT NULL,"               # its arguments (canonical JSON)
        " made_at TEXT NOT NULL,"
        " undone_at TEXT)")                  # NULL while it is in force


def _migrate_5(con):
    # Version 5: the club night (host_tools/club/evening.py): an evening, who
    # checked in, its tables, its rounds with every seat and bye, and the
    # organiser's corrections of where a result belongs (kept, undoable).
    con.execute(
        "CREATE TABLE evenings ("
        " id INTEGER PRIMARY KEY,"
        " name TEXT NOT NULL,"
        " date TEXT NOT NULL,"               # YYYY-MM-DD, the club's own calendar day
        " roster TEXT NOT NULL,"             # the club's roster at the start (JSON list of names)
        " started_at TEXT NOT NULL,"
        " UNIQUE (name, date))")
    con.execute(
        "CREATE TABLE evening_people ("
        " evening INTEGER NOT NULL REFERENCES evenings(id),"
        " person TEXT NOT NULL,"             # people.key of the name
        " name TEXT NOT NULL,"               # as checked in
        " walk_in INTEGER NOT NULL,"         # 1: not on the roster
        " came_at TEXT NOT NULL,"
        " left_at TEXT,"                     # NULL while present
        " PRIMARY KEY (evening, person))")
    con.execute(
        "CREATE TABLE evening_tables ("
        " evening INTEGER NOT NULL REFERENCES evenings(id),"
        " place INTEGER NOT NULL,"           # 1 first: the top group plays at the first table
        " name TEXT NOT NULL,"               # the board's table name (speedref-roster --table-name)
        " out_at TEXT,"                      # NULL while in use
        " PRIMARY KEY (evening, name))")
    con.execute(
        "CREATE TABLE rounds ("
        " id INTEGER PRIMARY KEY,"
        " evening INTEGER NOT NULL REFERENCES evenings(id),"
        " number INTEGER NOT NULL,"
        " game TEXT NOT NULL,"
        " seats INTEGER NOT NULL,"
        " options TEXT NOT NULL,"            # the match format (JSON {option: value})
        " made_at TEXT NOT NULL,"
        " replaced_at TEXT)")                # NULL: the round in force under its number
    con.execute(
        "CREATE TABLE round_seats ("
        " round INTEGER NOT NULL REFERENCES rounds(id),"
        " tbl TEXT,"                         # the table's name; NULL for a bye
        " seat INTEGER NOT NULL,"            # 0 is the first seat (P1)
        " person TEXT NOT NULL,"
        " name TEXT NOT NULL)")
    con.execute("CREATE INDEX round_seats_round ON round_seats(round)")
    con.execute(
        "CREATE TABLE evening_changes ("
        " id INTEGER PRIMARY KEY,"
        " evening INTEGER NOT NULL REFERENCES evenings(id),"
        " verb TEXT NOT NULL,"               # 'place', 'drop'
        " args TEXT NOT NULL,"               # canonical JSON
        " made_at TEXT NOT NULL,"
        " undone_at TEXT)")


def _migrate_6(con):
    # Version 6: the club a game was played at, where the way it came says
    # so (a table's topic on an MQTT broker, speedref/<club>/<table>/game:
    # the club's own listener, or a league's, whose broker the clubs'
    # brokers are bridged to); NULL for a game that came on USB or from a
    # file (the database's own club).
    con.execute("ALTER TABLE games ADD COLUMN club TEXT")


def _migrate_7(con):
    # Version 7: what the standings and the ratings need from each game,
    # worked out once when it is stored (host_tools/club/summary.py) and kept
    # beside its record, so that a read is SQL over these rows, not a replay
    # of every record.  Filled when the database is next opened
    # (ResultsDB.settle: the rows were made under no rules yet).
    # A seat's row is kept for every seat of every game the rules count.
    for column in ("entry TEXT",        # the name as the name fixes take it (in a league's database
                                        # a named seat is of its club: people.at_club)
                   "entered TEXT",      # the person the table entered (people.key); NULL: nobody
                   "person TEXT",       # the person now, after the name fixes in force; NULL: nobody
                   "shown TEXT",        # the name that seat goes by now
                   "perfect INTEGER",   # Perfect Bonuses (the game's registry `bonus`); NULL: none counted
                   "place INTEGER",     # its place for the ratings; NULL: the game is not finished
                   "game TEXT",         # the game's, kept here too: the standings read this table alone
                   "ord BLOB"):         # the game's place in time order (summary.order_key), the same
        con.execute("ALTER TABLE game_players ADD COLUMN " + column)
    # the standings: one pass over an index holding every column they sum
    con.execute("CREATE INDEX game_players_tally ON game_players(game, person, won, total, perfect)")
    # a person's seats and their latest name; the seats a name entered; a game's rated seats in time order
    con.execute("CREATE INDEX game_players_person ON game_players(person, ord, shown)")
    con.execute("CREATE INDEX game_players_entered ON game_players(entered, entry)")
    con.execute("CREATE INDEX game_players_ord ON game_players(game, ord)")
    con.execute(
        "CREATE TABLE game_summary ("
        " game_ref INTEGER PRIMARY KEY REFERENCES games(id),"
        " ord BLOB NOT NULL UNIQUE,"         # its place in time order (summary.order_key)
        " game TEXT,"                        # the record's game; NULL when not counted
        " counted INTEGER NOT NULL,"         # 0: the rules cannot count it, `why` says why
        " why TEXT,"
        " finished INTEGER NOT NULL,"        # records.counts_as_win
        " seats INTEGER NOT NULL,"
        " club TEXT)")                       # the games table's club, as the summary was made
    con.execute("CREATE INDEX game_summary_game ON game_summary(game, ord)")
    con.execute("CREATE INDEX game_summary_left_out ON game_summary(game_ref) WHERE NOT counted")
    con.execute("CREATE INDEX game_summary_club ON game_summary(club) WHERE club IS NOT NULL")
    con.execute(
        "CREATE TABLE held ("                # a change to names that does not hold for a game
        " game_ref INTEGER NOT NULL REFERENCES games(id),"
        " change INTEGER NOT NULL,"
        " seat_a INTEGER NOT NULL, seat_b INTEGER NOT NULL,"   # the two seats it would make one
        " name_a TEXT, name_b TEXT,"         # what those seats were called then
        " person TEXT,"                      # the name both would have had
        " PRIMARY KEY (game_ref, change))")
    con.execute(
        "CREATE TABLE ratings ("             # a person's rating after a rated game
        " game_ref INTEGER NOT NULL REFERENCES games(id),"
        " seat INTEGER NOT NULL,"
        " game TEXT NOT NULL,"
        " ord BLOB NOT NULL,"                # the game's place in time order
        " number INTEGER NOT NULL,"          # the game's number among its game's rated games
        " person TEXT NOT NULL,"
        " mu REAL NOT NULL, sigma REAL NOT NULL,"
        " games INTEGER NOT NULL,"           # the person's rated games so far, this one included
        " PRIMARY KEY (game_ref, seat))")
    con.execute("CREATE INDEX ratings_person ON ratings(game, person, ord, mu, sigma, games)")
    con.execute("CREATE INDEX ratings_ord ON ratings(game, ord)")
    # the ratings of a game are stored up to `since` (an ord): from there on
    # they are worked out again at the next read
    con.execute("CREATE TABLE ratings_due (game TEXT PRIMARY KEY, since BLOB NOT NULL)")
    # 'rules': the summary.RULES the rows were made under; 'people': 'due'
    # when the changes were written by something else than speedref;
    # 'several': '1' when the games are of several clubs (a league's)
    con.execute("CREATE TABLE summary_state (key TEXT PRIMARY KEY, value TEXT)")
    # games stored or edited without their summary (another program's
    # writes): summarised when the database is next opened
    con.execute("CREATE TABLE summary_due (game_ref INTEGER PRIMARY KEY)")
    con.execute("CREATE TRIGGER games_added AFTER INSERT ON games"
                " BEGIN INSERT OR IGNORE INTO summary_due VALUES (new.id); END")
    con.execute("CREATE TRIGGER games_edited AFTER UPDATE OF game, record, received_at, dedup_key, club ON games"
                " BEGIN INSERT OR IGNORE INTO summary_due VALUES (new.id); END")
    con.execute("CREATE TRIGGER games_removed AFTER DELETE ON games BEGIN"
                " INSERT INTO ratings_due (game, since) SELECT game, ord FROM game_summary"
                "  WHERE game_ref = old.id AND finished ON CONFLICT(game) DO UPDATE SET since = MIN(since, excluded.since);"
                " DELETE FROM game_players WHERE game_ref = old.id;"
                " DELETE FROM held WHERE game_ref = old.id;"
                " DELETE FROM ratings WHERE game_ref = old.id;"
                " DELETE FROM game_summary WHERE game_ref = old.id;"
                " DELETE FROM summary_due WHERE game_ref = old.id; END")
    # any write to the changes: the people are due to be worked out again
    # (speedref's own change does it at once), and the changes' count of
    # writes moves on (a Resolver made from them is out of date)
    for event in ("INSERT", "UPDATE", "DELETE"):
        con.execute("CREATE TRIGGER changes_%s AFTER %s ON changes BEGIN"
                    " INSERT OR REPLACE INTO summary_state VALUES ('people', 'due');"
                    " INSERT INTO summary_state VALUES ('changes', 1)"
                    "  ON CONFLICT(key) DO UPDATE SET value = value + 1; END" % (event.lower(), event))


def _migrate_8(con):
    # Version 8: how an evening reaches its tables (host_tools/club/matches.py):
    # each table's name on the club broker's topics, its board's uplink.json
    # "table" (NULL: by the rule matches.default_topic gives), and the broker
    # the evening's rounds go to the tables through (JSON {"url", "club",
    # "ca"}; NULL: none, the boards are given their matches on USB or pick
    # their players themselves).
    con.execute("ALTER TABLE evening_tables ADD COLUMN topic TEXT")
    con.execute("ALTER TABLE evenings ADD COLUMN broker TEXT")


def _tables_of(version):
    """The tables a database of schema `version` has."""
    have = set()
    for since, tables in ((1, ("games", "slaps")), (2, ("game_players",)), (4, ("changes",)), (5, EVENING_TABLES), (7, SUMMARY_TABLES)):
        if version >= since:
            have.update(tables)
    return have


MIGRATIONS = [_migrate_1, _migrate_2, _migrate_3, _migrate_4, _migrate_5, _migrate_6, _migrate_7, _migrate_8]
SCHEMA_VERSION = len(MIGRATIONS)


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def entries(names, club, several):
    """([the name each seat of a game of `club` is taken as by the name
    fixes], [the person it enters: people.key, None for a seat nobody named
    or a person named at an earlier seat]) for its record's `names`: in a
    database of several clubs (`several`) a named seat of a club's game is
    of its club (people.at_club), as standings.played reads it."""
    fed = [people.at_club(n, club) if several and club is not None else n for n in names]
    entered, seen = [], set()
    for n in fed:
        k = None if people.unnamed(n) else people.key(n)
        entered.append(None if k in seen else k)
        seen.add(k)
    return fed, entered


def ignore_file_size_signal():
    """A file-size limit (ulimit -f) kills a process at the write past it
    (SIGXFSZ) unless the signal is ignored: then the write fails, SQLite rolls
    back, and the tool can say what happened."""
    import signal
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


class ResultsDB:
    """Open (creating or upgrading) the database at `path` (":memory:" for tests).

    write=True: also make sure it can be written now (a read-only file, or one
    another program keeps locked, is refused at once, before a board's lines
    are read and lost).  Every failure is a DatabaseProblem.
    """

    def __init__(self, path, busy_timeout_s=BUSY_TIMEOUT_S, write=False, create=True):
        self.path = path
        # when the games stored from now on arrived (received_at): None, the
        # moment each is stored; an import sets its own start for all its
        # games (one moment: the ratings order them by their tables' numbers)
        self.moment = None
        self._people = None      # (the changes' count of writes, their people.Resolver)
        import os
        if str(path) != ":memory:" and not os.path.exists(path):
            if not create:
                # a read-only command never makes a database (a typo would
                # otherwise answer "no games yet" from an empty new file)
                raise DatabaseProblem("%s: no results database there: speedref-log or speedref-results"
                                      " import creates and fills one" % path)
            folder = os.path.dirname(os.path.abspath(path))
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError as e:
                raise problem(path, "cannot create its folder", e)
        try:
            # isolation_level=None: no implicit transactions; every write is an
            # explicit BEGIN IMMEDIATE (_write), taken at once or waited for up to
            # busy_timeout_s while another process writes.
            self.con = sqlite3.connect(str(path), timeout=busy_timeout_s, isolation_level=None)
        except (sqlite3.Error, OSError) as e:
            raise problem(path, "cannot open the database", e)
        try:
            self.con.execute("PRAGMA foreign_keys = ON")
            self.migrate()
            self._check_tables()
            self.settle()
            if write:
                with self._write("cannot write to the database"):
                    # a write that changes nothing, rolled back: only to learn
                    # whether this file takes writes at all
                    self.con.execute("PRAGMA user_version = %d" % SCHEMA_VERSION)
                    raise _RollBack
        except _RollBack:
            pass
        except BaseException:
            self.con.close()
            raise

    @contextlib.contextmanager
    def _write(self, doing="cannot store in the database"):
        """One write transaction, holding the database's write lock from its start;
        rolled back whole on any error, which comes out as a DatabaseProblem."""
        try:
            self.con.execute("BEGIN IMMEDIATE")
        except (sqlite3.Error, OSError) as e:
            raise problem(self.path, doing, e)
        try:
            yield
            self.con.execute("COMMIT")
        except BaseException as e:
            self._people = None       # it may have been made from what is rolled back
            try:
                if self.con.in_transaction:
                    self.con.execute("ROLLBACK")
            except sqlite3.Error:
                pass      # SQLite rolled back itself (a failed COMMIT, an I/O error)
            if isinstance(e, (sqlite3.Error, OSError)):
                raise problem(self.path, doing, e)
            raise

    @contextlib.contextmanager
    def snapshot(self):
        """One read transaction: every read inside it sees the database as it
        was at the first of them, whatever another program commits meanwhile
        (a game and its slaps are shown together, or not at all)."""
        try:
            self.con.execute("BEGIN")
        except (sqlite3.Error, OSError) as e:
            raise problem(self.path, "cannot read the database", e)
        try:
            yield self
        finally:
            try:
                if self.con.in_transaction:
                    self.con.execute("COMMIT")
            except sqlite3.Error:
                pass      # a read transaction has nothing to keep

    def writing(self, doing="cannot store in the database"):
        """One write transaction for another module's tables (the evening's,
        the ratings'): all or nothing, a failure a DatabaseProblem saying `doing`."""
        return self._write(doing)

    def query(self, sql, args=()):
        """Rows of one parameterized read (the standings', the ratings', the
        evening's own SQL); a failure is a DatabaseProblem."""
        return self._read(sql, args)

    def _read(self, sql, args=()):
        try:
            return self.con.execute(sql, args).fetchall()
        except (sqlite3.Error, OSError) as e:
            raise problem(self.path, "cannot read the database", e)

    def close(self):
        self.con.close()

    @property
    def version(self):
        return self._read("PRAGMA user_version")[0][0]

    def _newer(self, v):
        return DatabaseProblem("%s has schema version %d; this speedref knows up to %d: upgrade speedref"
                               % (self.path, v, SCHEMA_VERSION))

    def _tables(self):
        return set(r[0] for r in self._read("SELECT name FROM sqlite_master WHERE type = 'table'"))

    def migrate(self):
        v = self.version
        if v > SCHEMA_VERSION:
            raise self._newer(v)
        if v == SCHEMA_VERSION:
            return
        if v == 0 and self._tables():
            # A table is seen only once the transaction that made it has
            # committed, and ours set the version in that same commit: read
            # it again, or a database another process made between our two
            # reads would look foreign.
            v = self.version
            if v == 0:
                raise self._foreign()
            if v > SCHEMA_VERSION:
                raise self._newer(v)
            if v == SCHEMA_VERSION:
                return
        if not _tables_of(v) <= self._tables():
            raise self._foreign()    # a version number without that version's tables
        # All steps in one write transaction, the version read again inside it:
        # a second process that opened the database at the same moment waits,
        # then finds it already migrated.
        with self._write("cannot upgrade the database to schema version %d" % SCHEMA_VERSION):
            v = self.version
            if v > SCHEMA_VERSION:
                raise self._newer(v)
            while v < SCHEMA_VERSION:
                MIGRATIONS[v](self.con)
                v += 1
                self.con.execute("PRAGMA user_version = %d" % v)   # an int we made, not input

    def _foreign(self):
        return DatabaseProblem("%s: not a speedref results database (its tables: %s; schema version %d)"
                               % (self.path, ", ".join(sorted(self._tables())) or "none", self.version))

    def _check_tables(self):
        """A version number without our tables (someone else's file, or a
        damaged one) is refused rather than written into."""
        if not set(TABLES + EVENING_TABLES + SUMMARY_TABLES) <= self._tables():
            raise self._foreign()

    # --- games ---------------------------------------------------------------
    def add_record(self, record, source="live", compare=False):
        """Store a record already validated with records.replay.

        Returns (row id, True) when new, (existing row id, False) when a duplicate.
        With compare=True a third item says whether it is the game first stored
        under its id (False: a record reusing a stored id for other content,
        kept as a game of its own).
        """
        got = self.add_game(record, source)
        return (got.row, got.new, got.reused is None) if compare else (got.row, got.new)

    def add_game(self, record, source="live", slaps=(), club=None, worked=None):
        """Store a validated record and the slap verdicts of its game, in one
        write transaction: a Stored(row, new, slaps, reused).

        A record already stored (the same id and content, or for a record
        without an id the same content) is not stored again (new False).  A
        record whose id is stored already with other content is another game:
        it is kept under its id and its content's hash, and `reused` is the row
        of the game first stored under that id (None otherwise).  The slaps are
        added to the game unless it holds them already (the same log read twice
        adds nothing); `slaps` says how many were.  Each insert is one atomic
        statement, so several speedref-log processes on one database never
        store a record twice.  `club`: the club it was played at (the topic's
        club level of an MQTT message), kept with it; a game stored before
        without one gets it.  The game's summary (host_tools/club/summary.py)
        is stored with it: `worked`, its summary.work() when the caller
        validated the record with it, else worked out here.
        """
        key = dedup_key(record)
        text = canonical_json(record)
        with self._write():
            row, new, stored = self._insert(key, record, text, source, club, worked)
            reused = None
            if stored != text:
                reused = row
                digest = hashlib.sha256(text.encode()).hexdigest()
                row, new, _ = self._insert(key + " sha256:" + digest, record, text, source, club, worked)
            added = self._add_slaps(row, slaps)
        return Stored(row, new, added, reused)

    def _insert(self, key, record, text, source, club=None, worked=None):
        """(row id, new, the text stored under key) for `record` under `key`."""
        received = self.moment or now()
        cur = self.con.execute(
            "INSERT INTO games (dedup_key, game, record, source, received_at, club) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(dedup_key) DO NOTHING",
            (key, record["game"], text, source, received, club))
        if club is not None and cur.rowcount != 1:
            if self.con.execute("UPDATE games SET club = ? WHERE dedup_key = ? AND club IS NULL",
                                (club, key)).rowcount:
                # its people may now be of that club (a league's database)
                self._resummarize(self.con.execute("SELECT id FROM games WHERE dedup_key = ?", (key,)).fetchone()[0])
        if cur.rowcount == 1:
            self._summarize(cur.lastrowid, text, received, key, worked, club=club)
            return cur.lastrowid, True, text
        row_id, stored = self.con.execute(
            "SELECT id, record FROM games WHERE dedup_key = ?", (key,)).fetchone()
        return row_id, False, stored

    def _add_slaps(self, row_id, slaps):
        """The slaps of game row_id it does not hold yet (counted as a multiset
        of whole lines: two equal verdicts in one game are two)."""
        have = collections.Counter(r[0] for r in self.con.execute(
            "SELECT line FROM slaps WHERE game_ref = ?", (row_id,)).fetchall())
        added = 0
        for ev in slaps:
            text = canonical_json(ev)
            if have[text]:
                have[text] -= 1
                continue
            self.con.execute(
                "INSERT INTO slaps (game, kind, winner, margin_us, line, received_at, game_ref)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ev["game"], ev.get("kind"), ev["winner"], ev["margin_us"], text, now(), row_id))
            added += 1
        return added

    def clubs(self):
        """{row id: club} of the games stored with their club."""
        return dict(self._read("SELECT id, club FROM games WHERE club IS NOT NULL"))

    def games(self, game=None):
        """[(row id, record dict)] in the order they were stored."""
        return [(row_id, json.loads(text)) for row_id, text in self.game_rows(game)]

    def game_rows(self, game=None):
        """[(row id, record text as stored)] in the order they were stored."""
        if game is None:
            return self._read("SELECT id, record FROM games ORDER BY id")
        return self._read("SELECT id, record FROM games WHERE game = ? ORDER BY id", (game,))

    def find_record(self, ident):
        """A stored record by the device's id (as text, or as the number it
        spells; the first game stored under it when several reused it), else
        by row number; None when there is none.  Any text is a
        fair question: an id is looked up as given, and only plain ASCII
        digits that fit SQLite's integers are also tried as numbers."""
        row_id = self.row_of(ident)
        if row_id is None:
            return None
        return json.loads(self._read("SELECT record FROM games WHERE id = ?", (row_id,))[0][0])

    def rows_with_id(self, ident):
        """Row ids of every game stored under the device id `ident` (several
        when games reused an id), in the order they were stored."""
        key = "id:" + canonical_json(ident)
        return [r[0] for r in self._read(
            "SELECT id FROM games WHERE dedup_key = ? OR (dedup_key >= ? AND dedup_key < ?) ORDER BY id",
            (key, key + " sha256:", key + " sha256;"))]

    def count_games(self):
        return self._read("SELECT COUNT(*) FROM games")[0][0]

    def arrivals(self):
        """{row id: (received_at, dedup key)} of every game."""
        return dict((r[0], (r[1], r[2])) for r in self._read("SELECT id, received_at, dedup_key FROM games"))

    # --- the games' summaries (host_tools/club/summary.py) ---------------------------
    def _summarize(self, row, text, received, dedup, worked=None, resolver=None, club=None, several=None):
        """Inside a write: the summary rows of game `row` of `club`, none
        stored yet: its summary (`worked`, or worked out from `text`), each
        seat's person after the changes to names in force (`resolver`'s, else
        now's; in a database of several clubs, of its club: `several`, else
        looked up), the changes that do not hold for it; its game's ratings
        are due again from its place in time order."""
        s = worked if worked is not None else summary.read(text)
        key = summary.order_key(received, dedup, row, s.record)
        if several is None:
            several = self._several(club)
        self.con.execute("INSERT INTO game_summary VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (row, key, s.game, int(s.counted), s.why, int(s.finished), len(s.seats), club))
        if s.counted:
            resolver = resolver or self._resolver()
            fed, entered = entries([x.name for x in s.seats], club, several)
            names = resolver.seats(row, fed)
            self.con.executemany(
                "INSERT INTO game_players (game_ref, seat, name, total, won, entry, entered, person, shown, perfect,"
                " place, game, ord) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(row, x.seat, x.name, x.total, x.won, f, e, None if n is None else people.key(n), n,
                  x.perfect, x.place, s.game, key) for x, f, e, n in zip(s.seats, fed, entered, names)])
            if row in resolver.held:         # (a game summarised again had its own removed)
                self._store_held(row, resolver.held[row])
            if s.finished:
                self._ratings_due(s.game, key)
        self.con.execute("DELETE FROM summary_due WHERE game_ref = ?", (row,))

    def _several(self, club):
        """Inside a write: are the games of several clubs, once a game of
        `club` is stored?  When that game makes them so, every seat stored
        becomes a person of its game's club first (_reclub)."""
        got = self.con.execute("SELECT value FROM summary_state WHERE key = 'several'").fetchone()
        if (got is not None and got[0] == "1") or club is None:
            return got is not None and got[0] == "1"
        if self.con.execute("SELECT 1 FROM game_summary WHERE club IS NOT NULL AND club != ? LIMIT 1",
                            (club,)).fetchone() is None:
            return False
        self._reclub(True)
        return True

    def _reclub(self, several=None):
        """Inside a write: every seat's name as the name fixes take it, of its
        game's club when the games are of several clubs (`several`; None:
        counted), and the people again (refresh_people)."""
        if several is None:
            several = self.con.execute("SELECT COUNT(DISTINCT club) FROM game_summary"
                                       " WHERE club IS NOT NULL").fetchone()[0] > 1
        self.con.execute("INSERT OR REPLACE INTO summary_state VALUES ('several', ?)", ("1" if several else "0",))
        seats = {}
        for row, club, seat, name, entry, entered in self.con.execute(
                "SELECT p.game_ref, s.club, p.seat, p.name, p.entry, p.entered FROM game_players p"
                " JOIN game_summary s ON s.game_ref = p.game_ref ORDER BY p.game_ref, p.seat").fetchall():
            seats.setdefault((row, club), []).append((seat, name, entry, entered))
        for (row, club), mine in seats.items():
            fed, entered = entries([x[1] for x in mine], club, several)
            for (seat, _, entry, was), f, e in zip(mine, fed, entered):
                if (f, e) != (entry, was):
                    self.con.execute("UPDATE game_players SET entry = ?, entered = ? WHERE game_ref = ? AND seat = ?",
                                     (f, e, row, seat))
        self.refresh_people()

    def _resummarize(self, row):
        """Inside a write: game `row`'s summary made again from the games table."""
        self._forget_summary(row)
        got = self.con.execute("SELECT record, received_at, dedup_key, club FROM games WHERE id = ?", (row,)).fetchone()
        if got is not None:
            self._summarize(row, got[0], got[1], got[2], club=got[3])

    def _resolver(self):
        """people.Resolver of the changes in force, made again only when the
        changes were written since (the triggers count the writes)."""
        version = self.con.execute("SELECT value FROM summary_state WHERE key = 'changes'").fetchone()
        if self._people is None or self._people[0] != version:
            self._people = (version, people.Resolver(self.changes()))
        return self._people[1]

    def _store_held(self, row, held):
        self.con.execute("DELETE FROM held WHERE game_ref = ?", (row,))
        self.con.executemany("INSERT INTO held VALUES (?, ?, ?, ?, ?, ?, ?)",
                             [(row, h.number, h.seats[0], h.seats[1], h.names[0], h.names[1], h.person)
                              for h in held])

    def _ratings_due(self, game, since):
        self.con.execute("INSERT INTO ratings_due (game, since) VALUES (?, ?)"
                         " ON CONFLICT(game) DO UPDATE SET since = MIN(since, excluded.since)", (game, since))

    def _forget_summary(self, row):
        """Inside a write: game `row`'s summary rows gone (its game's ratings
        due again from its place)."""
        old = self.con.execute("SELECT game, ord, finished FROM game_summary WHERE game_ref = ?", (row,)).fetchone()
        if old is not None and old[2]:
            self._ratings_due(old[0], old[1])
        for table in ("game_players", "held", "ratings", "game_summary"):
            self.con.execute("DELETE FROM %s WHERE game_ref = ?" % table, (row,))

    def _due(self):
        """Is anything in the summaries out of date?  Two small reads."""
        state = dict(self._read("SELECT key, value FROM summary_state"))
        return (state.get("rules") != summary.RULES or state.get("people") == "due"
                or bool(self._read("SELECT 1 FROM summary_due LIMIT 1")))

    def settle(self):
        """Bring the summaries up to date when anything is due (opening the
        database does): rows made under other rules (summary.RULES) are made
        again from every record, so a rules fix reaches old games; games
        another program stored or edited are summarised; changes to names
        another program wrote are applied.  True when something was done."""
        if not self._due():
            return False
        with self._write("cannot bring the games' summaries up to date"):
            self._settle()
        return True

    def _settle(self):
        state = dict(self.con.execute("SELECT key, value FROM summary_state").fetchall())
        if state.get("rules") != summary.RULES:
            self._rebuild()
            return
        due = [r[0] for r in self.con.execute("SELECT game_ref FROM summary_due ORDER BY game_ref").fetchall()]
        if due:
            resolver = people.Resolver(self.changes())
            for i in range(0, len(due), CHUNK):
                part = due[i:i + CHUNK]
                for row in part:
                    self._forget_summary(row)
                for row, text, received, dedup, club in self.con.execute(
                        "SELECT id, record, received_at, dedup_key, club FROM games WHERE id IN (%s) ORDER BY id"
                        % ",".join("?" * len(part)), part).fetchall():
                    self._summarize(row, text, received, dedup, None, resolver, club)
            self.con.execute("DELETE FROM summary_due")      # rows whose game is gone
            several = self.con.execute("SELECT COUNT(DISTINCT club) FROM game_summary"
                                       " WHERE club IS NOT NULL").fetchone()[0] > 1
            now = self.con.execute("SELECT value FROM summary_state WHERE key = 'several'").fetchone()
            if several != (now is not None and now[0] == "1"):
                self._reclub(several)     # another program's edits made the clubs one, or several
                return
        if state.get("people") == "due":
            self.refresh_people()

    def rebuild(self):
        """Work out every game's summary again from its record
        (speedref-results rebuild); the number of games."""
        with self._write("cannot rebuild the games' summaries"):
            return self._rebuild()

    def _rebuild(self):
        for table in ("game_players", "held", "ratings", "ratings_due", "game_summary", "summary_due"):
            self.con.execute("DELETE FROM %s" % table)
        resolver = people.Resolver(self.changes())
        several = self.con.execute("SELECT COUNT(DISTINCT club) FROM games WHERE club IS NOT NULL").fetchone()[0] > 1
        self.con.execute("INSERT OR REPLACE INTO summary_state VALUES ('several', ?)", ("1" if several else "0",))
        cur = self.con.execute("SELECT id, record, received_at, dedup_key, club FROM games ORDER BY id")
        n = 0
        while True:
            batch = cur.fetchmany(CHUNK)
            if not batch:
                break
            for row, text, received, dedup, club in batch:
                self._summarize(row, text, received, dedup, None, resolver, club, several)
            n += len(batch)
        self.con.execute("INSERT OR REPLACE INTO summary_state VALUES ('rules', ?)", (summary.RULES,))
        self.con.execute("DELETE FROM summary_state WHERE key = 'people'")
        return n

    def refresh_people(self, before=None):
        """Inside changing(): each seat's person and name after the changes
        to names in force now.  `before`: the changes in force when the rows
        were made; then only the games a change can have moved are worked
        out again: those with a seat entered as a name whose renames and
        merges differ between then and now, those an assign names a seat
        of, and those a change did not hold for.  None: every game.  The
        ratings are due again from the first game whose people changed."""
        now = people.Resolver(self.changes())
        had = set(r[0] for r in self.con.execute("SELECT game_ref FROM held"))
        if before is None:
            rows = [r[0] for r in self.con.execute("SELECT DISTINCT game_ref FROM game_players ORDER BY game_ref")]
        else:
            old = people.Resolver(before)
            moved = [k for k, raw in self.con.execute(
                "SELECT entered, MIN(entry) FROM game_players WHERE entered IS NOT NULL GROUP BY entered")
                if old.moved(raw) != now.moved(raw)]
            rows = set(old.rows) | set(now.rows) | had
            for i in range(0, len(moved), CHUNK):
                part = moved[i:i + CHUNK]
                rows.update(r[0] for r in self.con.execute(
                    "SELECT DISTINCT game_ref FROM game_players WHERE entered IN (%s)" % ",".join("?" * len(part)),
                    part))
            rows = sorted(rows)
        moves = {}      # game -> [(person before, person now, ord)] of its rated seats that changed person
        for i in range(0, len(rows), CHUNK):
            part = rows[i:i + CHUNK]
            seats = {}
            for row, seat, name, person, shown, game, key, place in self.con.execute(
                    "SELECT game_ref, seat, entry, person, shown, game, ord, place FROM game_players"
                    " WHERE game_ref IN (%s) ORDER BY game_ref, seat" % ",".join("?" * len(part)), part):
                seats.setdefault(row, []).append((seat, name, person, shown, game, key, place))
            for row, mine in seats.items():
                names = now.seats(row, [x[1] for x in mine])
                for (seat, _, person, shown, game, key, place), n in zip(mine, names):
                    k = None if n is None else people.key(n)
                    if (k, n) != (person, shown):
                        self.con.execute("UPDATE game_players SET person = ?, shown = ? WHERE game_ref = ? AND seat = ?",
                                         (k, n, row, seat))
                        if k != person and place is not None:     # a rated game's people changed
                            moves.setdefault(game, []).append((person, k, key))
                if row in had or row in now.held:
                    self._store_held(row, now.held.get(row, ()))
        for game, moved in moves.items():
            if not self._relabel_ratings(game, moved):
                self._ratings_due(game, min(key for _, _, key in moved))
        self.con.execute("DELETE FROM summary_state WHERE key = 'people'")

    def _relabel_ratings(self, game, moved):
        """Inside a write: when the rated seats of `game` that changed person
        ([(before, now, ord)]) only gave people new keys (a rename to a name
        nobody else had in that game: every seat of each person before now
        another person's, who had none, one for one), its ratings are the
        same numbers under the new keys: relabelled, not rated again.  True
        when so; False: the ratings are due again (a merge, an assign, a
        seat named or unnamed)."""
        to = {}
        for before, now_, _ in moved:
            if before is None or now_ is None or to.setdefault(before, now_) != now_:
                return False
        olds, news = set(to), set(to.values())
        if len(news) != len(olds) or olds & news:
            return False
        arg = json.dumps(sorted(olds | news))
        left = dict(self._read("SELECT person, COUNT(*) FROM game_players WHERE game = ? AND place IS NOT NULL"
                               " AND person IN (SELECT value FROM json_each(?)) GROUP BY person", (game, arg)))
        gained = collections.Counter(now_ for _, now_, _ in moved)
        if any(p in left for p in olds) or any(left.get(p) != n for p, n in gained.items()):
            return False      # someone kept a seat, or a new key had seats of its own: people were merged
        for before, now_ in to.items():
            self.con.execute("UPDATE ratings SET person = ? WHERE game = ? AND person = ?", (now_, game, before))
        return True

    def settle_ratings(self, game, since, rows):
        """Inside writing(): game `game`'s ratings from `since` (an ord) on
        are `rows` [(game_ref, seat, ord, number, person, mu, sigma, games)];
        they are no longer due unless something earlier became due meanwhile."""
        self.con.execute("DELETE FROM ratings WHERE game = ? AND ord >= ?", (game, since))
        self.con.executemany("INSERT INTO ratings (game_ref, seat, game, ord, number, person, mu, sigma, games)"
                             " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             [(r[0], r[1], game) + tuple(r[2:]) for r in rows])
        self.con.execute("DELETE FROM ratings_due WHERE game = ? AND since >= ?", (game, since))

    def forget_ratings(self, version):
        """Inside writing(): every stored rating gone, due again from each
        game's first; `version` names how they will be worked out."""
        self.con.execute("DELETE FROM ratings")
        self.con.execute("DELETE FROM ratings_due")
        self.con.execute("INSERT INTO ratings_due (game, since) SELECT game, MIN(ord) FROM game_summary"
                         " WHERE counted AND finished GROUP BY game")
        self.con.execute("INSERT OR REPLACE INTO summary_state VALUES ('ratings', ?)", (version,))

    # --- changes to names (host_tools/club/people.py) -------------------------------
    @contextlib.contextmanager
    def changing(self):
        """One write transaction for a change: read, check, add_change() or
        undo_change(), then refresh_people(), all or nothing.  Whatever was
        due in the summaries is brought up to date first, inside it."""
        with self._write("cannot store the change"):
            if self._due():
                self._settle()
            yield

    def add_change(self, verb, args):
        """Inside changing(): keep a change; its number."""
        return self.con.execute("INSERT INTO changes (verb, args, made_at) VALUES (?, ?, ?)",
                                (verb, canonical_json(args), now())).lastrowid

    def undo_change(self, number):
        """Inside changing(): mark change `number` undone."""
        self.con.execute("UPDATE changes SET undone_at = ? WHERE id = ? AND undone_at IS NULL", (now(), number))

    def changes(self, in_force=True):
        """[Change] in the order they were made; in_force: without the undone ones."""
        rows = self._read("SELECT id, verb, args, made_at, undone_at FROM changes"
                          + (" WHERE undone_at IS NULL" if in_force else "") + " ORDER BY id")
        return [Change(i, verb, json.loads(args), made, undone) for i, verb, args, made, undone in rows]

    def count_changes(self):
        return self._read("SELECT COUNT(*), COUNT(undone_at) FROM changes")[0]

    def row_of(self, ident):
        """The row id of a stored game, by the device's id (the first game
        stored under it) or, for plain digits, by row number; None."""
        ident = str(ident)
        keys = ["id:" + canonical_json(ident)]
        number = int(ident) if ident.isascii() and ident.isdigit() and len(ident) <= 18 else None
        if number is not None:
            keys.append("id:" + canonical_json(number))
        for k in keys:
            row = self._read("SELECT id FROM games WHERE dedup_key = ?", (k,))
            if row:
                return row[0][0]
        if number is not None and self._read("SELECT id FROM games WHERE id = ?", (number,)):
            return number
        return None

    # --- slaps ---------------------------------------------------------------
    def add_slap(self, ev):
        """A slap verdict on its own, tied to no game (link_slaps ties it)."""
        with self._write():
            cur = self.con.execute(
                "INSERT INTO slaps (game, kind, winner, margin_us, line, received_at) VALUES (?, ?, ?, ?, ?, ?)",
                (ev["game"], ev.get("kind"), ev["winner"], ev["margin_us"], canonical_json(ev), now()))
        return cur.lastrowid

    def link_slaps(self, slap_ids, game_row_id):
        """Attach slap verdicts to the game they were part of (its players name the seats)."""
        with self._write():
            self.con.executemany("UPDATE slaps SET game_ref = ? WHERE id = ? AND game_ref IS NULL",
                                 [(game_row_id, s) for s in slap_ids])

    def slaps(self):
        """[(game, kind, winner seat or None, margin_us, game_ref or None)]"""
        return [r[1:] for r in self.slap_rows()]

    def slap_rows(self):
        """[(row id, game, kind, winner seat or None, margin_us, game_ref or None)]"""
        return self._read("SELECT id, game, kind, winner, margin_us, game_ref FROM slaps ORDER BY id")

    def count_slaps(self):
        return self._read("SELECT COUNT(*) FROM slaps")[0][0]


Stored = collections.namedtuple("Stored", "row new slaps reused")
Change = collections.namedtuple("Change", "number verb args made_at undone_at")


class _RollBack(Exception):
    """Ends ResultsDB's write check: its transaction is rolled back."""
