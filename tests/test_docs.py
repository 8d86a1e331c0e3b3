"""The docs tell the truth: every USB log line the firmware emits is documented in
docs/serial-protocol.md with its exact fields, every documented line is still emitted,
and the rule numbers agree: the registry's games (speedref/games.py) and seeds/, and
the rules seeds/ defines and the ones tests/ really check.

How docs/serial-protocol.md is read: each line type has a `### `ev`` heading; under it, every example line (a line in a code block starting with `{"ev":`) is a
real line captured from the running firmware, and the section's field table (rows
whose first cell is a `backticked` name) lists exactly the union of its examples'
keys.  A line the firmware prints must have the same keys as one example of its
`ev` (and `what` for errors, and `game` when the ev has per-game examples).
"""
import ast
import functools
import json
import re
import textwrap
from pathlib import Path

import pytest

from speedref.games import GAMES, IDS

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
PROTOCOL = ROOT / "docs" / "serial-protocol.md"
SEEDS = ROOT / "seeds"
TESTS = ROOT / "tests"



# ---- what the firmware emits, from its source (ast, not a regex) -----------------

def _const(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


class Emitted:
    """Every log line the firmware builds: for each ev, the constant keys of each
    place that builds it ({(ev, what): {file:line: keys}}), and the `what` values
    of error lines."""

    def __init__(self):
        self.sites = {}  # (ev, what or None) -> {"file:line": set(keys)}

    def add(self, ev, what, where, keys):
        self.sites.setdefault((ev, what), {})[where] = set(keys)

    @property
    def evs(self):
        return {ev for ev, _ in self.sites}

    @property
    def whats(self):
        return {w for ev, w in self.sites if ev == "error" and w is not None}


def scan_firmware():
    out = Emitted()
    for path in sorted(FIRMWARE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        rel = path.relative_to(ROOT)
        _scan_literals(tree, rel, out)
        for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            _scan_function(fn, rel, out)
    return out


def _scan_literals(tree, rel, out):
    # 1. dict literals with a constant "ev": {"ev": "x", "what": "y", ...}
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = [_const(k) for k in node.keys]
            if "ev" in keys:
                ev = _const(node.values[keys.index("ev")])
                assert ev is not None, "%s:%d: an ev that is not a literal" % (rel, node.lineno)
                what = _const(node.values[keys.index("what")]) if "what" in keys else None
                out.add(ev, what, "%s:%d" % (rel, node.lineno), [k for k in keys if k])
    # 3. Log.error(what, msg) / Log.exception(e, what="crash"): error lines by `what`
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "error" and node.args and _const(node.args[0]):
            out.add("error", _const(node.args[0]), "%s:%d" % (rel, node.lineno),
                    ["ev", "what", "msg"] + [kw.arg for kw in node.keywords if kw.arg])
        if isinstance(node, ast.FunctionDef) and node.name == "exception":
            for arg, default in zip(node.args.args[-len(node.args.defaults):], node.args.defaults):
                if arg.arg == "what" and _const(default):
                    out.add("error", _const(default), "%s:%d" % (rel, node.lineno),
                            ["ev", "what", "msg", "traceback"])


def _scan_function(fn, rel, out):
    # 2. d["ev"] = "x" on a dict built elsewhere (a verdict's to_dict()): the keys
    #    this function sets on the same name
    body = [n for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1]
    sets = {}
    for a in body:
        t = a.targets[0]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
            k = _const(t.slice)
            if k is not None:
                sets.setdefault(t.value.id, []).append((k, a))
    for items in sets.values():
        for k, a in items:
            if k == "ev":
                ev = _const(a.value)
                assert ev is not None, "%s:%d: an ev that is not a literal" % (rel, a.lineno)
                out.add(ev, None, "%s:%d" % (rel, a.lineno), [key for key, _ in items])


# ---- what the protocol document says ----------------------------------------------

class Section:
    def __init__(self, names, title):
        self.names = names      # the ev names in the heading
        self.title = title
        self.fields = []        # first cells of its table rows, in order
        self.examples = []      # parsed example lines


def read_protocol():
    sections = []
    cur = None
    in_code = False
    for line in PROTOCOL.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            if cur is not None and line.lstrip().startswith('{"ev"'):
                cur.examples.append(json.loads(line))
            continue
        if line.startswith("#"):
            cur = None
            if line.startswith("### "):
                names = re.findall(r"`([a-z_]+)`", line.split("(")[0])
                if names:
                    cur = Section(names, line[4:])
                    sections.append(cur)
            continue
        if cur is not None and line.startswith("| `"):
            cur.fields.append(re.match(r"\| `([a-z_]+)`", line).group(1))
    return sections


@pytest.fixture(scope="module")
def doc():
    return read_protocol()


@pytest.fixture(scope="module")
def emitted():
    return scan_firmware()


def documented_evs(doc):
    return {n for s in doc for n in s.names}


def examples(doc):
    return [e for s in doc for e in s.examples]


def test_the_source_scan_finds_what_the_flows_emit(emitted):
    # The scan itself: lines built as literals, as d["ev"] = ... on a verdict's
    # dict (Speed and Spit slap lines), and error lines by their `what`.
    assert {"deal", "hand", "round", "slap", "false_start", "reveal", "contract", "undo",
            "abandon", "game_end", "boot", "stored", "dump_end", "error"} <= emitted.evs
    slap = emitted.sites[("slap", None)]
    assert any({"ev", "game", "kind", "round", "cleared", "takes_smaller"} <= k
               for k in slap.values())
    assert {"crash", "crash_loop", "command", "overflow", "stuck", "app", "log"} <= emitted.whats


def test_every_emitted_line_type_is_documented(doc, emitted):
    missing = sorted(emitted.evs - documented_evs(doc))
    assert not missing, "emitted but not in docs/serial-protocol.md: %s (%s)" % (
        missing, [sorted(emitted.sites[k]) for k in emitted.sites if k[0] in missing])


def test_every_documented_line_type_is_still_emitted(doc, emitted):
    stale = sorted(documented_evs(doc) - emitted.evs)
    assert not stale, "documented but emitted nowhere under firmware/: %s" % stale


def test_every_error_what_is_documented_and_still_emitted(doc, emitted):
    documented = {e["what"] for e in examples(doc) if e["ev"] == "error"}
    assert emitted.whats == documented


def test_each_section_has_examples_and_its_table_lists_exactly_their_fields(doc):
    for s in doc:
        assert s.examples, "%s: no example line" % s.title
        for e in s.examples:
            assert e["ev"] in s.names, "%s: example of %s" % (s.title, e["ev"])
        keys = set().union(*[set(e) for e in s.examples])
        assert set(s.fields) == keys, "%s: table %s, examples %s" % (
            s.title, sorted(s.fields), sorted(keys))
        assert len(s.fields) == len(set(s.fields)), "%s: a field twice" % s.title


def _candidates(doc, line):
    """The documented examples a real line must match one of: same ev, same
    `what` (errors), same `game` when this ev is documented per game."""
    c = [e for e in examples(doc) if e["ev"] == line["ev"] and e.get("what") == line.get("what")]
    same_game = [e for e in c if e.get("game") == line.get("game")]
    return same_game or c


def test_every_key_a_source_line_sets_is_documented(doc, emitted):
    # Static: the constant keys each place in the source puts on a line.
    for (ev, what), sites in emitted.sites.items():
        for where, keys in sites.items():
            c = [e for e in examples(doc) if e["ev"] == ev and (what is None or e.get("what") == what)]
            documented = set().union(*[set(e) for e in c]) if c else set()
            assert keys <= documented, "%s: %s line keys %s not documented" % (
                where, ev, sorted(keys - documented))


# ---- the real lines: the firmware's own device loop on the simulator's board ------

def _board(tmp):
    from sim.board import Board
    b = Board(root=tmp)
    b.step()
    return b


def _play(board, text, until=None, t0=0):
    """Feed a sim script's events; stop after the first line for which
    until(obj) is true.  Returns the time of the last event."""
    from sim import script
    t = t0
    for t_us, button, down, _ in script.parse(text):
        t = t0 + t_us
        board.event(t, button, down)
        if until is not None and any(until(json.loads(l)) for l in board.lines):
            if down:  # let go of the button that made the line
                t += 40000
                board.event(t, button, False)
            return t
    board.run_until(t + 2000000)
    return t + 2000000


def _press(board, t, *buttons):
    for b in buttons:
        board.event(t, b, True)
        board.event(t + 40000, b, False)
        t += 100000
    return t


BACK, UP, DOWN, OK = 7, 4, 5, 6


def _capture(tmp_path):
    lines = []
    # The four complete games the simulator's scripts play (tests/sim_scripts).
    for game in IDS:
        b = _board(tmp_path / game)
        b.start_game(game)
        _play(b, (TESTS / "sim_scripts" / (game + ".txt")).read_text(encoding="utf-8"))
        if game == "speed":  # the stored records over USB, and bad commands
            b.command({"cmd": "roster", "add": ["Ann", "Bob"]})
            b.command({"cmd": "roster", "push": ["Ann", "Bob"], "part": 0, "end": False})
            b.command({"cmd": "table", "name": "Table 3"})
            b.command({"cmd": "roster", "add": ["Ann\x1b[31m"]})
            b.command({"cmd": "dump"})
            b.command("hello")
            b.command({"cmd": "format"})
            # the table's match: in two parts, again, shown, refused, cleared
            m = {"id": "e3r2", "evening": 3, "round": 2, "table": "Table 3", "game": "speed",
                 "opts": {"match": "best_of"}, "names": ["Ann", "Bob"]}
            b.command({"cmd": "match", "match": {"id": "e3r2", "evening": 3, "round": 2}, "part": 0, "end": False})
            b.command({"cmd": "match", "match": {"table": "Table 3", "game": "speed", "opts": {"match": "best_of"},
                                                 "names": ["Ann", "Bob"]}, "part": 1, "end": True})
            b.command({"cmd": "match", "match": m})
            b.command({"cmd": "match"})
            b.command({"cmd": "match", "match": dict(m, names=["Ann"])})
            b.command({"cmd": "match", "clear": True})
        lines += b.lines
        b.close()
    # Partners: undo a finished hand from the pause menu, then abandon the game.
    b = _board(tmp_path / "undo")
    b.start_game("partners")
    t = _play(b, (TESTS / "sim_scripts" / "partners.txt").read_text(encoding="utf-8"),
              until=lambda o: o.get("ev") == "hand")
    t = _press(b, t + 100000, BACK, DOWN, OK)          # Undo last
    t = _press(b, t + 100000, BACK, UP, OK, OK)        # Abandon game, asked twice
    # Speed with slap to win (SP-17): P1 slaps 7.3 ms before P2.
    from speedref.app import menu
    opts = dict(menu.merge_settings({})["speed"], slap_to_win=True)
    b.app.start("speed", b.now(), opts)
    t = _press(b, t + 100000, OK, 0, 1)                # laid out, both ready: 3-2-1, GO
    t += 3500000
    b.event(t, 0, True)
    b.event(t + 7300, 1, True)
    b.event(t + 60000, 0, False)
    b.event(t + 62000, 1, False)
    b.run_until(t + 1000000)
    # A button held for a minute, and a ring overflow (snapshots faster than the loop).
    t += 1000000
    b.set_button(UP, True)
    b.run_until(t + 61000000, loop_us=100000)
    b.set_button(UP, False)
    t += 62000000
    for i in range(100):  # 20 ms apart (past the debounce), no loop pass between
        b.clock.advance_to(t + 20000 * i)
        b.set_button(DOWN, i % 2 == 0)
    b.step()
    # A game that cannot start: options without its target (a KeyError).
    b.app.start("partners", b.now(), {})
    b.step()
    lines += b.lines
    b.close()
    # "Check wiring": P3 closed from the start, P1 pressed with 2 ms of chatter, then BACK.
    b = _board(tmp_path / "wiring")
    b.event(100000, 2, True)
    t = _press(b, 200000, OK, UP, OK)
    for i, dt in enumerate((0, 500, 1000, 1500, 2000)):
        b.event(t + 100000 + dt, 0, i % 2 == 0)
    b.event(t + 400000, 0, False)
    _press(b, t + 600000, BACK)
    lines += b.lines
    b.close()
    # A crash, as main.py logs it.
    from speedref.log import Log
    crash = []
    try:
        raise OSError(5)
    except OSError as e:
        Log(write=crash.append).exception(e)
        Log(write=crash.append).emit({"msg": "a line without its ev"})  # a firmware bug
    lines += [l.rstrip("\n") for l in crash]
    return [json.loads(l) for l in lines]


@pytest.fixture(scope="module")
def real_lines(tmp_path_factory):
    return _capture(tmp_path_factory.mktemp("docs"))


def test_the_capture_covers_the_line_types(real_lines):
    seen = {(o["ev"], o.get("game") or o.get("what") or o.get("kind")) for o in real_lines}
    for want in [("deal", "speed"), ("round", "spit"), ("hand", "speedrun"), ("hand", "partners"),
                 ("slap", "speed"), ("slap", "spit"), ("false_start", "speed"),
                 ("false_start", "spit"), ("reveal", "speedrun"), ("contract", "partners"),
                 ("undo", "partners"), ("abandon", "partners"), ("game_end", None),
                 ("stored", None), ("dump_end", None), ("error", "command"), ("error", "stuck"),
                 ("error", "overflow"), ("error", "app"), ("error", "crash"), ("error", "log"),
                 ("roster", None), ("roster_part", None), ("error", "roster"),
                 ("match", None), ("match_part", None), ("error", "match"),
                 ("wiring", None)]:
        assert any(s[0] == want[0] and (want[1] is None or want[1] in s) for s in seen), want


def test_every_real_line_has_exactly_the_documented_fields(doc, real_lines):
    for line in real_lines:
        c = _candidates(doc, line)
        assert c, "undocumented line: %s" % line
        assert any(set(e) == set(line) for e in c), "%s: keys %s, documented %s" % (
            line["ev"], sorted(line), [sorted(e) for e in c])


def test_the_boot_line_is_documented(doc, tmp_path):
    # The boot line comes from speedref/wiring.build, which needs the fake `machine`
    # under the real MicroPython port (tests/mpy/boards_boot.py).
    import mpyrun
    r = mpyrun.run(script=mpyrun.SUPPORT / "boards_boot.py", args=("pico", str(tmp_path)),
                   use_mpy=False, heap="1024wK")  # source, not .mpy: compiling needs the room
    boot = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    boot = next(o for o in boot if o["ev"] == "boot")
    assert any(set(e) == set(boot) for e in _candidates(doc, boot)), boot


# ---- rule numbers: the registry <-> seeds/ <-> tests/ -----------------------------

def prefixes(games=GAMES):
    """The rule prefixes of the registered games, longest first (SPIT before SP)."""
    return sorted((g.prefix for g in games), key=lambda p: (-len(p), p))


def rule_pattern(prefixes):
    """A rule id ("SR-17") inside a string."""
    return re.compile(r"\b((?:%s)-\d+)\b" % "|".join(prefixes))


def token_pattern(prefixes):
    """A test name token ("sr17" in test_sr17_completed, "SPIT4" in ..._SPIT4_...)."""
    return re.compile(r"(%s)(\d+)" % "|".join(p.lower() for p in prefixes))


def seeds_files(games=GAMES, seeds=SEEDS):
    """{game id: its seeds file}, from the registry.  A registered game without
    its seeds file, or a seeds file that no game registers, fails."""
    registered = {g.rules + ".md": g for g in games}
    present = {f.name for f in seeds.glob("*.md")}
    assert not present - set(registered), "seeds files no game in speedref/games.py registers: %s" % (
        sorted(present - set(registered)))
    assert not set(registered) - present, "registered games without their seeds file: %s" % (
        sorted("%s -> seeds/%s" % (registered[n].id, n) for n in set(registered) - present))
    return {g.id: seeds / (g.rules + ".md") for g in games}


def defined_rules(games=GAMES, seeds=SEEDS):
    """{rule: file} for every rule that a registered game's seeds file defines (a
    bold "**SR-5 Title.**"), each file only rules with its own game's prefix."""
    out = {}
    files = seeds_files(games, seeds)
    for g in games:
        f = files[g.id]
        for m in re.finditer(r"\*\*([A-Z]+)-(\d+)\b", f.read_text(encoding="utf-8")):
            rule = "%s-%s" % (m.group(1), m.group(2))
            assert m.group(1) == g.prefix, "seeds/%s defines %s; %s's rules are %s-n" % (
                f.name, rule, g.id, g.prefix)
            assert rule not in out, "seeds/%s defines %s twice" % (f.name, rule)
            out[rule] = f.name
    return out


class Citations:
    """The rule ids one test source really checks, from its syntax tree (so never
    from a comment or a docstring):

    - a string in an `assert` statement, its test or its message;
    - a string in `pytest.raises(..., match=...)`;
    - a string in a `rule=` keyword argument;
    - a string passed to a parameter named `rule` of a function of the same file
      that checks that parameter (a RuleError helper: raises("SP-1", fn, ...));
    - a `pytest.mark.parametrize` value for an argument named `rule` of a test
      that checks it;
    - a test function's or class's name token: test_sr17_..., ..._SPIT4_SPIT8.

    A function checks its `rule` parameter when the name `rule` appears in its
    body in one of the first four places (an assert, a match, a rule= argument,
    a checking helper's `rule`)."""

    def __init__(self, source, prefixes, filename="<test>"):
        self.rule = rule_pattern(prefixes)
        self.token = token_pattern(prefixes)
        self.tree = ast.parse(source, filename)
        self.functions = {}  # name -> [FunctionDef]: every function of the file
        for n in ast.walk(self.tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(n.name, []).append(n)
        self.helpers = {}    # name -> (position of `rule`, is a method): the checking ones
        changed = True
        while changed:       # a helper may check `rule` by handing it to another helper
            changed = False
            for name, defs in self.functions.items():
                if name not in self.helpers:
                    for fn in defs:
                        if self._checks_rule(fn):
                            self.helpers[name] = (_rule_param(fn), _is_method(fn))
                            changed = True

    def rules(self):
        found = set()
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for tok in node.name.lower().split("_"):
                    m = self.token.fullmatch(tok)
                    if m:
                        found.add("%s-%s" % (m.group(1).upper(), m.group(2)))
                if not isinstance(node, ast.ClassDef) and self._checks_rule(node):
                    for values in self._parametrized_rules(node):
                        found |= self._ids(values)
        for checked in self._checked(self.tree):
            found |= self._ids(checked)
        return found

    def _ids(self, node):
        out = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Constant) and isinstance(n.value, str):
                out.update(self.rule.findall(n.value))
        return out

    def _checked(self, tree):
        """The expressions under `tree` that a test checks (see the class)."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert):
                yield node
            elif isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "rule" or (kw.arg == "match" and _is_pytest_raises(node.func)):
                        yield kw.value
                i = self._rule_arg(node.func)
                if i is not None and i < len(node.args) and not any(
                        isinstance(a, ast.Starred) for a in node.args[:i + 1]):
                    yield node.args[i]

    def _rule_arg(self, func):
        """Where a call of `func` passes a checking helper's `rule` positionally."""
        if isinstance(func, ast.Name) and func.id in self.helpers:
            i, method = self.helpers[func.id]
            return None if method else i
        if isinstance(func, ast.Attribute) and func.attr in self.helpers:
            i, method = self.helpers[func.attr]  # self.raises("SP-1", ...)
            return i - 1 if method else None
        return None

    def _checks_rule(self, fn):
        if _rule_param(fn) is None:
            return False
        for body in fn.body:
            for checked in self._checked(body):
                if any(isinstance(n, ast.Name) and n.id == "rule" for n in ast.walk(checked)):
                    return True
        return False

    def _parametrized_rules(self, fn):
        """The values a parametrize decorator gives `rule`."""
        for d in fn.decorator_list:
            if not (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute)
                    and d.func.attr == "parametrize" and len(d.args) >= 2):
                continue
            names = d.args[0]
            if isinstance(names, ast.Constant) and isinstance(names.value, str):
                names = [s.strip() for s in names.value.split(",")]
            elif isinstance(names, (ast.List, ast.Tuple)):
                names = [_const(e) for e in names.elts]
            else:
                continue
            if "rule" not in names or not isinstance(d.args[1], (ast.List, ast.Tuple)):
                continue
            i = names.index("rule")
            for case in d.args[1].elts:
                if isinstance(case, ast.Call) and getattr(case.func, "attr", None) == "param":
                    case = ast.Tuple(elts=case.args) if len(names) > 1 else case.args[0]
                if len(names) == 1:
                    yield case
                elif isinstance(case, (ast.List, ast.Tuple)) and len(case.elts) == len(names):
                    yield case.elts[i]


def _rule_param(fn):
    """The position of fn's parameter `rule`, or None."""
    names = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    return names.index("rule") if "rule" in names else None


def _is_method(fn):
    args = fn.args.posonlyargs + fn.args.args
    return bool(args) and args[0].arg in ("self", "cls")


def _is_pytest_raises(func):
    return (isinstance(func, ast.Attribute) and func.attr == "raises"
            and isinstance(func.value, ast.Name) and func.value.id == "pytest")


def cited_rules(games=GAMES, tests=TESTS):
    """{rule: set(test files)}: the rules each test file checks (Citations)."""
    pre = prefixes(games)
    out = {}
    for f in sorted(tests.rglob("*.py")):
        if f.name == "test_docs.py":
            continue  # this file names no rules of its own
        for r in Citations(f.read_text(encoding="utf-8"), pre, str(f)).rules():
            out.setdefault(r, set()).add(str(f.relative_to(tests.parent)))
    return out


def test_seeds_define_rules_for_every_game():
    rules = defined_rules()
    for g in GAMES:
        n = sum(r.split("-")[0] == g.prefix for r in rules)
        assert g.prefix + "-1" in rules and n >= 10, "seeds/%s.md: %d %s- rules" % (g.rules, n, g.prefix)


@functools.lru_cache(maxsize=None)
def every_citation():
    """cited_rules() over the whole suite, parsed once for the tests below."""
    return cited_rules()


def test_every_seed_rule_is_cited_by_a_test():
    uncited = sorted(set(defined_rules()) - set(every_citation()), key=_rule_key)
    assert not uncited, ("rules no test checks (in an assert, a pytest.raises match, a rule= "
                         "argument or a test name token; comments and docstrings do not count): %s"
                         % uncited)


def test_every_rule_a_test_cites_exists_in_seeds():
    rules = defined_rules()
    unknown = {r: sorted(f) for r, f in every_citation().items() if r not in rules}
    assert not unknown, "cited but not defined in seeds/: %s" % unknown


# ---- the rule check itself ---------------------------------------------------------

def _game(id, prefix, rules):
    from speedref.games import Game
    return Game(id, id.title(), (2, 2), prefix, rules, "deal", "m", "m", "m:C", "m:C", (), {}, None, None, None)


def _cited(source, pre=("SPIT", "SP", "SR", "PT")):
    return Citations(textwrap.dedent(source), list(pre)).rules()


def test_the_check_counts_only_rule_ids_a_test_checks():
    assert _cited('''
        # SP-1 only in a comment
        def test_something():
            """SP-2 only in a docstring."""
            note = "SP-3 in a string that nothing checks"
            x = 1  # SP-4
            assert x == 1
        ''') == set()
    assert _cited('''
        def test_something(e):
            assert e.rule == "SP-1"
            assert e.ok, "SP-2: the message"
            assert e.ok, "%s and SPIT-3" % e
        ''') == {"SP-1", "SP-2", "SPIT-3"}
    assert _cited('''
        def test_something():
            with pytest.raises(RuleError, match="SR-4"):
                f()
            with pytest.raises(RuleError):  # PT-5 here is a comment
                f()
            check(f, rule="PT-6")
        ''') == {"SR-4", "PT-6"}


def test_the_check_keeps_the_test_name_tokens():
    assert _cited('''
        def test_sr17_completed():
            pass
        def test_slaps_SPIT4_SPIT8():
            pass
        class Test_PT3_dealer:
            pass
        def test_spr5_is_no_rule():
            pass
        ''') == {"SR-17", "SPIT-4", "SPIT-8", "PT-3"}


def test_the_check_follows_a_rule_through_a_helper_or_a_parametrize_only_if_it_is_checked():
    source = '''
        def raises(rule, fn, *a):
            with pytest.raises(RuleError) as e:
                fn(*a)
            assert e.value.rule == rule

        def expect(rule, fn):
            raises(rule, fn)          # checked through another helper

        def make(rule, n):
            return {"rule": rule}     # not a check

        def test_helpers():
            raises("SP-1", f, 2)
            expect("SP-2", f)
            make("SP-3", 2)

        @pytest.mark.parametrize("n,rule", [(1, "SR-4"), pytest.param(2, "SR-5", id="x")])
        def test_checked(n, rule):
            assert bad(n).rule == rule

        @pytest.mark.parametrize("rule", ["SR-6"])
        def test_unchecked(rule):
            print(rule)
        '''
    assert _cited(source) == {"SP-1", "SP-2", "SR-4", "SR-5"}


def test_the_rule_prefixes_and_seeds_files_come_from_the_registry(tmp_path):
    # A new game's rules are found (and must be cited) without editing this file.
    zed = _game("zed", "ZZ", "zed")
    (tmp_path / "zed.md").write_text("- **ZZ-1 One.** ...\n- **ZZ-2 Two.** ...\n", encoding="utf-8")
    assert prefixes(GAMES + (zed,))[0] == "SPIT"
    assert defined_rules((zed,), tmp_path) == {"ZZ-1": "zed.md", "ZZ-2": "zed.md"}
    assert _cited('assert e.rule == "ZZ-2"\ndef test_zz1_x(): pass\n', ["ZZ"]) == {"ZZ-1", "ZZ-2"}
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_zed.py").write_text('def test_a():\n    assert f() == "ZZ-1"  # ZZ-2\n')
    assert cited_rules((zed,), tests) == {"ZZ-1": {"tests/test_zed.py"}}
    # a seeds file that no game registers, and a game without its seeds file
    (tmp_path / "chess.md").write_text("- **CH-1 Board.**\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="chess.md"):
        seeds_files((zed,), tmp_path)
    with pytest.raises(AssertionError, match="zed.md"):
        seeds_files((zed, _game("chess", "CH", "chess"), _game("go", "GO", "go")), tmp_path)
    # a file defining another game's rules
    (tmp_path / "chess.md").write_text("- **ZZ-3 Three.**\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="chess.md defines ZZ-3"):
        defined_rules((zed, _game("chess", "CH", "chess")), tmp_path)


def _rule_key(r):
    p, n = r.split("-")
    return p, int(n)


# ---- links and commands in README.md and docs/ ---------------------------------------
DOC_PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md"] + sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```")


def _links(page):
    return LINK.findall(page.read_text(encoding="utf-8"))


def test_readme_is_short_and_every_doc_page_is_reachable_from_it():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150, "README.md: %d lines" % len(text.splitlines())
    linked = {Path(l.split("#")[0]).as_posix() for l in _links(ROOT / "README.md")}
    missing = [p.relative_to(ROOT).as_posix() for p in DOC_PAGES[1:] if p.relative_to(ROOT).as_posix() not in linked]
    assert not missing, "doc pages the README does not link: %s" % missing


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_resolves(page):
    bad = []
    for target in _links(page):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or a heading on the same page
        path = target.split("#")[0]
        if not (page.parent / path).exists():
            bad.append(target)
    assert not bad, "%s links to what is not there: %s" % (page.name, bad)


def quoted_commands():
    """(page, tool or make target, line) for every command a page quotes in a
    code block: `.venv/bin/speedref-...`, `speedref-...` and `make TARGET`
    lines (fenced, or indented four spaces)."""
    out = []
    for page in DOC_PAGES:
        fenced = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if FENCE.match(line.strip()):
                fenced = not fenced
                continue
            if not fenced and not line.startswith("    "):
                continue
            words = line.split()
            if not words:
                continue
            first = words[0]
            if first.startswith(".venv/bin/"):
                first = first[len(".venv/bin/"):]
            if first.startswith("speedref-"):
                out.append((page.name, first, line.strip()))
            elif first == "make" and len(words) > 1 and not words[1].startswith("-") and "=" not in words[1]:
                out.append((page.name, "make " + words[1], line.strip()))
    return out


def test_the_command_scan_finds_the_readmes_commands():
    found = {tool for page, tool, _ in quoted_commands() if page == "README.md"}
    assert {"make sim", "make test", "make flash", "speedref-sim", "speedref-log", "speedref-results",
            "speedref-score"} <= found, found


def test_every_quoted_make_target_exists():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", makefile, re.M))
    bad = sorted({(p, t) for p, t, _ in quoted_commands() if t.startswith("make ") and t[5:] not in targets})
    assert not bad, bad


def test_every_quoted_tool_is_installed_and_its_help_runs():
    import subprocess
    import sys
    tools = sorted({t for _, t, _ in quoted_commands() if t.startswith("speedref-")})
    scripts = Path(sys.executable).parent
    bad = []
    for tool in tools:
        exe = scripts / tool
        if not exe.exists():
            bad.append((tool, "not installed (pyproject.toml's [project.scripts])"))
            continue
        r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT)
        if r.returncode != 0 or "usage" not in r.stdout.lower():
            bad.append((tool, r.returncode, r.stderr[-300:]))
    assert not bad, bad


def test_every_centre_pile_key_of_play_speed_is_in_the_key_tables():
    """Speed with 3 or 4 players has a centre pile a player (SP-29): each
    pile's key is in docs/simulator.md's --play speed table (the README
    sends every mode's keys there)."""
    from sim.table.speed_person import PILE_KEYS
    sim_doc = (ROOT / "docs" / "simulator.md").read_text(encoding="utf-8")
    row = [line for line in sim_doc.splitlines() if line.startswith("| `a s d f g h l` |")][0]
    for k in PILE_KEYS:
        assert "`%s`" % k in row, (k, row)


def test_the_firmware_sizes_in_the_figures_are_what_the_commands_print(tmp_path):
    """"N bytes of .mpy in F files" is what `make mpy` prints (host_tools.board.build),
    and the Pico's and the ESP32's installs what `speedref-flash --dry-run`
    prints for each board: a figure that drifts fails here."""
    import subprocess
    import sys
    text = " ".join((ROOT / "docs" / "figures.md").read_text(encoding="utf-8").split())
    m = re.search(r"([\d,]+) bytes of `\.mpy` in (\d+) files; speedref-flash installs ([\d,]+) of them in "
                  r"(\d+) files on a Pico and ([\d,]+) on an ESP32", text)
    assert m, "docs/figures.md's firmware size sentence"
    want = [int(g.replace(",", "")) for g in m.groups()]
    out = subprocess.run([sys.executable, "-m", "host_tools.board.build", "--out", str(tmp_path / "mpy")], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    built = re.search(r"compiled (\d+) firmware files to .* \((\d+) bytes\)", out)
    flash = Path(sys.executable).parent / "speedref-flash"
    boards = []
    for board in ("pico", "esp32"):
        out = subprocess.run([str(flash), "--dry-run", "--board", board, "--build", str(tmp_path / board)],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
        boards.append(re.search(r"# files for the board \((\d+), (\d+) bytes\)", out).groups())
    assert boards[0][0] == boards[1][0]
    got = [int(built.group(2)), int(built.group(1)), int(boards[0][1]), int(boards[0][0]), int(boards[1][1])]
    assert got == want, "docs/figures.md says %s, the commands print %s" % (want, got)
