"""Players are people: the roster on the board's flash, the console's roster
and table commands, and the name picker before a game (docs/app.md, "Who is
playing"; docs/serial-protocol.md, "Roster commands"), driven through the
app by tests/mpy/roster_game.py on CPython and on the MicroPython Unix port.
Seat swaps are PT-8's, the first dealer PT-3's (seeds/partners.md)."""
import json

import pytest

import mpyrun
import mpyhelp
import roster_game
from speedref import names as N
from speedref.storage import Store

NAMES4 = ["Ann", "Dan", "P3", "Eve"]


def _msg(lines):
    assert len(lines) == 1 and lines[0]["ev"] == "error" and lines[0]["what"] == "roster", lines
    return lines[0]["msg"]


def check_report(r):
    assert r["empty"] == [{"ev": "roster", "names": [], "table": r["empty"][0]["table"], "max": 100}]
    assert r["empty"][0]["table"].startswith("Table ") and len(r["empty"][0]["table"]) == 14
    assert r["add"][0]["names"] == ["Ann", "Bob", "Cat", "Dan"]  # spaces around dropped
    assert r["table"][0]["table"] == "Table 3"
    bad = r["bad"]
    assert _msg(bad["empty"]) == "empty name"
    assert "11 characters, 10 at most" in _msg(bad["long"])
    assert "U+001B" in _msg(bad["escape"]) and "\x1b" not in _msg(bad["escape"])
    assert "U+00D7" in _msg(bad["sign"])  # a sign among Latin-1's letters: no name
    assert "unnamed seat" in _msg(bad["seat"]) and "unnamed seat" in _msg(bad["guest"])
    assert _msg(bad["notlist"]) == "names must be a list"
    assert _msg(bad["many"]) == "the roster holds 100 names at most"
    assert _msg(bad["remove"]) == "Zed is not on the roster"
    assert "17 characters, 16 at most" in _msg(bad["table"])
    # nothing a refused command carried was kept, nothing kept was lost
    assert r["after_bad"][0]["names"] == ["Ann", "Bob", "Cat", "Dan"]
    assert r["after_bad"][0]["table"] == "Table 3"
    assert r["push1"] == [{"ev": "roster_part", "part": 0, "count": 2}]
    assert "out of order" in _msg(r["push_bad"])
    # a case-only repeat is the same person: kept once
    assert r["push2"][0]["names"] == ["Ann", "Bob", "Cat", "Dan"]
    assert r["picker"] == "Who"
    assert r["seat0_items"] == ["Ann", "Bob", "Cat", "Dan", "Guest", "New name"]
    assert r["seat1_items"] == ["Bob", "Cat", "Dan", "Guest", "New name"]
    assert r["lights"] == [1, 2, 4, 8]  # the picking seat's pad lights
    assert r["dup_note"] == "Ann plays already" and r["dup_screen"] == "Who"
    assert r["names"] == NAMES4
    rec = r["record"]
    assert rec["players"] == NAMES4 and rec["table"] == "Table 3"
    assert r["stored"] == rec
    assert r["roster_after"][0]["names"] == ["Ann", "Bob", "Cat", "Dan", "Eve"]  # the walk-in joined
    assert r["same_screen"] == "Who" and r["same_lights"] == 0
    assert r["names_again"] == NAMES4
    assert "game is running" in _msg(r["in_game"])


def test_roster_picker_and_record_on_cpython_PT3_PT8(tmp_path):
    r = roster_game.report(str(tmp_path))
    check_report(r)
    # PT-8: the record's players are the people, by player, whatever pads they moved to
    from speedref.engine import partners
    plain = dict(r["record"])
    plain.pop("id")
    plain.pop("table")
    assert partners.replay(plain).to_record() == plain


@pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")
def test_roster_picker_and_record_under_micropython_PT3_PT8(tmp_path):
    mods = mpyhelp.app_modules("partners") + ["speedref/names.py", "speedref/roster.py",
                                                "speedref/app/who.py", "speedref/app/glyphs.py", "speedref/app/accents.py"]
    mpy = mpyhelp.compile_modules(tmp_path / "mpy", mods)
    (tmp_path / "s").mkdir()
    code = ("import json\nimport roster_game\nprint(json.dumps(roster_game.report(%r)))"
            % str(tmp_path / "s"))
    # The device's heap plus the driver's: roster_game and its report (two
    # games' log lines) are ~17 KB on this port, source compiled into the
    # heap, where the firmware's own code is .mpy (and frozen in a Pico's
    # flash); measured: 76wK runs out, 84wK does not.
    out = mpyrun.run(code=code, heap="%dwK" % (mpyrun.DEVICE_WK + 18), extra_path=[mpy])
    r = json.loads(out.stdout.strip().splitlines()[-1])
    check_report(r)
    cp = roster_game.report(str(tmp_path / "cp"))
    for k in ("record", "stored"):
        r[k].pop("id"), cp[k].pop("id")
    assert r["record"] == cp["record"]


# ---- the one check (names.py), as every entry point uses it ----------------

@pytest.mark.parametrize("name, why", [
    ("", "empty name"),
    ("   ", "empty name"),
    ("Abcdefghijk", "11 characters, 10 at most"),
    ("a\tb", "U+0009"),
    ("a\nb", "U+000A"),
    ("\x1b[2J", "U+001B"),
    ("\U0001F600", "U+1F600"),
    ("\u202eevil", "U+202E"),
    ("P1", "unnamed seat"),
    ("guest", "unnamed seat"),
])
def test_a_name_is_refused_with_its_reason(name, why):
    with pytest.raises(N.BadName) as e:
        N.clean(name)
    assert why in str(e.value)


def test_a_name_is_kept_as_typed_but_for_spaces_around_it():
    assert N.clean("  Ann Marie ") == "Ann Marie"
    assert N.clean("<b>Al</b>") == "<b>Al</b>"  # printable: shown as text, escaped by pages
    assert N.clean("P5") == "P5" and N.clean("Pete") == "Pete"
    assert N.clean_table("Table number 16.") == "Table number 16."


def test_one_game_names_each_person_once():
    assert N.check_game(["Ann", "Guest", "Bob"]) == ["Ann", "P2", "Bob"]
    assert N.check_game(["P1", "P2"]) == ["P1", "P2"]
    with pytest.raises(N.BadName, match="playing already"):
        N.check_game(["Ann", "ann"])
    with pytest.raises(N.BadName, match="2 names wanted"):
        N.for_game({"names": ["Ann"]}, 2)


def test_a_damaged_roster_falls_back_to_empty_and_says_so(tmp_path):
    s = Store(str(tmp_path))
    s.save_roster({"names": ["Ann"], "last": []})
    s.save_roster({"names": ["Ann", "Bob"], "last": []})
    (tmp_path / "roster.json").write_bytes(b"SRF1 00000000 0000000002\n{}")
    roster, problem = s.load_roster()
    assert roster["names"] == ["Ann"] and "damaged" in problem  # the backup
    (tmp_path / "roster.json.bak").write_bytes(b"garbage")
    (tmp_path / "roster.json").write_bytes(b"garbage")
    roster, problem = Store(str(tmp_path)).load_roster()
    assert roster == {"names": [], "last": []} and problem.endswith("roster empty")
    assert (tmp_path / "roster.json.bad").exists()  # kept for a person to look at
    s.save_roster({"names": ["A\x07"], "last": []})  # intact, but not a name
    roster, problem = s.load_roster()
    assert "bad name" in problem


@pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")
def test_a_named_trick_press_and_its_screen_allocate_nothing_PT13(tmp_path):
    """With named players (a 10-character name among them) a trick winner's
    press (PT-13), the trick screen's drawing and the release run inside
    heap_lock(): the grid's cut names were made when the game started.
    Tricks 2..8 (the engine's bytearray grows at the 1st and 9th)."""
    mpy = mpyhelp.compile_modules(tmp_path / "mpy", mpyhelp.app_modules("partners") + ["speedref/names.py"])
    (tmp_path / "s").mkdir()
    code = """
import gc, json, micropython
import app_partners_game as d
from app_rig import Rig
rig = Rig(%r)
rig.app.start("partners", rig.t, {"target": 100, "names": ["Bartholome", "Bob", "Guest", "Dan"]})
d.tap(rig, 0)
t = d.Table()
d.enter_contract(rig, t, 9, "hearts", 1, 2)
app = rig.app
seq = d.winners([2, 6, 4, 1])
app.press(t.pad(seq[0]), rig.t)
app.release(t.pad(seq[0]), rig.t + 50)
ok = []
for i in range(1, 8):
    gc.collect()
    micropython.heap_lock()
    try:
        app.press(t.pad(seq[i]), rig.t + 1000 * i)
        app.render()
        app.release(t.pad(seq[i]), rig.t + 1000 * i + 50)
        r = True
    except MemoryError:
        r = False
    micropython.heap_unlock()
    ok.append(r)
print(json.dumps({"ok": ok, "names": list(app.flow.names), "cut": list(app.flow.cut3)}))
""" % str(tmp_path / "s")
    r = mpyrun.run(code=code, heap=mpyrun.DEVICE_HEAP, extra_path=[mpy])
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got == {"ok": [True] * 7, "names": ["Bartholome", "Bob", "P3", "Dan"],
                   "cut": ["Bar", "Bob", "P3", "Dan"]}


def test_back_at_the_first_seat_returns_to_the_games_options(tmp_path):
    """The picker's first seat, BACK: the options it was started from, as
    they were set, on Start; OK there opens the picker again."""
    from app_rig import Rig
    from speedref.app.core import OK, BACK
    rig = Rig(str(tmp_path))
    roster_game.command(rig, roster_game.Console(), {"cmd": "roster", "add": ["Ann", "Bob"]})
    roster_game.tap(rig, OK)                        # boot screen -> game list
    roster_game.to_game(rig, "partners")            # its options, then Start
    assert type(rig.app.screen).__name__ == "Who"
    opts = dict(rig.app.settings["partners"])
    roster_game.tap(rig, BACK)
    scr = rig.app.screen
    assert type(scr).__name__ == "Options" and scr.game == "partners" and scr.cursor == 0
    assert scr.opts == opts
    roster_game.tap(rig, OK)                        # Start: the picker again
    assert type(rig.app.screen).__name__ == "Who" and rig.app.screen.seat == 0
