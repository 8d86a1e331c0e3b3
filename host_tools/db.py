"""The results database: every finished game record and slap verdict, in SQLite.

One file, stdlib `sqlite3`, parameterized queries only.  The schema is versioned
with `PRAGMA user_version` and moved forward by the numbered migrations below, so
a database written by an older speedref-log opens (and is upgraded) in a newer one.

A game record is stored once: records carrying the device's "id" are keyed by it;
a record without one is keyed by a hash of its content (sorted-key JSON), so the
same game pulled twice (live, then again from the device's flash) is one row.
"""
import contextlib
import datetime
import hashlib
import json
import sqlite3

from speedref.engine import records

DEFAULT_DB_NAME = "speedref-results.db"
BUSY_TIMEOUT_S = 30.0   # how long to wait for another process's write to finish


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


MIGRATIONS = [_migrate_1, _migrate_2, _migrate_3]
SCHEMA_VERSION = len(MIGRATIONS)


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class ResultsDB:
    """Open (creating or upgrading) the database at `path` (":memory:" for tests)."""

    def __init__(self, path, busy_timeout_s=BUSY_TIMEOUT_S):
        self.path = path
        # isolation_level=None: no implicit transactions; every write is an
        # explicit BEGIN IMMEDIATE (_write), taken at once or waited for up to
        # busy_timeout_s while another process writes.
        self.con = sqlite3.connect(str(path), timeout=busy_timeout_s, isolation_level=None)
        self.con.execute("PRAGMA foreign_keys = ON")
        self.migrate()

    @contextlib.contextmanager
    def _write(self):
        """One write transaction, holding the database's write lock from its start."""
        self.con.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        self.con.execute("COMMIT")

    def close(self):
        self.con.close()

    @property
    def version(self):
        return self.con.execute("PRAGMA user_version").fetchone()[0]

    def migrate(self):
        v = self.version
        if v > SCHEMA_VERSION:
            raise SystemExit("%s has schema version %d; this speedref knows up to %d: upgrade speedref"
                             % (self.path, v, SCHEMA_VERSION))
        if v == SCHEMA_VERSION:
            return
        # All steps in one write transaction, the version read again inside it:
        # a second process that opened the database at the same moment waits,
        # then finds it already migrated.
        with self._write():
            v = self.version
            if v > SCHEMA_VERSION:
                raise SystemExit("%s has schema version %d; this speedref knows up to %d: upgrade speedref"
                                 % (self.path, v, SCHEMA_VERSION))
            while v < SCHEMA_VERSION:
                MIGRATIONS[v](self.con)
                v += 1
                self.con.execute("PRAGMA user_version = %d" % v)   # an int we made, not input

    # --- games ---------------------------------------------------------------
    def add_record(self, record, source="live", compare=False):
        """Store a record already validated with records.replay.

        Returns (row id, True) when new, (existing row id, False) when a duplicate.
        With compare=True a third item says whether the stored record is the
        same as this one (a device id reused for other content is not).
        The insert is one atomic statement in a write transaction, so several
        speedref-log processes on one database never store a record twice.
        """
        key = dedup_key(record)
        text = canonical_json(record)
        with self._write():
            cur = self.con.execute(
                "INSERT INTO games (dedup_key, game, record, source, received_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(dedup_key) DO NOTHING",
                (key, record["game"], text, source, _now()))
            if cur.rowcount == 1:
                row_id, new, same = cur.lastrowid, True, True
                self.con.executemany("INSERT INTO game_players VALUES (?, ?, ?, ?, ?)",
                                     _players_rows(row_id, record))
            else:
                row_id, stored = self.con.execute(
                    "SELECT id, record FROM games WHERE dedup_key = ?", (key,)).fetchone()
                new, same = False, stored == text
        return (row_id, new, same) if compare else (row_id, new)

    def games(self, game=None):
        """[(row id, record dict)] in the order they were stored."""
        if game is None:
            rows = self.con.execute("SELECT id, record FROM games ORDER BY id")
        else:
            rows = self.con.execute("SELECT id, record FROM games WHERE game = ? ORDER BY id", (game,))
        return [(r[0], json.loads(r[1])) for r in rows.fetchall()]

    def find_record(self, ident):
        """A stored record by the device's id (as text or number), else by row number."""
        keys = ["id:" + canonical_json(ident)]
        try:
            keys.append("id:" + canonical_json(int(ident)))
        except ValueError:
            pass
        for k in keys:
            row = self.con.execute("SELECT record FROM games WHERE dedup_key = ?", (k,)).fetchone()
            if row:
                return json.loads(row[0])
        if ident.isdigit():
            row = self.con.execute("SELECT record FROM games WHERE id = ?", (int(ident),)).fetchone()
            if row:
                return json.loads(row[0])
        return None

    def count_games(self):
        return self.con.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    # --- slaps ---------------------------------------------------------------
    def add_slap(self, ev):
        with self._write():
            cur = self.con.execute(
                "INSERT INTO slaps (game, kind, winner, margin_us, line, received_at) VALUES (?, ?, ?, ?, ?, ?)",
                (ev["game"], ev.get("kind"), ev["winner"], ev["margin_us"], canonical_json(ev), _now()))
        return cur.lastrowid

    def link_slaps(self, slap_ids, game_row_id):
        """Attach slap verdicts to the game they were part of (its players name the seats)."""
        with self._write():
            self.con.executemany("UPDATE slaps SET game_ref = ? WHERE id = ? AND game_ref IS NULL",
                                 [(game_row_id, s) for s in slap_ids])

    def slaps(self):
        """[(game, kind, winner seat or None, margin_us, game_ref or None)]"""
        return self.con.execute(
            "SELECT game, kind, winner, margin_us, game_ref FROM slaps ORDER BY id").fetchall()

    def count_slaps(self):
        return self.con.execute("SELECT COUNT(*) FROM slaps").fetchone()[0]
