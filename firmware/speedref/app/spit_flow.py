# The Spit referee flow (rules SPIT-1.. in seeds/spit.md), on the engine's
# table-level SpitGame.  Phases of one round:
#
#   LAYOUT   each player's cards, spit cards and the five stock piles
#            (SPIT-2, SPIT-3)                               OK or a pad: next
#   READY    each player taps their pad: "Spit!" (SPIT-4)
#   START    3-2-1 beeps, GO at ready+3 s exactly: turn the spit cards.
#            A pad press before GO is a false start (SPIT-18): counted,
#            logged, READY.
#   PLAY     hold your pad = "stuck" (release = not stuck any more).  Both
#            stuck: RESTART, or a blocked round when nobody can spit
#            (SPIT-8, SPIT-13).  Tap your pad = "my stock piles are empty"
#            (SPIT-9): the engine says whether that is the win (SPIT-14),
#            the slap (SPIT-10) or the other player taking the one pile
#            (SPIT-11).
#   RESTART  3-2-1, GO: spit cards again (SPIT-8).  A press before GO is a
#            false start (SPIT-18): counted, logged, back to PLAY.
#   SLAP     GO one second after the clearing tap (SPIT-17); the first pad
#            after GO takes the smaller pile, decided by timestamp
#            (arbiter.Race); a tie within the tie window goes to the player
#            who cleared (SPIT-10).  A pad before GO is a false start: GO
#            again one second after it (SPIT-18).
#   CARDS    who took which pile, then P1's card count after the relayout
#            (UP/DOWN, held repeats; P2 has the rest of the 52), OK (SPIT-12)
#   FINAL    the winner; OK stores the record.
#
# Every rule decision is the engine's (engine/spit.py SpitGame): the spit
# cards each player has left and who turns what at a "Spit!"
# (g.spit_left, g.can_spit()), one centre pile or two (g.piles), whether a
# clearing is the win (g.clear), the slap's GO and false starts
# (g.slap_go, g.false_start), a tie (g.slap(None)), who takes a pile
# (g.taker()) and the counts the round can leave (g.count_range()).  The flow only
# times, draws, logs and saves.
#
# Entries of a round, kept as a short code string so undo and a resumed game
# rebuild the engine through its public API only:
#   S start spit (GO)   R restart (GO)   0/1 that player cleared
#   a/b that player won the slap          B blocked round
# State is saved when a round has ended (the slap verdict cannot be played
# again) and after its relayout count, and at the start of a game.
#
# A method whose `def` line ends in `# verdict` decides a verdict or says it
# (make mutate mutates those: docs/testing.md, "The flows' verdicts").
from ..ticks import ticks_diff, ticks_add
from ..engine import spit
from ..engine.errors import RuleError
from ..arbiter import Race, FALSE_START, COUNTED
from . import ui
from ..names import for_game
from .timing import Countdown, PadHold, OFF, press_countdown
from .core import Flow, UP, DOWN, OK, COUNT, GO, FOUL, CALL, WIN, CLICK, ERROR
from ..tunables import SPIT_HOLD_US, SLAP_WAIT_US, REPEAT_US, REPEAT_EVERY_US

from micropython import const

LAYOUT = const(0)
READY = const(1)
START = const(2)
PLAY = const(3)
RESTART = const(4)
SLAP = const(5)
CARDS = const(6)
FINAL = const(7)

# pages of news for App.news (the display sends them first): the title's
# text, the bottom line (y 56), a note at y 52
_TOP = const(0x01)
_FOOT = const(0x80)
_NOTE = const(0xC0)

NAMES = ("P1", "P2")


class SpitFlow(Flow):
    GAME = "spit"
    PHASES = FINAL + 1  # its phases are 0..FINAL (the conformance tests reach and draw each)

    def __init__(self, app, opts, now_us, state=None):
        self.app = app
        self.opts = opts
        self.players = for_game(opts, 2)  # the record's names; the screens keep P1, P2
        self.race = Race(2, app.tie_window_us(opts["tie_ms"]))
        # Pads: preallocated so a press allocates nothing.  A press is live
        # (may become a tap or a hold) when it began in PLAY.
        self.pads = (PadHold(SPIT_HOLD_US, app), PadHold(SPIT_HOLD_US, app))
        self.stuck = [False, False]
        self.ready = [False, False]
        self.false_starts = [0, 0]
        self.countdown = Countdown(app)  # START and RESTART
        self.armed = False            # SLAP: the race is open for go_t
        self.went = False             # SLAP: GO has sounded
        self.go_t = 0
        self.first_t = 0              # SLAP: the first counted slap
        self.key = 0                  # CARDS: UP/DOWN held (0 = none)
        self.key_t = 0
        self.count = 26               # CARDS: P1's cards after the relayout
        self.note = ""                # one line of news (false start, tie, ...)
        self.slap_text = ""
        self.entries = ""             # this round's entries (see the header)
        self.done = []                # completed rounds: [entries, a, b]
        if state is not None:
            self.done = [[str(e), a, b] for e, a, b in state["done"]]
            self.entries = str(state["now"])
            self.false_starts = self._saved_counts(state["false_starts"], 2, "SPIT-18")
        self._rebuild()
        if state is not None and self.game.phase == "relayout":
            self.slap_text = str(state.get("text", ""))
        if self.game.phase == "relayout":
            self._first_guess()
        if state is None:
            self._save()  # a power cut in round 1 can be resumed too

    # ---- the flow interface (docs/app.md) -------------------------------
    def press(self, b, t_us):
        if b >= 2 and b < UP:
            return  # pads 3 and 4 take no part in a two-player game
        if b < 2:
            # down, and live only where the phase's handler says so
            self.pads[b].press(t_us, False)
        self._PRESS[self.phase](self, b, t_us)

    # one handler a phase (as drawing has one screen a phase): b is a pad
    # (0 or 1), UP, DOWN or OK
    def _press_layout(self, b, t_us):
        if b < UP or b == OK:
            self._to(READY)

    def _press_ready(self, b, t_us):
        if b >= UP or self.ready[b]:
            return
        self.ready[b] = True
        if self.ready[1 - b]:
            self.countdown.start(t_us)
            self.note = ""
            self.phase = START
            self.tick(t_us)
        else:
            self.app.sound(CALL)
        self.app.redraw()

    def _press_play(self, b, t_us):  # verdict
        # decided by release() or tick(); SPIT-20: a pad down at the GO
        # instant of a start or restart is neither a clearing nor stuck
        if b < UP:
            self.pads[b].press(t_us, not self.countdown.at_go(t_us))

    def _press_slap(self, b, t_us):  # verdict
        if b >= UP or not self.armed:
            return
        r = self.race.press(b, t_us)
        if r == FALSE_START:
            # SPIT-18: the engine re-arms GO one second after it
            self._false_start(b, self.game.false_start(b, t_us))
            self._open_race()
        elif r == COUNTED:
            if self.race.pressed() == 1:
                self.first_t = t_us
            else:
                # SPIT-10: both have slapped, so nothing is left to wait for:
                # the verdict in the second slap's own call, not in the
                # loop's tick after it (a pass's worth of Python later)
                self._slap_tick(t_us)

    def _press_cards(self, b, t_us):
        if b == OK:
            self._relayout()
        elif b == UP or b == DOWN:
            self.key = b
            self.key_t = t_us
            self._step(b)

    def _press_final(self, b, t_us):
        if b == OK:
            self.app.finish(self.game.to_record())
            self.app.close()

    # indexed by phase: LAYOUT, READY, START, PLAY, RESTART, SLAP, CARDS, FINAL
    _PRESS = (_press_layout, _press_ready, press_countdown, _press_play, press_countdown,
              _press_slap, _press_cards, _press_final)

    def release(self, b, t_us):  # verdict
        if b == UP or b == DOWN:
            if b == self.key:
                self.key = 0
            return
        if b >= 2:
            return
        was_tap = self.pads[b].release(t_us)
        if self.phase != PLAY:
            return
        if self.stuck[b]:
            self.stuck[b] = False  # they found a play after all
            self.app.redraw()
        elif was_tap:
            self._clear(b, t_us)

    def tick(self, now_us):
        ph = self.phase
        if ph == START or ph == RESTART:
            if self.countdown.resumes(now_us):
                self._called_off_over()
            else:
                self._count(now_us)
        elif ph == PLAY:
            for p in (0, 1):
                if self.pads[p].held(now_us):  # a hold, not a tap: the player is stuck
                    self._stuck(p, now_us)
                    if self.phase != PLAY:
                        return
        elif ph == SLAP:
            self._slap_tick(now_us)
        elif ph == CARDS and self.key:
            if ticks_diff(now_us, self.key_t) >= REPEAT_US:
                self.key_t = ticks_add(self.key_t, REPEAT_EVERY_US)
                self._step(self.key)
            # the next repeat on time (the loop's nap ends then), and before
            # a release that comes after it (App.release)
            self.app.wake(ticks_add(self.key_t, REPEAT_US))

    # ---- screens: one per phase ------------------------------------------
    def _draw_layout(self, fb):
        # SPIT-2/SPIT-3: five stock piles of 1..5 cards, the rest spit cards
        g = self.game
        ui.title(fb, "Round %d layout" % (g.hands_played + 1))
        for p in (0, 1):
            x = 64 * p
            ui.row(fb, 0, NAMES[p], x + 8)
            ui.big(fb, str(g.cards[p]), x + 8, 20, 2)
            s = g.spit_left[p]
            ui.row(fb, 3, "spit %d" % s if s else "no spit", x)
        if g.piles == 2:
            ui.row(fb, 4, "Piles 1-2-3-4-5")
        else:
            # SPIT-3: the player without spit cards fills the piles in order
            # until the cards run out: 1 card is pile 1 only, 6 piles 1..3
            p = 0 if spit.spit_cards(g.cards[0]) == 0 else 1
            n = g.cards[p]
            k = 1
            while k < 5 and k * (k + 1) // 2 < n:
                k += 1
            ui.row(fb, 4, "%s: pile 1 only" % NAMES[p] if k == 1 else "%s: piles 1..%d" % (NAMES[p], k))
        ui.hint(fb, "OK: next")

    def _draw_ready(self, fb):
        ui.title(fb, "Round %d: Spit?" % (self.game.hands_played + 1))
        for p in (0, 1):
            ui.big(fb, "OK" if self.ready[p] else "..", 8 + 64 * p, 16, 3)
            fb.text(NAMES[p], 24 + 64 * p, 43, 1)
        ui.hint(fb, self.note or "tap pad: ready")

    def _draw_countdown(self, fb):
        # the start (START) and a "Spit!" again (RESTART)
        ui.title(fb, "Spit!" if self.phase == START else "Spit again!")
        ui.big_center(fb, self.countdown.face("SPIT"), 16, 5)
        if self.countdown.cue == OFF:  # called off by a false start (SPIT-18)
            ui.hint(fb, self.note)

    def _draw_play(self, fb):
        g = self.game
        ui.title(fb, "Round %d: play" % (g.hands_played + 1))
        ui.center(fb, "spit cards left", 11)
        for p in (0, 1):
            ui.big(fb, str(g.spit_left[p]), 64 * p + 16, 20, 2)
        ui.sides(fb, "P1 STUCK" if self.stuck[0] else "P1 -",
                 "P2 STUCK" if self.stuck[1] else "P2 -", 38)
        if self.note:
            fb.text(self.note, 0, 52, 1)
        else:
            ui.row(fb, 4, "hold pad: stuck")
            ui.hint(fb, "tap pad: cleared")

    def _draw_slap(self, fb):
        ui.title(fb, "%s cleared!" % NAMES[self.game.cleared])
        ui.big_center(fb, "SLAP!" if self.went else "WAIT", 18, 4)
        ui.center(fb, self.note or "smaller pile", 52)

    def _draw_cards(self, fb):
        g = self.game
        t = g.taker()
        if g.blocked:
            ui.title(fb, "Blocked round")  # SPIT-13
            ui.center(fb, "take your side" if t is None else "%s takes pile" % NAMES[t], 10)
        elif g.slap_winner is not None:
            ui.title(fb, "%s took smaller" % NAMES[t])  # SPIT-10
            ui.center(fb, self.slap_text, 10)
        else:
            ui.title(fb, "%s takes pile" % NAMES[t])  # SPIT-11
            ui.center(fb, "one centre pile", 10)
        for p in (0, 1):
            c = self.count if p == 0 else spit.DECK - self.count
            ui.big(fb, str(c), 64 * p + 8, 20, 3)
        fb.text("P1 cards     P2", 0, 46, 1)
        ui.hint(fb, "UP/DOWN P1  OK")

    def _draw_final(self, fb):
        ui.title(fb, "Game over")
        ui.big_center(fb, self.players[self.game.winner], 12, 4)  # the record's name
        ui.center(fb, "wins: no cards", 45)  # SPIT-14
        ui.hint(fb, "OK: save & end")

    # indexed by phase: LAYOUT, READY, START, PLAY, RESTART, SLAP, CARDS, FINAL
    _SCREENS = (_draw_layout, _draw_ready, _draw_countdown, _draw_play, _draw_countdown,
                _draw_slap, _draw_cards, _draw_final)

    def can_undo(self):
        return bool(self.entries) or bool(self.done)

    def undo(self, now_us):
        if self.entries:
            if self.game.phase == "over":
                # The win's round line was logged when the winner cleared.
                self._log_undo("round", self.game.hands_played)
            self.entries = self.entries[:-1]
        elif self.done:
            # back to the count of the last round: its slap stands, its
            # round line (logged with the count) no longer counts
            self._log_undo("round", len(self.done))
            e, a, b = self.done.pop()
            self.entries = e
            self.count = a
        else:
            return
        self.note = ""
        self.slap_text = ""
        self._rebuild()
        self._save()  # the undone entry may have been saved (round end, count, win)
        if self.phase == SLAP:
            self._arm(now_us)
        self.app.redraw()

    def interrupt(self, now_us):
        """The pause menu opened: nothing timed may run on behind it."""
        ph = self.phase
        self.countdown.stop()
        if ph == START:
            self.ready[0] = self.ready[1] = False
            self.phase = READY
        elif ph == RESTART:
            self.phase = PLAY
        elif ph == SLAP:
            self.race.close()
            self.armed = False  # GO again one second after the game goes on
        for p in (0, 1):
            self.pads[p].forget()
            self.stuck[p] = False
        self.key = 0

    # ---- steps -----------------------------------------------------------
    def lights(self):
        """Pads lit by the game's state (App adds verdict and false-start
        cues): in READY, the pads of the players who are ready."""
        if self.phase != READY:
            return 0
        r = self.ready
        return (1 if r[0] else 0) | (2 if r[1] else 0)

    def _false_start(self, p, early_us, t_us=None):  # verdict
        # SPIT-18: nobody turns a card (or slaps) before GO.  In a countdown
        # the first false start calls it off (timing.Countdown): until it is
        # over every press is a false start, counted once per player.
        ph = self.phase
        if ph != SLAP and not self.countdown.false_start(p, t_us):
            return  # the same player's repeat: the same jump
        self.app.light(1 << p, True)  # the jumper's pad first: the players look at it now
        self.false_starts[p] += 1
        self.app.emit({"ev": "false_start", "game": "spit", "round": self.game.hands_played + 1,
                       "seat": p, "early_us": early_us, "count": self.false_starts[p],
                       "when": "slap" if ph == SLAP else ("start" if ph == START else "restart")})
        self.app.sound(FOUL)
        # the note naming the jumper: the countdown's bottom line, or the
        # slap screen's line at y 52
        self.app.news |= _NOTE if ph == SLAP else _FOOT
        if ph != SLAP and self.countdown.fouled == 3:
            self.note = "False starts!"  # both jumped
        else:
            self.note = "False start %s!" % NAMES[p]
        self.app.redraw()

    def _called_off_over(self):
        # SPIT-18: the countdown a false start called off is over; nobody
        # turned a card.  Both call "Spit!" again: READY for the start, and
        # in play both hold their pads again to be stuck for a restart.
        if self.phase == START:
            self.ready[0] = self.ready[1] = False
            self._to(READY)
        else:
            self.stuck[0] = self.stuck[1] = False
            self._to(PLAY)

    def _count(self, now_us):
        # Beeps at +0, +1 s, +2 s, then GO at exactly +3 s.
        if self.countdown.tick(now_us):
            self._go()

    def _go(self):
        # SPIT-4 / SPIT-8: both have called "Spit!"; the spit cards go up now.
        self.countdown.go()
        self.note = ""
        self._enter("S" if self.phase == START else "R")
        self.app.sound(GO)
        self.app.quiet()  # play begins: nobody clears within a reaction time of GO
        self.app.news |= _TOP  # the play screen's title
        for p in (0, 1):
            self.pads[p].cancel()  # nobody's pad was down at GO (it would be a false start)
            self.stuck[p] = False
        self._to(PLAY)

    def _stuck(self, p, now_us):  # verdict
        self.stuck[p] = True
        self.note = ""
        self.app.sound(CALL)
        self.app.redraw()
        if not (self.stuck[0] and self.stuck[1]):
            return
        if self.game.can_spit():
            self.countdown.start(now_us)  # SPIT-8: both stuck, spit again
            self._to(RESTART)
            self._count(now_us)
        else:
            self._enter("B")  # SPIT-13: nobody can play or spit
            self.stuck[0] = self.stuck[1] = False
            self.app.sound(ERROR)
            self._round_over()

    def _clear(self, p, t_us):  # verdict
        self.note = ""
        self._enter("01"[p], t_us)
        g = self.game
        if g.phase == "over":  # SPIT-14: no spit cards left either: the win
            self._emit_round(g.restarts)
            self.app.sound(WIN)
            self._save()
            self._to(FINAL)
        elif g.phase == "slap":  # SPIT-10: two centre piles; GO set by SPIT-17
            self.app.sound(CALL)
            self._open_race()
            self._to(SLAP)
        else:  # SPIT-11: one centre pile, the other player takes it
            self.app.sound(CALL)
            self._round_over()

    def _arm(self, t_us):
        # SPIT-17: the engine puts the slap's GO one second after t_us (the
        # game going on after a pause or an undo).
        self.game.arm_slap(t_us)
        self._open_race()

    def _open_race(self):
        # The race opens at the engine's GO; the arbiter marks earlier
        # presses as false starts (SPIT-18).
        self.go_t = self.game.slap_go
        self.race.open(self.go_t)
        self.armed = True
        self.went = False
        self.app.wake(self.go_t)  # GO on time (SPIT-17), and before a release after it
        self.app.sound(COUNT)
        self.app.quiet()  # the slap's GO is a second away: collect the heap now

    def _slap_tick(self, now_us):  # verdict
        if not self.armed:
            self._arm(now_us)
            return
        app = self.app
        if not self.went:
            if ticks_diff(now_us, self.go_t) >= 0:
                self.went = True
                self.note = ""
                app.sound(GO)
                app.redraw()
            else:
                app.wake(self.go_t)  # GO on time (SPIT-17)
        n = self.race.pressed()
        if not n:
            return
        if n < 2 and ticks_diff(now_us, self.first_t) < SLAP_WAIT_US:
            app.wake(ticks_add(self.first_t, SLAP_WAIT_US))
            return  # wait for the second slap, so its margin is shown
        v = self.race.decide(now_us)
        if v is None:
            app.wake(ticks_add(self.first_t, self.race.window_us + 1))
            return  # the tie window has not passed yet
        # The winner's pad lights first (both on a tie): the players look at
        # the pads at this instant; the rest (the engine, the log, the save,
        # the screen) follows.
        self.app.light(3 if v.winner is None else 1 << v.winner)
        g = self.game
        # SPIT-10: the first slap takes the smaller pile; the engine gives a
        # tie (within the window) to the player who cleared.
        w = g.slap(v.winner, self.first_t)
        self.armed = False
        self.entries += "ab"[w]
        self.slap_text = v.text() if v.winner is not None else v.text() + ": " + NAMES[w]
        self.app.sound(WIN)
        self._round_over()
        # then the panel: the pile screen drawn now, so the frame is complete
        # before the slap's log line (a dict and its lists) is built
        self.app.render()
        d = v.to_dict()
        d["ev"] = "slap"
        d["game"] = "spit"
        d["kind"] = "pile"
        d["round"] = g.hands_played + 1
        d["cleared"] = g.cleared
        d["takes_smaller"] = w
        self.app.emit(d)

    def _round_over(self):
        # The round has ended (slap, one pile, blocked): save now, because a
        # slap verdict cannot be played again after a power cut; the save is
        # written at the end of the pass (App.save), after the slap's line.
        self._first_guess()
        self._save()
        self._to(CARDS)
        self.app.news |= _TOP  # who takes which pile: the title

    def _first_guess(self):
        # P1's count at the round's start, or the nearest the round can leave
        lo, hi = self.game.count_range()  # SPIT-22
        c = self.game.cards[0]
        self.count = lo if c < lo else hi if c > hi else c

    def _step(self, b):
        v = self.count + (1 if b == UP else -1)
        lo, hi = self.game.count_range()  # SPIT-12, SPIT-14, SPIT-22
        if lo <= v <= hi:
            self.count = v
            self.app.redraw()

    def _relayout(self):
        g = self.game
        restarts = g.restarts
        a = self.count
        g.relayout(a, spit.DECK - a)  # SPIT-12 checks the counts again
        self.done.append([self.entries, a, spit.DECK - a])
        self.entries = ""
        self._emit_round(restarts)
        self.app.sound(CLICK)
        self._save()
        self._new_round()
        self.app.redraw()

    def _emit_round(self, restarts):
        g = self.game
        d = dict(g.rounds[-1])
        d["ev"] = "round"
        d["game"] = "spit"
        d["round"] = g.hands_played
        d["restarts"] = restarts
        self.app.emit(d)

    def _save(self):
        self.app.save(self)  # save_state() at the end of the pass

    def save_state(self):
        """The state a resumed game gets back.  At any moment it is the last
        boundary: the completed rounds, and this round's entries only once
        it has ended (or the win)."""
        g = self.game
        return {
            "done": [list(x) for x in self.done],
            "now": self.entries if g.phase in ("relayout", "over") else "",
            "false_starts": list(self.false_starts),
            "text": self.slap_text,
        }

    def resume_at(self):
        """Where a resumed game goes on, for the resume screen: a round is
        saved when it ends (its slap verdict) and after its count, so a cut
        before its end's save resumes at the round's start."""
        g = self.game
        ph = g.phase
        if ph == "over":
            return "game over"
        return "round %d %s" % (g.hands_played + 1, "count" if ph == "relayout" else "start")

    # ---- entries and rebuilding --------------------------------------------
    def _enter(self, e, t_us=None):
        """Apply one entry to the engine and add it to this round's code."""
        _apply(self.game, e, t_us)
        self.entries += e

    def _new_round(self):
        for p in (0, 1):
            self.ready[p] = False
            self.stuck[p] = False
        self.slap_text = ""
        self.armed = False
        self.race.close()
        self.phase = LAYOUT

    def _rebuild(self):
        """Replay the completed rounds and this round's entries into a fresh
        SpitGame: every entry passes the engine's rules again."""
        g = spit.SpitGame(self.players)
        self.game = g
        for e, a, b in self.done:
            for c in e:
                _apply(g, c)
            g.relayout(a, b)
        self._new_round()
        for c in self.entries:
            _apply(g, c)
        ph = g.phase
        if ph == "over":
            self.phase = FINAL
        elif ph == "relayout":
            self.phase = CARDS
        elif ph == "slap":
            self.phase = SLAP  # armed by the next tick (or by undo)
        elif ph == "play":
            self.phase = PLAY
        # else "spit": the round has not started, LAYOUT (from _new_round)


def _apply(g, e, t_us=None):
    """One entry on the engine through its public API: the engine holds
    every rule (spit cards turned, the win, the slap's GO, blocked rounds);
    this only decodes the letter."""
    if e == "S" or e == "R":
        # S is the start and R a restart: a save that mixes them up is refused.
        if (e == "S") != (g.phase == "spit"):
            raise RuleError("SPIT-8", "round %d: %s out of turn" % (g.hands_played + 1, e))
        g.spit(0)  # SPIT-4 / SPIT-8
        g.spit(1)
    elif e == "0" or e == "1":
        g.clear(int(e), t_us)  # SPIT-9, SPIT-14, SPIT-17
    elif e == "a" or e == "b":
        g.slap(0 if e == "a" else 1)  # SPIT-10
    elif e == "B":
        g.block()  # SPIT-13 (SPIT-8 while anyone can spit)
    else:
        raise ValueError("unknown Spit entry %r" % e)
