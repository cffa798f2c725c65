"""R3: the meld solver walks the numbers from 13 down (its exact pass) as well as from 1 up (a narrow
pass on big racks, and an exact pass that races the first on slow racks). Both orders, their bounds
and the race are checked against the exhaustive search and the unpruned pass of ``test_rules_meld.py``."""

import random
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import meld as meld_module
from rules.meld import Meld, best_meld
from rules.meld_bounds import descending_joker_values, future_bounds, greedy_lower_bound
from rules.meld_search import Search, rebuild, run_outlook
from rules.meld_states import ASCENDING, DESCENDING, STATES, W, in_order
from rules.tiles import JOKER, Tile, full_set, parse_tiles
from tests.rules import test_rules_meld as base

NO_BOUNDS = [[10**6] * 14 + [0, 0] for _ in range(3)]


def _descending_pass(rack, *, bounds=None, floor=0):
    counts, jokers = meld_module._counts(list(rack))
    by_position = in_order(counts, DESCENDING)
    if bounds is None:
        bounds = future_bounds(by_position, jokers, DESCENDING)
    search = Search(by_position, jokers, bounds, floor=floor, order=DESCENDING)
    search.run()
    return search


def test_positions_in_descending_order_hold_the_numbers_from_13_down():
    counts, _ = meld_module._counts(parse_tiles("R1 R13 R13 B7 K12"))
    by_position = in_order(counts, DESCENDING)
    assert [DESCENDING[p] for p in range(1, 14)] == list(range(13, 0, -1))
    assert by_position[0][1] == 2 and by_position[0][13] == 1  # R13 R13 first, R1 last
    assert by_position[1][7] == 1 and by_position[3][2] == 1  # B7 stays in the middle, K12 second
    assert in_order(counts, ASCENDING) is counts


@base.FAST
@given(base.racks(8, colours=4, numbers=5))
def test_r3_the_descending_pass_equals_exhaustive_search(rack):
    """Unbounded and bounded, from 13 down: the value, and sets rebuilt in play order (runs upwards)."""
    expected = base.exhaustive(rack)
    unbounded = _descending_pass(rack, bounds=NO_BOUNDS)
    assert unbounded.result()[0] == expected
    search = _descending_pass(rack, floor=expected)
    value, key, back = search.result()
    if expected:
        assert value == expected
        meld = Meld(value, tuple(rebuild(back, key, search.counts, DESCENDING)))
        base._check_meld(rack, meld)
    assert _descending_pass(rack, floor=expected + 1).result()[1] is None


@base.FAST
@given(base.racks(7, colours=2, numbers=4), st.sampled_from([ASCENDING, DESCENDING]))
def test_r3_the_bounds_cover_every_state_of_either_order(rack, order):
    """Before every position p, for every state the unbounded pass reaches there: the bound for its
    jokers left is at least the best it can still add (an unbounded pass from that state alone)."""
    assert_bounds_cover_every_state(rack, order)


def assert_bounds_cover_every_state(rack, order):
    """Before every position p, for every state the unbounded pass reaches there: the bound for its
    jokers left is at least the best it can still add (an unbounded pass from that state alone)."""
    counts, jokers = meld_module._counts(rack)
    by_position = in_order(counts, order)
    bounds = future_bounds(by_position, jokers, order)
    search = Search(by_position, jokers, NO_BOUNDS, order=order)
    for p in range(1, 14):
        for key in search.layer:
            rest = Search(by_position, jokers, NO_BOUNDS, order=order)
            rest.n, rest.layer = p, {key: 0}
            rest.run()
            assert bounds[key // W][p] >= rest.result()[0], (p, key)
        while search.n == p:  # one number further, a colour at a time
            search.step()


@pytest.mark.parametrize(
    "rack", ["R5 R6 J J", "R5 R6 J", "R5 J J", "B11 B12 J J", "R12 B12 J J", "R1 R2 J J", "K9 K10 K11 J J",
             "R7 B7 J J", "R3 R4 R5 B5 Y5 J J", "Y13 K13 J", "R10 R12 J J", "R11 R12 J", "R12 R13 J J"],
)
def test_r3_jokers_above_the_top_tile_going_down(rack):
    """Two jokers above the highest tile stand for high + 1 and high + 2: the descending bound from 13
    must still cover the best meld, which reaches it on these racks."""
    tiles = parse_tiles(rack)
    value = base.exhaustive(tiles)
    counts, jokers = meld_module._counts(tiles)
    assert future_bounds(in_order(counts, DESCENDING), jokers, DESCENDING)[jokers][1] >= value
    assert _descending_pass(tiles, floor=value).result()[0] == value == best_meld(tiles).value


@pytest.mark.parametrize("high", [0, 1, 5, 10, 11, 12, 13])
def test_descending_joker_values_against_their_definition(high):
    values = descending_joker_values(high, 2)
    for p in range(1, 16):
        number = 14 - p if p <= 13 else 0
        assert values[0][p] == 0
        if not high or not number:
            assert values[1][p] == values[2][p] == 0
            continue
        # each at most high + 1 (or the number here); two at most high + 1 and high + 2
        assert values[2][p] == 2 * min(number, high + 1) + (number >= high + 2)
        # one left: at most high + 1, whether or not the other is placed (going down, a joker at
        # high + 2 comes before the one at high + 1)
        assert values[1][p] == min(number, high + 1)


def test_the_joker_term_of_the_descending_bound_shrinks_with_the_number():
    """K5 K6 J J: from 13 the two jokers are worth at most 7 + 8; from the position of 6, 6 + 6."""
    counts, jokers = meld_module._counts(parse_tiles("K5 K6 J J"))
    bounds = future_bounds(in_order(counts, DESCENDING), jokers, DESCENDING)
    assert bounds[2][1] == 5 + 6 + 7 + 8 == best_meld("K5 K6 J J").value
    assert bounds[2][14 - 6] == 5 + 6 + 6 + 6


@settings(max_examples=30, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(10, 60), st.integers(0, 2))
def test_stepping_a_search_colour_by_colour_ends_where_running_it_does(rnd, size, jokers):
    rack = _big_rack(rnd, size, jokers)
    counts, j = meld_module._counts(rack)
    by_position = in_order(counts, DESCENDING)
    bounds = future_bounds(by_position, j, DESCENDING)
    floor = greedy_lower_bound(counts, j)
    run = Search(by_position, j, bounds, floor=floor, order=DESCENDING)
    run.run()
    stepped = Search(by_position, j, bounds, floor=floor, order=DESCENDING)
    steps = 1
    while not stepped.step():
        steps += 1
    assert steps == 13 * 4  # three colours, then the last with the groups, thirteen times
    assert stepped.result()[:2] == run.result()[:2]
    assert stepped.work == run.work


def _big_rack(rnd, size, jokers):
    deck = [t for t in full_set() if not t.is_joker]
    rnd.shuffle(deck)
    return deck[:size] + [JOKER] * jokers


@base.FAST
@given(base.racks(8, colours=4, numbers=5))
def test_r3_racing_at_once_with_both_narrow_passes_equals_exhaustive_search(rack):
    """No budget, a one-state narrow pass in each order, the ascending exact pass joining at once and
    a narrow pass forked after every number: whichever finishes first must still find the optimum."""
    patches = {"BUDGET": 0, "BEAM": 1, "ASCENDING_BEAM": 1, "NARROW_ASCENDING_FROM": 0, "RACE_AFTER": 0, "FORK_EVERY": 0}
    with patch.multiple(meld_module, **patches):
        meld = best_meld(rack)
    assert meld.value == base.exhaustive(rack)
    base._check_meld(rack, meld)


@settings(max_examples=20, deadline=None)
@given(base.dense_windows())
def test_r3_dense_windows_racing_at_once_equal_the_unpruned_search(rack):
    with patch.multiple(meld_module, BUDGET=0, BEAM=1, ASCENDING_BEAM=1, RACE_AFTER=0, FORK_EVERY=0):
        meld = best_meld(rack)
    assert meld.value == base._unpruned(rack)
    base._check_meld(rack, meld)


def test_either_order_can_win_the_race_and_both_give_the_same_meld():
    """On big racks with a poor floor (a one-state narrow pass), racing at once, with and without the
    narrow passes forked along the way, against the paused exact pass going on alone: equal values,
    valid sets; each order finishes first on some rack, and only the racing passes race."""
    outcomes = {"plain": set(), "forks": set(), "alone": set()}
    race = meld_module._race

    def recording(kind):
        def record(first, second, found, upper):
            assert (first.order, second.order) == (DESCENDING, ASCENDING)  # the paused pass, then the other
            winner, found = race(first, second, found, upper)
            outcomes[kind].add(None if winner is None else winner.order)
            return winner, found

        return record

    rnd = random.Random(11)
    for _ in range(16):
        rack = _big_rack(rnd, rnd.randint(30, 80), rnd.randint(0, 2))
        with patch.multiple(meld_module, BUDGET=0, BEAM=1, ASCENDING_BEAM=1, RACE_AFTER=10**9, _race=recording("alone")):
            alone = best_meld(rack)
        for kind, fork_every in (("plain", 10**9), ("forks", 0)):
            with patch.multiple(
                meld_module, BUDGET=0, BEAM=1, ASCENDING_BEAM=1, RACE_AFTER=0, FORK_EVERY=fork_every, _race=recording(kind)
            ):
                raced = best_meld(rack)
            assert raced.value == alone.value
            base._check_meld(rack, raced)
    assert outcomes["plain"] == {ASCENDING, DESCENDING}
    assert outcomes["alone"] == set()  # never raced


def test_r3_a_forked_narrow_pass_that_reaches_the_upper_bound_ends_the_race():
    """With the optimum as the upper bound, the first narrow pass forked from a racing pass that finds
    it ends the race: no winner, and that arrangement is the answer."""
    rack = _big_rack(random.Random(5), 60, 2)
    counts, jokers = meld_module._counts(rack)
    best = best_meld(rack)
    by_position = in_order(counts, DESCENDING)
    ascending = Search(counts, jokers, future_bounds(counts, jokers))
    descending = Search(by_position, jokers, future_bounds(by_position, jokers, DESCENDING), order=DESCENDING)
    with patch.object(meld_module, "FORK_EVERY", 0):
        winner, found = meld_module._race(ascending, descending, (0, None, None, ascending), best.value)
    assert winner is None
    meld = meld_module._meld(*found)
    assert meld.value == best.value
    base._check_meld(rack, meld)


def test_the_racing_pass_with_the_smaller_layer_goes_next_within_a_cap():
    """The pass whose last layer is smaller steps next (the same tiles ahead of both here), unless it has
    done RACE_CAP times the other's work (plus RACE_AFTER) since the race began."""
    rack = _big_rack(random.Random(5), 60, 2)
    counts, jokers = meld_module._counts(rack)
    first = Search(counts, jokers, future_bounds(counts, jokers))
    second = Search(counts, jokers, future_bounds(counts, jokers))
    head, cap = meld_module.RACE_AFTER, meld_module.RACE_CAP
    began = (head, 0)  # the first pass had done that much before the race
    first.layer, second.layer = {1: 0, 2: 0, 3: 0}, {1: 0}
    first.work, second.work = head + 1000, 0
    assert meld_module._next_to_step(first, second, began) is second  # the smaller layer
    second.layer = {1: 0, 2: 0, 3: 0, 4: 0}
    assert meld_module._next_to_step(first, second, began) is first
    second.work = cap * 1000 + head + 1  # the second has done more than the cap of the first's work
    assert meld_module._next_to_step(first, second, began) is first
    second.layer = {}
    assert meld_module._next_to_step(first, second, began) is first
    first.layer, first.work = {}, head + cap * second.work + head + 1  # now the first is over the cap
    assert meld_module._next_to_step(first, second, began) is second


def test_the_next_number_costs_its_layer_times_the_ways_its_tiles_split():
    heavy = parse_tiles("R1 R1 B1 B1 Y1 Y1 K1 K1 R2")
    counts, jokers = meld_module._counts(heavy)
    ahead_heavy = Search(counts, jokers, future_bounds(counts, jokers))
    assert ahead_heavy.next_cost() == 1 * 3**4
    counts, jokers = meld_module._counts(parse_tiles("R2 B2 Y2"))
    ahead_light = Search(counts, jokers, future_bounds(counts, jokers))
    ahead_light.layer = {1: 0, 2: 0, 3: 0}
    assert ahead_light.next_cost() == 3 * 1  # no tile at 1: one way
    # the bigger layer with nothing at its next number steps first
    assert meld_module._next_to_step(ahead_heavy, ahead_light, (0, 0)) is ahead_light
    ahead_light.run()
    assert ahead_light.next_cost() == 0


def test_a_run_that_the_next_tiles_extend_promises_more_than_none():
    """The ascending narrow pass's outlook (a ranking hint): K3 K4 K5 K6: a run K3-K4 open before K5 promises
    K5 + K6 more than no run (then K5 K6 alone make no run); a forced run with nothing after it, the
    least; with no tiles ahead an open run of three or more promises nothing."""
    counts, _ = meld_module._counts(parse_tiles("K3 K4 K5 K6"))
    outlook = run_outlook(counts, ASCENDING)[3]  # black
    two, three, one = STATES.index((2,)), STATES.index((3,)), STATES.index((1,))
    assert outlook[5][two] == 5 + 6
    assert outlook[5][three] == 5 + 6
    assert outlook[7][three] == 0
    assert outlook[7][one] < -100  # K6 then nothing: unfinishable


def test_r3_a_run_rebuilt_from_a_descending_pass_reads_upwards():
    meld = best_meld([Tile("R", n) for n in (3, 4, 6, 7)] + [JOKER])
    assert meld.value == 3 + 4 + 5 + 6 + 7
    (run,) = meld.sets
    assert [str(t) for t in run.tiles] == ["R3", "R4", "J", "R6", "R7"]
    assert [t.number for t in run.represents] == [3, 4, 5, 6, 7]
