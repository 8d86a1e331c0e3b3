"""Playing the four games in turn never keeps more than one game's code in the heap:
a closed game's flow and engine modules are forgotten (64 KB heap)."""
import mpyrun

# The four games in turn need 70wK on this 64-bit port (68wK before the
# names' accented letters' drawing code came into ui and names.py).
HEAP = "70wK"


def test_each_game_unloads_when_it_closes(tmp_path):
    r = mpyrun.run(script=mpyrun.SUPPORT / "app_unload.py", args=(str(tmp_path),), heap=HEAP)
    heaps = [int(x) for x in r.stdout.splitlines()[0].split()]
    loaded = r.stdout.splitlines()[1].strip()
    assert loaded == "loaded", "flow modules still loaded after abandon: " + loaded
    extra = r.stdout.splitlines()[4]
    assert extra == "extra -", "a closed game left these loaded: " + extra  # the timers, the arbiter ...
    # The first round grows the heap once: strings interned while a module
    # loads (qstrs) are permanent in MicroPython.  Without unloading, the four
    # games' code (about 40 KB on this 64-bit port) would stay too, and the
    # second round would not fit 64wK.  After that, not a byte more.
    n = len(heaps) // 2
    first_round, second_round = heaps[:n], heaps[n:]
    assert max(first_round) - min(first_round) < 16 * 1024, heaps
    assert all(abs(h - first_round[-1]) <= 64 for h in second_round), heaps


def test_the_menu_leaves_the_heap_while_a_game_runs_and_comes_back_after(tmp_path):
    """The menu, the registry and the tunables (copied by the game's modules
    as they loaded) are not used while a game runs: their code leaves the
    heap to the game's, and the first event after the game closes shows the
    game list again."""
    r = mpyrun.run(script=mpyrun.SUPPORT / "app_unload.py", args=(str(tmp_path),), heap=HEAP)
    lines = r.stdout.splitlines()
    during = lines[2].split()[1:]
    after = lines[3].split()[1:]
    assert during and set(during) == {"0"}, lines[2]
    assert after and set(after) == {"Games"}, lines[3]


def test_a_screen_shown_after_close_in_the_same_event_stays(tmp_path):
    """close() brings the game list back once the event is over, unless the
    same event showed something else after it (a message)."""
    from app_rig import Rig
    rig = Rig(str(tmp_path))
    rig.app.start("speed", rig.t)
    rig.app.close()
    rig.app.message("a note")
    rig.wait(1000)
    assert rig.screen_name() == "Message"
    rig.app.start("speed", rig.t)
    rig.app.close()
    rig.wait(1000)
    assert rig.screen_name() == "Games"
