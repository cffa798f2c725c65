"""Cheap bounds on the best meld (R3), from the tile counts alone: an upper bound from the tiles that
could belong to some set, and a greedy lower bound from a quick valid arrangement.
"""

from __future__ import annotations

from .meld_states import ASCENDING


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


def future_bounds(counts, jokers: int, order: tuple[int, ...] = ASCENDING) -> list[list[int]]:
    """``bounds[j][n]``: the most that the positions ``n``..13 can still add to an arrangement that has
    ``j`` jokers left to place (``n`` up to 14, where it is 0). ``counts`` are by position in ``order``
    (:func:`~rules.meld_states.in_order`), which gives the number each position stands for.

    A tile that could be in a set without a joker is counted whole. Any other tile ("orphan") needs a
    joker in its set: in a group with it (such a group holds at most two orphans, or three real tiles
    of different colours would make a group alone) or within two places of it in its run (else two
    real neighbours on one side, or one on each, would make a run alone). So each joker saves at most
    the orphans of one such neighbourhood, and the orphans saved by ``j`` jokers are worth at most
    ``j`` times the best neighbourhood. A joker placed before ``n`` (in an open run) could make a tile
    at ``n`` or ``n + 1`` count without a new joker, so when some joker is placed the positions below
    ``n`` are taken as present for those tiles. The jokers themselves: :func:`joker_values`.

    Copies count: both copies of a tile count whole only if two disjoint jokerless sets can hold them
    at once (:func:`_both_copies_plain`); otherwise the second copy is an orphan. And a joker's own
    value and the orphans it saves are bounded together (:func:`_joker_combo`): ``j`` jokers add at
    most ``j`` times the best one joker can add, which is often less than the two maxima apart."""
    bounds = [[0] * 16 for _ in range(jokers + 1)]
    high = 0  # the highest number of a tile that could be in a set
    plain = [0] * 16  # by position: value of the tiles that need no joker
    orphan = [[0] * 20 for _ in range(4)]  # value of one copy of an orphan, by colour and position
    orphans = [0] * 16  # by position: value of all orphan copies
    orphan_copies = [[0] * 16 for _ in range(4)]
    group_cap = [0] * 16  # by position: the most one joker's group could save there
    for n in range(1, 14):
        number = order[n]
        colours = sum(1 for c in range(4) if counts[c][n])
        tiles_here = sum(counts[c][n] for c in range(4))
        in_group = 0
        for c in range(4):
            row, k = counts[c], counts[c][n]
            if not k:
                continue
            near = sum(1 for m in (n - 2, n - 1, n + 1, n + 2) if 1 <= m <= 13 and row[m])
            if colours + jokers < 3 and near + jokers < 2:
                continue  # in no set at all
            high = max(high, number)
            plain_copies = 0
            if colours >= 3 or _run_partners(row, n, 1):
                plain_copies = 1 if k == 2 and not _both_copies_plain(row, n, colours, tiles_here) else k
            plain[n] += number * plain_copies
            if k > plain_copies:
                orphan[c][n] = number
                orphan_copies[c][n] = k - plain_copies
                orphans[n] += number * (k - plain_copies)
                in_group += 1
        group_cap[n] = number * min(2, in_group)
    joker_top = joker_values(high, jokers) if order == ASCENDING else descending_joker_values(high, jokers)
    # the most one joker's run could save among the orphans at n.. (the joker at p, orphans at p-2..p+2)
    run_cap = [0] * 17
    for n in range(13, 0, -1):
        best = run_cap[n + 1]
        for o in orphan:
            best = max(
                best,
                o[n] + o[n + 1] + o[n + 3] + o[n + 4],
                o[n] + o[n + 2] + o[n + 3],
                o[n] + o[n + 1],
                o[n + 1] + o[n + 2],
            )
        run_cap[n] = best
    combo = _joker_combo(order, orphan, group_cap, joker_top, jokers)
    tail_plain = tail_orphans = tail_group = 0
    for n in range(13, 0, -1):
        tail_plain += plain[n]
        tail_orphans += orphans[n]
        tail_group = max(tail_group, group_cap[n])
        cap = max(tail_group, run_cap[n])
        bounds[jokers][n] = tail_plain + min(
            min(tail_orphans, jokers * cap) + joker_top[jokers][n], jokers * combo[n]
        )
        # some joker already placed: orphans at n and n + 1 may extend its open run
        moved = sum(
            order[m] * orphan_copies[c][m]
            for m in (n, n + 1)
            if m <= 13
            for c in range(4)
            if orphan[c][m] and _run_partners(counts[c], m, n)
        )
        for j in range(jokers):
            bounds[j][n] = tail_plain + moved + min(
                min(tail_orphans - moved, j * cap) + joker_top[j][n], j * combo[n]
            )
    return bounds


def _joker_combo(order, orphan, group_cap, joker_top, jokers: int) -> list[int]:
    """By position ``n``: the most one joker still free at ``n`` can add, its own value and the orphans
    it saves together. Saving nothing, it is worth what :func:`joker_values` allows; in a group at ``m``,
    the number there and at most two orphans (``group_cap``); in a run at ``p``, the number there and
    the orphans of its colour within two places of ``p`` (an orphan in a run has a joker that near),
    from ``n`` on. ``p`` may be just before ``n``, so that the bound also covers the best meld of the
    tiles from ``n`` on, whose jokers may stand below them (the tests check it that way)."""
    combo = [0] * 16
    if not jokers:
        return combo
    rows = [o for o in orphan if any(o)]
    later = 0  # the best joker at p >= n + 2 (its whole window from n on) or in a group at n or later
    for n in range(13, 0, -1):
        before = at_n = at_next = whole = 0  # orphans saved by a joker at n - 1, n, n + 1, n + 2
        for o in rows:
            a, b, q, d, e = o[n : n + 5]
            before = max(before, a + b)
            at_n = max(at_n, b + q)
            at_next = max(at_next, a + q + d)
            whole = max(whole, a + b + d + e)
        # a joker that saves nothing is worth at most what it could stand for alone
        if whole and n + 2 <= 13:
            later = max(later, order[n + 2] + whole)
        if group_cap[n]:
            later = max(later, group_cap[n] + order[n])
        here = max(
            order[n - 1] + before if before and n > 1 else 0,
            order[n] + at_n if at_n else 0,
            order[n + 1] + at_next if at_next and n < 13 else 0,
        )
        alone = max(joker_top[1][n], joker_top[jokers][n] - joker_top[jokers - 1][n])
        combo[n] = max(later, here, alone)
    return combo


def joker_values(high: int, jokers: int) -> list[list[int]]:
    """``values[j][n]``: the most ``j`` jokers placed at ``n`` or later can be worth, ``high`` being the
    highest number of a tile that could be in a set (0: none). A joker is worth the number it stands
    for; above ``high`` it can only be in a run whose numbers from ``high + 1`` up to it are all jokers
    (a group needs a real tile, at most two jokers). Those from ``n`` on are still to be placed, so from
    ``n`` <= ``high + 1`` the jokers left are worth at most ``high + 1``, ``high + 2``, ... (each at
    most 13, and never more than ``high + 2``); later, at most ``n``, ``n + 1``, ..."""
    values = [[0] * 16 for _ in range(jokers + 1)]
    if not high:
        return values
    cap = min(13, high + 2)
    for n in range(1, 16):
        base = max(high, n - 1) + 1
        for j in range(1, jokers + 1):
            values[j][n] = values[j - 1][n] + min(cap, base + j - 1)
    return values


def descending_joker_values(high: int, jokers: int) -> list[list[int]]:
    """As :func:`joker_values`, for the positions in descending order (position ``p`` is the number
    ``14 - p``): ``j`` jokers placed at ``p`` or later stand for ``14 - p`` or less. Above ``high`` a
    joker is in a run whose numbers from ``high + 1`` up are all jokers, so each is worth at most
    ``high + 1``, except that two jokers may be ``high + 1`` and ``high + 2`` (one run; going down, the
    one at ``high + 2`` is placed first, so once a joker is placed the other is worth ``high + 1`` at
    most)."""
    values = [[0] * 16 for _ in range(jokers + 1)]
    if not high:
        return values
    for p in range(1, 14):
        number = 14 - p
        for j in range(1, jokers + 1):
            values[j][p] = j * min(number, high + 1) + (1 if j == 2 and number >= high + 2 else 0)
    return values


def _run_partners(row, m: int, n: int) -> bool:
    """Could the tile at ``m`` be in a run of real tiles, the numbers below ``n`` taken as present?"""

    def has(x):
        return 1 <= x < n or (n <= x <= 13 and row[x] > 0)

    return (has(m - 1) and (has(m + 1) or has(m - 2))) or (has(m + 1) and has(m + 2))


def _both_copies_plain(row, n: int, colours: int, tiles_here: int) -> bool:
    """Could both copies of the tile at position ``n`` of ``row`` (a colour's counts; ``colours`` and
    ``tiles_here`` at ``n`` in all) be in sets without a joker at once: in two groups, in a run and a
    group, or in two runs (two three-tile runs through ``n``)?"""
    if tiles_here >= 6:
        return True  # two groups of three colours
    if colours >= 3 and _run_partners(row, n, 1):
        return True
    # the runs n-2..n, n-1..n+1 and n..n+2 taken two at a time (a row is 0 outside 1..13)
    a, b, q, d = row[n - 2], row[n - 1], row[n + 1], row[n + 2]
    return bool(
        (a > 1 and b > 1) or (b > 1 and q > 1) or (q > 1 and d > 1)
        or (a and b > 1 and q) or (b and q > 1 and d) or (a and b and q and d)
    )
