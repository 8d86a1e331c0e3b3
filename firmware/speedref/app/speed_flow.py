# The Speed referee flow (rules SP-1.. in seeds/speed.md), on the engine's
# table-level SpeedMatch/SpeedDeal.  Phases of one deal:
#
#   LAYOUT   how to lay out the cards (SP-2/SP-3)            OK or a pad: next
#   READY    each player taps their pad when ready (SP-6)
#   COUNT    3-2-1 beeps, GO at ready+3 s exactly: flip the start cards.
#            A pad press before GO is a false start: counted, logged, READY again.
#   PLAY     hold your pad = "stuck" (release = not stuck any more); both
#            stuck -> FLIP (or REBUILD first when the reserves are empty, SP-15).
#            Tap your pad = "I'm out" (SP-16); with slap-to-win the tap is the
#            slap and the arbiter decides who was first by timestamp (SP-17).
#   FLIP     3-2-1, FLIP: both turn a reserve card (SP-14).  DOWN: "the rebuilt
#            reserves are empty" -> REBUILD.
#   REBUILD  keep the two top cards, shuffle the rest into two reserves; OK.
#   CLAIM    "P1 is out?" (SP-16).  A pad press that begins less than
#            CLAIM_WAIT_US after the question appeared is a reflex and means
#            nothing.  Later: the opponent holds their pad 0.5 s = yes (LEFT),
#            taps it = no (the claim is rejected, play goes on); the
#            claimant taps to withdraw it.
#   LEFT     the loser's cards left, UP/DOWN within the layout's bounds (SP-18), OK.
#   NEXT     match totals, OK: next deal.    FINAL  the result; OK: store it.
#
# Undo (pause menu) takes back the last entry: a flip/rebuild, a claim or its
# rejection, the
# count, or the whole previous deal.  Within a deal the entries are kept as
# a short code string and the deal is rebuilt from it, so undo uses only the
# engine's public API.  State is saved to flash at every deal boundary.
from ..ticks import ticks_diff
from ..engine import speed
from ..engine.errors import RuleError
from ..arbiter import Race
from . import ui
from .timing import Countdown, PadHold, OFF
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

NAMES = ("P1", "P2")


def match_of(opts):
    """SpeedMatch's match for the menu's Match and Target options (SP-19):
    a single deal, the best of 3, or to Target points."""
    m = opts["match"]
    return {"single": True} if m == "single" else (
        {"best_of": 3} if m == "best_of" else {"target": opts["target"]})


class SpeedFlow(Flow):
    GAME = "speed"
    PHASES = FINAL + 1  # its phases are 0..FINAL (the conformance tests reach and draw each)
    SEATS = (2, 2)  # the seat counts these screens referee (the rules seat 2 to 4, SP-27)

    def __init__(self, app, opts, now_us, state=None):
        n = opts.get("seats", 2)
        if not self.SEATS[0] <= n <= self.SEATS[1]:
            raise RuleError("SP-27", "this referee plays Speed with 2 players, not %r" % (n,))
        self.app = app
        self.opts = opts
        self.match = speed.SpeedMatch(opts["layout"], match_of(opts), NAMES, opts["jokers"],
                                      opts["doubles"], opts["hand_limit"], opts["slap_to_win"])
        self.race = Race(2, app.tie_window_us(opts["tie_ms"]))
        # Pads: preallocated so a press in a race allocates nothing.  A press
        # is live (may become a tap or a hold) when it began in PLAY.
        self.pads = (PadHold(SPEED_HOLD_US), PadHold(SPEED_HOLD_US))
        self.false_starts = [0, 0]
        self.countdown = Countdown(app)  # the start (COUNT_DOWN) and every FLIP
        self.racing = False    # a slap-to-win race is open or its verdict pending
        self.race_t = 0        # when it opened
        self.verdict = None    # slap-to-win verdict waiting for the winner to let go
        self.slap_text = ""
        self.note = ""         # one line of news for the screen (false start, tie, ...)
        self.left = 0
        self.entries = ""      # this deal's entries: F flip, R rebuild, E reserves out, 0/1 claim,
        #                        X the claim rejected
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
        deal counts by the engine's rules (SP-20); the false starts are two
        counts (SP-22)."""
        deals = state["deals"]
        fs = self._saved_counts(state["false_starts"], 2, "SP-22")
        codes = state.get("codes")
        if codes is None:  # a save from before codes were kept: the claims alone
            codes = ["01"[w] if w in (0, 1) else "" for w, _ in deals]
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
        if b >= 2 and b < UP:
            return  # pads 3 and 4 take no part in a two-player game
        ph = self.phase
        if b < 2:
            pad = self.pads[b]
            if ph == COUNT_DOWN:
                cd = self.countdown
                if cd.resumes(t_us):  # the called-off countdown is over
                    self._called_off_over()
                    ph = READY
                elif cd.called_off(t_us) or cd.early_us(t_us) > 0:
                    # SP-22: every press before GO is a false start, never
                    # a ready call or a live press
                    pad.press(t_us, False)
                    self._false_start(b, cd.early_us(t_us), t_us)
                    return
                else:
                    self._go()  # the press came after GO: it belongs to play
                    ph = PLAY
            if ph == PLAY and self.countdown.at_go(t_us):
                # SP-25: down at the GO instant (the start's or a flip's):
                # pressed before GO could be heard, it is no play at all
                pad.press(t_us, False)
                return
            pad.press(t_us, ph == PLAY)
            if ph == PLAY:
                if self.match.slap_to_win:
                    if not self.racing:
                        self.race.open(t_us)  # the first slap opens the race
                        self.race_t = t_us
                        self.racing = True
                    self.race.press(b, t_us)
            elif ph == READY:
                if self.deal.ready(b):
                    self.countdown.start(t_us)
                    self.note = ""
                    self.phase = COUNT_DOWN
                    self.tick(t_us)
                else:
                    self.app.sound(CALL)
                self.app.redraw()
            elif ph == LAYOUT:
                self._to(READY)
            elif ph == CLAIM:
                # SP-16: a press this soon after the question is a reflex
                # to the out tap, not an answer: it means nothing.
                live = ticks_diff(t_us, self.claim_t) >= CLAIM_WAIT_US
                pad.press(t_us, live)
                if live and b == self.deal.claimant:
                    pad.cancel()
                    self._undo_entry()  # the claimant withdraws
            return
        if b == OK:
            if ph == LAYOUT:
                self._to(READY)
            elif ph == REBUILD:
                self.deal.rebuild(None)
                self.entries += "R"
                self._start_flip(t_us)
            elif ph == LEFT:
                self._confirm(t_us)
            elif ph == NEXT:
                self._new_deal()
                self.app.redraw()
            elif ph == FINAL:
                self.app.finish(self.match.to_record())
                self.app.close()
        elif b == UP or b == DOWN:
            if ph == LEFT:
                lo, hi = self.deal.left_bounds()
                v = self.left + (1 if b == UP else -1)
                if lo <= v <= hi:
                    self.left = v
                    self.app.redraw()
            elif ph == FLIP and b == DOWN and self.deal.reserve_left is None:
                self.deal.reserves_out()
                self.entries += "E"
                self._to(REBUILD)

    def release(self, b, t_us):
        if b >= 2:
            return
        was_tap = self.pads[b].release(t_us)
        if self.phase == CLAIM and was_tap and b != self.deal.claimant:
            self._reject()  # SP-16: the opponent says no
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

    def tick(self, now_us):
        ph = self.phase
        if ph == COUNT_DOWN and self.countdown.resumes(now_us):
            self._called_off_over()
        elif ph == COUNT_DOWN or ph == FLIP:
            self._count(now_us)
        elif ph == PLAY:
            for p in (0, 1):
                if self.pads[p].held(now_us):
                    self._held(p, now_us)
                    if self.phase != PLAY:
                        return
            if self.racing:
                self._settle_slap(now_us)
        elif ph == CLAIM:
            q = 1 - self.deal.claimant
            if self.pads[q].held(now_us):  # SP-16: the opponent held: yes
                self.left = self.deal.left_bounds()[0]
                self.app.sound(CLICK)
                self._to(LEFT)

    # ---- screens: one per phase ------------------------------------------
    def _draw_layout(self, fb):
        # SP-2/SP-3: the dealt hand is 5 cards in both layouts (SP-5)
        d = self.deal
        per = speed.cards_per_player(d.layout, d.jokers)
        r = speed.reserve_size(d.layout)
        ui.title(fb, "Deal %d: lay out" % (self.match.hands_played + 1))
        if d.layout == "pagat":
            ui.row(fb, 0, "Each: %d cards" % per)
            ui.row(fb, 1, "top 5 = hand")
        else:
            ui.row(fb, 0, "Each: 5 hand")
            ui.row(fb, 1, "+ %d stock" % (per - 5))
        ui.row(fb, 2, "2 reserves of %d" % r)  # SP-2: reserve, 2 start cards, reserve
        ui.row(fb, 3, "+ 2 start cards")
        ui.row(fb, 4, "BACK: undo/quit")
        ui.hint(fb, "OK: next")

    def _draw_ready(self, fb):
        d = self.deal
        ui.title(fb, "Deal %d: ready?" % (self.match.hands_played + 1))
        for p in (0, 1):
            ui.big(fb, "OK" if d.is_ready(p) else "..", 8 + 64 * p, 20, 3)
            fb.text(NAMES[p], 24 + 64 * p, 46, 1)
        ui.hint(fb, self.note or "tap pad if ready")

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
        ui.title(fb, "Deal %d  %d-%d" % (m.hands_played + 1, m.totals[0], m.totals[1]))
        fb.text("Flips", 0, 14, 1)
        ui.big(fb, str(d.flips), 48, 12, 2)
        fb.text("Reserve: %s" % ("?" if d.reserve_left is None else d.reserve_left), 0, 30, 1)
        ui.sides(fb, "P1 STUCK" if d.is_stuck(0) else "P1 -",
                 "P2 STUCK" if d.is_stuck(1) else "P2 -", 40)
        if self.note:
            fb.text(self.note, 0, 52, 1)
        else:
            fb.text("hold pad: stuck", 0, 48, 1)
            ui.hint(fb, "tap pad: out")

    def _draw_rebuild(self, fb):
        ui.title(fb, "Rebuild reserves")
        y = 12
        for line in ("Keep both tops.", "Shuffle the rest", "into 2 reserves.", "Then OK: flip"):
            fb.text(line, 0, y, 1)
            y += 11

    def _draw_claim(self, fb):
        c = self.deal.claimant
        ui.title(fb, "%s is out?" % NAMES[c])
        if self.slap_text:
            ui.center(fb, self.slap_text, 14)
        ui.big_center(fb, NAMES[c], 23, 2)
        fb.text("%s hold: yes" % NAMES[1 - c], 0, 40, 1)
        fb.text("%s tap: no" % NAMES[1 - c], 0, 48, 1)
        ui.hint(fb, "%s tap: withdraw" % NAMES[c])

    def _draw_left(self, fb):
        ui.title(fb, "%s cards left" % NAMES[1 - self.deal.claimant])
        ui.big_center(fb, str(self.left), 14, 4)
        ui.hint(fb, "UP/DOWN  OK", centred=True)

    def _draw_score(self, fb):
        # between deals (NEXT) and the match's end (FINAL)
        m = self.match
        final = self.phase == FINAL
        ui.title(fb, "Match over" if final else "After deal %d" % m.hands_played)
        t = m.wins if m.format == "best_of" else m.totals
        ui.big_center(fb, "%d-%d" % (t[0], t[1]), 14, 3)
        if final:
            w = m.winners()
            ui.center(fb, "Tie" if len(w) > 1 else "%s wins" % NAMES[w[0]], 40)
            ui.hint(fb, "OK: save & end")
        else:
            fb.text("BACK: undo/quit", 0, 44, 1)
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
            self._to(CLAIM)
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
        for p in (0, 1):
            self.pads[p].forget()

    # ---- steps -----------------------------------------------------------
    def lights(self):
        """Pads lit by the game's state (App adds verdict and false-start
        cues): in READY, the pads of the players who are ready."""
        if self.phase != READY:
            return 0
        d = self.deal
        return (1 if d.is_ready(0) else 0) | (2 if d.is_ready(1) else 0)

    def _new_deal(self):
        self.deal = self.match.new_deal()
        self.entries = ""
        self.verdict = None
        self.racing = False
        self.slap_text = ""
        self.race.close()
        self.phase = FINAL if self.match.over else LAYOUT

    def _false_start(self, p, early, t_us):
        # SP-6, SP-22: nobody plays before GO.  The first false start calls
        # the countdown off (timing.Countdown); every press until it is over
        # is a false start too, counted once per player; then READY.
        if not self.countdown.false_start(p, t_us):
            return  # the same player's repeat: the same jump
        self.false_starts[p] += 1
        self.app.emit({"ev": "false_start", "game": "speed", "deal": self.match.hands_played + 1,
                       "seat": p, "early_us": early, "count": self.false_starts[p]})
        self.app.sound(FOUL)
        self.app.light(1 << p, True)
        self.note = "False starts!" if self.countdown.fouled == 3 else "False start %s!" % NAMES[p]
        self.app.redraw()

    def _called_off_over(self):
        # SP-22: both call ready again, each with a new press.
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
            self._to(PLAY)

    def _go(self):
        self.countdown.go()
        self.note = ""
        self.deal.start_flip()
        self.app.sound(GO)
        for p in (0, 1):
            self.pads[p].cancel()  # nobody's pad was down at GO (it would be a false start)
        self._to(PLAY)

    def _held(self, p, now_us):
        # SP-14: the press became a hold, so it is a stuck call and was never
        # a slap.  With slap-to-win it went into the race when it went down
        # (a slap is timed from the press), so the race is judged now, before
        # the stuck call can start a flip: void if this press opened it (the
        # first presser is holding), a tie if the other pad came within the
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

    def _claim(self, p, t_us):
        self.note = ""
        self.deal.claim_out(p)
        self.entries += "01"[p]
        self.claim_t = t_us
        for q in (0, 1):
            self.pads[q].cancel()  # a press from play is no answer
        self.app.sound(CALL)
        self._to(CLAIM)

    def _reject(self):
        # SP-16: the opponent rejects the claim; play goes on.
        d = self.deal
        self.app.emit({"ev": "claim", "game": "speed", "deal": self.match.hands_played + 1,
                       "seat": d.claimant, "verdict": "rejected"})
        d.reject()
        self.entries += "X"
        self.app.sound(ERROR)
        self.note = "Claim rejected"
        self._to(PLAY)

    def _settle_slap(self, now_us):
        # SP-17: the first slap wins.  The verdict waits until both pads are
        # up again (so a second slap is in it and its margin shown) or a hold
        # is long enough to be a stuck call; a winner still holding then was
        # never slapping, and the race is void.
        v = self.verdict
        pads = self.pads
        if v is None:
            if (pads[0].down or pads[1].down) and ticks_diff(now_us, self.race_t) < SPEED_HOLD_US:
                return
            v = self.race.decide(now_us)
            if v is None:
                return
            self.verdict = v
        if v.winner is None:
            self._log_slap(v)
            self.app.light(3)  # a tie: both pads
            t = v.text()
            self.note = t + " again" if len(t) <= 10 else t  # 16 characters a line
            self.verdict = None
            self.racing = False
            self.app.sound(ERROR)
            self.app.redraw()
            return
        w = v.winner
        if pads[w].down:
            if ticks_diff(now_us, pads[w].t) >= SPEED_HOLD_US:
                self.verdict = None  # a hold after all: the race is void
                self.racing = False
            return
        self.verdict = None
        self.racing = False
        # "P1 by 3.2 ms" on the claim screen; a lone slap has no margin, and
        # the claimant's name is already there in big letters
        self.slap_text = v.text() if v.margin_us is not None else ""
        self._log_slap(v)
        self.app.light(1 << w)
        self._claim(w, now_us)
        self.app.sound(WIN)

    def _log_slap(self, v):
        d = v.to_dict()
        d["ev"] = "slap"
        d["game"] = "speed"
        d["kind"] = "out"
        d["deal"] = self.match.hands_played + 1
        self.app.emit(d)

    def _confirm(self, t_us):
        d = self.deal
        d.confirm(self.left)  # bounds were kept by UP/DOWN; SP-18 checks again
        w, left = d.result
        m = self.match
        m.add_result(d)
        self.codes.append(self.entries)  # flips, rebuilds and claims, for undo
        self.app.emit({"ev": "deal", "game": "speed", "deal": m.hands_played, "winner": w,
                       "left": left, "totals": list(m.totals), "flips": d.flips,
                       "rebuilds": d.rebuilds})
        self.app.sound(WIN)
        self._save()
        self._to(FINAL if m.over else NEXT)

    def _save(self):
        self.app.save(self, {"deals": [list(x) for x in self.match.deals],
                       "false_starts": list(self.false_starts), "codes": list(self.codes)})

    # ---- undo --------------------------------------------------------------
    def _rebuild_deal(self):
        """Replay this deal's entries into a fresh SpeedDeal (stuck calls and
        races are not entries: they are dropped)."""
        d = _replay(self.match.new_deal(), self.entries)
        self.deal = d
        self.verdict = None
        self.racing = False
        self.slap_text = ""
        self.race.close()
        self.note = ""
        self._to(CLAIM if d.phase == "claim" else PLAY)

    def _undo_entry(self):
        self.entries = self.entries[:-1]
        self._rebuild_deal()

    def _undo_deal(self):
        # Back to the count of the last deal: its claim stands, the count is
        # entered again.  Its entries are replayed, so its flips and rebuilds
        # (logged with the deal line) are exactly what they were.
        w, left = self.match.deals[-1]
        n = self.match.hands_played
        self.match.undo_last()
        self._log_undo("deal", n)  # its deal line was logged: tell the laptop
        code = self.codes.pop() if self.codes else "01"[w]
        self._save()
        self.entries = code
        self._rebuild_deal()
        self.left = left
        self._to(LEFT)


def _replay(d, entries):
    """A deal's entries (a code: F flip, R rebuild, E reserves out, 0/1 a
    claim, X the claim rejected) replayed into the fresh SpeedDeal d through
    the engine's own API, which checks each; anything else is refused."""
    if type(entries) is not str:
        raise RuleError("SP-23", "deal entries unreadable: %r" % (entries,))
    d.ready(0)
    d.ready(1)
    d.start_flip()
    for e in entries:
        if e == "F":
            d.stuck(0)
            d.stuck(1)
            d.flip()
        elif e == "R":
            d.stuck(0)
            d.stuck(1)
            d.rebuild(None)
            d.unstuck(0)
            d.unstuck(1)
        elif e == "E":
            d.reserves_out()
        elif e == "X":
            d.reject()
        elif e == "0" or e == "1":
            d.claim_out(int(e))
        else:
            raise RuleError("SP-23", "unknown deal entry %r" % (e,))
    return d
