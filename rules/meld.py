"""The exact meld solver (R3): the most valuable set of disjoint valid sets a rack alone can form.

Design (after van Rijn, Takes & Vis, "The complexity of Rummikub problems", BNAIC 2015, who give a
dynamic programme over the numbers for the *maximum number of tiles*; here extended to maximise
*value* and to handle jokers). See ``rules/README.md`` for the full description and complexity.

The numbers 1..13 are processed one after the other, in either order (runs read the same both ways).
The state before number ``n`` is, per colour, the multiset
of lengths (1, 2 or "3 or more") of the runs of that colour still open, plus the number of jokers not
yet used. Runs of one colour are interchangeable, so the multiset is stored as a sorted tuple (the two
copies of a colour need no identity). At number ``n`` the solver decides, per colour, how many tiles
``x`` go into runs (real tiles and jokers standing for that colour at ``n``); given ``x`` the new
per-colour state is unique: every open run of length 1 or 2 *must* be extended (a run that stopped
there would be invalid), then as many length-3+ runs as possible are extended (extending dominates
closing one and starting another), then new runs start. The real tiles of number ``n`` that are not in
runs, plus any jokers, form groups at ``n``; the best groups for each leftover pattern are
precomputed. A joker in a run or group at ``n`` is worth ``n``. After the last number no run may be
open (no wrap).

A pass keeps, per state, the best value reached and a back-pointer; the sets are rebuilt by replaying
the decisions. Within a number the colours are decided one at a time (the work is a sum, not a
product, over the colours' choices) and each state is one integer. States that cannot reach a floor
(value + an upper bound per number and jokers left) are pruned. :func:`best_meld` runs the exact pass
from 13 down with a greedy arrangement as its floor; only if that would grow past a budget does a
narrow pass (a few states per step) find a good arrangement, and the exact pass then looks only for
something better, raced by an ascending exact pass on the few racks where that is slow.
:func:`can_open` adds cheap bounds (a greedy lower bound and an upper bound from tiles that could
belong to any set) and stops early once the threshold is reached.

Modules: this one (the API and the choice of floor), :mod:`rules.meld_states` (run states, groups,
step tables), :mod:`rules.meld_search` (the dynamic programme and the rebuilding of the sets),
:mod:`rules.meld_bounds` (cheap upper and lower bounds).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .meld_bounds import future_bounds, greedy_lower_bound, upper_bound
from .meld_search import Search, rebuild, run_outlook, solve
from .meld_states import ASCENDING, DESCENDING, in_order
from .sets import PlacedSet
from .tiles import COLOURS, Tile, check_tile_counts, parse_tiles


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


BEAM = 16  # states kept per step by the narrow pass; measured with bench/meld_compare.py
BUDGET = 500  # states the exact pass may expand (as guessed ahead) before a narrow pass raises its floor; same
NARROW_ASCENDING_FROM = 50  # tiles; from here a second narrow pass runs in ascending order; same
ASCENDING_BEAM = 32  # states kept per step by the ascending one; same
RACE_AFTER = 4000  # states the exact pass expands alone above the narrow pass's floor before the race; same
RACE_CAP = 5  # the most work one racing pass does for the other's (plus RACE_AFTER); same
FORK_EVERY = 2000  # states a racing pass expands between the narrow passes forked from it; same


def best_meld(rack: Iterable[Tile] | str) -> Meld:
    """The largest total value of disjoint valid sets the rack alone can form, and those sets (R3).

    ``rack`` is a list of tiles or notation (``"K9 K10 J"``). Exact for any rack up to the full 106-tile
    set; raises :class:`~rules.errors.NotationError` for bad notation or impossible tile counts.
    """
    tiles = _as_tiles(rack)
    counts, jokers = _counts(tiles)
    lower = greedy_lower_bound(counts, jokers)
    # The exact pass walks the numbers from 13 down: there a joker still free is bounded by the number
    # being decided, not by 13, so far fewer states survive the bound on racks with jokers. With the
    # greedy arrangement as its floor it is all most racks need. Before a number that would take it past
    # BUDGET states it pauses, a narrow pass (the BEAM most promising states of each step) finds a valid
    # arrangement, usually the best one, and the exact pass resumes looking only for something better:
    # every arrangement worth more survives that floor.
    by_position = in_order(counts, DESCENDING)
    bounds = future_bounds(by_position, jokers, DESCENDING)
    exact = Search(by_position, jokers, bounds, floor=lower, order=DESCENDING)
    if not exact.run(BUDGET):
        return _meld(*_beyond_the_budget(exact, counts, jokers, bounds[jokers][1], len(tiles)))
    return _meld(*_better(exact, (0, None, None, exact)))


def _beyond_the_budget(exact: Search, counts, jokers: int, upper: int, size: int) -> tuple:
    """A narrow pass raises the paused exact pass's floor, and above it the exact pass goes on alone for
    RACE_AFTER states, which is all most racks need. On the rest a second narrow pass (on big racks)
    may raise the floor again, and an ascending exact pass races it. The best arrangement, as (value,
    final key, back-pointers, the search they belong to)."""
    found, settled = _narrow(exact.fork(beam=BEAM), (0, None, None, exact), upper)
    if settled:
        return found
    exact.floor = max(exact.floor, found[0] + 1)
    if exact.run(exact.work + RACE_AFTER):
        return _better(exact, found)
    ascending_bounds = future_bounds(counts, jokers)
    if size >= NARROW_ASCENDING_FROM:
        outlook = run_outlook(counts, ASCENDING)
        narrow = Search(counts, jokers, ascending_bounds, floor=exact.floor, beam=ASCENDING_BEAM, outlook=outlook)
        found, settled = _narrow(narrow, found, upper)
        if settled:
            return found
        exact.floor = max(exact.floor, found[0] + 1)
    ascending = Search(counts, jokers, ascending_bounds, floor=exact.floor)
    winner, found = _race(exact, ascending, found, upper)
    return found if winner is None else _better(winner, found)


def _narrow(narrow: Search, found: tuple, upper: int) -> tuple[tuple, bool]:
    """Run a narrow pass: (its arrangement if better than ``found``, else ``found``; whether that is
    the answer: it reached the upper bound, or the pass left nothing out and so was exact)."""
    narrow.run()
    better = _better(narrow, found)
    if better is found:
        return found, False
    return better, better[0] >= upper or not narrow.trimmed


def _better(search: Search, found: tuple) -> tuple:
    """The search's best arrangement if it reached its floor, else ``found``."""
    value, key, back = search.result()
    return (value, key, back, search) if key is not None and value >= search.floor else found


def _race(first: Search, second: Search, found: tuple, upper: int) -> tuple[Search | None, tuple]:
    """Two exact passes above the same floor, one colour at a time: the first to finish has the answer
    (the winner, and the best arrangement found so far; no winner if a narrow pass settled it). On a
    few racks one order's bound stays far above the optimum through the middle numbers while the
    other's meets it. Every FORK_EVERY states a narrow pass forked from the pass that just finished a
    number (exact up to there) may find a better arrangement, which raises both floors."""
    began = (first.work, second.work)
    last_fork = {id(first): first.work, id(second): second.work}
    while True:
        search = _next_to_step(first, second, began)
        n = search.n
        if search.step():
            return search, found
        if search.n == n or search.work - last_fork[id(search)] < FORK_EVERY:
            continue
        last_fork[id(search)] = search.work
        found, settled = _narrow(search.fork(beam=BEAM), found, upper)
        if settled:
            return None, found
        first.floor = second.floor = max(first.floor, found[0] + 1)


def _next_to_step(first: Search, second: Search, began: tuple[int, int]) -> Search:
    """The racing pass that goes next: the one whose next number looks cheaper
    (:meth:`~rules.meld_search.Search.next_cost`; each pass's work comes in a burst of a few numbers
    where its layers swell, and the other is usually past its burst or not yet in it), unless it has
    done RACE_CAP times the other's work (plus RACE_AFTER) since the race began (so neither waits for
    ever)."""
    done_first, done_second = first.work - began[0], second.work - began[1]
    if done_first > RACE_CAP * done_second + RACE_AFTER:
        return second
    if done_second > RACE_CAP * done_first + RACE_AFTER:
        return first
    return first if first.next_cost() <= second.next_cost() else second


def _meld(value, final_key, back, search: Search) -> Meld:
    if final_key is None or value == 0:
        return Meld(0, ())
    return Meld(value, tuple(rebuild(back, final_key, search.counts, search.order)))


def can_open(rack: Iterable[Tile] | str, threshold: int = 30) -> bool:
    """Could this rack make the initial meld (R3): is ``best_meld(rack).value >= threshold``?"""
    tiles = _as_tiles(rack)
    if threshold <= 0:
        return True
    counts, jokers = _counts(tiles)
    if upper_bound(counts, jokers) < threshold:
        return False
    if greedy_lower_bound(counts, jokers) >= threshold:
        return True
    value, _, _ = solve(counts, jokers, target=threshold, floor=threshold)
    return value >= threshold
