"""The scripted person of the `speedref-sim --play` tests: one player at the
play terminal, pressing only the keys it offers a person, in simulated time.
Each game's test adds what that person does (act)."""


class ScriptedPerson:
    """Looks at the table every 50 ms of simulated time and acts (act())
    PAUSE_US after their last key: a person reads the screen before the next key."""

    PAUSE_US = 300000
    LOOK_US = 50000

    def __init__(self, tb, term, rng, mistakes=True):
        self.tb = tb          # the play table (sim.table.play_*)
        self.term = term      # its terminal: keys go in here
        self.rng = rng
        self.mistakes = mistakes
        self.next_t = 0       # no key before this
        self.keys = []        # every key pressed, in order
        self.refused = []     # the panel's reason for each refused key

    def key(self, ch):
        self.keys.append(ch)
        self.term.feed_key(ch if isinstance(ch, int) else ord(ch), self.tb.t)
        self.next_t = self.tb.t + self.PAUSE_US

    def tick(self):
        tb = self.tb
        self.term.release_due(tb.t)  # keys held for a time (a held pad) come up
        if not tb.done:
            tb.at(tb.t + self.LOOK_US, self.tick)
        if tb.t >= self.next_t:
            self.act()

    def act(self):
        raise NotImplementedError
