"""The meld solver's search (R3): a forward dynamic programme over the numbers 1..13 whose state is,
per colour, the open runs (:mod:`rules.meld_states`) plus the jokers still free, and the rebuilding of
the sets from its back-pointers.
"""

from __future__ import annotations

import heapq

from .meld_bounds import future_bounds
from .meld_states import (
    COLOUR_WEIGHT,
    DOMINATORS,
    FORCED,
    GROUPS,
    GROUPS_BY_CODE,
    PAT_TILES,
    W,
    has_forced,
    step_table,
)
from .sets import PlacedSet
from .tiles import COLOURS, JOKER, Tile

DOMINANCE_ABOVE = 1000  # states; measured with bench/meld.py --search


def solve(counts, jokers, *, target=None, floor: int = 0, beam: int = 0, bounds=None, trimmed=None):
    """Forward DP. Returns (best value, final state key, back-pointers), or, with ``target``, stops as
    soon as a state with no forced run reaches ``target`` (returns that value, None, None). States that
    cannot reach ``floor`` (value + an upper bound on the rest) are pruned.

    Within a number the colours are decided one after another (four small steps, then the groups), so
    the work is a sum over the colours' choices rather than their product; the leftover tiles are
    carried as a canonical pattern code. States dominated by another state of the layer are dropped.
    A back-pointer is just the previous key: the step's choice is the difference of the two keys.

    With ``beam``, only that many states (the highest value + bound) are kept after each step, and the
    numbers where some were left out are appended to ``trimmed``: a valid arrangement, not always the
    best. ``bounds`` (from :func:`~rules.meld_bounds.future_bounds`) may be passed to share them."""
    # bounds[j][n] = upper bound on what numbers n..13 can still add with j jokers left
    if bounds is None:
        bounds = future_bounds(counts, jokers)
    forced = FORCED
    layer = {jokers * W: 0}
    back = []
    for n in range(1, 14):
        ks = [counts[c][n] for c in range(4)]
        last = n == 13
        # open runs the next number cannot extend with real tiles (nothing follows 13: R2, no wrap)
        qs = [0 if last else counts[c][n + 1] for c in range(4)]
        after = [b[n + 1] for b in bounds]
        cur = {key: val for key, val in layer.items() if val + bounds[key // W][n] >= floor}
        # by key // W (jokers left + 3 * leftover code): the most the leftover tiles, the jokers and
        # the numbers after n can still add (after n, the bounds count the jokers; at 13, jokers
        # left can only be worth 13)
        spare = n if last else 0
        reachable = [
            n * PAT_TILES[hi // 3] + after[min(hi % 3, jokers)] + spare * (hi % 3) for hi in range(75)
        ]
        steps = []
        for c in range(4):
            k, q, w = ks[c], qs[c], COLOUR_WEIGHT[c]
            need_now = floor - n * sum(ks[c:])
            table = step_table(k, q, last, n, w)
            nxt: dict = {}
            bp: dict = {}
            get = nxt.get
            for key, val in cur.items():
                hi = key // W
                if val + reachable[hi] < need_now:
                    continue
                for delta, gain in table[(key // w) % 35 * 3 + hi % 3]:
                    v = val + gain
                    nk = key + delta
                    if v > get(nk, -1):
                        nxt[nk] = v
                        bp[nk] = key
            steps.append(bp)
            if beam and len(nxt) > beam:
                trimmed.append(n)
                nxt = dict(heapq.nlargest(beam, nxt.items(), key=lambda kv: kv[1] + reachable[kv[0] // W]))
            cur = nxt
        new: dict = {}
        bp = {}
        get = new.get
        groups = GROUPS_BY_CODE
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
                if v + after[jl] < floor:
                    continue
                nk = states + jl * W
                if v > get(nk, -1):
                    new[nk] = v
                    bp[nk] = key
                    if target is not None and v >= target and not has_forced(states):
                        return v, None, None
        steps.append(bp)
        back.append(steps)
        # the check costs about as much as expanding a state, so it pays only on big layers
        layer = drop_dominated(new) if len(new) > DOMINANCE_ABOVE else new
        if beam and len(layer) > beam:
            trimmed.append(n)
            layer = dict(heapq.nlargest(beam, layer.items(), key=lambda kv: kv[1] + after[kv[0] // W]))
    if not layer:
        return 0, None, back
    best_key = max(layer, key=lambda k: (layer[k], k))
    return layer[best_key], best_key, back


def drop_dominated(layer: dict) -> dict:
    """The states of a layer that no other state dominates. A state dominates another if it has at
    least the value and the jokers and, colour by colour, the same open runs or runs that simulate
    them (:data:`DOMINATORS`): whatever the other can still add, it can add too. Only single-colour
    differences are looked up; chains of them follow because domination is transitive."""
    get = layer.get
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
    for w in COLOUR_WEIGHT:
        s = key // w % 35
        for d in DOMINATORS[s]:
            other = key + (d - s) * w
            for jj in range(j, 3):
                if get(other + (jj - j) * W, -1) >= val:
                    return True
    return False


def rebuild(back, final_key, counts) -> list[PlacedSet]:
    decisions = []
    key = final_key
    for n in range(13, 0, -1):
        steps = back[n - 1]
        prev = steps[4][key]
        jg = prev // W % 3 - key // W
        key = prev
        xs, js = [0] * 4, [0] * 4
        for c in range(3, -1, -1):
            prev = steps[c][key]
            js[c] = prev // W % 3 - key // W % 3
            left = {0: 0, 5: 1, 1: 2}[key // W // 3 - prev // W // 3]
            xs[c] = counts[c][n] - left + js[c]
            key = prev
        # the groups for the real leftover pattern (the DP only kept its canonical code)
        pattern = tuple(counts[c][n] - (xs[c] - js[c]) for c in range(4))
        gspec = next(g for gj, _, g in GROUPS[pattern] if gj == jg)
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
