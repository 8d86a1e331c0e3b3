"""The results pages as --serve answers them (host_tools/views/serve.py serves
them): which address is which page, and each page made from one snapshot
of the database.

    /          the live page
    /round     the current round's printable page (evening_page.round_page)
"""
import datetime

from host_tools.club import evening
from host_tools.views import evening_page, results_page, serve

HTML = "text/html; charset=utf-8"


class Site:
    """The pages of one database, served to this machine or to the room
    (`public`: no file path in any answer; the QR code of `url` on the
    page).  `evening`: the evening the Evening view and /round show (None:
    the latest)."""

    CSP = results_page.CSP

    def __init__(self, source="", evening=None, url=None, public=False):
        self.source = "" if public else source
        self.evening = evening
        self.url = url
        self.public = public

    def route(self, path, query):
        """(the page's key, make(db, version) -> (status, body, type, CSP)),
        or None: no such page."""
        if path in ("/", "/index.html"):
            return "/", self.live
        if path == "/round":
            return "/round", self.round
        return None

    def live(self, db, version):
        text = results_page.render(db, self.source, refresh_s=results_page.SERVE_REFRESH_S, version=version,
                                   evening=self.evening, url=self.url if self.public else None)[0]
        return 200, text.encode("utf-8"), HTML, results_page.LIVE_CSP

    def round(self, db, version):
        """The current round's printable page; 404 before the first round."""
        try:
            t = evening.tonight(db, evening.find(db, self.evening))
        except evening.Refused:
            t = None
        if t is None or not t.rounds:
            return 404, b"no round yet\n", "text/plain; charset=utf-8", self.CSP
        made = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M")
        return 200, evening_page.round_page(t, t.rounds[-1], made).encode("utf-8"), HTML, evening_page.CSP

    def problem_text(self, e):
        """A database that cannot be read, in one line: named by its file
        name as the page names it; served to the room, not named at all."""
        if self.public:
            return "the results database cannot be read just now"
        return str(e).replace(self.source, results_page.file_name(self.source)) if self.source else str(e)


def make_server(open_db, source="", port=serve.DEFAULT_PORT, host=serve.HOST, evening=None,
                poll_s=serve.EVENTS_POLL_S):
    """serve.make_server with the results pages of the database open_db()
    opens (`source`: its path, named by its file name alone)."""
    return serve.make_server(open_db, lambda url, public: Site(source, evening, url, public), port, host, poll_s)
