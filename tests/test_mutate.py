"""tools/mutate.py's choice of what `make mutate` mutates and which
tests it runs (docs/testing.md, "Mutation testing"): nothing here runs
mutmut."""
import ast

from tools import mutate as M
from speedref import games


def test_every_game_s_flow_is_mutated_by_default_after_the_engine():
    assert M.DEFAULT_FILES[:len(M.ENGINE)] == M.ENGINE
    assert "firmware/speedref/arbiter.py" in M.ENGINE
    assert M.FLOWS == ["firmware/speedref/app/%s.py" % games.module(g.flow).split(".")[-1]
                       for g in games.GAMES]
    assert M.DEFAULT_FILES[len(M.ENGINE):] == M.FLOWS
    for f in M.FLOWS:
        assert (M.ROOT / f).is_file(), f


def test_a_flow_s_verdicts_are_its_marked_methods_by_mutmut_s_key():
    """Each flow marks some methods, each a real method of its flow class,
    and never a screen (a _draw_ method)."""
    for g in games.GAMES:
        f = "firmware/speedref/app/%s.py" % games.module(g.flow).split(".")[-1]
        cls = g.flow.partition(":")[2]
        keys = M.verdicts(f)
        assert keys, f
        tree = ast.parse((M.ROOT / f).read_text(encoding="utf-8"))
        methods = {n.name for c in tree.body if isinstance(c, ast.ClassDef) and c.name == cls
                   for n in c.body if isinstance(n, ast.FunctionDef)}
        for k in keys:
            sep, name = k.rsplit("\u01c1", 1)
            assert sep == "x\u01c1" + cls and name in methods, k
            assert not name.startswith("_draw"), k


def test_the_mark_is_read_from_the_def_line_only(tmp_path, monkeypatch):
    src = ("class A:\n"
           "    def judged(self, b):  # verdict\n"
           "        return b  # verdict in a body line marks nothing\n"
           "\n"
           "    def shown(self):\n"
           "        # verdict\n"
           "        pass\n"
           "\n"
           "    def long(self, a,\n"
           "             b):  # verdict\n"
           "        pass\n"
           "\n"
           "\n"
           "def free(x):  # verdict\n"
           "    return x\n")
    (tmp_path / "f.py").write_text(src, encoding="utf-8")
    monkeypatch.setattr(M, "ROOT", tmp_path)
    assert M.verdicts("f.py") == {"x\u01c1A\u01c1judged", "x\u01c1A\u01c1long", "x_free"}


def test_a_mutant_s_name_gives_its_function_s_key():
    assert M.key("speedref.app.speed_flow.x\u01c1SpeedFlow\u01c1_settle_slap__mutmut_12") == \
        "x\u01c1SpeedFlow\u01c1_settle_slap"
    assert M.key("speedref.app.spit_flow.x__apply__mutmut_3") == "x__apply"


def test_flows_run_the_app_tests_the_engine_its_own():
    flow = M.tests_for(M.FLOWS[:1])
    assert "tests/app/test_app_speed.py" in flow and "tests/test_conformance.py" in flow
    assert not [t for t in flow if t.endswith("_mpy.py")], "MicroPython tests only skip under mutate"
    assert "tests/engine/test_speed.py" not in flow
    engine = M.tests_for(["firmware/speedref/engine/speed.py"])
    assert "tests/engine/test_speed.py" in engine and "tests/app/test_app_speed.py" not in engine
    both = M.tests_for(M.DEFAULT_FILES)
    assert set(flow) | set(engine) <= set(both)
