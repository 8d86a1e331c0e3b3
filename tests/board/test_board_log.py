"""speedref-log on the emulated Pico's USB, through a pty as on /dev/ttyACM0.

The board's flash already holds one finished game (played before any laptop
was attached).  speedref-log connects through emu.serve.Bridge, asks for the
records on flash with {"cmd": "dump"} and stores that one; then a short game
of Partners is played through the pins while the log goes on to the pty, and
speedref-log stores its game_end record.  A second speedref-log on a new
database pulls both records from the board's flash with its dump request.
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from board_rig import needs_board
from emu.board import NS_PER_US
from emu.referee import Referee
from emu.serve import Bridge
from test_board_powercut import schedule, start_partners

pytestmark = [pytest.mark.board, needs_board]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WAIT_S = 240  # a guard against a hang only: the emulator runs slower than real time


class LogTool:
    """speedref-log on the bridge's pty, its output read as it comes."""

    def __init__(self, port, db):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "host_tools.cli.log", "--port", port, "--db", db],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        self.out = []
        self.err = []
        for stream, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, into), daemon=True).start()

    @staticmethod
    def _read(stream, into):
        for line in stream:
            into.append(line.rstrip("\n"))

    def wait_for(self, text):
        end = time.monotonic() + WAIT_S
        while not any(text in l for l in self.out):
            assert self.proc.poll() is None, (self.out, self.err)
            assert time.monotonic() < end, "speedref-log never said %r: %r %r" % (text, self.out, self.err)
            time.sleep(0.05)

    def stop(self):
        self.proc.send_signal(signal.SIGINT)  # Ctrl-C: it closes the database and sums up
        assert self.proc.wait(30) == 0, self.err
        time.sleep(0.1)
        return self.out


def db_games(path):
    con = sqlite3.connect(path)
    try:
        return [(json.loads(r[0]), r[1]) for r in con.execute("SELECT record, source FROM games ORDER BY id")]
    finally:
        con.close()


def test_speedref_log_reads_the_board_into_sqlite(tmp_path):
    from speedref import storage
    events, sim_lines, _ = schedule()
    earlier = dict([l for l in sim_lines if l["ev"] == "game_end"][0]["record"], id="sim-1")
    ref = Referee(store_files={"/data/rec/00000001.json": storage.encode(earlier),
                               "/data/seq.json": storage.encode(1)})
    bridge = Bridge(ref.pico)
    to_pty = ref.pico.on_serial
    ref.pico.on_serial = lambda data: (ref._serial(data), to_pty(data))
    tools = []
    try:
        ref.boot()
        start_partners(ref)  # the device loop runs: it answers commands and logs the game
        p = ref.pico

        # A laptop attaches: speedref-log asks for what the flash holds.
        db1 = str(tmp_path / "results.db")
        log = LogTool(bridge.path, db1)
        tools.append(log)
        bridge.start()
        log.wait_for("device flash: 1 record kept, 1 new here")
        bridge.stop()

        # The game, through the pins at the script's instants (simulated time);
        # the board's lines go on to the pty.
        t0 = p.ns
        for t_us, button, down in events:
            p.run_until(max(p.ns, t0 + t_us * NS_PER_US))
            (p.press if down else p.release)(button)
        p.run_for(300000)
        ended = [l for l in ref.lines if l["ev"] == "game_end"]
        assert len(ended) == 1
        played = ended[0]["record"]
        bridge.start()
        log.wait_for("stored as #2")
        out = log.stop()
        assert any("game over: partners" in l for l in out), out

        rows = db_games(db1)
        assert rows == [(earlier, "stored"), (played, "live")]
        assert played["id"] != earlier["id"] and played["id"].endswith("-2")
        strip = {k: v for k, v in played.items() if k not in ("id", "table")}
        assert strip == {k: v for k, v in earlier.items() if k not in ("id", "table")}  # the same game, replayed

        # Another laptop, a new database: the dump pulls both records off the flash.
        db2 = str(tmp_path / "other.db")
        log2 = LogTool(bridge.path, db2)
        tools.append(log2)
        log2.wait_for("device flash: 2 records kept, 2 new here")
        bridge.stop()
        log2.stop()
        assert db_games(db2) == [(earlier, "stored"), (played, "stored")]

        from host_tools.club.db import ResultsDB
        db = ResultsDB(db1)
        try:
            assert db.find_record(played["id"]) == played
        finally:
            db.close()
    finally:
        bridge.close()
        for t in tools:
            if t.proc.poll() is None:
                t.proc.kill()
                t.proc.wait()
        ref.close()
