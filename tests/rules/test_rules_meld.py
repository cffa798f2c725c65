"""R3: the exact meld solver, checked against RULES.md and a plain exhaustive search written here."""

import itertools
from collections import Counter
from functools import cache
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import meld as meld_module
from rules import meld_search
from rules.errors import NotationError
from rules.meld import best_meld, can_open
from rules.meld_bounds import future_bounds
from rules.sets import check_placed_set
from rules.tiles import COLOURS, JOKER, Tile, full_set

OPENS = [
    "R10 B10 K10",
    "K8 R8 Y8 B8",
    "B6 B7 B8 B9",
    "K7 R7 B7 R4 R5 R6",
    "Y7 Y8 Y9 K4 R4 B4",
    "K9 K10 J",
]
DOES_NOT_OPEN = ["K8 R8 Y8", "B6 R7 Y8 K9", "K4 R4 B4 R1 R2 R3", "B7 B8 B9", "K9 B9 J"]


@pytest.mark.parametrize("rack", OPENS)
def test_r3_examples_that_open(rack):
    assert can_open(rack)
    assert best_meld(rack).value >= 30


@pytest.mark.parametrize("rack", DOES_NOT_OPEN)
def test_r3_examples_that_do_not_open(rack):
    assert not can_open(rack)
    assert best_meld(rack).value < 30


@pytest.mark.parametrize(
    "rack, value",
    [
        ("R10 B10 K10", 30),
        ("K8 R8 Y8 B8", 32),
        ("K7 R7 B7 R4 R5 R6", 36),
        ("K9 K10 J", 30),
        ("K8 R8 Y8", 24),
        ("B6 R7 Y8 K9", 0),
        ("K4 R4 B4 R1 R2 R3", 18),
        ("K9 B9 J", 27),
        ("R5 J J", 18),  # R3: jokers take their most valuable role
        ("R12 R13 J", 36),
        ("", 0),
        ("J J", 0),
        ("R1 R2 R4 R5", 0),
        ("R12 R13 R1", 0),  # R2: no wrap
        ("R1 R2 R3 R4 R5 R6", 21),
        ("R5 R5 R6 R6 R7 R7", 36),
        ("R5 B5 Y5 K5 R5 B5 Y5", 35),
    ],
)
def test_r3_values(rack, value):
    assert best_meld(rack).value == value


def test_r3_whole_tile_set():
    meld = best_meld(full_set())
    # every numbered tile in runs, and the two jokers as 13s (e.g. a group R13 J J)
    assert meld.value == 728 + 26
    _check_meld(full_set(), meld)
    assert can_open(full_set())


def test_r3_threshold_setting():
    assert can_open("K8 R8 Y8", threshold=24)
    assert not can_open("K8 R8 Y8", threshold=25)
    assert can_open("", threshold=0)


def test_r3_bad_rack_is_an_error():
    with pytest.raises(NotationError):
        best_meld("R5 R5 R5")
    with pytest.raises(NotationError):
        can_open([JOKER, JOKER, JOKER])
    with pytest.raises(NotationError):
        best_meld("R14")


# --- a plain exhaustive search, independent of rules.sets and rules.meld --------------------------
def _set_value(tiles):
    """Best value of these tiles as one set, trying every role for each joker."""
    reals = [t for t in tiles if not t.is_joker]
    if len(tiles) < 3 or not reals:
        return None
    candidates = {Tile(r.colour, n) for r in reals for n in range(1, 14)}
    candidates |= {Tile(c, r.number) for r in reals for c in COLOURS}
    best = None
    for roles in itertools.product(sorted(candidates, key=str), repeat=len(tiles) - len(reals)):
        reps = reals + list(roles)
        numbers = sorted(t.number for t in reps)
        colours = [t.colour for t in reps]
        group = len(reps) <= 4 and len(set(numbers)) == 1 and len(set(colours)) == len(colours)
        run = len(set(colours)) == 1 and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        if group or run:
            best = max(best or 0, sum(numbers))
    return best


def exhaustive(rack):
    @cache
    def go(rest):
        if len(rest) < 3:
            return 0
        first, others = rest[0], rest[1:]
        best = go(others)  # first tile unused
        for size in range(2, len(others) + 1):
            for idx in itertools.combinations(range(len(others)), size):
                value = _set_value([first] + [others[i] for i in idx])
                if value is not None:
                    left = tuple(t for i, t in enumerate(others) if i not in idx)
                    best = max(best, value + go(left))
        return best

    return go(tuple(sorted(rack, key=str)))


def _check_meld(rack, meld):
    """The sets are valid, disjoint, drawn from the rack and add up to the value."""
    assert all(check_placed_set(s) for s in meld.sets)
    used = Counter(t for s in meld.sets for t in s.tiles)
    have = Counter(rack)
    assert all(used[t] <= have[t] for t in used)
    assert sum(s.value for s in meld.sets) == meld.value


def racks(max_size, *, colours=4, numbers=13):
    """Racks from a narrowed tile pool, so small racks often hold sets (incl. jokers)."""
    return st.tuples(st.integers(1, colours), st.integers(1, 13 - 2), st.integers(3, numbers)).flatmap(
        lambda p: st.lists(
            st.sampled_from(
                [
                    Tile(c, n)
                    for c in COLOURS[: p[0]]
                    for n in range(p[1], min(13, p[1] + p[2]) + 1)
                    for _ in range(2)
                ]
                + [JOKER, JOKER]
            ),
            max_size=max_size,
        ).filter(lambda r: all(n <= 2 for n in Counter(r).values()))
    )


FAST = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)


@FAST
@given(racks(8, colours=4, numbers=5))
def test_r3_equals_exhaustive_search_on_small_racks(rack):
    meld = best_meld(rack)
    assert meld.value == exhaustive(rack)
    _check_meld(rack, meld)
    assert can_open(rack) == (meld.value >= 30)


@pytest.mark.slow
@FAST
@given(racks(9, colours=2, numbers=6))
def test_r3_equals_exhaustive_search_runs_heavy(rack):
    assert best_meld(rack).value == exhaustive(rack)


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 50))
def test_r3_sets_valid_and_adding_a_tile_never_lowers_the_meld(rnd, size):
    deck = full_set()
    rnd.shuffle(deck)
    rack, extra = deck[:size], deck[size]
    meld = best_meld(rack)
    _check_meld(rack, meld)
    bigger = best_meld(rack + [extra])
    assert bigger.value >= meld.value
    for threshold in (0, 30, meld.value, meld.value + 1):
        assert can_open(rack, threshold) == (meld.value >= threshold)


# --- the solver's shortcuts, made to run on racks small enough to check exhaustively ------------------
@pytest.mark.slow
@FAST
@given(racks(9, colours=4, numbers=3))
def test_r3_dense_windows_with_jokers_equal_exhaustive_search(rack):
    """Few numbers, many copies and both jokers: the shape that makes the most DP states."""
    rack = rack + [JOKER] * (2 - rack.count(JOKER))
    assert best_meld(rack).value == exhaustive(rack)


# --- the narrow first pass and the bounds ---------------------------------------------------------------
@FAST
@given(racks(8, colours=4, numbers=5))
def test_r3_exact_pass_alone_equals_exhaustive_search(rack):
    """With a one-state narrow pass the answer comes from the exact pass above its (poor) floor."""
    with patch.object(meld_module, "BEAM", 1):
        meld = best_meld(rack)
    assert meld.value == exhaustive(rack)
    _check_meld(rack, meld)


def _unpruned(rack):
    """The ascending pass with no bound at all: every state is kept."""
    counts, jokers = meld_module._counts(list(rack))
    no_bounds = [[10**6] * 16 for _ in range(jokers + 1)]
    return meld_search.solve(counts, jokers, floor=0, bounds=no_bounds)[0]


def dense_windows():
    """Most copies of a few consecutive numbers plus jokers: the racks where ties abound and the
    bounds decide the work. Too big for the exhaustive search, small enough to search unpruned."""
    return st.tuples(
        st.integers(1, 12), st.integers(2, 4), st.integers(0, 2), st.randoms(use_true_random=False)
    ).map(lambda p: _dense(*p))


def _dense(low, width, jokers, rnd):
    tiles = [Tile(c, n) for c in COLOURS for n in range(low, min(13, low + width - 1) + 1) for _ in range(2)]
    rnd.shuffle(tiles)
    return tiles[: rnd.randint(len(tiles) * 2 // 3, len(tiles))] + [JOKER] * jokers


@settings(max_examples=25, deadline=None)
@given(dense_windows())
def test_r3_dense_windows_equal_the_unpruned_search(rack):
    meld = best_meld(rack)
    assert meld.value == _unpruned(rack)
    _check_meld(rack, meld)
    counts, jokers = meld_module._counts(rack)
    assert future_bounds(counts, jokers)[jokers][1] >= meld.value


@settings(max_examples=15, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 50), st.integers(0, 2))
def test_r3_bounds_are_never_below_the_best_meld(rnd, size, jokers):
    """The bound on what numbers n..13 can add, for every n and jokers left, is at least what the best
    meld of the tiles from n on (with those jokers) is worth: a bound below it would prune the optimum."""
    deck = [t for t in full_set() if not t.is_joker]
    rnd.shuffle(deck)
    rack = deck[:size]
    counts, _ = meld_module._counts(rack)
    bounds = future_bounds(counts, jokers)
    for n in range(1, 14):
        tail = [t for t in rack if t.number >= n]
        for j in range(jokers + 1):
            assert bounds[j][n] >= best_meld(tail + [JOKER] * j).value, (n, j)
