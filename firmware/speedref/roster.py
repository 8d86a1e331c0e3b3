# The club's roster and this table's name, as the USB console edits them
# (docs/serial-protocol.md, "Roster commands"; host_tools/board/roster.py is the
# laptop's side).  Loaded only for a roster command or the name picker,
# and let go after: a game's heap never holds the roster.
#
# Every change is checked whole before anything is written: a command with
# one bad name changes nothing and says which name and why (names.py), so
# what is stored is never lost to a bad line.  A push longer than one
# console line comes in parts, kept in the heap until its last part and
# then written as one file (a power cut mid-push leaves the old roster).
from . import names as N



def table_name(app):
    return N.table_name(app.settings, getattr(app.store, "install", None))


def load(app):
    """The roster dict; a damaged roster file is logged once and an empty
    roster used (it never stops a game)."""
    try:
        roster, problem = app.store.load_roster()
    except (OSError, MemoryError, ValueError) as e:
        roster, problem = {"names": [], "last": []}, "roster unreadable: %s; roster empty" % e
    if problem:
        app.log.emit({"ev": "error", "what": "roster", "msg": problem})
    return roster


class Console:
    """The roster commands' state between lines: a push under way."""

    def __init__(self):
        self.push = None   # the names of a push so far, or None
        self.part = 0      # the part expected next

    def command(self, app, log, cmd):
        """One roster or table command (a dict with "cmd"); answers with
        the roster line or one error line."""
        if app.flow is not None:
            # the picker and the game share a heap that has no room to spare
            return _refuse(log, "a game is running: change the roster at the menu")
        try:
            if cmd["cmd"] == "table":
                name = N.clean_table(cmd.get("name"))
                app.settings["table"] = name
                app.store.save_settings(app.settings)
                return _answer(app, log, load(app))
            roster = load(app)
            names = roster["names"]
            if "add" in cmd:
                for n in _names(cmd["add"]):
                    if N.find(names, n) < 0:
                        names.append(n)
                _fits(names)
            elif "remove" in cmd:
                for n in _names(cmd["remove"], clean=False):
                    i = N.find(names, n.strip(" "))
                    if i < 0:
                        raise N.BadName("%s is not on the roster" % n[:N.NAME_MAX])
                    names.pop(i)
            elif "push" in cmd:
                part = cmd.get("part", 0)
                if part == 0:
                    self.push = []
                elif self.push is None or part != self.part:
                    self.push = None
                    raise N.BadName("push part %r out of order: push again from part 0" % (part,))
                for n in _names(cmd["push"]):
                    if N.find(self.push, n) < 0:
                        self.push.append(n)
                _fits(self.push)
                self.part = part + 1
                if not cmd.get("end", True):
                    log.emit({"ev": "roster_part", "part": part, "count": len(self.push)})
                    return
                roster["names"] = self.push
                self.push = None
            else:
                return _answer(app, log, roster)  # a listing: nothing written
            app.store.save_roster(roster)
            _answer(app, log, roster)
        except N.BadName as e:
            if "push" in cmd:
                self.push = None
            _refuse(log, str(e))
        except (OSError, MemoryError) as e:
            self.push = None
            _refuse(log, "roster not saved: %s" % e)


def _names(v, clean=True):
    if not isinstance(v, list):
        raise N.BadName("names must be a list")
    out = []
    for n in v:
        out.append(N.clean(n) if clean else (n if isinstance(n, str) else N.clean(n)))
    return out


def _fits(names):
    if len(names) > N.ROSTER_MAX:
        raise N.BadName("the roster holds %d names at most" % N.ROSTER_MAX)


def _refuse(log, msg):
    log.emit({"ev": "error", "what": "roster", "msg": msg})


def _answer(app, log, roster):
    log.emit({"ev": "roster", "table": table_name(app), "names": roster["names"],
              "max": N.ROSTER_MAX})


def remember(app, players):
    """A game is starting with `players` (seat order): the named ones join
    the roster if new, and are this table's last players.  One write, of
    the roster as stored now (a name the laptop added while the seats were
    picking is kept)."""
    roster = load(app)
    names = roster["names"]
    for p in players:
        if p not in N.SEATS and N.find(names, p) < 0 and len(names) < N.ROSTER_MAX:
            names.append(p)
    roster["last"] = list(players)
    try:
        app.store.save_roster(roster)
    except (OSError, MemoryError) as e:
        app.emit({"ev": "error", "what": "roster", "msg": "roster not saved: %s" % e})
