"""R3: the meld solver leaves out the states another state of the same layer dominates (as much value,
and open runs and jokers free that can do all the first one's can). Checked here: the one-step
relation itself, over every run state and every choice; the layer filter on a hand-made layer; and
the passes with every layer filtered against the exhaustive search of ``test_rules_meld.py``."""

from unittest.mock import patch

from hypothesis import given

from rules import meld as meld_module
from rules import meld_search
from rules.meld import best_meld
from rules.meld_bounds import future_bounds
from rules.meld_search import Search, undominated
from rules.meld_states import (
    ASCENDING,
    COLOUR_WEIGHT,
    DESCENDING,
    FORCED,
    ONES,
    STATES,
    STRONGER,
    TRANS,
    W,
    in_order,
)
from rules.tiles import parse_tiles
from tests.rules import test_rules_meld as base


def _at_least(state: int) -> set[int]:
    """The run states as good as ``state`` or better: it and everything STRONGER leads to from it."""
    seen, todo = {state}, [state]
    while todo:
        for better in STRONGER[todo.pop()]:
            if better not in seen:
                seen.add(better)
                todo.append(better)
    return seen


def test_a_stronger_run_state_can_take_every_step_the_weaker_can():
    """Whatever number of tiles goes into runs, a stronger state can take it too and lands on a state
    at least as good; its forced runs are never more, so whatever tiles follow extend them (the step
    tables' need and the last number's rule only ask fewer of it). By induction over the numbers, it
    reaches all the weaker state reaches, for the same value."""
    for weak in range(len(STATES)):
        for strong in STRONGER[weak]:
            assert FORCED[strong] <= FORCED[weak] and ONES[strong] <= ONES[weak], (STATES[weak], STATES[strong])
            for tiles in range(5):
                if TRANS[weak][tiles] < 0:
                    continue
                assert TRANS[strong][tiles] in _at_least(TRANS[weak][tiles]), (STATES[weak], STATES[strong], tiles)


def test_stronger_means_one_run_longer_or_one_more_run_of_three():
    assert [STATES[s] for s in STRONGER[STATES.index(())]] == [(3,)]
    assert {STATES[s] for s in STRONGER[STATES.index((1, 3))]} == {(2, 3), (1, 3, 3)}
    assert {STATES[s] for s in STRONGER[STATES.index((2, 2))]} == {(2, 3), (2, 2, 3)}
    assert STRONGER[STATES.index((3, 3, 3, 3))] == []


def _key(runs_by_colour: dict[int, tuple[int, ...]], jokers_free: int) -> int:
    return sum(STATES.index(runs_by_colour.get(c, ())) * COLOUR_WEIGHT[c] for c in range(4)) + jokers_free * W


def test_undominated_drops_exactly_the_dominated_states():
    no_runs_one_joker = _key({}, 1)
    no_runs_no_joker = _key({}, 0)  # dominated: the same runs and as much value with a joker more
    red_run = _key({0: (3,)}, 0)
    red_run_worth_less = _key({0: (3,)}, 1)  # a joker more, but less value than the state above
    red_pair = _key({0: (2,)}, 0)  # dominated by the red run one step longer, worth as much
    black_single = _key({1: (1,)}, 0)  # nothing one step better is in the layer
    layer = {
        no_runs_one_joker: 15, no_runs_no_joker: 15, red_run: 14, red_run_worth_less: 13,
        red_pair: 14, black_single: 20,
    }
    assert undominated(layer, 1) == {no_runs_one_joker: 15, red_run: 14, red_run_worth_less: 13, black_single: 20}
    # one more red run of three, as much value and jokers: dominated; worth less, not
    assert undominated({no_runs_one_joker: 13, red_run_worth_less: 13}, 1) == {red_run_worth_less: 13}
    assert undominated({no_runs_one_joker: 14, red_run_worth_less: 13}, 1) == {
        no_runs_one_joker: 14, red_run_worth_less: 13,
    }
    # with as much value, more jokers free dominates; with less, it does not
    assert undominated({red_run: 13, red_run_worth_less: 13}, 1) == {red_run_worth_less: 13}


def test_the_cache_of_dominators_is_emptied_once_it_is_full():
    layer = {_key({0: (1,)}, 0): 5, _key({1: (2,)}, 0): 6, _key({2: (3,)}, 0): 7}
    with patch.object(meld_search, "DOMINATORS_KEPT", 1):
        meld_search._DOMINATORS.clear()
        undominated(layer, 0)
        assert len(meld_search._DOMINATORS) == 3
        undominated({_key({3: (1,)}, 0): 1}, 0)
        assert len(meld_search._DOMINATORS) == 1


def _pass(rack, order, *, floor=0):
    counts, jokers = meld_module._counts(list(rack))
    by_position = in_order(counts, order)
    search = Search(by_position, jokers, future_bounds(by_position, jokers, order), floor=floor, order=order)
    search.run()
    return search


@base.FAST
@given(base.racks(8, colours=4, numbers=5))
def test_r3_with_every_layer_filtered_both_orders_equal_exhaustive_search(rack):
    expected = base.exhaustive(rack)
    with patch.object(meld_search, "DOMINANCE_FROM", 0):
        for order in (ASCENDING, DESCENDING):
            assert _pass(rack, order).result()[0] == expected
            assert _pass(rack, order, floor=expected + 1).result()[1] is None
        meld = best_meld(rack)
    assert meld.value == expected
    base._check_meld(rack, meld)


@base.FAST
@given(base.racks(8, colours=4, numbers=5))
def test_r3_racing_at_once_with_every_layer_filtered_equals_exhaustive_search(rack):
    patches = {"BUDGET": 0, "BEAM": 1, "ASCENDING_BEAM": 1, "NARROW_ASCENDING_FROM": 0, "RACE_AFTER": 0, "FORK_EVERY": 0}
    with patch.object(meld_search, "DOMINANCE_FROM", 0), patch.multiple(meld_module, **patches):
        meld = best_meld(rack)
    assert meld.value == base.exhaustive(rack)
    base._check_meld(rack, meld)


# A rack the local search climbed to against the solver without the filter: 81 tiles, two jokers; the
# filter is what makes it fast (bench/meld_search.py, docs/PERFORMANCE.md).
CLIMBED = (
    "R1 R1 R2 R2 R3 R3 R4 R5 R5 R8 R8 R9 R10 R10 R11 R11 R12 R12 R13 B1 B2 B3 B3 B5 B5 B6 B7 B8 B8 B9 B9 "
    "B10 B10 B11 B11 B12 B13 B13 Y1 Y1 Y2 Y2 Y3 Y3 Y4 Y4 Y5 Y6 Y6 Y7 Y8 Y9 Y9 Y10 Y10 Y11 Y11 Y12 Y12 Y13 "
    "K1 K2 K2 K3 K3 K4 K4 K7 K7 K8 K8 K9 K10 K11 K11 K12 K12 K13 K13 J J"
)


def test_r3_a_climbed_rack_is_worth_the_same_filtered_or_not():
    rack = parse_tiles(CLIMBED)
    filtered = best_meld(rack)
    with patch.object(meld_search, "DOMINANCE_FROM", 10**9):
        unfiltered = best_meld(rack)
    assert filtered.value == unfiltered.value == 575
    base._check_meld(rack, filtered)
