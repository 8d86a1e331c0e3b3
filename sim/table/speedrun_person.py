"""Play Speed Run against two computer players, with your cards on screen
beside the referee app's OLED (`speedref-sim --play speedrun`).

You are P1; the computer players are P2 and P3.  Everyone plays real cards
with the card-level engine (speedref.engine.speedrun_cards: the deal, the
trump and ranking choices, the contract cards put down face down, follow
suit, the trick winners).  The computer players act on a clock (human
reaction times, sim/bots.py) and press their pads and the navigation
buttons as people would; the referee app runs beside them and referees all
three of you, exactly as at a real table:

  the trick winner taps their pad after each trick (SR-11, SR-12)   you: z or 1
  a player who turns their contract face up (SR-21) holds their pad 0.8 s,
  then picks that contract on the OLED with UP/DOWN, OK             you: v, then Z
  after the 12th trick each face-down contract is entered, in seat order,
  with UP/DOWN, OK (a Redo then names its contract, SR-19)          you: your own
  the computer players enter the trump and ranking (SR-7, SR-9); you press
  OK on the hand's scores and on the final standings.

Your cards are on the panel from the deal on (SR-7: you look at them
before you choose); they and your choices are lettered `a s d f g h w e r
t y u`: the letter picks the card (or, when you choose trump/ranking or put
down your contract, the choice).  --length short|medium|long sets the
game's length (SR-2), else the device's own (Long); a game started from
the device's own menu plays the length chosen there.  The engine refuses an illegal card and the
panel says why (SR-10 follow suit).  The computer players wait, as polite
people do, until the referee shows every trick won so far before the next
trick is led; a trick counted for the wrong player is taken back through
BACK, Undo.
"""

from sim.bots import Person, THINK_US
from sim.table.base import Table, UP, DOWN, OK
from sim.table.person import set_pace, PACES, DEFAULT_PACE, Letters, Says
from speedref.engine.cards import RUN_SUITS

HUMAN = 0
ENTRY = 1                       # the computer player who enters trump and ranking
CARD_KEYS = "asdfghwertyu"      # 12 letters: your hand, or the choices offered
REVEAL_HOLD_US = 1000000        # a reveal: the pad held past the app's 0.8 s


class SpeedRunPlay(Says, Table):
    """A Speed Run table: seat 0 a person, seats 1 and 2 computer players."""

    GAME = "speedrun"
    YOU_WON = "You win the trick: tap your pad (z)"

    def __init__(self, seed=None, realtime=True, length=None, start_us=None, loop_us=None,
                 reveal_chance=0.15, pace=DEFAULT_PACE, store=None):
        Table.__init__(self, seed, loop_us, start_us, realtime, store)
        from speedref.app import speedrun_flow as F
        from speedref.engine import speedrun_cards as SRP
        from speedref.engine import speedrun as SR
        self.F = F
        self.SRP = SRP
        self.SR = SR
        rng = self.rng
        self.bots = tuple(range(HUMAN + 1, self.seats))  # every seat but yours
        self.people = [None] + [Person(rng, s, bounce=0) for s in self.bots]
        set_pace(self.people, pace)
        self.think_us = tuple(int(x * PACES[pace]) for x in THINK_US)
        self.length = length
        self.reveal_chance = reveal_chance
        self.st = None          # the card game (truth)
        self.flow = None        # the referee flow the cards belong to
        self.true_tricks = self.per_seat(0)   # this hand's tricks as really won
        self.last_trick = None
        self.busy = self.per_seat(False)     # a computer player is pressing a button
        self.planned = self.per_seat(False)  # a computer player's card move is coming
        self.will_reveal = self.per_seat(None)  # trick number at which a bot reveals
        self.note = ""
        self.record = None
        self.done = False
        self.card_scores = None  # the last hand as the cards score it (SR-14..SR-23)
        self.letters = Letters(CARD_KEYS)  # your cards' letters, kept while held
        self.suits = self.F.TRUMP_WORDS[:4]  # the OLED's words for the suits

    def start(self):
        """Straight into Speed Run (the remembered length, or `length`)."""
        self.boot()
        opts = dict(self.board.app.settings["speedrun"])
        if self.length:
            opts["length"] = self.length
        self.board.app.start("speedrun", self.board.now(), opts)
        self.board.step()
        self._observe()

    def advance(self, us):
        """Simulated time only (tests): let the table run for `us`."""
        end = self.t + us
        self.run(lambda: self.t >= end)

    # -- what the table sees ------------------------------------------------------------
    def _flow(self):
        app = self.board.app
        f = app.flow
        if f is None or f.GAME != "speedrun" or app.screen is not f:
            return None
        return f

    def on_line(self, obj):
        if obj.get("ev") == "game_end":
            self.record = obj.get("record")
            self.done = True
            self.note = "%s. Speed Run again from the menu, or q to quit" % self.board.record_note()

    def after_step(self):
        f = self.board.app.flow
        if f is not None and f.GAME == "speedrun" and f is not self.flow:
            self._new_game(f)
        f = self._flow()
        if f is None or self.st is None:
            return
        if self.note == self.YOU_WON and self.owed(f) != HUMAN:
            self.note = ""  # tapped: the referee counts your trick
        self._cards(f)
        self._entries(f)

    def _new_game(self, f):
        self.flow = f
        self.st = self.SRP.State(self.rng.randrange(1, 1 << 30), f.length, self.player_names(),
                                 first=f.g.first)
        self.true_tricks = self.per_seat(0)
        self.record = None
        self.done = False
        self.note = ""

    def synced(self, f):
        """Does the referee show every trick won so far (and no other)?"""
        return f.phase == self.F.PLAY and list(f.g.tricks) == self.true_tricks

    def owed(self, f):
        """The seat whose won trick the referee has not counted yet, or None."""
        if f.phase != self.F.PLAY:
            return None
        for s in range(self.seats):
            if self.true_tricks[s] > f.g.tricks[s]:
                return s
        return None

    def wrong(self, f):
        return any(f.g.tricks[s] > self.true_tricks[s] for s in range(self.seats))

    # -- the cards ------------------------------------------------------------------------
    def _cards(self, f):
        st = self.st
        SRP = self.SRP
        p = st.current_player()
        if p == SRP.CHANCE and f.phase == self.F.HAND and f.g.hands_played == st.game.hands_played:
            st.apply(SRP.CHANCE, SRP.DEAL)  # SR-6: the first player deals
            self.letters = Letters(CARD_KEYS)
            self.letters.update(st.hand[HUMAN])  # a s d ... in the hand's order
            self.true_tricks = self.per_seat(0)
            self.last_trick = None
            self.card_scores = None
            self.will_reveal = self.per_seat(None)
            for s in self.bots:
                if self.rng.random() < self.reveal_chance:
                    self.will_reveal[s] = self.rng.randint(3, 11)
            return
        if p in self.bots and not self.planned[p] and self._may_act(f, p):
            self.planned[p] = True
            pe = self.people[p]
            think = self.rng.randint(*self.think_us) if st.phase != "play" or not st.trick else self.think_us[0]
            self.at(self.t + pe.reaction() + think, self._bot_move, p)

    def _may_act(self, f, p):
        st = self.st
        if st.phase == "play":
            # play: only once the referee shows every trick so far, and with
            # nobody's hand on a pad (a trick tap or a reveal in progress)
            return self.synced(f) and not any(self.finger[:self.seats])
        return st.phase in ("choose", "contract")

    def _bot_move(self, p):
        self.planned[p] = False
        f = self._flow()
        st = self.st
        if f is None or st.current_player() != p or not self._may_act(f, p):
            return
        a = self._policy(p)
        phase = st.phase
        st.apply(p, a)
        if phase == "play" and a != self.SRP.REVEAL:
            self.say("P%d plays %s (computer)" % (p + 1, self._card(a)))
        if a == self.SRP.REVEAL:
            # SR-21: tell the referee: hold the pad, then pick the contract
            self.tap(self.t + self.people[p].reaction(0.5), p, REVEAL_HOLD_US)
            self.busy[p] = True
            self.at(self.t + REVEAL_HOLD_US + 800000, self._unbusy, p)
            self.note = "P%d turns their contract face up" % (p + 1)
        elif phase == "play":
            self._after_card()

    def _policy(self, p):
        """What a computer player does: simple, legal, a little sensible."""
        st = self.st
        SRP = self.SRP
        acts = st.legal_actions(p)
        g = st.game
        if st.phase == "choose":  # SR-7: trump = the suit held most; ranking by the high cards
            if st.chosen[0] is None:
                counts = [0] * len(RUN_SUITS)
                for c in st.hand[p]:
                    counts[c >> 4] += 1
                best = counts.index(max(counts))
                return SRP.TRUMP + (best if max(counts) >= 4 else 4)
            high = sum(1 for c in st.hand[p] if c & 15 >= 8)
            low = sum(1 for c in st.hand[p] if c & 15 <= 3)
            r = 0 if high >= low else 1
            if self.rng.random() < 0.3:
                r = self.rng.randrange(6)
            return SRP.RANK + r
        if st.phase == "contract":  # SR-13: a contract near the tricks this hand might take
            guess = self._guess(p)
            best = None
            for a in acts:
                if SRP.CONTRACT <= a < SRP.PASS:
                    name = self.SR.NORMAL[a - SRP.CONTRACT]
                    n = int(name[1:]) if name[0] == "W" else 4
                    d = abs(n - guess) + (0 if name[0] == "W" else 1)
                    if best is None or d < best[0]:
                        best = (d, a)
            if best is not None and (best[0] <= 2 or not [a for a in acts if a >= SRP.REDO]):
                return best[1]
            redo = [a for a in acts if SRP.REDO <= a < SRP.REVEAL]
            if redo:
                return redo[self.rng.randrange(len(redo))]
            return best[1] if best else acts[0]  # only Pass left
        # SR-10: a legal card (follow suit); now and then turn the contract up
        n = g.tricks_played() + 1
        if SRP.REVEAL in acts and self.will_reveal[p] is not None and n >= self.will_reveal[p]:
            self.will_reveal[p] = None
            return SRP.REVEAL
        cardz = [a for a in acts if a < SRP.TRUMP]
        return cardz[self.rng.randrange(len(cardz))]

    def _guess(self, p):
        st = self.st
        t = st._trump_suit()
        ten = self.SR.direction(st.game.ranking, 1) == 10
        n = 0
        for c in st.hand[p]:
            r = c & 15
            if c >> 4 == t or (r >= 9 if ten else r <= 2):
                n += 1
        return n

    def _after_card(self):
        """A card was played: was it the third of a trick?"""
        st = self.st
        if st.trick or st.last_trick is None or st.last_trick is self.last_trick:
            return
        self.last_trick = st.last_trick
        w = st.last_trick[2]
        self.true_tricks[w] += 1
        if st.phase != "play":  # the 12th trick: the card game scored the hand
            self.card_scores = st.last_scores
        self.note = (self.YOU_WON if w == HUMAN else "P%d wins the trick" % (w + 1))

    # -- the referee's buttons, pressed by the computer players ------------------------------
    def _entries(self, f):
        F = self.F
        ph = f.phase
        if self.wrong(f):
            return  # a trick counted for the wrong player: everyone waits for the Undo
        w = self.owed(f)
        if w in self.bots:
            self._press(w, w, 0.8)  # SR-12: the winner taps their pad
            return
        st = self.st
        if ph == F.HAND and st.game.trump is not None and f.g.hands_played == st.game.hands_played:
            self._press(ENTRY, OK)  # trump and ranking are chosen: enter them
        elif ph == F.TRUMP and st.game.trump is not None:
            self._step_to(ENTRY, f, self.SR.TRUMPS.index(st.game.trump))
        elif ph == F.RANK and st.game.ranking is not None:
            self._step_to(ENTRY, f, self.SR.RANKINGS.index(st.game.ranking))
        elif ph in (F.REVEAL, F.CONTRACT, F.TARGET) and f.seat in self.bots:
            s = f.seat
            c = self._contract_of(s)
            if ph == F.TARGET:
                want = c[5:] if c[:5] == "REDO:" else None
            else:
                want = "REDO" if c[:5] == "REDO:" else c
            if want in f.choices:
                self._step_to(s, f, list(f.choices).index(want))

    def _contract_of(self, s):
        """Seat s's contract this hand (kept by the card game until the next deal)."""
        return self.st.contracts[s]

    def _step_to(self, seat, f, want):
        if f.cursor == want:
            self._press(seat, OK)
        else:
            n = len(f.choices)
            self._press(seat, DOWN if (want - f.cursor) % n <= n // 2 else UP, 0.4)

    def _press(self, seat, b, scale=0.6):
        if self.busy[seat] or self.finger[b]:
            return
        self.busy[seat] = True
        pe = self.people[seat]
        t1 = self.tap(self.t + pe.reaction(scale), b, pe.tap_us())[1]
        self.at(t1 + 20000, self._unbusy, seat)

    def _unbusy(self, seat):
        self.busy[seat] = False

    # -- your actions ----------------------------------------------------------------------
    def key_press(self, t, b, hold):
        """A key put your finger on button b at t (sim/keys.py)."""
        return self.press(t, b)

    def choosing(self):
        """Do your letters pick a choice now (trump/ranking, your contract),
        not a card?"""
        st = self.st
        return st is not None and st.phase in ("choose", "contract") and st.current_player() == HUMAN

    def choices(self):
        """What your letters pick now: [(letter, action, text)], cards (each
        keeps its letter while you hold it) or the choices offered."""
        st = self.st
        if st is None:
            return []
        SRP = self.SRP
        if not self.choosing():
            return [(k, c, self._card(c)) for k, c in self.letters.update(st.hand[HUMAN])]
        out = []
        for a in st.legal_actions(HUMAN):
            if a != SRP.REVEAL:
                name = st.action_name(a)
                text = self._word(name) if st.phase == "contract" else self._choice(name)
                out.append((CARD_KEYS[len(out)], a, text))
        return out

    def letter(self, card):
        """The letter your card has on the panel."""
        self.letters.update(self.st.hand[HUMAN])
        return self.letters.letter(card)

    def pick(self, i):
        """Your letter CARD_KEYS[i]: play that card, or make that choice.
        Returns None or the reason it was refused."""
        f = self._flow()
        st = self.st
        if f is None or st is None:
            return "not now"
        if st.current_player() != HUMAN:
            return "not your turn: %s" % self._whose()
        ch = [x for x in self.choices() if x[0] == CARD_KEYS[i]]
        if not ch:
            return "no card there" if not self.choosing() else "no choice there"
        a = ch[0][1]
        if st.phase == "play":
            if not self.synced(f):
                return self._wait_text(f)
        return self._do(a)

    def reveal(self):
        """v: turn your contract face up (SR-21, on your turn)."""
        st = self.st
        if st is None or st.phase != "play" or st.current_player() != HUMAN:
            return "reveal on your turn during play (SR-21)"
        why = self._do(self.SRP.REVEAL)
        if why is None:
            self.note = "Face up: hold your pad (Z) till the OLED asks, pick it, OK, Z"
        return why

    def _do(self, a):
        from speedref.engine.errors import RuleError
        st = self.st
        phase = st.phase
        try:
            st.apply(HUMAN, a)  # the engine judges it (SR-7, SR-10, SR-13, SR-19, SR-21)
        except RuleError as e:
            if e.rule == "SR-10" and st.trick:
                led = st.trick[0] >> 4
                yours = [self._card(c) for c in st.hand[HUMAN] if c >> 4 == led]
                return "SR-10: must follow suit: %s led, and you hold %s (%s)" % (
                    self._card(st.trick[0]), self.suits[led], " ".join(yours))
            return str(e)
        if phase == "play":
            self._after_card()
        return None

    def _who(self, s):
        """Seat s on the panel: "you", or the referee's name (P2, P3)."""
        return "you" if s == HUMAN else self.player_names()[s]

    def _whose(self):
        st = self.st
        p = st.current_player()
        if p < 0:
            return "the hand is over"
        return "P%d's turn" % (p + 1)

    def _wait_text(self, f):
        w = self.owed(f)
        if w == HUMAN:
            return "tap your pad (z) first: you won the last trick"
        if self.wrong(f):
            return "the referee counts a trick nobody won: BACK, Undo"
        if f.phase != self.F.PLAY:
            return "the referee is not in play yet"
        return "wait for the referee to count the trick"

    def _card(self, c):
        """A card as the panel names it: the first two letters of the OLED's
        word for its suit (Wo Ra Ge Go: Worms, Raccoons, Geckos, Gorillas),
        then its rank."""
        return "%s%d" % (self.suits[c >> 4][:2], c & 15)

    def _choice(self, name):
        """A trump or ranking choice, the trump in the OLED's word."""
        if name[:6] == "trump ":
            t = self.SR.TRUMPS.index(name[6:])
            return "trump " + self.F.TRUMP_WORDS[t]
        return name

    # -- the panel beside the OLED ---------------------------------------------------------
    def panel(self):
        st = self.st
        f = self._flow()
        out = ["Speed Run: you (P1) against P2 and P3"]
        if st is None or f is None:
            return out + ["", self.note] + ([] if self.done else ["(the computer players play Speed Run only)"])
        g = st.game
        SR = self.SR
        out.append("Hand %d of %d   1st card: P%d" % (f.g.hands_played + (0 if f.phase >= self.F.RESULT else 1),
                                                       g.hands_total, f.g.first + 1))
        if g.trump is not None:
            n = g.tricks_played() + 1
            out.append("Trump: %s   ranking: %s   trick %d: %d high" % (
                self.F.TRUMP_WORDS[SR.TRUMPS.index(g.trump)], g.ranking, n, SR.direction(g.ranking, n)))
        if st.phase == "play":
            lead = (g.next_leader())
            table = " ".join("P%d %s" % ((lead + i) % self.seats + 1, self._card(c)) for i, c in enumerate(st.trick))
            out.append("On the table:  %s" % (table or "(P%d leads)" % (lead + 1)))
        if self.last_trick is not None:
            ld, cs, w = self.last_trick
            out.append("Last trick:    %s -> P%d" % (
                " ".join("P%d %s" % ((ld + i) % self.seats + 1, self._card(c)) for i, c in enumerate(cs)), w + 1))
        out.append("Tricks won:    %s   (referee: %s)" % (
            "  ".join("%s %d" % (self._who(s), self.true_tricks[s]) for s in range(self.seats)),
            " ".join(str(x) for x in f.g.tricks)))
        mine = st.contracts[HUMAN]
        word = self._word
        rev = ["%s %s" % (self._who(s), "face up: %s" % word(g.revealed[s]) if g.revealed[s] else
                          ("face down" if st.contracts[s] else "-")) for s in self.bots]
        out.append("Your contract: %s%s   %s" % (
            word(mine) if mine else "-", " (face up)" if g.revealed[HUMAN] else "", "   ".join(rev)))
        held = list(g.held[HUMAN])
        if mine:  # the card you put down this hand has left your hand (SR-13)
            card = "REDO" if mine[:5] == "REDO:" else mine
            if card in held:
                held.remove(card)
        import textwrap  # a Long game's 13 cards: two lines, not one of 102 characters
        out += textwrap.wrap("Contract cards: " + ", ".join(word(c) for c in held), 64,
                             subsequent_indent="  ")
        if self.card_scores is not None:
            out.append("Last hand (cards): %s   totals %s" % (
                " ".join("-" if x is None else str(x) for x in self.card_scores), list(g.totals)))
        ch = self.choices()
        choosing = self.choosing()
        if choosing:
            # SR-7, SR-13: you look at your cards before you choose (no letters:
            # the letters pick the choices below)
            hand = [self._card(c) for c in st.hand[HUMAN]]
            out.append("Your hand:")
            for i in range(0, len(hand), 8):
                out.append("  " + "  ".join(hand[i:i + 8]))
        label = "Your hand:" if not choosing else (
            "Choose:" if st.phase == "choose" else "Your contract (face down):")
        row = ["%s:%s" % (k, text) for k, _, text in ch]
        out.append(label)
        per = 6 if not choosing else 3  # the panel is about 64 characters wide
        for i in range(0, len(row), per):
            out.append("  " + "  ".join(row[i:i + per]))
        out.append("")
        out.append(self._todo(f))
        out.append(self.note)
        out.append("cards: Wo %s (Earthworms), Ra %s, Ge %s, Go %s" % self.suits)
        out.append("keys: letter = card/choice, v = reveal, z = tap pad, Z = hold pad")
        return out

    def compact(self):
        """The panel in a few lines (the compact layout, an 80x24 terminal):
        the hand, trump and direction; the tricks and what is on the table;
        the contracts; your cards or choices; what to do.  Contract cards
        by their short names (W4, MIDDLE, REDO), as the log's hand lines."""
        st = self.st
        f = self._flow()
        if st is None or f is None:
            return [self.note] + ([] if self.done else ["(the computer players play Speed Run only)"])
        g = st.game
        SR = self.SR
        head = "Hand %d/%d  1st %s" % (f.g.hands_played + (0 if f.phase >= self.F.RESULT else 1),
                                       g.hands_total, self._who(f.g.first))
        if g.trump is not None:
            n = g.tricks_played() + 1
            head += "   trump %s  ranking %s  trick %d: %d high" % (
                self.F.TRUMP_WORDS[SR.TRUMPS.index(g.trump)], g.ranking, n, SR.direction(g.ranking, n))
        out = [head]
        choosing = self.choosing()
        if not choosing:
            ref = list(f.g.tricks)
            line = "Tricks %s%s" % (
                " ".join("%s %d" % (self._who(s), self.true_tricks[s]) for s in range(self.seats)),
                "" if ref == list(self.true_tricks) else " (referee %s)" % " ".join(str(x) for x in ref))
            if st.phase == "play":
                lead = g.next_leader()
                line += "   table: %s" % (" ".join("%s %s" % (self._who((lead + i) % self.seats), self._card(c))
                                                     for i, c in enumerate(st.trick)) or "%s leads" % self._who(lead))
            out.append(line)
            if self.last_trick is not None:
                ld, cs, w = self.last_trick
                out.append("Last trick: %s -> %s" % (" ".join(
                    "%s %s" % (self._who((ld + i) % self.seats), self._card(c)) for i, c in enumerate(cs)),
                    self._who(w)))
        mine = st.contracts[HUMAN]
        held = list(g.held[HUMAN])
        if mine:  # the card you put down this hand has left your hand (SR-13)
            card = "REDO" if mine[:5] == "REDO:" else mine
            if card in held:
                held.remove(card)
        faces = ["you %s%s" % (mine or "-", " up" if g.revealed[HUMAN] else "")]
        for p in self.bots:
            faces.append("%s %s" % (self._who(p), "up %s" % g.revealed[p] if g.revealed[p] else
                                    ("down" if st.contracts[p] else "-")))
        out.append("Contracts: %s   your cards %s" % (", ".join(faces), " ".join(held)))
        ch = self.choices()
        if choosing:
            out.append("Hand: " + " ".join(self._card(c) for c in st.hand[HUMAN]))
            out.append(("Choose: " if st.phase == "choose" else "Contract: ") +
                       " ".join("%s:%s" % (k, text[6:] if text[:6] == "trump " else text) for k, _, text in ch))
        else:
            out.append("Hand: " + " ".join("%s:%s" % (k, text) for k, _, text in ch))
        todo = self._todo(f).strip()
        if self.note and len(todo) + len(self.note) < 76:
            out.append("%s   %s" % (todo, self.note))
        else:
            out += [todo] + ([self.note] if self.note else [])
        return out

    def short_keys(self):
        """Your keys in a few characters (the compact layout's column)."""
        return ("a-u  card/pick", "z     tap pad", "v, Z  reveal") + tuple(
            "%s %s" % (w[:2], w) for w in self.suits)

    def _word(self, c):
        """A contract as the OLED words it: "Win 4", "Redo Win 4"."""
        return self.F.word("REDO:" + c[5:] if c[:5] == "REDO:" else c)

    def _todo(self, f):
        """What you should do now, in one line."""
        F = self.F
        st = self.st
        ph = f.phase
        if self.owed(f) == HUMAN:
            return ">> You won the trick: tap your pad (z)"
        if self.wrong(f):
            return ">> The referee counts a trick nobody won: BACK, Undo"
        if ph == F.REVEAL and f.seat == HUMAN:
            return ">> Pick your contract (%s) with UP/DOWN, OK" % self._word(st.contracts[HUMAN])
        if ph in (F.CONTRACT, F.TARGET) and f.seat == HUMAN:
            return ">> Enter your contract (%s) with UP/DOWN, OK" % self._word(self._contract_of(HUMAN))
        if ph == F.RESULT:
            return ">> OK (Enter): next hand"
        if ph == F.FINAL:
            return ">> OK (Enter): save the result"
        if st.current_player() == HUMAN:
            return ">> Your turn: " + ("pick a card" if st.phase == "play" else "choose")
        return "   " + self._whose()


def terminal_class():
    """The terminal simulator with the Speed Run panel beside the OLED."""
    from sim.table.person import table_terminal
    Base, curses = table_terminal()

    class SpeedRunTerminal(Base):
        def feed_key(self, ch, now_us):
            tb = self.tb
            if 0 <= ch < 256 and chr(ch) in CARD_KEYS:
                why = tb.pick(CARD_KEYS.index(chr(ch)))
                if why:
                    tb.note = why[:80]
                return
            if ch == ord("v"):
                why = tb.reveal()
                if why:
                    tb.note = why[:80]
                return
            Base.feed_key(self, ch, now_us)

    return SpeedRunTerminal, curses


def table(args):
    """The --play speedrun table for the command line's options (--length: the
    game's length, else the device's own)."""
    return SpeedRunPlay(args.seed, start_us=args.start_us, length=args.length,
                        pace=args.pace or DEFAULT_PACE, store=args.store)
