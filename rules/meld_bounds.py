"""Cheap bounds on the best meld (R3), from the tile counts alone: an upper bound from the tiles that
could belong to some set, and a greedy lower bound from a quick valid arrangement.
"""

from __future__ import annotations


def usable_values(counts, jokers: int) -> tuple[list[int], int]:
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


def upper_bound(counts, jokers: int) -> int:
    per_number, top = usable_values(counts, jokers)
    return sum(per_number) + jokers * top


def greedy_lower_bound(counts, jokers: int = 0) -> int:
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
