"""speedref-sim --play partners: one person (P1) with and against three
computer players (P2..P4), the referee app refereeing all four.

A scripted person plays whole games headless through the play terminal's own
keys (letters for bids, the partner and cards, `p` to pass, `+` for higher
bids, `z` to tap the pad where they sit now, Enter on the referee's screens),
in simulated time.  The computer players bid and play real cards with
speedref.engine.partners_cards (the computer table's own policy) and press
their pads and the buttons.  At the end the referee's record must equal the
cards': every hand's dealer, contract, partner, seats and trick counts
(PT-3..PT-13), the scores and the winner (PT-14..PT-19).  After a seat swap
(PT-8) the terminal names each pad by the player sitting there, in its
legend and its event log, as the app's seating says; so does the plain
interactive simulator while partners runs."""
import random

import pytest

from play_person import ScriptedPerson
from sim import compat

compat.install()

from sim.table.partners_person import PartnersPlay, terminal_class, CARD_KEYS, HUMAN  # noqa: E402
from sim.tui import TAP_KEYS, HOLD_KEYS  # noqa: E402
from speedref.engine import partners  # noqa: E402

ENTER = 10


class PartnersPerson(ScriptedPerson):
    """P1 at the partners table."""

    def __init__(self, tb, term, rng, mistakes=True):
        super().__init__(tb, term, rng, mistakes)
        self.wait = False        # a test holds the person back

    def act(self):
        tb = self.tb
        if self.wait:
            return
        f = tb._flow()
        st = tb.st
        if f is None or st is None or tb.wrong(f):
            return
        F = tb.F
        ph = f.phase
        c = tb.contract(tb.hand_no(f))
        if tb.owed(f) == HUMAN:
            self.key("z")                                  # PT-13: I won that trick
        elif ph == F.CONTRACTOR and c and c[2] == HUMAN:
            self.key("z")                                  # PT-7: I won the bid
        elif ph == F.PARTNER and c and c[3] == HUMAN:
            self.key("z")                                  # PT-8: I am the partner
        elif ph in (F.SWAP, F.HAND, F.TOTALS, F.FINAL):
            self.key(ENTER)
        elif st.current_player() == HUMAN and tb._may_act(f, tb.hand_no(f)):
            self._turn()

    def _turn(self):
        tb = self.tb
        st = tb.st
        PP = tb.PP
        if st.phase == "bid":
            if PP.PASS in st.legal_actions(HUMAN) and self.rng.random() < 0.6:
                self.key("p")
            else:
                if self.rng.random() < 0.3:
                    self.key("+")                          # higher bids
                self.key(CARD_KEYS[self.rng.randrange(min(3, len(tb.choices())))])
            return
        if st.phase == "partner":
            self.key(CARD_KEYS[self.rng.randrange(3)])
            return
        cards = [(k, a) for k, a, _ in tb.choices()]
        legal = st.legal_actions(HUMAN)
        wrong = [k for k, a in cards if a not in legal]
        if self.mistakes and wrong and self.rng.random() < 0.2:
            n = len(st.hands[HUMAN])
            self.key(wrong[0])                             # PT-12: refused
            self.refused.append(tb.note)
            assert len(st.hands[HUMAN]) == n
            return
        ok = [k for k, a in cards if a in legal]
        self.key(ok[self.rng.randrange(len(ok))])


def _start(seed, target=100, pace="fast"):
    cls, _ = terminal_class()
    tb = PartnersPlay(seed, realtime=False, pace=pace, target=target)
    tb.start()
    term = cls(tb, 500000, 150000)
    person = PartnersPerson(tb, term, random.Random(seed))
    tb.at(tb.t + 100000, person.tick)
    return tb, term, person


def _agrees(tb):
    app = {k: v for k, v in tb.record.items() if k not in ("id", "table")}
    assert app == tb.st.record()                                       # PT-3..PT-13
    got = partners.replay(app)
    assert got.totals == tb.st.table.totals and got.winners() == tb.st.table.winners()  # PT-14..PT-19
    return app


@pytest.mark.parametrize("seed,pace", [(2, "fast"), (9, "normal")])
def test_pt8_pt13_a_person_plays_a_whole_game_with_three_computer_players(seed, pace):
    """The referee's record is the cards' record; the person really bid,
    played (a card not following suit refused, PT-12) and tapped their pad
    for their tricks."""
    tb, term, person = _start(seed, pace=pace)
    try:
        tb.run(lambda: tb.done, limit_us=5 * 3600 * 1000000)
        app = _agrees(tb)
        assert tb.record in tb.board.records()
        assert not [o for _, o in tb.lines if o.get("ev") == "error"]
        mine = sum(h["tricks"][HUMAN] for h in app["hands"])
        assert person.keys.count("z") >= mine
        assert person.refused and all("PT-12" in r for r in person.refused)
    finally:
        tb.close()


def test_pt8_after_a_seat_swap_z_is_your_pad_and_every_pad_is_named_by_who_sits_there():
    """PT-8: when a partner is named who does not sit opposite, two players
    change seats ("P1: go to pad 4").  From then on z taps the pad you sit
    at, and the legend, the panel and the event log name every pad by
    whoever sits there now, as the app's seating (PartnersGame.seats) says:
    "P1 (pad 4) [4/z]", "P1 (pad 4) down (you)"."""
    for seed in range(1, 40):
        tb, term, person = _start(seed, target=50)
        try:
            tb.run(lambda: tb.done or (tb._flow() is not None and tb._flow().phase == tb.F.TRICKS
                                       and tb.board.app.flow.game.seat_of(HUMAN) != HUMAN),
                   limit_us=5 * 3600 * 1000000)
            if not tb.done:
                break
        except Exception:
            tb.close()
            raise
        tb.close()
    try:
        seats = tb.board.app.flow.game.seats
        pad = tb.your_pad()
        assert seats[pad] == HUMAN and pad != HUMAN
        legend = term.legend()
        assert "P1 (pad %d) [%s/z]" % (pad + 1, TAP_KEYS[pad]) in legend[0]
        assert "P1 (pad %d) [%s/Z]" % (pad + 1, HOLD_KEYS[pad]) in legend[1]
        other = seats[HUMAN]
        assert "P%d (pad 1) [1]" % (other + 1) in legend[0]     # z is no longer pad 1's
        assert "(pad %d)" % (pad + 1) in "\n".join(tb.panel())
        # z taps the pad you sit at: the referee counts the trick for you
        person.wait = True
        n = len(term.log)
        term.feed_key(ord("z"), tb.t)
        tb.advance(200000)
        term.release_due(tb.t)
        tb.advance(200000)
        new = [t for _, t in term.log[n:]]
        assert "P1 (pad %d) down (you)" % (pad + 1) in new
    finally:
        tb.close()


def test_pt13_a_wrong_trick_tap_stops_the_table_until_it_is_undone():
    """PT-13: the person taps their pad for a trick a computer player won.
    The referee counts it for P1 (it cannot know better); the computer
    players see the wrong count, wait, and the panel says how to fix it;
    BACK, "Undo last", OK takes the trick back, the real winner taps, and the
    game ends in a record equal to the cards'."""
    tb, term, person = _start(4, target=50)
    try:
        tb.run(lambda: tb._flow() is not None and tb.owed(tb._flow()) not in (None, HUMAN))
        f = tb._flow()
        winner = tb.owed(f)
        before = list(f.game.tricks)
        person.wait = True
        term.feed_key(ord("z"), tb.t)                              # the wrong player's tap
        tb.advance(300000)
        term.release_due(tb.t)
        tb.advance(3000000)
        g = tb.board.app.flow.game
        assert g.tricks[HUMAN] == before[HUMAN] + 1 and tb.wrong(f)
        cards = [len(h) for h in tb.st.hands]
        tb.advance(3000000)
        assert [len(h) for h in tb.st.hands] == cards             # nobody plays on
        assert "BACK, Undo last" in "\n".join(tb.panel())
        for _ in range(3):
            if tb.wrong(tb.board.app.flow) is None:
                break
            term.feed_key(ord("b"), tb.t)                          # the pause menu
            tb.advance(300000)
            term.release_due(tb.t)
            pause = tb.board.app.screen
            while pause.items[pause.cursor] != "Undo last":
                term.feed_key(ord("j"), tb.t)
                tb.advance(300000)
                term.release_due(tb.t)
            term.feed_key(ENTER, tb.t)
            tb.advance(300000)
            term.release_due(tb.t)
        tb.advance(3000000)
        g = tb.board.app.flow.game
        assert g.tricks[HUMAN] == before[HUMAN] and g.tricks[winner] == before[winner] + 1
        person.wait = False
        tb.run(lambda: tb.done, limit_us=5 * 3600 * 1000000)
        _agrees(tb)
    finally:
        tb.close()


def test_pt8_the_interactive_simulator_names_pads_by_who_sits_there():
    """speedref-sim (no --play) running partners: once P2 is named partner of
    P1 (P2 and P3 change seats, PT-8), the legend and the event log call pad
    2 "P3 (pad 2)" and pad 3 "P2 (pad 3)"; before that, plain P2 and P3."""
    from sim.board import Board
    from sim.tui import TerminalSim
    from speedref.app import partners_flow as F
    b = Board()
    try:
        b.step()
        b.start_game("partners")
        sim = TerminalSim(b)
        t = [b.clock.elapsed_us]

        def key(ch):
            t[0] += 600000                        # past the keys' repeat delay (sim/keys.py)
            b.clock.advance_to(t[0])
            sim.feed_key(ch if isinstance(ch, int) else ord(ch), t[0])
            b.step()
            t[0] += 100000
            b.clock.advance_to(t[0])
            sim.release_due(t[0])
            b.step()
        flow = b.app.flow
        key("1")                                                    # PT-3: P1 deals
        assert flow.phase == F.BID
        key(ENTER)                                                  # bid 7
        key("j")                                                    # clubs -> no trump
        key(ENTER)                                                  # 7 notrump (PT-24)
        assert sim.legend()[0].startswith("tap:  P1 [1/z]  P2 [2/m]  P3 [3]  P4 [4]")
        key("3")                                                    # PT-7: P3 won the bid
        assert flow.phase == F.PARTNER
        key("4")                                                    # PT-8: P4, not opposite P3
        assert flow.phase == F.SWAP and list(flow.game.seats) == [3, 1, 2, 0]
        legend = sim.legend()                                       # "P1: go to pad 4"
        assert legend[0].startswith("tap:  P4 (pad 1) [1/z]  P2 [2/m]  P3 [3]  P1 (pad 4) [4]")
        assert legend[1].startswith("hold: P4 (pad 1) [!/Z]  P2 [@/M]  P3 [#]  P1 (pad 4) [$]")
        key(ENTER)                                                  # seats changed
        assert flow.phase == F.TRICKS
        n = len(sim.log)
        key("4")                                                    # PT-13: the player at pad 4: P1
        new = [txt for _, txt in sim.log[n:]]
        assert "P1 (pad 4) down" in new and any(x.startswith("P1 (pad 4) up after") for x in new)
        assert flow.game.tricks == [1, 0, 0, 0]
    finally:
        b.close()


def _to_your_card(seed, want):
    """A table at your turn to play a card where want(tb) holds."""
    tb, term, person = _start(seed, target=50)
    person.wait = True  # the scripted person only where the test says
    person.wait = False
    tb.run(lambda: tb.done or (tb.st is not None and tb.st.phase == "play" and tb.st.current_player() == HUMAN
                               and tb._flow() is not None and tb._may_act(tb._flow(), tb.hand_no(tb._flow()))
                               and want(tb)),
           limit_us=5 * 3600 * 1000000)
    person.wait = True
    return tb, term, person


def test_pt12_a_refusal_says_why_in_words_and_cards_keep_their_letters():
    """A card that does not follow suit is refused in words ("must follow
    suit: ... you hold a heart"), and playing a card leaves every other card
    its letter."""
    def can_fail(tb):
        st = tb.st
        if not st.trick:
            return False
        led = st.trick[0] >> 4
        hand, disp = tb.own_cards()
        return any(c >> 4 == led for c in hand + disp) and any(c >> 4 != led for c in hand + disp)
    tb, term, person = _to_your_card(4, can_fail)
    try:
        assert not tb.done
        st = tb.st
        led = st.trick[0] >> 4
        before = {k: c for k, c, _ in tb.choices()}
        wrong = [k for k, c in before.items() if c >> 4 != led][0]
        why = tb.pick(CARD_KEYS.index(wrong))
        words = ("club", "diamond", "heart", "spade")[led]
        assert why.startswith("PT-12: must follow suit: ") and ("you hold a %s" % words) in why, why
        ok = [k for k, c in before.items() if c in st.legal_actions(HUMAN)][0]
        assert tb.pick(CARD_KEYS.index(ok)) is None
        after = {k: c for k, c, _ in tb.choices()}
        assert set(before) - set(after) == {ok}
        assert all(after[k] == before[k] for k in after), (before, after)
    finally:
        tb.close()


def test_pt6_the_dealer_is_told_they_may_not_pass_and_the_refusal_goes_with_the_next_call():
    tb, term, person = _start(7)            # the computer players make you the first dealer
    try:
        person.wait = True                    # your calls are the test's
        PP = tb.PP

        def dealer_to_call(tb):
            st = tb.st
            return (st is not None and st.phase == "bid" and st.current_player() == HUMAN
                    and PP.PASS not in st.legal_actions(HUMAN))
        tb.run(lambda: tb.done or dealer_to_call(tb), limit_us=600 * 1000000)
        assert dealer_to_call(tb)
        term.feed_key(ord("p"), tb.t)
        assert "the dealer may not pass" in tb.note and "PT-6" in tb.note, tb.note
        assert "is not legal for" not in tb.note
        k = [k for k, a, _ in tb.choices() if a in tb.st.legal_actions(HUMAN)][0]
        term.feed_key(ord(k), tb.t)
        assert "may not pass" not in tb.note, tb.note
    finally:
        tb.close()
