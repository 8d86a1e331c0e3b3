"""Run the real speedref-log on a pseudo-terminal fed with bytes, as a board
would feed it (a helper of the host-tool tests; no tests here)."""
import os
import signal
import subprocess
import sys
import threading
import tty
from pathlib import Path

BIN = Path(sys.executable).parent


def run_log(db, data, idle_exit="1", extra=(), preexec_fn=None, env=None, cwd=None, timeout=120,
            until=None):
    """speedref-log --port <pty> --db db, with `data` written on the other end;
    (returncode, stdout, stderr).  It exits idle_exit seconds after the data,
    or, given until(stdout so far) -> bool, at Ctrl-C (SIGINT) once until()
    holds: a busy machine's pauses then cannot end it before the data is read."""
    if until is not None:
        idle_exit = str(timeout)
    master, slave = os.openpty()
    tty.setraw(slave)          # a serial line: no echo, no newline translation
    port = os.ttyname(slave)
    cmd = [str(BIN / "speedref-log"), "--port", port, "--idle-exit", idle_exit]
    if db is not None:
        cmd += ["--db", str(db)]
    proc = subprocess.Popen(cmd + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=preexec_fn, env=env, cwd=cwd)

    opened = threading.Event()

    def feed():
        # pyserial flushes the input when it opens the port: write only once
        # the tool has asked for the dump, as a board answers it
        opened.wait(60)
        view = memoryview(data)
        while view:
            try:
                n = os.write(master, view[:4096])
            except OSError:
                return
            view = view[n:]

    def drain():               # what the tool writes to the "board" ({"cmd": "dump"})
        got = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                opened.set()
                return
            got += chunk
            if b'"dump"' in got:
                opened.set()

    outs, errs = [], []

    def watch():               # the live view, line by line: one Ctrl-C once until() holds
        sent = until is None
        for ln in proc.stdout:
            outs.append(ln)
            if not sent and until("".join(outs)):
                proc.send_signal(signal.SIGINT)
                sent = True

    threads = [threading.Thread(target=feed, daemon=True), threading.Thread(target=drain, daemon=True)]
    readers = [threading.Thread(target=watch, daemon=True),
               threading.Thread(target=lambda: errs.append(proc.stderr.read()), daemon=True)]
    for t in threads + readers:
        t.start()
    try:
        proc.wait(timeout=timeout)
        for t in readers:
            t.join(timeout)
        out, err = "".join(outs), "".join(errs)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(slave)        # the master's reads and writes now fail: the threads end
        for t in threads:
            t.join(5)
        os.close(master)
    return proc.returncode, out, err
