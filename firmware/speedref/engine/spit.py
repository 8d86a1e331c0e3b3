"""Spit at the TABLE level: what the referee device knows (counts, calls, slaps).

Rules are numbered in seeds/spit.md (SPIT-1 ...).  Loaded by the referee app.

API
  spit_cards(n) -> int              spit cards of a player holding n cards (SPIT-2, SPIT-3)
  centre_piles(counts) -> 1 | 2     (SPIT-11)

  SpitGame(players=("Player 1", "Player 2"))
    .phase          "spit" -> "play" -> ("slap" ->) "relayout" -> "spit" ... -> "over"
    .cards          [a, b] each player's cards at the start of this round
    .piles          centre piles this round (1 or 2)
    .spit(player) -> bool      "Spit!": True once both called; starts (phase spit) or
                               restarts (phase play) the centre piles  (SPIT-4, SPIT-8)
    .spits, .restarts          calls this round (restarts = Spit! after the start)
    .clear(player, out=False)  player cleared all stock piles; out=True if they have no
                               spit cards left either (automatic when they had none) (SPIT-9, SPIT-14)
    .slap(player)              the first slap takes the smaller pile  (SPIT-10)
    .slap_winner, .cleared, .winner
    .block()                   both stuck, nobody has spit cards      (SPIT-13)
    .relayout(a, b)            counts after the new layout            (SPIT-12)
    .players, .totals, .hands_played, .ended_early, .winners(), .tiebreak,
    .rows(), .to_record()
  replay(record) -> SpitGame  (records.replay dispatches here)

Record: {"game": "spit", "players": [2 names],
         "rounds": [{"cleared": i, "slap": j, "cards": [a, b]}    two piles
                    {"cleared": i, "cards": [a, b]}               one pile, or the win (cards[i] == 0)
                    {"blocked": true, "cards": [a, b]}, ...]}     nobody could play or spit
"""
from speedref.engine.errors import RuleError

DECK = 52
LAYOUT = 15  # five stock piles of 1, 2, 3, 4 and 5 cards


def spit_cards(n):
    # SPIT-2/SPIT-3: everything beyond the 15 layout cards is spit cards.
    return n - LAYOUT if n > LAYOUT else 0


def centre_piles(counts):
    # SPIT-11: a player without spit cards starts no pile.
    return 2 if spit_cards(counts[0]) and spit_cards(counts[1]) else 1


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


class SpitGame:
    def __init__(self, players=("Player 1", "Player 2")):
        if (not isinstance(players, (list, tuple)) or len(players) != 2
                or not isinstance(players[0], str) or not isinstance(players[1], str)):
            raise RuleError("SPIT-1", "Spit needs exactly 2 player names")
        self.players = list(players)
        self.cards = [DECK // 2, DECK // 2]  # SPIT-1
        self.rounds = []
        self.winner = None
        self._new_round()

    def _new_round(self):
        self.phase = "spit"
        self.piles = centre_piles(self.cards)
        self._calls = [False, False]
        self.spits = 0
        self.restarts = 0
        self.cleared = None
        self.slap_winner = None
        self.blocked = False

    def _where(self, player=None):
        s = "round %d" % (len(self.rounds) + 1)
        if player is not None:
            s += ", player %d" % (player + 1)
        return s

    def _need(self, phase, rule, what, player=None):
        if player is not None and (not _is_int(player) or player not in (0, 1)):
            raise RuleError("SPIT-1", "%s: player must be 0 or 1" % self._where())
        if self.phase != phase:
            raise RuleError(rule, "%s: %s only in the %s phase (now %s)"
                            % (self._where(player), what, phase, self.phase))

    def spit(self, player):
        """Both players call "Spit!": the first pair starts the round (SPIT-4),
        later pairs mean both are stuck and new spit cards go up (SPIT-8)."""
        self._need("spit" if self.phase == "spit" else "play", "SPIT-8", "Spit!", player)
        self._calls[player] = True
        if not (self._calls[0] and self._calls[1]):
            return False
        self._calls[0] = self._calls[1] = False
        self.spits += 1
        if self.phase == "spit":
            self.phase = "play"
        else:
            self.restarts += 1
        return True

    def clear(self, player, out=False):
        self._need("play", "SPIT-9", "clearing the stock piles", player)
        if not isinstance(out, bool):
            raise RuleError("SPIT-14", "%s: out must be true or false" % self._where(player))
        # SPIT-14: no spit cards at all this round means clearing is going out.
        if spit_cards(self.cards[player]) == 0:
            out = True
        self.cleared = player
        if out:
            self.winner = player
            self._finish({"cleared": player, "cards": _pair(player, 0, DECK)})
            self.phase = "over"
        elif self.piles == 2:
            self.phase = "slap"
        else:
            self.phase = "relayout"  # SPIT-11: the other player takes the one pile

    def slap(self, player):
        """SPIT-10: called for the first slap only (the arbiter orders them)."""
        self._need("slap", "SPIT-10", "the slap", player)
        self.slap_winner = player
        self.phase = "relayout"

    def block(self):
        self._need("play", "SPIT-13", "a blocked round")
        self.blocked = True
        self.phase = "relayout"

    def relayout(self, a, b):
        self._need("relayout", "SPIT-12", "the relayout")
        rnd = {"cards": [a, b]}
        if self.blocked:
            rnd["blocked"] = True
        else:
            rnd["cleared"] = self.cleared
            if self.slap_winner is not None:
                rnd["slap"] = self.slap_winner
        _check_counts(a, b, self.cleared, self._where())
        self._finish(rnd)
        self._new_round()

    def _finish(self, rnd):
        self.rounds.append(rnd)
        self.cards = list(rnd["cards"])

    # -- the sheet --------------------------------------------------------
    @property
    def totals(self):
        return list(self.cards)

    @property
    def hands_played(self):
        return len(self.rounds)

    def is_over(self):
        return self.winner is not None

    @property
    def ended_early(self):
        return self.winner is None

    def winners(self):
        if self.winner is not None:
            return [self.winner]
        c = self.cards
        if c[0] == c[1]:
            return [0, 1]
        return [0] if c[0] < c[1] else [1]

    @property
    def tiebreak(self):
        if self.winner is not None:
            return "got rid of all cards in round %d" % len(self.rounds)
        if not self.rounds:
            return "no rounds played"
        return "ended early: fewer cards (%d-%d)" % (min(self.cards), max(self.cards))

    def rows(self):
        out = []
        for i, r in enumerate(self.rounds):
            cells = ["", ""]
            if r.get("blocked"):
                cells = ["blocked", "blocked"]
            else:
                c = r["cleared"]
                cells[c] = "out" if r["cards"][c] == 0 else "cleared"
                if "slap" in r:
                    cells[r["slap"]] += (" " if cells[r["slap"]] else "") + "won slap"
            out.append(("round %d" % (i + 1), cells, list(r["cards"])))
        return out

    def to_record(self):
        return {"game": "spit", "players": list(self.players),
                "rounds": [dict(r) for r in self.rounds]}


def _pair(i, mine, total):
    p = [total - mine, total - mine]
    p[i] = mine
    return p


def _check_counts(a, b, cleared, where):
    if not _is_int(a) or not _is_int(b) or a < 0 or b < 0 or a + b != DECK:
        raise RuleError("SPIT-12", "%s: the two counts must add up to %d, not %r + %r"
                        % (where, DECK, a, b))
    for p, n in ((0, a), (1, b)):
        if n == 0:
            # SPIT-14: having no cards is the win; it is recorded by clear(out=True).
            raise RuleError("SPIT-14", "%s, player %d: 0 cards left is a win, recorded as "
                            "the clearing player's last round" % (where, p + 1))


def replay(record):
    """Validate a canonical Spit record and return its SpitGame."""
    if not isinstance(record, dict) or record.get("game") != "spit":
        raise RuleError("SPIT-15", "not a Spit record")
    rounds = record.get("rounds")
    if not isinstance(rounds, list):
        raise RuleError("SPIT-15", "rounds must be a list")
    g = SpitGame(record.get("players"))
    for i, r in enumerate(rounds):
        where = "round %d" % (i + 1)
        if g.winner is not None:
            raise RuleError("SPIT-14", "%s: the game was already won by player %d"
                            % (where, g.winner + 1))
        if not isinstance(r, dict) or not isinstance(r.get("cards"), list) or len(r["cards"]) != 2:
            raise RuleError("SPIT-15", "%s: needs cards [a, b]" % where)
        a, b = r["cards"]
        g.spit(0)
        g.spit(1)
        if r.get("blocked") is True:
            if "cleared" in r or "slap" in r:
                raise RuleError("SPIT-13", "%s: a blocked round has no clearing and no slap" % where)
            g.block()
            g.relayout(a, b)
            continue
        c = r.get("cleared")
        if not _is_int(c) or c not in (0, 1):
            raise RuleError("SPIT-15", "%s: cleared must be 0 or 1, not %r" % (where, c))
        who = "%s, player %d" % (where, c + 1)
        if a == 0 and c == 0 or b == 0 and c == 1:
            if "slap" in r:
                raise RuleError("SPIT-14", "%s: going out ends the game; there is no slap" % who)
            if [a, b] != _pair(c, 0, DECK):
                raise RuleError("SPIT-12", "%s: the two counts must add up to %d" % (who, DECK))
            g.clear(c, out=True)
            continue
        if spit_cards(g.cards[c]) == 0:
            raise RuleError("SPIT-14", "%s: had no spit cards, so clearing the piles is going "
                            "out (cards must be 0)" % who)
        g.clear(c)
        s = r.get("slap")
        if g.piles == 2:
            if not _is_int(s) or s not in (0, 1):
                raise RuleError("SPIT-10", "%s: two centre piles need the slap winner (0 or 1), not %r"
                                % (where, s))
            g.slap(s)
        elif s is not None:
            raise RuleError("SPIT-11", "%s: one centre pile, so there is no slap" % where)
        g.relayout(a, b)
    return g
