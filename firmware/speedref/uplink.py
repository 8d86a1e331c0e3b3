# Finished games to the club over Wi-Fi and MQTT, kept on flash until the
# club's listener has stored them.
#
# A board with a network interface (Pico W, Pico 2 W, ESP32) and an
# uplink.json on its flash (written by `speedref-flash --uplink`, never
# printed) joins the club's Wi-Fi and publishes every finished game record,
# QoS 1, to
#
#     speedref/<club>/<table>/game
#
# and listens on
#
#     speedref/<club>/<table>/ack     (QoS 0)
#     speedref/<club>/<table>/match   (QoS 1)
#
# where the club's listener (speedref-log --mqtt) answers each record once
# it is in its database: "stored <id>" (or "refused <id>": its rules will
# never take it), and asks for records again: "resend <id> [<last>]"; and
# where the club's laptop puts this table's next match (retained: the
# broker hands it to the board at every connect; an empty message clears
# it), which goes to `on_match` (Device.take_match, speedref/match.py) and
# is acknowledged (PUBACK) once taken.  The
# broker's own acknowledgement (PUBACK) only says the broker has it: a broker
# drops what exceeds its queue limits and, without persistence, what it held
# when it stopped.  So a record counts as sent only on the club's word.
#
# The record files in rec/ are the queue (the spool).  sent.json holds the
# number of the newest record the club acknowledged, written once its
# acknowledgement is in: a record above it is unsent, whatever happened
# between (a Wi-Fi drop, a broker restart, a power cut, a laptop away), and
# is sent again, oldest first, one at a time, each waiting for the club's
# answer: CLUB_US, doubling to BACKOFF_MAX_US, then the same record goes
# again.  A record sent twice is one game on the laptop: the listener keys
# records by their id, and answers a copy it has with "stored" again.  The
# store never removes a record the club has not acknowledged and keeps at
# most KEEP of them (storage.py: when that many wait, the newest game waits
# on its final screen, saved).
#
# "resend <id> [<last>]": the club misses record numbers of this table
# (speedref-results gaps): the records numbered <id>'s number to <last>
# that the board still keeps are sent again, acknowledged or not.  The
# request is kept in the heap only (a request lost to a reset is asked
# again by the listener), as one range: requests widen it.
#
# The network never delays the referee: the device loop calls tick() only in
# a pass where nothing happened and no game is in play (App.flow and App.over:
# from a game's start to its record), so a verdict's lights, frame and sound
# never wait on it, and the club's answers wait in the socket until then.  At
# the menu or a final screen each tick does one short step: a socket call
# blocks SOCK_TIMEOUT_MS at most (connecting, the broker's CONNACK, a
# publish), what has arrived is read without blocking (RX_PASS bytes at
# most), and every failure waits a backoff (1 s, doubling to
# BACKOFF_MAX_US) before the next try.
#
# The MQTT client is micropython-lib's umqtt.simple (frozen in the image, or
# installed with mip): its connect() (CONNECT/CONNACK, user name and
# password, TLS); SUBSCRIBE and the QoS 1 PUBLISH are written here, and every
# packet read here, so the answers can be waited for across passes instead
# of inside umqtt's blocking calls.
from micropython import const

from .ticks import ticks_diff, ticks_add

CONFIG = "uplink.json"
_SENT = const("sent.json")
# Not tunables: nobody at the table waits on the uplink (it never runs in a game).
SOCK_TIMEOUT_MS = const(2000)    # longest a socket call may block (at the menu or a final screen)
ACK_US = const(10000000)         # a PUBLISH the broker has not acknowledged this long: the connection is dropped
CLUB_US = const(5000000)         # the first wait for the club's answer before the record goes again
JOIN_US = const(30000000)        # a Wi-Fi join that has not come up in this long is tried again
PING_US = const(60000000)        # an idle connection is checked (PINGREQ) this often
BACKOFF_US = const(1000000)      # the first wait after a failure, doubled after each
BACKOFF_MAX_US = const(64000000)
RX_MAX = const(160)              # the longest packet kept: an answer of the club's (topic and text)
_HEAD = const(96)                # the head of a longer packet kept: its topic and packet id
BIG_MAX = const(600)             # the longest match packet read whole (its JSON: 512 bytes, match.MESSAGE_MAX)
RX_PASS = const(2048)            # bytes read in one pass at most
_ID_MAX = const(64)              # the longest record id answered (a board's is under 40 characters)
_NAME_MAX = const(32)

# states
_DOWN = const(0)     # no Wi-Fi
_JOINING = const(1)  # Wi-Fi join started
_OFFLINE = const(2)  # Wi-Fi up, no broker connection
_ONLINE = const(3)   # connected and subscribed

# the club's answers
_STORED = const(1)
_REFUSED = const(2)
_RESEND = const(3)
_VERBS = (b"stored ", b"refused ", b"resend ")

_REFUSALS = ("", "protocol version refused", "client id refused", "broker unavailable",
             "bad user name or password", "not authorised")


def topic_name(name):
    """`name` when it can be one level of an MQTT topic (no / + #, short,
    printable ASCII), else None."""
    if not isinstance(name, str) or not 0 < len(name) <= _NAME_MAX:
        return None
    for c in name:
        if c in "/+#" or not " " < c <= "~":
            return None
    return name


def check(conf):
    """Why `conf` (uplink.json) cannot be used, or None."""
    if not isinstance(conf, dict):
        return "not an object"
    for key in ("ssid", "broker"):
        if not isinstance(conf.get(key), str) or not conf[key]:
            return "no " + key
    if topic_name(conf.get("club")) is None:
        return "club is not a topic name"
    if conf.get("table") is not None and topic_name(conf["table"]) is None:
        return "table is not a topic name"
    if conf.get("tls") and not isinstance(conf.get("ca"), str):
        return "tls needs the broker's CA certificate (ca, PEM)"
    port = conf.get("port", 0)
    if type(port) is not int or not 0 <= port < 65536:
        return "port out of range"
    return None


def wlan():
    """The board's Wi-Fi station interface, or None (no network module: the
    RPI_PICO build, the emulated Pico)."""
    try:
        import network
    except ImportError:
        return None
    make = getattr(network, "WLAN", None)
    return None if make is None else make(network.STA_IF)


def build(store, log, net=None):
    """The Uplink for this board, or None: no uplink.json (nothing logged),
    or one that cannot be used, or no network (said once in the log)."""
    conf, problem = store._load(CONFIG)
    if conf is None and problem is None:
        return None
    why = problem or check(conf)
    if why is None:
        net = net or wlan()
        if net is None:
            why = "no network interface on this board"
    if why is None:
        try:
            from umqtt.simple import MQTTClient
        except ImportError:
            why = "umqtt.simple is not installed"
    if why is not None:
        log.emit({"ev": "uplink", "state": "off", "msg": why})
        return None
    return Uplink(store, log, conf, net, MQTTClient)


class Uplink:
    def __init__(self, store, log, conf, net, client_class):
        self.store = store
        self.log = log
        self.net = net
        self._client_class = client_class
        self.conf = conf
        table = conf.get("table") or store.uid
        base = "speedref/%s/%s/" % (conf["club"], topic_name(table) or store.uid)
        self.topic = (base + "game").encode()
        self.ack_topic = (base + "ack").encode()
        self.match_topic = (base + "match").encode()
        self.on_match = None            # on_match(match or None, "wifi"): a match arrived (Device)
        self._uid = (store.uid + "-").encode()  # how this board's record ids begin
        self.client_id = "speedref-" + store.uid
        self.state = _DOWN
        self.client = None
        self.sent = self._load_sent()   # the newest record the club acknowledged
        store.acked = self.sent         # the store keeps what is above it (storage.py)
        self.out = 0                    # the record waiting for the club's answer (0: none)
        self._oid = bytearray(_ID_MAX)  # its id, as the record holds it (the club answers with it)
        self._oidn = 0
        self.out_pid = 0                # its PUBLISH's packet id while the broker has not acknowledged it
        self.out_at = 0                 # when it went
        self.club_wait = CLUB_US        # how long the club's answer is waited for before it goes again
        self.redo_lo = 0                # the records the club asked for again (0: none)
        self.redo_hi = 0
        self.ping = False               # a PINGREQ waits for its PINGRESP
        self.pid = 0
        self.wait_until = None          # no try before this instant (the backoff)
        self.backoff = BACKOFF_US
        self.since = 0                  # when the current state, wait or quiet began
        self.said = None                # the last state logged (one line per change)
        self._rx = bytearray(RX_MAX)    # the packet being read (its first RX_MAX bytes)
        self._mv = memoryview(self._rx)
        self._big = None                # a match packet longer than RX_MAX, read whole here
        self._one = memoryview(self._rx)[:1]
        self._rtype = 0                 # its first byte (0: none begun)
        self._rlen = -1                 # its remaining length (-1: still being read)
        self._racc = 0                  # the length read so far, and its next shift
        self._rsh = 0
        self._rgot = 0                  # its body bytes read
        self._nothing = -1              # store.writes when rec/ had nothing to send
        self.sends = 0                  # PUBLISH packets written (tests, the benchmark)
        self.pubacks = 0                # the broker's acknowledgements
        self.acks = 0                   # the club's: records stored (or refused) by its listener
        self.matches = 0                # match messages received (tests)

    # ---- the device loop's call ----------------------------------------------
    def tick(self, now):
        """One short step (see the module comment).  Never raises: a failure
        is logged (once per change) and waited out."""
        if self.wait_until is not None and ticks_diff(now, self.wait_until) < 0:
            return
        self.wait_until = None
        try:
            self._step(now)
        except MemoryError:
            self._drop(now, "no heap for it")
        except Exception as e:  # noqa: BLE001 - the network's failures are many; the referee goes on
            self._drop(now, _why(e))

    def _step(self, now):
        net = self.net
        if not net.isconnected():
            if self.state >= _OFFLINE:
                self._close()
                self._say("offline", "Wi-Fi lost")
                self.state = _DOWN
            if self.state == _DOWN:
                net.active(True)
                net.connect(self.conf["ssid"], self.conf.get("wifi_password") or "")
                self.state = _JOINING
                self.since = now
            elif ticks_diff(now, self.since) >= JOIN_US:
                self.state = _DOWN
                self._wait(now)
            return
        if self.state < _OFFLINE:
            self.state = _OFFLINE
        if self.state == _OFFLINE:
            self._connect(now)
            return
        self._read(now)
        if self.out:
            waited = ticks_diff(now, self.out_at)
            if self.out_pid and waited >= ACK_US:
                raise OSError("no answer from the broker in %d s" % (ACK_US // 1000000))
            if waited >= self.club_wait:
                # The broker may have dropped it (a queue limit, a restart)
                # or the laptop is away: the same record goes again.
                self._say("waiting", "no answer from the club's listener")
                self.club_wait = min(self.club_wait * 2, BACKOFF_MAX_US)
                self._publish(self.out, now)
            return
        if self.ping:
            if ticks_diff(now, self.since) >= ACK_US:
                raise OSError("no answer from the broker in %d s" % (ACK_US // 1000000))
            return
        seq = self._next()
        if seq:
            self._publish(seq, now)
        elif ticks_diff(now, self.since) >= PING_US:
            self._write(b"\xc0\x00")  # PINGREQ: is the connection still there?
            self.ping = True
            self.since = now

    # ---- the steps ---------------------------------------------------------
    def _connect(self, now):
        conf = self.conf
        tls = None
        if conf.get("tls"):
            # the broker's certificate is checked against the club's CA and
            # its name: without that, anyone on the Wi-Fi could be "the broker"
            import ssl
            tls = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            tls.verify_mode = ssl.CERT_REQUIRED
            tls.load_verify_locations(cadata=_der(conf["ca"]))
        c = self._client_class(self.client_id, conf["broker"], conf.get("port") or (8883 if tls else 1883),
                               user=conf.get("user") or None, password=conf.get("password") or None,
                               keepalive=0, ssl=tls)
        self.client = c
        try:
            c.connect(timeout=SOCK_TIMEOUT_MS / 1000)
        except Exception as e:
            code = e.args[0] if e.args else None
            if type(e).__name__ == "MQTTException" and type(code) is int and 0 < code < len(_REFUSALS):
                self.backoff = BACKOFF_MAX_US  # refused: trying again soon will not mend it
                raise OSError("broker refused: " + _REFUSALS[code])
            raise
        c.sock.setblocking(False)
        # A clean session: what the club said while the board was away is
        # not kept for it; an unanswered record simply goes again, and the
        # match, retained, comes again with the subscription.  The broker
        # handles this SUBSCRIBE before the PUBLISH after it, so no answer
        # to that record can come before the subscription is there.
        ack = self.ack_topic
        match = self.match_topic
        self.pid = self.pid % 65535 + 1
        pkt = bytearray(b"\x82\x00")
        pkt[1] = 2 + 2 + len(ack) + 1 + 2 + len(match) + 1
        pkt += self.pid.to_bytes(2, "big")
        pkt += len(ack).to_bytes(2, "big")
        pkt += ack
        pkt.append(0)  # QoS 0: an answer lost is asked for again by sending the record again
        pkt += len(match).to_bytes(2, "big")
        pkt += match
        pkt.append(1)  # QoS 1: a match is acknowledged once it is on flash
        self._write(pkt)
        self.state = _ONLINE
        self.since = now
        self._say("online", None)

    def _publish(self, seq, now):
        self.out_at = now
        body = self._body(seq)
        if body is None:  # gone (removed) or damaged: nothing to send
            self._done(seq, None)
            return
        self.pid = self.pid % 65535 + 1
        topic = self.topic
        n = 2 + len(topic) + 2 + len(body)
        head = bytearray(5)
        head[0] = 0x32  # PUBLISH, QoS 1
        i = 1
        while n > 0x7F:
            head[i] = (n & 0x7F) | 0x80
            n >>= 7
            i += 1
        head[i] = n
        pkt = bytearray(head[:i + 1])
        pkt += len(topic).to_bytes(2, "big")
        pkt += topic
        pkt += self.pid.to_bytes(2, "big")
        pkt += body
        body = None
        self._write(pkt)
        self.sends += 1
        self.out = seq
        self.out_pid = self.pid

    def _read(self, now):
        """Every packet that has arrived, RX_PASS bytes at most: a packet
        over RX_MAX is read and let go (no answer of the club's is that
        long)."""
        sock = self.client.sock
        mv = self._mv
        budget = RX_PASS
        while budget > 0:
            n = self._rlen
            if n < 0:  # the fixed header: a type byte, then the length, 7 bits a byte
                k = sock.readinto(self._one)
                if k is None:
                    return  # nothing more yet
                if not k:
                    raise OSError("broker closed the connection")
                budget -= 1
                b = self._rx[0]
                if not self._rtype:
                    self._rtype = b
                    self._racc = self._rsh = 0
                    continue
                self._racc |= (b & 0x7F) << self._rsh
                self._rsh += 7
                if b & 0x80:
                    if self._rsh > 21:
                        raise OSError("a packet of no MQTT length from the broker")
                    continue
                self._rlen = n = self._racc
                self._rgot = 0
            got = self._rgot
            if got < n:
                big = self._big
                if big is not None:
                    k = sock.readinto(big[got:n])
                elif n <= RX_MAX:
                    k = sock.readinto(mv[got:n])
                elif got < _HEAD:  # a longer packet: its head kept, then the rest let go
                    k = sock.readinto(mv[got:_HEAD])
                else:
                    k = sock.readinto(mv[_HEAD:_HEAD + min(n - got, RX_MAX - _HEAD)])
                if k is None:
                    return
                if not k:
                    raise OSError("broker closed the connection")
                budget -= k
                self._rgot = got = got + k
                if big is None and n > RX_MAX and got == _HEAD:
                    self._grow(n)
                if got < n:
                    continue
            t = self._rtype
            self._rtype = 0
            self._rlen = -1
            big = self._big
            self._big = None
            if big is not None:
                self._packet(t, n, now, big)
            elif n <= RX_MAX:
                self._packet(t, n, now, mv)
            else:
                self._too_long(t, n)

    def _grow(self, n):
        """A packet longer than RX_MAX whose head is in: a match is read
        whole into a buffer of its own (made now, at rest, let go once
        taken); anything else is let go as it is read."""
        mv = self._mv
        if self._rtype & 0xF0 == 0x30 and n <= BIG_MAX and self._on(mv, self.match_topic):
            big = memoryview(bytearray(n))
            big[:_HEAD] = mv[:_HEAD]
            self._big = big

    def _too_long(self, t, n):
        """A packet too long to be read whole: only its head is here.  A
        match that long is said to be refused; a PUBLISH of QoS 1 is
        acknowledged all the same (the broker would hold it otherwise)."""
        if t & 0xF0 != 0x30:
            return
        mv = self._mv
        if self._on(mv, self.match_topic):
            self.log.emit({"ev": "error", "what": "match", "from": "wifi",
                           "msg": "a match of %d bytes: %d at most" % (n, BIG_MAX)})
        self._puback(t, mv)

    def _on(self, rx, topic):
        """The PUBLISH in rx is on `topic`."""
        k = rx[0] << 8 | rx[1]
        return k == len(topic) and _starts(rx, 2, 2 + k, topic)

    def _puback(self, t, rx):
        """Acknowledge a PUBLISH of QoS 1 (its packet id after its topic)."""
        if t & 0x06 == 0x02:
            i = 2 + (rx[0] << 8 | rx[1])
            self._write(bytes((0x40, 2, rx[i], rx[i + 1])))

    def _packet(self, t, n, now, rx):
        kind = t & 0xF0
        if kind == 0x30:  # PUBLISH: the club's answers, or this table's match
            i = 2 + (rx[0] << 8 | rx[1])
            if t & 0x06:
                i += 2  # a packet id
            if i > n:
                raise OSError("a PUBLISH shorter than its topic from the broker")
            if self._on(rx, self.match_topic):
                self._match(rx, i, n)
            elif i < n and self._on(rx, self.ack_topic):
                self._club(rx, i, n)
            self._puback(t, rx)
        elif kind == 0x40 and n == 2:  # PUBACK: the broker has the record
            if self.out_pid and (rx[0] << 8 | rx[1]) == self.out_pid:
                self.out_pid = 0
                self.pubacks += 1
                self.backoff = BACKOFF_US  # the broker takes records: a later failure starts afresh
        elif kind == 0x90 and n == 4:  # SUBACK: the answers' topic, then the match's
            if rx[2] & 0x80:
                self.backoff = BACKOFF_MAX_US
                raise OSError("broker refused: not authorised to read " + self.ack_topic.decode())
            if rx[3] & 0x80:  # records still go; the table picks its players itself
                self.log.emit({"ev": "error", "what": "uplink",
                               "msg": "broker refused: not authorised to read " + self.match_topic.decode()})
        elif t == 0xD0 and n == 0:  # PINGRESP
            self.ping = False
            self.since = now
        else:
            raise OSError("unexpected packet 0x%02x from the broker" % t)

    def _match(self, rx, i, n):
        """This table's match in rx[i:n] (JSON; empty: none), handed to
        on_match.  Not JSON: said, and let go."""
        import json
        self.matches += 1
        m = None
        if i < n:
            try:
                m = json.loads(str(bytes(rx[i:n]), "utf-8"))
            except (ValueError, UnicodeError):
                self.log.emit({"ev": "error", "what": "match", "from": "wifi", "msg": "not JSON"})
                return
        if self.on_match is not None:
            self.on_match(m, "wifi")

    def _club(self, rx, i, n):
        """The club's answer in rx[i:n]: "stored <id>" or "refused <id>"
        for the record in flight (its id as the record holds it), or
        "resend <id> [<last>]" for records of this board (numbered in its
        id's last part); any other text is let go."""
        verb = 0
        for v in range(3):
            if _starts(rx, i, n, _VERBS[v]):
                verb = v + 1
                i += len(_VERBS[v])
                break
        if not verb:
            return
        if verb != _RESEND:
            k = self._oidn
            if self.out and k and n - i == k and _starts(rx, i, n, memoryview(self._oid)[:k]):
                self._done(self.out, "stored" if verb == _STORED else "refused")
            return
        j = i  # the id: up to a space or the end
        while j < n and rx[j] != 0x20:
            j += 1
        d = j  # its number: the digits after its last "-"
        while d > i and 0x30 <= rx[d - 1] <= 0x39:
            d -= 1
        if d == j or d - 1 <= i or rx[d - 1] != 0x2D or not _starts(rx, i, j, self._uid):
            return
        seq = _number(rx, d, j)[0]
        last = seq
        if j < n:
            last, j = _number(rx, j + 1, n)
        if not seq or j != n or last < seq:
            return
        if self.redo_lo:
            seq = min(seq, self.redo_lo)
            last = max(last, self.redo_hi)
        self.redo_lo = seq
        self.redo_hi = last
        self._nothing = -1
        self.log.emit({"ev": "uplink", "state": "resend", "seq": seq, "last": last})

    def _done(self, seq, said):
        """The club answered for record `seq` (said: "stored" or "refused"),
        or it is no longer there to send (said: None)."""
        self.out = 0
        self.out_pid = 0
        self.since = self.out_at  # quiet from here: a PINGREQ after PING_US of it
        if seq > self.sent:
            self._mark_sent(seq)
        if self.redo_lo and self.redo_lo <= seq <= self.redo_hi:
            self.redo_lo = seq + 1
            if self.redo_lo > self.redo_hi:
                self.redo_lo = self.redo_hi = 0
        if said is not None:
            self.acks += 1
            self.club_wait = CLUB_US
            self.said = None  # a wait after this one is said again
            self.log.emit({"ev": "uplink", "state": said, "seq": seq, "msg": self.topic.decode()})

    # ---- failures ----------------------------------------------------------
    def _drop(self, now, why):
        """Close the connection and wait the backoff; the record in flight
        stays unsent and goes again once connected."""
        self._close()
        if self.state >= _OFFLINE:
            self.state = _OFFLINE
        self._say("offline", why)
        self._wait(now)

    def _wait(self, now):
        self.wait_until = ticks_add(now, self.backoff)
        self.backoff = min(self.backoff * 2, BACKOFF_MAX_US)

    def _close(self):
        c = self.client
        self.client = None
        self.out = 0
        self.out_pid = 0
        self.ping = False
        self._rtype = 0
        self._rlen = -1
        self._big = None
        self._nothing = -1
        if c is not None and c.sock is not None:
            try:
                c.sock.close()
            except Exception:  # noqa: BLE001 - closing a broken socket may fail too
                pass

    def _write(self, data):
        sock = self.client.sock
        timed = getattr(sock, "settimeout", None)  # a TLS socket has none: it blocks to the end
        if timed is not None:
            timed(SOCK_TIMEOUT_MS / 1000)
        else:
            sock.setblocking(True)
        try:
            n = sock.write(data)
        finally:
            sock.setblocking(False)
        if n != len(data):
            raise OSError("the broker took %s of %d bytes" % (n, len(data)))

    def _say(self, state, msg):
        key = (state, msg)
        if key == self.said:
            return
        self.said = key
        line = {"ev": "uplink", "state": state, "msg": msg if msg else self.topic.decode()}
        self.log.emit(line)

    # ---- the queue on flash ------------------------------------------------
    def _load_sent(self):
        obj, _ = self.store._load(_SENT)
        if isinstance(obj, dict) and type(obj.get("seq")) is int and obj["seq"] >= 0:
            return obj["seq"]
        return 0

    def _mark_sent(self, seq):
        self.store._write(_SENT, {"seq": seq})
        self.sent = seq
        self.store.acked = seq

    def _next(self):
        """The next record to send, oldest first: one the club asked for
        again, or one above `sent`; 0 for none."""
        store = self.store
        # rec/ is listed again only once something has changed since it was
        # last found with nothing to send (a pass at rest every 20 ms would
        # otherwise list the folder every time)
        if self._nothing == store.writes:
            return 0
        lo = self.redo_lo
        hi = self.redo_hi
        for seq in store._seqs():
            if seq > self.sent or lo <= seq <= hi:
                return seq
        self.redo_lo = self.redo_hi = 0  # none of those asked for is kept
        self._nothing = store.writes
        return 0

    def backlog(self):
        """How many records are still to send."""
        return sum(1 for s in self.store._seqs() if s > self.sent)

    def _body(self, seq):
        """The record's JSON as stored (checked against its CRC), or None;
        its id is kept in _oid for the club's answer."""
        from .storage import decode, OK
        try:
            with open(self.store._p(self.store._rec_name(seq)), "rb") as f:
                data = f.read()
        except OSError:
            return None
        if decode(data)[0] != OK:
            return None
        start = data.find(b"\n") + 1
        # the id as json.dump wrote it: a board's ids hold no quote or escape
        k = data.find(b'"id": "', start) + 7
        e = data.find(b'"', k) if k >= 7 else -1
        self._oidn = e - k if 0 < e - k <= _ID_MAX else 0
        if self._oidn:
            self._oid[:self._oidn] = memoryview(data)[k:e]
        return memoryview(data)[start:]


def _starts(buf, i, n, lit):
    """buf[i:n] begins with the bytes `lit` (compared in place)."""
    k = len(lit)
    if n - i < k:
        return False
    for j in range(k):
        if buf[i + j] != lit[j]:
            return False
    return True


def _number(buf, i, n):
    """(the decimal number at buf[i:], the index after it); 0 for none (or
    one of more than 9 digits)."""
    v = 0
    j = i
    while j < n and 0x30 <= buf[j] <= 0x39 and j - i < 9:
        v = v * 10 + buf[j] - 0x30
        j += 1
    if j == i or (j < n and 0x30 <= buf[j] <= 0x39):
        return 0, j
    return v, j


def _der(pem):
    """A PEM certificate's DER bytes (MicroPython's mbedtls loads DER: a PEM
    would need a NUL after it)."""
    from binascii import a2b_base64
    return a2b_base64("".join(line for line in pem.split("\n") if line and not line.startswith("-----")))


def _why(e):
    """A short reason for a failure, without anything from the config."""
    if isinstance(e, OSError) and e.args and type(e.args[0]) is str:
        return e.args[0]  # ours, above
    if isinstance(e, OSError) and e.args and type(e.args[0]) is int:
        import errno
        code = e.args[0]
        for name in ("ECONNREFUSED", "ETIMEDOUT", "EHOSTUNREACH", "ECONNRESET", "ENOTCONN", "EPIPE"):
            if getattr(errno, name, None) == code:
                return name
        return "OSError %d" % code
    return "%s: %s" % (type(e).__name__, e)
