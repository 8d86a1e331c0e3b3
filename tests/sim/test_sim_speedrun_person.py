"""speedref-sim --play speedrun: one person (P1) against two computer players
(P2, P3), the referee app refereeing all three.

A scripted person plays a whole game headless through the play terminal's
own keys (letters for cards and choices, `v` to reveal, `z` to tap the pad,
`Z` to hold it, j/k/Enter on the referee's screens), in simulated time.  The
computer players play real cards with speedref.engine.speedrun_cards and
press their pads and buttons.  At the end the referee's record must equal
what the cards decided: tricks per hand (SR-11, SR-12), contracts (SR-13,
SR-19), reveals (SR-21), scores and totals (SR-14..SR-24)."""

import pytest

from play_person import ScriptedPerson
from sim import compat

compat.install()

from sim.table.speedrun_person import SpeedRunPlay, terminal_class, CARD_KEYS, HUMAN  # noqa: E402
from speedref.engine import speedrun  # noqa: E402

ENTER = 10


class SpeedRunPerson(ScriptedPerson):
    """P1 at the Speed Run table, a little quicker: 250 ms after their last key."""

    PAUSE_US = 250000

    def __init__(self, tb, term, rng, reveal_hand=2, mistakes=True):
        super().__init__(tb, term, rng, mistakes)
        self.reveal_hand = reveal_hand  # the hand in which the person reveals
        self.revealing = 0

    def act(self):
        tb = self.tb
        f = tb._flow()
        st = tb.st
        if f is None or st is None:
            return
        F = tb.F
        ph = f.phase
        if self.revealing == 1:  # SR-21: tell the referee: hold the pad ...
            self.key("Z")
            self.revealing = 2
            return
        if self.revealing == 2:
            if ph == F.REVEAL:
                self.key("Z")  # ... until the reveal screen, then lift the hand
                self.revealing = 0
            return
        if tb.owed(f) == HUMAN:
            self.key("z")  # SR-12: I won that trick
            return
        if ph in (F.REVEAL, F.CONTRACT, F.TARGET) and f.seat == HUMAN:
            c = st.contracts[HUMAN]
            if ph == F.TARGET:
                want = c[5:]
            else:
                want = "REDO" if c[:5] == "REDO:" else c
            i = list(f.choices).index(want)
            self.key(ENTER if f.cursor == i else "j")
            return
        if ph in (F.RESULT, F.FINAL):
            self.key(ENTER)
            return
        if st.current_player() != HUMAN:
            return
        SRP = tb.SRP
        acts = st.legal_actions(HUMAN)
        if st.phase == "play":
            if not tb.synced(f):
                return
            if (SRP.REVEAL in acts and f.g.hands_played + 1 == self.reveal_hand
                    and st.game.tricks_played() >= 4):
                self.key("v")
                self.revealing = 1
                return
            hand = list(st.hand[HUMAN])
            legal = [a for a in acts if a < SRP.TRUMP]
            illegal = [c for c in hand if c not in legal]
            if self.mistakes and illegal and self.rng.random() < 0.3:
                n = len(tb.lines)
                self.key(tb.letter(illegal[0]))  # not following suit: refused
                self.refused.append(tb.note)
                assert len(hand) == len(st.hand[HUMAN]) and len(tb.lines) == n
                return
            self.key(tb.letter(legal[self.rng.randrange(len(legal))]))
            return
        ch = tb.choices()
        pick = self.rng.randrange(len(ch))
        if st.phase == "contract":
            # a contract: not Pass while anything else is left
            others = [i for i, (_, a, _) in enumerate(ch) if a != SRP.PASS]
            pick = others[self.rng.randrange(len(others))] if others else pick
        self.key(ch[pick][0])


def play_game(seed, length="short"):
    import random
    cls, _ = terminal_class()
    tb = SpeedRunPlay(seed, realtime=False, length=length, reveal_chance=0.3)
    tb.start()
    term = cls(tb, 500000, 150000)
    person = SpeedRunPerson(tb, term, random.Random(seed))
    tb.at(tb.t + 100000, person.tick)
    try:
        tb.run(lambda: tb.done, limit_us=3 * 3600 * 1000000)
        return tb, person, tb.board.records()
    finally:
        tb.close()


def test_a_person_plays_a_whole_short_game_against_two_computer_players():
    """Six hands: the referee's game_end record is the cards' record (every
    hand's tricks, contracts and reveals; the totals and the winner)."""
    tb, person, stored = play_game(3)
    st = tb.st
    assert st.is_terminal() and tb.record is not None
    app = {k: v for k, v in tb.record.items() if k not in ("id", "table")}
    cards = st.record()
    assert app["length"] == "short" and len(app["hands"]) == len(cards["hands"])
    for a, c in zip(app["hands"], cards["hands"]):
        assert a["tricks"] == c["tricks"]                 # SR-11, SR-12
        assert a["contracts"] == c["contracts"]           # SR-13, SR-19
        assert a.get("revealed") == c.get("revealed")     # SR-21
        assert (a.get("trump"), a.get("ranking")) == (c.get("trump"), c.get("ranking"))
    got = speedrun.replay(app)
    assert got.totals == st.game.totals and got.winners() == st.game.winners()  # SR-24..SR-27
    assert tb.record in stored                              # OK on FINAL stored it
    # the person really played: cards by letters, trick taps, a reveal, refusals
    assert person.keys.count("z") == sum(h["tricks"][HUMAN] for h in cards["hands"])
    assert any(h["revealed"][HUMAN] for h in cards["hands"] if "revealed" in h)
    assert any(h["revealed"][1] or h["revealed"][2] for h in cards["hands"] if "revealed" in h)
    assert person.refused and all("SR-10" in r for r in person.refused)


def test_a_wrong_trick_tap_stops_the_table_until_it_is_undone():
    """SR-12: a person taps their pad for a trick a computer player won.  The
    referee counts it (it cannot know better); the computer players see the
    wrong count on the OLED, wait (no card, no tap), and the panel says how to
    fix it; BACK, DOWN to "Undo last", OK takes the trick back, the real
    winner taps and play goes on to a record that equals the cards'."""
    cls, _ = terminal_class()
    tb = SpeedRunPlay(5, realtime=False, length="short", reveal_chance=0.0)
    tb.start()
    term = cls(tb, 500000, 150000)
    person = SpeedRunPerson(tb, term, __import__("random").Random(5), reveal_hand=0, mistakes=False)
    try:
        tb.at(tb.t + 100000, person.tick)
        # play until a computer player has won a trick, before its tap
        tb.run(lambda: tb._flow() is not None and tb.owed(tb._flow()) in (1, 2))
        f = tb._flow()
        winner = tb.owed(f)
        before = list(f.g.tricks)
        term.feed_key(ord("z"), tb.t)  # the wrong pad
        person.next_t = tb.t + 10 * 1000000  # the scripted person waits
        tb.advance(3000000)
        assert f.g.tricks[HUMAN] == before[HUMAN] + 1  # the referee took the wrong tap
        assert tb.wrong(f) and not tb.synced(f)
        cards_before = [len(h) for h in tb.st.hand]
        tb.advance(3000000)
        assert [len(h) for h in tb.st.hand] == cards_before  # nobody plays on
        assert "BACK, Undo" in "\n".join(tb.panel())
        undos = 0
        while tb.wrong(f) and undos < 3:
            # the pause menu: Continue, Undo last.  (If the winner's own tap
            # came after the wrong one, it is the last entry: undo twice.)
            for ch in (ord("b"), ord("j"), ENTER):
                term.feed_key(ch, tb.t)
                tb.advance(300000)
                term.release_due(tb.t)
            undos += 1
        tb.advance(3000000)
        assert f.g.tricks[HUMAN] == before[HUMAN]
        assert f.g.tricks[winner] == before[winner] + 1  # the real winner (re)tapped
        assert tb.synced(f)
        person.next_t = 0
        tb.run(lambda: tb.done, limit_us=3 * 3600 * 1000000)
        app = {k: v for k, v in tb.record.items() if k not in ("id", "table")}
        assert [h["tricks"] for h in app["hands"]] == [h["tricks"] for h in tb.st.record()["hands"]]
    finally:
        tb.close()


# -- what you see before you choose, and the game's length ------------------------------
def _hand_on_panel(lines):
    """The card names the panel lists under "Your hand:" (up to the next heading)."""
    i = lines.index("Your hand:")
    out = []
    for line in lines[i + 1:]:
        if not line.startswith("  "):
            break
        out += [w.split(":")[-1] for w in line.split()]
    return out


def _run_to_your_turn(tb, phase):
    tb.run(lambda: tb.st is not None and tb.st.phase == phase and tb.st.current_player() == HUMAN)


def test_sr7_sr13_your_cards_are_on_the_panel_before_you_choose_and_before_your_contract():
    """SR-7: the first player looks at their cards, then chooses trump or
    ranking; SR-13: contracts go down once the cards are seen.  From the deal
    on the panel shows your twelve cards, also while the letters pick the
    choice (they used to appear only at trick 1)."""
    tb = SpeedRunPlay(3, realtime=False, length="short")
    try:
        tb.start()
        _run_to_your_turn(tb, "choose")              # SR-7: you hold the first-player card
        assert tb.board.app.flow.g.first == HUMAN
        lines = tb.panel()
        want = [tb._card(c) for c in tb.st.hand[HUMAN]]
        assert len(want) == 12 and _hand_on_panel(lines) == want
        assert "Choose:" in lines and "a:trump Worms" in "\n".join(lines)
        assert tb.pick(0) is None                    # trump: earthworms
        _run_to_your_turn(tb, "contract")            # SR-13: your contract, face down
        lines = tb.panel()
        assert _hand_on_panel(lines) == [tb._card(c) for c in tb.st.hand[HUMAN]]
        assert "Your contract (face down):" in lines
    finally:
        tb.close()


def _args(*argv):
    from sim.__main__ import build_parser
    return build_parser().parse_args(["--play", "speedrun"] + list(argv))


@pytest.mark.parametrize("length,hands", [("short", 6), ("medium", 9), ("long", 12), (None, 12)])
def test_sr2_the_length_comes_from_the_command_line(length, hands):
    """SR-2: speedref-sim --play speedrun --length short|medium|long (the
    device's own length when not given: Long)."""
    from sim.table import speedrun_person
    tb = speedrun_person.table(_args(*(["--length", length] if length else [])))
    try:
        tb.start()
        tb.advance(500000)
        assert tb.board.app.flow.length == (length or "long")
        assert tb.st.game.hands_total == hands
        assert "Hand 1 of %d" % hands in "\n".join(tb.panel())
    finally:
        tb.close()


def test_sr2_a_game_started_from_the_device_menu_plays_its_length():
    """The device's own menu: abandon the game (BACK, Abandon game, OK twice),
    choose Speed Run, Length: Short, Start -- the cards and the panel follow
    the referee's new game of 6 hands."""
    from sim.table.base import menu_buttons, UP, DOWN, OK
    cls, _ = terminal_class()
    tb = SpeedRunPlay(4, realtime=False)
    tb.start()
    term = cls(tb, 500000, 150000)
    key = {UP: ord("k"), DOWN: ord("j"), OK: ENTER}

    def press(ch):
        term.feed_key(ch, tb.t)
        for _ in range(30):
            tb.advance(20000)
            term.release_due(tb.t)

    try:
        tb.advance(500000)
        assert tb.st.game.hands_total == 12          # Long: the device's own length
        press(ord("b"))                              # the pause menu
        pause = tb.board.app.screen
        while pause.items[pause.cursor] != "Abandon game":
            press(ord("j"))
        press(ENTER)
        press(ENTER)                                 # asked twice
        assert type(tb.board.app.screen).__name__ == "Games"
        for b in menu_buttons(tb.board, "speedrun", {"length": "short"}):
            press(key[b])
        tb.advance(500000)
        f = tb.board.app.flow
        assert f.GAME == "speedrun" and f.length == "short" and tb.flow is f
        assert tb.st.game.hands_total == 6 and "Hand 1 of 6" in "\n".join(tb.panel())
    finally:
        tb.close()


# -- the panel: letters, words, notes -----------------------------------------------------
def _to_play(seed=3):
    tb = SpeedRunPlay(seed, realtime=False, length="short", reveal_chance=0.0)
    tb.start()
    while True:
        if tb.st is not None and tb.st.current_player() == HUMAN and tb.st.phase in ("choose", "contract"):
            assert tb.pick(0) is None
        if tb.st is not None and tb.st.phase == "play" and tb.st.current_player() == HUMAN \
                and tb.synced(tb._flow()):
            return tb
        tb.advance(100000)


def test_a_card_keeps_its_letter_while_it_stays_in_your_hand():
    """Your twelve cards are lettered once, at the deal; playing one frees its
    letter and every other card keeps its own (it was renumbered: `w` was
    R10, then G2)."""
    tb = _to_play()
    try:
        before = {k: c for k, c, _ in tb.choices()}
        legal = [a for a in tb.st.legal_actions(HUMAN) if a < tb.SRP.TRUMP]
        played = legal[0]
        assert tb.pick(CARD_KEYS.index(tb.letter(played))) is None
        after = {k: c for k, c, _ in tb.choices()}
        gone = [k for k in before if k not in after]
        assert gone == [[k for k in before if before[k] == played][0]]
        assert all(after[k] == before[k] for k in after), (before, after)
        assert tb.pick(CARD_KEYS.index(gone[0])) in ("no card there",) or tb.st.current_player() != HUMAN
    finally:
        tb.close()


def test_suit_letters_are_the_oleds_words():
    """The OLED says Worms, Raccoons, Geckos, Gorillas (speedrun_flow.TRUMP_WORDS);
    the panel's cards and trump say the same, so W never means the Gorillas."""
    from speedref.app import speedrun_flow as F
    tb = _to_play()
    try:
        lines = tb.panel()
        text = "\n".join(lines)
        assert "goRillas" not in text and "W goRillas" not in text
        assert "Wo Worms (Earthworms), Ra Raccoons, Ge Geckos, Go Gorillas" in text
        names = [t for _, _, t in tb.choices()]
        assert all(n[:2] in ("Wo", "Ra", "Ge", "Go") for n in names), names
        trump = F.TRUMP_WORDS[speedrun.TRUMPS.index(tb.st.game.trump)]
        assert ("Trump: %s " % trump) in text
    finally:
        tb.close()


def test_a_refusal_says_why_in_words_sr10():
    """A card that does not follow suit is refused with the rule in words:
    what was led and which of your cards follow it."""
    for seed in range(3, 30):
        tb = _to_play(seed)
        try:
            for _ in range(12):
                st = tb.st
                if st.trick:
                    led = st.trick[0] >> 4
                    follow = [c for c in st.hand[HUMAN] if c >> 4 == led]
                    other = [c for c in st.hand[HUMAN] if c >> 4 != led]
                    if follow and other:
                        why = tb.pick(CARD_KEYS.index(tb.letter(other[0])))
                        word = tb.suits[led]
                        assert why.startswith("SR-10: must follow suit: ") and word in why, why
                        assert all(tb._card(c) in why for c in follow), why
                        return
                legal = [a for a in st.legal_actions(HUMAN) if a < tb.SRP.TRUMP]
                tb.pick(CARD_KEYS.index(tb.letter(legal[0])))
                while tb.st.phase == "play" and not (tb.st.current_player() == HUMAN and tb.synced(tb._flow())):
                    f = tb._flow()
                    if f is not None and tb.owed(f) == HUMAN:
                        tb.tap(tb.t + 100000, HUMAN, 80000)
                    tb.advance(200000)
                if tb.st.phase != "play":
                    break
        finally:
            tb.close()
    raise AssertionError("no trick where you could fail to follow suit")


def test_you_win_the_trick_goes_once_you_have_tapped_and_the_contract_list_drops_yours():
    """The note "You win the trick: tap your pad" is gone once the referee
    has your tap; "Contract cards" no longer lists the card you put down."""
    tb = _to_play()
    try:
        mine = tb.st.contracts[HUMAN]
        lines = tb.panel()
        i = [k for k, l in enumerate(lines) if l.startswith("Contract cards: ")][0]
        listed = lines[i] + "".join(" " + l.strip() for l in lines[i + 1:] if l.startswith("  ") and "," in l)
        held = list(tb.st.game.held[HUMAN])
        held.remove("REDO" if mine[:5] == "REDO:" else mine)
        assert listed == "Contract cards: " + ", ".join(tb._word(c) for c in held), listed
        for _ in range(2000):
            f = tb._flow()
            if f is not None and tb.owed(f) == HUMAN:
                break
            st = tb.st
            if st.current_player() == HUMAN and st.phase == "play" and tb.synced(f):
                legal = [a for a in st.legal_actions(HUMAN) if a < tb.SRP.TRUMP]
                tb.pick(CARD_KEYS.index(tb.letter(max(legal))))
            tb.advance(100000)
        assert tb.note == "You win the trick: tap your pad (z)"
        tb.tap(tb.t + 100000, HUMAN, 80000)
        tb.advance(1000000)
        assert tb.owed(tb._flow()) != HUMAN and "tap your pad" not in tb.note, tb.note
    finally:
        tb.close()
