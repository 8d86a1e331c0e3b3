"""The web page's names (docs/web.md, "Names") in headless Chromium: the
table's name, the seats' names and the roster, checked by the firmware's own
check (speedref/names.py) with the refusal shown as text and nothing
changed; a partners game played on the page carries the names and the
table's name in its record (PT-8: names by player); a fresh browser profile
gets a table name of its own; everything survives a reload."""
import json

import pytest

from test_web import site, browser, open_page, plant, py, wait, log_lines, stored, SCRIPTS  # noqa: F401

pytestmark = pytest.mark.web


def fill(drv, table, seats, roster):
    drv.execute_script("document.getElementById('namesbutton').click()")
    drv.execute_script("""
        const [table, seats, roster] = arguments;
        document.getElementById('tablename').value = table;
        document.querySelectorAll('.seatname').forEach((f, i) => { f.value = seats[i] || ''; });
        document.getElementById('rostertext').value = roster;
        document.getElementById('namessave').click();""", table, seats, roster)
    return drv.execute_script("return document.getElementById('nameserr').textContent")


def test_names_fields_roster_and_a_game_record_PT8(browser, site):  # noqa: F811 - the fixtures
    from sim import script
    plant(browser, site, None)
    open_page(browser, site + "#sw=0")
    st = json.loads(py(browser, "board.names_json()"))
    assert st["table"] == st["default"] and st["table"].startswith("Table ") and st["roster"] == []
    first_default = st["default"]
    # bad input: refused with the reason, as text, and nothing changed
    bad = [(("", ["Ann", "ann"], ""), "playing already"),
           (("", ["Bartholomew"], ""), "11 characters, 10 at most"),
           (("", [], "Ann\n<script>x</script>"), "roster line 2:"),
           (("", [], "\u0416enya"), "U+0416"),
           (("", ["P2"], ""), "unnamed seat"),
           (("x" * 17, [], ""), "16 at most"),
           (("", [], "\n".join("N%d" % i for i in range(10000))), "100 names at most, not 10000")]
    for (table, seats, roster), why in bad:
        # the inputs' maxlength stops typing, not a value set by a script or pasted
        assert why in fill(browser, table, seats, roster), why
    assert py(browser, "board.app.seated") is None
    assert json.loads(py(browser, "board.names_json()"))["roster"] == []
    # HTML is a name's text, never markup
    msg = fill(browser, "Web Table", ["Ann", "Bob", "", "<b>Di</b>"], "Ann\nBob\n<i>x</i>\nann")
    assert msg == "saved"
    assert browser.execute_script("return document.querySelector('#namespanel b, #namespanel i')") is None
    assert py(browser, "board.app.seated") == ["Ann", "Bob", "P3", "<b>Di</b>"]
    st = json.loads(py(browser, "board.names_json()"))
    assert st["table"] == "Web Table" and st["roster"] == ["Ann", "Bob", "<i>x</i>"]
    # a partners game on the page's board, its script's presses in board time
    py(browser, "board.start_game('partners')")
    base = py(browser, "board.clock.elapsed_us") + 1000000
    events = [(base + t, b, d) for t, b, d, _ in script.parse((SCRIPTS / "partners.txt").read_text())]
    py(browser, "[board.edge(t, b, d) for (t, b, d) in %s] and 1" % json.dumps(events).replace("true", "True").replace("false", "False"))
    py(browser, "board.run_until(%d) or 1" % (events[-1][0] + 1000000))
    rec = json.loads(py(browser, "board.newest_record_json()"))
    assert rec["players"] == ["Ann", "Bob", "P3", "<b>Di</b>"] and rec["table"] == "Web Table"
    # the page keeps them: a reload boots with the same names
    wait(browser, lambda: "roster.json" in (stored(browser) or ""), "the roster stored", 30)
    open_page(browser, site + "#sw=0")
    assert py(browser, "board.app.seated") == ["Ann", "Bob", "P3", "<b>Di</b>"]
    assert json.loads(py(browser, "board.names_json()"))["table"] == "Web Table"
    # a fresh profile (storage cleared): a table name of its own
    plant(browser, site, None)
    open_page(browser, site + "#sw=0")
    st = json.loads(py(browser, "board.names_json()"))
    assert st["table"] == st["default"] != first_default and py(browser, "board.app.seated") is None


def test_accented_names_are_drawn_on_the_page_as_on_the_board(browser, site):  # noqa: F811
    """The page's MicroPython has no native emitter: ui's viper functions
    run there as plain Python.  Accented names in every colour and at big
    scale come out as the simulator draws them (the same bytes as the
    board's machine code: tests/app/test_ui_text.py)."""
    import framebuf
    from speedref.app import ui
    open_page(browser, site + "#sw=0")
    draw = ("ui.text(fb, %r, 3, 5, 1); ui.text(fb, %r, 0, 0, 0); ui.big(fb, %r, 2, 30, 3)"
            % ("Zo\u00eb J\u00f3zsef", "\u0141ukasz \u00c5sa!", "\u017d\u0151\u00e7"))
    got = py(browser, "(lambda fb: (exec(%r, {'ui': __import__('speedref.app.ui', None, None, ['ui']), "
                      "'fb': fb}), bytes(fb_buf).hex()))(__import__('framebuf').FrameBuffer("
                      "fb_buf := bytearray(1024), 128, 64, __import__('framebuf').MONO_VLSB))[1]" % draw)
    buf = bytearray(1024)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    exec(draw, {"ui": ui, "fb": fb})
    assert bytes.fromhex(got) == bytes(buf) and any(buf)


def test_a_name_typed_with_a_combining_accent_is_saved_composed(browser, site):  # noqa: F811
    """A keyboard or a paste may give "e" and a combining diaeresis (NFD);
    the page's MicroPython has no unicodedata, so the page composes every
    name (NFC) before the device's check, as the laptop's tools do
    (speedref/names.py): "Zoe\u0308" is saved as "Zo\u00eb", in the seats
    and the roster and the table's name alike."""
    plant(browser, site, None)
    open_page(browser, site + "#sw=0")
    nfd = "Zoe\u0308"
    assert fill(browser, "Caf" + "e\u0301", [nfd, "Bob"], "Jose\u0301\n" + nfd) == "saved"
    assert py(browser, "board.app.seated") == ["Zo\u00eb", "Bob", "P3", "P4"]
    st = json.loads(py(browser, "board.names_json()"))
    assert st["table"] == "Caf\u00e9" and st["roster"] == ["Jos\u00e9", "Zo\u00eb"]
