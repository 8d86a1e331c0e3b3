"""Play partners against three computer players, with your cards on screen
beside the referee app's OLED (`speedref-sim --play partners`).

You are P1; the computer players are P2, P3 and P4.  Everyone plays real
cards with the card-level engine (speedref.engine.partners_cards: the deal,
the auction, the partner, the seat swap, follow suit, the trick winners);
the computer players bid and play with the computer table's own policy
(sim/table/partners_table.py) after human reaction times (at the chosen --pace)
and press the pads and the navigation buttons as people would.  The
referee app runs beside the table and referees all four of you:

  the first dealer, the final bid and its trump (PT-3..PT-5)   a computer player enters them
  the contractor taps their pad, then the partner (PT-7, PT-8)  you: z when it is you
  "P1: go to pad 4": the swapped players change seats (PT-8)    you: OK (Enter) once done
  the winner of each trick taps the pad where they sit (PT-13)  you: z (your pad, wherever you sit)
  the hand's scores, the totals (DOWN, OK stops the game, PT-20), the final standings: you press OK

Keys: `a s d f g h l w e r t y u` pick a card of your hand or display (the
engine refuses one that does not follow suit, PT-12), or a bid or partner
when it is your call; `p` passes, `+` / `-` show higher / lower bids; `z`
taps your pad (it follows you when you change seats; 1 2 3 4 are the pads
as they stand).  The terminal names each pad by who sits there now, as the
app's seating says (sim/tui.py pad_names).  The computer players wait to
lead a trick until the OLED shows every trick won so far, and stop while the
referee shows something that did not happen (a trick, a contractor or a
partner tapped by the wrong player): BACK, "Undo last", OK takes it back.
"""
from sim.bots import THINK_US
from sim.table.base import UP, DOWN, OK
from sim.table.partners_table import PartnersTable
from sim.table.person import set_pace, DEFAULT_PACE, PACES, Letters, Says

HUMAN = 0
CARD_KEYS = "asdfghlwertyu"   # 13 letters: your cards, bids or partners
SUITS = "CDHS"
SUIT_WORDS = ("club", "diamond", "heart", "spade")  # PT-12's refusal, in words
YOU_WON = "You win the trick: tap your pad (z)"


class PartnersPlay(Says, PartnersTable):
    """A partners table: player 0 a person, players 1..3 computer players."""

    def __init__(self, seed=None, realtime=True, pace=DEFAULT_PACE, start_us=None, target=None, store=None):
        PartnersTable.__init__(self, seed, start_us=start_us, mistakes=False, stop=0,
                               realtime=realtime, store=store)
        set_pace([None] + self.people[1:], pace)
        self.think_us = tuple(int(x * PACES[pace]) for x in THINK_US)
        self.target = target
        self.people[HUMAN] = None
        self.flow = None           # the partners game the cards belong to
        self.refused = None        # the note, while it says why a key was refused
        self.st = None             # the card game, dealt once the referee knows the first dealer
        self.g = None
        self.seqs = {}             # hand -> trick winners (players) as really won
        self.contracts = {}        # hand -> (bid, trump, contractor, partner) as really made
        self.calls = []            # this hand's auction, as spoken: (player, call)
        self.last_trick = None     # (players in play order, cards, winner)
        self.busy = self.per_seat(False)     # a computer player is pressing a button
        self.planned = self.per_seat(False)  # a computer player's card move is coming
        self.page = 0              # which bids your letters show
        self.note = ""
        self.letters = Letters(CARD_KEYS)  # your cards' letters, kept while held

    def start(self):
        """Straight into partners with the remembered target (or `target`)."""
        self.boot()
        opts = dict(self.board.app.settings["partners"])
        if self.target:
            opts["target"] = self.target
        self.board.app.start("partners", self.board.now(), opts)
        self.board.step()
        self._observe()

    def advance(self, us):
        """Simulated time only (tests): let the table run for `us`."""
        end = self.t + us
        self.run(lambda: self.t >= end)

    def idle(self):
        return False  # the table looks at the OLED after every loop pass

    # -- what the table sees ------------------------------------------------------------
    def _flow(self):
        app = self.board.app
        f = app.flow
        if f is None or f.GAME != "partners" or app.screen is not f:
            return None
        return f

    def on_phase(self, old, new):
        if new == "Pause":
            self.note = "Paused: Continue, Undo last, Abandon game"
        elif new == "Games" and self.flow is not None and not self.done:
            self.note = "Game abandoned. Partners again from the menu, or q to quit"

    def on_line(self, obj):
        PartnersTable.on_line(self, obj)
        if obj.get("ev") == "game_end":
            self.note = "%s. Partners again from the menu, or q to quit" % self.board.record_note()

    def after_step(self):
        app = self.board.app
        f = app.flow
        if f is not None and f.GAME == "partners" and f is not self.flow:
            self._new_game(f)
        f = self._flow()
        if f is None:
            return
        F = self.F
        if f.phase == F.DEALER:
            self._dealer(f)
            return
        if self.st is None:
            # PT-3: whoever the table told the referee deals first
            self.st = self.PP.State(self.rng.randrange(1, 1 << 30), f.target, self.player_names(), dealer=f.game.dealer)
            self.g = self.st.table
        n = self.hand_no(f)
        st = self.st
        if (f.phase == F.BID and st.current_player() == self.PP.CHANCE
                and st.table.hands_played + 1 == n):
            st.apply(self.PP.CHANCE, self.PP.DEAL)  # PT-2
            self.letters = Letters(CARD_KEYS)
            self.seqs[n] = []
            self.calls = []
            self.last_trick = None
            self.page = 0
        if self.note == YOU_WON and self.owed(f) != HUMAN:
            self.note = ""  # tapped: the referee counts your trick
        self._cards(f, n)
        self._entries(f, n)

    def _new_game(self, f):
        self.flow = f
        self.st = None
        self.g = None
        self.seqs = {}
        self.contracts = {}
        self.record = None
        self.done = False
        self.note = ""
        self.refused = None   # the note, while it says why a key was refused

    def hand_no(self, f):
        """The hand the referee is on: being bid or played, or (on its
        scores, the totals, the final screen) just finished."""
        F = self.F
        g = f.game
        return g.hands_played + (0 if f.phase in (F.HAND, F.TOTALS, F.STOP, F.FINAL) else 1)

    def card_hand(self):
        """The hand the cards are on (bid or played)."""
        return self.st.table.hands_played + 1

    def contract(self, n):
        return self.contracts.get(n)

    def wrong(self, f):
        """What the referee shows that did not happen at the table (a person
        tapped for someone else), or None."""
        F = self.F
        ph = f.phase
        n = self.hand_no(f)
        c = self.contract(n)
        if c is None or ph in (F.DEALER, F.BID):
            return None
        bid, trump, who, partner = c
        if ph == F.TRUMP:
            return None if f.bid == bid else "a bid of %d" % f.bid
        if ph in (F.CONTRACTOR, F.PARTNER):
            if f.bid != bid or self.PT.TRUMPS[f.trump] != trump:
                return "the contract %d %s" % (f.bid, self.PT.TRUMPS[f.trump])
            if ph == F.PARTNER and f.contractor != who:
                return "%s as the contractor" % self.player_names()[f.contractor]
            return None
        if ph in (F.SWAP, F.TRICKS):
            if tuple(f.game.contract) != c:
                b, t, w, q = f.game.contract
                return "%d %s by %s with %s" % (b, t, self.player_names()[w], self.player_names()[q])
        seq = list(f.game.winners_seq) if ph == F.TRICKS else None
        true = self.seqs.get(n, [])
        if seq is not None and seq != true[:len(seq)]:
            return "a trick won by %s" % self.player_names()[seq[-1]]
        return None

    def synced(self, f):
        """Does the referee show every trick of this hand won so far (and no other)?"""
        return (f.phase == self.F.TRICKS and self.wrong(f) is None
                and list(f.game.winners_seq) == self.seqs.get(self.hand_no(f), []))

    def owed(self, f):
        """The player whose won trick the referee has not counted yet, or None."""
        if f.phase != self.F.TRICKS or self.wrong(f) is not None:
            return None
        seq = list(f.game.winners_seq)
        true = self.seqs.get(self.hand_no(f), [])
        return true[len(seq)] if len(seq) < len(true) else None

    # -- the cards ------------------------------------------------------------------------
    def _cards(self, f, n):
        st = self.st
        p = st.current_player()
        if p < 0 or p == HUMAN or self.planned[p] or not self._may_act(f, n):
            return
        self.planned[p] = True
        pe = self.people[p]
        think = self.rng.randint(*self.think_us) if st.phase != "play" or not st.trick else self.think_us[0]
        self.at(self.t + pe.reaction() + think, self._bot_move, p)

    def _may_act(self, f, n):
        """Cards are bid while the referee waits for the bid and played once it
        shows every trick so far, with nobody's hand on a pad."""
        st = self.st
        if self.card_hand() != n:
            return False
        if st.phase == "play":
            return self.synced(f) and not any(self.finger[:4])
        return f.phase == self.F.BID

    def _bot_move(self, p):
        self.planned[p] = False
        f = self._flow()
        st = self.st
        if f is None or st is None or st.current_player() != p or not self._may_act(f, self.hand_no(f)):
            return
        PP = self.PP
        if st.phase == "bid":
            a = self._bid(p)  # the computer table's bidding policy
        elif st.phase == "partner":
            a = PP.PARTNER + self._partner_choice(p)
        else:
            a = self._choose(p)  # the computer table's card policy
        self._do(p, a)

    def _partner_choice(self, p):
        """The player whose display and bids look best for the contract's trump."""
        st = self.st
        trump = st.high_bid[1]
        best = None
        for q in range(self.seats):
            if q == p:
                continue
            d = st.displays[self.g.seat_of(q)]
            score = sum(1 for c in d if c >> 4 == trump or self.PP.high(c) >= 12)
            score += sum(1 for w, a in self.calls if w == q and a != self.PP.PASS)
            if best is None or score > best[0]:
                best = (score, q)
        return best[1]

    def _do(self, p, a):
        """Player p makes move a (the engine judges it); None or why not."""
        from speedref.engine.errors import RuleError
        st = self.st
        PP = self.PP
        n = self.card_hand()
        phase = st.phase
        seat = self.g.seat_of(p)
        try:
            st.apply(p, a)
            if p == HUMAN and self.note and self.note == self.refused:
                self.note = ""                # the refusal is history now
        except RuleError as e:
            if e.rule == "PT-12" and st.trick:
                led = st.trick[0] >> 4
                hand, disp = self.own_cards()
                yours = [self._card(c) for c in hand + disp if c >> 4 == led]
                return "PT-12: must follow suit: %s led, and you hold a %s (%s)" % (
                    self._card(st.trick[0]), SUIT_WORDS[led], " ".join(yours))
            return str(e)
        if phase == "play" and p != HUMAN:
            self.say("%s plays %s (computer)" % (self.player_names()[p], self._card(a)))
        if phase == "bid":
            self.calls.append((p, a))
            self.page = 0
        elif phase == "partner":
            self.contracts[n] = tuple(self.g.contract)
            self.note = "%s names %s as partner" % (self._who(p), self._who(a - PP.PARTNER))
        elif not st.trick:
            # the last card: the trick is won (PT-13)
            w = st.last_winner
            self.seqs.setdefault(n, []).append(w)
            cards = list(st.played[-self.seats:])
            lead = (seat + 1) % self.seats  # the seat after the last card's is the leader's
            players = [self.g.seats[(lead + i) % self.seats] for i in range(self.seats)]
            self.last_trick = (players, cards, w)
            self.note = YOU_WON if w == HUMAN else "%s wins the trick" % self.player_names()[w]
        return None

    # -- the referee's buttons, pressed by the computer players ------------------------------
    def _dealer(self, f):
        """Before hand 1 someone enters the first dealer (PT-3)."""
        want = self.dealer
        p = want if want != HUMAN else 1
        if f.pick == want:
            self._press(p, OK)
        else:
            self._press(p, UP if (want - f.pick) % self.seats <= self.seats // 2 else DOWN, 0.4)

    def _entries(self, f, n):
        F = self.F
        ph = f.phase
        if self.wrong(f) is not None:
            return  # the referee shows what did not happen: everyone waits for the Undo
        c = self.contract(n)
        if ph in (F.BID, F.TRUMP):
            if c is None or self.card_hand() != n:
                return
            bid, trump, who, partner = c
            e = self._entry_bot(c)
            if ph == F.BID:
                if f.bid == bid:
                    self._press(e, OK)
                else:
                    self._press(e, UP if bid > f.bid else DOWN, 0.4)
            else:
                i = self.PT.TRUMPS.index(trump)
                if f.trump == i:
                    self._press(e, OK)
                else:
                    self._press(e, UP if (i - f.trump) % 5 <= 2 else DOWN, 0.4)
        elif ph == F.CONTRACTOR and c is not None:
            if c[2] != HUMAN:
                self._press(c[2], f.game.seat_of(c[2]), 0.8)  # PT-7: "I won the bid"
        elif ph == F.PARTNER and c is not None:
            if c[3] != HUMAN:
                self._press(c[3], f.game.seat_of(c[3]), 0.8)  # PT-8: "I am the partner"
        elif ph == F.TRICKS:
            w = self.owed(f)
            if w is not None and w != HUMAN:
                self._press(w, f.game.seat_of(w), 0.8)  # PT-13: the winner taps where they sit

    @staticmethod
    def _entry_bot(c):
        """Who enters the bid and the trump: the contractor, or if that is
        you, your partner, or P2."""
        for p in (c[2], c[3], 1):
            if p != HUMAN:
                return p
        return 1

    def _press(self, p, b, scale=0.6):
        if self.busy[p] or self.finger[b]:
            return
        self.busy[p] = True
        pe = self.people[p]
        t1 = self.tap(self.t + pe.reaction(scale), b, pe.tap_us())[1]
        self.at(t1 + 20000, self._unbusy, p)

    def _unbusy(self, p):
        self.busy[p] = False

    # -- your actions ----------------------------------------------------------------------
    def key_press(self, t, b, hold):
        """A key put your finger on button b at t (sim/keys.py)."""
        return self.press(t, b)

    def your_pad(self):
        """The pad you sit at now, as the referee has the seating (PT-8)."""
        f = self.board.app.flow
        if f is not None and f.GAME == "partners":
            return f.game.seat_of(HUMAN)
        return HUMAN

    def own_cards(self):
        """Your cards, in the order of your letters: the hand, then the display
        of the seat you occupy (PT-10)."""
        st = self.st
        hand = sorted(st.hands[HUMAN], key=self._order)
        disp = sorted(st.displays[self.g.seat_of(HUMAN)], key=self._order)
        return hand, disp

    def _order(self, c):
        return (c >> 4, self.PP.high(c))

    def choosing(self):
        """Do your letters pick a bid or a partner now, not a card?"""
        st = self.st
        return st is not None and st.phase in ("bid", "partner") and st.current_player() == HUMAN

    def lettered(self):
        """Your cards with their letters: ([(letter, card)] of the hand, of
        the display); a card keeps its letter while you hold it (Letters)."""
        hand, disp = self.own_cards()
        both = self.letters.update(hand + disp)
        return [x for x in both if x[1] in hand], [x for x in both if x[1] in disp]

    def choices(self):
        """What your letters pick now: [(letter, action, text)]."""
        st = self.st
        if st is None or st.phase in ("deal", "over"):
            return []
        PP = self.PP
        if self.choosing() and st.phase == "bid":
            bids = [a for a in st.legal_actions(HUMAN) if a != PP.PASS]
            k = len(CARD_KEYS)
            return [(CARD_KEYS[i], a, self._bid_text(a))
                    for i, a in enumerate(bids[self.page * k:(self.page + 1) * k])]
        if self.choosing():
            return [(CARD_KEYS[i], a, "%s (pad %d)" % (self.player_names()[a - PP.PARTNER], self.g.seat_of(a - PP.PARTNER) + 1))
                    for i, a in enumerate(st.legal_actions(HUMAN))]
        hand, disp = self.lettered()
        return [(k, c, self._card(c)) for k, c in hand + disp]

    def letter(self, card):
        """The letter your card has on the panel."""
        self.lettered()
        return self.letters.letter(card)

    def more_bids(self, step):
        """+ / -: the next or the previous letters' worth of bids."""
        st = self.st
        if st is None or st.phase != "bid":
            return "bids are made in the auction"
        n = len([a for a in st.legal_actions(st.current_player()) if a != self.PP.PASS])
        pages = max(1, (n + len(CARD_KEYS) - 1) // len(CARD_KEYS))
        self.page = min(max(0, self.page + step), pages - 1)
        return None

    def pass_bid(self):
        st = self.st
        if st is None or st.phase != "bid" or st.current_player() != HUMAN:
            return "pass in the auction, on your call"
        if self.PP.PASS not in st.legal_actions(HUMAN):
            return "PT-6: you deal, and the dealer may not pass: open the bidding (a letter)"
        return self._do(HUMAN, self.PP.PASS)

    def refuse(self, why):
        """Say why a key was refused, until your next move the cards take."""
        self.note = self.refused = why

    def pick(self, i):
        """Your letter i: that bid, partner or card.  None or why not."""
        f = self._flow()
        st = self.st
        if f is None or st is None:
            return "not now"
        cur = st.current_player()
        ch = [x for x in self.choices() if x[0] == CARD_KEYS[i]]
        if not ch:
            return "no choice there" if self.choosing() else "no card there"
        if cur != HUMAN:
            return "not your turn: %s" % self._whose()
        if not self._may_act(f, self.hand_no(f)):
            return self._wait_text(f)
        return self._do(HUMAN, ch[0][1])

    def _wait_text(self, f):
        F = self.F
        w = self.owed(f)
        if w == HUMAN:
            return "tap your pad (z) first: you won the last trick"
        if self.wrong(f) is not None:
            return "the referee shows %s: BACK, Undo last" % self.wrong(f)
        if any(self.finger[:4]):
            return "a hand is on a pad: wait"
        if self.st.phase == "play" and f.phase != F.TRICKS:
            return "the referee is not at the tricks yet"
        return "wait for the referee"

    def _whose(self):
        st = self.st
        p = st.current_player()
        if p < 0:
            return "the hand is over"
        return "%s's turn" % self._who(p)

    def _who(self, p):
        return "you" if p == HUMAN else self.player_names()[p]

    def _bid_text(self, a):
        n = (a - self.PP.BID) >> 3
        t = (a - self.PP.BID) & 7
        return "%d%s" % (n, "NT" if t == 4 else SUITS[t])

    def _call_text(self, a):
        return "pass" if a == self.PP.PASS else self._bid_text(a)

    @staticmethod
    def _card(c):
        from speedref.engine import cards
        return cards.name(c)

    # -- the panel beside the OLED ---------------------------------------------------------
    def panel(self):
        st = self.st
        f = self.flow if self.flow is not None and self.flow is self.board.app.flow else None
        out = ["Partners: you (P1) with and against P2, P3, P4"]
        if st is None or f is None:
            return out + ["", self.note or "(the computer players choose the first dealer)"]
        g = self.g
        n = self.hand_no(f)
        seats = "  ".join("pad %d: %s" % (k + 1, "you" if g.seats[k] == HUMAN else self.player_names()[g.seats[k]])
                          for k in range(self.seats))
        out.append("Hand %d, dealer %s   %s" % (self.card_hand(), self.player_names()[g.dealer], seats))
        if self.calls:
            out.append("Auction: " + ", ".join("%s %s" % (self.player_names()[p], self._call_text(a))
                                               for p, a in self.calls[-8:]))
        c = g.contract if st.phase == "play" else None
        if c is not None:
            bid, trump, who, partner = c
            side = g.tricks[who] + g.tricks[partner]
            out.append("Contract: %d %s by %s, partner %s   (their tricks %d of %d)" % (
                bid, trump, self.player_names()[who], self.player_names()[partner], side, bid))
        disp = []
        for k in range(self.seats):
            if g.seats[k] != HUMAN:
                disp.append("%s %s" % (self.player_names()[g.seats[k]], " ".join(self._card(x) for x in st.displays[k]) or "-"))
        out.append("Displays: " + "   ".join(disp))
        if st.phase == "play" and st.trick:
            lead = (st.turn - len(st.trick)) % self.seats
            out.append("On the table:  " + " ".join(
                "%s %s" % (self.player_names()[g.seats[(lead + i) % self.seats]], self._card(x)) for i, x in enumerate(st.trick)))
        if self.last_trick is not None:
            ps, cs, w = self.last_trick
            out.append("Last trick:    %s -> %s" % (
                " ".join("%s %s" % (self.player_names()[p], self._card(x)) for p, x in zip(ps, cs)), self.player_names()[w]))
        true = self.seqs.get(n, [])
        won = [true.count(p) for p in range(self.seats)]
        out.append("Tricks won:    %s   (referee: %s)" % (
            " ".join("%s %d" % (self.player_names()[p], won[p]) for p in range(self.seats)),
            " ".join(str(x) for x in f.game.tricks)))
        out.append("Totals:        %s   (to %d)" % (" ".join("%s %d" % (self.player_names()[p], f.game.totals[p])
                                                            for p in range(self.seats)), f.target))
        ch = self.choices()
        cur = st.current_player()
        if st.phase in ("bid", "partner", "play"):
            hand, dsp = self.own_cards()
            if cur == HUMAN and st.phase != "play":
                out.append("Your hand:     " + " ".join(self._card(x) for x in hand))
                out.append("Your display:  " + " ".join(self._card(x) for x in dsp))
                label = "Your call (p = pass, + / - more bids):" if st.phase == "bid" \
                    else "Your partner:"
                out.append(label)
                row = ["%s:%s" % (k, text) for k, _, text in ch]
                for i in range(0, len(row), 7):
                    out.append("  " + "  ".join(row[i:i + 7]))
            else:
                lh, ld = self.lettered()
                out.append("Your hand:     " + "  ".join("%s:%s" % (k, self._card(x)) for k, x in lh))
                out.append("Your display:  " + "  ".join("%s:%s" % (k, self._card(x)) for k, x in ld))
        out.append("")
        out.append(self._todo(f))
        out.append(self.note)
        out.append("keys: letter = card/bid/partner, p = pass, z = tap your pad (pad %d)" % (self.your_pad() + 1))
        return out

    def compact(self):
        """The panel in a few lines (the compact layout, an 80x24 terminal):
        the hand, the seating and the totals; the auction or the contract
        with the tricks; the displays; the trick; your cards or your call;
        what to do."""
        st = self.st
        f = self.flow if self.flow is not None and self.flow is self.board.app.flow else None
        if st is None or f is None:
            return [self.note or "(the computer players choose the first dealer)"]
        g = self.g
        who = self.player_names()
        n = self.hand_no(f)
        pads = " ".join("%d:%s" % (k + 1, "you" if g.seats[k] == HUMAN else who[g.seats[k]])
                        for k in range(self.seats))
        out = ["Hand %d dealer %s  pads %s  totals %s (to %d)" % (
            self.card_hand(), who[g.dealer], pads, " ".join(str(x) for x in f.game.totals), f.target)]
        true = self.seqs.get(n, [])
        won = [true.count(p) for p in range(self.seats)]
        c = g.contract if st.phase == "play" else None
        if c is not None:
            bid, trump, w, partner = c
            ref = list(f.game.tricks)
            out.append("Contract %d %s %s+%s: %d of %d   tricks %s%s" % (
                bid, trump, who[w], who[partner], g.tricks[w] + g.tricks[partner], bid,
                " ".join(str(x) for x in won),
                "" if ref == won else "  (referee %s)" % " ".join(str(x) for x in ref)))
        elif self.calls:
            out.append("Auction: " + ", ".join("%s %s" % (who[p], self._call_text(a)) for p, a in self.calls[-8:]))
        disp = ["%s %s" % (who[g.seats[k]], " ".join(self._card(x) for x in st.displays[k]) or "-")
                for k in range(self.seats) if g.seats[k] != HUMAN]
        out.append("Displays: " + "  ".join(disp))
        table = []
        if st.phase == "play" and st.trick:
            lead = (st.turn - len(st.trick)) % self.seats
            table.append("Table: " + " ".join("%s %s" % (who[g.seats[(lead + i) % self.seats]], self._card(x))
                                              for i, x in enumerate(st.trick)))
        if self.last_trick is not None:
            ps, cs, w = self.last_trick
            table.append("last: %s -> %s" % (" ".join("%s %s" % (who[p], self._card(x)) for p, x in zip(ps, cs)),
                                             who[w]))
        if table:
            out.append("   ".join(table))
        if st.phase in ("bid", "partner", "play"):
            hand, dsp = self.own_cards()
            if st.current_player() == HUMAN and st.phase != "play":
                out.append("Hand: %s   display: %s" % (" ".join(self._card(x) for x in hand),
                                                       " ".join(self._card(x) for x in dsp) or "-"))
                out.append(("Bid (p pass, + - more): " if st.phase == "bid" else "Partner: ") +
                           " ".join("%s:%s" % (k, text) for k, _, text in self.choices()))
            else:
                lh, ld = self.lettered()
                out.append("Hand: " + " ".join("%s:%s" % (k, self._card(x)) for k, x in lh))
                out.append("Display: " + (" ".join("%s:%s" % (k, self._card(x)) for k, x in ld) or "-"))
        todo = self._todo(f).strip()
        note = self.note or ""
        if note and len(todo) + len(note) < 76:
            out.append("%s   %s" % (todo, note))
        else:
            out += [todo] + ([note] if note else [])
        return out

    def short_keys(self):
        """Your keys in a few characters (the compact layout's column)."""
        return ("a-u   card/bid", "p     pass", "+ -  more bids", "z     your pad", "1-4   the pads")

    def _todo(self, f):
        """What you should do now, in one line."""
        F = self.F
        st = self.st
        ph = f.phase
        n = self.hand_no(f)
        c = self.contract(n)
        bad = self.wrong(f)
        if bad is not None:
            return ">> The referee shows %s: BACK, Undo last" % bad
        if self.owed(f) == HUMAN:
            return ">> You won the trick: tap your pad (z)"
        if ph == F.CONTRACTOR and c is not None and c[2] == HUMAN:
            return ">> You won the bid: tap your pad (z)"
        if ph == F.PARTNER and c is not None and c[3] == HUMAN:
            return ">> You are the partner: tap your pad (z)"
        if ph == F.SWAP:
            a, b = f.game.swap
            return ">> %s goes to pad %d, %s to pad %d: then OK (Enter)" % (
                self.player_names()[a], f.game.seat_of(a) + 1, self.player_names()[b], f.game.seat_of(b) + 1)
        if ph == F.HAND:
            return ">> OK (Enter): the totals"
        if ph == F.TOTALS:
            return ">> OK (Enter): next hand; DOWN, OK: stop the game here (PT-20)"
        if ph == F.STOP:
            return ">> OK: stop the game now; UP: play on"
        if ph == F.FINAL:
            return ">> OK (Enter): save the result"
        if st.current_player() == HUMAN:
            return ">> Your %s" % {"bid": "call: a bid (letter) or p = pass",
                                   "partner": "partner: a letter",
                                   "play": "turn: pick a card"}.get(st.phase, "turn")
        return "   " + self._whose()


def terminal_class():
    """The terminal simulator with the partners panel beside the OLED."""
    from sim.table.person import table_terminal
    from sim.keys import TAP, HOLD
    from sim.tui import legend_lines, TAP_KEYS, HOLD_KEYS
    Base, curses = table_terminal()

    class PartnersTerminal(Base):
        def feed_key(self, ch, now_us):
            tb = self.tb
            c = chr(ch) if 0 <= ch < 256 else ""
            why = None
            if c and c in CARD_KEYS:
                why = tb.pick(CARD_KEYS.index(c))
            elif c == "p":
                why = tb.pass_bid()
            elif c in ("+", "=", "-"):
                why = tb.more_bids(-1 if c == "-" else 1)
            elif c in ("z", "Z"):
                # your pad: the one where you sit now (PT-8 may have moved you)
                pad = tb.your_pad()
                self.apply(self.keys.event(TAP if c == "z" else HOLD, pad, now_us), now_us)
                return
            else:
                Base.feed_key(self, ch, now_us)
                return
            if why:
                tb.refuse(why[:80])

        def legend(self):
            # the pads by who sits there now; z is your pad wherever that is
            pad = self.tb.your_pad()

            def keys(base, yours):
                out = [k.replace("/" + yours, "") for k in base]
                out[pad] += "/" + yours
                return tuple(out)
            return legend_lines(self.names(), keys(TAP_KEYS, "z"), keys(HOLD_KEYS, "Z"))

    return PartnersTerminal, curses


def table(args):
    """The --play partners table for the command line's options."""
    return PartnersPlay(args.seed, start_us=args.start_us, pace=args.pace or DEFAULT_PACE, store=args.store)
