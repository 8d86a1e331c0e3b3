"""A season in a results database: the served first screen's test at
20,000 games, and the benchmarks of the results page and of the served
room.  No tests here.

A season is 40 people playing seeded Speed matches (host_fixtures.speed_match)
at 20 tables, a few hundred games an evening, each stored as speedref-log
stores a game (ResultsDB.add_game), its arrival on its evening's date (a
week apart, the last a week ago).
With `evening`: tonight's evening too, started now, its 40 people checked in,
three rounds of Speed played at its 20 tables and the fourth paired
(host_tools/club/evening.py); tonight_record(n) is a result of the fourth.
"""
import datetime
import random
import shutil

from host_fixtures import speed_match
from host_tools.club import evening as E
from host_tools.club.db import ResultsDB

TABLES = 20
PER_EVENING = 200
ROUNDS_PLAYED = 3         # tonight's rounds played, before the one paired now
PEOPLE = ["Ada", "Ben", "Cleo", "Dev", "Elif", "Finn", "Gus", "Hana", "Ivo", "Jun", "Kofi", "Lena", "Mira", "Nils",
          "Omar", "Pia", "Quinn", "Rosa", "Sami", "Tove", "Uma", "Vik", "Wren", "Xia", "Yara", "Zeno", "Abel", "Bea",
          "Cruz", "Dora", "Emil", "Fern", "Gil", "Hugo", "Iris", "Joel", "Kai", "Lupe", "Milo", "Noor"]
LAST_EVENING = datetime.datetime.now(datetime.timezone.utc).replace(hour=19, minute=0, second=0, microsecond=0)


def season_record(n):
    """Game n of the season: a seeded Speed match, two of PEOPLE, at one of the tables."""
    rec = speed_match(n)
    rec["players"] = random.Random(n).sample(PEOPLE, 2)
    rec["id"] = "season%02d-%d" % (n % TABLES, n // TABLES + 1)
    rec["table"] = "Table %d" % (n % TABLES + 1)
    return rec


def fill(path, games):
    """A database of `games` games at `path`, quickly (no sync per game:
    a copy is thrown away if the build stops half-way)."""
    db = ResultsDB(path, write=True)
    try:
        db.con.execute("PRAGMA synchronous = OFF")
        db.con.execute("PRAGMA journal_mode = MEMORY")
        evenings = -(-games // PER_EVENING)
        for n in range(games):
            if n % PER_EVENING == 0:       # a week apart, the last a week ago
                day = LAST_EVENING - datetime.timedelta(days=7 * (evenings - n // PER_EVENING))
                db.moment = day.isoformat(timespec="seconds")
            db.add_game(season_record(n), "import")
    finally:
        db.close()


def tonight(path, rounds=ROUNDS_PLAYED):
    """Tonight's evening: started now, PEOPLE checked in, `rounds` rounds of
    Speed paired and played (each table's result stored as a board on
    Wi-Fi stores it, its table named), and the next round paired."""
    db = ResultsDB(path, write=True)
    try:
        ev, _ = E.start(db, "Club night", datetime.date.today().isoformat(), E.table_names(TABLES), [])
        E.checkin(db, ev, PEOPLE)
        for number in range(rounds):
            rnd = E.pair(db, ev, "speed")
            for i, (table, seated) in enumerate(rnd.tables):
                rec = speed_match(2 * 10 ** 6 + number * TABLES + i)
                rec.update(players=[name for _, name in seated], table=table, id="night%d-%d" % (i, number + 1))
                db.add_game(rec, "mqtt")
        E.pair(db, ev, "speed")
    finally:
        db.close()


def database(folder, games, evening=False):
    """A copy of the season of `games` games (with tonight's evening: its
    games are the season's too, ROUNDS_PLAYED * TABLES of them), made
    once in `folder` and copied for each use (a benchmark changes it)."""
    folder.mkdir(parents=True, exist_ok=True)
    kept = folder / ("season-%d%s.db" % (games, "-evening" if evening else ""))
    if not kept.exists():
        part = kept.with_suffix(".part")
        if part.exists():
            part.unlink()
        fill(part, games - (ROUNDS_PLAYED * TABLES if evening else 0))
        if evening:
            tonight(part)
        part.rename(kept)
    work = folder / ("work-" + kept.name)
    for left in ("-journal", "-wal", "-shm"):     # a killed run's: SQLite would roll it into the fresh copy
        stale = work.with_name(work.name + left)
        if stale.exists():
            stale.unlink()
    shutil.copy(kept, work)
    return work


def tonight_record(n, path=None, _round={}):
    """A result of tonight's round: table n's players (of the round paired
    in `path`, read once), else two of PEOPLE."""
    if path is not None and path not in _round:
        db = ResultsDB(path)
        try:
            rnd = E.rounds(db, E.find(db))[-1]
            _round[path] = [(t, [name for _, name in seated]) for t, seated in rnd.tables]
        finally:
            db.close()
    rec = speed_match(10 ** 6 + n)
    tables = _round.get(path)
    if tables:
        table, players = tables[n % len(tables)]
    else:
        table, players = "Table %d" % (n % TABLES + 1), random.Random(n).sample(PEOPLE, 2)
    rec["players"] = list(players)
    rec["table"] = table
    rec["id"] = "tonight-%d" % n
    return rec
