"""speedref-sim --table speedrun / partners: computer players play real cards
with the card-level engines and enter tricks, reveals, contracts, bids and
partners through the virtual board; the referee app's log, saves and record
must agree with the cards.  Rule numbers from seeds/speedrun.md (SR-*) and
seeds/partners.md (PT-*).  The 1,000-game soak is benchmarks/table_soak.py."""
import io

from mpyhelp import one_install
from sim.table import runner
from sim.table.speedrun_table import SpeedRunTable
from sim.table.partners_table import PartnersTable


def _games(game, n, seed, **kw):
    out = []
    for i in range(n):
        tb, bad = runner.play_game(game, seed, i, **kw)
        assert bad == [], (i, bad)
        out.append(tb)
    return out


def _evs(tb, ev):
    return [o for _, o in tb.lines if o.get("ev") == ev]


def test_speedrun_games_agree_with_the_app():
    """SR-5..SR-28 over 8 seeded games of every length: each hand's trick
    counts, contracts, reveals, scores and totals in the app's `hand` lines,
    the order of trick winners and reveals in its saves, the record and the
    winner all equal the card engine's.  The people made mistakes that the
    pause menu's Undo took back (a wrong trick pad, a wrong contract, a
    scored hand reopened), and the game still agrees."""
    tbs = _games("speedrun", 8, 3)
    lengths = {tb.opts["length"] for tb in tbs}
    assert lengths == {"short", "medium", "long"}
    hands = [h for tb in tbs for h in tb.t_deals]
    assert len(hands) >= 8 * 6
    assert sum(len(tb.t_reveals) for tb in tbs) >= 10                       # SR-21
    assert any(c[:5] == "REDO:" for h in hands for c in h["contracts"])       # SR-19
    assert any("PASS" in h["contracts"] for h in hands)                       # SR-18
    assert sum(tb.undos for tb in tbs) >= 5
    for tb in tbs:
        n = {"short": 6, "medium": 9, "long": 12}[tb.opts["length"]]
        last = tb.t_deals[-1]
        assert last["over"] and (len(tb.t_deals) < n) == last["ended_early"]   # SR-2, SR-28
        assert tb.record["hands"] == tb.st.record()["hands"]
        assert sum(tb.t_deals[0]["tricks"]) == 12                              # SR-12


def test_sr13_every_contract_entered_wrong_then_undone_agrees():
    """SR-13/SR-19: every contract is first entered wrong and taken back
    through the pause menu; when it was the hand's last entry the scored hand
    is reopened (an `undo` line) and scored again: the hand lines that count
    still equal the cards."""
    tb, bad = runner.play_game("speedrun", "fix", 0, opts={"length": "short"}, wrong_contract=1.0)
    assert bad == []
    undone = _evs(tb, "undo")
    assert undone and all(u["what"] == "hand" for u in undone)
    assert len(_evs(tb, "hand")) == 6 + len(undone)
    assert tb.undos >= 6


def test_sr28_a_game_that_ends_early_agrees():
    """SR-28: a game where all three hold only Pass cards before the last
    hand ends early; the app says so in its last hand line and the record
    replays to the same early end."""
    for i in range(40):
        tb, bad = runner.play_game("speedrun", "early", i, opts={"length": "medium"})
        assert bad == []
        if tb.g.ended_early:
            assert tb.t_deals[-1]["ended_early"] and len(tb.t_deals) < 9
            assert _evs(tb, "hand")[-1]["ended_early"] is True
            return
    raise AssertionError("no early end in 40 medium games")


def test_partners_games_agree_with_the_app():
    """PT-3..PT-19 over 8 seeded games: the contract lines (dealer, bid,
    trump, contractor, partner, seat swap and the seats after it), each hand's
    tricks, scores, doubling, totals and next dealer, the trick winners in
    the saves, the record and the winner equal the card engine's; wrong trick
    pads and a wrong contractor were undone through the pause menu."""
    tbs = _games("partners", 8, 4)
    hands = [h for tb in tbs for h in tb.t_deals]
    contracts = [c for tb in tbs for c in tb.t_contracts]
    assert len(hands) >= 16
    assert any(c["swap"] is not None for c in contracts)    # PT-8/PT-9
    assert any(c["swap"] is None for c in contracts)
    assert any(h["doubled"] for h in hands)                 # PT-16
    assert any(h["tricks"][h["contractor"]] + h["tricks"][h["partner"]] < h["bid"] for h in hands)
    assert sum(tb.undos for tb in tbs) >= 3
    for tb in tbs:
        assert tb.st.is_terminal()
        assert max(tb.g.totals) >= tb.opts["target"]        # PT-18
        dealers = [c["dealer"] for c in tb.t_contracts]
        assert dealers[1:] == [h["contractor"] for h in tb.t_deals[:-1]]  # PT-17


def test_pt20_a_stopped_game_agrees():
    """PT-20: the table stops the game on the totals screen (DOWN, OK): the
    record ends there and replays to the same early end and winners."""
    tb, bad = runner.play_game("partners", "stop", 0, stop=1.0)
    assert bad == []
    assert tb.stopped and not tb.st.is_terminal()
    assert len(tb.record["hands"]) == 1


def test_the_check_fails_when_the_app_and_the_table_differ():
    """The comparison is real: a changed score, reveal, contract or trick
    order in the device's log or saves is reported."""
    tb, bad = runner.play_game("speedrun", "tamper", 0, opts={"length": "short"})
    assert bad == []
    i = next(k for k, (_, o) in enumerate(tb.lines) if o["ev"] == "hand")
    t, o = tb.lines[i]
    tb.lines[i] = (t, dict(o, scores=[(s or 0) + 1 for s in o["scores"]]))
    assert any(b.startswith("hand 1:") for b in tb.compare())
    tb.lines[i] = (t, o)
    j = next(k for k, (_, o) in enumerate(tb.lines) if o["ev"] == "reveal")
    t, o = tb.lines[j]
    tb.lines[j] = (t, dict(o, trick=o["trick"] + 1))
    assert any(b.startswith("reveals:") for b in tb.compare())
    tb.lines[j] = (t, o)
    n, st = tb.saves[0]
    h = st["hands"][0]
    tb.saves[0] = (n, dict(st, hands=[h[:2] + [h[2][1:] + h[2][:1]] + h[3:]]))
    assert any("trick winners" in b for b in tb.compare())
    assert tb.compare() != [] and len(tb.compare()) == 1

    tb, bad = runner.play_game("partners", "tamper", 0, opts={"target": 50})
    assert bad == []
    i = next(k for k, (_, o) in enumerate(tb.lines) if o["ev"] == "contract")
    t, o = tb.lines[i]
    tb.lines[i] = (t, dict(o, partner=(o["partner"] + 1) % 4))
    assert any(b.startswith("contracts:") for b in tb.compare())
    tb.lines[i] = (t, o)
    i = next(k for k, (_, o) in enumerate(tb.lines) if o["ev"] == "hand")
    t, o = tb.lines[i]
    tb.lines[i] = (t, dict(o, doubled=not o["doubled"]))
    assert any(b.startswith("hand 1:") for b in tb.compare())
    tb.lines[i] = (t, o)
    tb.lines.insert(i + 1, (t, {"ev": "undo", "game": "partners", "what": "hand", "hand": 1}))
    assert tb.compare() != []  # a hand the app took back no longer counts
    del tb.lines[i + 1]
    assert tb.compare() == []


def test_cli_exit_status_is_1_on_a_planted_disagreement(monkeypatch):
    class Liar(SpeedRunTable):
        def compare(self):
            return SpeedRunTable.compare(self) + ["planted"]
    monkeypatch.setattr(runner, "table_class", lambda game: Liar)
    out = io.StringIO()
    assert runner.main("speedrun", 1, 1, out) == 1
    assert "disagreements 1" in out.getvalue() and "planted" in out.getvalue()


def test_same_seed_same_games():
    """A table run is reproducible from its seed: the same device log and truth."""
    for cls, opts in ((SpeedRunTable, {"length": "short"}), (PartnersTable, {"target": 50})):
        runs = []
        for _ in range(2):
            tb = cls("again", opts=opts)
            try:
                assert tb.play() == []
            finally:
                tb.close()
            # the log the same but for the install ids of the fresh stores
            runs.append((one_install([o for _, o in tb.lines]), tb.t_deals, tb.start_us, tb.t))
        assert runs[0] == runs[1]
        other = cls("other", opts=opts)
        try:
            other.play()
        finally:
            other.close()
        assert [o for _, o in other.lines] != runs[0][0]
