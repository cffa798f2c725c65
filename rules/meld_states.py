"""The meld solver's model of a rack at one number (R2, R3): per-colour run states and their
transitions, the best groups for each leftover pattern, which run states simulate which, and the
per-colour step tables the search (:mod:`rules.meld_search`) walks. Everything here depends only on
the rules, not on a rack, and is computed once (at import or cached).

A per-colour state is the multiset of the lengths (1, 2 or "3 or more") of that colour's open runs.
Given how many tiles of a colour go into runs at a number, the new state is unique: runs of length 1-2
must be extended (one stopped there would be invalid), then as many 3+ runs as possible (extending
dominates closing one and starting another), then new runs start.
"""

from __future__ import annotations

import itertools
from functools import cache

# --- per-colour run states -------------------------------------------------------------------------
# A state is a sorted tuple of open run lengths, each 1, 2 or 3 (= "3 or more"); at most 4 open runs
# per colour (2 copies + 2 jokers standing for the same tile).
STATES: list[tuple[int, ...]] = [
    s for size in range(5) for s in itertools.combinations_with_replacement((1, 2, 3), size)
]
_INDEX = {s: i for i, s in enumerate(STATES)}
FORCED = [sum(1 for L in s if L < 3) for s in STATES]  # runs that must be extended
ONES = [sum(1 for L in s if L == 1) for s in STATES]  # runs that must be extended twice


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


TRANS = [[_transition(s, x) for x in range(5)] for s in STATES]


def _stronger(s: tuple[int, ...]) -> list[int]:
    """The run states one step better than ``s``: one open run longer (1 to 2, 2 to "3 or more"), or
    one more run of 3 or more open. Whatever the tiles after, a state one step better can do all that
    ``s`` can, for the same value: the same tiles extend the longer run (it needs fewer), and a run of
    3 or more may stop at any number."""
    out = {_INDEX[tuple(sorted(s[:i] + (length + 1,) + s[i + 1 :]))] for i, length in enumerate(s) if length < 3}
    if len(s) < 4:
        out.add(_INDEX[tuple(sorted((*s, 3)))])
    return sorted(out)


STRONGER = [_stronger(s) for s in STATES]


@cache
def _colour_options(s: int, k: int, jmax: int) -> tuple[tuple[int, int, int, int], ...]:
    """Per-colour choices at one number: (new state, tiles into runs x, jokers into runs, leftover
    real tiles for groups). ``k`` real tiles of this colour/number are on the rack, ``jmax`` jokers
    are free."""
    out = []
    for jr in range(min(jmax, 2) + 1):
        for u in range(k + 1):
            ns = TRANS[s][u + jr]
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
GROUPS = _group_table()

# A group's value does not depend on its colours, so the leftover pattern is carried as a code:
# (colours with one tile left) * 5 + (colours with two left).
PAT_STEP = (0, 5, 1)  # code increment for a colour leaving 0, 1 or 2 tiles
PAT_TILES = [(code // 5) + 2 * (code % 5) for code in range(25)]
GROUPS_BY_CODE = {
    ones * 5 + twos: tuple(
        (j, tiles) for j, tiles, _ in GROUPS[(2,) * twos + (1,) * ones + (0,) * (4 - ones - twos)]
    )
    for ones in range(5)
    for twos in range(5 - ones)
}


@cache
def _need_table(q1: int, q2: int | None) -> tuple[int, ...]:
    """By per-colour run state after position n: the jokers its forced runs need at n + 1 and n + 2,
    with ``q1`` and ``q2`` real tiles of the colour there (``q2`` None: n + 2 is past the last). A run of
    length 2 needs one more tile, one of length 1 two more (a joker at n + 1 is not one at n + 2)."""
    return tuple(
        max(0, FORCED[s] - q1) + ((99 if ONES[s] else 0) if q2 is None else max(0, ONES[s] - q2))
        for s in range(len(STATES))
    )


def need_tables(counts, n: int) -> list[tuple[int, ...]]:
    """Per colour, :func:`_need_table` for the tiles after ``n`` (``n`` < 13)."""
    return [_need_table(row[n + 1], row[n + 2] if n + 2 <= 13 else None) for row in counts]


# --- the order of the numbers ----------------------------------------------------------------------
# The search walks positions 1..13; an order says which number each position stands for (0 beyond).
# Runs read the same both ways and groups sit at one number, so only the values and the bounds differ.
ASCENDING = tuple(range(16))  # position n is the number n
DESCENDING = (0, *range(13, 0, -1), 0, 0)  # position p is the number 14 - p


def in_order(counts, order: tuple[int, ...]) -> list[list[int]]:
    """The tile counts per colour by position in ``order`` (``counts`` is by number, 16 wide)."""
    if order == ASCENDING:
        return counts
    return [[row[number] for number in order] for row in counts]


# --- the search's state key ------------------------------------------------------------------------
# A DP state is one integer: the four colours' run states in base 35, then jokers free (0-2) and,
# inside a number, the leftover pattern code: key = s0 + 35 s1 + 35² s2 + 35³ s3 + W (j + 3 code).
S = len(STATES)
COLOUR_WEIGHT = (1, S, S**2, S**3)
W = S**4


# per colour and run state: the key differences to the states one step better (:data:`STRONGER`)
STRONGER_DELTAS = [[tuple((t - s) * w for t in STRONGER[s]) for s in range(S)] for w in COLOUR_WEIGHT]


def has_forced(states: int) -> bool:
    return any(FORCED[states // w % 35] for w in COLOUR_WEIGHT)


@cache
def step_table(
    k: int, q: int, q2: int | None, last: bool, number: int, w: int
) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For one colour with ``k`` real tiles at a position holding ``number`` (``q`` and ``q2`` at the
    next two positions, see :func:`_need_table`), indexed by run state * 3 + jokers free: the choices
    as (key difference, value gained). Choices leaving forced runs that the next positions' tiles and
    the jokers left could not extend are omitted."""
    return tuple(
        tuple((delta, gain) for delta, _, _, _, gain, _ in row) for row in last_step_table(k, q, q2, last, number, w)
    )


@cache
def last_step_table(
    k: int, q: int, q2: int | None, last: bool, number: int, w: int
) -> tuple[tuple[tuple[int, int, int, int, int, int], ...], ...]:
    """As :func:`step_table`, for the colour a number's groups follow at once, each choice with its
    parts: (key difference, run-state difference, jokers into runs, leftover pattern code step, value
    gained, jokers the new state's forced runs need at the next two positions; 0 at the last), so
    that the search reads the new state without dividing its key."""
    need = _need_table(q, q2)
    out = []
    for s in range(S):
        for j in range(3):
            row = []
            for ns, x, jr, left in _colour_options(s, k, j):
                if FORCED[ns] if last else need[ns] > j - jr:
                    continue
                runs, pattern = (ns - s) * w, PAT_STEP[left]
                row.append((runs - jr * W + pattern * 3 * W, runs, jr, pattern, number * x, 0 if last else need[ns]))
            out.append(tuple(row))
    return tuple(out)
