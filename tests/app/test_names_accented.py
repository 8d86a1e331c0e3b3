"""Names as people write them: the accented Latin letters of a European
club (Latin-1's letters, Latin Extended-A's) on the board's roster, in the
picker and its letter wheel, on the OLED, in the record and its JSON lines,
and in the results, on CPython and on the MicroPython Unix port alike
(tests/mpy/names_game.py drives the app; docs/app.md, "Who is playing";
docs/serial-protocol.md, "Roster commands").  SP-19: a single deal is the
match."""
import json
import unicodedata

import pytest

import mpyhelp
import mpyrun
import names_game
from speedref import names as N

LATIN = [chr(c) for c in range(0xC0, 0x180) if c not in (0xD7, 0xF7)]


# ---- the one check (names.py) -------------------------------------------------

def test_every_latin_letter_is_a_name_and_counts_as_one_character():
    for ch in LATIN:
        assert N.clean("A" + ch) == "A" + ch
    assert N.clean("\u017b\u00f3\u0142\u0107\u0119\u015b\u0105\u017a\u0144\u0142") == (
        "\u017b\u00f3\u0142\u0107\u0119\u015b\u0105\u017a\u0144\u0142")  # 10 letters, 20 bytes
    assert N.clean_table("T\u00e1bla \u00c1rv\u00edzt\u0171r\u01516")  # 16 letters: one OLED row


@pytest.mark.parametrize("name, why", [
    ("\u017b\u00f3\u0142\u0107\u0119\u015b\u0105\u017a\u0144\u0142x", "11 characters, 10 at most"),
    ("Ann\u00d7", "U+00D7"),
    ("Ann\u00f7", "U+00F7"),
    ("\u0301Ann", "U+0301"),  # a combining accent with nothing to compose with
    ("\u0416\u0435\u043d\u044f", "U+0416"),
    ("Ann\u0180", "U+0180"),
    ("\u00a1Ann", "U+00A1"),
])
def test_what_the_board_cannot_draw_is_refused_with_its_reason(name, why):
    with pytest.raises(N.BadName) as e:
        N.clean(name)
    assert why in str(e.value)


def test_a_decomposed_name_from_a_laptop_is_composed_first():
    """A file may spell "Jos\u00e9" as "Jose" and a combining acute (NFD):
    on the laptop the name is made NFC before it is checked or sent, so
    it is the same name as the one typed with the letter itself."""
    nfd = unicodedata.normalize("NFD", "Jos\u00e9 Zo\u00eb")
    assert len(nfd) == 10 and N.clean(nfd) == "Jos\u00e9 Zo\u00eb"


def test_case_of_an_accented_letter_does_not_make_another_person():
    assert N.same("ZO\u00cb", "zo\u00eb") and N.find(["Zo\u00eb"], "ZO\u00cb") == 0
    with pytest.raises(N.BadName, match="playing already"):
        N.check_game(["\u0141ukasz", "\u0142UKASZ"])
    # the fold is the small letter, as the results' casefold has it
    for ch in LATIN:
        if ch not in "\u0130\u00df\u0149\u017f":  # casefold makes two letters (or s) of these
            assert N.fold(ch) == ch.casefold(), ch
    assert N.fold("\u0130") == "i"


@pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")
def test_the_board_folds_and_checks_like_the_laptop(tmp_path):
    """MicroPython's str.lower() knows ASCII only: names.fold does the
    accented capitals itself, so the board's picker and roster find the
    same person the laptop does; and the same letters are names."""
    mpy = mpyhelp.compile_modules(tmp_path / "mpy", ["speedref/names.py"])
    code = ("import json\nfrom speedref import names as N\n"
            "print(json.dumps([[N.fold(chr(c)), N.shown(c)] for c in range(0x20, 0x200)]))")
    r = mpyrun.run(code=code, extra_path=[mpy])
    got = json.loads(r.stdout.strip().split("\n")[-1])  # (U+0085 would end a line for splitlines)
    assert got == [[N.fold(chr(c)), N.shown(c)] for c in range(0x20, 0x200)]


# ---- the app: roster, picker, wheel, game, record, lines ------------------------

def check_report(r, board):
    roster = names_game.ROSTER
    assert r["add"][0]["names"] == roster
    assert r["again"][0]["names"] == roster, "a name in another case is the same person"
    assert "11 characters, 10 at most" in r["long"][0]["msg"]
    assert "U+00F7" in r["sign"][0]["msg"]
    if board:  # no unicodedata: the combining accent is refused, nothing changed
        assert "U+0301" in r["decomposed"][0]["msg"]
    else:  # composed first: Jose\u0301 is Jos\u00e9, on the roster already
        assert r["decomposed"][0]["names"] == roster
    assert r["table"][0]["table"] == "T\u00e1bla \u00c1rv\u00edzt\u0171r\u0151"
    assert r["items"] == roster + ["Guest", "New name"]
    assert r["names"] == ["Zo\u00eb", names_game.WALK_IN]
    rec = r["record"]
    assert rec["players"] == ["Zo\u00eb", "\u0141ukasz"] and rec["table"] == "T\u00e1bla \u00c1rv\u00edzt\u0171r\u0151"
    assert rec["deals"] == [{"winner": 1, "left": 7}]
    assert r["roster_after"][0]["names"] == roster + ["\u0141ukasz"], "the walk-in joined"
    # the lines as written: the board writes the letters as UTF-8, CPython
    # (the simulator) as \u escapes; the same JSON either way
    raw = r["raw_end"]
    if board:
        assert "\u0141ukasz" in raw and "\\u" not in raw
    else:
        assert raw.isascii() and "\\u0141ukasz" in raw
    assert json.loads(raw)["record"] == rec


def _final_text(frame, s):
    from test_sim_screen_text import find
    return find(bytes.fromhex(frame), s)


def test_accented_names_through_the_app_on_cpython_SP19(tmp_path):
    r = names_game.report(str(tmp_path))
    check_report(r, board=False)
    assert _final_text(r["final"], "\u0141ukasz wins") is not None, "the end screen names the winner"


@pytest.mark.skipif(not mpyrun.MICROPYTHON.exists(), reason="no micropython binary")
def test_accented_names_through_the_app_under_micropython_SP19(tmp_path):
    mods = mpyhelp.app_modules("speed") + ["speedref/names.py", "speedref/roster.py",
                                            "speedref/app/who.py", "speedref/app/glyphs.py", "speedref/app/accents.py"]
    mpy = mpyhelp.compile_modules(tmp_path / "mpy", mods)
    (tmp_path / "s").mkdir()
    code = ("import json\nimport names_game\nprint(json.dumps(names_game.report(%r)))"
            % str(tmp_path / "s"))
    out = mpyrun.run(code=code, heap="%dwK" % (mpyrun.DEVICE_WK + 18), extra_path=[mpy])
    r = json.loads(out.stdout.strip().splitlines()[-1])
    check_report(r, board=True)
    cp = names_game.report(str(tmp_path / "cp"))
    assert r["final"] == cp["final"], "the board's end screen is the simulator's"
    for k in ("record",):
        r[k].pop("id"), cp[k].pop("id")
    assert r["record"] == cp["record"]


def test_the_boards_utf8_lines_and_the_simulators_escapes_are_one_record_to_the_host(tmp_path):
    """speedref-log reads the game_end line either way (the board's raw
    UTF-8, the simulator's \\u escapes, a byte at a time across the
    multi-byte letters) and stores the names as they were typed."""
    from host_tools.club.db import ResultsDB
    from host_tools.intake import lines as logmod
    cp = names_game.report(str(tmp_path / "cp"))
    rec = cp["record"]
    utf8 = (json.dumps({"ev": "game_end", "record": rec}, ensure_ascii=False) + "\n").encode()
    assert b"\xc5\x81ukasz" in utf8  # as MicroPython's json writes it
    for data, ident in ((utf8, "a"), (cp["raw_end"].encode(), "b")):
        db = ResultsDB(tmp_path / ("%s.db" % ident))
        core = logmod.LineCore(db, out=lambda s: None, err=lambda s: None)
        for i in range(len(data)):
            core.feed(data[i:i + 1])
        assert db.count_games() == 1
        assert db.games()[0][1]["players"] == ["Zo\u00eb", "\u0141ukasz"]


def test_the_wheel_turns_a_letter_into_its_accented_forms_on_the_seats_pad(tmp_path):
    """The letter wheel: the seat's pad steps the letter on the wheel through
    its accented forms and round to the plain letter; UP/DOWN turn the
    wheel as before (the plain letters no further apart); OK adds the form
    shown; a character with no accented form ignores the pad."""
    from app_rig import Rig
    from roster_game import command, tap, to_game, pick
    from speedref.app import who
    from speedref.app.core import DOWN, UP
    from speedref.app.glyphs import forms
    from speedref.roster import Console
    from test_sim_screen_text import find
    rig = Rig(str(tmp_path))
    command(rig, Console(), {"cmd": "roster", "add": ["Ann"]})
    tap(rig, 6)  # boot screen -> game list
    to_game(rig, "speed")
    pick(rig, "Ann")
    pick(rig, who.NEW)  # seat 2 (pad 1) names a walk-in
    scr = rig.app.screen
    tap(rig, DOWN, 4)  # A B C D E
    assert who.WHEEL[scr.wheel] == "E"
    assert find(bytes(rig.app.buf), "pad: accents")
    e = forms("E")
    seen = []
    for _ in range(len(e)):
        tap(rig, 1)
        seen.append(scr._letter())
    assert seen == list(e[1:]) + ["E"], "each form once, then the letter again"
    tap(rig, 1)
    assert scr._letter() == "\u00c9"
    tap(rig, UP)
    tap(rig, DOWN)
    assert scr._letter() == "E", "turning the wheel starts from the plain letter"
    tap(rig, 1, 2)  # \u00c8
    tap(rig, 6)
    assert scr.typed == "\u00c8" and who.WHEEL[scr.wheel] == "e" and scr._letter() == "e"
    assert find(bytes(rig.app.buf), "\u00c8") == (0, 14)
    tap(rig, DOWN, 26 - 4 + 1)  # past z to " -"
    assert who.WHEEL[scr.wheel] == "-" and not find(bytes(rig.app.buf), "pad: accents")
    tap(rig, 1)
    assert scr._letter() == "-" and scr.typed == "\u00c8"
    assert rig.app.lights == 2, "the seat's pad lights: it has something to say"


def test_the_results_compare_names_nfc_so_a_decomposed_one_is_the_same_person(tmp_path):
    """Two games of Jos\u00e9: one from the board (composed, NFC), one from a
    file that spells him decomposed (NFD) and in capitals: the standings
    show one person, Jos\u00e9, with both games, and rename finds him either
    way."""
    import subprocess
    import sys
    from host_fixtures import speed_single
    nfd = unicodedata.normalize("NFD", "JOS\u00c9")
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(json.dumps(speed_single(0, 5, ("Jos\u00e9", "Zo\u00eb"), ident="dev-a")), encoding="utf-8")
    b.write_text(json.dumps(speed_single(1, 4, ("Zo\u00eb", nfd), ident="dev-b"), ensure_ascii=False),
                 encoding="utf-8")
    db = tmp_path / "r.db"

    def results(*args):
        r = subprocess.run([sys.executable, "-m", "host_tools.cli.results", "--db", str(db)] + list(args),
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout
    results("import", str(a), str(b))
    rows = [x for x in json.loads(results("--json"))["standings"] if x["game"] == "speed"]
    people = {unicodedata.normalize("NFC", x["player"]).casefold(): x["games"] for x in rows}
    assert people == {"jos\u00e9": 2, "zo\u00eb": 2}, rows
    results("rename", unicodedata.normalize("NFD", "jos\u00e9"), "Jos\u00e9 Ruiz")
    rows = [x for x in json.loads(results("--json"))["standings"] if x["game"] == "speed"]
    assert {x["player"]: x["games"] for x in rows} == {"Jos\u00e9 Ruiz": 2, "Zo\u00eb": 2}, rows
