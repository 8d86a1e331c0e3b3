"""speedref-sim --play spit: one person (P1) against a computer player (P2),
the referee app refereeing both.

A scripted person plays whole games headless through the play terminal's own
keys (a s d f g for a stock pile, `,` `.` for a centre pile, `e` for an
empty space, `z` to tap the pad, `Z` to hold it, Enter on the referee's
screens), in simulated time, with mistakes: false starts in the countdown
and in the slap, a "cleared" tap with stock cards left and a stuck hold while
a card still fits (both refused by the table, which knows the cards).  The
computer player plays real cards with speedref.engine.spit_cards and presses
its pad.  At the end the referee's record must be the cards' record (SPIT-15):
every round's clearing, slap and counts (SPIT-9..SPIT-14), and its false
starts are the person's early presses (SPIT-18)."""
import random

import pytest

from play_person import ScriptedPerson
from sim import compat

compat.install()

from sim.table.spit_person import SpitPlay, terminal_class, PILE_KEYS, HUMAN, BOT  # noqa: E402
from speedref.engine import spit  # noqa: E402

ENTER = 10


class SpitPerson(ScriptedPerson):
    """P1 at the Spit table."""

    def __init__(self, tb, term, rng, mistakes=True):
        super().__init__(tb, term, rng, mistakes)
        self.last = None
        self.early = []          # (when, round) of the presses made before a GO on purpose
        self.slap_at = None
        self.early_at = None
        self.tried = set()

    def act(self):
        tb = self.tb
        F = tb.F
        ph = tb.phase
        st = tb.st
        new = ph != self.last
        self.last = ph
        rnd = len(st.rounds) + 1 if st is not None else 1
        if ph == F.LAYOUT:
            self.key(ENTER)
        elif ph == F.READY and new:
            self.key("z")                                   # SPIT-4: Spit!
        elif ph == F.START:
            if new and self.mistakes and self.rng.random() < 0.3:
                self.early_at = tb.t + 1000000
                self.early.append(("start", rnd))
            elif self.early_at is not None and tb.t >= self.early_at:
                self.early_at = None
                self.key("z")                               # SPIT-18: 2 s before GO
        elif ph == F.PLAY and st is not None:
            self._play()
        elif ph == F.SLAP:
            self._slap(new)
        elif ph == F.FINAL:
            self.key(ENTER)

    def _play(self):
        tb = self.tb
        st = tb.st
        SP = tb.SP
        if tb.cleared_tap:
            self.key("z")                                   # SPIT-9: my stock piles are empty
            return
        if not tb.live or st.phase != "play":
            return
        acts = st.legal_actions(HUMAN)
        plays = [a for a in acts if a < 16]
        turns = [a for a in acts if SP.turn_action(0) <= a < SP.turn_action(5)]
        moves = [a for a in acts if SP.move_action(0, 0) <= a < SP.move_action(5, 0)]
        if plays and self.mistakes and "refusals" not in self.tried:
            self.tried.add("refusals")
            n = len(tb.lines)
            for ch in ("z", "Z"):                           # not cleared, not stuck: refused
                self.term.feed_key(ord(ch), tb.t)
                self.refused.append(tb.note)
                assert not tb.finger[HUMAN] and len(tb.lines) == n
            self.next_t = tb.t + 600000                     # past the keys' repeat delay
            return
        if plays:
            a = plays[self.rng.randrange(len(plays))]
            self.key(PILE_KEYS[a & 7])
            self.key(",."[a >> 3])
        elif turns:
            self.key(PILE_KEYS[turns[0] - SP.turn_action(0)])  # SPIT-6: the letter turns it up
        elif moves:
            self.key(PILE_KEYS[(moves[0] - SP.move_action(0, 0)) >> 3])
            self.key("e")
        elif acts == [SP.SPIT] and not tb.finger[HUMAN]:
            self.key("Z")                                   # SPIT-8: stuck

    def _slap(self, new):
        tb = self.tb
        if new:
            self.slap_at = None
            if self.mistakes and self.rng.random() < 0.25:
                self.next_t = tb.slap_go - 500000           # SPIT-18: before the slap's GO
                self.early.append(("slap", len(tb.st.rounds) + 1))
                self.slap_at = "early"
            return
        if self.slap_at == "early":
            self.slap_at = None
            self.key("z")
            return
        if HUMAN in tb.slap_in or tb.t < tb.slap_go:
            return
        if self.slap_at is None:
            self.slap_at = tb.slap_go + self.rng.randint(100000, 900000)
        if tb.t >= self.slap_at:
            self.slap_at = -1
            self.key(self.rng.choice("z,."))                # SPIT-10: the smaller pile, or 1 / 2


def play_game(seed, pace="fast", mistakes=True):
    cls, _ = terminal_class()
    tb = SpitPlay(seed, realtime=False, pace=pace)
    tb.start()
    term = cls(tb, 500000, 150000)
    person = SpitPerson(tb, term, random.Random(seed), mistakes)
    tb.at(tb.t + 100000, person.tick)
    try:
        tb.run(lambda: tb.done, limit_us=3 * 3600 * 1000000)
        return tb, person, term, tb.board.records()
    finally:
        tb.close()


@pytest.mark.parametrize("seed,pace", [(1, "fast"), (5, "fast"), (12, "normal")])
def test_spit10_spit15_a_person_plays_a_whole_game_against_the_computer(seed, pace):
    """The referee's game_end record is the cards' record: every round (who
    cleared, who took the smaller pile, the counts after the relayout), the
    win; its round lines say the same; nothing went wrong on the device."""
    tb, person, term, stored = play_game(seed, pace)
    st = tb.st
    assert st.phase == "over" and tb.record is not None
    app = {k: v for k, v in tb.record.items() if k not in ("id", "table")}
    assert app["rounds"] == st.rounds                                  # SPIT-9..SPIT-15
    assert spit.replay(app).winners() == [st.winner]                   # SPIT-14
    assert tb.record in stored
    rounds = [o for _, o in tb.lines if o.get("ev") == "round"]
    assert [o["cards"] for o in rounds] == [r["cards"] for r in st.rounds]  # SPIT-12
    assert not [o for _, o in tb.lines if o.get("ev") == "error"]
    slaps = [o for _, o in tb.lines if o.get("ev") == "slap"]
    assert len(slaps) == sum(1 for r in st.rounds if "slap" in r)     # SPIT-10: the app's races
    # the person really played, with the keys the panel shows
    assert person.keys.count(",") + person.keys.count(".") > 10
    texts = [t for _, t in term.log]
    assert "P1 down (you)" in texts and "P2 down (computer)" in texts
    assert not [t for t in texts if t.startswith("P1") and "computer" in t]


def test_spit18_the_persons_early_presses_are_the_referees_false_starts():
    """SPIT-18: a pad before the start's GO and before the slap's GO: the
    referee's false_start lines (its verdicts, which the table follows) are
    exactly the person's early presses, and the game still ends in a record
    equal to the cards'."""
    for seed in range(2, 12):
        tb, person, term, stored = play_game(seed)
        fs = [(o["when"], o["round"]) for _, o in tb.lines
              if o.get("ev") == "false_start" and o["seat"] == HUMAN]
        if {w for w, _ in person.early} == {"start", "slap"}:
            break
    assert {w for w, _ in person.early} == {"start", "slap"}
    assert fs == person.early
    assert not [o for _, o in tb.lines if o.get("ev") == "false_start" and o["seat"] == BOT]
    assert {k: v for k, v in tb.record.items() if k not in ("id", "table")}["rounds"] == tb.st.rounds


def test_spit8_spit9_the_pad_cannot_say_what_the_cards_deny():
    """A tap ("cleared", SPIT-9) with stock cards left and a hold ("stuck",
    SPIT-8) while a card still fits are refused: the panel says why and the
    referee sees no press at all."""
    tb, person, term, stored = play_game(1)
    assert len(person.refused) == 2
    assert "SPIT-9" in person.refused[0] and "SPIT-8" in person.refused[1]


def test_spit_panel_shows_your_piles_the_centre_and_the_keys():
    cls, _ = terminal_class()
    tb = SpitPlay(9, realtime=False, pace="slow")
    try:
        tb.start()
        term = cls(tb, 500000, 150000)

        def until(done):
            while not done():
                tb.advance(20000)
                term.release_due(tb.t)
        term.feed_key(ENTER, tb.t)
        until(lambda: tb.phase == tb.F.READY)
        term.feed_key(ord("z"), tb.t)
        until(lambda: tb.live)
        text = "\n".join(term.panel())
        assert "Centre piles:" in text and "Your piles:    a:" in text and "Computer:" in text
        assert "z = tap your pad" in text and "Z = hold it" in text
        assert tb.people[BOT].pace == 5
    finally:
        tb.close()


def _in_play(seed=9):
    cls, _ = terminal_class()
    tb = SpitPlay(seed, realtime=False, pace="slow")
    tb.start()
    term = cls(tb, 500000, 150000)

    def until(done):
        while not done():
            tb.advance(20000)
            term.release_due(tb.t)
    term.feed_key(ENTER, tb.t)
    until(lambda: tb.phase == tb.F.READY)
    term.feed_key(ord("z"), tb.t)
    until(lambda: tb.live)
    return tb, term, until


def test_a_clearing_the_cards_never_made_is_said_not_a_crash():
    """A tap on your pad that reaches the referee in play is a clearing to it
    (SPIT-19: taken at once), which opens the slap though your stock piles are
    not empty (the play keys refuse such a tap while the cards are live, but
    a random run of keys through the pause menu got one through): the panel
    says the referee and the cards disagree (undo it), where the table
    stopped with a TypeError."""
    tb, term, until = _in_play()
    try:
        assert tb.st.cleared is None
        tb.tap(tb.t + 100000, HUMAN, 80000)  # a tap the cards did not make
        until(lambda: tb.phase != tb.F.PLAY)
        tb.advance(2000000)
        assert tb.phase == tb.F.SLAP and tb.st.cleared is None
        assert "disagree" in tb.note and "Undo" in tb.note
    finally:
        tb.close()


@pytest.mark.parametrize("rows", [40, 50])
def test_the_spit_panel_sits_whole_beside_the_oled_on_160_columns(rows):
    """At 160 columns the panel goes beside the OLED (in Braille when the
    half blocks leave it no room), every line whole: under the half-block
    OLED it had two log rows left, or was cut at the bottom."""
    from test_sim_person_terminal import FakeScreen, _panel_rows
    tb, term, until = _in_play()
    try:
        term.feed_key(ord("a"), tb.t)  # a pile chosen: the panel's longest state
        scr = FakeScreen(160, rows)
        term.draw(scr)
        lines = term.panel()
        got = _panel_rows(scr, lines)
        assert [r.rstrip() for r in got] == lines
        first = [y for y in range(scr.h) if lines[0] in scr.row(y)][0]
        assert first == 0 and scr.row(0).startswith("\u250c"), "beside the OLED"
        assert "too small" not in "\n".join(scr.row(y) for y in range(scr.h))
    finally:
        tb.close()


def test_a_refusal_is_gone_after_your_next_legal_move():
    """"no stuck call" says why a hold was refused; once you play a card it
    is history, not what the panel still says."""
    tb, term, until = _in_play()
    try:
        assert [a for a in tb.st.legal_actions(HUMAN) if a != tb.SP.SPIT]
        term.feed_key(ord("Z"), tb.t)                       # a hold while a card fits
        assert "no stuck call" in tb.note
        move = [a for a in tb.st.legal_actions(HUMAN) if a != tb.SP.SPIT][0]
        assert tb.human(move) is None
        assert "no stuck call" not in tb.note and "SPIT-8" not in tb.note, tb.note
    finally:
        tb.close()
