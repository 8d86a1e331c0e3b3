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
from host_tools.club import people, standings


class Refused(Exception):
    """A change that is not made: the message is its one line."""


def _who(games):
    """{person key: [(row, seat)]} of every named seat now."""
    out = {}
    for g in games:
        for seat, n in enumerate(g.names):
            if n is not None:
                out.setdefault(people.key(n), []).append((g.row, seat))
    return out


def _name(text, what):
    try:
        return people.check_name(text, what)
    except people.BadName as e:
        raise Refused(str(e))


def _shown(text):
    return jsonin.printable(str(text))


def _person(text, who, shown, what):
    """The person a name given on the command line means, as they are shown."""
    if people.unnamed(text):
        raise Refused("%s %r is an unnamed seat, not a person: `assign GAME SEAT NAME` names one seat"
                      % (what, _shown(text)))
    k = people.key(text)
    if k not in who:
        raise Refused("no person %r in the database (speedref-results lists them)" % _shown(text))
    return shown[k]


def _together(games, a, b):
    """A game in which both persons a and b play, or None."""
    for g in games:
        ks = set(people.key(n) for n in g.names if n is not None)
        if people.key(a) in ks and people.key(b) in ks:
            return g
    return None


def _game_name(g):
    ident = g.record.get("id")
    return "#%d%s" % (g.row, "" if ident is None else " (record %s)" % _shown(ident))


def plan(db, verb, args):
    """(verb, stored arguments, what to say) for a change, or Refused."""
    games = standings.played(db)
    who, shown = _who(games), standings.spellings(games)
    if verb == "rename":
        old = _person(args[0], who, shown, "OLD")
        new = _name(args[1], "the new name")
        if people.unnamed(new):
            raise Refused("the new name %r is a seat label: a person needs a name" % _shown(new))
        if new == old:
            raise Refused("%r is called that already" % _shown(old))
        seats = jsonin.count(len(who[people.key(old)]), "seat")
        if people.key(new) != people.key(old) and people.key(new) in who:
            # the new name is someone's already: the two are one person, as merge makes them
            into = shown[people.key(new)]
            g = _together(games, old, into)
            if g is not None:
                raise Refused("%s is another person, who played game %s with %s: they are two people"
                              % (_shown(into), _game_name(g), _shown(old)))
            return {"old": old, "new": into}, "renamed %s to %s: %s, joined to %s's %s" % (
                _shown(old), _shown(into), seats, _shown(into), jsonin.count(len(who[people.key(new)]), "seat"))
        return {"old": old, "new": new}, "renamed %s to %s: %s" % (_shown(old), _shown(new), seats)
    if verb == "merge":
        a = _person(args[0], who, shown, "A")
        b = _person(args[1], who, shown, "B")
        if people.key(a) == people.key(b):
            raise Refused("%r and %r are one person already" % (_shown(args[0]), _shown(args[1])))
        g = _together(games, a, b)
        if g is not None:
            raise Refused("%s and %s played game %s together: they are two people" % (_shown(a), _shown(b),
                                                                                      _game_name(g)))
        return {"from": a, "into": b}, "merged %s into %s: %s moved" % (
            _shown(a), _shown(b), jsonin.count(len(who[people.key(a)]), "seat"))
    if verb == "assign":
        row = db.row_of(args[0])
        g = next((x for x in games if x.row == row), None)
        if g is None:
            raise Refused("no game %r in the database (a record id, or a row number: speedref-score --db --id)"
                          % _shown(args[0]) if row is None else
                          "game %r cannot be counted (speedref-results names it on stderr)" % _shown(args[0]))
        seat_text = args[1].strip()
        digits = seat_text[1:] if seat_text[:1] in "pP" else seat_text
        if not (digits.isascii() and digits.isdigit() and 1 <= int(digits) <= len(g.names)):
            raise Refused("game %s has seats 1..%d (P1..P%d), not %r" % (_game_name(g), len(g.names),
                                                                         len(g.names), _shown(seat_text)))
        seat = int(digits) - 1
        if people.key(args[2]) == "guest":
            name, now = None, None
        else:
            name = _name(args[2], "the name")
            if people.unnamed(name):
                raise Refused("%r is a seat label: give a name, or Guest for nobody named" % _shown(name))
            now = people.Resolver(db.changes()).name(name)
        current = g.names[seat]
        if (current is None and now is None) or (current is not None and now is not None
                                                 and people.key(current) == people.key(now)):
            raise Refused("seat P%d of game %s is %s already" % (seat + 1, _game_name(g),
                                                                 "nobody named" if now is None else _shown(current)))
        if now is not None:
            for other, n in enumerate(g.names):
                if other != seat and n is not None and people.key(n) == people.key(now):
                    raise Refused("%s plays seat P%d of game %s: the same person cannot play two seats"
                                  % (_shown(n), other + 1, _game_name(g)))
        return {"row": g.row, "seat": seat, "name": name}, "game %s seat P%d: %s (was %s)" % (
            _game_name(g), seat + 1, "nobody named" if now is None else _shown(now),
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
    """({(row, change number): people.Held} of the changes in force that do
    not hold for a game, {row: Played}); inside a transaction db.changes()
    sees what it wrote."""
    held = {}
    games = standings.played(db, held=held)
    return (dict(((row, h.number), h) for row, hs in held.items() for h in hs),
            dict((g.row, g) for g in games))


def _seated_twice(db, before):
    """[(what the change would do, its people.Held)] for each change that
    does not hold for a game now but did `before` (_held's first part), in
    row order: the changes that would now seat someone twice."""
    now, games = _held(db)
    return [("%s would sit at P%d and P%d of game %s" % ((_shown(h.person),) + tuple(s + 1 for s in sorted(h.seats))
                                                         + (_game_name(games[row]),)), h)
            for (row, n), h in sorted(now.items()) if (row, n) not in before]


def make(db, verb, args):
    """Check and store one change: the line to print; Refused."""
    with db.changing():
        before = _held(db)[0]
        stored, said = plan(db, verb, args)
        number = db.add_change(verb, stored)
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
        before = _held(db)[0]
        db.undo_change(c.number)
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
    for (row, number) in _held(db)[0]:
        held.setdefault(number, []).append(row)
    return "\n".join("%d  %s  %s%s%s" % (c.number, c.made_at, describe(c),
                                         "  (undone %s)" % c.undone_at if c.undone_at else "",
                                         _not_held(held.get(c.number))) for c in rows)


def _not_held(rows):
    if not rows:
        return ""
    return "  (does not hold for game%s %s: two people at one table)" % (
        "" if len(rows) == 1 else "s", ", ".join("#%d" % r for r in sorted(rows)))


def report_held(db, row, players):
    """Lines for a game just stored (row `row`, its record's `players`): each
    change in force that does not hold for it, and why."""
    in_force = db.changes()
    if not in_force:
        return []
    resolver = people.Resolver(in_force)
    resolver.seats(row, players)
    by_number = dict((c.number, c) for c in in_force)
    return ["%s and %s sat at one table, but change %d (%s) made them one person: that change does not hold"
            " for this game" % (_shown(h.names[0]), _shown(h.names[1]), h.number, describe(by_number[h.number]))
            for h in resolver.held.get(row, [])]
