"""The simulator's own parts: script parsing, the terminal key hold model,
the virtual clock and GPIO, and the capture path of the virtual board (the
firmware's own capture handler and ring buffer)."""
import pytest

from sim import script, keys, oled
from sim.hardware import VirtualClock, VirtualGPIO, VirtualPin, PERIOD


def test_script_parses_times_to_exact_microseconds_and_skips_comments():
    ev = script.parse("# a comment\n\n0 p1 down\n12.5 P2 up  # trailing\n1500.001 ok down\n3 back up\n"
                      .replace("3 back", "1600 back"))
    assert ev == [(0, 0, True, 3), (12500, 1, False, 4), (1500001, 6, True, 5), (1600000, 7, False, 6)]


@pytest.mark.parametrize("line,why", [
    ("10 p5 down", "unknown button"),
    ("10 p1 sideways", "edge must be"),
    ("x p1 down", "time must be"),
    ("1.2345 p1 down", "time must be"),
    ("-1 p1 down", "time must be"),
    ("10 p1", "expected"),
])
def test_malformed_line_names_its_number(line, why):
    with pytest.raises(script.ScriptError) as e:
        script.parse("0 ok down\n" + line + "\n")
    assert e.value.lineno == 2 and why in str(e.value) and "line 2" in str(e.value)


def test_time_going_backwards_is_refused():
    with pytest.raises(script.ScriptError) as e:
        script.parse("100 p1 down\n99 p1 up\n")
    assert e.value.lineno == 2


def test_key_repeat_is_one_long_press_not_a_slap_storm():
    """A held key in a terminal: first event, repeat delay, then repeats every 33 ms."""
    k = keys.KeyHolds(delay_us=500000, interval_us=150000)
    presses = [k.key(0, 0)]
    t = 400000  # first auto-repeat after 400 ms
    while t < 3000000:
        presses.append(k.key(0, t))
        assert k.expired(t) == []
        t += 33000
    assert presses.count(True) == 1
    last = t - 33000
    assert k.expired(last + 149999) == []
    assert k.expired(last + 150000) == [(0, last + 150000)]
    assert k.key(0, last + 200000) is True  # a new press after the release


def test_single_tap_is_released_after_the_repeat_delay():
    k = keys.KeyHolds(delay_us=500000, interval_us=150000)
    assert k.key(6, 1000) is True
    assert k.expired(500999) == []
    assert k.expired(501000) == [(6, 501000)]


def test_virtual_clock_wraps_at_2_30_like_a_32_bit_board():
    c = VirtualClock(start_us=PERIOD - 10)
    c.advance(25)
    assert c.ticks_us() == 15 and c.elapsed_us == 25
    with pytest.raises(ValueError):
        c.advance_to(3)


def test_gpio_edge_runs_the_pin_handler_after_the_register_changed():
    g = VirtualGPIO(30)
    seen = []
    p = g.pin(4)
    p.irq(handler=lambda pin: seen.append((pin.num, g.read_register() >> 4 & 1)),
          trigger=VirtualPin.IRQ_FALLING)
    g.set_level(4, 0)
    g.set_level(4, 0)  # no edge, no interrupt
    g.set_level(4, 1)  # rising edge: not in the trigger
    assert seen == [(4, 0)]


def test_oled_png_round_trip(tmp_path):
    frame = bytearray(1024)
    frame[0] = 0x81  # (0,0) and (0,7)
    frame[127 + 7 * 128] = 0x80  # (127,63)
    oled.save_png(frame, tmp_path / "f.png")
    assert oled.from_image(tmp_path / "f.png") == bytes(frame)
    lines = oled.halfblock_lines(frame)
    assert len(lines) == 32 and lines[0][0] == "\u2580" and lines[3][0] == "\u2584"
    assert lines[31][127] == "\u2584"


# ---- the virtual board's input path: the firmware's own capture handler ----

def _board(**kw):
    from sim.board import Board
    return Board(**kw)


def test_press_goes_through_the_capture_handler_into_the_ring():
    """The pin edge runs speedref.hw.capture's handler, which reads the clock
    and the register and puts (t, mask) in the firmware's EventRing."""
    b = _board(start_us=PERIOD - 500)
    try:
        b.clock.advance_to(1000)
        b.set_button(0, True)
        b.clock.advance_to(1250)
        b.set_button(1, True)
        ts = [0] * 8
        ms = [0] * 8
        n = b.ring.drain(ts, ms)
        assert n == 2
        assert ts[:2] == [500, 750]  # wrapped past 2**30
        assert ms[:2] == [0b01, 0b11]
    finally:
        b.close()


def test_bounce_inside_the_lockout_is_not_a_second_press():
    """10 edges in 2 ms are one press (the capture lockout)."""
    b = _board()
    try:
        for i in range(10):
            b.clock.advance_to(1000 + i * 200)
            b.set_button(2, i % 2 == 0)
        ts = [0] * 16
        ms = [0] * 16
        n = b.ring.drain(ts, ms)
        assert n == 1 and ms[0] == 0b100 and ts[0] == 1000
    finally:
        b.close()


def test_firmware_display_code_fills_the_virtual_ssd1306_ram():
    """hw/display.py's init sequence turns the panel on, a full frame lands in
    the controller RAM, and a later change sends only the changed pages."""
    from sim.hardware import VirtualSSD1306
    from speedref.hw.display import Display
    o = VirtualSSD1306(0x3C)
    d = Display(o, 0x3C)
    assert o.on and not o.inverse
    buf = bytearray(range(256)) * 4
    d.show(buf)
    assert o.frame == bytes(buf)
    before = o.bytes_received
    buf[3 * 128 + 5] ^= 0xFF  # one byte on page 3
    d.show(buf)
    assert o.frame == bytes(buf)
    assert o.bytes_received - before < 200  # one page and its window, not 1024 bytes
    with pytest.raises(OSError):
        o.writeto(0x3D, b"\x80\xaf")


def test_log_lines_for_people_spell_out_slap_margins():
    from sim.tui import describe
    assert describe({"ev": "slap", "game": "speed", "kind": "out", "winner": 0, "tie": [],
                     "margin_us": 3240}) == "SLAP speed out: P1 by 3.2 ms"
    assert describe({"ev": "slap", "game": "spit", "kind": "pile", "winner": None, "tie": [0, 1],
                     "margin_us": 400}) == "SLAP spit pile: tie P1 P2 (400 us apart)"
    assert describe({"ev": "false_start", "seat": 1, "early_us": 120000}) == "FALSE START P2 (120 ms early)"


def test_log_lines_for_people_spell_out_deals_rounds_and_hands():
    from sim.tui import describe
    assert describe({"ev": "deal", "game": "speed", "deal": 1, "winner": 0, "left": 15,
                     "totals": [15, 0], "flips": 1, "rebuilds": 0}) == \
        "DEAL speed 1: P1 out, 15 left, totals 15-0 (1 flip, 0 rebuilds)"
    assert describe({"ev": "round", "game": "spit", "round": 1, "restarts": 1, "cards": [20, 32],
                     "cleared": 0, "slap": 1}) == \
        "ROUND spit 1: P1 cleared, P2 took smaller, cards 20-32, 1 restart"
    assert describe({"ev": "round", "game": "spit", "round": 4, "restarts": 10, "cards": [10, 42],
                     "blocked": True}) == "ROUND spit 4: blocked, cards 10-42, 10 restarts"
    assert describe({"ev": "hand", "game": "speedrun", "hand": 2, "first": 2, "trump": "raccoons",
                     "ranking": "bell-1", "tricks": [4, 6, 2], "contracts": ["W9", "PASS", "MIDDLE"],
                     "revealed": [True, False, True], "scores": [10, None, 4], "totals": [16, 4, 5],
                     "over": False, "ended_early": False}) == \
        ("HAND speedrun 2: raccoons bell-1, tricks 4/6/2, contracts W9* PASS MIDDLE*, "
         "scores +10 - +4, totals 16/4/5")
    assert describe({"ev": "hand", "game": "partners", "hand": 3, "scores": [48, 24, 0, 0],
                     "doubled": True, "totals": [67, 52, 15, 2], "next_dealer": 3, "over": False,
                     "dealer": 0, "contractor": 3, "partner": 2, "bid": 8, "trump": "spades",
                     "tricks": [4, 2, 3, 4]}) == \
        ("HAND partners 3: P4+P3 bid 8 spades, tricks 4/2/3/4, scores 48/24/0/0 (doubled), "
         "totals 67/52/15/2, next dealer P4")


def test_log_lines_for_people_spell_out_contracts_and_reveals():
    """The partners contract line (PT-7, PT-8) and the Speed Run reveal line
    (SR-21) in words, as deal, round and hand lines are."""
    from sim.tui import describe
    assert describe({"ev": "contract", "game": "partners", "hand": 1, "dealer": 0, "contractor": 1,
                     "partner": 2, "bid": 9, "trump": "hearts", "swap": [2, 3],
                     "seats": [0, 1, 3, 2]}) == \
        "CONTRACT partners 1: P2+P3 bid 9 hearts (P1 dealt); P3 and P4 swap seats: P3 to pad 4, P4 to pad 3"
    assert describe({"ev": "contract", "game": "partners", "hand": 2, "dealer": 1, "contractor": 1,
                     "partner": 3, "bid": 7, "trump": "notrump", "swap": None,
                     "seats": [0, 1, 2, 3]}) == "CONTRACT partners 2: P2+P4 bid 7 notrump (P2 dealt); nobody moves"
    assert describe({"ev": "reveal", "game": "speedrun", "hand": 1, "seat": 0, "contract": "W7",
                     "trick": 2}) == "REVEAL speedrun 1: P1 turns Win 7 face up before trick 2"
    assert describe({"ev": "reveal", "game": "speedrun", "hand": 3, "seat": 2, "contract": "REDO",
                     "trick": 12}) == "REVEAL speedrun 3: P3 turns Redo face up before trick 12"


def test_readable_script_output_has_no_raw_json_for_game_lines(tmp_path):
    """The committed scripts' readable output: deal, round and hand lines in words."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    for game, word in (("speed", "DEAL "), ("spit", "ROUND "), ("speedrun", "HAND "),
                       ("partners", "HAND "), ("partners", "CONTRACT "), ("speedrun", "REVEAL ")):
        out = subprocess.run([sys.executable, "-m", "sim", "--script",
                              str(root / "tests" / "sim_scripts" / (game + ".txt"))],
                             cwd=str(root), capture_output=True, text=True, check=True).stdout
        lines = out.splitlines()
        assert any(line.startswith(word) for line in lines), game
        assert not any('"ev": "%s"' % word.strip().lower() in line for line in lines), game
