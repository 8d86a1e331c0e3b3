"""speedref-roster (host_tools/cli/roster.py, host_tools/board/roster.py) against the firmware's own device
loop on the simulator's board: list, add, remove, push FILE, pull and
--table-name, and what a bad name or a 10,000-line file does (refused
whole, nothing sent, nothing on the board lost)."""
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, event, example, given, settings, strategies as st

from host_tools.board import roster as tool
from host_tools.cli import roster as cli

BIN = __import__("pathlib").Path(sys.executable).parent


class SimPort:
    """A serial port whose other end is a simulated board's USB console."""

    def __init__(self, board):
        self.board = board
        self.sent = []
        self.out = b""
        board.on_line = None
        self._n = len(board.lines)

    def write(self, data):
        self.sent.append(data)
        for line in data.decode().splitlines():
            self.board.command(line)
        new = self.board.lines[self._n:]
        self._n = len(self.board.lines)
        self.out += b"".join(l.encode() + b"\r\n" for l in new)

    def read(self, n):
        data, self.out = self.out[:n], self.out[n:]
        return data


@pytest.fixture
def board(tmp_path):
    from sim.board import Board
    b = Board(root=str(tmp_path / "flash"))
    b.step()
    yield b
    b.close()


def run(board, *argv):
    import io
    port = SimPort(board)
    args = cli.build_parser().parse_args(list(argv))
    out = io.StringIO()
    code = cli.run(tool.Board(port, timeout=1.0), args, out)
    return code, out.getvalue(), port


def test_add_list_remove_pull_and_the_table_name(board, tmp_path):
    code, out, _ = run(board, "add", "Ann", " Bob ", "Cat")
    assert code == 0 and "3 of 100 names" in out and "  2  Bob" in out
    code, out, _ = run(board, "--table-name", "Table 3", "remove", "bob")  # case: one person
    assert out.splitlines()[0] == "table name: Table 3"
    assert "Table 3: 2 of 100 names" in out and "Bob" not in out
    code, out, _ = run(board, "pull", str(tmp_path / "club.txt"))
    assert (tmp_path / "club.txt").read_text() == "Ann\nCat\n"
    assert board.app.settings["table"] == "Table 3"
    # what the board keeps survives a reboot: the same store, read again
    from speedref.storage import Store
    roster, problem = Store(str(tmp_path / "flash")).load_roster()
    assert roster["names"] == ["Ann", "Cat"] and problem is None


def test_push_replaces_the_roster_in_parts_of_one_console_line(board, tmp_path):
    names = ["Name%03d" % i for i in range(100)]
    f = tmp_path / "club.txt"
    f.write_text("# the club\n\n" + "\n".join(names) + "\nname000\n", encoding="utf-8")
    code, out, port = run(board, "push", str(f))
    assert code == 0 and "100 of 100 names" in out
    assert len(port.sent) > 1 and all(len(s) <= tool.LINE_MAX for s in port.sent)
    code, out, _ = run(board, "pull")
    assert out.splitlines() == names  # a case-only repeat is kept once


def test_accented_names_are_pushed_composed_and_pulled_as_the_board_keeps_them(board, tmp_path):
    """A club file with accented names, one spelt with a combining accent
    (NFD): pushed as NFC (the board has no unicodedata and would refuse the
    combining accent), within the console's line in bytes, and pulled back
    as UTF-8; a name in another case is the same person."""
    import unicodedata
    f = tmp_path / "club.txt"
    names = ["Zo\u00eb", "Jos\u00e9", "\u0141ukasz", "\u00c5sa", "\u017b\u00f3\u0142\u0107\u0119\u015b\u0105\u017a\u0144\u0142"]
    f.write_text("\n".join([names[0], unicodedata.normalize("NFD", names[1])] + names[2:] + ["ZO\u00cb"])
                 + "\n", encoding="utf-8")
    code, out, port = run(board, "push", str(f))
    assert code == 0 and "5 of 100 names" in out
    assert all(len(s) <= tool.LINE_MAX for s in port.sent)
    assert board.app.store.load_roster()[0]["names"] == names
    code, out, _ = run(board, "pull", str(tmp_path / "back.txt"))
    assert (tmp_path / "back.txt").read_text(encoding="utf-8") == "\n".join(names) + "\n"


def test_a_bad_file_is_refused_whole_and_the_roster_kept(board, tmp_path):
    run(board, "add", "Ann")
    f = tmp_path / "club.txt"
    f.write_text("Bob\n\x1b[31mRed\nBartholomew\nP3\n<b>Al</b>\n", encoding="utf-8")
    with pytest.raises(tool.Problem) as e:
        run(board, "push", str(f))
    msg = str(e.value)
    assert "3 names the board would refuse; nothing sent" in msg
    assert "line 2:" in msg and "U+001B" in msg and "\x1b" not in msg
    assert "line 3:" in msg and "line 4:" in msg and "line 5" not in msg
    big = tmp_path / "big.txt"
    big.write_text("".join("Player%d\n" % i for i in range(10000)))
    with pytest.raises(tool.Problem, match="holds 10000 names; a board keeps 100 at most: nothing sent"):
        run(board, "push", str(big))
    _, out, _ = run(board, "pull")
    assert out == "Ann\n"


def test_a_long_file_folds_each_name_a_few_times_not_once_per_name_before_it(tmp_path, monkeypatch):
    """A club's whole list pasted in (10,000 lines) is read in one pass: a
    name is folded by its check (no seat label) and once to find a
    case-only repeat, not once for every name read before it (50 million
    folds, half a minute before the file's refusal)."""
    from speedref import names as N
    calls = []
    fold = N.fold
    monkeypatch.setattr(N, "fold", lambda name: calls.append(name) or fold(name))
    text = "".join("Player%d\n" % i for i in range(10000)) + "PLAYER7\n"
    with pytest.raises(tool.BadInput, match="holds 10000 names"):
        tool.read_names("club.txt", text)
    assert len(calls) == 2 * 10001
    assert tool.read_names("club.txt", "Zo\u00eb\nZO\u00cb\nAnn\n") == ["Zo\u00eb", "Ann"]


def test_the_board_refuses_and_the_tool_says_why(board):
    board.app.start("spit", board.now())  # a game running: no roster changes now
    with pytest.raises(tool.Problem, match="refused it: a game is running"):
        run(board, "add", "Zed")


def test_bad_names_on_the_command_line_send_nothing(board):
    for bad in ("", "Guest", "x" * 11, "caf\u00e9\u0416"):
        with pytest.raises(tool.Problem, match="nothing sent"):
            run(board, "add", bad)
    with pytest.raises(tool.Problem, match="17 characters, 16 at most"):
        run(board, "--table-name", "x" * 17)


def test_the_tool_refuses_a_bad_file_before_opening_any_port(tmp_path):
    f = tmp_path / "club.txt"
    f.write_text("Ann\n\u0416enya\n", encoding="utf-8")
    r = subprocess.run([str(BIN / "speedref-roster"), "--port", "/nonexistent", "push", str(f)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "line 2:" in r.stderr and "U+0416" in r.stderr
    r = subprocess.run([str(BIN / "speedref-roster"), "--port", "/nonexistent", "list"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "cannot open /nonexistent" in r.stderr



# --- a board's answers are checked as strictly as the board checks the laptop's ---------
class AnswerPort:
    """A serial port whose board answers each command line with the next of
    `answers` (text lines), whatever the command."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.sent = []
        self.out = b""

    def write(self, data):
        self.sent.append(data)
        if self.answers:
            self.out += self.answers.pop(0).encode("utf-8") + b"\r\n"

    def read(self, n):
        data, self.out = self.out[:n], self.out[n:]
        return data

    def close(self):
        pass


def main_with(monkeypatch, capsys, answers, *argv, timeout="1"):
    """speedref-roster's main() on a port that answers with `answers`:
    (exit status, stdout, stderr, the port)."""
    import serial
    port = AnswerPort(answers)
    monkeypatch.setattr(serial, "Serial", lambda *a, **k: port)
    code = cli.main(["--port", "board", "--timeout", timeout] + list(argv))
    out, err = capsys.readouterr()
    return code, out, err, port


def roster_line(**fields):
    import json
    return json.dumps(dict({"ev": "roster"}, **fields))


GOOD = dict(table="Table 3", names=["Ann", "Bob"], max=100)
HOSTILE = [
    (roster_line(table="T", max=100), 'no "names"'),
    (roster_line(table="T", names=None, max=100), '"names" is null, not a list of names'),
    (roster_line(names=["Ann"], max=100), 'no "table"'),
    (roster_line(table="T", names="Ann", max=100), '"names" is a string, not a list of names'),
    (roster_line(table="T", names={"Ann": 1}, max=100), '"names" is an object, not a list of names'),
    (roster_line(table="T", names=["Ann", 7], max=100), 'name 2 is a number, not text'),
    (roster_line(table="T", names=["Ann", None], max=100), 'name 2 is null, not text'),
    (roster_line(table="T", names=[["Ann"]], max=100), 'name 1 is a list, not text'),
    (roster_line(table="T", names=["A\x1b[2Jnn"], max=100), "U+001B"),
    (roster_line(table="T", names=["Ann\u2028Bob"], max=100), "U+2028"),
    (roster_line(table="T", names=["Bartholomew"], max=100), "11 characters, 10 at most"),
    (roster_line(table="T", names=["P2"], max=100), "kept for an unnamed seat"),
    (roster_line(table="T", names=["Ann", "  "], max=100), "empty name"),
    (roster_line(table="T", names=["Ann", "Bob", "ANN"], max=100), "name 3, ANN, is Ann's again"),
    (roster_line(table="T", names=["N%d" % i for i in range(101)], max=101), "101 names, more than a board keeps (100)"),
    (roster_line(table="T", names=["Ann", "Bob"], max=1), '2 names, more than its "max" (1)'),
    (roster_line(table=7, names=[], max=100), '"table" is a number, not text'),
    (roster_line(table="", names=[], max=100), "empty table name"),
    (roster_line(table="x" * 17, names=[], max=100), "17 characters, 16 at most"),
    (roster_line(table="T\x07", names=[], max=100), "U+0007"),
    (roster_line(table="T", names=[]), 'no "max"'),
    (roster_line(table="T", names=[], max="100"), '"max" is a string, not a whole number'),
    (roster_line(table="T", names=[], max=True), '"max" is true, not a whole number'),
    (roster_line(table="T", names=[], max=0), '"max" is 0, not a whole number from 1'),
    ('{"ev": "roster", "table": "T", "names": [], "max": 100, "max": 5}', 'key "max" given twice'),
    ('{"ev": "roster", "table": "T", "names": [], "max": NaN}', "NaN is not a JSON number"),
    ('{"ev": "roster_part", "part": 0, "count": 2}', 'a push part\'s receipt ("roster_part"), not the roster'),
    ('{"ev": "error", "what": "roster", "msg": null}', "a refusal without its reason"),
]


@pytest.mark.parametrize("answer,why", HOSTILE, ids=[w[:40] for _, w in HOSTILE])
def test_a_hostile_answer_to_list_or_pull_is_one_line_and_exit_2(monkeypatch, capsys, tmp_path, answer, why):
    for argv in (["list"], ["pull"], ["pull", str(tmp_path / "club.txt")]):
        code, out, err, _ = main_with(monkeypatch, capsys, [answer], *argv)
        assert code == 2 and out == "", (argv, out, err)
        assert err.startswith("speedref-roster: the board's answer ") and why in err, (argv, err)
        assert len(err.splitlines()) == 1 and "Traceback" not in err and "\x1b" not in err and "\x07" not in err
        assert not (tmp_path / "club.txt").exists(), "nothing written from a wrong answer"


def test_a_good_answer_is_listed_and_pulled(monkeypatch, capsys, tmp_path):
    code, out, err, _ = main_with(monkeypatch, capsys, [roster_line(**GOOD)], "list")
    assert (code, err) == (0, "") and out == "Table 3: 2 of 100 names\n  1  Ann\n  2  Bob\n"
    code, out, err, _ = main_with(monkeypatch, capsys, [roster_line(**GOOD)], "pull", str(tmp_path / "c.txt"))
    assert (code, err) == (0, "") and (tmp_path / "c.txt").read_text() == "Ann\nBob\n"
    # the board's other lines (a REPL's, noise, a game's) are not its answer
    code, out, err, _ = main_with(monkeypatch, capsys, ["MicroPython v1.24\n>>> " + roster_line(**GOOD)], "pull")
    assert (code, out, err) == (1, "", "speedref-roster: no answer from the board in 1 s: is the referee running"
                                " at its menu (not at the REPL, not in another program's hands)?\n")
    code, out, err, _ = main_with(monkeypatch, capsys, ["[1, 2]\n" + '{"ev": "boot"}\n' + roster_line(**GOOD)],
                                  "pull")
    assert (code, out, err) == (0, "Ann\nBob\n", "")


def test_the_board_refusing_is_exit_1_with_its_reason(monkeypatch, capsys):
    code, out, err, _ = main_with(monkeypatch, capsys, ['{"ev": "error", "what": "roster", "msg": "a game is'
                                                        ' running: change the roster at the menu"}'], "add", "Zed")
    assert code == 1 and err == "speedref-roster: the board refused it: a game is running: change the roster at the menu\n"


def test_a_hostile_answer_to_a_push_or_the_table_name(monkeypatch, capsys, tmp_path):
    f = tmp_path / "club.txt"
    f.write_text("".join("Player%02d\n" % i for i in range(40)))     # three command lines
    receipt = '{"ev": "roster_part", "part": %s, "count": %s}'
    cases = [
        ([roster_line(**GOOD)], 'the roster ("roster"), not push part 0\'s receipt'),
        ([receipt % (1, 14)], "push part 1's receipt, not part 0's"),
        ([receipt % (0, '"14"')], '"count" is a string, not a whole number'),
        ([receipt % ("null", 14)], '"part" is null, not a whole number'),
        ([receipt % (0, 14), receipt % (1, 28), receipt % (2, 40)], 'a push part\'s receipt ("roster_part"), not the roster'),
    ]
    for answers, why in cases:
        code, out, err, _ = main_with(monkeypatch, capsys, answers, "push", str(f))
        assert code == 2 and why in err and len(err.splitlines()) == 1, (answers, err)
    code, out, err, _ = main_with(monkeypatch, capsys, [roster_line(table="Table 9", names=[], max=100)],
                                  "--table-name", "Table 3")
    assert code == 2 and 'the table name "Table 9", not "Table 3"' in err, err


@pytest.mark.parametrize("sep", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r"])
def test_a_roster_file_is_split_only_at_line_ends(tmp_path, sep):
    """Names are one a line, lines end at \\n or \\r\\n; any other line
    separator inside a line is a character no name holds, and is named."""
    f = tmp_path / "club.txt"
    f.write_text("Ann\nBo%sb\nCat\n" % sep, encoding="utf-8", newline="")
    with pytest.raises(tool.Problem) as e:
        tool.read_names(str(f))
    assert "1 name the board would refuse" in str(e.value) and "line 2:" in str(e.value)
    assert "U+%04X" % ord(sep) in str(e.value) and sep not in str(e.value)


def test_crlf_files_are_read_and_lines_counted_at_line_ends_only(tmp_path):
    f = tmp_path / "club.txt"
    f.write_bytes(b"Ann\r\nBob\r\n\r\n# a comment\r\nCat")
    assert tool.read_names(str(f)) == ["Ann", "Bob", "Cat"]
    f.write_text("Ann\x0bBob\nP3\n", encoding="utf-8")
    with pytest.raises(tool.Problem) as e:
        tool.read_names(str(f))
    assert "line 1:" in str(e.value) and "line 2:" in str(e.value) and "line 3" not in str(e.value)


# --- names are checked before a board is looked for ------------------------------------
@pytest.mark.parametrize("argv,why", [
    (["add", "Very Long Name Here"], 'name "Very Long Name H..." is 19 characters, 10 at most'),
    (["add", "Ann", "Guest"], 'name "Guest" is kept for an unnamed seat'),
    (["remove", "Ann\x1b[2J"], "U+001B"),
    (["--table-name", "A very long table name 3"], 'table name "A very long tabl..." is 24 characters, 16 at most'),
    (["--table-name", "A very long table name 3", "add", "Ann"], "24 characters, 16 at most"),
    (["--table-name", "", "list"], "empty table name"),
    (["add"], "add: which names?"),
    (["list", "Ann"], "list takes no names"),
    (["pull", "a.txt", "b.txt"], "pull [FILE]: one file at most"),
    (["--timeout", "0", "list"], "--timeout"),
    (["--timeout", "nan", "list"], "--timeout"),
])
def test_names_are_checked_before_any_board_is_looked_for(monkeypatch, capsys, argv, why):
    import host_tools.board.ports

    def no(*a, **k):
        raise AssertionError("looked for a board")
    monkeypatch.setattr(host_tools.board.ports, "find_port", no)
    with pytest.raises(SystemExit) as e:
        raise SystemExit(cli.main(argv))
    out, err = capsys.readouterr()
    assert e.value.code == 2 and out == "" and why in err, err
    assert len(err.splitlines()) == 1 or err.startswith("usage:"), err


def test_a_long_name_is_refused_by_the_command_not_answered_with_no_board():
    r = subprocess.run([str(BIN / "speedref-roster"), "add", "Very Long Name Here"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == "" and "no board" not in r.stderr
    assert r.stderr == ('speedref-roster: name "Very Long Name H..." is 19 characters, 10 at most;'
                        ' nothing sent\n'), r.stderr


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2, 200) | st.floats(allow_nan=False) | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=12)
FIELDS = st.fixed_dictionaries({}, optional={
    "table": st.sampled_from(["Table 3", " T ", "", "T\x1b"]) | JSON, "max": st.integers(0, 120) | JSON,
    "what": st.sampled_from(["roster", "command", "log"]) | JSON, "msg": st.text(max_size=12) | JSON,
    "part": JSON, "count": JSON, "extra": JSON})
NAMEISH = st.one_of(st.sampled_from(["Ann", "ann", "Bob", "P1", "Guest", " Cat ", "", "Ann\u2028", "x" * 11]),
                    st.text(max_size=12), JSON)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(ev="roster", fields={"table": "Table 3", "max": 100}, names=["Ann", "Bob"], verb="list")
@example(ev="roster", fields={"table": " T ", "max": 2, "extra": [1]}, names=[" Cat "], verb="pull")
@given(ev=st.sampled_from(["roster", "roster_part", "error"]),
       fields=FIELDS,
       names=st.none() | st.lists(NAMEISH, max_size=6) | st.lists(st.sampled_from(["Ann", "Bob", "Cat", "Dee"]),
                                                                  unique=True),
       verb=st.sampled_from(["list", "pull"]))
def test_any_answer_is_listed_refused_or_named_wrong_never_a_traceback(monkeypatch, capsys, ev, fields, names, verb):
    import json
    answer = dict(fields, ev=ev)
    if names is not None:
        answer["names"] = names
    code, out, err, _ = main_with(monkeypatch, capsys, [json.dumps(answer)], verb, timeout="0.05")
    event("exit %d" % code)
    if ev == "error" and answer.get("what") not in ("roster", "command"):
        # another part of the board's error (a log's, a store's): no answer to this command
        assert (code, out) == (1, "") and err.startswith("speedref-roster: no answer from the board"), err
    elif code == 0:
        # only a roster the board could have sent is shown
        table, shown = tool.check_roster(answer)
        assert err == "" and ev == "roster"
        assert out.splitlines() == (shown if verb == "pull" else ["%s: %d of %d names" % (table, len(shown), answer["max"])]
                                    + ["%3d  %s" % (i, n) for i, n in enumerate(shown, 1)])
    else:
        assert (code, out) in ((2, ""), (1, "")) and len(err.splitlines()) == 1, (code, out, err)
        assert err.startswith("speedref-roster: the board's answer is wrong: " if code == 2
                              else "speedref-roster: the board refused it: "), err


def pty_board(answer):
    """A pseudo-terminal whose other end answers the first command line
    with `answer`, as a board's USB console would: (port path, stop())."""
    import os
    import threading
    import tty
    master, slave = os.openpty()
    tty.setraw(slave)
    stop = threading.Event()

    def serve():
        got = b""
        while not stop.is_set() and b"\n" not in got:
            try:
                got += os.read(master, 4096)
            except OSError:
                return
        os.write(master, answer.encode() + b"\r\n")

    threading.Thread(target=serve, daemon=True).start()

    def close():
        stop.set()
        os.close(master)
        os.close(slave)
    return os.ttyname(slave), close


@pytest.mark.parametrize("verb", ["list", "pull"])
def test_the_command_on_a_serial_line_names_a_string_of_names_wrong(tmp_path, verb):
    """`"names": "Ann"` is no roster of three names A, n, n: one line, exit 2."""
    path, close = pty_board('{"ev": "roster", "table": "Table 3", "names": "Ann", "max": 100}')
    try:
        r = subprocess.run([str(BIN / "speedref-roster"), "--port", path, "--timeout", "20", verb,
                            str(tmp_path / "club.txt")][:6 if verb == "list" else 7],
                           capture_output=True, text=True, timeout=60)
    finally:
        close()
    assert r.returncode == 2 and r.stdout == "", (r.stdout, r.stderr)
    assert r.stderr == ('speedref-roster: the board\'s answer is wrong: "names" is a string, not a list of names'
                        ' (answer: {"ev": "roster", "table": "Table 3", "names": "Ann", "max": 100})\n')
    assert not (tmp_path / "club.txt").exists()
