"""The match message (docs/serial-protocol.md, "The match"): made and checked
on the laptop (host_tools/board/match.py) with the board's own check
(speedref/match.py), sent over USB by `speedref-roster match` to the
firmware's device loop on the simulator's board, in parts when it is longer
than a console line; each wrong shape refused in one line, nothing sent; the
board's answers checked as strictly."""
import io
import json

import pytest
from hypothesis import given, settings, strategies as st

from host_tools.board import match as M
from host_tools.board import roster as board_roster
from host_tools.cli import roster as tool
from speedref import games
from speedref import match as board_match
from test_host_roster import SimPort, board  # noqa: F401 - the simulated board and its console

MATCH = M.make_match(3, 2, "Table 3", "speed", ["Ann", "Bob"], {"match": "best_of"})


def test_a_match_is_made_with_the_round_its_table_its_game_and_one_name_a_seat():
    assert MATCH == {"id": "e3r2", "version": 1, "evening": 3, "round": 2, "table": "Table 3", "game": "speed",
                     "opts": {"match": "best_of"}, "names": ["Ann", "Bob"]}
    assert M.parse_message(M.message(MATCH)) == MATCH
    assert M.parse_message(b"") is None  # an empty message: no match
    four = M.make_match(3, 2, "Table 3", "partners", ["Ann", "Bob", "Cat", "Guest"])
    assert board_match.game_opts(four, 1)["names"] == ["Ann", "Bob", "Cat", "P4"]  # the seat nobody named


@pytest.mark.parametrize("change, why", [
    ({"id": ""}, "id: 1 to 24 characters"),
    ({"id": "e3 r2"}, "id: printable ASCII, no spaces"),
    ({"version": 0}, "version: a whole number from 1"),
    ({"evening": "3"}, "evening: the evening's number, from 1"),
    ({"round": True}, "round: the round's number, 1 to 999"),
    ({"round": 1000}, "round: the round's number, 1 to 999"),
    ({"table": ""}, "empty table name"),
    ({"game": "snap"}, "game: one of " + ", ".join(games.IDS)),
    ({"opts": {"colour": "red"}}, "opts: Speed has no option colour"),
    ({"opts": {"jokers": 1}}, "opts: jokers cannot be 1"),
    ({"opts": {"seats": 3}}, "names: 3 wanted, one a seat"),
    ({"names": ["Ann", "ann"]}, "names: ann is playing already: one seat each"),
    ({"names": ["Ann", "P1"]}, 'names: name "P1" is kept for an unnamed seat'),
    ({"names": ["Ann", "Bob\n"]}, "cannot be shown on the board"),
    ({"colour": "red"}, "unknown field colour"),
])
def test_a_match_a_board_would_refuse_is_refused_on_the_laptop_in_one_line(change, why):
    m = dict(MATCH, **change)
    with pytest.raises(M.BadMatch) as e:
        M.check_match(m)
    assert why in str(e.value) and "\n" not in str(e.value)


def test_a_match_over_its_size_is_refused():
    m = dict(MATCH, id="x" * 24, table="T" * 16)
    assert len(M.message(m)) < M.MESSAGE_MAX
    long = M.make_match(12345, 999, "Table 16 chars..", "speed",
                        ["Alexandra1", "Bartholome", "Christophe", "Dominique1"],
                        {"seats": 4, "layout": "classic", "jokers": True, "doubles": True, "hand_limit": 7,
                         "slap_to_win": True, "match": "best_of", "target": 100, "tie_ms": 50}, match_id="x" * 24)
    assert len(M.message(long)) <= M.MESSAGE_MAX  # the longest match there is fits


def test_option_values_are_read_as_the_registry_lists_them():
    assert M.option_value("speed", "match", "best_of") == "best_of"
    assert M.option_value("speed", "target", "100") == 100 and M.option_value("speed", "target", "auto") == "auto"
    assert M.option_value("speed", "jokers", "true") is True
    with pytest.raises(M.BadMatch, match="Speed's target is one of auto, 15"):
        M.option_value("speed", "target", "30")
    with pytest.raises(M.BadMatch, match="has no option 'length'"):
        M.option_value("speed", "length", "long")


def test_the_topic_is_the_tables_and_only_a_topic_level_may_name_it():
    assert M.topic("riverside", "t3") == "speedref/riverside/t3/match"
    for club, table in (("river side", "t3"), ("riverside", "t/3"), ("riverside", "+"), ("", "t3")):
        with pytest.raises(M.BadMatch, match="cannot be a topic level"):
            M.topic(club, table)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["Ann", "Bob", "Cat", "Dan", "Alexandra1", "Bartholome", "Guest"]),
                min_size=4, max_size=4, unique=True),
       st.dictionaries(st.sampled_from(["layout", "jokers", "doubles", "hand_limit", "slap_to_win", "match",
                                        "target", "tie_ms"]), st.just(None)),
       st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=24))
def test_every_console_line_of_a_match_fits_and_the_parts_give_the_match_back(names, keys, rid):
    g = games.get("speed")
    values = dict((k, v[-1]) for k, _, v in g.options)
    opts = dict((k, values[k]) for k in keys)
    opts["seats"] = 4
    m = M.make_match(77, 12, "Table twelve", "speed", names, opts, match_id=rid)
    cmds = M.console_commands(m)
    back = {}
    for i, c in enumerate(cmds):
        assert len(json.dumps(c, separators=(",", ":")).encode()) < M.LINE_MAX
        assert c.get("part", 0) == i and c.get("end", True) == (i == len(cmds) - 1)
        back.update(c["match"])
    assert back == m


def send(board, *argv):  # noqa: F811
    """speedref-roster match ... against the simulated board's console."""
    port = SimPort(board)
    args = tool.build_parser().parse_intermixed_args(["match"] + list(argv))
    out = io.StringIO()
    code = tool.run_match(board_roster.Board(port, timeout=1.0), args, out, tool.match_plan(args))
    return code, out.getvalue(), port


def test_speedref_roster_match_sends_the_match_the_board_offers_it_and_says_so(board):  # noqa: F811
    code, out, _ = send(board, "send", "--evening", "3", "--round", "2", "--game", "speed",
                        "--option", "match=best_of", "--table", "Table 3", "Ann", "Bob")
    assert code == 0 and out == "evening 3 round 2 at Table 3: speed (match best_of), Ann v Bob " \
                                "(match e3r2 version 1): offered\n"
    assert type(board.app.screen).__name__ == "Match"
    code, out, _ = send(board, "show")
    assert out.startswith("evening 3 round 2 at Table 3") and out.endswith("(offered)\n")
    code, out, _ = send(board, "send", "--evening", "3", "--round", "2", "--game", "speed",
                        "--option", "match=best_of", "--table", "Table 3", "Ann", "Bob")
    assert out.endswith(": offered already\n")
    code, out, _ = send(board, "clear")
    assert out == "no match on the board\n" and type(board.app.screen).__name__ == "Games"


def test_the_boards_own_table_name_by_default_and_a_long_match_in_parts(board):  # noqa: F811
    board.command({"cmd": "table", "name": "Window seat"})
    code, out, port = send(board, "send", "--evening", "12345", "--round", "9", "--game", "speed",
                           "--option", "seats=4", "--option", "layout=classic", "--option", "jokers=true",
                           "--option", "doubles=true", "--option", "hand_limit=7", "--option", "slap_to_win=true",
                           "--option", "match=best_of", "--option", "target=100", "--option", "tie_ms=50",
                           "--id", "x" * 24, "Alexandra1", "Bartholome", "Christophe", "Dominique1")
    assert code == 0 and "at Window seat" in out and out.endswith(": offered\n")
    sent = [s for s in port.sent if b'"match"' in s]
    assert len(sent) > 1 and all(len(s) <= M.LINE_MAX for s in sent)
    assert board.app.screen.head == "R9 Window seat"  # "Round 9 Window seat" is more than a row
    from speedref import match as fw
    m, n, played = fw.load(board.store)
    assert m["table"] == "Window seat" and m["names"][3] == "Dominique1" and m["opts"]["tie_ms"] == 50


def test_a_bad_match_is_refused_before_any_board_is_looked_for(capsys):
    code = tool.main(["match", "send", "--evening", "3", "--round", "2", "--game", "speed", "--table", "T3",
                      "Ann", "Ann", "--port", "/nonexistent/port"])
    err = capsys.readouterr().err
    assert code == 2 and err == "speedref-roster: the match: names: Ann is playing already: one seat each; " \
                                "nothing sent\n"
    code = tool.main(["match", "send", "--round", "2", "--game", "speed", "Ann", "Bob"])
    assert code == 2 and "match send needs --evening" in capsys.readouterr().err
    code = tool.main(["match", "send", "--evening", "1", "--round", "2", "--game", "speed", "--mqtt",
                      "mqtt://listener@127.0.0.1:1", "--club", "c", "--to", "t1", "Ann", "Bob"])
    assert code == 2 and "--mqtt needs --table" in capsys.readouterr().err


@pytest.mark.parametrize("line, why", [
    (b'{"ev": "match", "state": "kept"}', "\"state\" is 'kept'"),
    (b'{"ev": "match", "state": "offered", "state": "none"}', "not strict JSON"),
    (b'{"ev": "match_part", "part": 1}', "a part's receipt, not the match's answer"),
    (b'{"ev": "error", "what": "match"}', "a refusal without its reason"),
])
def test_a_board_answer_of_the_wrong_shape_is_one_line_exit_2(line, why):
    with pytest.raises(board_roster.BadAnswer, match=why.replace("(", r"\(").replace(")", r"\)")) as e:
        M.answer_in(line, "match")
    assert e.value.status == 2


def test_a_boards_refusal_is_its_own_words_exit_1():
    with pytest.raises(board_roster.Problem, match="the board refused the match: names: 2 wanted") as e:
        M.answer_in(b'{"ev": "error", "what": "match", "msg": "names: 2 wanted, one a seat"}', "match")
    assert e.value.status == 1
    assert M.answer_in(b'{"ev": "deal", "deal": 1}', "match") is None  # a game's line: not an answer


def test_an_ok_held_as_the_match_arrives_does_not_start_it(board):  # noqa: F811
    """OK acts when released: the press was meant for the screen before
    (the game list, the boot screen), so the match is shown and waits for a
    press of its own."""
    board.command({"cmd": "table", "name": "Table 3"})
    board.run_until(board.clock.elapsed_us + 100000)
    board.set_button(6, True)  # OK down on the boot screen
    board.step()
    board.command({"cmd": "match", "match": MATCH})
    board.run_until(board.clock.elapsed_us + 100000)
    board.set_button(6, False)
    board.run_until(board.clock.elapsed_us + 100000)
    assert type(board.app.screen).__name__ == "Match" and board.app.flow is None
    board.set_button(6, True)  # a press of its own plays it
    board.run_until(board.clock.elapsed_us + 100000)
    board.set_button(6, False)
    board.run_until(board.clock.elapsed_us + 100000)
    assert board.app.flow is not None and board.app.flow.opts["names"] == ["Ann", "Bob"]
