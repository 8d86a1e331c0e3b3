"""speedref-sim --table spit: two computer players play real cards with the
card-level engine, press the virtual board's pads as people do, and the
Spit referee app's verdicts are checked against what really happened.
Rule numbers from seeds/spit.md.  (The 1,000-game soak is
benchmarks/table_soak.py --game spit.)"""
import os
import subprocess
import sys
from pathlib import Path

from mpyhelp import one_install
from sim.table import runner
from sim.table.spit_table import SpitTable, tally

ROOT = Path(__file__).resolve().parents[2]


def _game(seed, **kw):
    tb = SpitTable(seed, **kw)
    try:
        bad = tb.play()
    finally:
        tb.close()
    return tb, bad


def _evs(tb, ev):
    return [o for _, o in tb.lines if o.get("ev") == ev]


def test_spit_table_agrees_with_the_app_over_several_games():
    """SPIT-4..SPIT-14, SPIT-18: 8 seeded games with tie windows from the
    menu; who cleared, slap winners and margins, restarts, counts after each
    relayout, false starts, the winner and the record all agree."""
    tabs = []
    for i in range(8):
        tb, bad = runner.play_game("spit", 21, i)
        assert bad == [], (i, bad)
        tabs.append(tb)
    s = tally(tabs)
    assert s["rounds"] >= 16
    assert s["slap_rounds"] >= 4 and s["slaps"] == s["slap_rounds"]
    assert s["restarts"] >= 8
    assert s["false_starts"] >= 1
    # every game ends in a win (SPIT-14): the last round has the winner at 0 cards
    for tb in tabs:
        r, _ = tb.t_rounds[-1]
        assert r["cards"][r["cleared"]] == 0 and tb.record["rounds"][-1] == r


def test_spit10_slap_lines_name_the_true_first_slapper_and_margin():
    """SPIT-10: every `slap` line names the seat whose press really came first
    (None for a true tie inside the tie window) and the microsecond gap;
    the smaller pile goes to the first, or on a tie to the player who cleared."""
    seen_tie = seen_win = 0
    for i in range(6):
        tb, bad = _game("slap%d" % i, opts={"tie_ms": 50})
        assert bad == []
        for o, v in zip(_evs(tb, "slap"), tb.t_slaps):
            assert o["kind"] == "pile"
            assert (o["winner"], o["margin_us"], o["takes_smaller"]) == (v[1], v[3], v[6])
            if v[1] is None:
                seen_tie += 1
                assert o["margin_us"] <= 50000 and o["takes_smaller"] == o["cleared"]
            else:
                seen_win += 1
                assert o["margin_us"] > 50000 and o["takes_smaller"] == o["winner"]
        assert len(_evs(tb, "slap")) == len(tb.t_slaps)
    assert seen_tie >= 1 and seen_win >= 1


def test_spit18_false_starts_in_every_countdown_with_the_true_earliness():
    """SPIT-18: a pad before GO at the start (3 s after the second ready tap),
    at a restart (3 s after both held HOLD_US) and before the slap's GO (1 s
    after the clearing tap, SPIT-17) is logged with exactly GO minus the
    press time; the start and the restart are called again."""
    whens = set()
    for i in range(6):
        tb, bad = _game("fs%d" % i, false_start=0.5)
        assert bad == []
        fs = _evs(tb, "false_start")
        assert [(o["round"], o["seat"], o["early_us"], o["when"]) for o in fs] == tb.t_false
        assert all(0 < o["early_us"] <= 1200000 for o in fs)
        whens |= {o["when"] for o in fs}
        if whens == {"start", "restart", "slap"}:
            break
    assert whens == {"start", "restart", "slap"}


def test_spit8_spit12_round_lines_carry_restarts_and_the_counts():
    """SPIT-8/SPIT-12: one `round` line per round with the engine's restarts in
    that round and the counts after the relayout (adding up to 52)."""
    tb, bad = _game("rounds")
    assert bad == []
    rl = _evs(tb, "round")
    assert len(rl) == len(tb.t_rounds) >= 2
    for i, (o, (r, n)) in enumerate(zip(rl, tb.t_rounds)):
        assert o["round"] == i + 1 and o["restarts"] == n and o["cards"] == r["cards"]
        assert sum(o["cards"]) == 52
    assert sum(n for _, n in tb.t_rounds) == tb.restarts


def test_the_check_catches_planted_wrong_log_lines():
    """The comparison is real: a changed count, slap margin, restart count,
    false start, an error line or a changed record is reported."""
    tb, bad = _game("tamper", false_start=0.5)
    assert bad == []

    def planted(ev, **change):
        i = next(k for k, (_, o) in enumerate(tb.lines) if o.get("ev") == ev)
        t, o = tb.lines[i]
        tb.lines[i] = (t, dict(o, **change))
        try:
            return tb.compare()
        finally:
            tb.lines[i] = (t, o)

    r = next(o for o in _evs(tb, "round"))
    assert any(b.startswith("rounds:") for b in planted("round", cards=[r["cards"][0] + 1,
                                                                        r["cards"][1] - 1]))
    assert any(b.startswith("rounds:") for b in planted("round", restarts=r["restarts"] + 1))
    s = _evs(tb, "slap")[0]
    assert any(b.startswith("slaps:") for b in planted("slap", margin_us=s["margin_us"] + 1))
    assert any(b.startswith("slaps:") for b in planted("slap", takes_smaller=1 - s["takes_smaller"]))
    f = _evs(tb, "false_start")[0]
    assert any(b.startswith("false starts:") for b in planted("false_start", early_us=f["early_us"] - 1))
    tb.lines.append((0, {"ev": "error", "what": "app", "msg": "x"}))
    assert any("device error" in b for b in tb.compare())
    tb.lines.pop()
    rec = tb.record
    tb.record = dict(rec, rounds=rec["rounds"][:-1])
    assert any(b.startswith("record:") for b in tb.compare())
    tb.record = rec
    assert tb.compare() == []


def test_same_seed_same_game_other_seed_another():
    """The table is deterministic from its seed (deal, people, mistakes,
    the board's start ticks), so a disagreement can be replayed."""
    a, _ = _game("det")
    b, _ = _game("det")
    c, _ = _game("det2")
    # the same but for the install ids of their fresh stores
    assert one_install([o for _, o in a.lines]) == one_install([o for _, o in b.lines])
    assert a.t_rounds == b.t_rounds and a.start_us == b.start_us
    assert one_install([o for _, o in a.lines]) != one_install([o for _, o in c.lines])


def test_the_faster_loop_schedule_changes_no_verdict():
    """IDLE_PASS_US: loop passes at the app's deadlines and every 50 ms between
    them give the very same log lines as the loop every 5 ms throughout."""
    a, bad_a = _game("loop")
    b, bad_b = _game("loop", idle_us=None)
    assert bad_a == bad_b == []
    assert one_install([o for _, o in a.lines]) == one_install([o for _, o in b.lines])
    assert b.steps > 2 * a.steps


def test_cli_table_spit_prints_the_summary_and_exits_0():
    r = subprocess.run([sys.executable, "-m", "sim", "--table", "spit", "--games", "2", "--seed", "5"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "spit table: games 2, agreements 2, disagreements 0" in r.stdout
    assert "games/s" in r.stdout


def test_spit13_a_blocked_round_agrees():
    """SPIT-13: both stuck and nobody has a spit card left: the app blocks the
    round (no restart), each takes their side, the counts are entered; the
    table's Spit! calls give the same blocked round (a seed found by search)."""
    tb, bad = runner.play_game("spit", "blk", 108)
    assert bad == []
    blocked = [i for i, (r, _) in enumerate(tb.t_rounds) if r.get("blocked")]
    assert blocked
    rl = _evs(tb, "round")
    for i in blocked:
        assert rl[i]["blocked"] is True and "cleared" not in rl[i]
    assert tb.record["rounds"][blocked[0]] == tb.t_rounds[blocked[0]][0]
