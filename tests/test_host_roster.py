"""speedref-roster (host_tools/roster.py) against the firmware's own device
loop on the simulator's board: list, add, remove, push FILE, pull and
--table-name, and what a bad name or a 10,000-line file does (refused
whole, nothing sent, nothing on the board lost)."""
import subprocess
import sys

import pytest

from host_tools import roster as tool

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
    args = tool.build_parser().parse_args(list(argv))
    out = io.StringIO()
    code = tool.run(tool.Board(port, timeout=1.0), args, out)
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
    assert r.returncode == 1 and "line 2:" in r.stderr and "U+0416" in r.stderr
    r = subprocess.run([str(BIN / "speedref-roster"), "--port", "/nonexistent", "list"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "cannot open /nonexistent" in r.stderr
