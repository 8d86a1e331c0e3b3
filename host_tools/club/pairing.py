"""One round of a club night: who plays whom, and who sits out (a bye).

This module only decides; host_tools/club/evening.py keeps the evening, asks
here for each round and seats the groups at the tables.

The order.  Players stand by tonight's points (a round won, or a bye, is a
point), then by rating (the conservative rating in the round's game: a
newcomer's is 0), then by lot: a draw fixed by the evening (`lot`), so two
runs of the same evening pair alike.  Groups are made in that order, Swiss
style: the top players meet each other, the next ones each other.

Pairs (two-player games) come from networkx's max_weight_matching (the
blossom algorithm, what pairing programs use underneath), with every
player paired (maxcardinality).  A bye is a vertex of its own standing
below the last player, joined to every player; byes are never joined to
each other, so each takes one player.  Each possible pair gets one weight
made of four levels, each worth more than everything below it added up over
a whole round, so the best matching is, in order of what matters:
  1. fewest rematches: every meeting tonight repeated counts (never
     traded for anything below);
  2. byes rotate: a bye goes to whoever has had the fewest tonight;
  3. points: players with close points meet (the sum of the squared
     differences is least; the bye stands at the lowest points, so it goes
     to the lowest scorers);
  4. the order: neighbours in the order meet (the sum of the squares of
     their distances in the order is least).
Integer weights, so the matching is exact (networkx computes in integers).

Threes and fours (Speed Run; partners and Speed at 4 seats) use a documented
method instead, as no matching library makes groups of three: the byes go
first, to those with the fewest byes, then the lowest points, then the
lowest in the order; then the seated players are grouped by a depth-first
search: the player hardest to seat (the fewest others left whom they have
not met; ties: the higher in the order) with the nearest players in the
order whose meetings tonight stay within an allowance of repeats; the
allowance starts at 0 and grows by one until a grouping is found.  The
first grouping found has the fewest repeated meetings of any, as long as
the search ends within SEARCH_BUDGET steps in all (benchmarks/bench_pairing.py:
clubs of up to 100 do, in milliseconds); past that, the groups are built
one at a time, each adding the player who brings the fewest repeats.

The first seat rotates: in each group the player who has sat first tonight
the fewest times takes the first seat (ties: the higher in the order), the
others follow in the order.  Groups go to the tables in order: the top
group to the first table.
"""
import collections
import itertools

SEARCH_BUDGET = 200000   # steps of one allowance's search for threes and fours

Player = collections.namedtuple("Player", "key points rating byes firsts lot")
# key: the person (people.key); points: tonight's (an int); rating: the
# conservative rating in the round's game; byes, firsts: how many byes and
# first seats tonight; lot: the evening's draw for this person (any sortable)
Pairing = collections.namedtuple("Pairing", "groups byes")
# groups: [[key, ...] in seat order], the top group first; byes: [key]


def order(players):
    """The players, best first: points, then rating, then lot."""
    return sorted(players, key=lambda p: (-p.points, -p.rating, p.lot, p.key))


def meetings(groups):
    """{frozenset({a, b}): how many times a and b sat at one table} over
    `groups` (every group of every round so far tonight)."""
    met = collections.Counter()
    for g in groups:
        for a, b in itertools.combinations(g, 2):
            if a != b:
                met[frozenset((a, b))] += 1
    return met


def repeats(groups, met):
    """How many meetings in `groups` have happened before (`met`)."""
    return sum(met.get(frozenset((a, b)), 0) for g in groups for a, b in itertools.combinations(g, 2))


def table_count(players, size, tables):
    """How many groups of `size` a round seats: as many as the players fill
    and the tables hold."""
    return min(tables, len(players) // size)


def pair_round(players, size, tables, met=None):
    """The groups of one round (a Pairing): `players` (Player), groups of
    `size` seats at no more than `tables` tables, `met` the meetings so far
    tonight (meetings()).  Everyone is in one group or has a bye."""
    if size < 2:
        raise ValueError("a group is 2 players or more, not %d" % size)
    met = met or {}
    ranked = order(players)
    g = table_count(ranked, size, tables)
    if g == 0:
        return Pairing([], [p.key for p in ranked])
    if size == 2:
        groups, byes = _pairs(ranked, len(ranked) - 2 * g, met)
    else:
        groups, byes = _groups(ranked, size, g, met)
    place = dict((p.key, i) for i, p in enumerate(ranked))
    firsts = dict((p.key, p.firsts) for p in ranked)
    seated = []
    for grp in groups:
        grp = sorted(grp, key=lambda k: place[k])
        first = min(grp, key=lambda k: (firsts[k], place[k]))
        seated.append([first] + [k for k in grp if k != first])
    seated.sort(key=lambda grp: min(place[k] for k in grp))
    return Pairing(seated, sorted(byes, key=lambda k: place[k]))


def _pairs(ranked, nbyes, met):
    """Pairs and byes by maximum-weight matching (the module's docstring)."""
    n = len(ranked)
    pts = [p.points for p in ranked]
    low = min(pts)
    most_byes = max(p.byes for p in ranked)
    most_met = max([0] + [met.get(frozenset((a.key, b.key)), 0) for a, b in itertools.combinations(ranked, 2)])
    edges = (n + nbyes) // 2
    # each level's unit is more than the levels below can add up to in a round
    span = (max(pts) - low) ** 2
    u1 = edges * (n + 1) ** 2 + 1
    u2 = edges * span * u1 + u1
    u3 = nbyes * (most_byes + 1) * u2 + u2

    def weight(i, j, bye=False):
        pj, oj = (low, n) if bye else (pts[j], j)
        w = ((n + 1) ** 2 - (i - oj) ** 2) + (span - (pts[i] - pj) ** 2) * u1
        if bye:
            return w + (most_byes + 1 - ranked[i].byes) * u2 + (most_met + 1) * u3
        return w + (most_met + 1 - met.get(frozenset((ranked[i].key, ranked[j].key)), 0)) * u3

    import networkx as nx   # a fifth of a second to import: only a round of pairs needs it, not every read of the evening
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for i, j in itertools.combinations(range(n), 2):
        graph.add_edge(i, j, weight=weight(i, j))
    for b in range(nbyes):
        for i in range(n):
            graph.add_edge(i, ("bye", b), weight=weight(i, None, bye=True))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    groups, byes = [], []
    for a, b in matching:
        if isinstance(a, tuple) or isinstance(b, tuple):
            byes.append(ranked[b if isinstance(a, tuple) else a].key)
        else:
            groups.append([ranked[a].key, ranked[b].key])
    assert len(groups) * 2 + len(byes) == n and len(byes) == nbyes, (groups, byes)
    return groups, byes


class _OutOfSteps(Exception):
    pass


def _groups(ranked, size, count, met):
    """Groups of three or four and the byes (the module's docstring)."""
    nbyes = len(ranked) - size * count
    place = dict((p.key, i) for i, p in enumerate(ranked))
    sitting_out = sorted(ranked, key=lambda p: (p.byes, p.points, -place[p.key]))[:nbyes]
    byes = [p.key for p in sitting_out]
    seated = [p.key for p in ranked if p.key not in set(byes)]
    cost = {}
    for a, b in itertools.combinations(seated, 2):
        cost[(a, b)] = cost[(b, a)] = met.get(frozenset((a, b)), 0)
    most = sum(cost.values()) // 2
    steps = [0]
    for allowed in range(most + 1):
        try:
            found = _search(tuple(seated), size, allowed, cost, steps, place)
        except _OutOfSteps:
            break
        if found is not None:
            return found, byes
    return _greedy(seated, size, cost, place), byes


def _head(rest, cost, place):
    """Whom to seat next: the player with the fewest others left whom they
    have not met (the hardest to seat), the higher in the order first."""
    return min(rest, key=lambda k: (sum(1 for o in rest if o != k and cost[(k, o)] == 0), place[k]))


def _search(rest, size, allowed, cost, steps, place):
    """Groups of `rest` whose repeated meetings add up to no more than
    `allowed`: the hardest player to seat first, with the nearest players in
    the order first; None when there are none."""
    if not rest:
        return []
    head = _head(rest, cost, place)
    others = tuple(k for k in rest if k != head)
    for mates in itertools.combinations(others, size - 1):
        grp = (head,) + mates
        c = sum(cost[(a, b)] for a, b in itertools.combinations(grp, 2))
        if c > allowed:
            continue
        steps[0] += 1
        if steps[0] > SEARCH_BUDGET:
            raise _OutOfSteps()
        left = tuple(k for k in others if k not in mates)
        sub = _search(left, size, allowed - c, cost, steps, place)
        if sub is not None:
            return [sorted(grp, key=lambda k: place[k])] + sub
    return None


def _greedy(seated, size, cost, place):
    """Groups built one at a time when the search ran out of steps: the
    hardest player to seat, then one by one the player who adds the fewest
    repeated meetings, the nearest in the order first."""
    rest, out = list(seated), []
    while rest:
        grp = [_head(rest, cost, place)]
        rest.remove(grp[0])
        while len(grp) < size:
            k = min(rest, key=lambda o: (sum(cost[(o, g)] for g in grp), abs(place[o] - place[grp[0]]), place[o]))
            grp.append(k)
            rest.remove(k)
        out.append(sorted(grp, key=lambda k: place[k]))
    return out
