"""speedref-results --json / --html / --serve: every reader shows one snapshot
of the database, and --serve answers clients that leave early, odd methods
and HEAD as a small web server should; option values are checked as parsed."""
import contextlib
import io
import json
import socket
import threading
import urllib.request
from contextlib import redirect_stderr, redirect_stdout

import pytest

from host_fixtures import speed_single
from host_tools.cli import results
from host_tools.views import results_page, serve, site
from host_tools.club.db import ResultsDB


def cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = results.main(argv)
    return code, out.getvalue(), err.getvalue()


def slap(winner, deal=1):
    return {"ev": "slap", "game": "speed", "kind": "out", "deal": deal, "winner": winner, "tie": [],
            "margin_us": 1500, "presses": [winner, 1 - winner], "false_starts": []}


@pytest.fixture
def wal_db(tmp_path):
    """A database in WAL mode, where a writer commits while a reader reads."""
    path = tmp_path / "r.db"
    db = ResultsDB(path, write=True)
    db.con.execute("PRAGMA journal_mode=WAL")
    db.add_game(speed_single(ident="snap-1"), "import", [slap(0)])
    db.close()
    return path


def commit_between_reads(monkeypatch, path):
    """After a reader's first read of the games (their records, or a query
    over their summaries, inside its snapshot: not while it writes), another
    connection stores a game with its slaps (committed)."""
    real, real_query, real_writing = ResultsDB.game_rows, ResultsDB.query, ResultsDB.writing
    done, writing = [], []

    def commit():
        if not done:
            done.append(1)
            other = ResultsDB(path, write=True)
            try:
                other.add_game(speed_single(winner=1, ident="snap-2"), "import", [slap(1), slap(1, 1)])
            finally:
                other.close()

    def game_rows(self, *a):
        rows = real(self, *a)
        commit()
        return rows

    def query(self, *a):
        rows = real_query(self, *a)
        if self.con.in_transaction and not writing:
            commit()
        return rows

    @contextlib.contextmanager
    def writes(self, *a):
        writing.append(1)
        try:
            with real_writing(self, *a):
                yield
        finally:
            writing.pop()
    monkeypatch.setattr(ResultsDB, "game_rows", game_rows)
    monkeypatch.setattr(ResultsDB, "query", query)
    monkeypatch.setattr(ResultsDB, "writing", writes)
    return done


def test_json_standings_are_one_snapshot(wal_db, monkeypatch):
    done = commit_between_reads(monkeypatch, wal_db)
    code, out, err = cli(["--db", str(wal_db), "--json"])
    assert done and code == 0, err
    got = json.loads(out)
    assert got["unlinked_slaps"] == 0
    assert sum(r["games"] for r in got["standings"]) == 2          # one game, two players


def test_html_page_is_one_snapshot(wal_db, monkeypatch, tmp_path):
    done = commit_between_reads(monkeypatch, wal_db)
    page = tmp_path / "p.html"
    code, out, err = cli(["--db", str(wal_db), "--html", str(page)])
    assert done and code == 0, err
    text = page.read_text(encoding="utf-8")
    assert "not tied to a finished game" not in text and ": 1 game," in out


@pytest.fixture
def server(wal_db):
    srv = site.make_server(lambda: ResultsDB(wal_db), str(wal_db), port=0)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()


def raw(srv, request):
    with socket.create_connection(srv.server_address, timeout=30) as s:
        s.sendall(request)
        got = b""
        while True:
            part = s.recv(65536)
            if not part:
                return got
            got += part


def test_served_page_is_one_snapshot(wal_db, monkeypatch, server):
    done = commit_between_reads(monkeypatch, wal_db)
    body = urllib.request.urlopen("http://127.0.0.1:%d/" % server.server_address[1], timeout=30).read()
    assert done and b"not tied to a finished game" not in body


def test_head_answers_the_get_headers_without_a_body(server):
    get = raw(server, b"GET / HTTP/1.0\r\n\r\n")
    head = raw(server, b"HEAD / HTTP/1.0\r\n\r\n")
    g_head, g_body = get.split(b"\r\n\r\n", 1)
    h_head, h_body = head.split(b"\r\n\r\n", 1)
    strip = lambda h: [l for l in h.split(b"\r\n") if not l.startswith(b"Date:")]
    assert head.startswith(b"HTTP/1.0 200") and h_body == b"" and g_body
    assert strip(h_head) == strip(g_head)


def test_an_unknown_method_is_not_echoed_and_error_pages_carry_the_csp(server):
    got = raw(server, b"<script>\x1b[31m" + b"X" * 300 + b" / HTTP/1.0\r\n\r\n")
    status, rest = got.split(b"\r\n", 1)
    assert status == b"HTTP/1.0 501 Not Implemented"
    assert b"<script>" not in got and b"\x1b" not in got and b"X" * 100 not in got
    assert ("Content-Security-Policy: %s" % results_page.CSP).encode() in rest
    missing = raw(server, b"GET /nothing HTTP/1.0\r\n\r\n")
    assert missing.startswith(b"HTTP/1.0 404") and b"Content-Security-Policy: " in missing


@pytest.mark.parametrize("error", [BrokenPipeError, ConnectionResetError, TimeoutError])
def test_a_client_that_leaves_before_its_answer_is_no_traceback(wal_db, error, capsys):
    class Gone:
        closed = False

        def write(self, data):
            raise error(32, "the client went away")

        def flush(self):
            pass

        def close(self):
            self.closed = True

    handler = type("H", (site.make_server(lambda: ResultsDB(wal_db), "", port=0)
                         .RequestHandlerClass,), {})
    srv = serve.http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    real_setup = handler.setup

    def setup(self):
        real_setup(self)
        self.wfile = Gone()
    handler.setup = setup
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        raw(srv, b"GET / HTTP/1.0\r\n\r\n")
    finally:
        srv.shutdown()
        srv.server_close()
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.splitlines()) <= 1


def test_help_says_when_the_served_page_is_rebuilt():
    text = results.build_parser().format_help()
    assert "every request" not in text and "something new" in " ".join(text.split())


def usage_error(argv):
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as e:
        results.main(argv)
    assert e.value.code == 2
    return err.getvalue().strip().splitlines()[-1]


@pytest.mark.parametrize("port", ["99999", "-1", "65536", "http"])
def test_serve_port_out_of_range_is_refused_as_parsed(port):
    assert "--port" in usage_error(["--serve", "--port", port])


def test_html_to_an_empty_file_name_is_refused():
    assert "--html" in usage_error(["--html", ""])


def test_serve_whose_banner_cannot_be_written_ends_with_exit_2():
    class Server:
        server_address = ("127.0.0.1", 8080)
        closed = False

        def serve_forever(self):
            raise KeyboardInterrupt

        def server_close(self):
            self.closed = True
    srv = Server()
    assert serve.serve(srv, out=lambda text: 2) == 2 and srv.closed
    assert serve.serve(Server(), out=lambda text: 0) == 0
