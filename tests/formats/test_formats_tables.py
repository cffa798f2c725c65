"""Table sizes (R8.1) and merge proposals after withdrawals."""

import pytest

from tournament.formats.tables import merge_proposal, table_sizes


@pytest.mark.parametrize(
    "n, sizes",
    [
        (0, []),
        (1, [1]),
        (2, [2]),
        (3, [3]),
        (4, [4]),
        (5, [3, 2]),
        (6, [3, 3]),
        (7, [4, 3]),
        (8, [4, 4]),
        (9, [3, 3, 3]),
        (10, [4, 3, 3]),
        (11, [4, 4, 3]),
        (33, [4] * 6 + [3] * 3),
        (62, [4] * 14 + [3] * 2),
        (64, [4] * 16),
        (117, [4] * 27 + [3] * 3),
        (128, [4] * 32),
    ],
)
def test_r8_1_table_sizes_examples(n, sizes):
    assert table_sizes(n) == sizes


@pytest.mark.parametrize("n", range(0, 300))
def test_r8_1_table_sizes_invariants(n):
    sizes = table_sizes(n)
    assert sum(sizes) == n
    assert all(s <= 4 for s in sizes), "never a table of 5"
    assert sizes == sorted(sizes, reverse=True), "tables of 4 first"
    if n >= 3:
        # a 2 only when fewer than 3 players remain after the bigger tables (n = 5), never a 1
        assert all(s >= 3 for s in sizes[:-1])
        assert sizes[-1] >= 3 or (n == 5 and sizes == [3, 2])
    if n >= 6:
        assert len(sizes) == -(-n // 4), "as many tables of 4 as possible"


def test_table_sizes_negative():
    with pytest.raises(ValueError):
        table_sizes(-1)


def sizes_after(p):
    return sorted((len(v) for v in p.tables.values()), reverse=True)


def test_merge_not_needed():
    p = merge_proposal([[1, 2, 3, 4], [5, 6, 7]])
    assert not p.needed and p.moves == ()


def test_merge_fills_short_table_from_a_full_one():
    # 4,4,4,2 (14 players) → 4,4,3,3: one move, no table closed
    p = merge_proposal({1: [1, 2, 3, 4], 2: [5, 6, 7, 8], 3: [9, 10, 11, 12], 4: [13, 14]})
    assert p.needed and len(p.moves) == 1 and p.closed_tables == ()
    assert sizes_after(p) == [4, 4, 3, 3]
    assert p.moves[0].to_table == 4 and p.moves[0].player_id in (4, 8, 12)


def test_merge_closes_a_table_of_one():
    # 3,3,3,1 (10) → 4,3,3: table 4 closed, its player goes to table 1
    p = merge_proposal({1: [1, 2, 3], 2: [4, 5, 6], 3: [7, 8, 9], 4: [10]})
    assert p.closed_tables == (4,)
    assert [(m.player_id, m.from_table, m.to_table) for m in p.moves] == [(10, 4, 1)]
    assert p.tables[1] == (1, 2, 3, 10)


def test_merge_two_short_tables():
    # 2,2 (4 players) → one table of 4
    p = merge_proposal([[1, 2], [3, 4]])
    assert p.closed_tables == (2,) and p.tables == {1: (1, 2, 3, 4)}


def test_merge_keeps_every_player_and_never_makes_five():
    tables = {1: [1, 2, 3, 4], 2: [5], 3: [6, 7, 8, 9], 4: [], 5: [10, 11]}
    p = merge_proposal(tables)
    seated = sorted(x for v in p.tables.values() for x in v)
    assert seated == list(range(1, 12))
    assert sizes_after(p) == table_sizes(11)
