"""speedref-sim --table: computer players at a virtual table, the referee
app's verdicts checked against what really happened.  Rule numbers from
seeds/speed.md.  (The 1,000-game soak is benchmarks/table_soak.py.)"""
import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mpyhelp import one_install
from sim.table import runner
from sim.table.base import menu_buttons
from sim.table.speed_table import SpeedTable
from sim.bots import Person, MIN_REACTION_US, MAX_REACTION_US, TAP_MAX_US
from sim.board import Board

ROOT = Path(__file__).resolve().parents[2]


def test_speed_table_agrees_with_the_app_over_varied_games():
    """SP-6/SP-14..SP-19: 12 seeded games with every option the menu offers
    (layouts, jokers, doubles, hand limits, slap-to-win, match formats, tie
    windows); false starts, flips, rebuilds, outs and counts all agree with
    the engine's truth.  Players may lift their hands in the flip countdown."""
    s = runner.run("speed", 12, 11)
    assert s["failed"] == []
    assert s["games"] == s["agreements"] == 12  # every game asked for was played and agreed
    assert s["deals"] >= 12
    # one seed, one set of games: a second run plays exactly the same deals,
    # slaps and false starts (only the wall-clock figures may differ)
    again = runner.run("speed", 12, 11)
    for k in ("wall_s", "games_per_s"):
        del s[k], again[k]
    assert again == s


def _game(opts, seed, **kw):
    tb = SpeedTable(seed, opts=opts, **kw)
    try:
        bad = tb.play()
    finally:
        tb.close()
    return tb, bad


BASE = {"layout": "classic", "jokers": False, "doubles": False, "hand_limit": 5,
        "slap_to_win": False, "match": "best_of", "target": 25, "tie_ms": "auto",  # 5 ms on the simulated board
        "seats": 2}


def test_sp16_sp18_best_of_three_record_equals_the_engine_deals():
    """SP-16/SP-18/SP-19: the stored record's deals are exactly the card-level
    engine's (winner, cards the loser holds), and the device logged one
    `deal` line per deal with the engine's flip and rebuild counts."""
    tb, bad = _game(dict(BASE), "best")
    assert bad == []
    deals = [(o["winner"], o["left"], o["flips"], o["rebuilds"])
             for _, o in tb.lines if o["ev"] == "deal"]
    assert deals == tb.t_deals
    assert 2 <= len(deals) <= 3
    assert tb.record["deals"] == [{"winner": w, "left": n} for w, n, _, _ in tb.t_deals]
    wins = [sum(1 for d in tb.t_deals if d[0] == p) for p in (0, 1)]
    assert max(wins) == 2


def test_sp17_slap_verdicts_name_the_first_slapper_and_the_true_margin():
    """SP-17 with slap-to-win: every `slap` line names the seat whose press
    really came first and the microsecond gap to the second press; races
    inside the tie window are ties (counted) and are slapped again."""
    slaps = ties = margins = 0
    for i in range(6):
        o = dict(BASE, slap_to_win=True, match="single", tie_ms=50)
        tb, bad = _game(o, "slap%d" % i, lift_early=False)
        assert bad == []
        lines = [o for _, o in tb.lines if o["ev"] == "slap"]
        assert [(l["winner"], l["margin_us"]) for l in lines] == [(v[1], v[3]) for v in tb.t_slaps]
        slaps += len(lines)
        margins += sum(1 for l in lines if l["margin_us"] is not None)
        ties += tb.ties
        assert lines[-1]["winner"] == tb.t_deals[-1][0]
    assert slaps >= 6
    assert margins >= 1  # a second slap was in a race and its gap was checked


def test_sp6_false_starts_are_logged_with_the_true_earliness():
    """SP-6: a pad slapped before GO is a false start; the app's early_us is
    exactly GO (3 s after the second ready tap) minus the press time."""
    found = []
    for i in range(10):
        tb, bad = _game(dict(BASE, match="single"), "fs%d" % i, false_start=0.5)
        assert bad == []
        found += tb.t_false
        if len(found) >= 2:
            break
    assert len(found) >= 2
    assert all(0 < early <= 400000 for _, _, early in found)


def test_the_check_fails_when_the_app_and_the_table_differ():
    """The comparison is real: a changed count, a changed slap margin or a
    lost false start in the device's log is reported."""
    tb, bad = _game(dict(BASE, slap_to_win=True, match="single"), "tamper", lift_early=False)
    assert bad == []
    i = next(k for k, (_, o) in enumerate(tb.lines) if o["ev"] == "deal")
    t, o = tb.lines[i]
    tb.lines[i] = (t, dict(o, left=o["left"] + 1))
    assert any(b.startswith("deals:") for b in tb.compare())
    tb.lines[i] = (t, o)
    tb.t_false.append((1, 0, 1234))
    assert any(b.startswith("false starts:") for b in tb.compare())
    tb.t_false.pop()
    tb.lines.append((0, {"ev": "error", "what": "app", "msg": "x"}))
    assert any("device error" in b for b in tb.compare())


def test_cli_prints_the_summary_and_exits_0(tmp_path):
    r = subprocess.run([sys.executable, "-m", "sim", "--table", "speed", "--games", "3", "--seed", "5"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    out = r.stdout
    assert "speed table: games 3," in out and "games/s" in out
    assert ("disagreements 0" in out) == (r.returncode == 0)


def test_cli_exit_status_is_1_on_a_disagreement(monkeypatch):
    class Liar(SpeedTable):
        def compare(self):
            return ["planted"]
    monkeypatch.setattr(runner, "table_class", lambda game: Liar)
    out = io.StringIO()
    assert runner.main("speed", 1, 1, out) == 1
    assert "disagreements 1" in out.getvalue() and "planted" in out.getvalue()


def test_cli_refuses_a_game_without_a_table(monkeypatch):
    from speedref import games
    monkeypatch.setattr(games, "GAMES", tuple(g._replace(table="sim.table.nosuchtable:NoTable")
                                              if g.id == "partners" else g for g in games.GAMES))
    assert runner.main("partners", 1, 1, io.StringIO()) == 2
    assert runner.main("chess", 1, 1, io.StringIO()) == 2


def test_same_seed_same_games():
    """A table run is reproducible from its seed (the device log too)."""
    a, _ = _game(None, "again")
    b, _ = _game(None, "again")
    # the same but for the install ids of their two fresh stores
    assert one_install([o for _, o in a.lines]) == one_install([o for _, o in b.lines])
    assert a.t_deals == b.t_deals and a.start_us == b.start_us


def test_menu_buttons_start_the_game_with_the_chosen_options():
    """The players reach the game through the menu like people: the
    computed UP/DOWN/OK presses start Speed with exactly those options."""
    want = dict(BASE, layout="pagat", slap_to_win=True, hand_limit=7, match="target",
                target=50, tie_ms=20)
    b = Board()
    try:
        b.step()
        t = 100000
        for btn in menu_buttons(b, "speed", want):
            b.event(t, btn, True)
            b.event(t + 50000, btn, False)
            t += 150000
        assert b.app.flow is not None and b.app.flow.opts == want
    finally:
        b.close()


def test_people_react_like_people():
    """Reaction times are log-normal around the person's median (250-400 ms),
    clamped; taps stay under the 0.5 s stuck threshold; bounces are short."""
    p = Person(random.Random(4), 0, bounce=0.5)
    r = sorted(p.reaction() for _ in range(2000))
    assert 250000 <= p.median_us <= 400000
    assert abs(r[1000] - p.median_us) < 0.1 * p.median_us
    assert r[0] >= MIN_REACTION_US and r[-1] <= MAX_REACTION_US
    assert r[1900] > 1.4 * r[1000]  # the long right tail
    assert all(p.tap_us() <= TAP_MAX_US < 500000 for _ in range(100))
    b = [p.bounces() for _ in range(200)]
    assert any(b) and all(len(x) in (0, 2, 4) and all(0 < d < 3000 for d in x) for x in b)


def test_sp17_lifting_hands_in_the_flip_countdown_is_not_a_slap():
    """SP-14/SP-17: both players hold their pads (stuck), the flip countdown
    starts, both lift their hands before GO: after the flip, play goes on;
    nobody claimed to be out."""
    from speedref.app import menu, speed_flow as F
    b = Board()
    try:
        b.step()
        o = dict(menu.merge_settings({})["speed"], slap_to_win=True)
        b.app.start("speed", b.now(), o)
        b.step()

        def tap(ms, btn):
            b.event(ms * 1000, btn, True)
            b.event((ms + 80) * 1000, btn, False)
        tap(500, 6)
        tap(1000, 0)
        tap(1200, 1)
        b.run_until(4500000)
        b.event(5000000, 0, True)   # P1 stuck
        b.event(5700000, 1, True)   # P2 stuck after P1's hold was registered
        b.run_until(6300000)
        assert b.app.flow.phase == F.FLIP
        b.event(6500000, 0, False)  # hands off during the countdown
        b.event(6550000, 1, False)
        b.run_until(12000000)
        assert b.app.flow.phase == F.PLAY
        assert not [l for l in b.lines if json.loads(l)["ev"] == "slap"]
    finally:
        b.close()


def _human_plays_a_match(seed, pace="fast", seats=None):
    """Drive --play speed's table headless: a 'person' (this function) uses
    only what the play mode offers a person: pad taps and holds, card keys,
    OK/UP/DOWN, and what the screen and the panel show.  The computer plays
    at `pace` (--pace)."""
    from sim.table.speed_person import SpeedPlay, HUMAN, CARD_KEYS
    from speedref.app import speed_flow as F
    from speedref.engine import speed_cards as SP
    tb = SpeedPlay(seed, realtime=False, pace=pace, seats=seats)
    tb.start()
    done_phase = None
    last = None
    refused = 0
    for _ in range(20000):
        if tb.done:
            break
        tb.advance(120000)
        ph = tb.phase
        st = tb.st
        if ph != last:
            last = ph
            if ph == F.PLAY:
                done_phase = ph
        if ph == F.PLAY and st is not None and st.phase == "play":
            acts = st.legal_actions(HUMAN)
            plays = [a for a in acts if a < SP.READY]
            if plays:
                card = plays[0] & 0xFF
                tb.hand()
                why = tb.play_card(CARD_KEYS.index(tb.letters.letter(card)), plays[0] >> 8)
                refused += why is not None
            elif SP.DRAW in acts:
                assert tb.draw_card() is None
            elif acts == [SP.STUCK] and not tb.finger[HUMAN]:
                tb.pad_hold()
            continue
        if ph == F.PLAY and tb.winner == HUMAN and done_phase != ("out", tb.deal_no):
            done_phase = ("out", tb.deal_no)
            tb.pad_tap()  # "I'm out"
            continue
        if ph == done_phase:
            continue
        prev, done_phase = done_phase, ph
        if tb.finger[HUMAN] and ph != F.PLAY:
            tb.pad_hold()  # lift the hand
            tb.advance(200000)
        if ph in (F.LAYOUT, F.REBUILD, F.NEXT, F.FINAL):
            tb.tap(tb.t + 300000, 6, 100000)
        elif ph == F.READY:
            tb.pad_tap()
        elif (ph == F.FLIP and prev != F.REBUILD and tb.board.app.flow.deal.reserve_left is None
              and not all(st.reserves[:tb.seats])):
            tb.tap(tb.t + 300000, 5, 80000)  # SP-15: "DOWN: none left"
        elif ph == F.CLAIM and tb.board.app.flow.deal.claimant != HUMAN:
            tb.tap(tb.t + 600000, HUMAN, 600000)  # SP-16: after the question, held: yes
        elif ph == F.LEFT:
            w, left = tb.t_deals[-1][:2]
            shown = tb.board.app.flow.left
            t = tb.t + 300000
            # SP-35: each loser's count in seat order, each from the lowest
            for n in [left] if tb.seats == 2 else [left[p] for p in range(tb.seats) if p != w]:
                for _ in range(n - shown):
                    t = tb.tap(t, 4, 80000)[1] + 100000
                t = tb.tap(t, 6, 80000)[1] + 100000
    return tb, refused


def test_play_speed_a_person_against_the_computer_finishes_a_match():
    """--play speed: one person (seat P1) against one computer player, the
    referee app refereeing: the match ends, the stored record's deals are
    the engine's, and the person's pad and keys reached the app."""
    tb, refused = _human_plays_a_match("person")
    try:
        assert tb.done, tb.panel()
        assert refused == 0
        assert tb.record["deals"] == [{"winner": w, "left": n} for w, n, _, _ in tb.t_deals]
        assert tb.t_deals and all(w in (0, 1) for w, _, _, _ in tb.t_deals), tb.t_deals
        panel = "\n".join(tb.panel())
        assert "Your hand" in panel and "Centre piles" in panel
    finally:
        tb.close()


@pytest.mark.parametrize("seats", [3, 4])
def test_play_speed_a_person_against_computers_at_3_and_4_seats_SP27(seats):
    """--play speed --seats N: the person (P1) and N-1 computer players, one
    pad each; the match ends and its record is the engine's deals, one count
    a player (SP-35)."""
    tb, refused = _human_plays_a_match("seated%d" % seats, seats=seats)
    try:
        assert tb.done, tb.panel()
        assert refused == 0 and tb.record["players"] == ["P%d" % (p + 1) for p in range(seats)]
        assert tb.record["deals"] == [{"winner": w, "left": list(n)} for w, n, _, _ in tb.t_deals]
        panel = "\n".join(tb.panel())
        assert "Centre piles" in panel and "%d:[" % seats in panel and "P%d:" % seats in panel
    finally:
        tb.close()


def test_a_game_across_the_ticks_wrap_agrees():
    """ticks_us wraps at 2**30 on a 32-bit board: a slap-to-win game that
    starts 20 s before the wrap is refereed exactly as any other (margins,
    false-start earliness and counts are differences of wrapped ticks)."""
    o = dict(BASE, slap_to_win=True, match="best_of", tie_ms=2)
    tb, bad = _game(o, "wrap", start_us=(1 << 30) - 20000000, lift_early=False, false_start=0.3)
    assert bad == []
    assert tb.t > 20000000  # the game ran past the wrap
    assert tb.ticks(tb.t) < tb.start_us


def test_play_speed_panel_says_who_holds_cards_in_plain_words():
    """--play speed: after a deal, the panel asks for the loser's cards left,
    "You hold 7" when the person lost, "P2 holds 7" when the computer did."""
    from sim.table.speed_person import SpeedPlay, HUMAN, BOT
    from speedref.app import speed_flow as F
    tb = SpeedPlay("grammar", realtime=False)
    try:
        tb.start()
        tb.winner, tb.t_deals = BOT, [(BOT, 7, 0, 0)]
        tb.on_phase(F.PLAY, F.LEFT)
        assert tb.note == "You hold 7: UP/DOWN, OK"
        tb.winner, tb.t_deals = HUMAN, [(HUMAN, 7, 0, 0)]
        tb.on_phase(F.PLAY, F.LEFT)
        assert tb.note == "P2 holds 7: UP/DOWN, OK"
    finally:
        tb.close()
