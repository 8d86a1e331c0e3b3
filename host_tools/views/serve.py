"""speedref-results --serve: the results pages served to a room full of phones.

    make_server(open_db, site, port, host) -> a server; serve(srv) until Ctrl-C

What a room needs from a small web server on the organiser's laptop:

- **A page is made once per change.**  The database's version is this
  server's own count of the commits it has seen (SQLite's `data_version`,
  read on a connection of its own by one thread, the Watch); every request
  asks the Watch to look, and requests asking at the same moment share one
  look.  A page is made for a version at most once (Renders): the first
  reader who wants it makes it, every reader who asks meanwhile waits for
  that render and is sent the same bytes, and readers after it are sent
  them from memory.  When the Watch sees a change it makes the live page
  ("/") at once and only then tells the pages on screen (/events), so the
  room's fetches that follow find it made.
- **A room connects at once.**  The listening socket's queue of connections
  not yet accepted holds ROOM_BACKLOG (Python's default, 5, resets the
  sixth phone that opens the page in the same instant).
- **A slow client holds nobody else up.**  Each connection has its own
  thread, and a page is made before anything is written, so a client that
  reads slowly, or never, holds its own thread only, and not for longer
  than CLIENT_TIMEOUT_S without progress (reading its request or taking its
  answer): then the server drops it.
- **Small answers.**  Each page is gzipped once, when made, for the
  clients that take gzip (every phone's browser); an ETag lets a reload of
  an unchanged page be a 304 with no body.

The pages themselves are the site's (host_tools/views/site.py: the first
screen, the pages linked from it): `site.route(path, query)` names a page
and how to make it, inside one snapshot of the database.  Python's
ThreadingHTTPServer does the HTTP; a library was weighed and not taken (a
fixed pool of workers, as in waitress, is held by the pages' event streams;
aiohttp would bring eight packages for what the threads here do), see
docs/host-tools.md, "Serving a room".
"""
import collections
import gzip
import http.server
import os
import socket
import sys
import threading

from host_tools import jsonin
from host_tools.club.db import DatabaseProblem
from host_tools.views import evening_page

HOST = "127.0.0.1"          # --serve answers this machine only unless the organiser names another address
DEFAULT_PORT = 8080
ROOM_BACKLOG = 1024         # connections waiting to be accepted (Linux caps it at net.core.somaxconn)
CLIENT_TIMEOUT_S = 20.0     # a client gets this long without progress to send its request or take its answer
PAGES_KEPT = 64             # pages kept made (the newest version of each): the first screen and what was opened
EVENTS_POLL_S = 1.0         # the Watch looks for a change this often when no request asks it to
EVENTS_KEEPALIVE_S = 15.0   # an event stream says it is still there this often when nothing is new
GZIP_LEVEL = 6

Answer = collections.namedtuple("Answer", "status ctype csp body gz etag")
Answer.__doc__ = """A page as sent: its status, type and Content-Security-Policy, the
body as made and gzipped (None: not worth it), and its ETag."""


def answer(status, body, ctype, csp, version=None):
    """An Answer of `body` (bytes), gzipped once here for every reader."""
    gz = gzip.compress(body, GZIP_LEVEL, mtime=0) if len(body) > 1024 else None
    return Answer(status, ctype, csp, body, gz, '"%s"' % version if version else None)


class Watch:
    """The database's version as this server numbers it: 1 when first
    looked at, one more each time another connection has committed since
    (SQLite's `data_version`, on a connection the Watch thread alone uses).

    `now()` asks for a look and waits for one that began after it asked:
    a page made for that version holds everything committed before the
    request.  Requests that ask while a look is under way share the next
    one.  Between requests the Watch looks every EVENTS_POLL_S by itself,
    for the pages on screen (/events), which are told a version (`tell`)
    once its live page is made.  `prepare(db)`, on each change before the
    version moves: work that belongs to the change (the ratings due), done
    once by this connection (its own commits are no change to it).

    Who waits for what wakes for that alone (three conditions on one
    lock): the Watch for a request's ask, the requests for the look they
    wait on, the live page's maker and the pages on screen for a new
    version; a room's 200 open event streams are not woken by every
    request, nor 200 requests by each other's asks."""

    def __init__(self, open_db, prepare=None, poll_s=EVENTS_POLL_S):
        self.open_db = open_db
        self.prepare = prepare
        self.poll_s = poll_s
        lock = threading.Lock()
        self.asks = threading.Condition(lock)     # the Watch waits for a request to ask
        self.looks = threading.Condition(lock)    # requests wait for a look begun after they asked
        self.news = threading.Condition(lock)     # a new version, or a version told
        self.asked = 0              # looks asked for, and how many of them are done
        self.looked = 0
        self.version = 0            # 0: not looked at yet
        self.told = 0               # the version the pages on screen are told (after its live page is made)
        self.problem = None         # the DatabaseProblem of the last look, if it failed
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="speedref-watch", daemon=True)
        self.thread.start()

    def now(self):
        """The version now; DatabaseProblem when the database cannot be read."""
        with self.looks:
            self.asked += 1
            mine = self.asked
            self.asks.notify()
            while self.looked < mine and not self.stopping:
                self.looks.wait()
            if self.problem is not None:
                raise self.problem
            return self.version

    def tell(self, version):
        """The pages on screen may take `version` now."""
        with self.news:
            if version > self.told:
                self.told = version
                self.news.notify_all()

    def wait_new(self, told):
        """The version now, once it is newer than `told` (None: stopping)."""
        with self.news:
            self.news.wait_for(lambda: self.version > told or self.stopping)
            return None if self.stopping else self.version

    def wait_told(self, shown, timeout):
        """The version told, once it is other than `shown`, or after
        `timeout` seconds, or when the server stops."""
        with self.news:
            self.news.wait_for(lambda: self.told != shown or self.stopping, timeout)
            return self.told

    def stop(self):
        with self.news:
            self.stopping = True
            for c in (self.asks, self.looks, self.news):
                c.notify_all()

    def _run(self):
        db, seen = None, None
        while True:
            with self.asks:
                if self.asked == self.looked and not self.stopping:
                    self.asks.wait(self.poll_s)
                if self.stopping:
                    break
                ticket = self.asked
            new = None
            try:
                if db is None:
                    db = self.open_db()
                now = db.query("PRAGMA data_version")[0][0]
                if now != seen:
                    if self.prepare is not None:
                        self.prepare(db)
                    seen = db.query("PRAGMA data_version")[0][0]
                    new = self.version + 1
                problem = None
            except DatabaseProblem as e:
                problem = e
                if db is not None:
                    db.close()
                db, seen = None, None
            with self.looks:
                self.problem = problem
                self.looked = max(self.looked, ticket)
                self.looks.notify_all()
                if new is not None:
                    self.version = new
                    self.news.notify_all()
        if db is not None:
            db.close()


class Renders:
    """Each page made at most once per version, that one render sent to
    every reader who asked for it: {key: the newest Answer made}, the
    PAGES_KEPT most recently asked for.  `count`: the renders made."""

    class _Making:
        def __init__(self, version):
            self.version = version
            self.done = threading.Event()
            self.answer = None
            self.error = None

    def __init__(self, keep=PAGES_KEPT):
        self.keep = keep
        self.lock = threading.Lock()
        self.made = collections.OrderedDict()    # key -> (version, Answer)
        self.making = {}                         # key -> _Making under way
        self.count = 0

    def get(self, key, version, make):
        """The Answer of page `key` made at `version` or later: from memory,
        from a render under way for it, or made here by make(version)."""
        while True:
            with self.lock:
                got = self.made.get(key)
                if got is not None and got[0] >= version:
                    self.made.move_to_end(key)
                    return got[1]
                m = self.making.get(key)
                mine = m is None
                if mine:
                    m = self.making[key] = self._Making(version)
                    self.count += 1
            if not mine:
                m.done.wait()
                if m.version < version:
                    continue          # made for an older version: this reader needs the next render
                if m.error is not None:
                    raise m.error
                return m.answer
            try:
                m.answer = make(version)
            except BaseException as e:
                m.error = e
                raise
            finally:
                with self.lock:
                    del self.making[key]
                    if m.answer is not None:
                        self.made[key] = (version, m.answer)
                        self.made.move_to_end(key)
                        while len(self.made) > self.keep:
                            self.made.popitem(last=False)
                m.done.set()
            return m.answer


class Room:
    """What every request of one server shares: the site, the database, its
    Watch and the pages made."""

    def __init__(self, open_db, site, public=False, url=None, poll_s=EVENTS_POLL_S):
        self.open_db = open_db
        self.site = site
        self.public = public
        self.url = url
        self.renders = Renders()
        self.tag = os.urandom(3).hex()     # a version names this server's run: a page from before a restart is old
        self.watch = Watch(open_db, getattr(site, "prepare", None), poll_s)
        threading.Thread(target=self._announce, name="speedref-announce", daemon=True).start()

    def version_name(self, version):
        return "%s-%d" % (self.tag, version)

    def page(self, key, make, version):
        """The Answer of a page the site routed, made once for `version`."""
        def render(v):
            db = self.open_db()
            try:
                with db.snapshot():
                    status, body, ctype, csp = make(db, self.version_name(v))
            finally:
                db.close()
            return answer(status, body, ctype, csp, self.version_name(v))
        return self.renders.get(key, version, render)

    def _announce(self):
        """Each change seen: the live page made for the newest version, then
        the pages on screen told it (changes that come while it is made are
        told together, with the next one)."""
        told = 0
        while True:
            version = self.watch.wait_new(told)
            if version is None:
                return
            live = self.site.route("/", "")
            if live is not None:
                try:
                    self.page(live[0], live[1], version)
                except Exception:
                    pass      # a database that cannot be read now: each reader is told so itself
            self.watch.tell(version)
            told = version

    def stop(self):
        self.watch.stop()


class Handler(http.server.BaseHTTPRequestHandler):
    timeout = CLIENT_TIMEOUT_S      # the socket's: a request not sent or an answer not taken in time ends it
    room = None                     # set by make_server()

    def handle(self):
        # a client that goes away before its answer (a screen reloading, a
        # browser closing its tab) or stops taking it ends its connection,
        # no traceback
        try:
            http.server.BaseHTTPRequestHandler.handle(self)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError):
            self.close_connection = True

    def do_HEAD(self):
        self.do_GET()            # the same status and headers; _send leaves the body out

    def send_error(self, code, message=None, explain=None):
        """An error answer: the status's own words only (never the request's
        text, which may hold anything), with the pages' headers."""
        phrase = self.responses.get(code, ("Error",))[0]
        self._send(answer(code, ("%d %s\n" % (code, phrase)).encode("ascii"), "text/plain; charset=utf-8",
                          self.room.site.CSP), phrase=phrase)

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if path == "/events":
            return self._events()
        routed = self.room.site.route(path, query)
        if routed is None:
            return self._send(answer(404, b"not found\n", "text/plain; charset=utf-8", self.room.site.CSP))
        try:
            got = self.room.page(routed[0], routed[1], self.room.watch.now())
        except DatabaseProblem as e:
            return self._problem(e)
        self._send(got)

    def _events(self):
        """Server-sent events: the version now, then again each time it
        changes (told once its live page is made), until the client goes
        or the server stops."""
        try:
            shown = self.room.watch.now()
        except DatabaseProblem as e:
            return self._problem(e)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Security-Policy", self.room.site.CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.close_connection = True
        if self.command == "HEAD":
            return
        watch = self.room.watch
        self.wfile.write(("retry: 2000\ndata: %s\n\n" % self.room.version_name(shown)).encode("ascii"))
        while not watch.stopping:
            told = watch.wait_told(shown, EVENTS_KEEPALIVE_S)
            if watch.stopping:
                break
            if told != shown and told > 0:
                shown = told
                self.wfile.write(("data: %s\n\n" % self.room.version_name(told)).encode("ascii"))
            else:
                self.wfile.write(b": still here\n\n")

    def _problem(self, e):
        """A database that cannot be read: its one line, as the site words
        it (never a file's folders; served to the room, no file at all)."""
        text = self.room.site.problem_text(e)
        return self._send(answer(500, (jsonin.printable(text) + "\n").encode("utf-8"), "text/plain; charset=utf-8",
                                 self.room.site.CSP))

    def _send(self, a, phrase=None):
        gz = a.gz is not None and self._takes_gzip()
        etag = a.etag and (a.etag[:-1] + '.gz"' if gz else a.etag)
        fresh = etag is not None and etag in self._matches()
        self.send_response(304 if fresh else a.status, None if fresh else phrase)
        self.send_header("Content-Type", a.ctype)
        body = b"" if fresh else (a.gz if gz else a.body)
        if gz:
            self.send_header("Content-Encoding", "gzip")
        if a.gz is not None:
            self.send_header("Vary", "Accept-Encoding")
        if not fresh:
            self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", a.csp)
        self.send_header("X-Content-Type-Options", "nosniff")
        if etag:
            self.send_header("ETag", etag)
            self.send_header("Cache-Control", "no-cache")     # kept, asked again at each look (a 304 if the same)
        else:
            self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD" and not fresh and a.status >= 200 and a.status not in (204, 304):
            self.wfile.write(body)

    def _matches(self):
        return [t.strip() for t in (self.headers.get("If-None-Match") or "").split(",")]

    def _takes_gzip(self):
        for part in (self.headers.get("Accept-Encoding") or "").split(","):
            name, _, q = part.strip().partition(";")
            if name.strip().lower() == "gzip" and q.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000"):
                return True
        return False

    def log_message(self, *a):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = ROOM_BACKLOG

    def shutdown(self):
        self.RequestHandlerClass.room.stop()
        http.server.ThreadingHTTPServer.shutdown(self)

    def server_close(self):
        self.RequestHandlerClass.room.stop()
        http.server.ThreadingHTTPServer.server_close(self)


class Server6(Server):
    address_family = socket.AF_INET6


def loopback(host):
    """Does an address answer this machine only?"""
    return host in ("localhost", "::1") or host.startswith("127.")


def make_server(open_db, site, port=DEFAULT_PORT, host=HOST, poll_s=EVENTS_POLL_S):
    """A server on host:port (127.0.0.1 unless the organiser names another
    address; port 0: any free port) answering with the site's pages from
    open_db(); /events tells a page on screen when to take the new one
    (server-sent events).  Served beyond this machine (`public`), no answer
    names the database's file.  site(url, public) is the Site."""
    public = not loopback(host)
    cls = Server6 if ":" in host else Server
    handler = type("Handler", (Handler,), {})
    srv = cls((host, port), handler, bind_and_activate=False)
    try:
        srv.server_bind()
        srv.server_activate()
        url = page_url(host, srv.server_address[1])
        handler.room = Room(open_db, site(url, public), public, url, poll_s)
    except BaseException:
        srv.socket.close()
        raise
    return srv


def page_url(host, port):
    """The address people type or scan: for a server on every address
    (0.0.0.0, ::), this machine's address on the network it would reach
    the room by."""
    if host in ("0.0.0.0", "::", ""):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect(("192.0.2.1", 9))     # no packet is sent: this only picks the interface
                host = s.getsockname()[0]
        except OSError:
            host = "127.0.0.1"
    return "http://%s:%d/" % ("[%s]" % host if ":" in host else host, port)


def qr_for_terminal(url):
    """The QR code of `url` in Unicode blocks, or a line saying where it is
    when this terminal's encoding cannot draw them."""
    text = evening_page.qr_text(url)
    try:
        text.encode(sys.stdout.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return "(this terminal cannot draw the QR code: the page shows it, under the Evening view)"
    return text


def serve(srv, out=print):
    """Serve until Ctrl-C: 0, or 2 when the line saying where could not be
    written (out() said so on stderr; the page is served all the same).
    Served to the room, the address is printed with its QR code."""
    room = getattr(getattr(srv, "RequestHandlerClass", None), "room", None)
    url = room.url if room is not None else page_url(*srv.server_address[:2])
    if room is not None and room.public:
        said = out("serving the results page to the room on %s (read-only); Ctrl-C stops" % url)
        said = said or out(qr_for_terminal(url))
    else:
        said = out("serving the results page on %s (this machine only); Ctrl-C stops" % url)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    return 2 if said else 0
