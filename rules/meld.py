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
by another (more value, more jokers, runs that simulate theirs) are dropped. States that cannot reach a
floor (value + an upper bound per number and jokers left) are pruned. :func:`best_meld` runs the exact
pass with a greedy arrangement as its floor; only if that grows past a budget does a narrow pass (a few
states per step) go on from there for a good arrangement, and the exact pass then looks only for
something better. :func:`can_open` adds cheap bounds (a greedy lower bound and an upper bound from
tiles that could belong to any set) and stops early once the threshold is reached.

Modules: this one (the API and the choice of floor), :mod:`rules.meld_states` (run states, groups,
step tables), :mod:`rules.meld_search` (the dynamic programme and the rebuilding of the sets),
:mod:`rules.meld_bounds` (cheap upper and lower bounds).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .meld_bounds import future_bounds, greedy_lower_bound, upper_bound
from .meld_search import Search, rebuild, solve
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


BEAM = 64  # states kept per step by the narrow pass; measured with bench/meld_compare.py
BUDGET = 500  # states the exact pass expands before a narrow pass raises its floor; same


def best_meld(rack: Iterable[Tile] | str) -> Meld:
    """The largest total value of disjoint valid sets the rack alone can form, and those sets (R3).

    ``rack`` is a list of tiles or notation (``"K9 K10 J"``). Exact for any rack up to the full 106-tile
    set; raises :class:`~rules.errors.NotationError` for bad notation or impossible tile counts.
    """
    tiles = _as_tiles(rack)
    counts, jokers = _counts(tiles)
    lower = greedy_lower_bound(counts, jokers)
    bounds = future_bounds(counts, jokers)
    upper = bounds[jokers][1]
    # The exact pass, with the greedy arrangement as its floor, is all most racks need. Once it has
    # expanded BUDGET states it pauses, a narrow pass (the BEAM most promising states of each step)
    # goes on from where it is to a valid arrangement, usually the best one, and the exact pass
    # resumes looking only for something better: every arrangement worth more survives that floor.
    exact = Search(counts, jokers, bounds, floor=lower)
    found = (0, None, None)
    if not exact.run(BUDGET):
        narrow = exact.fork(beam=BEAM)
        narrow.run()
        value, key, back = narrow.result()
        if key is not None and value >= lower:
            if value >= upper or not narrow.trimmed:  # it reached the bound, or it was exact
                return _meld(value, key, back, counts)
            found = (value, key, back)
            exact.floor = value + 1
        exact.run()
    better = exact.result()
    if better[1] is not None and better[0] >= exact.floor:
        found = better
    return _meld(*found, counts)


def _meld(value, final_key, back, counts) -> Meld:
    if final_key is None or value == 0:
        return Meld(0, ())
    return Meld(value, tuple(rebuild(back, final_key, counts)))


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
