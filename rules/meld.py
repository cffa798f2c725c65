"""The exact meld solver (R3): the most valuable set of disjoint valid sets a rack alone can form.

Design (after van Rijn, Takes & Vis, "The complexity of Rummikub problems", BNAIC 2015, who give a
dynamic programme over the numbers for the *maximum number of tiles*; here extended to maximise
*value* and to handle jokers). See ``rules/README.md`` for the full description and complexity.

The numbers 1..13 are processed in order. The state before number ``n`` is, per colour, the multiset
of lengths (1, 2 or "3 or more") of the runs of that colour still open, plus the number of jokers not
yet used. Runs of one colour are interchangeable, so the multiset is stored as a sorted tuple (the two
copies of a colour need no identity). At number ``n`` the solver decides, per colour, how many tiles
``x`` go into runs (real tiles and jokers standing for that colour at ``n``); given ``x`` the new
per-colour state is unique: every open run of length 1 or 2 *must* be extended (a run that stopped
there would be invalid), then as many length-3+ runs as possible are extended (extending dominates
closing one and starting another), then new runs start. The real tiles of number ``n`` that are not in
runs, plus any jokers, form groups at ``n``; the best groups for each leftover pattern are
precomputed. A joker in a run or group at ``n`` is worth ``n``. After 13 no run may be open (no wrap).

A forward pass keeps, per state, the best value reached and a back-pointer; the sets are rebuilt by
replaying the decisions. :func:`can_open` adds cheap bounds (a greedy lower bound and an upper bound
from tiles that could belong to any set) and stops early once the threshold is reached.

One module on purpose: the state encoding, the transitions and the bounds only make sense together.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from .sets import PlacedSet
from .tiles import COLOURS, JOKER, Tile, check_tile_counts, parse_tiles

# --- per-colour run states -------------------------------------------------------------------------
# A state is a sorted tuple of open run lengths, each 1, 2 or 3 (= "3 or more"); at most 4 open runs
# per colour (2 copies + 2 jokers standing for the same tile).
_STATES: list[tuple[int, ...]] = [
    s for size in range(5) for s in itertools.combinations_with_replacement((1, 2, 3), size)
]
_INDEX = {s: i for i, s in enumerate(_STATES)}
_FORCED = [sum(1 for L in s if L < 3) for s in _STATES]  # runs that must be extended


def _transition(s: tuple[int, ...], x: int) -> int:
    """New state index when ``x`` tiles of this colour go into runs at the current number; -1 if
    impossible."""
    forced = [L for L in s if L < 3]
    free = len(s) - len(forced)
    if x < len(forced):
        return -1
    extend_free = min(x - len(forced), free)
    new_runs = x - len(forced) - extend_free
    t = tuple(sorted([L + 1 for L in forced] + [3] * extend_free + [1] * new_runs))
    return _INDEX.get(t, -1)


_TRANS = [[_transition(s, x) for x in range(5)] for s in _STATES]


@cache
def _colour_options(s: int, k: int, jmax: int) -> tuple[tuple[int, int, int, int], ...]:
    """Per-colour choices at one number: (new state, tiles into runs x, jokers into runs, leftover
    real tiles for groups). ``k`` real tiles of this colour/number are on the rack, ``jmax`` jokers
    are free."""
    out = []
    for jr in range(min(jmax, 2) + 1):
        for u in range(k + 1):
            ns = _TRANS[s][u + jr]
            if ns >= 0:
                out.append((ns, u + jr, jr, k - u))
    return tuple(out)


# --- groups at one number --------------------------------------------------------------------------
def _group_table():
    """For each leftover pattern (real tiles per colour, 0-2 each), the best groups using exactly
    0, 1 or 2 jokers, Pareto-filtered: [(jokers, tiles in groups, groups)] by jokers ascending, each
    entry strictly more tiles than the previous. A group is (colour indices, jokers)."""
    table = {}
    for pattern in itertools.product(range(3), repeat=4):
        best: dict[int, tuple[int, tuple]] = {}

        def search(left, jokers_used, tiles, groups, start_options, best=best):
            if tiles > best.get(jokers_used, (-1,))[0]:
                best[jokers_used] = (tiles, groups)
            for gi in range(start_options, len(_GROUP_SHAPES)):
                cols, gj = _GROUP_SHAPES[gi]
                if jokers_used + gj > 2 or any(left[c] == 0 for c in cols):
                    continue
                nl = list(left)
                for c in cols:
                    nl[c] -= 1
                search(nl, jokers_used + gj, tiles + len(cols) + gj, groups + ((cols, gj),), gi, best)

        search(list(pattern), 0, 0, (), 0)
        entries, top = [], -1
        for j in range(3):
            if j in best and best[j][0] > top:
                top = best[j][0]
                entries.append((j, best[j][0], best[j][1]))
        table[pattern] = tuple(entries)
    return table


# Group shapes: a non-empty set of real colours plus 0-2 jokers, 3 or 4 tiles in all.
_GROUP_SHAPES = [
    (cols, j)
    for size in range(1, 5)
    for cols in itertools.combinations(range(4), size)
    for j in range(3)
    if 3 <= size + j <= 4
]
_GROUPS = _group_table()


# --- the solver --------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Meld:
    """The best meld of a rack: its value and the disjoint sets that make it."""

    value: int
    sets: tuple[PlacedSet, ...]

    def to_dict(self) -> dict:
        return {"value": self.value, "sets": [s.to_dict() for s in self.sets]}


def _as_tiles(rack: Iterable[Tile] | str) -> list[Tile]:
    if isinstance(rack, str):
        return parse_tiles(rack)
    tiles = list(rack)
    check_tile_counts(tiles)
    return tiles


def _counts(tiles: list[Tile]) -> tuple[list[list[int]], int]:
    counts = [[0] * 16 for _ in COLOURS]
    jokers = 0
    for t in tiles:
        if t.is_joker:
            jokers += 1
        else:
            counts["RBYK".index(t.colour)][t.number] += 1
    return counts, jokers


def _solve(counts, jokers, *, target: int | None = None, floor: int = 0):
    """Forward DP. Returns (best value, final state key, back-pointer layers), or, with ``target``,
    stops as soon as a state with no forced run reaches ``target`` (returns that value, None, None).
    States that cannot reach ``floor`` (value + an upper bound on the rest) are pruned."""
    # rest[n] + jokers * jtop = upper bound on what numbers n..13 can still add.
    per_number, jtop = _usable_values(counts, jokers)
    rest = [0] * 16
    for n in range(13, 0, -1):
        rest[n] = rest[n + 1] + per_number[n]
    opts = _colour_options
    trans_forced = _FORCED
    groups = _GROUPS
    layer = {(0, 0, 0, 0, jokers): 0}
    back = []
    for n in range(1, 14):
        k0, k1, k2, k3 = counts[0][n], counts[1][n], counts[2][n], counts[3][n]
        if n < 13:
            q0, q1, q2, q3 = counts[0][n + 1], counts[1][n + 1], counts[2][n + 1], counts[3][n + 1]
        else:
            q0 = q1 = q2 = q3 = -9  # nothing follows 13: no run may stay open (R2, no wrap)
        new: dict = {}
        bp: dict = {}
        need_now = floor - rest[n + 1]
        for key, val in layer.items():
            s0, s1, s2, s3, j = key
            if val + rest[n] + jtop * j < floor:
                continue
            for n0, x0, j0, l0 in opts(s0, k0, j):
                f0 = trans_forced[n0] - q0
                ja = j - j0
                for n1, x1, j1, l1 in opts(s1, k1, ja):
                    f1 = trans_forced[n1] - q1
                    jb = ja - j1
                    for n2, x2, j2, l2 in opts(s2, k2, jb):
                        f2 = trans_forced[n2] - q2
                        jc = jb - j2
                        for n3, x3, j3, l3 in opts(s3, k3, jc):
                            jd = jc - j3
                            f3 = trans_forced[n3] - q3
                            base = x0 + x1 + x2 + x3
                            for jg, gt, gspec in groups[(l0, l1, l2, l3)]:
                                if jg > jd:
                                    break
                                jl = jd - jg
                                # open runs that the next number cannot extend, even with jokers
                                need = (
                                    (f0 if f0 > 0 else 0)
                                    + (f1 if f1 > 0 else 0)
                                    + (f2 if f2 > 0 else 0)
                                    + (f3 if f3 > 0 else 0)
                                )
                                if n == 13:
                                    if (
                                        trans_forced[n0]
                                        or trans_forced[n1]
                                        or trans_forced[n2]
                                        or trans_forced[n3]
                                    ):
                                        continue
                                elif need > jl:
                                    continue
                                v = val + n * (base + gt)
                                if v + jtop * jl < need_now:
                                    continue
                                nk = (n0, n1, n2, n3, jl)
                                if v > new.get(nk, -1):
                                    new[nk] = v
                                    bp[nk] = (key, (x0, x1, x2, x3), (j0, j1, j2, j3), gspec)
                                    if (
                                        target is not None
                                        and v >= target
                                        and not (
                                            trans_forced[n0]
                                            or trans_forced[n1]
                                            or trans_forced[n2]
                                            or trans_forced[n3]
                                        )
                                    ):
                                        return v, None, None
        layer = new
        back.append(bp)
    if not layer:
        return 0, None, back
    best_key = max(layer, key=lambda k: (layer[k], k))
    return layer[best_key], best_key, back


def _rebuild(back, final_key) -> list[PlacedSet]:
    decisions = []
    key = final_key
    for n in range(13, 0, -1):
        prev, xs, js, gspec = back[n - 1][key]
        decisions.append((n, xs, js, gspec))
        key = prev
    decisions.reverse()
    sets: list[PlacedSet] = []
    open_runs: list[list[list[tuple[Tile, Tile]]]] = [[] for _ in COLOURS]

    def close(run):
        sets.append(PlacedSet("run", tuple(p[0] for p in run), tuple(p[1] for p in run)))

    for n, xs, js, gspec in decisions:
        for c, colour in enumerate(COLOURS):
            runs = open_runs[c]
            forced = [r for r in runs if len(r) < 3]
            free = [r for r in runs if len(r) >= 3]
            x = xs[c]
            extend_free = min(x - len(forced), len(free))
            for r in free[extend_free:]:
                close(r)
            targets = forced + free[:extend_free]
            targets += [[] for _ in range(x - len(targets))]
            real = Tile(colour, n)
            for i, r in enumerate(targets):
                r.append((JOKER if i >= x - js[c] else real, real))
            open_runs[c] = targets
        for cols, gj in gspec:
            pairs = [(Tile(COLOURS[c], n), Tile(COLOURS[c], n)) for c in cols]
            missing = [c for c in range(4) if c not in cols][:gj]
            pairs += [(JOKER, Tile(COLOURS[c], n)) for c in missing]
            pairs.sort(key=lambda p: p[1].sort_key)
            sets.append(PlacedSet("group", tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)))
    for runs in open_runs:
        for r in runs:
            close(r)
    sets.sort(key=lambda s: (-s.value, s.kind, [t.sort_key for t in s.represents]))
    return sets


_ITERATE_ABOVE = 60  # tiles; measured in bench/meld.py


def best_meld(rack: Iterable[Tile] | str) -> Meld:
    """The largest total value of disjoint valid sets the rack alone can form, and those sets (R3).

    ``rack`` is a list of tiles or notation (``"K9 K10 J"``). Exact for any rack up to the full 106-tile
    set; raises :class:`~rules.errors.NotationError` for bad notation or impossible tile counts.
    """
    tiles = _as_tiles(rack)
    counts, jokers = _counts(tiles)
    lower = _greedy_lower_bound(counts, jokers)
    upper = _upper_bound(counts, jokers)
    # Exact search with a floor: every arrangement worth >= floor survives the pruning, so a result
    # >= floor is the optimum. Big (dense) racks waste little, so for them start just under the upper
    # bound and widen; for ordinary racks one pass with the greedy floor is faster.
    slack = 4 if len(tiles) > _ITERATE_ABOVE else upper
    while True:
        floor = max(lower, upper - slack)
        value, final_key, back = _solve(counts, jokers, floor=floor)
        if final_key is not None and value >= floor:
            break
        if floor <= lower:  # pragma: no cover - the greedy arrangement itself is always found
            break
        slack *= 4
    if final_key is None or value == 0:
        return Meld(0, ())
    sets = _rebuild(back, final_key)
    return Meld(value, tuple(sets))


def can_open(rack: Iterable[Tile] | str, threshold: int = 30) -> bool:
    """Could this rack make the initial meld (R3): is ``best_meld(rack).value >= threshold``?"""
    tiles = _as_tiles(rack)
    if threshold <= 0:
        return True
    counts, jokers = _counts(tiles)
    if _upper_bound(counts, jokers) < threshold:
        return False
    if _greedy_lower_bound(counts, jokers) >= threshold:
        return True
    value, _, _ = _solve(counts, jokers, target=threshold, floor=threshold)
    return value >= threshold


def _usable_values(counts, jokers: int) -> tuple[list[int], int]:
    """Per number, the value of the tiles that could belong to *some* set (a tile with no partner
    can never be melded), and the most a joker could be worth (the highest number a joker could stand
    for next to such a tile). Used for bounds only."""
    per_number = [0] * 15
    top = 0
    for n in range(1, 14):
        present = sum(1 for c in range(4) if counts[c][n])
        for c in range(4):
            if not counts[c][n]:
                continue
            row = counts[c]
            if jokers:
                near = sum(1 for m in (n - 2, n - 1, n + 1, n + 2) if 1 <= m <= 13 and row[m])
                usable = present + jokers >= 3 or near + jokers >= 2
            else:  # a run needs two neighbours: one each side, or two on one side
                usable = (
                    present >= 3
                    or (row[n - 1] and row[n + 1])
                    or (row[n + 1] and row[n + 2])
                    or (n > 2 and row[n - 1] and row[n - 2])
                )
            if usable:
                per_number[n] += n * counts[c][n]
                top = max(top, min(13, n + 2))
    return per_number, top


def _upper_bound(counts, jokers: int) -> int:
    per_number, top = _usable_values(counts, jokers)
    return sum(per_number) + jokers * top


def _greedy_lower_bound(counts, jokers: int = 0) -> int:
    """Value of a quick valid arrangement: the better of "all runs" (each copy layer's maximal runs
    per colour) and "all groups" (per number, one group per copy layer); with jokers, also the best
    single joker set found by a quick look plus that arrangement of the remaining tiles."""
    best = _plain_greedy(counts)
    if jokers:
        for value, used in _joker_sets(counts, jokers):
            rest = [row[:] for row in counts]
            for c, n in used:
                rest[c][n] -= 1
            best = max(best, value + _plain_greedy(rest))
    return best


def _joker_sets(counts, jokers: int):
    """A few high-value sets that use jokers: (value, real tiles used as (colour, number))."""
    out = []
    for n in range(13, 0, -1):
        cols = [c for c in range(4) if counts[c][n]]
        if jokers >= 2 and cols:
            start = min(n, 11)
            out.append((max(3 * n, 3 * start + 3), [(cols[0], n)]))
        if len(cols) >= 2:
            out.append((3 * n, [(cols[0], n), (cols[1], n)]))
        for c in cols:
            if n + 1 <= 13 and counts[c][n + 1]:
                out.append((3 * n + 3 if n + 2 <= 13 else 3 * n, [(c, n), (c, n + 1)]))
            if n + 2 <= 13 and counts[c][n + 2]:
                out.append((3 * n + 3, [(c, n), (c, n + 2)]))
        if len(out) >= 6:
            break
    return out


def _plain_greedy(counts) -> int:
    runs = 0
    for c in range(4):
        row = counts[c]
        for layer in (1, 2):
            length = total = 0
            for n in range(1, 15):
                if n <= 13 and row[n] >= layer:
                    length += 1
                    total += n
                else:
                    if length >= 3:
                        runs += total
                    length = total = 0
    groups = 0
    for n in range(1, 14):
        for layer in (1, 2):
            k = sum(1 for c in range(4) if counts[c][n] >= layer)
            if k >= 3:
                groups += k * n
    return max(runs, groups)
