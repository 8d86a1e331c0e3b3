"""Games on the emulated Pico equal the simulator's.

The committed event scripts (tests/sim_scripts/*.txt: a whole partners game,
and the first round, hand or deal of the others) are played through the
pins of MicroPython's own rp2 firmware in rp2040js: every button through the
PIO state machine, the OLED through its I2C bytes, the log over USB CDC.
The simulator runs the same firmware code on CPython with virtual parts and
a loop pass every millisecond; the board's loop runs as fast as it runs.  The
log lines, the records (the engine's own replay included) and the screens
must be the same; docs/emulator.md lists what may differ and why (the
record's device id; the boot line; a screen while the board is still sending
it over I2C).
"""
import pytest

from board_rig import needs_board
from emu import referee
from sim import script

pytestmark = [pytest.mark.board, needs_board]

SCRIPTS = "tests/sim_scripts/%s.txt"
# A screen is compared when the next event is at least this far away: the
# board shows a change up to ~35 ms later (a full frame on the 400 kHz bus
# after the pass's work; a save, and its erase of ~45 ms, come after it).
SETTLED_US = 150000


def events_of(game, until_ms=None):
    from mpyhelp import ROOT
    text = (ROOT / (SCRIPTS % game)).read_text()
    events_of.seats = script.header_seats(text)  # a '# seats: N' header's players, or None
    ev = script.parse(text)
    if until_ms is not None:
        ev = [e for e in ev if e[0] <= until_ms * 1000]
    return ev


class Frames:
    """A ScreenWriter that keeps the frames: {event number: frame}."""

    def __init__(self):
        self.at = {}

    def write(self, frame, n, label):
        self.at[n] = bytes(frame)


def on_simulator(game, events, seats=None, options=None):
    from sim.board import Board
    board = Board()
    lines, frames = [], {}
    board.on_line = lines.append
    on_simulator.tones = board.pwm.tones
    on_simulator.texts = None
    try:
        board.step()
        if game is not None:  # None: the events start from the boot screen
            board.start_game(game, seats, options)
        for n, (t_us, button, down, _) in enumerate(events, 1):
            board.run_until(max(board.clock.elapsed_us, t_us - referee.SHOT_BEFORE_US))
            frames[n - 1] = board.screen()  # what the table sees before event n
            board.event(t_us, button, down)
        end = events[-1][0] + 2000000
        board.run_until(end - referee.SHOT_BEFORE_US)
        frames[len(events)] = board.screen()
        board.run_until(end)
        frames[len(events) + 1] = board.screen()
        from conformance import draw
        on_simulator.texts = draw(board.app.screen).texts  # the last screen's small texts
    finally:
        board.close()
    return lines, frames


def on_board(game, events, seats=None, frozen=False, options=None):
    lines = []
    frames = Frames()
    opts = dict(options or {})
    if seats is not None:
        opts["seats"] = seats
    ref, _ = referee.run_script(events, game=game, show=lines.append, shots=frames, frozen=frozen,
                                options=opts or None)
    return [l for l in lines if l.get("ev") != "boot"], frames.at, ref


def without_id(obj):
    if obj.get("ev") == "game_end":
        rec = dict(obj["record"])
        rec.pop("id")
        rec.pop("table", None)
        return dict(obj, record=rec)
    return obj


def settled(events):
    """Event numbers after which the board has time to show the screen whole
    before the next event (SETTLED_US): their screens are compared just
    before that next event."""
    out = [0]
    for n in range(1, len(events)):
        if events[n][0] - events[n - 1][0] >= SETTLED_US:
            out.append(n)
    return out + [len(events) + 1]  # and the end, 2 s after the last event


# The times a line gives as the difference of two presses' stamps: a slap's
# margin, and a false start's time before GO (GO is three seconds after the
# press that started the countdown).
_GAPS = {"slap": "margin_us", "false_start": "early_us"}


def same_margin(board, sim):
    """The board's line with a slap's margin_us (or a false start's
    early_us) taken as the simulator's when they are within 1 us: the PIO
    samples every 136 ns and each press's time is floored to the microsecond,
    so the sampled margin of a 7.3 ms race is 7299, 7300 or 7301 us depending
    on where the presses fall between two samples (which moves with the
    boot's length).  Everything else exact."""
    if board.get("ev") == "wiring" and sim.get("ev") == "wiring":
        # "Check wiring"'s bounces, each a difference of two sampled edges
        out = dict(board)
        for key in ("bounce_us", "most_us"):
            b, s = board.get(key), sim.get(key)
            if isinstance(b, list) and isinstance(s, list) and len(b) == len(s) and all(
                    (x is None) == (y is None) and (x is None or abs(x - y) <= 1) for x, y in zip(b, s)):
                out[key] = s
        out["board"] = sim.get("board")  # the board file's name, "simulator" there
        return out
    key = _GAPS.get(board.get("ev"))
    if key is not None and sim.get("ev") == board.get("ev"):
        b, s = board.get(key), sim.get(key)
        if isinstance(b, int) and isinstance(s, int) and abs(b - s) <= 1:
            return dict(board, **{key: s})
    return board


def check(name, until_ms=None, all_tones=False, frozen=False, events=None, seats=None, options=None):
    """The script `name` (speed_3p: Speed's, with its header's players) to
    until_ms on the simulator and on the emulated board (frozen: the
    speedref-pico image, its bytecode in flash).  Or `events` of game
    `name`, with `seats` players and `options` changed from the defaults."""
    game = None if name == "menu" else name.split("_")[0]
    if events is None:
        events = events_of(name, until_ms)
        seats = events_of.seats
    sim_lines, sim_frames = on_simulator(game, events, seats, options)
    board_lines, board_frames, ref = on_board(game, events, seats, frozen, options)
    board_lines = [same_margin(b, s) for b, s in zip(board_lines, sim_lines)] + board_lines[len(sim_lines):]
    assert [without_id(l) for l in board_lines] == [without_id(l) for l in sim_lines]
    assert sim_lines or game is None, "the script printed nothing"  # the menu logs nothing
    shown = settled(events)
    differ = [n for n in shown if board_frames[n] != sim_frames[n]]
    assert not differ, "screens differ after events %r" % differ[:5]
    assert not [l for l in ref.other if "Traceback" in l], ref.other
    # The buzzer: the tones the PWM registers made, against the simulator's
    # (MicroPython's PWM.freq() picks a divider and TOP: within 1 %).  Presses
    # the board takes in a burst after a flash save can queue more cues than
    # the buzzer keeps (hw/buzzer._QUEUE: a beep late is worse than none), so
    # the board may drop some; it never adds, changes or reorders one.
    sim_tones = [f for _, f, _ in on_simulator.tones]
    board_tones = [t.freq for t in ref.pico.tones]
    assert sim_tones and len(board_tones) >= 0.8 * len(sim_tones), (board_tones, sim_tones)
    rest = iter(sim_tones)
    assert all(any(abs(b - f) <= f / 100 for f in rest) for b in board_tones), \
        (board_tones, sim_tones)
    if all_tones:
        assert len(board_tones) == len(sim_tones), (board_tones, sim_tones)
    return board_lines


def test_partners_game_equals_the_simulator_PT13():
    """A whole game to 100: bids, partners and seat swaps, tricks, doubling
    (PT-13, PT-16), the record at the end equal to the engine's replay."""
    lines = check("partners")
    end = lines[-1]
    assert end["ev"] == "game_end"
    from speedref.engine import records
    assert records.replay(without_id(end)["record"]).to_record() == without_id(end)["record"]


def test_spit_round_equals_the_simulator_SPIT10():
    """A Spit round: a false start, both stuck, a clearing and the slap race
    for the smaller pile decided by the PIO's timestamps (P2 first, P1 7.3 ms
    later: SPIT-10), the margin in the log as the simulator has it, and at a
    person's pace every cue the simulator sounds."""
    lines = check("spit", until_ms=12800, all_tones=True)
    slap = [l for l in lines if l["ev"] == "slap"][0]
    assert slap["winner"] == 1 and slap["margin_us"] == 7300


def test_speedrun_hand_equals_the_simulator_SR24():
    """The first Speed Run hand: reveals, trick counts, contracts and the hand's
    scores (SR-24)."""
    lines = check("speedrun", until_ms=5600)
    assert [l["hand"] for l in lines if l["ev"] == "hand"] == [1]


def test_speed_deal_equals_the_simulator_SP19():
    """The first Speed deal: ready, 3-2-1 GO with a false start, stuck calls
    and the out claim, the deal's result (SP-19)."""
    lines = check("speed", until_ms=17300)
    assert [l["ev"] for l in lines].count("deal") == 1


@pytest.mark.long
@pytest.mark.parametrize("seats,until_ms,frozen", [(3, 19810, False), (4, 21090, True)],
                         ids=["3p", "4p-frozen"])
def test_speed_deal_with_3_and_4_players_equals_the_simulator_SP30_SP33_SP35(seats, until_ms, frozen):
    """The first deal of Speed with 3 and 4 players through the board's pins
    (pads 3 and 4 through the PIO too): everyone ready, a false start by the
    last seat that calls the countdown off for all, every player stuck for
    the flips, a rejected claim, the claim another player confirms and one
    count a loser, the same lines and screens as the simulator's (4 players
    on the image with speedref frozen in flash, 3 on the stock firmware with
    speedref on its filesystem)."""
    lines = check("speed_%dp" % seats, until_ms=until_ms, frozen=frozen)
    fs = [l for l in lines if l["ev"] == "false_start"]
    assert [(l["seat"], l["count"]) for l in fs] == [(seats - 1, 1)], "SP-30"
    assert [(l["seat"], l["verdict"]) for l in lines if l["ev"] == "claim"] == [(1, "rejected")], "SP-33"
    deals = [l for l in lines if l["ev"] == "deal"]
    assert len(deals) == 1 and deals[0]["winner"] == 0 and deals[0]["flips"] == 2
    assert deals[0]["left"] == [0, 15, 14, 13][:seats], "SP-35: one count a player"


# Slap to win with three players and a 1 ms tie window, a single deal
# (SP-19, SP-34): P1, P2 and P3 slap 0.0, 0.3 and 2.0 ms apart (P1 and P2
# tied); in the re-slap P3 slaps first and is ignored, P2 beats P1 by 4 ms;
# P1 holds: yes; the two losers' counts are 0 (they ran out too).
RESLAP = """# game: speed
# seats: 3
500 ok down
560 ok up
620 p1 down
680 p1 up
740 p2 down
800 p2 up
860 p3 down
920 p3 up
5000 p1 down
5000.300 p2 down
5002 p3 down
5060 p1 up
5060 p2 up
5060 p3 up
6000 p3 down
6005 p2 down
6009 p1 down
6060 p3 up
6060 p2 up
6060 p1 up
6800 p1 down
7400 p1 up
7600 ok down
7660 ok up
7800 ok down
7860 ok up
"""


def test_a_tie_is_slapped_again_by_the_tied_pads_alone_on_the_board_SP34_SP19():
    """Through the PIO's timestamps: the tie is P1 and P2 (P3 2 ms behind
    the first slap), P3's press in the re-slap is logged and ignored, P2
    wins the re-slap and the single deal, and 'Match over' names P2 as the
    winner: the same lines and screens as the simulator's."""
    events = script.parse(RESLAP)
    opts = {"slap_to_win": True, "tie_ms": 1, "match": "single"}
    lines = check("speed", events=events, seats=3, options=opts)
    slaps = [l for l in lines if l["ev"] == "slap"]
    assert [(s["winner"], s["tie"]) for s in slaps] == [(None, [0, 1]), (1, [])], slaps
    assert 3800 <= slaps[1]["margin_us"] <= 4200 and slaps[1]["presses"] == [1, 0]
    assert [(l["seat"], l["tie"]) for l in lines if l["ev"] == "slap_ignored"] == [(2, [0, 1])]
    deals = [l for l in lines if l["ev"] == "deal"]
    assert [(d["winner"], d["left"]) for d in deals] == [(1, [0, 0, 0])]
    assert "P2 wins" in " ".join(on_simulator.texts), on_simulator.texts


# The menu's "Check wiring" (app/check.py): P4 down from before the menu
# (a short to GND), OK on the boot screen, UP round to the list's last row,
# OK; then P1, P2 and P3 pressed with their contacts chattering for 2.0,
# 0.7 and 5.3 ms, UP and DOWN with chatter too, each held and let go; BACK.
CHECK = """300 p4 down
500 ok down
560 ok up
800 up down
860 up up
1100 ok down
1160 ok up
2000 p1 down
2000.500 p1 up
2001 p1 down
2001.500 p1 up
2002 p1 down
2400 p1 up
2600 p2 down
2600.300 p2 up
2600.700 p2 down
3000 p2 up
3200 p3 down
3201 p3 up
3203 p3 down
3204.800 p3 up
3205.300 p3 down
3600 p3 up
3800 up down
3800.400 up up
3801 up down
4100 up up
4300 down down
4300.200 down up
4300.600 down down
4600 down up
5000 back down
5060 back up
"""


def test_check_wiring_times_every_buttons_bounce_from_the_pio_and_names_a_short():
    """Every button through the PIO with injected chatter: the screens are
    the simulator's (names inverted while down, each pad's bounce in tenths
    of a ms), and the figures the board logs when it is left are the
    injected chatter to 1 us; P4, down since before the menu, is named."""
    events = script.parse(CHECK)
    lines = check("menu", events=events)
    w = [l for l in lines if l["ev"] == "wiring"]
    assert len(w) == 1, lines
    for got, want in zip(w[0]["bounce_us"], [2000, 700, 5300, None]):
        assert (got is None) == (want is None) and (want is None or abs(got - want) <= 1), w
    assert w[0]["closed_from_start"] == [3] and w[0]["never_closed"] == []
