"""The verdict before the flash, on the emulated Pico.

The moments players react to are played through the pins of MicroPython's
own rp2 firmware with the emulator's trace on (emu/board.py Pico(trace=True):
the pad lights' pin writes, every I2C byte, every flash erase and program,
each at its CPU cycle).  For each moment, from its deciding instant (a pad's
edge, or the instant a GO was due), the trace must show, in this order:

  1. the pad lights set (a verdict lights its winner, a false start blinks
     the jumper), before any byte of the new screen;
  2. the rows with the news first on the OLED (a verdict's title and margin,
     a false start's note, the play screen's title at GO), then the rest of
     the frame;
  3. only then a flash operation: the save the moment made (Spit's slap
     verdict is saved: five page programs and more) starts after the lights
     and every page of the new screen are out.

Nothing here measures a duration (benchmarks/bench_board.py prints those):
only the order of what the board did.
"""
import pytest

from board_rig import needs_board
from emu import images
from emu.board import NS_PER_US
from emu.referee import Referee
from emu.trace import Moment
from sim import script

pytestmark = [pytest.mark.board, needs_board]

SCRIPTS = "tests/sim_scripts/%s.txt"
# A Speed deal with slap to win (SP-17): ready, 3-2-1-GO, P2 slaps and P1
# 3.2 ms later; the verdict comes when both pads are up (the later release).
SPEED_SLAP = """
500 ok down
560 ok up
620 p1 down
680 p1 up
740 p2 down
800 p2 up
5000 p2 down
5003.200 p1 down
5060 p1 up
5061 p2 up
"""
WINDOW_NS = 400000 * NS_PER_US  # what follows a moment: its screen, its save

# game, script (None: the committed one), options, until (ms), and the moments:
# (name, event index, "edge" | "go" (3 s after it) | "stuck" (3.5 s after it),
#  the lights it sets (None: none), the pages sent first, a save follows)
SCENARIOS = {
    "speed": ("speed", None, {}, 11200, [
        ("false start (SP-22)", 6, "edge", 0b10, (7, 7), False),
        ("start GO (SP-6)", 10, "go", None, (0, 0), False),
        ("reserve flip GO (SP-14)", 13, "stuck", None, (0, 0), False),
    ]),
    "speed_slap": ("speed", SPEED_SLAP, {"slap_to_win": True}, 5100, [
        ("slap to win (SP-17)", 9, "edge", 0b10, (0, 0), False),
    ]),
    "spit": ("spit", None, {}, 12800, [
        ("false start (SPIT-18)", 6, "edge", 0b01, (7, 7), False),
        ("start GO (SPIT-4)", 10, "go", None, (0, 0), False),
        ("Spit again GO (SPIT-8)", 13, "stuck", None, (0, 0), False),
        ("slap for the smaller pile (SPIT-10)", 19, "edge", 0b10, (0, 0), True),
    ]),
}
OFFSET_NS = {"edge": 0, "go": 3000000 * NS_PER_US, "stuck": 3500000 * NS_PER_US}


def play(name, frozen):
    game, text, options, until, moments = SCENARIOS[name]
    if text is None:
        from mpyhelp import ROOT
        text = (ROOT / (SCRIPTS % game)).read_text()
    events = [e for e in script.parse(text) if e[0] <= until * 1000]
    ref = Referee(frozen=frozen, trace=True)
    try:
        ref.boot()
        ref.start_game(game, **options)
        p = ref.pico
        t0 = p.ns
        stamps = []
        for t_us, button, down, _ in events:
            p.run_until(max(p.ns, t0 + t_us * NS_PER_US))
            (ref.press if down else ref.release)(button)
            stamps.append(p.ns)
        p.run_until(p.ns + WINDOW_NS)
        out = []
        for m in moments:
            t = stamps[m[1]] + OFFSET_NS[m[2]]
            out.append((m, Moment(p.trace, t, t + WINDOW_NS)))
        return out, ref.other
    finally:
        ref.close()


CASES = [("speed", False), ("speed_slap", False), ("spit", False), ("spit", True)]


@pytest.fixture(scope="module", params=CASES, ids=["%s-%s" % (n, "frozen" if f else "mpy")
                                                     for n, f in CASES])
def played(request):
    name, frozen = request.param
    if frozen:
        try:
            images.frozen_firmware()
        except images.Missing as e:
            pytest.skip(str(e))
    return play(name, frozen)


def test_lights_then_the_news_rows_then_the_whole_screen_and_only_then_the_flash(played):
    moments, other = played
    assert not [x for x in other if "Traceback" in x], other
    for (name, _i, _kind, lights, first, saves), m in moments:
        where = "%s at %d ns" % (name, m.since_ns)
        assert m.frame != m.before and m.frame_ns is not None, "%s: a new screen" % where
        news = range(first[0], first[1] + 1)
        assert m.first_pages == first, "%s: pages %r went first, not %r" % (
            where, m.first_pages, first)
        news_ns = m.pages_ns(news)
        assert news_ns is not None and news_ns <= m.frame_ns
        if lights is None:
            assert m.lights is None or m.lights[0] > m.frame_ns, "%s: no pad lights" % where
        else:
            assert m.lights is not None and m.lights[2] == lights, "%s: lights %r" % (where, m.lights)
            assert m.lights[0] < m.start_ns, \
                "%s: the pad lights come before the first byte of the screen" % where
        if saves:
            assert m.flash is not None, "%s: the verdict is saved" % where
        if m.flash is not None:
            assert m.flash[0] > news_ns and m.flash[0] > m.frame_ns, \
                "%s: a flash %s started at %d ns, before the screen was out (%d ns)" % (
                    where, m.flash[2], m.flash[0], m.frame_ns)
            if lights is not None:
                assert m.flash[0] > m.lights[0], "%s: the flash before the lights" % where
