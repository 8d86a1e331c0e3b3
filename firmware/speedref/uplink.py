# Finished games to the club's MQTT broker over Wi-Fi, stored and forwarded.
#
# A board with a network interface (Pico W, Pico 2 W, ESP32) and an
# uplink.json on its flash (written by `speedref-flash --uplink`, never
# printed) joins the club's Wi-Fi and publishes every finished game record,
# QoS 1, to
#
#     speedref/<club>/<table>/game
#
# The record files in rec/ are the queue.  sent.json holds the number of the
# newest record the broker has acknowledged (PUBACK), written only once the
# acknowledgement is in: a record above it is unsent, whatever happened
# between (a Wi-Fi drop, a broker restart, a power cut), and is sent again,
# oldest first, one at a time, each waiting for its PUBACK.  A record sent
# twice (the cut came between the broker's copy and our sent.json) is one
# game on the laptop: the listener keys records by their id.
#
# The network never delays the referee: the device loop calls tick() only in
# a pass where nothing happened and no game is in play (App.flow and App.over: from a
# game's start to its record), so a verdict's lights, frame and sound never
# wait on it.  At the menu or a final screen each tick does one short step:
# a socket call blocks SOCK_TIMEOUT_MS at most (connecting, the broker's
# CONNACK, a publish), the PUBACK is read without blocking, and every failure
# waits a backoff (1 s, doubling to BACKOFF_MAX_US) before the next try.
#
# The MQTT client is micropython-lib's umqtt.simple (frozen in the image, or
# installed with mip): its connect() (CONNECT/CONNACK, user name and
# password, TLS); the QoS 1 PUBLISH is written here, so its PUBACK can be
# waited for across passes instead of inside publish().
from micropython import const

from .ticks import ticks_diff, ticks_add

CONFIG = "uplink.json"
_SENT = const("sent.json")
# Not tunables: nobody at the table waits on the uplink (it never runs in a game).
SOCK_TIMEOUT_MS = const(2000)    # longest a socket call may block (at the menu or a final screen)
ACK_US = const(10000000)         # a PUBLISH unacknowledged this long: the connection is dropped
JOIN_US = const(30000000)        # a Wi-Fi join that has not come up in this long is tried again
PING_US = const(60000000)        # an idle connection is checked (PINGREQ) this often
BACKOFF_US = const(1000000)      # the first wait after a failure, doubled after each
BACKOFF_MAX_US = const(64000000)
_NAME_MAX = const(32)

# states
_DOWN = const(0)     # no Wi-Fi
_JOINING = const(1)  # Wi-Fi join started
_OFFLINE = const(2)  # Wi-Fi up, no broker connection
_READY = const(3)    # connected, nothing in flight
_ACK = const(4)      # a PUBLISH (or PINGREQ) waits for its answer

_REFUSED = ("", "protocol version refused", "client id refused", "broker unavailable",
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
        self.topic = ("speedref/%s/%s/game" % (conf["club"], topic_name(table) or store.uid)).encode()
        self.client_id = "speedref-" + store.uid
        self.state = _DOWN
        self.client = None
        self.sent = self._load_sent()   # the newest record acknowledged
        self.inflight = None            # (seq, pid) of the PUBLISH waiting for its PUBACK
        self.ping = False               # a PINGREQ waits for its PINGRESP
        self.pid = 0
        self.dup = False                # the record in hand went out before: DUP set
        self.wait_until = None          # no try before this instant (the backoff)
        self.backoff = BACKOFF_US
        self.since = 0                  # when the current state or wait began
        self.said = None                # the last state logged (one line per change)
        self._rx = bytearray(4)
        self._rxn = 0
        self._nothing = -1              # store.writes when rec/ had nothing to send
        self.sends = 0                  # PUBLISH packets written (tests, the benchmark)
        self.acks = 0

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
        elif self.state == _READY:
            self._send_next(now)
        else:
            self._read(now)

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
            if type(e).__name__ == "MQTTException" and type(code) is int and 0 < code < len(_REFUSED):
                self.backoff = BACKOFF_MAX_US  # refused: trying again soon will not mend it
                raise OSError("broker refused: " + _REFUSED[code])
            raise
        c.sock.setblocking(False)
        self.state = _READY
        self.since = now
        self._rxn = 0
        self._say("online", None)

    def _send_next(self, now):
        store = self.store
        # rec/ is listed again only once the store has written something
        # since it was last found with nothing to send (a pass at rest every
        # 20 ms would otherwise list the folder every time)
        seq = None if self._nothing == store.writes else self._next_unsent()
        if seq is None:
            self._nothing = store.writes
            if ticks_diff(now, self.since) >= PING_US:
                self._write(b"\xc0\x00")  # PINGREQ: is the connection still there?
                self.ping = True
                self.state = _ACK
                self.since = now
            return
        body = self._body(seq)
        if body is None:  # gone (removed for room) or damaged: nothing to send
            self._mark_sent(seq)
            return
        self.pid = self.pid % 65535 + 1
        topic = self.topic
        n = 2 + len(topic) + 2 + len(body)
        head = bytearray(5)
        head[0] = 0x3A if self.dup else 0x32  # PUBLISH, QoS 1 (DUP when sent before)
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
        self.dup = True  # from now on it has been out: a resend carries DUP
        self.inflight = (seq, self.pid)
        self.state = _ACK
        self.since = now

    def _read(self, now):
        sock = self.client.sock
        while self._rxn < 4:
            mv = memoryview(self._rx)
            k = sock.readinto(mv[self._rxn:self._rxn + 1])
            if k is None:
                break  # nothing more yet
            if not k:
                raise OSError("broker closed the connection")
            self._rxn += 1
            got = self._packet()
            if got:
                break
        if self.state == _ACK and ticks_diff(now, self.since) >= ACK_US:
            raise OSError("no answer from the broker in %d s" % (ACK_US // 1000000))

    def _packet(self):
        """A whole packet in _rx: handled, True.  Only PUBACK (4 bytes) and
        PINGRESP (2 bytes) are expected; anything else drops the connection."""
        rx = self._rx
        n = self._rxn
        if n < 2:
            return False
        if rx[0] == 0xD0 and rx[1] == 0:
            self._rxn = 0
            if self.ping:
                self.ping = False
                self.state = _READY
            return True
        if rx[0] != 0x40 or rx[1] != 2:
            raise OSError("unexpected packet 0x%02x from the broker" % rx[0])
        if n < 4:
            return False
        self._rxn = 0
        pid = rx[2] << 8 | rx[3]
        f = self.inflight
        if f is not None and pid == f[1]:
            self.inflight = None
            self.acks += 1
            self._mark_sent(f[0])
            self.backoff = BACKOFF_US  # the broker takes records: a later failure starts afresh
            self.state = _READY
            self.log.emit({"ev": "uplink", "state": "sent", "seq": f[0], "msg": self.topic.decode()})
        return True

    # ---- failures ----------------------------------------------------------
    def _drop(self, now, why):
        """Close the connection and wait the backoff; the record in flight
        stays unsent and goes again (DUP) once connected."""
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
        self.inflight = None
        self.ping = False
        self._rxn = 0
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
        self.sent = seq
        self.dup = False
        self.store._write(_SENT, {"seq": seq})

    def _next_unsent(self):
        """The oldest record above `sent`, or None."""
        best = None
        for seq in self.store._seqs():
            if seq > self.sent:
                best = seq
                break
        return best

    def backlog(self):
        """How many records are still to send."""
        return sum(1 for s in self.store._seqs() if s > self.sent)

    def _body(self, seq):
        """The record's JSON as stored (checked against its CRC), or None."""
        from .storage import decode, OK
        try:
            with open(self.store._p(self.store._rec_name(seq)), "rb") as f:
                data = f.read()
        except OSError:
            return None
        if decode(data)[0] != OK:
            return None
        return memoryview(data)[data.find(b"\n") + 1:]


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
