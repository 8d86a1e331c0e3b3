"""Run the real speedref-log on a pseudo-terminal fed with bytes, as a board
would feed it (a helper of the host-tool tests; no tests here)."""
import os
import subprocess
import sys
import threading
import tty
from pathlib import Path

BIN = Path(sys.executable).parent


def run_log(db, data, idle_exit="1", extra=(), preexec_fn=None, env=None, cwd=None, timeout=120):
    """speedref-log --port <pty> --db db, with `data` written on the other end;
    (returncode, stdout, stderr).  It exits idle_exit seconds after the data."""
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

    threads = [threading.Thread(target=feed, daemon=True), threading.Thread(target=drain, daemon=True)]
    for t in threads:
        t.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(slave)        # the master's reads and writes now fail: the threads end
        for t in threads:
            t.join(5)
        os.close(master)
    return proc.returncode, out, err
