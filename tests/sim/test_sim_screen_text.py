"""What the OLED says on the game screens, read off the simulator's frame
(the firmware's own frame buffer, through the device loop and the emulated
SSD1306), and the pad lights the board sets: one virtual board per test,
driven by button edges at exact simulated times."""
import pytest

from sim import font8x8, oled
from sim.board import Board

P1, P2, P3, P4, UP, DOWN, OK, BACK = range(8)


def _glyphs(s):
    """The columns of `s` as the OLED shows it: framebuf's font for ASCII,
    app/glyphs.py's for the accented letters of names."""
    from speedref.app import glyphs
    out = bytearray()
    for ch in s:
        c = ord(ch)
        if c < 0x80:
            i = (c - 32) * 8
            out += font8x8.FONT[i:i + 8]
        else:
            i = (c - glyphs.FIRST) * 8
            assert 0 <= i < len(glyphs.GLYPHS), "no glyph for %r" % ch
            out += glyphs.GLYPHS[i:i + 8]
    return bytes(out)


def bands(frame):
    """For each top row y: the 8-row band's columns as bytes (bit n = row y+n)."""
    cols = [0] * oled.WIDTH
    for x in range(oled.WIDTH):
        v = 0
        for page in range(8):
            v |= frame[page * oled.WIDTH + x] << (8 * page)
        cols[x] = v
    return [(y, bytes((c >> y) & 0xFF for c in cols)) for y in range(oled.HEIGHT - 7)]


def find(frame, s, inverted=False):
    """The (x, y) where the 8x8 font shows `s` exactly (dark on lit when
    inverted: a title bar or the menu's cursor row), or None."""
    needle = _glyphs(s)
    if inverted:
        needle = bytes(b ^ 0xFF for b in needle)
    for y, band in bands(frame):
        x = band.find(needle)
        if x >= 0:
            return x, y
    return None


def dark_rows(frame, y0, y1):
    return not any(oled.lit(frame, x, y) for y in range(y0, y1) for x in range(oled.WIDTH))


class Rig:
    def __init__(self):
        self.b = Board()
        self.t = 0
        self.b.step()

    def wait(self, us):
        self.t += us
        self.b.run_until(self.t)

    def edge(self, button, down, after_us=60000):
        self.t += after_us
        self.b.event(self.t, button, down)

    def tap(self, button, hold_us=60000):
        self.edge(button, True)
        self.edge(button, False, hold_us)

    def frame(self):
        return self.b.screen()

    def shows(self, s, inverted=False):
        return find(self.frame(), s, inverted) is not None

    def start(self, game, **opts):
        from speedref.app import menu
        o = dict(menu.merge_settings({})[game])
        o.update(opts)
        self.b.app.start(game, self.b.now(), o)
        self.b.step()

    def phase(self):
        return self.b.app.flow.phase


@pytest.fixture
def rig():
    r = Rig()
    yield r
    r.b.close()


def speed_to_play(rig, **opts):
    from speedref.app import speed_flow as sf
    rig.start("speed", **opts)
    rig.tap(OK)  # layout -> ready
    assert rig.phase() == sf.READY
    rig.tap(P1)
    rig.tap(P2)
    rig.wait(3100000)  # 3, 2, 1, GO
    assert rig.phase() == sf.PLAY


# ---- Speed ------------------------------------------------------------------
def test_speed_stuck_line_keeps_the_two_players_apart(rig):
    speed_to_play(rig)
    rig.edge(P1, True)
    rig.wait(600000)  # held 0.5 s: stuck (SP-14)
    f = rig.frame()
    assert find(f, "P1 STUCK") == (0, 40)
    assert find(f, "P2 -") == (oled.WIDTH - 32, 40)  # at the right edge, not after STUCK
    assert find(f, "P1 STUCKP2") is None


def test_speed_layout_hints_at_back_and_ready_pads_light(rig):
    from speedref.app import speed_flow as sf
    rig.start("speed")
    assert rig.shows("BACK: undo/quit") and rig.shows("OK: next")
    assert rig.b.lights == (False, False, False, False)
    rig.tap(OK)
    rig.tap(P2)  # P2 is ready: its pad lights while the others wait
    assert rig.phase() == sf.READY and rig.b.lights == (False, True, False, False)
    rig.tap(P1)  # both ready: the countdown, lights out
    assert rig.b.lights == (False, False, False, False)


def test_speed_lone_slap_shows_the_name_once_and_lights_the_winner(rig):
    from speedref.app import speed_flow as sf
    speed_to_play(rig, slap_to_win=True)
    rig.tap(P2)  # a slap nobody answers: P2 is out (SP-17)
    rig.wait(600000)
    assert rig.phase() == sf.CLAIM
    f = rig.frame()
    assert dark_rows(f, 10, 22)  # no small "P2" over the big one
    assert find(f, "P2 tap: withdraw")
    assert rig.b.lights == (False, True, False, False)
    rig.wait(1600000)  # the verdict's light lasts 1.5 s
    assert rig.b.lights == (False, False, False, False)


def test_speed_slap_with_a_margin_still_shows_it(rig):
    speed_to_play(rig, slap_to_win=True)
    rig.edge(P1, True)
    rig.edge(P2, True, 7300)
    rig.edge(P1, False)
    rig.edge(P2, False)
    rig.wait(600000)
    assert rig.shows("P1 by 7.3 ms")
    assert rig.b.lights == (True, False, False, False)


def test_speed_tie_lights_both_pads(rig):
    speed_to_play(rig, slap_to_win=True)
    rig.edge(P1, True)
    rig.edge(P2, True, 1000)  # within the 5 ms tie window
    rig.edge(P1, False)
    rig.edge(P2, False)
    rig.wait(100000)
    assert rig.shows("Tie 1.0 ms again")  # the whole line: 16 characters
    assert rig.b.lights == (True, True, False, False)


def test_speed_false_start_blinks_the_jumpers_pad(rig):
    rig.start("speed")
    rig.tap(OK)
    rig.tap(P1)
    rig.tap(P2)  # the countdown starts at this press
    rig.wait(200000)
    rig.edge(P2, True)  # long before GO: a false start (SP-22)
    seen = []
    for _ in range(12):  # every 125 ms: on, off, on, ... (P1 dark throughout)
        seen.append(rig.b.lights)
        rig.wait(125000)
    assert set(s[0] for s in seen) == {False}
    assert set(s[1] for s in seen) == {True, False}
    assert seen[0][1] and not seen[1][1] and seen[2][1]
    rig.wait(1000000)
    assert rig.b.lights == (False, False, False, False)


def test_lights_are_dark_on_the_pause_menu(rig):
    rig.start("speed")
    rig.tap(OK)
    rig.tap(P1)
    assert rig.b.lights[0]
    rig.tap(BACK)
    assert rig.shows("Paused", inverted=True)
    assert rig.b.lights == (False, False, False, False)


# ---- Spit ---------------------------------------------------------------------
def test_spit_stuck_line_keeps_the_two_players_apart(rig):
    from speedref.app import spit_flow as sp
    rig.start("spit")
    rig.tap(OK)  # layout -> ready
    rig.tap(P1)
    assert rig.b.lights == (True, False, False, False)
    rig.tap(P2)
    rig.wait(3100000)
    assert rig.phase() == sp.PLAY
    rig.edge(P2, True)
    rig.wait(600000)
    f = rig.frame()
    assert find(f, "P1 -") == (0, 38)
    assert find(f, "P2 STUCK") == (oled.WIDTH - 64, 38)


# ---- Speed Run ------------------------------------------------------------------
def test_speedrun_hand_one_says_how_tricks_are_entered(rig):
    rig.start("speedrun")
    assert rig.shows("Holder: tap pad") and rig.shows("Trick won: tap")


def test_speedrun_one_trick_is_singular_and_scores_have_column_labels(rig):
    from speedref.app import speedrun_flow as sr
    rig.start("speedrun")
    rig.tap(OK)  # hand -> trump
    assert rig.shows("BACK: undo/quit")
    rig.tap(OK)  # trump -> ranking
    rig.tap(OK)  # ranking -> play
    assert rig.phase() == sr.PLAY
    for p in [P1] + [P2] * 11:
        rig.tap(p)
    assert rig.phase() == sr.CONTRACT
    assert rig.shows("P1 contract?", inverted=True)
    assert rig.shows("1 trick") and not rig.shows("1 tricks")
    rig.tap(OK)
    assert rig.shows("11 tricks")
    while rig.phase() != sr.RESULT:
        rig.tap(OK)
    f = rig.frame()
    for p in range(3):  # each name centred over its column of totals
        assert find(f, "P%d" % (p + 1)) == (43 * p + 13, 29)


# ---- Partners ---------------------------------------------------------------------
def test_partners_shared_win_names_are_spaced(rig):
    from speedref.app import partners_flow as pf
    rig.start("partners")
    rig.tap(P1)  # P1 deals first
    assert rig.phase() == pf.BID and rig.shows("BACK: undo/quit")
    rig.tap(OK)  # bid 7
    rig.tap(DOWN)  # clubs -> no trump: 7 notrump can be P2's (PT-24)
    rig.tap(OK)  # trump
    rig.tap(P2)  # P2 won the bid
    rig.tap(P4)  # P4 is the partner (opposite: no swap)
    while rig.phase() == pf.SWAP:
        rig.tap(OK)
    for p in [P2] * 5 + [P1] * 4 + [P3] * 4:  # 5 of 7: failed (PT-15)
        rig.tap(p)
    rig.tap(OK)  # hand -> totals
    rig.tap(DOWN)  # stop?
    rig.tap(OK)  # yes: the game stops with the defenders P1 and P3 level on top
    assert rig.phase() == pf.FINAL
    assert rig.b.app.flow.game.winners() == [0, 2]
    f = rig.frame()
    assert find(f, "Shared: P1 P3") == (0, 47)


# ---- Setup options ------------------------------------------------------------------
def _speed_options(rig):
    rig.tap(OK)  # boot -> games
    rig.tap(OK)  # Speed
    for _ in range(7):  # Start, Layout, Jokers, Doubles, Hand, Slap win, Match, Target
        rig.tap(DOWN)


def test_setup_target_steps_up_with_ok_and_back_with_back(rig):
    _speed_options(rig)
    assert rig.shows("Target: auto", inverted=True)  # the default: 25 a player beaten (SP-36)
    rig.tap(OK)
    assert rig.shows("Target: 15", inverted=True)
    rig.tap(OK)
    assert rig.shows("Target: 25", inverted=True)
    rig.tap(BACK)  # one press too many: BACK takes it back
    assert rig.shows("Target: 15", inverted=True)
    rig.tap(BACK)
    assert rig.shows("Target: auto", inverted=True)
    rig.tap(BACK)  # round from the first to the largest
    assert rig.shows("Target: 100", inverted=True)
    assert type(rig.b.app.screen).__name__ == "Options"


def test_setup_values_ascend_and_back_leaves_from_start(rig):
    """Numbers ascend in OK's order; "auto" (a default worked out from the
    board or the table) comes first."""
    from speedref import games
    from speedref.app import menu
    for game, key in (("speed", "target"), ("partners", "target"), ("speed", "tie_ms")):
        values = dict((k, v) for k, _, v in games.get(game).options)[key]
        numbers = [v for v in values if v != "auto"]
        assert numbers == sorted(numbers) and list(values[:len(values) - len(numbers)]) in ([], ["auto"])
    assert menu.merge_settings({})["speed"]["target"] == "auto"
    assert menu.merge_settings({})["partners"]["target"] == 100
    assert menu.merge_settings({})["speedrun"]["length"] == "long"
    _speed_options(rig)
    for _ in range(7):
        rig.tap(UP)
    rig.tap(BACK)  # on Start: back to the game list
    assert rig.shows("Choose a game", inverted=True)


def test_setup_hint_when_there_is_room(rig):
    rig.tap(OK)
    rig.tap(DOWN)  # Spit: Start and one option
    rig.tap(OK)
    assert rig.shows("BACK: game list")
    rig.tap(DOWN)
    assert rig.shows("OK/BACK: change")  # "auto" is no number to step from
    assert rig.shows("Tie ms: auto", inverted=True)
    rig.tap(OK)
    assert rig.shows("Tie ms: 0", inverted=True)
    rig.tap(OK)
    rig.tap(OK)
    assert rig.shows("Tie ms: 2", inverted=True) and rig.shows("OK:+8  BACK:-1")
    rig.tap(BACK)
    rig.tap(BACK)
    rig.tap(BACK)
    assert rig.shows("Tie ms: auto", inverted=True)


def test_an_options_hint_shows_its_real_step(rig):
    """Partners' Target steps by 50 (50, 100, 150, 200): the hint says +50,
    not +1, and at the top OK goes round to 50."""
    rig.tap(OK)
    for _ in range(3):
        rig.tap(DOWN)  # Partners
    rig.tap(OK)
    rig.tap(DOWN)
    assert rig.shows("Target: 100", inverted=True) and rig.shows("OK:+50  BACK:-50")
    assert not rig.shows("OK:+1  BACK:-1")
    rig.tap(OK)
    rig.tap(OK)
    assert rig.shows("Target: 200", inverted=True) and rig.shows("OK:50  BACK:-50")


# ---- screens that read as words and keep their parts apart ---------------------------
def test_speed_layout_says_the_middle_row_in_words(rig):
    """SP-2: the middle row is two reserves and two start cards, said so
    ("Row: 10|1 1|10 reserve start" was a code to decipher)."""
    rig.start("speed")
    assert rig.shows("2 reserves of 10") and rig.shows("+ 2 start cards")
    assert not rig.shows("Row:") and not rig.shows("reserve start")


def test_spit_layout_names_the_piles_a_player_without_spit_cards_fills_SPIT3(tmp_path):
    """SPIT-3: a player with one card fills pile 1 only; the layout screen
    said "fill piles 1..5" to them."""
    from app_rig import Rig as AppRig
    from app_spit_game import play_round, spit_opts
    from conformance import draw
    rig = AppRig(str(tmp_path))
    rig.app.start("spit", rig.t, spit_opts())
    play_round(rig, ("slap", 1, 1, 41, 0))  # P2 cleared and took the smaller pile: 41-11
    play_round(rig, ("pile", 0, 1, 0))      # one pile: P1 cleared, keeps 1 spit card (SPIT-22)
    f = rig.app.flow
    assert f.game.cards == [1, 51]
    fb = draw(f)
    assert "P1: pile 1 only" in fb.texts and "fill piles 1..5" not in fb.texts, fb.texts
    g = f.game
    for n, want in ((3, "P1: piles 1..2"), (6, "P1: piles 1..3"), (7, "P1: piles 1..4"),
                    (15, "P1: piles 1..5")):
        g.cards = [n, 52 - n]
        fb = draw(f)
        assert want in fb.texts, (n, fb.texts)


def test_partners_three_digit_totals_stay_clear_of_the_names(rig):
    """A 3-digit total on the 2x2 grid (Totals, Game over) leaves dark
    columns after its own name and before the next cell's: "P1 104 P2",
    never "P1104P2" (the digits began one pixel after the name and ended
    two before the next)."""
    from speedref.app import partners_flow as pf
    rig.start("partners", target=100)
    rig.tap(P1)  # P1 deals
    for _ in range(2):
        for _ in range(6):
            rig.tap(UP)  # 13
        rig.tap(OK)
        rig.tap(DOWN)  # no trump
        rig.tap(OK)
        rig.tap(P1)  # P1 won the bid
        rig.tap(P3)  # with P3, opposite: no swap
        for _ in range(13):
            rig.tap(P1)  # all 13: made and doubled (PT-16): 52 and 26
        rig.tap(OK)  # the hand -> totals or the final screen
        if rig.phase() == pf.TOTALS:
            rig.tap(OK)
    assert rig.phase() == pf.FINAL and rig.b.app.flow.game.totals == [104, 0, 52, 0]
    f = rig.frame()
    assert rig.shows("Game over", inverted=True)
    x, y = 0, 11  # P1's cell
    assert find(f, "P1") == (x + 1, y + 4)
    lit = [c for c in range(x + 17, x + 66) if any(oled.lit(f, c, r) for r in range(y, y + 16))]
    assert lit[0] >= x + 20, "digits touch the name: from column %d" % lit[0]
    assert lit[-1] <= x + 62, "digits touch P2's name: up to column %d" % lit[-1]
    assert find(f, "P2") == (x + 65, y + 4)


# ---- Speed with three or four players, and named players' end screens -------------
def _blank_runs(frame, y, x0=0, x1=oled.WIDTH):
    """The runs of blank columns [(start, length)] in the 8-row band at y,
    between the band's first and last lit column within x0..x1."""
    lit = [any(oled.lit(frame, x, y + r) for r in range(8)) for x in range(x0, x1)]
    if not any(lit):
        return []
    first = lit.index(True)
    last = len(lit) - 1 - lit[::-1].index(True)
    runs = []
    x = first
    while x <= last:
        if not lit[x]:
            s = x
            while not lit[x]:
                x += 1
            runs.append((x0 + s, x - s))
        x += 1
    return runs


def test_speed_four_players_stuck_side_by_side_read_as_two_SP27(tmp_path):
    """Four players, two a line: P3 and P4 both stuck are two entries, the
    gap between them wider than any space inside one ("P3 STUCK", not
    "P3 STUCKP4 STUCK"), each in its half of the screen."""
    from app_rig import Rig as AppRig, speed_opts, start_deal, MS
    from speedref.app import speed_flow as sf
    r = AppRig(str(tmp_path))
    r.app.start("speed", r.t, speed_opts(seats=4))
    start_deal(r, 4)
    r.press(2)
    r.press(3)
    r.wait(600 * MS)  # held 0.5 s: both stuck (SP-14)
    assert r.app.flow.phase == sf.PLAY and r.app.flow.deal.is_stuck(2) and r.app.flow.deal.is_stuck(3)
    f = bytes(r.app.buf)
    runs = _blank_runs(f, 47)
    widest = max(runs, key=lambda run: run[1])
    inside = [n for s, n in runs if (s, n) != widest]
    assert widest[1] > max(inside) + 2, runs  # the players apart more than their words
    assert widest[0] < oled.WIDTH // 2 < widest[0] + widest[1], runs  # the halves' border
    assert find(f, "P3") == (0, 47) and find(f, "P4") is not None and find(f, "P4")[0] >= 64


def test_speed_final_screen_names_the_winner_SP19(tmp_path):
    """The match's end says who won by the name the record carries."""
    from app_rig import Rig as AppRig, speed_opts
    r = AppRig(str(tmp_path))
    opts = speed_opts(match="single")
    opts["names"] = ["Ann", "Bob"]
    r.app.start("speed", r.t, opts)
    from app_rig import play_deal
    play_deal(r, 1, 7)  # one deal: the match's end (SP-19)
    from speedref.app import speed_flow as sf
    assert r.app.flow.phase == sf.FINAL
    f = bytes(r.app.buf)
    assert find(f, "Bob wins") is not None
    assert find(f, "P2 wins") is None


def test_spit_final_screen_names_the_winner_SPIT14(tmp_path):
    """Spit's end: the winner's name, big, where "P1" was."""
    from app_rig import Rig as AppRig
    from app_spit_game import spit_opts, play_round, GAME
    from speedref.app import spit_flow as sp
    r = AppRig(str(tmp_path))
    r.app.start("spit", r.t, spit_opts(names=["Ann", "Bob"]))
    for rnd in GAME:
        play_round(r, rnd)
    assert r.app.flow.phase == sp.FINAL and r.app.flow.game.winner == 0
    f = bytes(r.app.buf)
    assert _big_text_at(f, "Ann") and not _big_text_at(f, "P1")


def _big_text_at(frame, s):
    """`s` drawn big (ui.big_center) somewhere on the frame: drawn into a
    blank frame at each scale, its pixels are a subset of the frame's and it
    is where big_center puts it."""
    import framebuf
    from speedref.app import ui
    for scale in range(1, 6):
        for y in range(0, 40):
            buf = bytearray(1024)
            ui.big(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB), s,
                   (128 - 8 * scale * len(s)) // 2, y, scale)
            if any(buf) and all((a & b) == b for a, b in zip(frame, buf)) and scale > 1:
                return True
    return False
