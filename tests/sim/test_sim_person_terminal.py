"""speedref-sim --play: the play terminal around every play mode (sim/table/person.py).

Drawn on a fake curses screen (a grid of characters, as curses keeps it) and
driven headless in simulated time through the terminal's own keys:

  * the panel beside (or under) the OLED: every line is drawn whole and padded,
    so nothing of the event log, the legend or an older longer line is left
    beside a shorter one;
  * the event log says whose finger each press and release is: yours "(you)",
    the computer players' "(computer)";
  * --pace: how quickly the computer players play (slow, normal, fast), in
    every play mode, from the command line.
"""
import re

import pytest

from sim import compat

compat.install()

from sim.table import person as P  # noqa: E402
from sim.table.speed_person import SpeedPlay, HUMAN, BOT, terminal_class  # noqa: E402

ENTER = 10


class FakeScreen:
    """What curses keeps of a terminal: h rows of w characters."""

    def __init__(self, w, h):
        self.w, self.h = w, h
        self.erase()

    def erase(self):
        self.rows = [[" "] * self.w for _ in range(self.h)]

    def getmaxyx(self):
        return self.h, self.w

    def addstr(self, y, x, s):
        for i, ch in enumerate(s):
            if x + i < self.w:
                self.rows[y][x + i] = ch

    def refresh(self):
        pass

    def row(self, y):
        return "".join(self.rows[y])


def _speed_terminal(seed="panel"):
    cls, _ = terminal_class()
    tb = SpeedPlay(seed, realtime=False)
    tb.start()
    return tb, cls(tb, 500000, 150000)


def _panel_rows(scr, lines):
    """The screen rows the panel's lines are on: the row and column of its
    first line, then each line's row text from that column."""
    for y in range(scr.h):
        x = scr.row(y).find(lines[0])
        if x >= 0:
            return [scr.row(y + i)[x:] for i in range(len(lines))]
    raise AssertionError("the panel is not on the screen")


@pytest.mark.parametrize("size", [(150, 50), (120, 40), (200, 50)])
def test_panel_lines_are_whole_with_nothing_of_the_log_beside_them(size):
    """A panel line shorter than what was under it (an event log line, a
    legend line, the panel's own older line) leaves no fragment: each panel
    row reads exactly its line, the rest blank to the screen's edge."""
    tb, term = _speed_terminal()
    try:
        term.log.extend([(i, "P2 down (computer) " + "#" * 150) for i in range(60)])
        scr = FakeScreen(*size)
        tb.note = "a long note that a shorter one replaces " * 2
        term.draw(scr)
        tb.note = "short"
        term.draw(scr)
        lines = term.panel()
        got = _panel_rows(scr, lines)
        for want, row in zip(lines, got):
            assert row.rstrip() == want, (want, row)
        assert not any("#" in row for row in got)
        log_rows = [y for y in range(scr.h) if "#" in scr.row(y)]
        assert log_rows, "the event log is still shown"
    finally:
        tb.close()


def test_a_panel_too_wide_for_the_right_side_goes_under_the_status_line():
    """Where the panel would be cut off right of the OLED it goes below the
    status line, whole, and the event log below it."""
    tb, term = _speed_terminal()
    try:
        term.log.extend([(i, "line %d" % i) for i in range(60)])
        scr = FakeScreen(150, 60)
        term.draw(scr)
        lines = term.panel()
        longest = max(lines, key=len)
        assert any(scr.row(y).rstrip() == longest for y in range(scr.h))
        first = [y for y in range(scr.h) if scr.row(y).startswith(lines[0])][0]
        assert "down:" in scr.row(first - 1)               # right under the status line
        assert "line 59" in scr.row(scr.h - 1)             # the newest log line at the bottom
    finally:
        tb.close()


def test_your_key_presses_are_logged_as_yours_the_computers_as_the_computers():
    """--play speed: your ready tap (z) and OK (Enter) are "(you)", down and
    up; the computer's ready tap is "(computer)" (it was "(computer)" for
    your own releases too)."""
    tb, term = _speed_terminal("labels")
    try:
        F = tb.F
        term.feed_key(ENTER, tb.t)                         # laid out
        while tb.phase != F.READY:
            tb.advance(20000)
            term.release_due(tb.t)
        term.feed_key(ord("z"), tb.t)                      # SP-6: ready
        for _ in range(200):
            tb.advance(20000)
            term.release_due(tb.t)
        texts = [t for _, t in term.log]
        mine = [t for t in texts if t.startswith("P1 ") or t.startswith("OK ")]
        assert "P1 down (you)" in mine and "OK down (you)" in mine
        assert any(t.startswith("P1 up after") and t.endswith("(you)") for t in mine)
        assert not [t for t in mine if "computer" in t], mine
        assert "P2 down (computer)" in texts
        assert any(t.startswith("P2 up after") and t.endswith("(computer)") for t in texts)
    finally:
        tb.close()


def test_a_hold_of_yours_is_logged_with_how_to_let_go():
    tb, term = _speed_terminal("hold")
    try:
        term.feed_key(ord("Z"), tb.t)
        tb.advance(100000)
        assert any(t.startswith("P1 down (you, hold") for _, t in term.log)
    finally:
        tb.close()


def _first_computer_card_after_go(pace, seed="pace"):
    """Simulated time from GO to the computer's first card (it plays at `pace`)."""
    tb = SpeedPlay(seed, realtime=False, pace=pace)
    tb.trace = []
    try:
        tb.start()
        F = tb.F
        tb.tap(tb.t + 100000, 6, 80000)                     # laid out
        tb.run(lambda: tb.phase == F.READY)
        tb.pad_tap()                                        # SP-6: ready
        tb.run(lambda: tb.phase == F.PLAY)
        go = tb.t
        tb.run(lambda: any(e[1] == "act" and e[2] == BOT for e in tb.trace), limit_us=go + 60000000)
        return [e[0] for e in tb.trace if e[1] == "act" and e[2] == BOT][0] - go
    finally:
        tb.close()


def test_pace_slows_the_computer_player_down():
    """--pace slow, normal, fast: the same deal (same seed), the computer's
    first card comes later the slower the pace; fast is the computer tables'
    own pace (a person's reaction, median 250-400 ms)."""
    fast = _first_computer_card_after_go("fast")
    normal = _first_computer_card_after_go("normal")
    slow = _first_computer_card_after_go("slow")
    assert fast < normal < slow
    assert slow >= 3 * fast
    assert fast <= 1500000


@pytest.mark.parametrize("game", ["speed", "spit", "speedrun", "partners"])
@pytest.mark.parametrize("pace", ["slow", "normal", "fast", None])
def test_every_play_mode_takes_pace_from_the_command_line(game, pace):
    """speedref-sim --play GAME --pace P: the computer players react at P
    (default normal); you (seat P1) are nobody's computer player."""
    from sim.__main__ import build_parser
    argv = ["--play", game, "--seed", "3"] + (["--pace", pace] if pace else [])
    args = build_parser().parse_args(argv)
    tb = P.play_module(game).table(args)
    try:
        bots = [pe for pe in tb.people if pe is not None and pe.seat != HUMAN]
        assert bots and all(pe.pace == P.PACES[pace or "normal"] for pe in bots)
        if tb.people[HUMAN] is not None:
            assert tb.people[HUMAN].pace == 1  # the table never acts for you
    finally:
        tb.close()


def test_pace_and_length_are_refused_without_the_play_mode_they_belong_to(capsys):
    from sim.__main__ import main
    with pytest.raises(SystemExit) as e:
        main(["--pace", "slow"])
    assert e.value.code == 2 and "--pace needs --play" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["--play", "speed", "--length", "short"])
    assert e.value.code == 2 and "--length needs --play speedrun" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--play", "speed", "--pace", "glacial"])


@pytest.mark.parametrize("size", [(79, 23), (66, 40), (100, 22)])
def test_a_terminal_too_small_for_the_panel_says_what_it_needs(size):
    """A play mode on a terminal where neither the compact layout (80x24) nor
    the panel beside or under the OLED fits says so and gives the sizes,
    instead of cutting the panel off; at each size it gives, it draws."""
    tb, term = _speed_terminal()
    try:
        scr = FakeScreen(*size)
        term.draw(scr)
        text = " ".join(scr.row(y).strip() for y in range(scr.h))
        (bw, bh), (uw, uh), (cw, ch) = term.sizes()
        assert (cw, ch) == (80, 24)
        assert "too small" in text, text
        for w, h in ((bw, bh), (uw, uh), (cw, ch)):
            assert "%dx%d" % (w, h) in text, text
            assert size[0] < w or size[1] < h
        for size in ((bw, bh), (uw, uh)):
            scr = FakeScreen(*size)
            term.draw(scr)
            rows = [scr.row(y) for y in range(scr.h)]
            assert not any("too small" in r for r in rows), size
            got = _panel_rows(scr, term.panel())
            assert [r.rstrip() for r in got] == term.panel(), size
        scr = FakeScreen(cw, ch)
        term.draw(scr)
        rows = [scr.row(y).rstrip() for y in range(scr.h)]
        assert not any("too small" in r for r in rows)
        for line in term.compact_panel():
            assert line in rows, line
    finally:
        tb.close()


@pytest.mark.parametrize("argv,seats", [(["--play", "spit"], 2), (["--play", "speed", "--seats", "3"], 3),
                                        (["--play", "speedrun"], 3), (["--play", "partners"], 4)])
def test_the_legend_and_the_lights_name_only_the_seated_pads(argv, seats):
    """A 2-player Spit lists P1 and P2, a 3-player Speed P1 to P3: no pad
    nobody sits at, in the key legend or on the lights line."""
    import re
    from sim.__main__ import build_parser
    args = build_parser().parse_args(argv + ["--seed", "3"])
    mod = P.play_module(args.play)
    tb = mod.table(args)
    try:
        tb.start()
        cls, _ = mod.terminal_class()
        term = cls(tb, 500000, 150000)
        legend = " ".join(term.legend())
        lights = [s for s in term.status_lines(300) if "lights:" in s][0].split("lights:")[1]
        for text in (legend, lights):
            pads = set(re.findall(r"\bP(\d)\b", text))
            assert pads == set(str(i + 1) for i in range(seats)), (text, pads)
    finally:
        tb.close()


def _until(tb, term, done, limit_us=600 * 1000000):
    end = tb.t + limit_us
    while not done() and tb.t < end:
        tb.advance(20000)
        term.release_due(tb.t)
    return done()


@pytest.mark.parametrize("game", ["speed", "spit", "speedrun", "partners"])
def test_the_computer_players_card_plays_are_in_the_event_log(game):
    """A pile or a trick changes with a line saying who played what:
    "P2 plays 7H on pile 1 (computer)"."""
    import random
    mod = P.play_module(game)
    cls, _ = mod.terminal_class()
    if game == "speed":
        tb = SpeedPlay("labels", realtime=False)      # a deal where P2 has a card to play at GO
    elif game == "spit":
        from sim.table.spit_person import SpitPlay
        tb = SpitPlay(9, realtime=False)
    elif game == "speedrun":
        from sim.table.speedrun_person import SpeedRunPlay
        tb = SpeedRunPlay(3, realtime=False, length="short", reveal_chance=0.0)
    else:
        from sim.table.partners_person import PartnersPlay
        tb = PartnersPlay(7, realtime=False)
    tb.start()
    term = cls(tb, 500000, 150000)
    try:
        if game in ("speed", "spit"):
            term.feed_key(ENTER, tb.t)                     # laid out
            assert _until(tb, term, lambda: tb.phase == tb.F.READY)
            term.feed_key(ord("z"), tb.t)                  # ready / Spit!
        else:
            if game == "speedrun":
                from test_sim_speedrun_person import SpeedRunPerson as Person
            else:
                from test_sim_partners_person import PartnersPerson as Person
            person = Person(tb, term, random.Random(1))
            tb.at(tb.t + 100000, person.tick)

        def played():
            return [t for _, t in term.log if " plays " in t and t.endswith("(computer)")]
        assert _until(tb, term, played), [t for _, t in term.log][-10:]
        line = played()[0]
        assert re.match(r"^P[2-4] plays \S+( on pile [1-4])? \(computer\)$", line), line
    finally:
        tb.close()


def test_speed_a_refused_card_is_history_once_a_card_is_taken_SP7():
    """A card that does not fit says why ("SP-7: KD does not fit 3C"); once
    a card of yours is taken, the panel no longer says it."""
    from sim.table.speed_person import PILE_KEYS
    from speedref.engine import speed_cards as SP
    tb, term = _speed_terminal("refusal")
    try:
        term.feed_key(ENTER, tb.t)                           # laid out
        assert _until(tb, term, lambda: tb.phase == tb.F.READY)
        term.feed_key(ord("z"), tb.t)                        # ready
        assert _until(tb, term, lambda: tb.phase == tb.F.PLAY and tb.st.phase == "play"
                      and [a for a in tb.st.legal_actions(HUMAN) if a < SP.READY])
        legal = [a for a in tb.st.legal_actions(HUMAN) if a < SP.READY]
        letters = dict((c, k) for k, c in tb.hand())
        wrong = [(letters[c], pile) for c in letters for pile in range(tb.seats)
                 if SP.play_action(pile, c) not in legal]
        k, pile = wrong[0]
        term.feed_key(ord(k), tb.t)
        term.feed_key(ord(PILE_KEYS[pile]), tb.t)            # refused: the panel says why
        assert "SP-7" in tb.note, tb.note
        a = legal[0]
        term.feed_key(ord(letters[a & 0xFF]), tb.t)
        term.feed_key(ord(PILE_KEYS[a >> 8]), tb.t)          # taken
        assert "SP-7" not in tb.note and "does not fit" not in tb.note, tb.note
        assert "does not fit" not in "\n".join(term.panel())
    finally:
        tb.close()
