"""R3: the meld solver's bound counts copies, not only colours, and what one joker can add in all (its
own value and the tiles it saves together). Checked against brute force and the exhaustive search of
``test_rules_meld.py``, state by state for both orders, on racks of four colours with both copies."""

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from rules import meld as meld_module
from rules.meld import best_meld
from rules.meld_bounds import _both_copies_plain, future_bounds
from rules.meld_states import ASCENDING, DESCENDING, in_order
from rules.tiles import JOKER, Tile, parse_tiles
from tests.rules import test_rules_meld as base
from tests.rules.test_rules_meld_orders import assert_bounds_cover_every_state


def _sets_with(counts, c: int, n: int) -> list[dict]:
    """Every three-tile set of real tiles holding colour ``c`` at ``n``, as the tiles it uses (a bigger
    set holds one of these, so two disjoint sets exist iff two disjoint three-tile ones do)."""
    sets = []
    for low in (n - 2, n - 1, n):
        span = range(low, low + 3)
        if low >= 1 and low + 2 <= 13 and all(counts[c][m] for m in span):
            sets.append({(c, m): 1 for m in span})
    for others in combinations([d for d in range(4) if d != c and counts[d][n]], 2):
        sets.append({(d, n): 1 for d in (c, *others)})
    return sets


def _two_disjoint_sets(counts, c: int, n: int) -> bool:
    sets = _sets_with(counts, c, n)
    for i, first in enumerate(sets):
        for second in sets[i:]:
            used = {t: first.get(t, 0) + second.get(t, 0) for t in first | second}
            if all(counts[d][m] >= k for (d, m), k in used.items()):
                return True
    return False


@given(
    st.integers(3, 11),
    st.lists(st.lists(st.integers(0, 2), min_size=5, max_size=5), min_size=4, max_size=4),
    st.integers(0, 3),
)
def test_both_copies_plain_is_two_disjoint_sets_without_a_joker(n, window, c):
    """Both copies of a tile count whole only if two disjoint jokerless sets can hold them at once:
    exactly the brute-force answer, on every pattern of copies in the five numbers around it."""
    counts = [[0] * 16 for _ in range(4)]
    for d in range(4):
        for i, k in enumerate(window[d]):
            counts[d][n - 2 + i] = k
    counts[c][n] = 2
    colours = sum(1 for d in range(4) if counts[d][n])
    tiles_here = sum(counts[d][n] for d in range(4))
    assert _both_copies_plain(counts[c], n, colours, tiles_here) == _two_disjoint_sets(counts, c, n)


def test_r3_a_second_copy_with_one_group_to_join_is_not_counted_whole():
    """R8 R8 B8 Y8: one group of three colours, so only one R8 can be melded without a joker; the
    bound with no joker is the best meld itself (it counted both copies before)."""
    tiles = parse_tiles("R8 R8 B8 Y8")
    counts, _ = meld_module._counts(tiles)
    assert future_bounds(counts, 0)[0][1] == 24 == best_meld(tiles).value
    # two runs through R5 need R3 R4 R6 R7 or doubles beside it: here both copies count
    red = meld_module._counts(parse_tiles("R3 R4 R5 R5 R6 R7"))[0][0]
    assert _both_copies_plain(red, 5, 1, 2)
    red[7] = 0  # R3 R4 R5 R5 R6: one run through R5 at a time
    assert not _both_copies_plain(red, 5, 1, 2)


def test_r3_one_joker_adds_its_value_or_the_tiles_it_saves_beside_it():
    """K1 K2 K2 R13 B13 Y13 J: the joker either saves low tiles (K1 K2 J as K3: 1 + 2 + 3) or stands
    for 13 in the group, not both; the bound used to add the saved tiles and a joker worth 13."""
    tiles = parse_tiles("K1 K2 K2 R13 B13 Y13 J")
    counts, jokers = meld_module._counts(tiles)
    value = base.exhaustive(tiles)
    assert value == best_meld(tiles).value == 4 * 13
    assert future_bounds(counts, jokers)[1][1] == value  # was 3 * 13 + (1 + 2) + 13
    descending = future_bounds(in_order(counts, DESCENDING), jokers, DESCENDING)
    assert descending[1][1] == value


def _window_racks(max_size):
    """Four colours, both copies and both jokers, over five numbers somewhere in 1..13: groups, runs
    and second copies compete (the racks the bound's copy rule and joker rule are about)."""
    return st.integers(1, 9).flatmap(
        lambda low: st.lists(
            st.sampled_from(
                [Tile(c, n) for c in "RBYK" for n in range(low, low + 5) for _ in range(2)] + [JOKER, JOKER]
            ),
            min_size=3,
            max_size=max_size,
        )
    ).filter(lambda rack: all(rack.count(t) <= 2 for t in rack))


@base.FAST
@given(_window_racks(10), st.sampled_from([ASCENDING, DESCENDING]))
def test_r3_the_bounds_cover_every_state_on_four_colour_racks(rack, order):
    """Before every position, for every state the unbounded pass reaches there: the bound for its
    jokers left is at least the best it can still add (an unbounded pass from that state alone)."""
    assert_bounds_cover_every_state(rack, order)


@base.FAST
@given(_window_racks(8))
def test_r3_bounds_on_four_colour_racks_never_below_the_exhaustive_search(rack):
    """For every number n and jokers left j, ascending: at least the exhaustive best of the tiles from
    n on with j jokers; and best_meld equals the exhaustive search on these racks."""
    reals = [t for t in rack if not t.is_joker]
    counts, _ = meld_module._counts(reals)
    bounds = future_bounds(counts, 2)
    best = {}  # by tail and jokers: the tails change only at the rack's numbers
    for n in range(1, 14):
        tail = tuple(t for t in reals if t.number >= n)
        for j in range(3):
            if (tail, j) not in best:
                best[tail, j] = base.exhaustive(list(tail) + [JOKER] * j)
            assert bounds[j][n] >= best[tail, j], (n, j)
    assert best_meld(rack).value == base.exhaustive(rack)
