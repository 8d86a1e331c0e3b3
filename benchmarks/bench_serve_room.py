"""A room full of phones on the served results page while the organiser's
laptop imports games and fixes names: how long a page load takes between
changes and right after one, and how many connections fail.

    .venv/bin/python benchmarks/bench_serve_room.py [--games 20000] [--clients 200] [--seconds 60]
                                                    [--every 5] [--runs 3] [--mode poll,live] [--keep DIR]

The database: a season of --games Speed matches (tests/season_sample.py: 40
people, 20 tables) and tonight's evening, its 40 people checked in and a
round paired.  The server is the command a club runs, `speedref-results
--serve` (a process of its own), and the clients are asyncio tasks in this
process, each a phone's browser (HTTP/1.0 requests, gzip accepted):
- poll: --clients phones each load "/" about once a second (0.5 to 1.5 s
  apart), as a page without its script reloads;
- live: --clients pages on screen each hold /events and load "/" each time
  it says the database changed: every phone at once after each change.
Meanwhile, every --every seconds, a change from another process: in turn an
import of one new game (`speedref-results import`), a rename, its undo.

A load is "right after" a change when it began between the start of the
change's command and 1 s after its end, or (live) when /events told of it;
else "between changes".  Printed per run: loads, failed connections (reset,
refused, timed out after 30 s, cut short), the changes made, the server's
CPU seconds and the machine's load average (this benchmark shares its cores
with whatever else runs); then the loads' p50/p95/max in ms between
changes, right after an import and right after a name fix (a rename or its
undo: the ratings kept take the new name, and the pages show it); then
the medians of the runs.
"""
import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "firmware"), str(ROOT), str(ROOT / "compat")]

import season_sample  # noqa: E402

BIN = Path(sys.executable).parent
RESULTS = str(BIN / "speedref-results")
AFTER_S = 1.0             # a load begun this long after a change's command ended is "right after" it
TIMEOUT_S = 30.0          # a load not done by then is a failure


def start_server(db):
    p = subprocess.Popen([RESULTS, "--serve", "--port", "0", "--db", str(db)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line.startswith("serving"):
        p.kill()
        raise SystemExit("the server did not start: %s %s" % (line, p.stderr.read()))
    url = [w for w in line.split() if w.startswith("http://")][0]
    host, port = url[len("http://"):].rstrip("/").rsplit(":", 1)
    return p, host, int(port)


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


class Changes:
    """Every `every` seconds, a change from another process, in turn: an
    import of one new game, a rename, its undo.  `spans`: [(kind, start,
    end)], kind "import" or "name fix"."""

    def __init__(self, db, folder, every):
        self.db, self.folder, self.every = db, folder, every
        self.spans = []
        self.stop = threading.Event()
        self.n = 0

    def run(self):
        while not self.stop.wait(self.every):
            kind = self.n % 3
            if kind == 0:
                f = Path(self.folder) / ("new-%d.json" % self.n)
                f.write_text(json.dumps(season_sample.tonight_record(self.n, self.db)), encoding="utf-8")
                cmd = [RESULTS, "import", str(f), "--db", str(self.db)]
            elif kind == 1:
                cmd = [RESULTS, "rename", "Ada", "Ada Lovelace", "--db", str(self.db)]
            else:
                cmd = [RESULTS, "undo", "--db", str(self.db)]
            t = time.monotonic()
            r = subprocess.run(cmd, capture_output=True, text=True)
            self.spans.append(("import" if kind == 0 else "name fix", t, time.monotonic()))
            if r.returncode:
                print("  (change %s exited %d: %s)" % (cmd[1], r.returncode, r.stderr.strip()), flush=True)
            self.n += 1


async def load(host, port, path, out, told=False):
    """One page load as a phone makes it; appends (start, ms, outcome,
    told: loaded because /events told of a change)."""
    t = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), TIMEOUT_S)
        try:
            writer.write(("GET %s HTTP/1.0\r\nHost: %s:%d\r\nAccept-Encoding: gzip\r\n\r\n"
                          % (path, host, port)).encode())
            data = await asyncio.wait_for(reader.read(-1), TIMEOUT_S)
        finally:
            writer.close()
        head, _, body = data.partition(b"\r\n\r\n")
        length = [int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")]
        if not head.startswith(b"HTTP/1.0 200") or (length and length[0] != len(body)):
            outcome = "cut short" if head.startswith(b"HTTP/1.0 200") else head.split(b"\r\n")[0].decode()
        else:
            outcome = "ok"
    except ConnectionResetError:
        outcome = "reset"
    except ConnectionRefusedError:
        outcome = "refused"
    except asyncio.TimeoutError:
        outcome = "timed out"
    except OSError as e:
        outcome = "error %s" % e.__class__.__name__
    out.append((t, (time.monotonic() - t) * 1000, outcome, told))


async def poller(host, port, until, out, rnd):
    await asyncio.sleep(rnd.uniform(0, 1.0))
    while time.monotonic() < until:
        await load(host, port, "/", out)
        await asyncio.sleep(rnd.uniform(0.5, 1.5))


async def live_page(host, port, until, out, rnd):
    """A page on screen: /events, and "/" loaded at each new version."""
    await asyncio.sleep(rnd.uniform(0, 1.0))
    await load(host, port, "/", out)
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), TIMEOUT_S)
    except (OSError, asyncio.TimeoutError) as e:
        out.append((time.monotonic(), 0.0, "events: %s" % e.__class__.__name__, False))
        return
    writer.write(("GET /events HTTP/1.0\r\nHost: %s:%d\r\n\r\n" % (host, port)).encode())
    shown = None
    try:
        while time.monotonic() < until:
            try:
                line = await asyncio.wait_for(reader.readline(), max(0.1, until - time.monotonic()))
            except asyncio.TimeoutError:
                break
            if not line:
                out.append((time.monotonic(), 0.0, "events: ended", False))
                break
            if line.startswith(b"data: "):
                version = line[6:].strip()
                if shown is not None and version != shown:
                    await load(host, port, "/", out, told=True)
                shown = version
    except ConnectionResetError:
        out.append((time.monotonic(), 0.0, "reset", False))
    finally:
        writer.close()


async def room(host, port, clients, seconds, mode):
    out = []
    until = time.monotonic() + seconds
    rnd = random.Random(1)
    task = poller if mode == "poll" else live_page
    await asyncio.gather(*[task(host, port, until, out, random.Random(rnd.random())) for _ in range(clients)])
    return out


def pct(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]


KINDS = ("between changes", "after an import", "after a name fix")


def one_run(db, clients, seconds, every, mode):
    server, host, port = start_server(db)
    try:
        asyncio.run(room(host, port, 5, 3, "poll"))        # the first page made before the room arrives
        cpu0 = cpu_seconds(server.pid)
        load0 = os.getloadavg()[0]
        with tempfile.TemporaryDirectory() as folder:
            changes = Changes(db, folder, every)
            writer = threading.Thread(target=changes.run, daemon=True)
            writer.start()
            got = asyncio.run(room(host, port, clients, seconds, mode))
            changes.stop.set()
            writer.join()
        cpu = cpu_seconds(server.pid) - cpu0
        load1 = os.getloadavg()[0]
    finally:
        server.terminate()
        server.wait(30)

    def kind(t, told):
        """Which change a load began right after, if any."""
        before = [(a, b, k) for k, a, b in changes.spans if a <= t]
        if not before:
            return KINDS[0]
        a, b, k = max(before)
        return KINDS[1] if k == "import" and (told or t <= b + AFTER_S) else \
            KINDS[2] if k != "import" and (told or t <= b + AFTER_S) else KINDS[0]
    times = dict((k, []) for k in KINDS)
    failed = {}
    for t, ms, o, told in got:
        if o == "ok":
            times[kind(t, told)].append(ms)
        else:
            failed[o] = failed.get(o, 0) + 1
    out = {"loads": len(got), "failed": sum(failed.values()), "why": failed, "changes": len(changes.spans),
           "server_cpu_s": cpu, "load": (load0 + load1) / 2}
    for k, v in times.items():
        out[k] = (len(v), pct(v, 50), pct(v, 95), max(v or [0]))
    return out


def show(label, r):
    print("%-9s %6d loads, %d failed%s, %d changes, server CPU %.1f s, load average %.1f" % (
        label, r["loads"], r["failed"], " " + json.dumps(r["why"]) if r.get("why") else "", r["changes"],
        r["server_cpu_s"], r["load"]), flush=True)
    for k in KINDS:
        print("          %-17s %6d  p50 %6.0f ms  p95 %6.0f ms  max %6.0f ms" % ((k,) + tuple(r[k])), flush=True)


def medians(results):
    out = dict((f, statistics.median(r[f] for r in results)) for f in ("loads", "failed", "changes",
                                                                        "server_cpu_s", "load"))
    for k in KINDS:
        out[k] = tuple(statistics.median(r[k][i] for r in results) for i in range(4))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--every", type=float, default=5.0, help="seconds between changes")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mode", default="poll,live")
    ap.add_argument("--keep", help="a folder to keep (and reuse) the season's database in")
    args = ap.parse_args()
    print("%d CPUs; %d games; %d clients for %.0f s a run, a change every %.0f s" % (
        os.cpu_count(), args.games, args.clients, args.seconds, args.every), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for mode in args.mode.split(","):
            results = []
            for i in range(args.runs):
                db = season_sample.database(Path(args.keep or tmp), args.games, evening=True)   # a fresh copy
                r = one_run(db, args.clients, args.seconds, args.every, mode)
                show("%s %d" % (mode, i + 1), r)
                results.append(r)
            show("%s med" % mode, medians(results))


if __name__ == "__main__":
    main()
