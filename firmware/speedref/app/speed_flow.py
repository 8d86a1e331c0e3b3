# The Speed referee flow (rules SP-1.. in seeds/speed.md), on the engine's
# table-level SpeedMatch/SpeedDeal, for 2, 3 or 4 players (SP-27: the menu's
# Players, the `seats` option), one pad each.  Phases of one deal:
#
#   LAYOUT   how to lay out the cards (SP-2/SP-3, SP-28/SP-29)   OK or a pad: next
#   READY    each player taps their pad when ready (SP-6, SP-30)
#   COUNT    3-2-1 beeps, GO at ready+3 s exactly: flip the start cards.
#            A pad press before GO is a false start: counted, logged, READY again.
#   PLAY     hold your pad = "stuck" (release = not stuck any more); all
#            stuck -> FLIP (or REBUILD first when the reserves are empty,
#            SP-15, SP-31, SP-32).  Tap your pad = "I'm out" (SP-16); with
#            slap-to-win the tap is the slap and the arbiter decides who was
#            first among every pad by timestamp (SP-17, SP-34).
#   FLIP     3-2-1, FLIP: everyone turns a reserve card (SP-14).  DOWN: "the
#            rebuilt reserves are empty" -> REBUILD.
#   REBUILD  keep every pile's top card, shuffle the rest into a reserve a
#            player; OK.
#   CLAIM    "P1 is out?" (SP-16, SP-33).  A pad press that begins less than
#            CLAIM_WAIT_US after the question appeared is a reflex and means
#            nothing.  Later: any other player holds their pad 0.5 s = yes
#            (LEFT), taps it = no (the claim is rejected, play goes on); the
#            first answer counts.  The claimant taps to withdraw it.
#   LEFT     each loser's cards left in seat order, UP/DOWN within the
#            layout's bounds (SP-18, SP-35), OK after each.
#   NEXT     match totals, OK: next deal.    FINAL  the result; OK: store it.
#
# Undo (pause menu) takes back the last entry: a flip/rebuild, a claim or its
# rejection, a count, or the whole previous deal.  Within a deal the entries
# are kept as a short code string and the deal is rebuilt from it, so undo
# uses only the engine's public API.  State is saved to flash at every deal
# boundary.
#
# A method whose `def` line ends in `# verdict` decides a verdict or says it
# (make mutate mutates those: docs/testing.md, "The flows' verdicts").
#
# Every count of players comes from `seats`; the two-player screens are the
# ones they always were (their frames are recorded), and three or four
# players get the same screens laid out for more.
from ..ticks import ticks_diff, ticks_add
from ..engine import speed
from ..engine.errors import RuleError, is_int
from ..arbiter import Race
from . import ui
from ..names import for_game, fit
from .timing import Countdown, PadHold, OFF, press_countdown
from .core import Flow, UP, DOWN, OK, GO, FOUL, CALL, WIN, CLICK, ERROR
from ..tunables import SPEED_HOLD_US, CLAIM_WAIT_US

from micropython import const

LAYOUT = const(0)
READY = const(1)
COUNT_DOWN = const(2)
PLAY = const(3)
FLIP = const(4)
REBUILD = const(5)
CLAIM = const(6)
LEFT = const(7)
NEXT = const(8)
FINAL = const(9)

# The play screen's "P1 STUCK" is 8 characters: two players fit on a line.
_PER_LINE = const(2)
# The players' names, one a pad (the device has four), sliced to the seats:
# constants, so a game's names take no heap of their own.
_NAMES = ("P1", "P2", "P3", "P4")
# pages of news for App.news (the display sends them first): the title's
# text, the bottom line (y 56), a note at y 52
_TOP = const(0x01)
_FOOT = const(0x80)
_NOTE = const(0xC0)


def match_of(opts):
    """SpeedMatch's match for the menu's Match and Target options (SP-19):
    a single deal, the best of 3, or to Target points ("auto": 25 for each
    other player, SP-36)."""
    m = opts["match"]
    if m == "single":
        return {"single": True}
    if m == "best_of":
        return {"best_of": 3}
    t = opts["target"]
    return {"target": speed.default_target(opts.get("seats", 2)) if t == "auto" else t}


def _scores(t):
    """Totals as one line: "12-3", "12-3-0-7"."""
    return "-".join([str(x) for x in t])


class SpeedFlow(Flow):
    GAME = "speed"
    PHASES = FINAL + 1  # its phases are 0..FINAL (the conformance tests reach and draw each)
    SEAT_RANGE = (2, 4)  # (fewest, most) players these screens referee (SP-27)

    def __init__(self, app, opts, now_us, state=None):
        n = opts.get("seats", self.SEAT_RANGE[0])
        speed.check_seats(n)
        self.seats = n
        self.app = app
        self.opts = opts
        # The record names the players (the picker's names); the screens,
        # drawn for a pad's 2-character label, keep the seat labels.
        self.match = speed.SpeedMatch(opts["layout"], match_of(opts), for_game(opts, n),
                                      opts["jokers"], opts["doubles"], opts["hand_limit"], opts["slap_to_win"])
        self.names = _NAMES[:n]
        self.race = Race(n, app.tie_window_us(opts["tie_ms"]))
        # Pads: preallocated so a press in a race allocates nothing.  A press
        # is live (may become a tap or a hold) when it began in PLAY.
        self.pads = [PadHold(SPEED_HOLD_US, app) for _ in range(n)]
        self.false_starts = [0] * n
        self.countdown = Countdown(app)  # the start (COUNT_DOWN) and every FLIP
        self.racing = False    # a slap-to-win race is open or its verdict pending
        self.race_t = 0        # when it opened
        self.verdict = None    # slap-to-win verdict waiting for the winner to let go
        self.tied = 0          # the pads tied in the last slap (a bit a seat): only they
        #                        slap again until the tie is settled (SP-34); 0: every pad
        self.slap_text = ""
        self.note = ""         # one line of news for the screen (false start, tie, ...)
        self.left = 0          # LEFT: the count on screen, player `loser`'s
        self.loser = 0         # LEFT: whose cards are being counted
        self.counts = [0] * n  # LEFT: every player's count so far (the winner's 0)
        self.entries = ""      # this deal's entries: F flip, R rebuild, E reserves out,
        #                        0..3 a player's claim, X the claim rejected
        self.claim_t = 0       # CLAIM: when the question appeared
        self.codes = []        # each counted deal's entries, so undo restores its flips
        if state is not None:
            self._restore(state)
        self._new_deal()
        if state is None:
            self._save()  # a power cut in deal 1 can be resumed too

    def _restore(self, state):
        """A saved game, every part checked before it is used (a save of
        another shape is refused with a RuleError, never a crash later):
        each deal's entries replay to its winner's claim (SP-23), then the
        deal counts by the engine's rules (SP-20, SP-35); the false starts
        are one count a player (SP-22)."""
        n = self.seats
        deals = state["deals"]
        fs = self._saved_counts(state["false_starts"], n, "SP-22")
        codes = state.get("codes")
        if codes is None:  # a save from before codes were kept: the claims alone
            codes = [str(w) if is_int(w) and 0 <= w < n else "" for w, _ in deals]
        if type(codes) is not list or len(codes) != len(deals):
            raise RuleError("SP-23", "saved deal entries unreadable")
        for i in range(len(deals)):
            w, left = deals[i]
            d = _replay(self.match.new_deal(), codes[i])
            if d.phase != "claim" or d.claimant != w:
                raise RuleError("SP-23", "saved deal %d: its entries end in no claim of its winner"
                                % (i + 1))
            self.match.add_deal(w, left)
        self.false_starts = fs
        self.codes = list(codes)

    # ---- the flow interface (docs/app.md) -------------------------------
    def press(self, b, t_us):
        if b < UP:
            if b >= self.seats:
                return  # a pad nobody sits at
            # down, and live only where the phase's handler says so
            self.pads[b].press(t_us, False)
        self._PRESS[self.phase](self, b, t_us)

    # one handler a phase (as drawing has one screen a phase): b is a pad
    # of a player (0..seats-1), UP, DOWN or OK
    def _press_layout(self, b, t_us):
        if b < UP or b == OK:
            self._to(READY)

    def _press_ready(self, b, t_us):
        if b >= UP:
            return
        if self.deal.ready(b):
            self.countdown.start(t_us)
            self.note = ""
            self.phase = COUNT_DOWN
            self.tick(t_us)
        else:
            self.app.sound(CALL)
        self.app.redraw()

    def _press_play(self, b, t_us):  # verdict
        if b >= UP or self.countdown.at_go(t_us):
            # SP-25: down at the GO instant (the start's or a flip's):
            # pressed before GO could be heard, it is no play at all
            return
        self.pads[b].press(t_us, True)
        if self.match.slap_to_win:
            if self.tied and not self.tied >> b & 1:
                # SP-34: the tied players slap again, nobody else; the
                # press may still become a stuck call
                self.app.emit({"ev": "slap_ignored", "game": "speed", "deal": self.match.hands_played + 1,
                               "seat": b, "tie": self._tied_seats()})
                return
            if not self.racing:
                self.race.open(t_us, self.tied)  # the first slap opens the race
                self.race_t = t_us
                self.racing = True
            self.race.press(b, t_us)

    def _press_flip(self, b, t_us):
        if b == DOWN and self.deal.reserve_left is None:
            self.deal.reserves_out()
            self.entries += "E"
            self._to(REBUILD)

    def _press_rebuild(self, b, t_us):
        if b == OK:
            self.deal.rebuild(None)
            self.entries += "R"
            self._start_flip(t_us)

    def _press_claim(self, b, t_us):  # verdict
        if b >= UP:
            return
        # SP-16: a press this soon after the question is a reflex to the
        # out tap, not an answer: it means nothing.
        live = ticks_diff(t_us, self.claim_t) >= CLAIM_WAIT_US
        pad = self.pads[b]
        pad.press(t_us, live)
        if live and b == self.deal.claimant:
            pad.cancel()
            self._undo_entry()  # the claimant withdraws

    def _press_left(self, b, t_us):
        if b == OK:
            self._counted(t_us)
        elif b == UP or b == DOWN:
            lo, hi = self.deal.left_bounds()
            v = self.left + (1 if b == UP else -1)
            if lo <= v <= hi:
                self.left = v
                self.app.redraw()

    def _press_next(self, b, t_us):
        if b == OK:
            self._new_deal()
            self.app.redraw()

    def _press_final(self, b, t_us):
        if b == OK:
            self.app.finish(self.match.to_record())
            self.app.close()

    # indexed by phase: LAYOUT, READY, COUNT_DOWN, PLAY, FLIP, REBUILD, CLAIM, LEFT, NEXT, FINAL
    _PRESS = (_press_layout, _press_ready, press_countdown, _press_play, _press_flip,
              _press_rebuild, _press_claim, _press_left, _press_next, _press_final)

    def release(self, b, t_us):  # verdict
        if b >= self.seats:
            return
        was_tap = self.pads[b].release(t_us)
        if self.phase == CLAIM and was_tap and b != self.deal.claimant:
            if not self._answer_begun_before(b):
                self._reject()  # SP-16, SP-33: another player says no
            return
        if self.phase != PLAY:
            return
        if self.deal.is_stuck(b):
            self.deal.unstuck(b)  # they found a play after all
            self.app.redraw()
        elif was_tap:
            if self.match.slap_to_win:
                if self.racing:
                    self._settle_slap(t_us)
            else:
                self._claim(b, t_us)

    def tick(self, now_us):  # verdict
        ph = self.phase
        if ph == COUNT_DOWN and self.countdown.resumes(now_us):
            self._called_off_over()
        elif ph == COUNT_DOWN or ph == FLIP:
            self._count(now_us)
        elif ph == PLAY:
            for p in range(self.seats):
                if self.pads[p].held(now_us):
                    self._held(p, now_us)
                    if self.phase != PLAY:
                        return
            if self.racing:
                self._settle_slap(now_us)
        elif ph == CLAIM:
            c = self.deal.claimant
            for q in range(self.seats):
                if q != c and self.pads[q].held(now_us):
                    # SP-16, SP-33: another player held: yes (the first answer)
                    self._start_count()
                    self.app.sound(CLICK)
                    self._to(LEFT)
                    return

    # ---- screens: one per phase ------------------------------------------
    def _draw_layout(self, fb):
        # SP-2/SP-3: the dealt hand is 5 cards in both layouts (SP-5); a
        # reserve and a start card a player (SP-29)
        d = self.deal
        n = self.seats
        per = speed.cards_per_player(d.layout, d.jokers)
        r = speed.reserve_size(d.layout)
        ui.title(fb, "Deal %d: lay out" % (self.match.hands_played + 1))
        if d.layout == "pagat":
            ui.row(fb, 0, "Each: %d cards" % per)
            ui.row(fb, 1, "top 5 = hand")
        else:
            ui.row(fb, 0, "Each: 5 hand")
            ui.row(fb, 1, "+ %d stock" % (per - 5))
        ui.row(fb, 2, "%d reserves of %d" % (n, r))
        ui.row(fb, 3, "+ %d start cards" % n)
        if n > 2:
            # SP-28: more players than one deck serves: the cards to gather
            ui.row(fb, 4, "%d cards in all" % speed.deck_size(n, d.jokers))
        else:
            ui.row(fb, 4, "BACK: undo/quit")
        ui.hint(fb, "OK: next")

    def _draw_ready(self, fb):
        d = self.deal
        n = self.seats
        names = self.names
        ui.title(fb, "Deal %d: ready?" % (self.match.hands_played + 1))
        if n < 4:  # a column a player: the mark big over the name
            col = ui.W // n
            k = 3 if col >= 48 else 2  # the scale: "OK" is 16 pixels wide at 1
            y = 20 if k == 3 else 24
            for p in range(n):
                x = col * p
                ui.big(fb, "OK" if d.is_ready(p) else "..", x + (col - 16 * k) // 2, y, k)
                fb.text(names[p], x + (col - 16) // 2, 46, 1)
        else:  # four columns are too narrow for big marks
            for p in range(n):
                self._cell(fb, p, "OK" if d.is_ready(p) else "..", 13, 20)
        ui.hint(fb, self.note or "tap pad if ready")

    def _cell(self, fb, p, s, y0, dy):
        """Player p's place in two rows of two (four players): the name,
        then `s` big (smaller when it is wider than the place)."""
        x = 64 * (p % _PER_LINE)
        y = y0 + dy * (p // _PER_LINE)
        fb.text(self.names[p], x + 4, y + 4, 1)
        k = 2 if 16 * len(s) <= 36 else 1
        ui.big(fb, s, x + 26, y + 8 - 4 * k, k)

    def _draw_countdown(self, fb):
        # the start (COUNT_DOWN) and a reserve flip (FLIP)
        flip = self.phase == FLIP
        ui.title(fb, "Flip reserves" if flip else "Start cards")
        ui.big_center(fb, self.countdown.face("GO"), 14, 5)
        if self.countdown.cue == OFF:  # called off by a false start (SP-22)
            ui.hint(fb, self.note)
        if flip and self.deal.reserve_left is None:
            ui.hint(fb, "DOWN: none left")

    def _draw_play(self, fb):
        d = self.deal
        m = self.match
        n = self.seats
        t = "Deal %d  %s" % (m.hands_played + 1, _scores(m.totals))
        if len(t) > 16:  # four totals of two digits
            t = "D%d %s" % (m.hands_played + 1, _scores(m.totals))
        ui.title(fb, t)
        fb.text("Flips", 0, 14, 1)
        ui.big(fb, str(d.flips), 48, 12, 2)
        fb.text("Reserve: %s" % ("?" if d.reserve_left is None else d.reserve_left), 0, 30, 1)
        y0 = 40 if n <= _PER_LINE else 39  # two lines of players: a pixel clear of the hint
        for p in range(n):  # who is stuck, two players a line: left and right
            y = y0 + 8 * (p // _PER_LINE)
            if n > _PER_LINE:
                # "P3 STUCK" twice fills a line: each label and its word
                # are drawn 3 px apart, so the two players stand apart
                self._stuck_entry(fb, p, d.is_stuck(p), y)
                continue
            s = "%s STUCK" % self.names[p] if d.is_stuck(p) else "%s -" % self.names[p]
            fb.text(s, 0 if p % _PER_LINE == 0 else ui.W - 8 * len(s), y, 1)
        if n > _PER_LINE:  # the players take the line of the hold hint
            ui.hint(fb, self.note or "tap pad: out")
        elif self.note:
            fb.text(self.note, 0, 52, 1)
        else:
            fb.text("hold pad: stuck", 0, 48, 1)
            ui.hint(fb, "tap pad: out")

    def _stuck_entry(self, fb, p, stuck, y):
        # one player of two on a line (three or four players): the label,
        # a 3 px space, the word; the left half from the left edge, the
        # right half up to the right one (59 px each at most: a 10 px gap)
        word = "STUCK" if stuck else "-"
        w = 16 + 3 + 8 * len(word)
        x = 0 if p % _PER_LINE == 0 else ui.W - w
        fb.text(self.names[p], x, y, 1)
        fb.text(word, x + 19, y, 1)

    def _draw_rebuild(self, fb):
        n = self.seats
        ui.title(fb, "Rebuild reserves")
        y = 12
        for line in ("Keep both tops." if n == 2 else "Keep all %d tops." % n, "Shuffle the rest",
                     "into %d reserves." % n, "Then OK: flip"):
            fb.text(line, 0, y, 1)
            y += 11

    def _draw_claim(self, fb):
        c = self.deal.claimant
        names = self.names
        ui.title(fb, "%s is out?" % names[c])
        if self.slap_text:
            ui.center(fb, self.slap_text, 14)
        ui.big_center(fb, names[c], 23, 2)
        others = [names[q] for q in range(self.seats) if q != c]
        if len(others) == 1:
            fb.text("%s hold: yes" % others[0], 0, 40, 1)
            fb.text("%s tap: no" % others[0], 0, 48, 1)
        else:  # SP-33: any of them answers, the first answer counts
            fb.text("%s or %s:" % (", ".join(others[:-1]), others[-1]), 0, 40, 1)
            fb.text("hold yes, tap no", 0, 48, 1)
        ui.hint(fb, "%s tap: withdraw" % names[c])

    def _draw_left(self, fb):
        ui.title(fb, "%s cards left" % self.names[self.loser])
        ui.big_center(fb, str(self.left), 14, 4)
        if self.seats > 2:
            # SP-35: the other losers' counts, entered ("P1 12") or to come ("P4 ?")
            out = []
            for p in range(self.seats):
                if p != self.deal.claimant and p != self.loser:
                    out.append("%s %s" % (self.names[p], self.counts[p] if p < self.loser else "?"))
            ui.center(fb, "  ".join(out), 47)
        ui.hint(fb, "UP/DOWN  OK", centred=True)

    def _draw_score(self, fb):
        # between deals (NEXT) and the match's end (FINAL)
        m = self.match
        n = self.seats
        final = self.phase == FINAL
        ui.title(fb, "Match over" if final else "After deal %d" % m.hands_played)
        t = m.wins if m.format == "best_of" else m.totals
        y = 44
        if n == 2:
            ui.big_center(fb, _scores(t), 14, 3)
        elif n == 3:  # a column a player: the total big over the name
            col = ui.W // n
            for p in range(n):
                s = str(t[p])
                k = 2 if 16 * len(s) <= col - 4 else 1
                ui.big(fb, s, col * p + (col - 8 * k * len(s)) // 2, 14 + 8 * (2 - k), k)
                fb.text(self.names[p], col * p + (col - 16) // 2, 32, 1)
        else:
            for p in range(n):
                self._cell(fb, p, str(t[p]), 11, 17)
            y = 46
        if final:
            w = m.winners()
            # the winner by the name the record carries (the picker's)
            ui.center(fb, "Tie" if len(w) > 1 else fit("", m.players[w[0]], " wins"), 40 if n == 2 else y)
            ui.hint(fb, "OK: save & end")
        else:
            fb.text("BACK: undo/quit", 0, y, 1)
            ui.hint(fb, "OK: next deal")

    # indexed by phase: LAYOUT, READY, COUNT_DOWN, PLAY, FLIP, REBUILD, CLAIM, LEFT, NEXT, FINAL
    _SCREENS = (_draw_layout, _draw_ready, _draw_countdown, _draw_play, _draw_countdown,
                _draw_rebuild, _draw_claim, _draw_left, _draw_score, _draw_score)

    def can_undo(self):
        return bool(self.entries) or self.phase in (CLAIM, LEFT) or self.match.hands_played > 0

    def undo(self, now_us):
        ph = self.phase
        self.claim_t = now_us  # a question shown again is answered afresh (SP-16)
        if ph == LEFT:
            q = self._loser(self.loser, -1)
            if q < 0:
                self._to(CLAIM)
            else:  # back to the count before (SP-35: one a player)
                self.counts[self.loser] = self.left
                self.loser = q
                self.left = self.counts[q]
                self.app.redraw()
        elif self.entries and ph in (PLAY, FLIP, REBUILD, CLAIM):
            self._undo_entry()
        elif self.match.hands_played:
            self._undo_deal()

    def interrupt(self, now_us):
        """The pause menu opened: nothing timed may run on behind it."""
        ph = self.phase
        self.countdown.stop()
        if ph == COUNT_DOWN:
            self._new_deal()
            self.phase = READY
        elif ph == FLIP or ph == REBUILD:
            self._rebuild_deal()
        elif ph == PLAY:
            self._rebuild_deal()  # drops stuck calls and any slap race
        for p in self.pads:
            p.forget()

    # ---- steps -----------------------------------------------------------
    def lights(self):
        """Pads lit by the game's state (App adds verdict and false-start
        cues): in READY, the pads of the players who are ready."""
        if self.phase != READY:
            return 0
        d = self.deal
        m = 0
        for p in range(self.seats):
            if d.is_ready(p):
                m |= 1 << p
        return m

    def _new_deal(self):
        self.deal = self.match.new_deal()
        self.entries = ""
        self.verdict = None
        self.racing = False
        self.tied = 0
        self.slap_text = ""
        self.race.close()
        self.phase = FINAL if self.match.over else LAYOUT

    def _false_start(self, p, early, t_us):  # verdict
        # SP-6, SP-22, SP-30: nobody plays before GO.  The first false start
        # calls the countdown off for all (timing.Countdown); every press
        # until it is over is a false start too, counted once per player;
        # then READY.
        cd = self.countdown
        if not cd.false_start(p, t_us):
            return  # the same player's repeat: the same jump
        self.app.light(1 << p, True)  # the jumper's pad first: the players look at it now
        self.false_starts[p] += 1
        self.app.emit({"ev": "false_start", "game": "speed", "deal": self.match.hands_played + 1,
                       "seat": p, "early_us": early, "count": self.false_starts[p]})
        self.app.sound(FOUL)
        self.app.news |= _FOOT  # the note naming the jumper, the bottom line
        # more than one player jumped (more than one bit): no one name
        self.note = "False starts!" if cd.fouled & (cd.fouled - 1) else "False start %s!" % self.names[p]
        self.app.redraw()

    def _called_off_over(self):
        # SP-22: everyone calls ready again, each with a new press.
        self.deal = self.match.new_deal()
        self._to(READY)

    def _count(self, now_us):
        # Beeps at +0, +1 s, +2 s, then GO (or FLIP) at exactly +3 s.
        if not self.countdown.tick(now_us):
            return
        if self.phase == COUNT_DOWN:
            self._go()
        else:
            self.deal.flip()
            self.entries += "F"
            self.app.sound(GO)
            self.app.news |= _TOP  # the play screen's title
            self._to(PLAY)

    def _go(self):
        self.countdown.go()
        # play begins: nobody slaps within a reaction time of GO, so the heap
        # is collected after this pass, not inside a slap's verdict
        self.app.quiet()
        self.note = ""
        self.deal.start_flip()
        self.app.sound(GO)
        self.app.news |= _TOP  # the play screen's title
        for p in self.pads:
            p.cancel()  # nobody's pad was down at GO (it would be a false start)
        self._to(PLAY)

    def _held(self, p, now_us):  # verdict
        # SP-14: the press became a hold, so it is a stuck call and was never
        # a slap.  With slap-to-win it went into the race when it went down
        # (a slap is timed from the press), so the race is judged now, before
        # the stuck call can start a flip: void if this press opened it (the
        # first presser is holding), a tie if another pad came within the
        # window.  Judged later, a race left open across the flip turned the
        # hands lifted in the countdown into a slap (SP-17).
        if self.racing:
            self._settle_slap(now_us)
            if self.phase != PLAY:
                return
        self._stuck(p, now_us)

    def _stuck(self, p, now_us):
        d = self.deal
        d.stuck(p)
        self.note = ""
        self.app.sound(CALL)
        self.app.redraw()
        if d.rebuild_due:
            self._to(REBUILD)
        elif d.flip_due:
            self._start_flip(now_us)

    def _start_flip(self, now_us):
        self.countdown.start(now_us)
        self._to(FLIP)
        self._count(now_us)

    def _claim(self, p, t_us):  # verdict
        self.note = ""
        self.deal.claim_out(p)
        self.entries += str(p)
        self.claim_t = t_us
        for q in self.pads:
            q.cancel()  # a press from play is no answer
        self.app.sound(CALL)
        self._to(CLAIM)

    def _reject(self):  # verdict
        # SP-16, SP-33: another player rejects the claim; play goes on.
        d = self.deal
        self.app.emit({"ev": "claim", "game": "speed", "deal": self.match.hands_played + 1,
                       "seat": d.claimant, "verdict": "rejected"})
        d.reject()
        self.entries += "X"
        self.tied = 0  # a tie before the claim was settled by its slap
        for q in self.pads:
            q.cancel()  # a press from the question (a yes begun too late) is no play
        self.app.sound(ERROR)
        self.note = "Claim rejected"
        self._to(PLAY)

    def _answer_begun_before(self, b):  # verdict
        # SP-33: the answer begun first counts.  A hold (yes) under way that
        # began no later than pad b's tap (no) decides: held on it is yes,
        # let go soon it is a tap and itself says no.  A tap settles sooner
        # than a hold can, so ordered by when they settle every yes under
        # way would lose to a later no.
        pads = self.pads
        t = pads[b].t
        c = self.deal.claimant
        for q in range(self.seats):
            p = pads[q]
            if q != b and q != c and p.down and p.live and ticks_diff(p.t, t) <= 0:
                return True
        return False

    def _any_down(self):  # verdict
        # a pad of the race's (every pad, or the tied ones in a re-slap) is down
        race = self.race
        pads = self.pads
        for p in range(self.seats):
            if pads[p].down and race.is_entrant(p):
                return True
        return False

    def _tied_seats(self):  # verdict
        return [p for p in range(self.seats) if self.tied >> p & 1]

    def _settle_slap(self, now_us):  # verdict
        # SP-17, SP-34: the first slap among all the pads wins.  The verdict
        # waits until every pad is up again (so a later slap is in it and
        # its margin shown) or a hold is long enough to be a stuck call; a
        # winner still holding then was never slapping, and the race is void.
        v = self.verdict
        pads = self.pads
        app = self.app
        race = self.race
        if self._any_down() and ticks_diff(now_us, self.race_t) < SPEED_HOLD_US:
            if v is None and race.all_in():
                # Every seat in the race has slapped: no later slap can change the order,
                # so the verdict is worked out now, while the pads are still
                # down, and the release that ends the wait only shows it.
                self.verdict = race.decide(now_us)
                if self.verdict is None:  # still inside the tie window
                    app.wake(ticks_add(self.race_t, race.window_us + 1))
            app.wake(ticks_add(self.race_t, SPEED_HOLD_US))
            return
        if v is None:
            v = race.decide(now_us)
            if v is None:
                app.wake(ticks_add(self.race_t, race.window_us + 1))
                return
            self.verdict = v
        if v.winner is None:
            m = 0
            slapped = 0  # the tied pads let go: slaps (a pad still down is a stuck hold)
            for s in v.tie:
                m |= 1 << s
                if not pads[s].down:
                    slapped |= 1 << s
            # SP-34: two or more tied slaps are slapped again by those players
            # alone; a "tie" with stuck holds in it was no race of slaps
            self.tied = slapped if slapped & (slapped - 1) else 0
            self.app.light(m)  # a tie: the tied players' pads
            self.app.news |= _NOTE  # the note: "Tie 0.4 ms again"
            t = v.text()
            self.note = t + " again" if len(t) <= 10 else t  # 16 characters a line
            self.verdict = None
            self.racing = False
            self.app.sound(ERROR)
            self.app.redraw()
            self.app.render()  # the note on the panel before the line is built
            self._log_slap(v)
            return
        w = v.winner
        if pads[w].down:
            if ticks_diff(now_us, pads[w].t) >= SPEED_HOLD_US:
                self.verdict = None  # a hold after all: the race is void
                self.racing = False
            else:
                app.wake(ticks_add(pads[w].t, SPEED_HOLD_US))
            return
        self.app.light(1 << w)  # the winner's pad first: the players look at the pads now
        self.verdict = None
        self.racing = False
        self.tied = 0  # the tie, if any, is settled
        # "P1 by 3.2 ms" on the claim screen; a lone slap has no margin, and
        # the claimant's name is already there in big letters
        self.slap_text = v.text() if v.margin_us is not None else ""
        self._claim(w, now_us)
        self.app.sound(WIN)
        self.app.news |= _TOP  # "P1 is out?": the title
        # then the panel: the claim screen drawn now, so the frame is complete
        # before the slap's log line (a dict and its lists) is built
        self.app.render()
        self._log_slap(v)

    def _log_slap(self, v):  # verdict
        d = v.to_dict()
        d["ev"] = "slap"
        d["game"] = "speed"
        d["kind"] = "out"
        d["deal"] = self.match.hands_played + 1
        self.app.emit(d)

    # ---- the count: one a loser (SP-18, SP-35) ------------------------------
    def _loser(self, p, step):
        """The next player from seat p on (step 1: after it, -1: before it;
        p = -1 or seats: from the first or the last seat) who counts cards
        left, or -1 when none is left to count."""
        c = self.deal.claimant
        p += step
        while 0 <= p < self.seats:
            if p != c:
                return p
            p += step
        return -1

    def _start_count(self):
        lo = self.deal.left_bounds()[0]
        c = self.deal.claimant
        for p in range(self.seats):
            self.counts[p] = 0 if p == c else lo
        self.loser = self._loser(-1, 1)
        self.left = lo

    def _counted(self, t_us):
        # OK on a loser's count: the next loser's, or the deal is counted
        self.counts[self.loser] = self.left
        q = self._loser(self.loser, 1)
        if q < 0:
            self._confirm(t_us)
            return
        self.loser = q
        self.left = self.counts[q]
        self.app.sound(CLICK)
        self.app.redraw()

    def _confirm(self, t_us):
        d = self.deal
        # bounds were kept by UP/DOWN; SP-18 checks again.  Two players'
        # counts give the loser's count, more players' one a player (SP-35).
        d.confirm(self.counts)
        w, left = d.result
        m = self.match
        m.add_result(d)
        self.codes.append(self.entries)  # flips, rebuilds and claims, for undo
        self.app.emit({"ev": "deal", "game": "speed", "deal": m.hands_played, "winner": w,
                       "left": left if is_int(left) else list(left), "totals": list(m.totals),
                       "flips": d.flips, "rebuilds": d.rebuilds})
        self.app.sound(WIN)
        self._save()
        self._to(FINAL if m.over else NEXT)

    def _save(self):
        self.app.save(self)  # save_state() at the end of the pass

    def save_state(self):
        """The state a resumed game gets back: the counted deals (at any
        moment, the last deal boundary)."""
        return {"deals": [[w, left if is_int(left) else list(left)] for w, left in self.match.deals],
                "false_starts": list(self.false_starts), "codes": list(self.codes)}

    def resume_at(self):
        """Where a resumed game goes on, for the resume screen: a deal is
        saved when it is counted, so a cut inside one (after its slap, say)
        resumes at its start."""
        m = self.match
        return "match over" if m.over else "deal %d start" % (m.hands_played + 1)

    # ---- undo --------------------------------------------------------------
    def _rebuild_deal(self):
        """Replay this deal's entries into a fresh SpeedDeal (stuck calls and
        races are not entries: they are dropped)."""
        d = _replay(self.match.new_deal(), self.entries)
        self.deal = d
        self.verdict = None
        self.racing = False
        self.tied = 0
        self.slap_text = ""
        self.race.close()
        self.note = ""
        self._to(CLAIM if d.phase == "claim" else PLAY)

    def _undo_entry(self):
        self.entries = self.entries[:-1]
        self._rebuild_deal()

    def _undo_deal(self):
        # Back to the count of the last deal: its claim stands, its counts
        # are entered again (the last loser's on screen).  Its entries are
        # replayed, so its flips and rebuilds (logged with the deal line)
        # are exactly what they were.
        w, left = self.match.deals[-1]
        n = self.match.hands_played
        self.match.undo_last()
        self._log_undo("deal", n)  # its deal line was logged: tell the laptop
        code = self.codes.pop() if self.codes else str(w)
        self._save()
        self.entries = code
        self._rebuild_deal()
        for p in range(self.seats):
            self.counts[p] = 0 if p == w else (left if is_int(left) else left[p])
        self.loser = self._loser(self.seats, -1)
        self.left = self.counts[self.loser]
        self._to(LEFT)


def _replay(d, entries):
    """A deal's entries (a code: F flip, R rebuild, E reserves out, a digit
    a player's claim, X the claim rejected) replayed into the fresh
    SpeedDeal d through the engine's own API, which checks each; anything
    else is refused."""
    if type(entries) is not str:
        raise RuleError("SP-23", "deal entries unreadable: %r" % (entries,))
    n = d.seats
    for p in range(n):
        d.ready(p)
    d.start_flip()
    for e in entries:
        if e == "F" or e == "R":
            for p in range(n):
                d.stuck(p)
            if e == "F":
                d.flip()
            else:
                d.rebuild(None)
                for p in range(n):
                    d.unstuck(p)
        elif e == "E":
            d.reserves_out()
        elif e == "X":
            d.reject()
        elif e.isdigit() and int(e) < n:
            d.claim_out(int(e))
        else:
            raise RuleError("SP-23", "unknown deal entry %r" % (e,))
    return d
