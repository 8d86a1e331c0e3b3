"""Record numbers a table gave that the results database has never seen.

A board's record ids are `<device>-<install>-<n>`: n counts on from 1 within
an install (a flash wiped starts a new install at 1), and every game started
takes the next number (firmware/speedref/storage.py).  So the numbers below
an install's highest one that the database lacks are games it has not got:
a record still on its way, one the board's flash no longer holds, or a game
abandoned at the table (it took a number and left no record).

`speedref-results gaps` lists them per install (`listing`); the Wi-Fi
listener asks a table for its missing numbers again (host_tools/intake/mqtt.py,
`Seen`).  Ids of other forms (the older `<device>-<n>`, a hand-made record's)
name no install and are left out, counted.
"""
import json
import re

from host_tools import jsonin

# <device>-<install: 8 lowercase hex digits>-<n>, n at most 9 digits (the board's own limit)
_ID = re.compile(r"\A([!-~]{1,64}-[0-9a-f]{8})-([1-9][0-9]{0,8})\Z")


def parse(rid):
    """(install prefix "<device>-<install>", n) of a board's record id, or None."""
    m = _ID.match(rid) if isinstance(rid, str) else None
    return (m.group(1), int(m.group(2))) if m else None


def answerable(rid):
    """A record id a table can be answered about (printable ASCII, no
    spaces, short: the board compares it as bytes)."""
    return isinstance(rid, str) and 0 < len(rid) <= 100 and all("!" <= c <= "~" for c in rid)


def runs(numbers):
    """[(first, last)] of the sorted numbers' consecutive runs."""
    out = []
    for n in sorted(numbers):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def runs_text(numbers):
    """'3, 7-9' for {3, 7, 8, 9}."""
    return ", ".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in runs(numbers))


def installs(db):
    """({install prefix: {"numbers": set, "table": the newest record's table
    name or None}}, records whose ids name no install), from the database."""
    found = {}
    other = 0
    for _, text in db.game_rows():
        rec = json.loads(text)
        got = parse(rec.get("id"))
        if got is None:
            other += 1
            continue
        entry = found.setdefault(got[0], {"numbers": set(), "table": None})
        entry["numbers"].add(got[1])
        if isinstance(rec.get("table"), str):
            entry["table"] = rec["table"]
    return found, other


def report(db):
    """The gaps report: ([{"install", "table", "stored", "last", "missing"}]
    sorted by install, records whose ids name no install)."""
    found, other = installs(db)
    rows = []
    for prefix in sorted(found):
        nums = found[prefix]["numbers"]
        last = max(nums)
        rows.append({"install": prefix, "table": found[prefix]["table"], "stored": len(nums), "last": last,
                     "missing": sorted(set(range(1, last + 1)) - nums)})
    return rows, other


def listing(db, as_json=False):
    """speedref-results gaps: the report as text (or JSON)."""
    rows, other = report(db)
    if as_json:
        return json.dumps({"installs": rows, "other_ids": other}, indent=1)
    lines = []
    for r in rows:
        table = " (table %s)" % jsonin.printable(r["table"]) if r["table"] is not None else ""
        head = "%s%s: %d of 1-%d stored" % (r["install"], table, r["stored"], r["last"])
        lines.append(head + ("; never seen: " + runs_text(r["missing"]) if r["missing"] else "; none missing"))
    if not rows:
        lines.append("no records with a board's ids (<device>-<install>-<n>)")
    if other:
        lines.append("%d record%s with ids of another form (no install named): not counted"
                     % (other, "" if other == 1 else "s"))
    return "\n".join(lines)


class Seen:
    """The listener's running view: the numbers stored per install (read
    from the database once, then kept up as records are stored) and the
    numbers already asked for in this run (asked once each)."""

    def __init__(self, db):
        found, _ = installs(db)
        self.numbers = dict((k, v["numbers"]) for k, v in found.items())
        self.asked = {}

    def add(self, rid):
        """Record `rid` is stored: the numbers of its install below it that
        are neither stored nor asked for yet (now counted as asked)."""
        got = parse(rid)
        if got is None:
            return []
        prefix, n = got
        nums = self.numbers.setdefault(prefix, set())
        nums.add(n)
        asked = self.asked.setdefault(prefix, set())
        missing = [k for k in range(1, max(nums) + 1) if k not in nums and k not in asked]
        asked.update(missing)
        return missing

    def refused(self, rid):
        """A record the rules refused: its number is never asked for."""
        got = parse(rid)
        if got is not None:
            self.asked.setdefault(got[0], set()).add(got[1])
