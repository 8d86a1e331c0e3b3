"""speedref-results --serve --host: the read-only page served to the room.
The terminal prints the address and its QR code; no answer names the
database's file; the page shows the QR code under the Evening view, and
/round is the current round's printable page.  Without --host it stays on
127.0.0.1, as before."""
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from host_tools.club import evening as E
from host_tools.club.db import ResultsDB
from host_tools.views import evening_page, serve, site

BIN = Path(sys.executable).parent


@pytest.fixture
def club_db(tmp_path):
    path = tmp_path / "secret-folder" / "club.db"
    db = ResultsDB(path)
    ev, _ = E.start(db, "Club", "2026-12-10", ["T1", "T2"], [])
    E.checkin(db, ev, ["Ann", "Bob", "Cid", "Dee"])
    E.pair(db, ev, "speed")
    db.close()
    return path


def run_serve(db, *args):
    p = subprocess.Popen([str(BIN / "speedref-results"), "--serve", "--port", "0", "--db", str(db), *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    first = p.stdout.readline()
    assert first.startswith("serving the results page"), (first, p.stderr.read() if p.poll() is not None else "")
    url = [w for w in first.split() if w.startswith("http://")][0]
    return p, first, url


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8")


def stop(p):
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=20)
    assert p.returncode == 0, err
    return out


def test_served_to_the_room_with_a_qr_code_and_no_file_path(club_db):
    p, first, url = run_serve(club_db, "--host", "0.0.0.0")
    try:
        assert first.startswith("serving the results page to the room on http://") and "read-only" in first
        port = int(url.rsplit(":", 1)[1].strip("/"))
        assert url == serve.page_url("0.0.0.0", port)
        qr = [p.stdout.readline() for _ in range(evening_page.qr_text(url).count("\n") + 1)]
        assert "".join(qr).rstrip("\n") == evening_page.qr_text(url)
        status, page = get("http://127.0.0.1:%d/" % port)
        assert status == 200
        assert "secret-folder" not in page and "club.db" not in page
        assert 'id="evening"' in page and 'src="data:image/svg+xml' in page and url in page
        status, rnd = get("http://127.0.0.1:%d/round" % port)
        assert status == 200 and 'data-round="1"' in rnd and "@media print" in rnd
        assert "secret-folder" not in rnd
        assert get("http://127.0.0.1:%d/nothing" % port)[0] == 404
    finally:
        stop(p)


def test_without_host_it_answers_this_machine_only(club_db):
    p, first, url = run_serve(club_db)
    try:
        assert "(this machine only)" in first and url.startswith("http://127.0.0.1:")
        status, page = get(url)
        assert status == 200 and "club.db" in page and "data:image/svg+xml" not in page
    finally:
        assert "\u2588" not in stop(p)                 # no QR code for an address nobody else can open


def test_a_served_database_problem_names_no_file(club_db, tmp_path):
    srv = site.make_server(lambda: ResultsDB(tmp_path / "gone.db", create=False), "x", 0, "0.0.0.0")
    import threading
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        status, text = get("http://127.0.0.1:%d/" % srv.server_address[1])
        assert status == 500 and text == "the results database cannot be read just now\n"
    finally:
        srv.shutdown()
        srv.server_close()


def test_host_is_an_address_and_goes_with_serve(club_db):
    for args, says in ((["--serve", "--host", "my laptop"], "is not an IP address"),
                       (["--host", "0.0.0.0"], "--host goes with --serve")):
        r = subprocess.run([str(BIN / "speedref-results"), "--db", str(club_db), *args], capture_output=True,
                           text=True)
        assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr
