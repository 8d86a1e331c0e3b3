"""speedref-results rename / merge / assign / undo / changes: fixing names
after the fact (what each change means: host_tools/club/people.py).

    speedref-results rename OLD NEW       the person OLD is called NEW (a NEW who
                                          is someone already: the two are one)
    speedref-results merge A B            A and B are one person, called B
    speedref-results assign GAME SEAT NAME   that seat of that game was NAME
                                          (GAME: a record id or a row number;
                                          SEAT: 1..4 or P1..P4; NAME "Guest":
                                          nobody named)
    speedref-results changes              every change, undone ones marked
    speedref-results undo [N]             undo change N (default: the last
                                          one in force)

Each change is checked against the database as it is, inside the write
transaction that stores it: a change that is refused (a name that is no
person, a bad new name, two seats of one game becoming the same person, an
unknown game or seat) is one line on stderr, exit status 2, and nothing is
stored.  An undo is refused the same way when a later change needs the one
undone (without it, that change would seat one person twice in a stored
game): the line names the change to undo first.  `changes` marks a change
that does not hold for a game imported after it (people.Resolver).
"""
from host_tools import jsonin
from host_tools.club import people


class Refused(Exception):
    """A change that is not made: the message is its one line."""


class Seated:
    """Who sits where now: each counted game's seats with the person they
    are after the changes in force, as the games' summaries keep them
    (host_tools/club/db.py), read in SQL; no record replayed."""

    def __init__(self, db):
        self.db = db

    def seats(self, k):
        """How many seats the person k plays."""
        return self.db.query("SELECT COUNT(*) FROM game_players WHERE person = ?", (k,))[0][0]

    def shown(self, k):
        """The name person k goes by in their most recent game (standings.spellings)."""
        got = self.db.query("SELECT shown FROM game_players WHERE person = ? ORDER BY ord DESC LIMIT 1", (k,))
        return got[0][0] if got else None

    def together(self, a, b):
        """The first game, in time order, that persons a and b both play, or None."""
        got = self.db.query("SELECT p.game_ref FROM game_players p JOIN game_players q ON q.game_ref = p.game_ref"
                            " WHERE p.person = ? AND q.person = ? ORDER BY p.ord LIMIT 1",
                            (people.key(a), people.key(b)))
        return got[0][0] if got else None

    def names(self, row):
        """[the name each seat of counted game `row` goes by, None: nobody
        named], or None when the game is not counted."""
        if not self.db.query("SELECT 1 FROM game_summary WHERE game_ref = ? AND counted", (row,)):
            return None
        return [n for n, in self.db.query("SELECT shown FROM game_players WHERE game_ref = ? ORDER BY seat",
                                          (row,))]

    def game_name(self, row):
        """A stored game as a line names it: "#12 (record e66...-3)"."""
        got = self.db.query("SELECT record FROM games WHERE id = ?", (row,))
        try:
            rec = jsonin.loads(got[0][0]) if got else None
        except jsonin.BadJSON:
            rec = None
        ident = rec.get("id") if isinstance(rec, dict) else None
        return "#%d%s" % (row, "" if ident is None else " (record %s)" % _shown(ident))


def _name(text, what):
    try:
        return people.check_name(text, what)
    except people.BadName as e:
        raise Refused(str(e))


def _shown(text):
    return jsonin.printable(str(text))


def _person(text, seated, what):
    """The person a name given on the command line means, as they are shown."""
    if people.unnamed(text):
        raise Refused("%s %r is an unnamed seat, not a person: `assign GAME SEAT NAME` names one seat"
                      % (what, _shown(text)))
    shown = seated.shown(people.key(text))
    if shown is None:
        raise Refused("no person %r in the database (speedref-results lists them)" % _shown(text))
    return shown


def plan(db, verb, args):
    """(verb, stored arguments, what to say) for a change, or Refused."""
    seated = Seated(db)
    if verb == "rename":
        old = _person(args[0], seated, "OLD")
        new = _name(args[1], "the new name")
        if people.unnamed(new):
            raise Refused("the new name %r is a seat label: a person needs a name" % _shown(new))
        if new == old:
            raise Refused("%r is called that already" % _shown(old))
        seats = jsonin.count(seated.seats(people.key(old)), "seat")
        into = seated.shown(people.key(new)) if people.key(new) != people.key(old) else None
        if into is not None:
            # the new name is someone's already: the two are one person, as merge makes them
            g = seated.together(old, into)
            if g is not None:
                raise Refused("%s is another person, who played game %s with %s: they are two people"
                              % (_shown(into), seated.game_name(g), _shown(old)))
            return {"old": old, "new": into}, "renamed %s to %s: %s, joined to %s's %s" % (
                _shown(old), _shown(into), seats, _shown(into), jsonin.count(seated.seats(people.key(new)), "seat"))
        return {"old": old, "new": new}, "renamed %s to %s: %s" % (_shown(old), _shown(new), seats)
    if verb == "merge":
        a = _person(args[0], seated, "A")
        b = _person(args[1], seated, "B")
        if people.key(a) == people.key(b):
            raise Refused("%r and %r are one person already" % (_shown(args[0]), _shown(args[1])))
        g = seated.together(a, b)
        if g is not None:
            raise Refused("%s and %s played game %s together: they are two people" % (_shown(a), _shown(b),
                                                                                      seated.game_name(g)))
        return {"from": a, "into": b}, "merged %s into %s: %s moved" % (
            _shown(a), _shown(b), jsonin.count(seated.seats(people.key(a)), "seat"))
    if verb == "assign":
        row = db.row_of(args[0])
        names = None if row is None else seated.names(row)
        if names is None:
            raise Refused("no game %r in the database (a record id, or a row number: speedref-score --db --id)"
                          % _shown(args[0]) if row is None else
                          "game %r cannot be counted (speedref-results names it on stderr)" % _shown(args[0]))
        game = seated.game_name(row)
        seat_text = args[1].strip()
        digits = seat_text[1:] if seat_text[:1] in "pP" else seat_text
        if not (digits.isascii() and digits.isdigit() and 1 <= int(digits) <= len(names)):
            raise Refused("game %s has seats 1..%d (P1..P%d), not %r" % (game, len(names), len(names),
                                                                         _shown(seat_text)))
        seat = int(digits) - 1
        if people.key(args[2]) == "guest":
            name, now = None, None
        else:
            name = _name(args[2], "the name")
            if people.unnamed(name):
                raise Refused("%r is a seat label: give a name, or Guest for nobody named" % _shown(name))
            now = people.Resolver(db.changes()).name(name)
        current = names[seat]
        if (current is None and now is None) or (current is not None and now is not None
                                                 and people.key(current) == people.key(now)):
            raise Refused("seat P%d of game %s is %s already" % (seat + 1, game,
                                                                 "nobody named" if now is None else _shown(current)))
        if now is not None:
            for other, n in enumerate(names):
                if other != seat and n is not None and people.key(n) == people.key(now):
                    raise Refused("%s plays seat P%d of game %s: the same person cannot play two seats"
                                  % (_shown(n), other + 1, game))
        return {"row": row, "seat": seat, "name": name}, "game %s seat P%d: %s (was %s)" % (
            game, seat + 1, "nobody named" if now is None else _shown(now),
            "nobody named" if current is None else _shown(current))
    raise ValueError(verb)


def describe(c):
    a = c.args
    if c.verb == "rename":
        what = "rename %s to %s" % (_shown(a["old"]), _shown(a["new"]))
    elif c.verb == "merge":
        what = "merge %s into %s" % (_shown(a["from"]), _shown(a["into"]))
    else:
        what = "assign game #%d seat P%d: %s" % (a["row"], a["seat"] + 1,
                                                 "Guest" if a["name"] is None else _shown(a["name"]))
    return what


def _held(db):
    """{(row, change number): people.Held} of the changes in force that do
    not hold for a game, as the summaries keep them; inside a transaction
    they are what it wrote."""
    return dict(((row, number), people.Held(number, (a, b), (na, nb), person)) for row, number, a, b, na, nb, person
                in db.query("SELECT game_ref, change, seat_a, seat_b, name_a, name_b, person FROM held"))


def _seated_twice(db, before):
    """[(what the change would do, its people.Held)] for each change that
    does not hold for a game now but did `before` (_held's), in row order:
    the changes that would now seat someone twice."""
    seated = Seated(db)
    return [("%s would sit at P%d and P%d of game %s" % ((_shown(h.person),) + tuple(s + 1 for s in sorted(h.seats))
                                                         + (seated.game_name(row),)), h)
            for (row, n), h in sorted(_held(db).items()) if (row, n) not in before]


def make(db, verb, args):
    """Check and store one change: the line to print; Refused."""
    with db.changing():
        in_force = db.changes()
        before = _held(db)
        stored, said = plan(db, verb, args)
        number = db.add_change(verb, stored)
        db.refresh_people(in_force)
        # a change that would seat one person twice in a stored game is
        # refused whatever else it does (the transaction is rolled back)
        twice = _seated_twice(db, before)
        if twice:
            raise Refused("%s: one person cannot play two seats" % twice[0][0])
    return "change %d: %s" % (number, said)


def undo(db, args):
    with db.changing():
        in_force = db.changes()
        if args:
            text = args[0].strip().lstrip("#")
            if not (text.isascii() and text.isdigit()):
                raise Refused("undo N: N is a change's number (speedref-results changes lists them), not %r"
                              % _shown(args[0]))
            mine = [c for c in in_force if c.number == int(text)]
            if not mine:
                done = [c for c in db.changes(in_force=False) if c.number == int(text)]
                raise Refused("change %s was undone already" % text if done else "no change %s" % text)
            c = mine[0]
        elif in_force:
            c = in_force[-1]
        else:
            raise Refused("no change to undo")
        before = _held(db)
        db.undo_change(c.number)
        db.refresh_people(in_force)
        # a later change that needs this one would seat someone twice
        # without it: refused, naming it (the transaction is rolled back)
        twice = _seated_twice(db, before)
        if twice:
            what, h = twice[0]
            needs = sorted(set(x.number for _, x in twice), reverse=True)
            later = [x for x in in_force if x.number == h.number][0]
            raise Refused("change %d is needed by change %d (%s): without it, %s; undo %s first"
                          % (c.number, h.number, describe(later), what,
                             "change %d" % needs[0] if len(needs) == 1 else
                             "changes " + ", ".join(str(n) for n in needs)))
    return "undid change %d: %s" % (c.number, describe(c))


def listing(db):
    rows = db.changes(in_force=False)
    if not rows:
        return "no changes to names yet"
    held = {}
    for (row, number) in _held(db):
        held.setdefault(number, []).append(row)
    return "\n".join("%d  %s  %s%s%s" % (c.number, c.made_at, describe(c),
                                         "  (undone %s)" % c.undone_at if c.undone_at else "",
                                         _not_held(held.get(c.number))) for c in rows)


def _not_held(rows):
    if not rows:
        return ""
    return "  (does not hold for game%s %s: two people at one table)" % (
        "" if len(rows) == 1 else "s", ", ".join("#%d" % r for r in sorted(rows)))


def report_held(db, row, players=None):
    """Lines for a game just stored (row `row`): each change in force that
    does not hold for it, and why."""
    held = db.query("SELECT change, name_a, name_b FROM held WHERE game_ref = ? ORDER BY change", (row,))
    by_number = dict((c.number, c) for c in db.changes()) if held else {}
    return ["%s and %s sat at one table, but change %d (%s) made them one person: that change does not hold"
            " for this game" % (_shown(na), _shown(nb), number, describe(by_number[number]))
            for number, na, nb in held if number in by_number]
