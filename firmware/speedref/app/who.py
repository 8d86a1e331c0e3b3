# Who is playing: before a game each seat picks a name from the roster
# (docs/app.md, "Who is playing").  Shown by the game's Options screen on
# Start when the board has a roster or this table has named players; with
# neither the game starts at once, its seats named P1..P4 as before.
#
#   "Same players?"  this table's last players, for the same number of
#                    seats: OK starts the game (the usual case, one press);
#                    UP/DOWN picks seat by seat instead.
#   "P2: who?"       the seat's pad lights; UP/DOWN go through this table's
#                    last players first, then the roster, then "Guest" (the
#                    seat keeps its label) and "New name"; OK takes it;
#                    BACK goes back a seat.  A name taken by an earlier
#                    seat is not offered again (one seat each).
#   letter wheel     a walk-in's name: UP/DOWN turn the wheel, OK adds its
#                    letter (or ends, on "end"), BACK rubs the last one out;
#                    the seat's pad turns the letter on the wheel into its
#                    accented forms (e, \u00e9, \u00e8, \u00ea, \u00eb, ...,
#                    e again: app/glyphs.py's ACCENTS), so the plain letters
#                    stay as near as they were; the name joins the roster
#                    when the game starts.
#
# A state machine of events, like every screen; loaded only for this and let
# go when the game starts (the roster never stays in a game's heap).
from . import ui
from .ui import Screen, UP, DOWN, OK, CLICK, ERROR
from .. import names as N
from .. import roster as R

GUEST = N.GUEST
NEW = "New name"
END = "end"
RUB = "<-"
# The wheel: letters first (most names), then the rest of printable ASCII a
# name may hold (names.py), then rub-out and end; a letter's accented forms
# are the seat's pad away (_turn).
WHEEL = ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
         " -.'0123456789!\"#$%&()*+,/:;<=>?@[\\]^_`{|}~")
_ROWS = 5


def offer(app, game, opts, t_us, back):
    """Start `game` with `opts` through the picker when there are names to
    pick; False when there are none (the caller starts it as before).
    `back`: the screen BACK returns to from the first seat (the game's
    options it was started from)."""
    from .. import games
    if app.seated is not None:
        return False  # the table has named its players already
    roster = R.load(app)
    last = roster.get("last") or []
    named = [n for n in last if n not in N.SEATS]
    if not roster["names"] and not named:
        return False
    n = opts.get("seats", games.get(game).seats[0])
    app.show(Who(app, game, opts, n, roster, back))
    return True


class Who(Screen):
    """back: the screen BACK at the first seat returns to (the one that
    opened the picker); first: the names each seat is offered first (a
    match's, seat order), or None."""

    def __init__(self, app, game, opts, n, roster, back, first=None):
        self.app = app
        self.back_to = back
        self.first = first
        self.at_home = first is not None  # a match's seats: a new match replaces them (menu.home)
        self.game = game
        self.opts = opts
        self.n = n
        self.roster = roster
        self.picked = []          # the names of seats 0 .. seat-1
        self.seat = 0
        self.cursor = 0
        self.top = 0
        self.items = None         # the names offered to this seat
        self.typed = None         # the letter wheel's name so far, or None
        self.wheel = 0
        self.form = 0             # the wheel letter's accented form (0: the letter itself)
        self.note = ""
        last = roster.get("last") or []
        same = first is None and len(last) == n and any(p not in N.SEATS for p in last)
        if same:
            try:
                self.last = N.check_game(last)
            except N.BadName:
                same = False
        self.same = same          # "Same players?" is on screen
        if not same:
            self._offer()

    @property
    def pad_lights(self):
        return 0 if self.same else 1 << self.seat

    # ---- the choices for one seat -----------------------------------------
    def _offer(self):
        out = []
        last = self.roster.get("last") or []
        order = []
        first = self.first
        if first is not None and self.seat < len(first):
            order.append(first[self.seat])  # the match's player for this seat first
        if self.seat < len(last):
            order.append(last[self.seat])  # who sat here last first
        order += last
        order += self.roster["names"]
        # one person once, whatever the case: a set of the names seen,
        # folded, so a roster of 100 is offered in one pass
        seen = set([N.fold(p) for p in self.picked])
        for name in order:
            low = N.fold(name)
            if name in N.SEATS or low in seen:
                continue
            seen.add(low)
            out.append(name)
        out.append(GUEST)
        out.append(NEW)
        self.items = out
        self.cursor = 0
        self.top = 0
        self.note = ""
        self.app.redraw()

    def _take(self, name, t_us):
        if name == GUEST:
            name = N.label(self.seat)
        elif N.find(self.picked, name) >= 0:
            return self._refuse("%s plays already" % name)
        self.picked.append(name)
        self.app.sound(CLICK)
        if len(self.picked) < self.n:
            self.seat += 1
            self._offer()
        else:
            self._start(self.picked, t_us)

    def _start(self, players, t_us):
        app = self.app
        self.roster = self.items = self.back_to = None  # the roster leaves the heap with this screen
        R.remember(app, players)
        opts = dict(self.opts)
        opts["names"] = list(players)
        app.start_after(self.game, t_us, opts)

    def _refuse(self, why):
        self.note = why
        self.app.sound(ERROR)
        self.app.redraw()

    # ---- events ---------------------------------------------------------------
    def press(self, b, t_us):
        if self.same:
            if b == OK:
                self.app.sound(CLICK)
                self._start(self.last, t_us)
            elif b == UP or b == DOWN:
                self.same = False
                self._offer()
            return
        if self.typed is not None:
            return self._turn(b, t_us)
        if b == UP or b == DOWN:
            k = len(self.items)
            self.cursor = (self.cursor + (1 if b == DOWN else k - 1)) % k
            self.top = ui.scroll_top(self.cursor, self.top, _ROWS)
            self.note = ""
            self.app.redraw()
        elif b == OK:
            name = self.items[self.cursor]
            if name == NEW:
                self.typed = ""
                self.wheel = self.form = 0
                self.note = ""
                self.app.sound(CLICK)
                self.app.redraw()
            else:
                self._take(name, t_us)
        elif b == self.seat:
            self._take(self.items[self.cursor], t_us)  # the seat's own pad takes it too

    def _turn(self, b, t_us):
        k = len(WHEEL) + 2  # the letters, then rub-out and end
        if b == UP or b == DOWN:
            self.wheel = (self.wheel + (1 if b == DOWN else k - 1)) % k
            self.form = 0
            self.note = ""
        elif b == self.seat:
            f = self._forms()
            if f is None:
                return
            self.form = (self.form + 1) % len(f)  # the next accented form, then the letter again
            self.app.sound(CLICK)
        elif b == OK:
            w = self.wheel
            if w == len(WHEEL):
                self.typed = self.typed[:-1]
            elif w == len(WHEEL) + 1:
                return self._typed(t_us)
            elif len(self.typed) >= N.NAME_MAX:
                return self._refuse("%d letters at most" % N.NAME_MAX)
            else:
                self.typed += self._letter()
                self.form = 0
                if len(self.typed) == 1 and w < 26:
                    self.wheel = w + 26  # a capital first, then the small letters
                self.app.sound(CLICK)
        self.app.redraw()

    def _forms(self):
        """The wheel letter's accented forms, itself first; None for a
        character that has none."""
        if self.wheel >= 52:
            return None  # past the letters
        from .glyphs import forms
        return forms(WHEEL[self.wheel])

    def _letter(self):
        """The letter on the wheel, in its accented form."""
        return self._forms()[self.form] if self.form else WHEEL[self.wheel]

    def _typed(self, t_us):
        try:
            name = N.clean(self.typed)
        except N.BadName as e:
            return self._refuse(_short_why(e))
        if N.find(self.picked, name) >= 0:
            return self._refuse("%s plays already" % name)
        self.typed = None
        self._take(name, t_us)

    def back(self, t_us):
        app = self.app
        if self.typed is not None:
            if self.typed:
                self.typed = self.typed[:-1]
            else:
                self.typed = None  # out of the wheel, back to the list
            self.note = ""
            app.redraw()
        elif self.seat and not self.same:
            self.seat -= 1
            self.picked.pop()
            self._offer()
        else:
            back, self.back_to = self.back_to, None
            self.roster = self.items = None
            app.show(back)

    # ---- drawing --------------------------------------------------------------
    def draw(self, fb):
        if self.same:
            ui.title(fb, "Same players?")
            y = 11
            for p in self.last:
                ui.text(fb, p, 0, y, 1)
                y += 9
            ui.hint(fb, "OK: play DN:pick")
            return
        label = N.label(self.seat)
        if self.typed is not None:
            ui.title(fb, label + ": new name")
            ui.text(fb, self.typed, 0, 14, 1)
            w = self.wheel
            ch = RUB if w == len(WHEEL) else END if w == len(WHEEL) + 1 else self._letter()
            x = 8 * len(self.typed)
            fb.fill_rect(x, 13, 8 * len(ch) + 1, 10, 1)
            ui.text(fb, ch, x + 1, 14, 0)
            ui.center(fb, "UP/DOWN: letter", 28)
            if w < 52 and self._forms() is not None:
                ui.center(fb, "pad: accents", 37)
            ui.center(fb, "OK: add  BK: rub", 46)
            ui.hint(fb, self.note or "end: done", centred=True)
            return
        ui.title(fb, label + ": who?")
        ui.menu_rows(fb, self.items, self.cursor, self.top, 11)
        if self.note:
            fb.fill_rect(0, 55, ui.W, 9, 0)
            ui.hint(fb, self.note[:16])


def _short_why(e):
    s = str(e)
    if "unnamed seat" in s:
        return "name kept: seat"
    return s[:16]
