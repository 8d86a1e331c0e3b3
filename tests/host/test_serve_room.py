"""speedref-results --serve in a room full of phones (host_tools/views/serve.py):
a page is made once per change and that one render is sent to every reader
waiting for it; the listening socket queues a room's connections; a client
that never reads (or never asks) holds up nobody and is dropped; pages go
gzipped to the clients that take it, and a reload of an unchanged page is a
304.  The room's timings are benchmarks/bench_serve_room.py's, not tests'."""
import gzip
import http.client
import select
import socket
import threading

import pytest

from host_fixtures import speed_single
from host_tools.club.db import ResultsDB
from host_tools.views import results_page, serve, site


@pytest.fixture
def db_path(tmp_path):
    path = tmp_path / "room.db"
    db = ResultsDB(path, write=True)
    db.add_game(speed_single(ident="room-1"), "import")
    db.close()
    return path


def store(path, ident, players=("Cat", "Dan")):
    db = ResultsDB(path, write=True)
    try:
        db.add_game(speed_single(winner=1, players=players, ident=ident), "mqtt")
    finally:
        db.close()


class Running:
    def __init__(self, srv):
        self.srv = srv
        self.port = srv.server_address[1]
        self.room = srv.RequestHandlerClass.room
        threading.Thread(target=srv.serve_forever, daemon=True).start()

    def get(self, path="/", headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            c.request("GET", path, headers=headers or {})
            r = c.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            c.close()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


@pytest.fixture
def served(db_path):
    r = Running(site.make_server(lambda: ResultsDB(db_path), str(db_path), port=0))
    yield r
    r.close()


def test_one_change_is_one_render_for_every_reader_waiting_on_it(served, db_path, monkeypatch):
    """Forty readers ask for the page right after a game is stored, while
    its render is slow: the page is made once and all forty get its bytes."""
    assert served.get()[0] == 200
    made = served.room.renders.count
    real = site.Site.first
    started = threading.Event()
    go_on = threading.Event()

    def slow(*a, **k):
        started.set()
        go_on.wait(30)            # held until every reader has asked
        return real(*a, **k)
    monkeypatch.setattr(site.Site, "first", slow)
    store(db_path, "room-2")
    got = []
    readers = [threading.Thread(target=lambda: got.append(served.get())) for _ in range(40)]
    for t in readers:
        t.start()
    assert started.wait(30)
    assert len(served.room.renders.making) == 1     # one render under way, whoever asked first
    go_on.set()
    for t in readers:
        t.join(60)
    assert len(got) == 40 and all(status == 200 for status, _, _ in got)
    assert len(set(body for _, _, body in got)) == 1 and b"Cat" in got[0][2]
    assert served.room.renders.count == made + 1
    # and the next readers are sent it from memory
    assert served.get()[2] == got[0][2] and served.room.renders.count == made + 1


def test_a_change_is_told_once_its_page_is_made(served, db_path):
    """/events tells the pages on screen after the live page is made: the
    fetches that follow are sent it, nothing made again."""
    c = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    c.request("GET", "/events")
    r = c.getresponse()
    first = r.fp.readline()
    while not first.startswith(b"data: "):
        first = r.fp.readline()
    store(db_path, "room-2")
    line = r.fp.readline()
    while not line.startswith(b"data: "):
        line = r.fp.readline()
    c.close()
    made = served.room.renders.count
    status, _, body = served.get()
    assert status == 200 and b'data-version="%s"' % line[6:].strip() in body and b"Cat" in body
    assert served.room.renders.count == made


class CountingCondition(threading.Condition):
    """A Condition that counts, per thread name, the times a waiting thread
    was woken (notified or timed out)."""
    woken = {}

    def wait(self, timeout=None):
        got = super().wait(timeout)
        name = threading.current_thread().name
        CountingCondition.woken[name] = CountingCondition.woken.get(name, 0) + 1
        return got


def test_the_open_event_streams_wake_for_a_change_not_for_every_request(db_path, monkeypatch):
    """A room holds one event stream per page on screen; the requests of
    the room ask the database's version many times a second.  A stream
    waits for a change told, and is not woken by each request's look (200
    streams woken by each of 200 requests after a change was seconds of
    the server's time)."""
    monkeypatch.setattr(threading, "Condition", CountingCondition)
    CountingCondition.woken = {}
    watch = serve.Watch(lambda: ResultsDB(db_path), poll_s=60.0)
    monkeypatch.undo()
    try:
        shown = watch.now()
        watch.tell(shown)
        got = {}
        streams = [threading.Thread(target=lambda i=i: got.__setitem__(i, watch.wait_told(shown, 60.0)),
                                    name="stream-%d" % i, daemon=True) for i in range(8)]
        for t in streams:
            t.start()
        wait_until(lambda: sum(1 for t in threading.enumerate() if t.name.startswith("stream-")) == 8)
        threading.Event().wait(0.2)        # each stream waiting on its condition
        for _ in range(40):
            assert watch.now() == shown    # a room's requests, no change
        assert sum(n for k, n in CountingCondition.woken.items() if k.startswith("stream-")) == 0
        store(db_path, "room-2")
        new = watch.now()
        assert new == shown + 1
        watch.tell(new)
        for t in streams:
            t.join(30)
        assert got == dict((i, new) for i in range(8))
        assert all(CountingCondition.woken.get("stream-%d" % i, 0) <= 2 for i in range(8))
    finally:
        watch.stop()


def test_a_room_connecting_at_once_is_queued_not_refused(db_path):
    """Three hundred phones open the page in the same instant, before the
    server has accepted any of them: every connection is queued (Python's
    default backlog, 5, leaves all but six unanswered)."""
    srv = site.make_server(lambda: ResultsDB(db_path), str(db_path), port=0)
    try:
        assert srv.request_queue_size == serve.ROOM_BACKLOG >= 300
        socks = []
        for _ in range(300):
            s = socket.socket()
            s.setblocking(False)
            assert s.connect_ex(srv.server_address) in (0, 115)    # EINPROGRESS
            socks.append(s)
        pending = set(socks)
        deadline = 20.0
        while pending and deadline > 0:
            _, done, _ = select.select([], list(pending), [], 1.0)
            for s in done:
                assert s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
                pending.discard(s)
            deadline -= 1.0
        assert not pending, "%d of 300 connections never completed" % len(pending)
        # and once the server runs, each is answered
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        for s in socks[:20]:
            s.setblocking(True)
            s.settimeout(30)
            s.sendall(b"GET /round HTTP/1.0\r\n\r\n")
            assert s.recv(12).startswith(b"HTTP/1.0 ")
    finally:
        for s in socks:
            s.close()
        srv.shutdown()
        srv.server_close()


class BigSite:
    """A site of one page too big for the socket buffers, and a small one."""
    CSP = results_page.CSP

    def __init__(self, url, public):
        pass

    def route(self, path, query):
        if path == "/":
            return "/", lambda db, v: (200, b"x" * (24 << 20), "text/plain", self.CSP)
        if path == "/small":
            return "/small", lambda db, v: (200, b"small page " + v.encode(), "text/plain", self.CSP)
        return None

    def problem_text(self, e):
        return str(e)


def slow_clients(srv, n):
    """n clients that ask for the big page and never read (a small receive
    buffer: the server's writes stop at once), and n that connect and never
    finish their request."""
    out = []
    for _ in range(n):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(srv.server_address)
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        out.append(s)
        idle = socket.create_connection(srv.server_address)
        idle.sendall(b"GET /sm")
        out.append(idle)
    return out


def test_clients_that_never_read_hold_up_nobody(db_path):
    srv = serve.make_server(lambda: ResultsDB(db_path), BigSite, port=0)
    r = Running(srv)
    try:
        stuck = slow_clients(srv, 10)
        # the stuck ones are still connected (the timeout is 20 s) while 30 others are
        # served, the page the stuck ones asked for too
        for i in range(30):
            status, _, body = r.get("/small")
            assert status == 200 and body.startswith(b"small page ")
        status, _, body = r.get("/")
        assert status == 200 and len(body) == 24 << 20
        for s in stuck:
            s.setblocking(False)
            try:
                assert s.recv(1, socket.MSG_PEEK) != b""      # nothing closed them yet
            except BlockingIOError:
                pass
    finally:
        for s in stuck:
            s.close()
        r.close()


def wait_until(condition):
    for _ in range(600):
        if condition():
            return
        threading.Event().wait(0.1)
    assert condition()


def serving():
    """The threads answering a connection now."""
    return sum(1 for t in threading.enumerate() if "process_request" in t.name)


def test_a_client_that_stops_reading_is_dropped_after_the_timeout(db_path, monkeypatch):
    monkeypatch.setattr(serve.Handler, "timeout", 1.0)
    srv = serve.make_server(lambda: ResultsDB(db_path), BigSite, port=0)
    r = Running(srv)
    try:
        before = serving()
        stuck = slow_clients(srv, 3)
        wait_until(lambda: serving() >= before + 6)     # each held by its thread
        wait_until(lambda: serving() <= before)         # which ends when the server gives up on it
        for s in stuck:
            s.settimeout(60)
            got, ended = 0, False
            while not ended:                # what the server sent before it gave up, then the end
                try:
                    part = s.recv(65536)
                except ConnectionResetError:
                    part = b""
                got += len(part)
                ended = part == b""
            assert got < 24 << 20           # the page was never all sent: the server stopped, not the client
        assert r.get("/small")[0] == 200
    finally:
        for s in stuck:
            s.close()
        r.close()


def test_gzip_once_for_those_that_take_it_and_304_for_an_unchanged_page(served, db_path):
    status, plain_h, plain = served.get()
    status_gz, gz_h, packed = served.get(headers={"Accept-Encoding": "gzip, deflate"})
    assert status == status_gz == 200 and "Content-Encoding" not in plain_h
    assert gz_h["Content-Encoding"] == "gzip" and gzip.decompress(packed) == plain
    assert len(packed) * 2 < len(plain) and gz_h["Vary"] == "Accept-Encoding"
    assert served.get(headers={"Accept-Encoding": "gzip;q=0"})[2] == plain
    for etag, enc in ((plain_h["ETag"], ""), (gz_h["ETag"], "gzip")):
        status, h, body = served.get(headers={"If-None-Match": etag, "Accept-Encoding": enc})
        assert status == 304 and body == b"" and h["ETag"] == etag
    store(db_path, "room-2")
    status, h, body = served.get(headers={"If-None-Match": plain_h["ETag"]})
    assert status == 200 and h["ETag"] != plain_h["ETag"] and b"Cat" in body
