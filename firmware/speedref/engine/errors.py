# One exception type for every broken rule, so callers catch one thing; and
# the checks of JSON values that every game's rules make (one way each).


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


def is_int(x):
    # A JSON integer: not a bool (true/false), not a float.  type() is exact on
    # both runtimes: `type(True) is int` is False on CPython and MicroPython
    # (and MicroPython's isinstance(True, int) is False, CPython's True).
    return type(x) is int


def is_names(x, n):
    # n player names: a list (or tuple) of n strings.
    if not isinstance(x, (list, tuple)) or len(x) != n:
        return False
    for s in x:
        if not isinstance(s, str):
            return False
    return True
