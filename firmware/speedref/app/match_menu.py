# The match the club's laptop gave this table, offered at the menu in place
# of the game list (speedref/match.py; docs/app.md, "The match").  One of
# the menu's own screens, as the name picker is: the menu shows it
# (menu.home) and hands it the game list for "Other game"; loaded only
# while a match is offered.
from . import ui
from .ui import Screen, UP, DOWN, OK, CLICK
from .. import games


class Match(Screen):
    """The match the club's laptop gave this table (speedref/match.py),
    numbered n on this board: its round and table in the title ("Round 2
    Table 3"), then a list: "Play <game>" (OK starts it, the seats named),
    each seat's player, the options the round sets, "Change seats" (the
    name picker, each seat offered its player first) and "Other game" (the
    game list, `other`, handed in by the menu; BACK too).  UP/DOWN move.
    `options`: the rows of the options the round sets ("Match: best of
    3"), worded by the menu as its options screen words them."""

    at_home = True

    def __init__(self, app, m, n, other, options):
        from .. import match as M
        from ..names import label, SEATS, GUEST
        self.app = app
        self.m = m
        self.n = n
        self.other = other
        self.head = M.title(m)
        g = games.get(m["game"])
        items = ["Play " + g.title]
        seats = m["names"]
        for i in range(len(seats)):
            p = seats[i]
            items.append(label(i) + " " + (GUEST if p in SEATS or p == GUEST else p))
        items += options  # the round's options, as the menu words them
        items.append(_SEATS)
        items.append(_OTHER)
        self.items = items
        self.cursor = 0
        self.top = 0

    def press(self, b, t_us):
        app = self.app
        if b == UP or b == DOWN:
            k = len(self.items)
            self.cursor = (self.cursor + (1 if b == DOWN else k - 1)) % k
            self.top = ui.scroll_top(self.cursor, self.top)
            app.redraw()
        elif b == OK:
            item = self.items[self.cursor]
            if item == _OTHER:
                app.sound(CLICK)
                app.show(self.other)
            elif item == _SEATS:
                app.sound(CLICK)
                self._pick(t_us)
            elif self.cursor == 0:
                app.sound(CLICK)
                self._play(t_us)

    def back(self, t_us):
        self.app.show(self.other)

    def _opts(self):
        from .. import match as M
        return M.game_opts(self.m, self.n)

    def _play(self, t_us):
        """The game, its seats named as the match says; they are this
        table's last players (the picker's "Same players?")."""
        from .. import roster as R
        opts = self._opts()
        R.remember(self.app, opts["names"])
        self.app.start_after(self.m["game"], t_us, opts)

    def _pick(self, t_us):
        from .who import Who
        from .. import roster as R
        opts = self._opts()
        scr = Who(self.app, self.m["game"], opts, len(opts["names"]), R.load(self.app),
                  first=opts["names"], back=self)
        self.app.show(scr)

    def draw(self, fb):
        ui.title(fb, self.head)
        ui.menu_rows(fb, self.items, self.cursor, self.top)


_SEATS = "Change seats"
_OTHER = "Other game"
