"""A real MQTT broker and Wi-Fi tables for the uplink tests.

Broker: Mosquitto (Debian package `mosquitto`, which .ci/run installs) on a
free loopback port with a config written here, never the system service.
Without it the tests skip with one line.

The board side is the firmware's own speedref/uplink.py under the MicroPython
Unix port (tests/mpy/uplink_board.py), whose sockets are real, with
micropython-lib's umqtt.simple on its path: micropython-lib at the commit
MicroPython v1.28.0 pins (8380c7bb, umqtt.simple 1.7.0), found in
$SPEEDREF_MICROPYTHON_LIB or ~/.cache/speedref/micropython-lib (a checkout,
or the image build's lib/micropython-lib); docs/testing.md says how to get it.
Not in this repository: it is another project's code.
"""
import hashlib
import json
import os
import select
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import mpyrun
from emu.board import stop_process

UMQTT_COMMIT = "8380c7bb8f9e5e5260e9539156742925e00366b2"
UMQTT_SHA256 = "0792c0bd6d9219c8180a9ee7dae3d7c15fafe53e0605fa30839b1033fa4a189c"  # umqtt/simple.py 1.7.0
LIB_ENV = "SPEEDREF_MICROPYTHON_LIB"
START_S = 10.0  # a broker that is not listening after this long did not start


def mosquitto():
    return shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None)


def umqtt_dir():
    """The folder holding umqtt/simple.py (pinned), or None."""
    for base in (os.environ.get(LIB_ENV), os.path.expanduser("~/.cache/speedref/micropython-lib")):
        if not base:
            continue
        d = Path(base) / "micropython" / "umqtt.simple"
        f = d / "umqtt" / "simple.py"
        if f.is_file() and hashlib.sha256(f.read_bytes()).hexdigest() == UMQTT_SHA256:
            return d
    return None


def why_missing(board=True):
    if mosquitto() is None:
        return "mosquitto is not installed (apt-get install mosquitto): MQTT tests skipped"
    if board and umqtt_dir() is None:
        return ("micropython-lib %s (umqtt.simple 1.7.0) not in $%s or ~/.cache/speedref/micropython-lib:"
                " board-side MQTT tests skipped" % (UMQTT_COMMIT[:8], LIB_ENV))
    if board and not mpyrun.MICROPYTHON.exists():
        return "no micropython binary"
    return None


def make_ca(folder):
    """A CA and a broker certificate for "localhost" signed by it (openssl):
    (ca.pem, broker.pem, broker.key) paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ca, ca_key = folder / "ca.pem", folder / "ca.key"
    crt, key, csr = folder / "broker.pem", folder / "broker.key", folder / "broker.csr"
    run = lambda *a: subprocess.run(["openssl", *a], check=True, capture_output=True)  # noqa: E731
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca),
        "-days", "2", "-subj", "/CN=speedref test club CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", "/CN=localhost")
    ext = folder / "ext.cnf"
    ext.write_text("subjectAltName=DNS:localhost\n")
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
        "-out", str(crt), "-days", "2", "-extfile", str(ext))
    return ca, crt, key


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listening(port, proc=None, timeout=START_S):
    """Until something accepts on 127.0.0.1:port (each try an event: a
    refused connect returns at once)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("the broker exited (%s)" % proc.returncode)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError("nothing listening on port %d after %.0f s" % (port, timeout))


class Broker:
    """Mosquitto on 127.0.0.1:port.  users: {name: password} (then nobody
    gets in without one, unless anonymous=True)."""

    def __init__(self, folder, users=None, anonymous=None, port=None, limit=None, tls=None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.proc = None
        import pwd
        # persistence saved at every change: the listener's session (its
        # subscription, the messages queued for it) outlives a broker killed
        # and started again, as docs/host-tools.md tells a club to run it;
        # `user`: a broker started as root stays this user (its files are ours)
        conf = ["listener %d 127.0.0.1" % self.port, "persistence true",
                "persistence_location %s/" % self.folder, "autosave_interval 1", "autosave_on_changes true",
                "user %s" % pwd.getpwuid(os.getuid()).pw_name,
                "log_dest file %s" % (self.folder / "mosquitto.log"), "log_type error",
                "log_type warning", "log_type notice"]
        if limit:
            conf.append("message_size_limit %d" % limit)
        if tls:  # (ca, cert, key) files: the listener speaks TLS only
            conf += ["cafile %s" % tls[0], "certfile %s" % tls[1], "keyfile %s" % tls[2]]
        if users:
            pw = self.folder / "passwd"
            pw.write_text("")
            for name, password in users.items():
                subprocess.run(["mosquitto_passwd", "-b", str(pw), name, password], check=True,
                               capture_output=True)
            conf.append("password_file %s" % pw)
            conf.append("allow_anonymous %s" % ("true" if anonymous else "false"))
        else:
            conf.append("allow_anonymous true")
        self.conf = self.folder / "mosquitto.conf"
        self.conf.write_text("\n".join(conf) + "\n")
        self.url = ("mqtts://localhost:%d" if tls else "mqtt://127.0.0.1:%d") % self.port

    def start(self):
        self.proc = subprocess.Popen([mosquitto(), "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        wait_listening(self.port, self.proc)
        return self

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def pause(self):
        """SIGSTOP: the broker holds what it gets and answers nothing."""
        import signal
        self.proc.send_signal(signal.SIGSTOP)

    def restart(self):
        self.kill()
        return self.start()

    def stop(self):
        self.kill()


CLUB_CONF = Path(__file__).resolve().parent.parent / "docs" / "mosquitto" / "club.conf"
CLUB_ACL = CLUB_CONF.with_name("club.acl")
BRIDGE_CONF = CLUB_CONF.with_name("bridge.conf")
LEAGUE_CONF = CLUB_CONF.with_name("league.conf")
LEAGUE_ACL = CLUB_CONF.with_name("league.acl")


def placed(path, places, settings=None):
    """The lines of the documented file at `path` with the lines that name
    a real machine's places replaced (each must be there exactly once, so
    the file and this rig cannot drift apart), and `settings` ({name:
    value}) replacing the values of settings the file has."""
    lines = Path(path).read_text().splitlines()
    for old, new in places.items():
        at = [i for i, line in enumerate(lines) if line == old]
        assert len(at) == 1, "%s: %r is not there once" % (path, old)
        lines[at[0]] = new
    for name, value in (settings or {}).items():
        at = [i for i, line in enumerate(lines) if line.split(" ", 1)[0] == name]
        assert len(at) == 1, "%s sets no %s (or sets it twice)" % (path, name)
        lines[at[0]] = "%s %s" % (name, value)
    return lines


def _passwords(folder, accounts):
    pw = Path(folder) / "passwd"
    pw.write_text("")
    for name, password in accounts.items():
        subprocess.run(["mosquitto_passwd", "-b", str(pw), name, password], check=True, capture_output=True)
    return pw


class ClubBroker(Broker):
    """Mosquitto started with the club's own configuration, the very file
    docs/host-tools.md gives (docs/mosquitto/club.conf and its ACL, used as
    it is), on a free loopback port: only the lines that name this
    machine's places are replaced (placed()), and `settings` ({name:
    value}) replace the values of settings the file has (a test's small
    queue, persistence off).  accounts: {user name: password}; the
    listener's is "listener".

    bridge: joins it to a league's broker with docs/mosquitto/bridge.conf's
    lines, appended as docs/host-tools.md says, their places set:
    {"club": the club's name (locally and in the league), "port": the
    league broker's, "ca": its CA certificate, "password": the club's
    password there}."""

    def __init__(self, folder, accounts, settings=None, port=None, bridge=None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.proc = None
        pw = _passwords(self.folder, accounts)
        self.log = self.folder / "mosquitto.log"
        lines = placed(CLUB_CONF, {
            "listener 1883": "listener %d 127.0.0.1" % self.port,
            "pid_file /run/mosquitto/mosquitto.pid": "pid_file %s" % (self.folder / "mosquitto.pid"),
            "log_dest file /var/log/mosquitto/mosquitto.log": "log_dest file %s" % self.log,
            "password_file /etc/mosquitto/speedref.passwd": "password_file %s" % pw,
            "acl_file /etc/mosquitto/speedref.acl": "acl_file %s" % CLUB_ACL,
            "persistence_location /var/lib/mosquitto/": "persistence_location %s/" % self.folder}, settings)
        if bridge is not None:
            club = bridge["club"]
            lines += placed(BRIDGE_CONF, {
                "address league.example.org:8883": "address localhost:%d" % bridge["port"],
                "bridge_cafile /etc/mosquitto/certs/league-ca.pem": "bridge_cafile %s" % bridge["ca"],
                "remote_username riverside": "remote_username %s" % club,
                "remote_password riverside-league-password": "remote_password %s" % bridge["password"],
                "remote_clientid speedref-bridge-riverside": "remote_clientid speedref-bridge-%s" % club,
                "topic +/game out 1 speedref/riverside/ speedref/riverside/":
                    "topic +/game out 1 speedref/%s/ speedref/%s/" % (club, club)})
        import pwd
        # a broker started as root becomes this user, not `mosquitto`: its files are ours
        lines.append("user %s" % pwd.getpwuid(os.getuid()).pw_name)
        self.conf = self.folder / "mosquitto.conf"
        self.conf.write_text("\n".join(lines) + "\n")
        self.url = "mqtt://listener@127.0.0.1:%d" % self.port

    def stop(self):
        """SIGTERM: the broker saves its persistence file on the way out."""
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(30)
            self.proc = None

    def dropped(self):
        """The broker's log says it dropped messages for a client (a full queue)."""
        return "are being dropped" in (self.log.read_text() if self.log.exists() else "")


class LeagueBroker(ClubBroker):
    """Mosquitto started with the league's configuration, the very files
    docs/host-tools.md gives (docs/mosquitto/league.conf and league.acl), on
    a free loopback port with TLS: a CA and a certificate for "localhost"
    made here (make_ca), the places replaced as ClubBroker's are.
    accounts: {user name: password}: the league's listener's is "league",
    each club's is its name."""

    def __init__(self, folder, accounts, settings=None, port=None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.proc = None
        self.ca, crt, key = make_ca(self.folder / "certs")
        pw = _passwords(self.folder, accounts)
        self.log = self.folder / "mosquitto.log"
        lines = placed(LEAGUE_CONF, {
            "listener 8883": "listener %d 127.0.0.1" % self.port,
            "cafile /etc/mosquitto/certs/league-ca.pem": "cafile %s" % self.ca,
            "certfile /etc/mosquitto/certs/league.pem": "certfile %s" % crt,
            "keyfile /etc/mosquitto/certs/league.key": "keyfile %s" % key,
            "pid_file /run/mosquitto/mosquitto.pid": "pid_file %s" % (self.folder / "mosquitto.pid"),
            "log_dest file /var/log/mosquitto/mosquitto.log": "log_dest file %s" % self.log,
            "password_file /etc/mosquitto/speedref-league.passwd": "password_file %s" % pw,
            "acl_file /etc/mosquitto/speedref-league.acl": "acl_file %s" % LEAGUE_ACL,
            "persistence_location /var/lib/mosquitto/": "persistence_location %s/" % self.folder}, settings)
        import pwd
        lines.append("user %s" % pwd.getpwuid(os.getuid()).pw_name)
        self.conf = self.folder / "mosquitto.conf"
        self.conf.write_text("\n".join(lines) + "\n")
        self.url = "mqtts://league@localhost:%d" % self.port


class Stalled:
    """A broker that accepts and acknowledges the CONNECT, then answers
    nothing more: a wedged broker.  `published` counts PUBLISH packets seen."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.conns = []
        self.published = 0
        self.got = threading.Condition()
        self.running = True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while self.running:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            threading.Thread(target=self._client, args=(c,), daemon=True).start()

    def _client(self, c):
        first = True
        try:
            while True:
                head = c.recv(1)
                if not head:
                    return
                n, sh = 0, 0
                while True:
                    b = c.recv(1)[0]
                    n |= (b & 0x7F) << sh
                    sh += 7
                    if not b & 0x80:
                        break
                body = b""
                while len(body) < n:
                    part = c.recv(n - len(body))
                    if not part:
                        return
                    body += part
                if first and head[0] == 0x10:
                    c.sendall(b"\x20\x02\x00\x00")  # CONNACK, accepted; then silence
                    first = False
                else:
                    self._packet(c, head[0], body)
        except OSError:
            return

    def _packet(self, c, head, body):
        """A packet after the CONNECT: a PUBLISH is counted, nothing answered."""
        if head & 0xF0 == 0x30:
            with self.got:
                self.published += 1
                self.got.notify_all()

    def close(self):
        self.running = False
        self.sock.close()
        for c in self.conns:
            try:
                c.close()
            except OSError:
                pass


class Chatty(Stalled):
    """A broker that takes the connection and never acknowledges a PUBLISH,
    but talks all the time: once the board has sent a record, it answers
    it ("stored <id>"), asks for it again ("resend <id>"), and sends other
    tables' answers and a message too long to be an answer, one every
    millisecond, on the board's answer topic, until the board goes."""

    def __init__(self):
        self.talking = {}  # connection -> [the id of the record it sent last]
        Stalled.__init__(self)

    def _packet(self, c, head, body):
        if head == 0x82:  # SUBSCRIBE (the answers' topic, the match's): granted QoS 0 and 1
            c.sendall(b"\x90\x04" + body[:2] + b"\x00\x01")
            return
        Stalled._packet(self, c, head, body)
        if head & 0xF0 == 0x30:
            at = body.find(b'"id": "')
            rid = body[at + 7:body.index(b'"', at + 7)]
            talking = self.talking.setdefault(id(c), [])
            if not talking:
                talking.append(rid)
                threading.Thread(target=self._talk, args=(c, talking), daemon=True).start()
            else:
                talking[0] = rid

    def _talk(self, c, talking):
        topic = b"speedref/club/t1/ack"
        n = 0
        while self.running:
            rid = talking[0]
            text = (b"stored " + rid, b"resend " + rid, b"stored other-00000000-1", b"x" * 400)[n % 4]
            body = len(topic).to_bytes(2, "big") + topic + text
            size = len(body)
            head = bytearray(b"\x30")
            while True:
                head.append((size & 0x7F) | (0x80 if size > 0x7F else 0))
                size >>= 7
                if not size:
                    break
            try:
                c.sendall(bytes(head) + body)
            except OSError:
                return
            n += 1
            time.sleep(0.001)


class Matchmaker(Stalled):
    """A broker that grants the board's subscriptions, acknowledges what it
    publishes, and gives it its match as it subscribes (QoS 1, retained),
    as the club's broker does; once the board has taken that one (its
    PUBACK), a re-pairing of it, over and over, one every few milliseconds,
    on the board's match topic, until the board goes.  `pubacks` counts the
    board's acknowledgements of matches."""

    def __init__(self, first, then, topic=b"speedref/club/t1/match", every_s=0.005):
        self.first, self.then, self.topic, self.every_s = first, then, topic, every_s
        self.pubacks = 0
        Stalled.__init__(self)

    def _publish(self, c, payload, pid):
        body = len(self.topic).to_bytes(2, "big") + self.topic + pid.to_bytes(2, "big") + payload
        size = len(body)
        head = bytearray(b"\x33")  # PUBLISH, QoS 1, retained
        while True:
            head.append((size & 0x7F) | (0x80 if size > 0x7F else 0))
            size >>= 7
            if not size:
                break
        c.sendall(bytes(head) + body)

    def _packet(self, c, head, body):
        if head == 0x82:  # SUBSCRIBE (the answers' topic, the match's): granted, then the match
            c.sendall(b"\x90\x04" + body[:2] + b"\x00\x01")
            self._publish(c, self.first, 1)
            return
        if head & 0xF0 == 0x40:  # the board's PUBACK of a match
            with self.got:
                self.pubacks += 1
                self.got.notify_all()
            if body == b"\x00\x01":
                threading.Thread(target=self._talk, args=(c,), daemon=True).start()
            return
        Stalled._packet(self, c, head, body)
        if head & 0xF0 == 0x30 and head & 0x06:  # a record: the broker has it
            at = 2 + (body[0] << 8 | body[1])
            c.sendall(b"\x40\x02" + body[at:at + 2])

    def _talk(self, c):
        pid = 2
        while self.running:
            try:
                self._publish(c, self.then, pid)
            except OSError:
                return
            pid = 2 if pid >= 65535 else pid + 1
            time.sleep(self.every_s)


class BoardProc:
    """One Wi-Fi table: tests/mpy/uplink_board.py (or `script`: match_table.py,
    the whole device) under the Unix port,
    driven by JSON command lines; its log lines (and the replies) are read
    back as they come."""

    def __init__(self, root, port, club="club", table=None, user=None, password=None, uid="b0a4d",
                 extra=None, heap=mpyrun.DEVICE_HEAP, script="uplink_board.py"):
        conf = {"ssid": "clubnet", "wifi_password": "wifi-secret-1", "broker": "127.0.0.1",
                "port": port, "club": club}
        if table:
            conf["table"] = table
        if user:
            conf["user"] = user
            conf["password"] = password
        conf.update(extra or {})
        self.conf = conf
        self.root = str(root)
        # the settings in a file: this Unix port dies on a command-line word
        # over about 1 KB (FATAL: uncaught NLR), and a CA certificate is more
        conf_file = Path(self.root + ".conf.json")
        conf_file.parent.mkdir(parents=True, exist_ok=True)
        conf_file.write_text(json.dumps(conf))
        # ".frozen": the port's own frozen modules (ssl, for TLS), which a
        # MICROPYPATH leaves out unless it names them
        env = dict(os.environ, MICROPYPATH=mpyrun.micropath(use_mpy=mpyrun.MPY_BUILD.exists(),
                                                            extra=[umqtt_dir()]) + ":.frozen")
        self.proc = subprocess.Popen(
            [str(mpyrun.MICROPYTHON), "-X", "heapsize=" + heap,
             str(mpyrun._short(mpyrun.SUPPORT / script)), self.root, str(conf_file), uid],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
            cwd=mpyrun.ROOT)
        self.lines = []
        self._buf = b""

    def ask(self, timeout=60, **cmd):
        """Send one command; its reply (a dict); log lines on the way are kept."""
        self.proc.stdin.write((json.dumps(cmd) + "\n").encode())
        self.proc.stdin.flush()
        return self._until(lambda o: "reply" in o, timeout)

    def _until(self, pred, timeout):
        end = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                if not line.strip():
                    continue
                o = json.loads(line)
                if "reply" not in o:
                    self.lines.append(o)
                if pred(o):
                    return o
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError("the board gave no answer in %d s; its lines: %s" % (timeout, self.lines[-5:]))
            r, _, _ = select.select([fd], [], [], left)
            if r:
                data = os.read(fd, 65536)
                if not data:
                    err = self.proc.stderr.read().decode(errors="replace")
                    raise AssertionError("the board exited: %s\n%s" % (self.lines[-5:], err[-3000:]))
                self._buf += data

    def uplink_lines(self):
        return [o for o in self.lines if o.get("ev") == "uplink"]

    def close(self):
        stop_process(self.proc, 10)
        self.proc.stdout.close()
        self.proc.stderr.close()

    def wait_exit(self, timeout=30):
        self.proc.wait(timeout)
        # the lines printed before the exit
        rest = self.proc.stdout.read()
        for line in (self._buf + rest).split(b"\n"):
            if line.strip():
                o = json.loads(line)
                if "reply" not in o:
                    self.lines.append(o)
        self._buf = b""
