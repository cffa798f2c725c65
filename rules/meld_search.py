"""The meld solver's search (R3): a dynamic programme over the numbers 1..13, in either order, whose
state is, per colour, the open runs (:mod:`rules.meld_states`) plus the jokers still free, and the
rebuilding of the sets from its back-pointers.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

from .meld_bounds import future_bounds
from .meld_states import (
    ASCENDING,
    COLOUR_WEIGHT,
    FORCED,
    GROUPS,
    GROUPS_BY_CODE,
    PAT_TILES,
    STATES,
    STRONGER_DELTAS,
    TRANS,
    S,
    W,
    has_forced,
    last_step_table,
    need_tables,
    step_table,
)
from .sets import PlacedSet
from .tiles import COLOURS, JOKER, Tile


class Search:
    """The DP, one position at a time, so that it can be paused, forked and resumed. ``counts`` are by
    position in ``order`` (:func:`~rules.meld_states.in_order`); ``bounds`` from
    :func:`~rules.meld_bounds.future_bounds` for the same order.

    ``layer`` maps each state key before position ``n`` to the best value reached; ``back`` holds, per
    position done, its steps as (colour, or 4 for the groups; back-pointers) in the order taken (a
    back-pointer is the previous key: the step's choice is the difference of the two). States that
    cannot reach ``floor`` (value + an upper bound on the rest) are pruned, and ``floor`` may be raised
    between positions. With ``beam``, only that many states (the highest
    value + bound) are kept after each step, and ``trimmed`` says whether some were left out: a valid
    arrangement, not always the best. With ``target``, the search stops as soon as a state with no
    forced run reaches it (``hit``). ``work`` counts the states expanded, for the caller's budget. An
    exact pass leaves out the states of a layer that another one dominates (:func:`undominated`). A
    narrow pass ranks the states it keeps after each number by value + bound, plus, given an
    ``outlook`` (:func:`run_outlook`), what each colour's open runs promise."""

    __slots__ = ("counts", "jokers", "bounds", "floor", "beam", "target", "layer", "back", "n")
    __slots__ += ("trimmed", "hit", "work", "order", "outlook", "_steps")

    def __init__(self, counts, jokers, bounds, *, floor=0, beam=0, target=None, order=ASCENDING, outlook=None):
        self.counts, self.jokers, self.bounds, self.order = counts, jokers, bounds, order
        self.floor, self.beam, self.target = floor, beam, target
        self.layer = {jokers * W: 0}
        self.back: list = []
        self.n = 1
        self.trimmed = False
        self.hit = None
        self.work = 0
        self.outlook = outlook
        self._steps = self._walk()

    def fork(self, *, beam: int = 0, floor: int | None = None) -> Search:
        """A search that goes on from this one's current layer (sharing the numbers already done)."""
        floor = self.floor if floor is None else floor
        other = Search(self.counts, self.jokers, self.bounds, floor=floor, order=self.order)
        other.beam, other.target, other.n = beam, self.target, self.n
        other.back = list(self.back)
        other.layer = self.layer
        if beam and len(other.layer) > beam:
            other.trimmed = True
            other.layer = other._most_promising(other.layer, self.n)
        return other

    def run(self, budget: int | None = None) -> bool:
        """Go on up to 13 (True), or pause (False) before a number whose guessed work
        (:meth:`next_cost`) would take ``work`` past ``budget``: a number can cost a hundred times the
        one before it, so a budget checked only after it would be overrun at once."""
        while self.n <= 13 and self.hit is None:
            if budget is not None and self.work + self.next_cost() > budget:
                return False
            for number_done in self._steps:
                if number_done:
                    break
        return True

    def next_cost(self) -> int:
        """A guess at the work of the next number: the layer times the ways that number's tiles can
        split between runs and groups (each colour's count plus one, multiplied); 0 once done."""
        if self.n > 13:
            return 0
        ways = 1
        for row in self.counts:
            ways *= row[self.n] + 1
        return len(self.layer) * ways

    def step(self) -> bool:
        """One colour (the last one with the groups) further; True once the search is done. A search left
        between two colours can go on with :meth:`step` or :meth:`run`, but not be forked."""
        number_done = next(self._steps, None)
        return number_done is None or (number_done and (self.n > 13 or self.hit is not None))

    def _most_promising(self, layer: dict, n: int) -> dict:
        """The ``beam`` states of a layer before position ``n`` with the highest value + bound (+ the
        outlook of their runs, if the search has one)."""
        after = [b[n] for b in self.bounds]
        if self.outlook is None:
            return dict(heapq.nlargest(self.beam, layer.items(), key=lambda kv: kv[1] + after[kv[0] // W]))
        o0, o1, o2, o3 = (self.outlook[c][n] for c in range(4))
        _, w1, w2, w3 = COLOUR_WEIGHT

        def promise(item):
            key, value = item
            runs = key % W
            return value + after[key // W] + o0[runs % 35] + o1[runs // w1 % 35] + o2[runs // w2 % 35] + o3[runs // w3 % 35]

        return dict(heapq.nlargest(self.beam, layer.items(), key=promise))

    def _walk(self) -> Iterator[bool]:
        """The numbers from ``n`` on, yielding after each colour (False) and each number (True)."""
        while self.n <= 13:
            yield from self._number(self.n)
            self.n += 1
            yield True

    def result(self):
        """(best value, final key, back-pointers); (0, None, back) when no state reached the floor."""
        layer = self.layer
        if self.n <= 13 or not layer:
            return 0, None, self.back
        best_key = max(layer, key=lambda k: (layer[k], k))
        return layer[best_key], best_key, self.back

    def _number(self, n: int) -> Iterator[bool]:
        counts, jokers, bounds, floor, beam = self.counts, self.jokers, self.bounds, self.floor, self.beam
        number = self.order[n]
        ks = [counts[c][n] for c in range(4)]
        last = n == 13
        # open runs the next position cannot extend with real tiles (nothing follows 13 or precedes 1:
        # R2, no wrap)
        qs = [0 if last else counts[c][n + 1] for c in range(4)]
        q2s = [counts[c][n + 2] if n + 2 <= 13 else None for c in range(4)]
        after = [b[n + 1] for b in bounds]
        cur = self.layer
        # by key // W (jokers left + 3 * leftover code): the most the leftover tiles, the jokers and
        # the positions after n can still add; a joker still free stands here (worth ``number``) or
        # later (the bounds count it)
        with_jokers = [
            max(g * number + after[j - g] for g in range(j + 1)) for j in (0, min(1, jokers), jokers)
        ]
        reachable = [number * PAT_TILES[hi // 3] + with_jokers[hi % 3] for hi in range(75)]
        first = [bounds[min(hi % 3, jokers)][n] for hi in range(3)]
        steps = []
        # colours with fewer tiles here (then at the next position) first: fewer choices early keep
        # the layers between colours small (measured: bench/meld_compare.py)
        colours = sorted(range(4), key=lambda c: (ks[c], qs[c]))
        for i, c in enumerate(colours[:3]):
            k, q, w = ks[c], qs[c], COLOUR_WEIGHT[c]
            # before the first colour: the bound from n on; then what the tiles at n left can add
            left_here = number * sum(ks[d] for d in colours[i:])
            need_now, reach = (floor, first) if i == 0 else (floor - left_here, reachable)
            table = step_table(k, q, q2s[c], last, number, w)
            nxt: dict = {}
            bp: dict = {}
            get = nxt.get
            self.work += len(cur)
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
            steps.append((c, bp))
            if beam and len(nxt) > beam:
                self.trimmed = True
                nxt = dict(heapq.nlargest(beam, nxt.items(), key=lambda kv: kv[1] + reachable[kv[0] // W]))
            cur = nxt
            yield False
        # the last colour and the groups at n in one step: each choice of the last colour fixes the
        # leftover pattern, whose groups follow at once (no layer in between to fill and read again).
        # A back-pointer holds both keys: the one between the two (with the pattern) and the one before.
        c = colours[3]
        k, w = ks[c], COLOUR_WEIGHT[c]
        need_now = floor - number * k
        table = last_step_table(k, qs[c], q2s[c], last, number, w)
        new: dict = {}
        bp = {}
        get = new.get
        groups = GROUPS_BY_CODE
        # the jokers the other colours' forced runs need at the next two positions, by their states
        others = [(COLOUR_WEIGHT[d], table_d) for d, table_d in enumerate(need_tables(counts, n)) if d != c]
        (wa, na), (wb, nb), (wc, nc) = others
        target = self.target
        self.work += len(cur)
        for key, val in cur.items():
            hi, runs = divmod(key, W)
            if val + reachable[hi] < need_now:
                continue
            pattern, j = divmod(hi, 3)
            need_others = 0 if last else na[runs // wa % 35] + nb[runs // wb % 35] + nc[runs // wc % 35]
            for delta, run_step, in_runs, pattern_step, gain, need_here in table[runs // w % 35 * 3 + j]:
                free = j - in_runs
                need = need_others + need_here
                if need > free:
                    continue
                states = runs + run_step
                for jg, gt in groups[pattern + pattern_step]:
                    if jg > free:
                        break
                    jl = free - jg
                    if need > jl:
                        continue
                    v = val + gain + number * gt
                    if v + after[jl] < floor:
                        continue
                    nk = states + jl * W
                    if v > get(nk, -1):
                        new[nk] = v
                        bp[nk] = key + delta << KEY_BITS | key
                        if target is not None and v >= target and not has_forced(states):
                            self.hit = v
                            return
        steps.append((c, None))
        steps.append((4, bp))
        self.back.append(steps)
        # an exact pass leaves out dominated states; on small layers and in narrow passes the check
        # cost more than it saved (measured with bench/meld_compare.py)
        if not beam and len(new) > DOMINANCE_FROM:
            new = undominated(new, jokers)
        layer = new
        if beam and len(new) > beam:
            self.trimmed = True
            layer = self._most_promising(new, n + 1)
        self.layer = layer


KEY_BITS = 27  # a state key, leftover pattern included, is below W * 75 < 2**27
DOMINANCE_FROM = 100  # states in a layer from which an exact pass checks it for dominated ones


def undominated(layer: dict, jokers: int) -> dict:
    """The states of a layer that no other state of it dominates: one with as much value, the same open
    runs and more jokers free, or the same jokers and one colour's runs one step better
    (:data:`~rules.meld_states.STRONGER`). A dominated state can reach nothing its dominator cannot, so
    leaving it out keeps the search exact (on the racks where the search is slow, most of the states
    of the middle numbers are dominated)."""
    get = layer.get
    cache = _DOMINATORS
    if len(cache) > DOMINATORS_KEPT:
        cache.clear()
    out = {}
    for key, value in layer.items():
        runs = key % W
        room = jokers - key // W % 3
        deltas = cache.get(runs * 3 + room)
        if deltas is None:
            deltas = cache[runs * 3 + room] = _dominators(runs, room)
        for delta in deltas:
            if get(key + delta, -1) >= value:
                break
        else:
            out[key] = value
    return out


def _dominators(runs: int, room: int) -> tuple[int, ...]:
    """The key differences from a state with these runs and ``room`` more jokers possible to the states
    that would dominate it."""
    jokers = tuple(W * more for more in range(1, room + 1))
    runs_better = (d for deltas, w in zip(STRONGER_DELTAS, COLOUR_WEIGHT, strict=True) for d in deltas[runs // w % 35])
    return jokers + tuple(runs_better)


# by runs * 3 + room, filled as racks need them; emptied past DOMINATORS_KEPT entries, so a long-running
# process does not keep every run combination it ever met (about 20,000 after a hundred slow racks)
_DOMINATORS: dict[int, tuple[int, ...]] = {}
DOMINATORS_KEPT = 50_000


def run_outlook(counts, order) -> list[list[list[int]]]:
    """``outlook[c][n][s]``: how much more the runs of colour ``c`` alone (real tiles, no jokers) can
    still add from position ``n`` on when its run state is ``s`` than with no run open (open runs that
    the next tiles extend promise more; forced ones that cannot be finished, less). A narrow pass ranks
    states by it, so that of two states worth the same the one whose runs go on is kept: a hint, not a
    bound (measured on 43 slow racks: keeping 64 states it found the optimum on 26 instead of 16, keeping
    128 on 32 instead of 28).
    Without jokers a colour has at most two runs open, so only those states are worked out."""
    outlook = []
    for row in counts:
        ahead = {s: (_IMPOSSIBLE if FORCED[s] else 0) for s in _TWO_RUNS}  # after the last position
        table = [[0] * S for _ in range(16)]
        for n in range(13, 0, -1):
            k, number = row[n], order[n]
            here = {}
            for s in _TWO_RUNS:
                here[s] = max(
                    (ahead[TRANS[s][u]] + number * u for u in range(k + 1) if TRANS[s][u] >= 0),
                    default=_IMPOSSIBLE,
                )
            none = here[0]
            table[n] = [max(UNFINISHED, here[s] - none) if s in here else 0 for s in range(S)]
            ahead = here
        outlook.append(table)
    return outlook


UNFINISHED = -200  # a state whose forced runs cannot be finished: below any other
_IMPOSSIBLE = -(10**6)
_TWO_RUNS = [i for i, runs in enumerate(STATES) if len(runs) <= 2]


def solve(counts, jokers, *, target=None, floor: int = 0, beam: int = 0, bounds=None, trimmed=None):
    """The whole pass (ascending) in one call: (best value, final state key, back-pointers), or, with
    ``target``, (value, None, None) as soon as a state with no forced run reaches it. With ``beam``, a
    narrow pass (see :class:`Search`); ``trimmed`` (a list) gets True appended if it left states out.
    ``bounds`` (from :func:`~rules.meld_bounds.future_bounds`) may be passed to share them."""
    if bounds is None:
        bounds = future_bounds(counts, jokers)
    search = Search(counts, jokers, bounds, floor=floor, beam=beam, target=target)
    search.run()
    if search.hit is not None:
        return search.hit, None, None
    if trimmed is not None and search.trimmed:
        trimmed.append(True)
    return search.result()


def rebuild(back, final_key, counts, order=ASCENDING) -> list[PlacedSet]:
    """The sets of the arrangement that ends in ``final_key``, by replaying the decisions stored in
    ``back`` (a search's back-pointers; ``counts`` and ``order`` as that search's)."""
    decisions = []
    key = final_key
    for n in range(13, 0, -1):
        steps = back[n - 1]
        mid, before_last = divmod(steps[4][1][key], 1 << KEY_BITS)
        jg = mid // W % 3 - key // W
        key = mid
        xs, js = [0] * 4, [0] * 4
        for c, bp in reversed(steps[:4]):
            prev = before_last if bp is None else bp[key]
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

    reverse = order[1] > order[2]  # a descending search builds its runs from the top

    def close(run):
        if reverse:
            run.reverse()
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
            real = Tile(colour, order[n])
            for i, r in enumerate(targets):
                r.append((JOKER if i >= x - js[c] else real, real))
            open_runs[c] = targets
        for cols, gj in gspec:
            pairs = [(Tile(COLOURS[c], order[n]), Tile(COLOURS[c], order[n])) for c in cols]
            missing = [c for c in range(4) if c not in cols][:gj]
            pairs += [(JOKER, Tile(COLOURS[c], order[n])) for c in missing]
            pairs.sort(key=lambda p: p[1].sort_key)
            sets.append(PlacedSet("group", tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)))
    for runs in open_runs:
        for r in runs:
            close(r)
    sets.sort(key=lambda s: (-s.value, s.kind, [t.sort_key for t in s.represents]))
    return sets
