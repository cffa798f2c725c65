"""R3: the meld solver's budget (the exact pass pauses, a narrow pass raises its floor, the exact pass
resumes) and its look-ahead for forced runs, checked against the exhaustive search and the unpruned
DP of ``test_rules_meld.py``."""

from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import meld as meld_module
from rules.meld import best_meld
from rules.meld_bounds import future_bounds, greedy_lower_bound, joker_values
from rules.meld_search import Search
from rules.meld_states import STATES, _need_table
from rules.tiles import JOKER, Tile, full_set, parse_tiles
from tests.rules import test_rules_meld as base


@base.FAST
@given(base.racks(8, colours=4, numbers=5))
def test_r3_every_rack_through_the_budget_path_equals_exhaustive_search(rack):
    """A budget of 0 pauses the exact pass before number 1, every time; a one-state narrow pass then
    sets a poor floor, and the resumed exact pass must still find the optimum."""
    with patch.object(meld_module, "BUDGET", 0), patch.object(meld_module, "BEAM", 1):
        meld = best_meld(rack)
    assert meld.value == base.exhaustive(rack)
    base._check_meld(rack, meld)


@settings(max_examples=25, deadline=None)
@given(base.dense_windows(), st.sampled_from([0, 3, 40]), st.sampled_from([1, 8, 64]))
def test_r3_dense_windows_through_the_budget_path_equal_the_unpruned_search(rack, budget, beam):
    with patch.object(meld_module, "BUDGET", budget), patch.object(meld_module, "BEAM", beam):
        meld = best_meld(rack)
    assert meld.value == base._unpruned(rack)
    base._check_meld(rack, meld)


def _big_rack(rnd, size, jokers):
    deck = [t for t in full_set() if not t.is_joker]
    rnd.shuffle(deck)
    return deck[:size] + [JOKER] * jokers


@settings(max_examples=12, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(30, 90), st.integers(0, 2))
def test_r3_budget_does_not_change_big_racks(rnd, size, jokers):
    """Too big for the exhaustive search: the exact pass alone (no budget), and paused at once with a
    one-state or a wide narrow pass, agree."""
    rack = _big_rack(rnd, size, jokers)
    with patch.object(meld_module, "BUDGET", 10**9):
        plain = best_meld(rack)
    for budget, beam in ((0, 1), (0, 256), (200, 64)):
        with patch.object(meld_module, "BUDGET", budget), patch.object(meld_module, "BEAM", beam):
            meld = best_meld(rack)
        assert meld.value == plain.value, (budget, beam)
        base._check_meld(rack, meld)


@settings(max_examples=20, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(10, 60), st.integers(0, 2), st.integers(0, 3000))
def test_r3_a_paused_search_resumed_with_a_raised_floor(rnd, size, jokers, budget):
    """Raising the floor of a paused exact pass to the optimum still finds it; one above, nothing."""
    rack = _big_rack(rnd, size, jokers)
    best = best_meld(rack).value
    counts, j = meld_module._counts(rack)
    bounds = future_bounds(counts, j)
    for floor, found in ((best, True), (best + 1, False)):
        search = Search(counts, j, bounds, floor=greedy_lower_bound(counts, j))
        search.run(budget)
        search.floor = floor
        assert search.run()
        value, key, _ = search.result()
        assert (key is not None and value >= floor) == found
        if found:
            assert value == best


def test_a_budget_pauses_before_a_number_whose_guessed_work_would_pass_it():
    """The eight tiles of the 4s can split 3**4 ways: before them the guess is the layer times 81. A
    budget one short of the work done plus that pauses before the 4s; resumed, the search ends as if
    it had never paused."""
    rack = parse_tiles("R1 R2 R3 R4 R4 B4 B4 Y4 Y4 K4 K4 R5 B5 Y5")
    counts, jokers = meld_module._counts(rack)
    search = Search(counts, jokers, future_bounds(counts, jokers))
    assert search.run(budget=0) is False and (search.n, search.work) == (1, 0)  # even number 1 is over
    while search.n < 4:
        search.step()
    work, guess = search.work, search.next_cost()
    assert guess == len(search.layer) * 3**4
    assert search.run(budget=work + guess - 1) is False and (search.n, search.work) == (4, work)
    search.run(budget=work + guess)
    assert search.n > 4  # a budget that holds the guess lets the 4s through
    assert search.run()
    assert search.result()[0] == best_meld(rack).value == base.exhaustive(rack)


@pytest.mark.parametrize(
    "rack, value",
    [
        ("R11 R12 J", 36),  # the joker as 13
        ("R12 R13 J J", 46),  # 10-11-12-13: both jokers below, nothing follows 13
        ("R10 R11 J B12 Y12 K12", 69),  # 10-11-12 with the joker and the group 12 ... or 12-12-12
        ("R1 J R3 R5 J R7", 26),  # 5-6-7-8 (26) beats 3-4-5-6-7 (25) and 1-2-3 + 5-6-7 (24)
        ("R1 R2 B1 B2 J", 6),
        ("R12 B12 Y12 R13 J", 48),  # the group of four 12s beats the run 11-12-13 (36)
    ],
)
def test_r3_forced_runs_near_13_and_with_jokers(rack, value):
    assert best_meld(rack).value == value == base.exhaustive(meld_module._as_tiles(rack))


def test_need_table_counts_the_jokers_two_numbers_ahead():
    """Runs of length 1 need a tile at n + 1 and n + 2, runs of length 2 one at n + 1; a joker fills
    one place. Past 13 nothing can be filled."""
    for q1 in range(3):
        for q2 in (0, 1, 2, None):
            table = _need_table(q1, q2)
            for s, runs in enumerate(STATES):
                ones, twos = runs.count(1), runs.count(2)
                expected = max(0, ones + twos - q1)
                if q2 is None:
                    expected += 99 if ones else 0
                else:
                    expected += max(0, ones - q2)
                assert table[s] == expected, (q1, q2, runs)


@settings(max_examples=30, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(9, 13), st.integers(0, 2))
def test_r3_top_numbers_with_jokers_equal_exhaustive_search(rnd, low, jokers):
    """Tiles from the top numbers only, where the look-ahead meets 13."""
    pool = [Tile(c, n) for c in "RB" for n in range(low, 14) for _ in range(2)]
    rnd.shuffle(pool)
    rack = pool[: rnd.randint(2, 7)] + [JOKER] * jokers
    assert best_meld(rack).value == base.exhaustive(rack)


# --- what the jokers left can be worth (meld_bounds.joker_values) -------------------------------------
@pytest.mark.parametrize(
    "rack",
    [
        "R5 R6 J J",
        "R5 R6 J",
        "R5 J J",
        "B11 B12 J J",
        "R12 B12 J J",
        "R1 R2 J J",
        "K9 K10 K11 J J",
        "R7 B7 J J",
        "R3 R4 R5 B5 Y5 J J",
        "Y13 K13 J",
        "R10 R12 J J",
    ],
)
def test_r3_jokers_above_the_top_tile(rack):
    """Jokers above the highest tile stand for high + 1, high + 2 (a run can only reach there through
    jokers): the bound from number 1 must still cover the best meld, which reaches it on these racks."""
    value = base.exhaustive(parse_tiles(rack))
    assert best_meld(rack).value == value
    counts, jokers = meld_module._counts(parse_tiles(rack))
    assert future_bounds(counts, jokers)[jokers][1] >= value


@pytest.mark.parametrize("high", [0, 1, 5, 10, 11, 12, 13])
def test_joker_values_against_their_definition(high):
    values = joker_values(high, 2)
    for n in range(1, 16):
        assert values[0][n] == 0
        if not high:
            assert values[1][n] == values[2][n] == 0
            continue
        start = max(high, n - 1) + 1  # jokers still to place: from high + 1 up, or from n up
        cap = min(13, high + 2)
        assert values[1][n] == min(cap, start)
        assert values[2][n] == min(cap, start) + min(cap, start + 1)


def test_a_joker_placed_before_n_lets_the_next_one_stand_for_n():
    """R5 R6 J J is the run 5-6-7-8: after the first joker (at 7), one joker left from 8 on is worth 8."""
    counts, jokers = meld_module._counts(parse_tiles("R5 R6 J J"))
    bounds = future_bounds(counts, jokers)
    assert bounds[1][8] >= 8
    assert bounds[2][1] >= 26


@base.FAST
@given(base.racks(7, colours=2, numbers=4))
def test_r3_bounds_with_jokers_never_below_the_exhaustive_search(rack):
    """For every number n and jokers left j: the bound is at least the best meld of the tiles from n
    on with j jokers, by the exhaustive search (not by best_meld, which relies on the bound)."""
    reals = [t for t in rack if not t.is_joker]
    counts, _ = meld_module._counts(reals)
    bounds = future_bounds(counts, 2)
    for n in range(1, 14):
        tail = [t for t in reals if t.number >= n]
        for j in range(3):
            assert bounds[j][n] >= base.exhaustive(tail + [JOKER] * j), (n, j)
