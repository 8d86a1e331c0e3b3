# The Speed Run referee flow (rules SR-1.. in seeds/speedrun.md), on the
# engine's table-level SpeedRunGame: the engine keeps every rule and every
# score, this flow only asks for the entries and shows where the hand stands.
# Three players, pads P1..P3 (pad 4 takes no part).  Phases of one hand:
#
#   HAND      who holds the first-player card, who chooses, who leads (SR-5,
#             SR-7, SR-8).  Hand 1 only: the holder taps their pad.  OK: next
#   TRUMP     UP/DOWN through the trumps, OK                        (SR-7)
#   RANK      UP/DOWN through the rankings with their start direction, OK (SR-9)
#   PLAY      the trick winner taps their pad (SR-11, SR-12); a player holds
#             their pad to reveal their contract (SR-21).  The screen shows
#             the trick number, each player's tricks, the trump and the
#             direction in force for the next trick.
#   REVEAL    UP/DOWN through the contracts that player still holds (no Pass,
#             SR-22) or Cancel, OK
#   CONTRACT  after the 12th trick, each unrevealed contract in seat order:
#             the card turned over, legal ones first (SR-13, SR-19), then the
#             cards that may not be played, each a foul (SR-30)
#   TARGET    a Redo names the completed contract it plays again (SR-19)
#   RESULT    the hand's scores and the running totals (SR-14..SR-20, SR-28);
#             a Redo shows as REDO with what it changed on the sheet (SR-31)
#   FINAL     standings and the tie-break that decided them (SR-24..SR-27);
#             OK stores the record
#
# Undo (pause menu) takes back the last entry: a contract or Redo target, a
# reveal or a trick (the engine's own undo), the ranking, or the whole last
# hand (back to its last contract entry).  The entries of every hand are kept
# as [trump, ranking, seq, contracts], seq holding a seat per trick and
# [seat, contract] per reveal in the order they happened (packed into a short
# string for the save: pack/unpack below); a resumed game is
# rebuilt from them through the engine's public API, so it is checked by the
# same rules and undo works across a power cut.  Saved at every hand boundary.
#
# A method whose `def` line ends in `# verdict` decides a verdict or says it
# (make mutate mutates those: docs/testing.md, "The flows' verdicts").
from .. import collect
from ..engine import speedrun
from . import ui
from ..names import for_game, fit, short as cut
from .timing import PadHold
from .core import Flow, UP, DOWN, OK, CLICK, CALL, WIN, ERROR
from ..tunables import SPEEDRUN_HOLD_US

from micropython import const

HAND = const(0)
TRUMP = const(1)
RANK = const(2)
PLAY = const(3)
REVEAL = const(4)
CONTRACT = const(5)
TARGET = const(6)
RESULT = const(7)
FINAL = const(8)

CANCEL = "Cancel"

TRUMP_WORDS = ("Worms", "Raccoons", "Geckos", "Gorillas", "No trump")  # speedrun.TRUMPS order
_RANK_WORDS = const(("10 high", "1 high", "Slalom", "Slalom", "Bell", "Bell"))  # speedrun.RANKINGS order
_WORDS = {"W0": "Win 0", "W1": "Win 1", "W4": "Win 4", "W5": "Win 5", "W7": "Win 7",
          "W9": "Win 9", "FEWEST": "Fewest", "MIDDLE": "Middle", "MOST": "Most",
          "PASS": "Pass", "REDO": "Redo", "FOUL": "Foul"}
_SHORT = {"FEWEST": "FEW", "MIDDLE": "MID", "MOST": "MOST", "PASS": "PASS", "REDO": "REDO"}
_WHY = {"lowest total": "lowest total", "more completed contracts": "more contracts",
        "more Perfect Bonuses": "more perfects", "shared": "share the win"}


def word(c):
    """A contract as a person reads it: "Win 4", "Redo", "Redo Win 4"."""
    if c == CANCEL:
        return c
    if c[4:5] == ":":  # "REDO:W4", "FOUL:W4" (SR-30)
        return _WORDS[c[:4]] + " " + _WORDS[c[5:]]
    return _WORDS[c]


def short(c):
    """A contract in at most 5 characters, for three columns."""
    if c[4:5] == ":":
        return (c[0] + short(c[5:]))[:5]
    return c if c[0] == "W" else _SHORT[c]


def pack(seq):
    """A hand's entries as a short string for the save (flash and heap are
    small): "0".."2" = trick won by that seat, "a".."c" + contract + "," =
    that seat's reveal.  [0, [1, "W4"], 2] -> "0bW4,2"."""
    out = []
    for e in seq:
        if isinstance(e, int):
            out.append("012"[e])
        else:
            out.append("abc"[e[0]] + e[1] + ",")
    return "".join(out)


def unpack(s):
    """The inverse of pack; ValueError on anything else (a damaged save)."""
    seq = []
    i = 0
    while i < len(s):
        k = "012".find(s[i])
        if k >= 0:
            seq.append(k)
            i += 1
        else:
            j = s.find(",", i)
            if j < 0:
                raise ValueError("bad hand entries %r" % s)
            seq.append(["abc".index(s[i]), s[i + 1:j]])
            i = j + 1
    return seq


class SpeedRunFlow(Flow):
    GAME = "speedrun"
    PHASES = FINAL + 1  # its phases are 0..FINAL (the conformance tests reach and draw each)

    def __init__(self, app, opts, now_us, state=None):
        self.app = app
        self.opts = opts
        self.length = opts["length"]
        # the players' names (the picker's; seat labels for guests): the
        # record's "players", and the screens' (5 characters a column)
        self.names = for_game(opts, 3)
        self.cols = tuple(cut(n, 5) for n in self.names)
        self.starred = tuple(cut(n, 4) + "*" for n in self.names)  # a revealed contract's
        first = 0 if state is None else state["first"]
        self.g = speedrun.SpeedRunGame(self.length, self.names, first)
        # Pads: preallocated, so a press allocates nothing.  A press is live
        # (may become a tap or a hold) when it began in PLAY.
        h = SPEEDRUN_HOLD_US
        self.pads = (PadHold(h, app), PadHold(h, app), PadHold(h, app))
        self.done = []         # finished hands' entries [trump, ranking, seq, contracts]
        self.scores = None     # the last finished hand's scores (None = Pass)
        self.changes = None    # ... and what each added to its total (a Redo: SR-31)
        self.note = ""         # one line of news (refused reveal, ...)
        self.choices = ()      # what UP/DOWN steps through in a pick phase
        self.cursor = 0
        self.seat = 0          # who is revealing, or whose contract is asked
        self.trump_i = 0       # trump picked in TRUMP, set with the ranking
        self._saved_first = first
        if state is not None:
            for h in state["hands"]:
                self._replay(h)
        self._new_hand()
        if self.done:
            self.phase = FINAL if self.g.over else RESULT
        else:
            self.phase = HAND
        if state is None:
            self._save()  # a power cut in hand 1 can be resumed too

    def _replay(self, h):
        # One finished hand through the public API, entries in their order.
        trump, ranking, seq, contracts = h
        g = self.g
        g.set_choices(trump, ranking)
        for e in unpack(seq):
            if isinstance(e, int):
                g.record_trick(e)
            else:
                g.reveal(e[0], e[1])
        t0 = list(g.totals)
        self.scores = g.finish_hand(contracts)
        self.changes = [g.totals[s] - t0[s] for s in (0, 1, 2)]
        self.done.append([trump, ranking, seq, list(contracts)])

    # ---- the flow interface (docs/app.md) -------------------------------
    def press(self, b, t_us):
        if b < 3:
            self.pads[b].press(t_us, self.phase == PLAY)
        elif b < UP:
            return  # pad 4 takes no part in a three-player game
        self._PRESS[self.phase](self, b, t_us)

    # one handler a phase (as drawing has one screen a phase): b is a pad
    # (0..2), UP, DOWN or OK
    def _press_hand(self, b, t_us):
        g = self.g
        if b < UP:
            if g.hands_played == 0:
                self._set_first(b)
        elif b == OK:
            if g.hands_played == 0 and g.first != self._saved_first:
                self._save()  # the table chose who holds the card (SR-5)
            self._pick(TRUMP, speedrun.TRUMPS, 0)

    def _press_choice(self, b, t_us):
        # the trump (TRUMP), then the ranking (RANK)
        if b != OK:
            self._move(b)
        elif self.phase == TRUMP:
            self.trump_i = self.cursor
            self._pick(RANK, speedrun.RANKINGS, 0)
        else:
            self.g.set_choices(speedrun.TRUMPS[self.trump_i], speedrun.RANKINGS[self.cursor])
            self.app.sound(CLICK)
            self._to(PLAY)

    def _press_play(self, b, t_us):
        pass  # the pads' taps and holds: release() and tick()

    def _press_reveal(self, b, t_us):  # verdict
        if b != OK:
            self._move(b)
            return
        c = self.choices[self.cursor]
        if c != CANCEL:
            g = self.g
            g.reveal(self.seat, c)  # SR-21: it will score double
            self.seq.append([self.seat, c])
            self.app.emit({"ev": "reveal", "game": "speedrun", "hand": g.hands_played + 1,
                           "seat": self.seat, "contract": c, "trick": g.tricks_played() + 1})
            self.app.sound(CALL)
        self._to(PLAY)

    def _press_contract(self, b, t_us):  # verdict
        # a seat's contract (CONTRACT), or the one its Redo plays again (TARGET)
        if b != OK:
            self._move(b)
            return
        c = self.choices[self.cursor]
        if self.phase == TARGET:
            self.contracts[self.seat] = "REDO:" + c
            self._ask(self.seat + 1)
        elif c == "REDO":
            self._pick(TARGET, self.g.redo_targets(self.seat), 0)
        else:
            self.contracts[self.seat] = c
            self._ask(self.seat + 1)

    def _press_result(self, b, t_us):
        if b == OK:
            self._to(FINAL if self.g.over else HAND)

    def _press_final(self, b, t_us):
        if b == OK:
            rec = self.g.to_record()
            # the game's sheet and entries are no longer needed: a Long
            # game's record line wants a 2 KB block in a 64 KB heap
            self.g = self.done = None
            self.app.finish(rec)
            self.app.close()

    # indexed by phase: HAND, TRUMP, RANK, PLAY, REVEAL, CONTRACT, TARGET, RESULT, FINAL
    _PRESS = (_press_hand, _press_choice, _press_choice, _press_play, _press_reveal,
              _press_contract, _press_contract, _press_result, _press_final)

    def _move(self, b):
        # UP/DOWN through the choices of a pick phase, round the ends
        if b == UP or b == DOWN:
            n = len(self.choices)
            self.cursor = (self.cursor + (1 if b == DOWN else n - 1)) % n
            self.app.redraw()

    def release(self, b, t_us):  # verdict
        if b >= 3:
            return
        if self.pads[b].release(t_us) and self.phase == PLAY:
            self._trick(b)

    def tick(self, now_us):  # verdict
        if self.phase != PLAY:
            return
        for p in (0, 1, 2):
            if self.pads[p].held(now_us):  # a hold, not a tap: this player reveals
                self._reveal(p)
                return

    def can_undo(self):
        return self.phase not in (HAND, TRUMP) or self.g.hands_played > 0

    def undo(self, now_us):
        ph = self.phase
        g = self.g
        self.note = ""
        if ph == RANK:
            self._pick(TRUMP, speedrun.TRUMPS, self.trump_i)
        elif ph == PLAY or ph == REVEAL:
            self._undo_play()
        elif ph == CONTRACT or ph == TARGET:
            self._undo_contract()
        elif g.hands_played:
            self._undo_hand()

    def interrupt(self, now_us):
        """The pause menu opened: a half-made reveal is dropped, holds forgotten."""
        if self.phase == REVEAL:
            self.phase = PLAY
        for p in (0, 1, 2):
            self.pads[p].cancel()

    # ---- steps -----------------------------------------------------------
    def _pick(self, phase, choices, cursor):
        self.choices = choices
        self.cursor = cursor
        self._to(phase)

    def _new_hand(self):
        self.seq = []                        # this hand's tricks and reveals, in order
        self.contracts = [None, None, None]  # entered after the 12th trick

    def _set_first(self, b):
        # SR-5: the table decides who holds the card for hand 1.
        if self.g.first != b:
            self.g = speedrun.SpeedRunGame(self.length, self.names, b)
        self.app.sound(CALL)
        self.app.redraw()

    def _trick(self, p):  # verdict
        g = self.g
        g.record_trick(p)  # SR-11/SR-12; the phase guarantees fewer than 12
        self.seq.append(p)
        self.note = ""
        self.app.sound(CLICK)
        if g.tricks_played() == 12:
            self._ask(0)
        else:
            self.app.redraw()

    def _reveal(self, p):  # verdict
        g = self.g
        if g.revealed[p] is not None:
            self.note = fit("", self.names[p], " revealed")  # SR-21: once
            self.app.sound(ERROR)
            self.app.redraw()
            return
        cs = [c for c in g.legal_contracts(p) if c != "PASS"]  # SR-22
        if not cs:
            self.note = fit("", self.names[p], ": only Pass")
            self.app.sound(ERROR)
            self.app.redraw()
            return
        cs.append(CANCEL)
        self.seat = p
        self.app.sound(CALL)
        self._pick(REVEAL, cs, 0)

    def _ask(self, s):  # verdict
        """Ask for seat s's contract, or the next seat's; score when all are in."""
        g = self.g
        while s < 3:
            r = g.revealed[s]
            if r is None:
                self.seat = s
                self._pick(CONTRACT, self._offer(s), 0)
                return
            if r == "REDO":  # SR-21: a revealed Redo names its target now
                self.seat = s
                self._pick(TARGET, g.redo_targets(s), 0)
                return
            self.contracts[s] = r  # revealed: nothing to ask
            s += 1
        self._finish_hand()

    def _finish_hand(self):
        # A hand's garbage (screens drawn, log lines) lies between what lives
        # all game; collecting here, before the hand's row, log line and save
        # are allocated, keeps large free blocks.  Measured with
        # benchmarks/bench_speedrun_heap.py (Long game through the app, .mpy,
        # Unix port): the smallest heap that completes it is 56wK with this
        # collect, 66wK without (the last hand's garbage is still there when
        # the record's ~1.9 KB USB log line needs one block; a collect on
        # FINAL instead gives 62wK).  Collects at every trick and again on
        # FINAL (there were both) gained nothing (56wK) once the engine kept a
        # hand as one small row and saves streamed.
        collect()
        g = self.g
        n = g.hands_played + 1
        h = [g.trump, g.ranking, pack(self.seq), self.contracts]
        rev = [r is not None for r in g.revealed]
        tricks = list(g.tricks)
        first = g.first
        t0 = list(g.totals)
        self.scores = g.finish_hand(self.contracts)  # SR-14..SR-23, SR-28
        self.changes = [g.totals[s] - t0[s] for s in (0, 1, 2)]
        self.done.append(h)
        self.app.emit({"ev": "hand", "game": "speedrun", "hand": n, "first": first,
                       "trump": h[0], "ranking": h[1], "tricks": tricks,
                       "contracts": list(h[3]), "revealed": rev, "scores": self.scores,
                       "totals": list(g.totals), "over": g.over, "ended_early": g.over and g.ended_early})
        self.app.sound(WIN)
        self._new_hand()
        self._save()
        self._to(RESULT)

    def _save(self):
        self._saved_first = self.g.first0
        self.app.save(self, {"first": self.g.first0, "hands": self.done})

    # ---- undo --------------------------------------------------------------
    def _undo_play(self):
        g = self.g
        self.phase = PLAY
        if self.seq:
            self.seq.pop()  # the engine's last entry is this one: a trick or a reveal
            g.undo()
            self.app.redraw()
        else:
            t = speedrun.TRUMPS.index(g.trump)
            r = speedrun.RANKINGS.index(g.ranking)
            g.undo()  # the choices
            self.trump_i = t
            self._pick(RANK, speedrun.RANKINGS, r)

    def _offer(self, s):  # verdict
        """What seat s may have turned over: its legal contracts, then every
        other card of the length as a foul (SR-30), so a card that may not be
        played is entered as it is, never swapped for a legal one."""
        g = self.g
        return g.legal_contracts(s) + ["FOUL:" + c for c in g.foul_cards(s)]

    def _asked(self, s):
        """Was seat s asked for anything after the 12th trick?"""
        r = self.g.revealed[s]
        return r is None or r == "REDO"

    def _undo_contract(self):
        # The entries after the 12th trick, newest first: a Redo's target,
        # then the Redo itself (a choice of the unrevealed seat), then the
        # previous seat's entry; before the first of them, the 12th trick.
        s = self.seat
        g = self.g
        if self.phase == TARGET and g.revealed[s] is None:
            cs = self._offer(s)
            self._pick(CONTRACT, cs, self._index(cs, "REDO"))
            return
        p = s - 1
        while p >= 0 and not self._asked(p):
            p -= 1
        for q in range(p + 1, 3):
            self.contracts[q] = None
        if p < 0:
            self._undo_play()  # the 12th trick
            return
        self._reopen(p)

    def _reopen(self, p):
        """Back to seat p's last entry, its previous value under the cursor."""
        g = self.g
        c = self.contracts[p]
        self.contracts[p] = None
        self.seat = p
        if c[:5] == "REDO:":
            t = g.redo_targets(p)
            self._pick(TARGET, t, self._index(t, c[5:]))
        else:
            cs = self._offer(p)
            self._pick(CONTRACT, cs, self._index(cs, c))

    def _index(self, items, v):
        for i in range(len(items)):
            if items[i] == v:
                return i
        return 0

    def _undo_hand(self):
        # Reopen the last hand at its last contract entry (or, when all three
        # were revealed and nothing was asked, before its 12th trick).
        g = self.g
        n = len(self.done)
        g.undo()
        h = self.done.pop()
        self._log_undo("hand", n)  # its hand line was logged when it was scored
        self.seq = unpack(h[2])
        self.contracts = list(h[3])
        self.scores = None
        self._save()
        p = 2
        while p >= 0 and not self._asked(p):
            p -= 1
        if p < 0:
            self.contracts = [None, None, None]
            self._undo_play()
        else:
            for q in range(p + 1, 3):
                self.contracts[q] = None
            self._reopen(p)

    # ---- screens: one per phase ------------------------------------------
    def _draw_hand(self, fb):
        g = self.g
        a, b = g.choosers()
        ui.title(fb, "Hand %d of %d" % (g.hands_played + 1, g.hands_total))
        ui.row(fb, 0, fit("1st card: ", self.names[g.first]))
        ui.row(fb, 1, "%s %s choose" % (self.cols[a], self.cols[b]))
        ui.row(fb, 2, fit("", self.names[g.leader()], " leads"))
        # how tricks are entered, from the first hand on (SR-11, SR-21)
        if g.hands_played == 0:
            ui.row(fb, 3, "Holder: tap pad")  # SR-5
            ui.row(fb, 4, "Trick won: tap")
        else:
            ui.row(fb, 3, "Trick won: tap")
            ui.row(fb, 4, "Hold pad: reveal")
        ui.hint(fb, "OK: trump")

    def _draw_choice(self, fb):
        # the trump (TRUMP) and the ranking (RANK) the two choosers chose
        g = self.g
        trump = self.phase == TRUMP
        ui.title(fb, "Hand %d: %s" % (g.hands_played + 1, "trump" if trump else "ranking"))
        a, b = g.choosers()
        ui.center(fb, fit("", "%s or %s" % (self.cols[a], self.cols[b]), " chose"), 12)
        if trump:
            ui.big_center(fb, TRUMP_WORDS[self.cursor], 24, 2)
            ui.center(fb, "BACK: undo/quit", 44)
        else:
            ui.big_center(fb, _RANK_WORDS[self.cursor], 24, 2)
            r = speedrun.RANKINGS[self.cursor]
            if r[0] == "s" or r[0] == "b":  # SR-9: the start direction
                ui.center(fb, "trick 1: %d high" % speedrun.direction(r, 1), 44)
        ui.hint(fb, "UP/DOWN  OK", centred=True)

    def _draw_play(self, fb):
        g = self.g
        ui.title(fb, "H%d  Trick %d/12" % (g.hands_played + 1, g.tricks_played() + 1))
        self._columns(fb, g.tricks)
        for p in (0, 1, 2):
            # "P1*" where it always was; a longer name from the column's edge
            c = self.starred[p] if g.revealed[p] else self.cols[p]
            ui.text(fb, c, 43 * p + (9 if len(c) <= 3 else 0), 37, 1)
        # SR-9/SR-11: what wins the next trick
        ui.row(fb, 4, "%s %d high" % (TRUMP_WORDS[speedrun.TRUMPS.index(g.trump)], g.direction()))
        ui.hint(fb, self.note or fit("", self.names[g.next_leader()], " leads"))

    def _draw_reveal(self, fb):
        c = self.choices[self.cursor]
        ui.title(fb, fit("", self.names[self.seat], " reveals"))
        ui.big_center(fb, word(c), 16, 3)
        if c != CANCEL:
            ui.center(fb, "scores double", 44)
        ui.hint(fb, "UP/DOWN  OK", centred=True)

    def _draw_contract(self, fb):
        # a seat's contract (CONTRACT), or the one its Redo plays again (TARGET)
        s = self.seat
        ui.title(fb, fit("", self.names[s], " contract?" if self.phase == CONTRACT else " Redo which?"))
        c = self.choices[self.cursor]
        t = self.g.tricks[s]
        ui.center(fb, "1 trick" if t == 1 else "%d tricks" % t, 12)
        ui.big_center(fb, word(c), 24, 3)
        if c[:5] == "FOUL:":  # SR-30: a card that may not be played
            ui.center(fb, "illegal: +%d" % speedrun.FOUL_SCORE, 44)
        ui.hint(fb, "UP/DOWN  OK", centred=True)

    def _draw_result(self, fb):
        g = self.g
        ui.title(fb, "Hand %d scores" % g.hands_played)
        h = self.done[-1]
        rev = g.hand(-1)["revealed"]
        for p in (0, 1, 2):
            x = 43 * p
            c = h[3][p]
            sc = self.scores[p]
            if c[:5] == "REDO:":
                # SR-31: everyone sees a Redo, not which contract it
                # played again; its score beside the public trick count
                # would tell, so the column shows what it changed
                c = "REDO"
                sc = self.changes[p]
            _ctext(fb, short(c) + ("*" if rev[p] else ""), x, 11)
            _ctext(fb, "-" if sc is None else ("%+d" % sc), x, 20)
        for p in (0, 1, 2):  # whose column: the totals below
            _ctext(fb, self.cols[p], 43 * p, 29)
        self._columns(fb, g.totals, 38, 2)
        if g.over:
            ui.hint(fb, "Early end! OK" if g.ended_early else "Last hand! OK")
        else:
            ui.hint(fb, "Totals   OK:next")

    def _draw_final(self, fb):
        g = self.g
        w = g.winners()
        ui.title(fb, "Ended early" if g.ended_early else "Game over")
        if len(w) == 1:
            ui.big_center(fb, fit("", self.names[w[0]], " wins"), 12, 2)
        else:  # SR-27: still tied, the win is shared
            ui.big_center(fb, fit("", " ".join([self.cols[s] for s in w])), 12, 2)
        ui.center(fb, _WHY.get(g.tiebreak, g.tiebreak), 30)  # SR-24..SR-27
        self._columns(fb, g.totals, 39, 2)
        ui.hint(fb, "OK: save & end")

    # indexed by phase: HAND, TRUMP, RANK, PLAY, REVEAL, CONTRACT, TARGET, RESULT, FINAL
    _SCREENS = (_draw_hand, _draw_choice, _draw_choice, _draw_play, _draw_reveal,
                _draw_contract, _draw_contract, _draw_result, _draw_final)

    def _columns(self, fb, counts, y=12, most=3):
        """Three numbers in big digits, one column per player."""
        for p in (0, 1, 2):
            s = str(counts[p])
            scale = most if len(s) == 1 else 2
            if 8 * scale * len(s) > 42:
                scale = 1
            ui.big(fb, s, 43 * p + (42 - 8 * scale * len(s)) // 2, y, scale)


def _ctext(fb, s, x, y):
    """Small text centred in the 42-pixel column starting at x."""
    ui.text(fb, s, x + (42 - 8 * len(s)) // 2, y, 1)
