"""Spit at the TABLE level: what the referee device knows (counts, calls, slaps).

Rules are numbered in seeds/spit.md (SPIT-1 ...).  Loaded by the referee app.
Every rule decision of a round lives here; the app only reads the answers.

API
  spit_cards(n) -> int              spit cards of a player holding n cards (SPIT-2, SPIT-3)
  centre_piles(counts) -> 1 | 2     (SPIT-11)
  relayout_ok(n) -> bool            n cards is a possible count after a relayout
                                    (1..51: SPIT-12, SPIT-14)
  SLAP_GO_US                        the slap's GO comes this long after the clearing
                                    or a false start (SPIT-17, SPIT-18)

  SpitGame(players=("Player 1", "Player 2"))
    .phase          "spit" (both call Spit!, SPIT-4) -> "play" -> ("slap", SPIT-10 ->)
                    "relayout" (SPIT-12) -> "spit" ... -> "over" (SPIT-14)
    .over           phase == "over": a player got rid of all cards
    .cards          [a, b] each player's cards at the start of this round
    .piles          centre piles this round (1 or 2)                       (SPIT-11)
    .spit_left      [a, b] spit cards each player still has face down     (SPIT-2, SPIT-3)
    .can_spit()     True if a "Spit!" now turns a card; False in play means
                    both stuck is a blocked round, block()                (SPIT-8, SPIT-13)
    .spit(player) -> bool      "Spit!": True once both called; starts (phase spit) or
                               restarts (phase play) the centre piles and turns the
                               spit cards: each onto their own pile, or a lone
                               spitter onto every pile (SPIT-4, SPIT-8)
    .spits, .restarts          calls this round (restarts = Spit! after the start)
    .clear(player, t_us=None)  player cleared all stock piles (SPIT-9).  The engine
                               decides what follows: no spit cards left is the win
                               (phase over, SPIT-14); two piles, the slap (SPIT-10), its
                               GO at .slap_go = t_us + SLAP_GO_US (SPIT-17); one pile,
                               the other player takes it (relayout, SPIT-11)
    .false_start(player, t_us) -> early_us   a slap before GO (SPIT-18): GO again
                               SLAP_GO_US after it
    .arm_slap(t_us) -> go_us   GO SLAP_GO_US after t_us (the game goes on after a pause)
    .slap(player, t_us=None) -> winner
                               the first slap takes the smaller pile; player None = a
                               tie: the player who cleared takes it (SPIT-10); a t_us
                               before GO is refused (SPIT-18)
    .slap_winner, .cleared, .winner, .blocked
    .taker()                   once the round has ended: who takes a pile: the slap
                               winner the smaller one (SPIT-10), the player who did not
                               clear the one pile (SPIT-11), the player who started the
                               one pile of a blocked round (SPIT-13); None when each
                               takes their own (blocked, two piles)
    .block()                   both stuck, nobody has spit cards      (SPIT-13)
    .count_range()             (least, most) cards player 1 can hold after this
                               round's relayout; player 2 holds the rest (SPIT-22)
    .relayout(a, b)            counts after the new layout            (SPIT-12, SPIT-22)
    .players, .totals, .hands_played, .ended_early, .winners(), .tiebreak,
    .rows(), .to_record()
  replay(record) -> SpitGame  (records.replay dispatches here)

Record: {"game": "spit", "players": [2 names],
         "rounds": [{"cleared": i, "slap": j, "cards": [a, b]}    two piles
                    {"cleared": i, "cards": [a, b]}               one pile, or the win (cards[i] == 0)
                    {"blocked": true, "cards": [a, b]}, ...]}     nobody could play or spit
A record holds no restarts: replay restarts as often as the round's end needs
(none before a slap, until the winner has no spit cards, until nobody has any).
"""
from .errors import RuleError, is_int, is_names
from ..ticks import ticks_add, ticks_diff

from micropython import const

DECK = 52
_LAYOUT = const(15)  # five stock piles of 1, 2, 3, 4 and 5 cards
_HALF_SPIT = const(11)  # half the 52 - 2 * 15 spit cards of a round with two piles
# SPIT-17: one second, so the clearer's own tap gives no head start.  Not a
# tunable: the rule's own time stays with the rule.
SLAP_GO_US = const(1000000)


def spit_cards(n):
    # SPIT-2/SPIT-3: everything beyond the 15 layout cards is spit cards.
    return n - _LAYOUT if n > _LAYOUT else 0


def centre_piles(counts):
    # SPIT-11: a player without spit cards starts no pile.
    return 2 if spit_cards(counts[0]) and spit_cards(counts[1]) else 1


def relayout_ok(n):
    # SPIT-12: all 52 cards are with the players; SPIT-14: 0 cards is the win,
    # never a relayout count.  So each player holds 1..51.
    return 1 <= n <= DECK - 1


class SpitGame:
    def __init__(self, players=("Player 1", "Player 2")):
        if not is_names(players, 2):
            raise RuleError("SPIT-1", "Spit needs exactly 2 player names")
        self.players = list(players)
        self.cards = [DECK // 2, DECK // 2]  # SPIT-1
        self.spit_left = [0, 0]  # one list for the whole game: updated in place
        self.rounds = []
        self.winner = None
        self._new_round()

    def _new_round(self):
        self.phase = "spit"
        self.piles = centre_piles(self.cards)
        # SPIT-2/SPIT-3: the spit cards of this round, face down until "Spit!".
        self.spit_left[0] = spit_cards(self.cards[0])
        self.spit_left[1] = spit_cards(self.cards[1])
        self._calls = [False, False]
        self.spits = 0
        self.restarts = 0
        self.cleared = None
        self.slap_winner = None
        self.slap_go = None
        self.blocked = False

    def _where(self, player=None):
        s = "round %d" % (len(self.rounds) + 1)
        if player is not None:
            s += ", player %d" % (player + 1)
        return s

    def _seat(self, player):
        # SPIT-1: a call names player 0 or 1 (not None, not a bool)
        if not is_int(player) or player not in (0, 1):
            raise RuleError("SPIT-1", "%s: player must be 0 or 1" % self._where())

    def _need(self, phase, rule, what, player=None):
        if player is not None:
            self._seat(player)
        if self.phase != phase:
            raise RuleError(rule, "%s: %s only in the %s phase (now %s)"
                            % (self._where(player), what, phase, self.phase))

    # -- "Spit!" -----------------------------------------------------------
    def can_spit(self):
        """True if a "Spit!" now turns a card: at the start of a round (someone
        always has spit cards then: 52 cards do not fit in two 15-card layouts)
        or in play while anyone has spit cards left (SPIT-8).  False in play:
        both stuck is a blocked round (SPIT-13)."""
        if self.phase == "spit":
            return True
        return self.phase == "play" and (self.spit_left[0] > 0 or self.spit_left[1] > 0)

    def spit(self, player):
        """Both players call "Spit!": the first pair starts the round (SPIT-4),
        later pairs mean both are stuck and new spit cards go up (SPIT-8)."""
        self._seat(player)
        self._need("spit" if self.phase == "spit" else "play", "SPIT-8", "Spit!", player)
        if not self.can_spit():
            raise RuleError("SPIT-13", "%s: nobody has spit cards left: the round is blocked"
                            % self._where(player))
        self._calls[player] = True
        if not (self._calls[0] and self._calls[1]):
            return False
        self._calls[0] = self._calls[1] = False
        self.spits += 1
        if self.phase == "spit":
            self.phase = "play"
        else:
            self.restarts += 1
        self._turn_spit_cards()
        return True

    def _turn_spit_cards(self):
        left = self.spit_left
        if left[0] and left[1]:
            # SPIT-4/SPIT-8: each turns one onto their own pile.
            left[0] -= 1
            left[1] -= 1
            return
        # SPIT-8: the only player with spit cards turns one onto each centre
        # pile, so every pile keeps changing; with one pile (SPIT-11) that is
        # one card.  A last single card covers one pile only.
        p = 0 if left[0] else 1
        left[p] -= self.piles if left[p] >= self.piles else left[p]

    # -- the end of a round -----------------------------------------------------
    def clear(self, player, t_us=None):
        """SPIT-9: player's five stock piles are empty; the round ends.  With
        no spit cards left that is the win (SPIT-14); else with two centre
        piles the slap follows, GO at t_us + SLAP_GO_US (SPIT-10, SPIT-17);
        else the other player takes the one pile (SPIT-11)."""
        self._seat(player)
        self._need("play", "SPIT-9", "clearing the stock piles", player)
        self.cleared = player
        if self.spit_left[player] == 0:
            self.winner = player
            self._finish({"cleared": player, "cards": _pair(player, 0, DECK)})
            self.phase = "over"
        elif self.piles == 2:
            self.phase = "slap"
            if t_us is not None:
                self.arm_slap(t_us)
        else:
            self.phase = "relayout"

    def arm_slap(self, t_us):
        """SPIT-17: the slap's GO comes SLAP_GO_US after t_us (the clearing, or
        the game going on after a pause).  Returns the GO time."""
        self._need("slap", "SPIT-17", "the slap's GO")
        self.slap_go = ticks_add(t_us, SLAP_GO_US)
        return self.slap_go

    def false_start(self, player, t_us):
        """SPIT-18: a slap before GO does not count; GO comes again SLAP_GO_US
        after it.  Returns how early it was (us)."""
        self._seat(player)
        self._need("slap", "SPIT-18", "a false start", player)
        if self.slap_go is None or ticks_diff(t_us, self.slap_go) >= 0:
            raise RuleError("SPIT-18", "%s: a slap at or after GO is not a false start"
                            % self._where(player))
        early = -ticks_diff(t_us, self.slap_go)
        self.arm_slap(t_us)
        return early

    def slap(self, player, t_us=None):
        """SPIT-10: the first slap takes the smaller pile.  player None is a
        tie (the referee could not tell them apart): the player who cleared
        takes it, they ended the round.  t_us, the first slap's time, must
        not be before GO (SPIT-18).  Returns who took the smaller pile."""
        if player is not None:
            self._need("slap", "SPIT-10", "the slap", player)
        else:
            self._need("slap", "SPIT-10", "the slap")
        if t_us is not None and self.slap_go is not None and ticks_diff(t_us, self.slap_go) < 0:
            raise RuleError("SPIT-18", "%s: a slap before GO is a false start" % self._where(player))
        self.slap_winner = self.cleared if player is None else player
        self.phase = "relayout"
        return self.slap_winner

    def block(self):
        """SPIT-13: both stuck and nobody can spit.  While anyone has spit
        cards, both stuck means "Spit!" again (SPIT-8)."""
        self._need("play", "SPIT-13", "a blocked round")
        if self.can_spit():
            raise RuleError("SPIT-8", "%s: a player still has spit cards: Spit! again, "
                            "not blocked" % self._where())
        self.blocked = True
        self.phase = "relayout"

    def taker(self):
        """Who takes a centre pile at the end of this round (see the header)."""
        if self.phase != "relayout":
            return None
        if self.blocked:
            # SPIT-13: each takes the pile on their side; one pile goes to the
            # player who started it (the one who had spit cards).
            if self.piles == 2:
                return None
            return 0 if spit_cards(self.cards[0]) else 1
        if self.slap_winner is not None:
            return self.slap_winner  # SPIT-10: the smaller pile
        return 1 - self.cleared  # SPIT-11: the one pile

    def _bounds(self, p):
        """SPIT-22: (least, most) cards player p can hold after this round,
        from how the card level plays it (seeds/spit.md has the working)."""
        n = self.cards[p]
        if self.blocked:
            if self.piles == 2:
                # every spit card is up, half of them on each pile (SPIT-8),
                # and each player still has a stock card
                return _HALF_SPIT + 1, DECK - _HALF_SPIT - 1
            if spit_cards(n):
                return n, DECK - 1  # started the one pile and takes it
            return 1, n  # keeps some of their stock cards, takes nothing
        c = self.cleared
        if p != c:
            lo, hi = self._bounds(c)  # the other holds the rest
            return DECK - hi, DECK - lo
        if self.piles == 2:
            # spit cards left and a pile: at least the spit cards dealt, or 12
            # once the other ran out; the other keeps a stock card and their
            # spit cards left and pile make at least their own spit cards
            return min(spit_cards(n), _HALF_SPIT + 1), n + _LAYOUT - 1
        return 1, n - _LAYOUT - 1  # one pile: only spit cards, one went up

    def count_range(self):
        """SPIT-22: (least, most) cards player 1 can hold after this round's
        relayout (player 2 holds the rest of the 52)."""
        lo0, hi0 = self._bounds(0)
        lo1, hi1 = self._bounds(1)
        return max(lo0, DECK - hi1), min(hi0, DECK - lo1)

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
        for p in (0, 1):
            lo, hi = self._bounds(p)
            n = b if p else a
            if not lo <= n <= hi:
                raise RuleError("SPIT-22", "%s: %s leaves %d..%d cards, not %d"
                                % (self._where(p), self._kind(), lo, hi, n))
        self._finish(rnd)
        self._new_round()

    def _kind(self):
        if self.blocked:
            return "a blocked round"
        return "a clearing with %s" % ("two piles" if self.piles == 2 else "one pile")

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

    @property
    def over(self):
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
    if not is_int(a) or not is_int(b) or a < 0 or b < 0 or a + b != DECK:
        raise RuleError("SPIT-12", "%s: the two counts must add up to %d, not %r + %r"
                        % (where, DECK, a, b))
    for p, n in ((0, a), (1, b)):
        if not relayout_ok(n):
            # SPIT-14: having no cards is the win: clear() records it, never a relayout.
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
            _spit_until(g, lambda: not g.can_spit())  # SPIT-13: every spit card was used
            g.block()
            g.relayout(a, b)
            continue
        c = r.get("cleared")
        if not is_int(c) or c not in (0, 1):
            raise RuleError("SPIT-15", "%s: cleared must be 0 or 1, not %r" % (where, c))
        who = "%s, player %d" % (where, c + 1)
        if a == 0 and c == 0 or b == 0 and c == 1:
            if "slap" in r:
                raise RuleError("SPIT-14", "%s: going out ends the game; there is no slap" % who)
            if [a, b] != _pair(c, 0, DECK):
                raise RuleError("SPIT-12", "%s: the two counts must add up to %d" % (who, DECK))
            _spit_until(g, lambda: g.spit_left[c] == 0)  # SPIT-14: out means no spit cards
            g.clear(c)
            continue
        # Not the win: the clearer still had spit cards, so no restart came
        # before this clearing that we need to know about.
        if g.spit_left[c] == 0:
            raise RuleError("SPIT-14", "%s: had no spit cards left after Spit!, so clearing the "
                            "piles is going out (cards must be 0)" % who)
        g.clear(c)
        s = r.get("slap")
        if g.piles == 2:
            if not is_int(s) or s not in (0, 1):
                raise RuleError("SPIT-10", "%s: two centre piles need the slap winner (0 or 1), not %r"
                                % (where, s))
            g.slap(s)
        elif s is not None:
            raise RuleError("SPIT-11", "%s: one centre pile, so there is no slap" % where)
        g.relayout(a, b)
    return g


def _spit_until(g, done):
    # A record keeps no restarts (SPIT-15): replay as many as the round's end
    # needs.  Each one turns at least one spit card, so this stops.
    while not done():
        g.spit(0)
        g.spit(1)
