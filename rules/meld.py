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
replaying the decisions. Within a number the colours are decided one at a time (the work is a sum, not
a product, over the colours' choices), each state is one integer, and on big layers states dominated
by another (more value, more jokers, runs that simulate theirs) are dropped. :func:`can_open` adds cheap bounds (a greedy lower bound and an upper bound
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

# A group's value does not depend on its colours, so the leftover pattern is carried as a code:
# (colours with one tile left) * 5 + (colours with two left).
_PAT_STEP = (0, 5, 1)  # code increment for a colour leaving 0, 1 or 2 tiles
_PAT_TILES = [(code // 5) + 2 * (code % 5) for code in range(25)]
_GROUPS_BY_CODE = {
    ones * 5 + twos: tuple(
        (j, tiles) for j, tiles, _ in _GROUPS[(2,) * twos + (1,) * ones + (0,) * (4 - ones - twos)]
    )
    for ones in range(5)
    for twos in range(5 - ones)
}


def _dominators() -> list[tuple[int, ...]]:
    """For each per-colour state, the other states that simulate it: every number of tiles into runs
    possible from it is possible from them and leads again to a simulating state, and they have no
    forced run where it has none. The greatest such relation, by fixed point over the transitions."""
    size = len(_STATES)
    rel = {(a, b) for a in range(size) for b in range(size) if a != b and not (_FORCED[a] and not _FORCED[b])}
    changed = True
    while changed:
        changed = False
        for a, b in list(rel):
            for x in range(5):
                tb, ta = _TRANS[b][x], _TRANS[a][x]
                if tb >= 0 and (ta < 0 or (ta != tb and (ta, tb) not in rel)):
                    rel.discard((a, b))
                    changed = True
                    break
    return [tuple(a for a in range(size) if (a, b) in rel) for b in range(size)]


_DOMINATORS = _dominators()


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


# A DP state is one integer: the four colours' run states in base 35, then jokers free (0-2) and,
# inside a number, the leftover pattern code: key = s0 + 35 s1 + 35² s2 + 35³ s3 + _W (j + 3 code).
_S = len(_STATES)
_COLOUR_WEIGHT = (1, _S, _S**2, _S**3)
_W = _S**4
_DOMINANCE_ABOVE = 1000  # states; measured with bench/meld.py --search


def _solve(counts, jokers, *, target: int | None = None, floor: int = 0):
    """Forward DP. Returns (best value, final state key, back-pointers), or, with ``target``, stops as
    soon as a state with no forced run reaches ``target`` (returns that value, None, None). States that
    cannot reach ``floor`` (value + an upper bound on the rest) are pruned.

    Within a number the colours are decided one after another (four small steps, then the groups), so
    the work is a sum over the colours' choices rather than their product; the leftover tiles are
    carried as a canonical pattern code. States dominated by another state of the layer are dropped.
    A back-pointer is just the previous key: the step's choice is the difference of the two keys."""
    # rest[n] + jokers * jtop = upper bound on what numbers n..13 can still add.
    per_number, jtop = _usable_values(counts, jokers)
    rest = [0] * 16
    for n in range(13, 0, -1):
        rest[n] = rest[n + 1] + per_number[n]
    forced = _FORCED
    W = _W
    layer = {jokers * W: 0}
    back = []
    for n in range(1, 14):
        ks = [counts[c][n] for c in range(4)]
        last = n == 13
        # open runs the next number cannot extend with real tiles (nothing follows 13: R2, no wrap)
        qs = [0 if last else counts[c][n + 1] for c in range(4)]
        after = rest[n + 1]
        cur = {key: val for key, val in layer.items() if val + rest[n] + jtop * (key // W) >= floor}
        steps = []
        for c in range(4):
            k, q, w = ks[c], qs[c], _COLOUR_WEIGHT[c]
            need_now = floor - n * sum(ks[c:]) - after
            table = _step_table(k, q, last, n, w)
            reach = _reach(n, jtop)
            nxt: dict = {}
            bp: dict = {}
            get = nxt.get
            for key, val in cur.items():
                hi = key // W
                if val + reach[hi] < need_now:
                    continue
                for delta, gain in table[(key // w) % 35 * 3 + hi % 3]:
                    v = val + gain
                    nk = key + delta
                    if v > get(nk, -1):
                        nxt[nk] = v
                        bp[nk] = key
            steps.append(bp)
            cur = nxt
        new: dict = {}
        bp = {}
        get = new.get
        groups = _GROUPS_BY_CODE
        nf = [[max(0, f - q) for f in forced] for q in qs]
        for key, val in cur.items():
            hi, states = divmod(key, W)
            pat, j = divmod(hi, 3)
            if last:
                need = 0
            else:
                s0, r = states % 35, states // 35
                s1, r = r % 35, r // 35
                need = nf[0][s0] + nf[1][s1] + nf[2][r % 35] + nf[3][r // 35]
                if need > j:
                    continue
            for jg, gt in groups[pat]:
                if jg > j:
                    break
                jl = j - jg
                if need > jl:
                    continue
                v = val + n * gt
                if v + after + jtop * jl < floor:
                    continue
                nk = states + jl * W
                if v > get(nk, -1):
                    new[nk] = v
                    bp[nk] = key
                    if target is not None and v >= target and not _has_forced(states):
                        return v, None, None
        steps.append(bp)
        back.append(steps)
        # the check costs about as much as expanding a state, so it pays only on big layers
        layer = _drop_dominated(new) if len(new) > _DOMINANCE_ABOVE else new
    if not layer:
        return 0, None, back
    best_key = max(layer, key=lambda k: (layer[k], k))
    return layer[best_key], best_key, back


@cache
def _reach(n: int, jtop: int) -> tuple[int, ...]:
    """By key // _W (jokers + 3 * pattern code): the most the leftover tiles and the free jokers can
    still add."""
    return tuple(n * _PAT_TILES[hi // 3] + jtop * (hi % 3) for hi in range(75))


def _has_forced(states: int) -> bool:
    return any(_FORCED[states // w % 35] for w in _COLOUR_WEIGHT)


@cache
def _step_table(k: int, q: int, last: bool, n: int, w: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For one colour with ``k`` real tiles at number ``n`` (``q`` at the next one), indexed by
    run state * 3 + jokers free: the choices as (key difference, value gained). Choices leaving a
    forced run that neither the next number's tiles nor the jokers left could extend are omitted."""
    out = []
    for s in range(_S):
        for j in range(3):
            row = []
            for ns, x, jr, left in _colour_options(s, k, j):
                f = _FORCED[ns]
                if (f if last else f - q > j - jr) > 0:
                    continue
                row.append(((ns - s) * w - jr * _W + _PAT_STEP[left] * 3 * _W, n * x))
            out.append(tuple(row))
    return tuple(out)


def _drop_dominated(layer: dict) -> dict:
    """The states of a layer that no other state dominates. A state dominates another if it has at
    least the value and the jokers and, colour by colour, the same open runs or runs that simulate
    them (:data:`_DOMINATORS`): whatever the other can still add, it can add too. Only single-colour
    differences are looked up; chains of them follow because domination is transitive."""
    get = layer.get
    W = _W
    out = {}
    for key, val in layer.items():
        j = key // W % 3
        if j < 2 and any(get(key + (jj - j) * W, -1) >= val for jj in range(j + 1, 3)):
            continue
        if _dominated(get, key, j, val):
            continue
        out[key] = val
    return out


def _dominated(get, key: int, j: int, val: int) -> bool:
    for w in _COLOUR_WEIGHT:
        s = key // w % 35
        for d in _DOMINATORS[s]:
            other = key + (d - s) * w
            for jj in range(j, 3):
                if get(other + (jj - j) * _W, -1) >= val:
                    return True
    return False


def _rebuild(back, final_key, counts) -> list[PlacedSet]:
    decisions = []
    key = final_key
    for n in range(13, 0, -1):
        steps = back[n - 1]
        prev = steps[4][key]
        jg = prev // _W % 3 - key // _W
        key = prev
        xs, js = [0] * 4, [0] * 4
        for c in range(3, -1, -1):
            prev = steps[c][key]
            js[c] = prev // _W % 3 - key // _W % 3
            left = {0: 0, 5: 1, 1: 2}[key // _W // 3 - prev // _W // 3]
            xs[c] = counts[c][n] - left + js[c]
            key = prev
        # the groups for the real leftover pattern (the DP only kept its canonical code)
        pattern = tuple(counts[c][n] - (xs[c] - js[c]) for c in range(4))
        gspec = next(g for gj, _, g in _GROUPS[pattern] if gj == jg)
        decisions.append((n, xs, js, gspec))
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
    sets = _rebuild(back, final_key, counts)
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
