# One exception type for every broken rule, so callers catch one thing.


class RuleError(ValueError):
    """An action or record that breaks a numbered rule from seeds/.

    `rule` is the rule's number (e.g. "SR-14"); the message names it, so a
    person reading a log line knows which rule to look up.  Raising one never
    leaves a state half-changed: every check runs before any mutation.
    """

    def __init__(self, rule, msg):
        super().__init__(rule + ": " + msg)  # MicroPython has no ValueError.__init__
        self.rule = rule
        self.msg = msg
