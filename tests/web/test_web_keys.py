"""The web page's keys in headless Chromium, with real key events (selenium's
ActionChains: the browser's own keydown, keypress and keyup):

  * typing into the names panel's fields types, and never presses the
    device's buttons (the keys are the simulator's: `b` BACK, Enter OK,
    `Z` holds pad P1, ...): no edge reaches the board, no pad is left held;
  * Enter in the roster box starts a new line: a roster typed name, Enter,
    name is saved as those names;
  * out of the fields the same keys are the device's buttons again;
  * the roster saved on the page, kept in the browser's storage across a
    reload, is what the firmware's name picker offers before a game
    ("P1: who?"), and the next game offers "Same players?" (app/who.py)."""
import json

import pytest

from test_web import site, browser, open_page, plant, py, wait, stored  # noqa: F401
from speedref.hw.board_pico import BUTTON_PINS

pytestmark = pytest.mark.web


def actions(drv):
    from selenium.webdriver.common.action_chains import ActionChains
    return ActionChains(drv)


def keys():
    from selenium.webdriver.common.keys import Keys
    return Keys


def buttons_up(drv):
    """Every button's pin is high (released, pulled up) on the board, none
    queued, and none drawn pressed on the page."""
    reg = py(drv, "board.gpio.register")
    pins = all((reg >> n) & 1 for n in BUTTON_PINS)
    queued = drv.execute_script("return window.speedref.pending.length")
    drawn = drv.execute_script("return document.querySelectorAll('[data-button].down').length")
    return pins and queued == 0 and drawn == 0


def screen(drv):
    return py(drv, "type(board.app.screen).__name__")


def settle(drv):
    """Until the board has taken every key the page queued (it runs 40 ms
    behind the page's clock)."""
    t = drv.execute_script("return performance.now() - window.speedref.t0") + 100
    wait(drv, lambda: drv.execute_script("return performance.now() - window.speedref.t0") > t + 100
         and drv.execute_script("return window.speedref.pending.length") == 0, "the board to catch up", 30)


def open_names(drv):
    el = drv.find_element("id", "namesbutton")
    actions(drv).click(el).perform()
    wait(drv, lambda: drv.find_element("id", "namespanel").is_displayed(), "the names panel", 10)


def type_into(drv, el, *text):
    actions(drv).click(el).send_keys(*text).perform()


def test_typing_names_types_and_presses_no_button(browser, site):  # noqa: F811 - the fixtures
    plant(browser, site, None)
    open_page(browser, site + "#sw=0")
    assert screen(browser) == "Boot"
    open_names(browser)
    seats = browser.find_elements("css selector", ".seatname")
    type_into(browser, seats[0], "Bob")
    type_into(browser, seats[1], "Zoe Kim")           # Z holds pad P1, space is OK, K... in the device's keys
    table = browser.find_element("id", "tablename")
    type_into(browser, table, "Table 5")
    roster = browser.find_element("id", "rostertext")
    K = keys()
    type_into(browser, roster, "Ann", K.ENTER, "Bob", K.ENTER, "Cy", K.ENTER, "Dee")
    type_into(browser, seats[2], "Mo", K.ESCAPE, K.BACKSPACE, "!@#$")   # Esc, Backspace: BACK; ! @ # $ hold pads
    settle(browser)
    assert seats[0].get_attribute("value") == "Bob"
    assert seats[1].get_attribute("value") == "Zoe Kim"
    assert table.get_attribute("value") == "Table 5"
    assert roster.get_attribute("value") == "Ann\nBob\nCy\nDee"
    assert seats[2].get_attribute("value") == "M!@#$"
    # nothing reached the device: still at its boot screen, every button up
    assert screen(browser) == "Boot"
    assert buttons_up(browser)
    seats[2].clear()
    actions(browser).click(browser.find_element("id", "namessave")).perform()
    wait(browser, lambda: browser.find_element("id", "nameserr").text, "the save's answer", 10)
    assert browser.find_element("id", "nameserr").text == "saved"
    st = json.loads(py(browser, "board.names_json()"))
    assert st["roster"] == ["Ann", "Bob", "Cy", "Dee"] and st["table"] == "Table 5"
    assert py(browser, "board.app.seated") == ["Bob", "Zoe Kim", "P3", "P4"]  # empty seats: Guests
    assert screen(browser) == "Boot" and buttons_up(browser)


def test_out_of_the_fields_the_keys_are_the_devices_again(browser, site):  # noqa: F811 - the fixtures
    plant(browser, site, None)
    open_page(browser, site + "#sw=0")
    open_names(browser)
    type_into(browser, browser.find_element("id", "tablename"), "T")
    actions(browser).click(browser.find_element("id", "namesclose")).perform()
    actions(browser).click(browser.find_element("id", "oled")).send_keys(keys().ENTER).perform()
    wait(browser, lambda: screen(browser) == "Games", "Enter: OK, to the game list", 30)
    settle(browser)
    assert buttons_up(browser)


def test_the_roster_typed_on_the_page_feeds_the_devices_picker_and_survives_a_reload(browser, site):  # noqa: F811 - the fixtures
    K = keys()
    plant(browser, site, None)
    open_page(browser, site + "#sw=0")
    open_names(browser)
    type_into(browser, browser.find_element("id", "rostertext"), "Ann", K.ENTER, "Bob", K.ENTER, "Cy")
    actions(browser).click(browser.find_element("id", "namessave")).perform()
    wait(browser, lambda: browser.find_element("id", "nameserr").text == "saved", "saved", 10)
    wait(browser, lambda: "roster.json" in (stored(browser) or ""), "the roster kept in the browser", 30)
    open_page(browser, site + "#sw=0")   # a reload: the roster comes back from the browser's storage
    assert json.loads(py(browser, "board.names_json()"))["roster"] == ["Ann", "Bob", "Cy"]
    body = browser.find_element("id", "oled")

    def press(*ks):
        for k in ks:
            actions(browser).click(body).send_keys(k).perform()
            settle(browser)

    press(K.ENTER, K.ENTER)                 # boot -> games -> Speed's options
    assert screen(browser) == "Options"
    press(K.ENTER)                          # Start: each seat picks a name
    assert screen(browser) == "Who"
    press(K.ARROW_DOWN, K.ENTER)            # P1: Bob
    press(K.ENTER)                          # P2: Ann (the first not taken)
    wait(browser, lambda: py(browser, "board.app.flow is not None"), "the game started", 30)
    assert py(browser, "list(board.app.flow.opts['names'])") == ["Bob", "Ann"]
    # abandon it (BACK: the pause menu, UP: its last row, Abandon game; OK, OK), then Speed again
    press(K.BACKSPACE, K.ARROW_UP, K.ENTER, K.ENTER)
    wait(browser, lambda: py(browser, "board.app.flow is None"), "the game abandoned", 30)
    for _ in range(4):
        if screen(browser) == "Who":
            break
        press(K.ENTER)
    assert screen(browser) == "Who" and py(browser, "board.app.screen.same") is True  # "Same players?"
    assert py(browser, "board.app.screen.last") == ["Bob", "Ann"]


def test_the_roster_goes_to_the_device_as_speedref_roster_sends_it(browser, site):  # noqa: F811 - the fixtures
    """The page's roster reaches the device through its console's roster
    command: the device answers with its roster line (in the page's log, as
    on a board's USB log), a 100-name roster comes in parts, and in a game
    the device refuses it as a board does, nothing changed."""
    plant(browser, site, None)
    open_page(browser, site + "#sw=0")
    names = ["Member%02d" % i for i in range(100)]
    assert py(browser, "board.set_names('', '[]', %r)" % "\n".join(names)) == ""
    wait(browser, lambda: any(o.get("ev") == "roster" for o in
                              (json.loads(x) for x in browser.execute_script("return window.speedref.logLines"))),
         "the device's roster line in the log", 10)
    lines = [json.loads(x) for x in browser.execute_script("return window.speedref.logLines")]
    parts = [o for o in lines if o.get("ev") == "roster_part"]
    answer = [o for o in lines if o.get("ev") == "roster"][-1]
    assert parts and answer["names"] == names
    py(browser, "board.start_game('spit')")
    why = py(browser, "board.set_names('Club', '[]', 'Ann')")
    assert "a game is running" in why
    st = json.loads(py(browser, "board.names_json()"))
    assert st["roster"] == names and st["table"] != "Club"
