"""The virtual table for partners (seeds/partners.md, PT-*): four computer
players play real cards with the card-level engine
(speedref.engine.partners_cards), bid, name partners and change seats, and
tell the referee app what a real table tells it through the virtual board:

  * before hand 1 the first dealer (PT-3): their pad, or UP/DOWN + OK;
  * each hand: the final bid (UP, OK) and its trump (UP/DOWN, OK) (PT-4,
    PT-5), the contractor taps their pad (PT-7), the partner theirs (PT-8),
    OK once the swapped players have changed seats (PT-8, PT-9);
  * after each trick the winner taps the pad where they sit (PT-13);
  * OK on the hand's scores and the totals, or DOWN and OK to stop the game
    early (PT-20), and OK on the final screen.

Mistakes: a trick pad tapped by the wrong player (the 13th too, which scores
the hand) taken back through the pause menu, the wrong contractor tapped and
taken back the same way, the contractor tapping again when asked for the
partner (refused by the app), a bid overshot and stepped back, "stop the
game?" answered no, stray pad taps where they mean nothing, bouncy contacts.

The truth is the card engine's game (its table-level PartnersGame scores the
real cards); it is compared with the device's `contract`, `hand`, `undo`,
`error` and `game_end` lines, the stored record, and the game saved after
each hand (its trick winners, in order).
"""
from sim.table.base import TableError
from sim.table.entry import EntryTable, UP, DOWN, OK
from speedref.engine.cards import STD_SUITS


def partners_options(rng):
    """Every target the menu offers; the long ones rarer so a soak stays quick."""
    return {"target": rng.choice((50, 50, 100, 100, 150, 200))}


class PartnersTable(EntryTable):
    """Four computer players at a game of partners."""

    GAME = "partners"

    def __init__(self, seed, loop_us=None, start_us=None, opts=None, mistakes=True, stop=0.02, **kw):
        EntryTable.__init__(self, seed, loop_us, start_us, mistakes, **kw)
        from speedref.app import partners_flow as F
        from speedref.engine import partners_cards as PP
        from speedref.engine import partners as PT
        self.F, self.PP, self.PT = F, PP, PT
        rng = self.rng
        self.opts = opts or partners_options(rng)
        self.stop_p = stop            # chance per totals screen that the table stops (PT-20)
        self.dealer = self.someone()
        self.st = PP.State(rng.randrange(1, 1 << 30), self.opts["target"], self.player_names(), dealer=self.dealer)
        self.g = self.st.table
        self.t_contracts = []         # the contract line's fields per hand
        self.t_seqs = {}              # hand -> trick winners (players) in order
        self.stopped = False
        self.seats_before = None      # seats during the auction (before the swap)
        self.pending = None

    def pad(self, player):
        return self.g.seat_of(player)

    # -- phases -------------------------------------------------------------------
    def on_flow(self, old, new):
        F = self.F
        t = self.t
        rng = self.rng
        flow = self.board.app.flow
        if new == F.DEALER:
            p = self.people[self.dealer]
            if rng.random() < 0.5:
                ks = [self.dealer]    # seats are the players' own before hand 1 (PT-1)
            else:
                ks = self.nav(flow.pick, self.dealer, self.seats, plus=UP, minus=DOWN) + [OK]
            self.keys(t + p.reaction() + rng.randint(300000, 1500000), p, ks)
        elif new == F.BID:
            self._hand(t)
        elif new == F.TRUMP:
            p = self.people[self.contract[2]]
            i = self.PT.TRUMPS.index(self.contract[1])
            self.keys(t + p.reaction(), p, self.nav(flow.trump, i, 5, plus=UP, minus=DOWN) + [OK])
        elif new == F.CONTRACTOR:
            self._contractor(t)
        elif new == F.PARTNER:
            c, q = self.contract[2], self.contract[3]
            p = self.people[q]
            ks = [self.seats_before.index(q)]
            if self.chance(0.08):
                ks = [self.seats_before.index(c)] + ks  # the contractor taps again: refused (PT-8)
            self.keys(t + p.reaction(), p, ks)
        elif new == F.SWAP:
            p = self.people[self.contract[2]]
            self.keys(t + p.reaction() + rng.randint(1000000, 3000000), p, [OK])  # seats changed
        elif new == F.TRICKS and old in (F.PARTNER, F.SWAP):
            self._next(t)
        elif new == F.HAND or new == F.FINAL:
            p = self.people[self.someone()]
            ks = [OK]
            if self.chance(0.1):
                ks = [self.someone()] + ks  # a pad tap that means nothing here
            self.keys(t + p.reaction() + rng.randint(300000, 1500000), p, ks)
        elif new == F.TOTALS and old == F.HAND:
            p = self.people[self.g.dealer]
            r = rng.random()
            if r < self.stop_p:
                ks = [DOWN, OK]       # PT-20: the table stops here
                self.stopped = True
            elif self.chance(0.05):
                ks = [DOWN, UP, OK]   # "stop?" no
            else:
                ks = [OK]
            self.keys(t + p.reaction() + rng.randint(300000, 1500000), p, ks)
        elif new in (F.TOTALS, F.STOP):
            pass  # passing through on the way decided above
        else:
            raise TableError("unexpected phase %r after %r" % (new, old))

    def _hand(self, t):
        """A new hand at the table: deal, auction, partner (PT-2..PT-8); then
        the bid is entered with UP and OK."""
        st, PP, rng = self.st, self.PP, self.rng
        if st.current_player() != PP.CHANCE:
            raise TableError("the app shows a new hand, the table is in phase %s" % st.phase)
        st.apply(PP.CHANCE, PP.DEAL)
        while st.phase == "bid":
            p = st.current_player()
            st.apply(p, self._bid(p))
        self.seats_before = list(self.g.seats)
        c = st.current_player()
        q = rng.choice([a - PP.PARTNER for a in st.legal_actions(c)])
        dealer = self.g.dealer
        st.apply(c, PP.PARTNER + q)
        bid, trump, c, q = self.g.contract
        self.contract = (bid, trump, c, q)
        self.t_contracts.append({
            "hand": self.g.hands_played + 1, "dealer": dealer, "contractor": c, "partner": q,
            "bid": bid, "trump": trump, "swap": None if self.g.swap is None else list(self.g.swap),
            "seats": list(self.g.seats)})
        self.t_seq = []
        p = self.people[c]
        ks = [UP] * (bid - self.PT.MIN_BID)
        if bid < self.PT.TRICKS and self.chance(0.1):
            ks += [UP, DOWN]  # one too many, then back
        self.keys(t + p.reaction() + rng.randint(500000, 2000000), p, ks + [OK])

    def _bid(self, p):
        """A plain bidding policy: count high cards and the longest suit (the
        player's hand and the display at their seat), bid the cheapest legal
        bid up to that estimate, else pass (the dealer must open, PT-6)."""
        st, PP = self.st, self.PP
        own = list(st.hands[p]) + list(st.displays[self.g.seat_of(p)])
        count = [0] * len(STD_SUITS)
        top = 0
        for c in own:
            count[c >> 4] += 1
            top += PP.high(c) >= 13
        longest = max(range(len(STD_SUITS)), key=lambda s: count[s])
        trump = PP.NOTRUMP if count[longest] <= 4 and top >= 3 else longest
        est = 5 + top + max(0, count[longest] - 4) + self.rng.randrange(2)
        legal = st.legal_actions(p)
        for a in legal:
            if a != PP.PASS and (a - PP.BID) & 7 == trump:
                if (a - PP.BID) >> 3 <= est or PP.PASS not in legal:
                    return a
                break
        return PP.PASS if PP.PASS in legal else legal[0]

    def _contractor(self, t):
        c = self.contract[2]
        p = self.people[c]
        if self.chance(0.06):
            # the wrong player taps "I won the bid"; someone takes it back
            q = self.people[(c + self.rng.randrange(1, self.seats)) % self.seats]
            t = self.keys(t + q.reaction(), q, [self.seats_before.index(q.seat)])
            self.undo_via_pause(t, p, self._contractor_again)
            return
        self.keys(t + p.reaction(), p, [self.seats_before.index(c)])

    def _contractor_again(self, t, phase):
        if phase != self.F.CONTRACTOR:
            raise TableError("undoing the contractor left the app in phase %r" % (phase,))
        self._contractor(t)

    # -- the play: one card at a time ---------------------------------------------
    def _next(self, t):
        st = self.st
        if st.phase != "play":
            return  # the 13th trick scored the hand
        p = st.current_player()
        self.at(t + self.people[p].reaction(), self._card, p)

    def _card(self, p):
        if self.phase != self.F.TRICKS:
            raise TableError("the table plays on, the app shows phase %r" % (self.phase,))
        st, g = self.st, self.g
        n = g.tricks_played + 1
        st.apply(p, self._choose(p))
        if st.trick:
            self._next(self.t)
            return
        w = st.last_winner
        self.t_seq.append(w)
        if n == self.PT.TRICKS:
            self._scored()
        we = self.people[w]
        t = self.t + we.reaction()
        if self.chance(0.03):
            # the wrong player taps for the trick (on the 13th that scores the
            # hand); someone takes it back through the pause menu
            q = (w + self.rng.randrange(1, self.seats)) % self.seats
            t = self.keys(t, self.people[q], [self.pad(q)])
            self.pending = w
            self.undo_via_pause(t, self.people[self.someone()], self._right_winner)
            return
        t = self.keys(t, we, [self.pad(w)])
        self._next(t)

    def _right_winner(self, t, phase):
        if phase != self.F.TRICKS:
            raise TableError("undoing a trick left the app in phase %r" % (phase,))
        w = self.pending
        self._next(self.keys(t + self.people[w].reaction(), self.people[w], [self.pad(w)]))

    def _choose(self, p):
        """Lead high; follow by winning as cheaply as possible unless the
        partner already wins; else throw the lowest.  One play in eight random."""
        st, PP, rng = self.st, self.PP, self.rng
        legal = st.legal_actions(p)
        by_rank = sorted(legal, key=lambda c: PP.high(c) * 4 + (c >> 4))
        if rng.random() < 0.125:
            return rng.choice(legal)
        if not st.trick:
            return by_rank[-1]
        w = st.winning_index()
        winner = self.g.seats[(st.turn - len(st.trick) + w) % self.seats]
        side = self.g.contract[2:]
        if (winner in side) == (p in side):
            return by_rank[0]
        for c in by_rank:
            if PP.beats(c, st.trick[w], st.trump()):
                return c
        return by_rank[0]

    def _scored(self):
        g = self.g
        hand, scores, doubled = g.last_hand()
        line = {"hand": g.hands_played, "scores": list(scores), "doubled": doubled,
                "totals": list(g.totals), "next_dealer": g.dealer, "over": g.over}
        for k in hand:
            line[k] = hand[k]
        self.t_deals.append(line)
        self.t_seqs[g.hands_played] = self.t_seq

    # -- the verdicts against the truth --------------------------------------------------
    def compare(self):
        from speedref.engine import partners
        bad = []
        evs = [o for _, o in self.lines]
        bad += self.errors(evs)
        ck = ("hand", "dealer", "contractor", "partner", "bid", "trump", "swap", "seats")
        cl = [{k: o.get(k) for k in ck} for o in evs if o.get("ev") == "contract"]
        if cl != self.t_contracts:
            bad.append("contracts: app %r, table %r" % (cl, self.t_contracts))
        keys = tuple(self.t_deals[0]) if self.t_deals else ()
        bad += self.compare_hands(evs, keys, lambda h: list(h[4]), "trick winners")
        bad += self.compare_record(partners)
        if self.st.is_terminal() == self.stopped:
            bad.append("the card game %s, the table %s" % (
                "is over" if self.st.is_terminal() else "is not over",
                "stopped it" if self.stopped else "did not stop it"))
        return bad
