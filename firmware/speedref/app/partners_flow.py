# The partners referee flow (rules PT-1.. in seeds/partners.md) on the
# engine's table-level PartnersGame.  The table plays the cards and holds the
# auction; the referee is told the result and keeps seats, tricks and scores.
#
# The four pads stay where they are on the table: pad k is seat k.  Players
# (P1..P4, the record's names) start in seat = their number (PT-1) and may
# move when a partner is named (PT-8), so a pad press always means "the
# player sitting at this pad".  Phases of one hand:
#
#   DEALER     before hand 1: who deals first (PT-3)     pad, or UP/DOWN + OK
#   BID        the final bid, 7..13 (PT-4)                UP/DOWN, OK
#   TRUMP      its trump; notrump is the highest (PT-5)   UP/DOWN, OK
#   CONTRACTOR the player who won the auction (PT-7)      their pad
#   PARTNER    the contractor's partner (PT-8)            their pad
#   SWAP       "P2: go to pad 4, P4: go to pad 2" when the partner was not
#              opposite (PT-8/PT-9); seats then stay so (PT-17)        OK
#   TRICKS     the winner of each trick taps their pad (PT-13); after the
#              13th the hand is scored at once (PT-14..PT-16)
#   HAND       the hand's scores, made or failed, x2 when doubled      OK
#   TOTALS     running totals, the target, the next dealer (PT-17)
#              OK: next hand; DOWN: stop the game here (PT-20)
#   STOP       "Stop the game now?" OK: yes; UP/DOWN: no
#   FINAL      winner (PT-19) or the early end (PT-20); OK: store the record
#
# Every score comes from the engine; this module only sequences entries.
# Undo (pause menu) takes back one entry: a trick, the contract (with its
# seat swap), the partner/contractor/trump/bid steps, the first dealer, or a
# finished hand (back to its 13th trick).  A trick or a hand is taken back
# by replaying the entries through the engine (as a resume does); the
# contract by the engine's undo.  State is saved at hand boundaries.
#
# A method whose `def` line ends in `# verdict` decides a verdict or says it
# (make mutate mutates those: docs/testing.md, "The flows' verdicts").
from ..engine import partners
from ..engine.errors import RuleError
from . import ui
from ..names import for_game, fit, short as cut
from .core import Flow, UP, DOWN, OK, CLICK, CALL, WIN, ERROR

from micropython import const

DEALER = const(0)
BID = const(1)
TRUMP = const(2)
CONTRACTOR = const(3)
PARTNER = const(4)
SWAP = const(5)
TRICKS = const(6)
HAND = const(7)
TOTALS = const(8)
STOP = const(9)
FINAL = const(10)

_PAD_NAMES = const(("pad 1", "pad 2", "pad 3", "pad 4"))
# Screen words for partners.TRUMPS (same order): long on the trump screen,
# short next to the bid.
TRUMP_WORDS = ("Clubs", "Diamonds", "Hearts", "Spades", "No trump")
_TRUMP_SHORT = const(("C", "D", "H", "S", "NT"))
NUM = tuple(str(i) for i in range(14))  # trick counts and bids, made once


class PartnersFlow(Flow):
    GAME = "partners"
    PHASES = FINAL + 1  # its phases are 0..FINAL (the conformance tests reach and draw each)

    def __init__(self, app, opts, now_us, state=None):
        self.app = app
        self.opts = opts
        self.target = opts["target"]
        # The players' names, by player (not by pad): a name follows its
        # player when a partner's choice moves them to another pad (PT-8).
        # The score grid's cells have room for 3 characters (2 beside a
        # three-digit total), cut once here: a trick's redraw allocates nothing.
        self.names = NAMES = for_game(opts, 4)
        self.cut3 = tuple(cut(n, 3) for n in NAMES)
        self.cut2 = tuple(cut(n, 2) for n in NAMES)
        # A game object exists from the start, so a bad target is refused
        # (PT-18 RuleError) before anything is shown.
        self.game = partners.PartnersGame(self.target, self.names)
        self.first = None      # the first dealer, once the table has chosen
        self.hands = []        # per finished hand [bid, trump, contractor, partner, [winners]]
        self.pick = 0          # the dealer shown on the DEALER screen
        self.bid = partners.MIN_BID
        self.trump = 0         # index into partners.TRUMPS
        self.contractor = 0
        self.note = ""         # one line of news (a refused entry)
        self.stopped = False   # FINAL reached by stopping early (PT-20)
        self.phase = DEALER
        if state is None:
            self._save()  # a power cut before the first hand resumes too
            return
        if state["first"] is not None:
            try:
                self._restore(state["first"], state["hands"])
            except (IndexError, AttributeError) as e:
                # a save of another shape (another version): say so, no crash
                raise RuleError("PT-21", "saved game unreadable: %r" % (e,))

    def _restore(self, first, hands):
        self.first = first
        self.hands = [list(h) for h in hands]
        self._replay(None, ())
        if self.game.over:
            self.phase = FINAL
        elif hands:
            self.phase = TOTALS  # show where the game stands first
        else:
            self._new_hand()

    def _replay(self, contract, seq):
        """A new game from the finished hands, then `contract` and the trick
        winners `seq` of the hand in progress.  Everything goes through the
        engine's own entries, so a resumed game is checked by the same rules
        and the seats come out as the partner choices made them (PT-8)."""
        g = partners.PartnersGame(self.target, self.names, self.first)
        for h in self.hands:
            g.set_contract(h[0], h[1], h[2], h[3])
            for w in h[4]:
                g.trick(w)
            g.finish_hand()
        if contract is not None:
            g.set_contract(contract[0], contract[1], contract[2], contract[3])
            for w in seq:
                g.trick(w)
        self.game = g

    # ---- the flow interface (docs/app.md) -------------------------------
    def press(self, b, t_us):
        self._PRESS[self.phase](self, b, t_us)

    # one handler a phase (as drawing has one screen a phase): b is a pad
    # (0..3: the player sitting at it), UP, DOWN or OK
    def _press_dealer(self, b, t_us):
        if b < UP:
            self.pick = b  # seats are still player = seat before hand 1
            self._choose_dealer()
        elif b == OK:
            self._choose_dealer()
        elif b == UP or b == DOWN:
            self.pick = (self.pick + (1 if b == UP else -1)) % 4
            self.app.redraw()

    def _press_bid(self, b, t_us):
        if b == OK:
            self.app.sound(CLICK)
            self._to(TRUMP)
        elif b == UP or b == DOWN:
            v = self.bid + (1 if b == UP else -1)
            if partners.MIN_BID <= v <= partners.TRICKS:  # PT-4: 7..13
                self.bid = v
                self.app.redraw()

    def _press_trump(self, b, t_us):
        if b == OK:
            self.app.sound(CLICK)
            self._to(CONTRACTOR)
        elif b == UP or b == DOWN:
            self.trump = (self.trump + (1 if b == UP else -1)) % 5
            self.app.redraw()

    def _press_contractor(self, b, t_us):  # verdict
        if b < UP:
            self._contractor(self.game.seats[b])

    def _press_partner(self, b, t_us):  # verdict
        if b < UP:
            self._partner(self.game.seats[b])

    def _press_swap(self, b, t_us):
        if b == OK:
            self.app.sound(CLICK)
            self._to(TRICKS)

    def _press_tricks(self, b, t_us):  # verdict
        if b < UP:
            self._trick(b)

    def _press_hand(self, b, t_us):
        if b == OK:
            self._to(FINAL if self.game.over else TOTALS)

    def _press_totals(self, b, t_us):
        if b == OK:
            self._new_hand()
        elif b == DOWN:
            self._to(STOP)

    def _press_stop(self, b, t_us):
        if b == OK:
            self.stopped = True
            self.app.sound(WIN)
            self._to(FINAL)
        elif b == UP or b == DOWN:
            self._to(TOTALS)

    def _press_final(self, b, t_us):
        if b == OK:
            rec = self.game.to_record()
            if self.stopped:
                rec["stopped"] = True  # PT-20: the table agreed to stop here
            self.app.finish(rec)
            self.app.close()

    # indexed by phase: DEALER, BID, TRUMP, CONTRACTOR, PARTNER, SWAP, TRICKS, HAND, TOTALS, STOP, FINAL
    _PRESS = (_press_dealer, _press_bid, _press_trump, _press_contractor, _press_partner,
              _press_swap, _press_tricks, _press_hand, _press_totals, _press_stop, _press_final)

    # release, tick and interrupt: Flow's, which do nothing (every entry is
    # a press, nothing is timed in partners)

    def can_undo(self):
        return self.phase != DEALER

    def undo(self, now_us):
        ph = self.phase
        g = self.game
        self.note = ""
        if ph == TRICKS and g.tricks_played:
            # The last trick: the hand is replayed without it (the engine's
            # own undo pops a bytearray, which MicroPython cannot do).
            self._replay(g.contract, list(g.winners_seq)[:-1])
            self.app.redraw()
        elif ph == TRICKS or ph == SWAP:
            g.undo()  # the contract, and its seat swap with it
            self._to(PARTNER)
        elif ph == PARTNER:
            self._to(CONTRACTOR)
        elif ph == CONTRACTOR:
            self._to(TRUMP)
        elif ph == TRUMP:
            self._to(BID)
        elif ph == FINAL and self.stopped:
            self.stopped = False
            self._to(TOTALS)
        elif ph == BID and not g.hands_played:
            # PT-23: no first dealer any more, on flash too
            self.pick = g.dealer  # the cursor stays on the dealer taken back
            self.first = None
            self.game = partners.PartnersGame(self.target, self.names)
            self._save()
            self._to(DEALER)
        elif g.hands_played:  # BID, HAND, TOTALS, STOP, FINAL
            self._undo_hand()

    # ---- steps -----------------------------------------------------------
    def _choose_dealer(self):
        # PT-3: the table chooses the first dealer.  A new game object: no
        # hand has been entered yet.
        self.game = partners.PartnersGame(self.target, self.names, self.pick)
        self.first = self.pick
        self.app.sound(CLICK)
        self._save()
        self._new_hand()

    def _new_hand(self):
        self.bid = partners.MIN_BID
        self.trump = 0
        self.note = ""
        self._to(BID)

    def _contractor(self, p):  # verdict
        if not self.game.contract_possible(self.bid, partners.TRUMPS[self.trump], p):
            # PT-24: 7 in a suit is the dealer's contract only.  Refused,
            # nothing changes: the dealer's pad, or undo back to the bid.
            self.note = "7%s: dealer only" % _TRUMP_SHORT[self.trump]
            self.app.sound(ERROR)
            self.app.redraw()
            return
        self.contractor = p
        self.note = ""
        self.app.sound(CLICK)
        self._to(PARTNER)

    def _partner(self, p):  # verdict
        g = self.game
        if p == self.contractor:
            # PT-8: not their own partner.  Refused, nothing changes.
            self.note = fit("not ", self.names[p], "! (PT-8)")
            self.app.sound(ERROR)
            self.app.redraw()
            return
        swap = g.set_contract(self.bid, partners.TRUMPS[self.trump], self.contractor, p)
        self.note = ""
        self.app.emit({"ev": "contract", "game": "partners", "hand": g.hands_played + 1,
                       "dealer": g.dealer, "contractor": self.contractor, "partner": p,
                       "bid": self.bid, "trump": partners.TRUMPS[self.trump],
                       "swap": None if swap is None else list(swap), "seats": list(g.seats)})
        if swap is None:
            self.app.sound(CLICK)
            self._to(TRICKS)
        else:
            self.app.sound(CALL)
            self._to(SWAP)

    def _trick(self, pad):  # verdict
        g = self.game
        g.trick_at_seat(pad)
        self.app.redraw()
        if g.tricks_played < partners.TRICKS:
            self.app.sound(CLICK)
            return
        seq = list(g.winners_seq)
        g.finish_hand()  # PT-14..PT-16 scores; next dealer PT-17; the end PT-18/19
        hand, scores, doubled = g.last_hand()
        self.hands.append([hand["bid"], hand["trump"], hand["contractor"], hand["partner"], seq])
        line = {"ev": "hand", "game": "partners", "hand": g.hands_played, "scores": scores,
                "doubled": doubled, "totals": list(g.totals), "next_dealer": g.dealer,
                "over": g.over}
        for k in hand:
            line[k] = hand[k]
        self.app.emit(line)
        self.app.sound(WIN)
        self._save()
        self._to(HAND)

    def _undo_hand(self):
        # The last finished hand comes back with its contract and tricks; its
        # last entry was the 13th trick, so that is what is taken back.
        n = self.game.hands_played
        h = self.hands.pop()
        self._replay(h, h[4][:-1])
        self.bid = h[0]
        self.trump = partners.TRUMPS.index(h[1])
        self.contractor = h[2]
        self.stopped = False
        self._log_undo("hand", n)
        self._save()
        self._to(TRICKS)

    def _save(self):
        self.app.save(self, {"first": self.first, "hands": self.hands})

    # ---- screens: one per phase ------------------------------------------
    def _draw_dealer(self, fb):
        ui.title(fb, "Partners to %d" % self.target)
        ui.center(fb, "Who deals first?", 13)
        ui.big_center(fb, self.names[self.pick], 24, 3)
        ui.hint(fb, "tap pad, or OK")

    def _draw_bid(self, fb):
        g = self.game
        ui.title(fb, "Hand %d" % (g.hands_played + 1))
        ui.text(fb, fit("Dealer: ", self.names[g.dealer]), 0, 12, 1)
        fb.text("Final", 0, 28, 1)
        fb.text("bid", 0, 37, 1)
        ui.big(fb, str(self.bid), 56, 22, 3)
        ui.row(fb, 4, "BACK: undo/quit")
        ui.hint(fb, "UP/DOWN  OK")

    def _draw_trump(self, fb):
        ui.title(fb, "Hand %d: trump" % (self.game.hands_played + 1))
        ui.center(fb, "Bid %d:" % self.bid, 13)
        ui.big_center(fb, TRUMP_WORDS[self.trump], 26, 2)
        ui.hint(fb, "UP/DOWN  OK")

    def _draw_tap(self, fb):
        # who won the bid (CONTRACTOR), then who is their partner (PARTNER)
        ui.title(fb, "%d %s" % (self.bid, TRUMP_WORDS[self.trump]))
        if self.phase == CONTRACTOR:
            ui.center(fb, "Who won the bid?", 14)
            ui.big_center(fb, "TAP", 26, 2)
            ui.center(fb, "your pad", 44)
        else:
            n = self.names[self.contractor]
            if len(n) <= 5:
                ui.center(fb, n + "'s partner?", 14)
                ui.big_center(fb, "TAP", 26, 2)
                ui.center(fb, "your pad", 44)
            else:  # a longer name on a line of its own
                ui.center(fb, "Partner of", 11)
                ui.center(fb, n + "?", 20)
                ui.big_center(fb, "TAP", 29, 2)
                ui.center(fb, "your pad", 46)
        if self.note:
            ui.hint(fb, self.note, centred=True)

    def _draw_swap(self, fb):
        g = self.game
        a, b = g.swap
        ui.title(fb, "Swap seats!")
        na = self.names[a]
        nb = self.names[b]
        ui.big_center(fb, "%s<>%s" % (cut(na, 7), cut(nb, 7)), 13, 2)
        ui.text(fb, fit("", na, ": go to " + _PAD_NAMES[g.seat_of(a)])
                if len(na) <= 3 else fit("", na, ": " + _PAD_NAMES[g.seat_of(a)]), 0, 33, 1)
        ui.text(fb, fit("", nb, ": go to " + _PAD_NAMES[g.seat_of(b)])
                if len(nb) <= 3 else fit("", nb, ": " + _PAD_NAMES[g.seat_of(b)]), 0, 43, 1)
        ui.hint(fb, "then OK")

    def _draw_tricks(self, fb):
        # Drawn in pieces from preallocated strings: a trick press (the
        # event repeated 13 times a hand) leaves no garbage behind.
        g = self.game
        bid, trump, c, p = g.contract
        n = NUM[g.tricks_played + 1]
        x = (ui.W - 8 * (12 + len(n))) // 2  # "Trick n of 13" centred
        ui.bar(fb)  # the title bar (ui.title)
        fb.text("Trick", x, 1, 0)
        fb.text(n, x + 48, 1, 0)
        fb.text("of 13", x + 56 + 8 * len(n), 1, 0)
        _grid(fb, self, g.tricks, c, p)
        ui.row(fb, 4, "Bid")
        ui.row(fb, 4, NUM[bid], 32)
        ui.row(fb, 4, _TRUMP_SHORT[self.trump], 32 + 8 * len(NUM[bid]))
        ui.row(fb, 4, "side", 72)
        ui.row(fb, 4, NUM[g.tricks[c] + g.tricks[p]], 112)
        ui.hint(fb, "winner: tap pad")

    def _draw_hand(self, fb):
        g = self.game
        hand, scores, doubled = g.last_hand()
        t = hand["tricks"]
        c = hand["contractor"]
        p = hand["partner"]
        made = t[c] + t[p] >= hand["bid"]
        s = "Hand %d %s%s" % (g.hands_played, "made" if made else "failed",
                              " x2" if doubled else "")
        ui.title(fb, s if len(s) <= 16 else s[5:])  # PT-16: x2 = doubled
        _grid(fb, self, scores, c, p)
        ui.row(fb, 4, "bid %d, took %d" % (hand["bid"], t[c] + t[p]))
        ui.hint(fb, "OK: totals")

    def _draw_totals(self, fb):
        # the running totals (TOTALS), and the question to stop there (STOP)
        g = self.game
        ui.title(fb, "Totals (to %d)" % self.target)
        _grid(fb, self, g.totals, -1, -1)
        if self.phase == STOP:
            ui.row(fb, 4, "Stop game now?")
            ui.hint(fb, "OK=yes  UP=no")
        else:
            if max(g.totals) >= self.target:
                ui.row(fb, 4, "Tie: play on!")  # PT-19
            else:
                ui.row(fb, 4, fit("Next: ", self.names[g.dealer], " deals"))
            ui.hint(fb, "OK next DOWN end")

    def _draw_final(self, fb):
        g = self.game
        ui.title(fb, "Game over" if g.over else "Game stopped")
        _grid(fb, self, g.totals, -1, -1)
        w = g.winners()
        if len(w) == 1:
            ui.row(fb, 4, fit("", self.names[w[0]], " wins!"))
        else:
            # PT-20: shared by the tied top ("Shared: P3 P4")
            s = " ".join([self.cut3[p] for p in w])
            ui.row(fb, 4, "All four share" if len(w) == 4 else fit("Shared: ", s))
        ui.hint(fb, "OK: save & end")

    # indexed by phase: DEALER, BID, TRUMP, CONTRACTOR, PARTNER, SWAP, TRICKS,
    # HAND, TOTALS, STOP, FINAL
    _SCREENS = (_draw_dealer, _draw_bid, _draw_trump, _draw_tap, _draw_tap, _draw_swap,
                _draw_tricks, _draw_hand, _draw_totals, _draw_totals, _draw_final)

def _grid(fb, flow, nums, c, p):
    """The four players' numbers in a 2x2 grid, P1 P2 / P3 P4, digits at
    scale 2 (a three-digit total still fits a 64-pixel cell).  The contract
    side's names are inverted.  A name shows its first 3 characters (2
    beside a three-digit number)."""
    for k in range(4):
        x = 64 * (k & 1)
        y = 11 + 18 * (k >> 1)
        v = nums[k]
        s = NUM[v] if v < 14 else str(v)
        name = flow.cut2[k] if len(s) == 3 else flow.cut3[k]
        if k == c or k == p:
            fb.fill_rect(x, y + 3, 8 * len(name) + 1, 10, 1)
            ui.text(fb, name, x + 1, y + 4, 0)
        else:
            ui.text(fb, name, x + 1, y + 4, 1)
        if len(s) < 3:
            ui.big(fb, s, x + 64 - 16 * len(s), y, 2)
        elif len(s) == 3:
            # three digits at scale 2, 14 px apart: three pixels clear of
            # this cell's name and four of the next one's ("P4 114" and
            # "105 P2", never "P4114" or "105P2")
            for i in range(3):
                ui.big(fb, s[i], x + 18 + 14 * i, y, 2)
        else:
            fb.text(s, x + 64 - 8 * len(s), y + 4, 1)
