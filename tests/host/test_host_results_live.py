"""speedref-results --serve keeps the page on the club's screen live: the
page listens to /events (server-sent events) and takes the new page when
anything is stored (a game, a round paired), within EVENTS_POLL_S, with no
reload.  Checked here at the HTTP level; tests/web/test_web_results_page.py
watches it happen in Chromium."""
import base64
import hashlib
import http.client
import re
import threading

import pytest

from host_fixtures import speed_single
from host_tools.views import results_page, site
from host_tools.club import evening as E
from host_tools.club.db import ResultsDB


@pytest.fixture
def served(tmp_path):
    path = tmp_path / "live.db"
    db = ResultsDB(path, write=True)
    db.add_game(speed_single(ident="live-1"), "import")
    db.close()
    srv = site.make_server(lambda: ResultsDB(path), str(path), port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield path, srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path)
    r = c.getresponse()
    return r, c


def next_event(r):
    """The next `data:` of a server-sent event stream (keepalive comments skipped)."""
    while True:
        line = r.fp.readline()
        assert line, "the event stream ended"
        if line.startswith(b"data: "):
            return line[6:].strip().decode()


def test_a_stored_game_is_announced_and_on_the_page_the_script_takes(served):
    path, port = served
    r, c = get(port, "/")
    page = r.read().decode()
    c.close()
    assert r.getheader("Content-Security-Policy") == results_page.LIVE_CSP
    first = re.search(r'<html lang="en" data-version="([0-9a-f]+-1)">', page).group(1)
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert "script-src 'sha256-%s'" % digest in results_page.LIVE_CSP  # the one script allowed
    assert page.count("<script") == 1

    ev, ec = get(port, "/events")
    assert ev.status == 200 and ev.getheader("Content-Type") == "text/event-stream"
    assert next_event(ev) == first  # what the page shows
    db = ResultsDB(path, write=True)
    db.add_game(speed_single(winner=1, players=("Cat", "Dan"), ident="live-2"), "mqtt")
    db.close()
    second = next_event(ev)          # told within a poll (the socket's timeout: 10 s)
    assert second != first
    r, c = get(port, "/")
    page = r.read().decode()
    c.close()
    assert 'data-version="%s"' % second in page and "Cat" in page
    # a change that stores no game: an evening started, a round paired
    db = ResultsDB(path, write=True)
    ev_, _ = E.start(db, "Club", "2026-12-10", ["T1"], [])
    E.checkin(db, ev_, ["Ann", "Bob"])
    E.pair(db, ev_, "speed")
    db.close()
    assert next_event(ev) != second
    r, c = get(port, "/")            # a request sees everything committed before it
    page = r.read().decode()
    c.close()
    assert 'data-round="1"' in page and 'data-version="%s"' % second not in page
    ec.close()


def test_the_written_page_has_no_script_and_events_of_a_missing_database_are_an_error(tmp_path):
    from host_tools.club.db import DatabaseProblem
    path = tmp_path / "r.db"
    ResultsDB(path, write=True).close()
    db = ResultsDB(path)
    text, _ = results_page.render(db)
    db.close()
    assert "<script" not in text and "data-version" not in text

    def broken():
        raise DatabaseProblem("r.db: cannot open")
    srv = site.make_server(broken, "r.db", port=0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        r, c = get(srv.server_address[1], "/events")
        assert r.status == 500 and b"cannot open" in r.read()
        c.close()
    finally:
        srv.shutdown()
        srv.server_close()
