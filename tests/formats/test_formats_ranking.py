"""Standings, shared ranks, cuts and recorded lots (R7)."""

import random
from decimal import Decimal as D

import pytest

from tournament.formats.ranking import (
    AVERAGE,
    SeatResult,
    Standing,
    cut,
    draw_lot,
    rank,
    standings,
    tie_groups,
    tiebreak_from_order,
)


def test_r6_golden_table_seed_001_ranks():
    # R6 golden table: four games of 루미, 큐브, 퍼니, 알토
    games = [(24, -5, -16, -3), (-6, -11, 22, -5), (-32, -13, -2, 47), (49, -14, -16, -19)]
    names = ["루미", "큐브", "퍼니", "알토"]
    results = [
        SeatResult(name, 1, D(score), score > 0, g)
        for g, row in enumerate(games, 1)
        for name, score in zip(names, row, strict=True)
    ]
    st = standings(results)
    assert [st[n].wins for n in names] == [2, 0, 1, 1]
    assert [st[n].points for n in names] == [35, -43, -12, 20]
    ranked = rank(st)
    assert [(r.player_id, r.rank) for r in ranked] == [("루미", 1), ("알토", 2), ("퍼니", 3), ("큐브", 4)]


def test_r7_shared_ranks_1_2_2_4():
    st = [
        Standing("a", 3, D(10), 3),
        Standing("b", 2, D(5), 3),
        Standing("c", 2, D(5), 3),
        Standing("d", 2, D(4), 3),
    ]
    ranked = rank(st)
    assert [r.rank for r in ranked] == [1, 2, 2, 4]
    assert [r.tied for r in ranked] == [False, True, True, False]
    assert tie_groups(ranked) == [("b", "c")]


def test_r7_wins_before_points():
    ranked = rank([Standing("a", 1, D(100), 3), Standing("b", 2, D(-50), 3)])
    assert [r.player_id for r in ranked] == ["b", "a"]


def test_r7_average_points_when_games_differ():
    st = [Standing("a", 1, D(30), 3), Standing("b", 1, D(24), 2)]
    assert [r.player_id for r in rank(st)] == ["a", "b"]  # total 30 > 24
    assert [r.player_id for r in rank(st, AVERAGE)] == ["b", "a"]  # average 12 > 10


def test_rank_is_independent_of_input_order():
    st = [Standing(i, i % 3, D(i % 5), 3) for i in range(20)]
    a = rank(st)
    b = rank(list(reversed(st)))
    assert a == b


def test_r7_cut_without_tie():
    ranked = rank([Standing(p, w, D(0), 3) for p, w in zip("abcd", [3, 2, 1, 0], strict=True)])
    c = cut(ranked, 2)
    assert c.advancing == ("a", "b") and c.resolved and c.eliminated == ("c", "d")


def test_r7_tie_at_cut_flagged_with_places_contested():
    st = [
        Standing("a", 3, D(9), 3),
        Standing("b", 2, D(1), 3),
        Standing("c", 2, D(1), 3),
        Standing("d", 2, D(1), 3),
    ]
    c = cut(rank(st), 2)
    assert c.advancing == ("a",)
    assert c.tied_at_cut == ("b", "c", "d")
    assert c.places_contested == 1
    assert not c.resolved
    # a tie that does not straddle the cut is not flagged
    assert cut(rank(st), 1).resolved
    assert cut(rank(st), 4).resolved


def test_r7_tie_resolved_by_lot_and_playoff_order():
    st = [
        Standing("a", 3, D(9), 3),
        Standing("b", 2, D(1), 3),
        Standing("c", 2, D(1), 3),
        Standing("d", 0, D(1), 3),
    ]
    c = cut(rank(st), 2)
    lot = draw_lot(c.tied_at_cut, 7)
    c2 = cut(rank(st, tiebreak=lot.numbers), 2)
    assert c2.resolved and c2.advancing == ("a", lot.order[0])
    c3 = cut(rank(st, tiebreak=tiebreak_from_order(["c", "b"])), 2)
    assert c3.advancing == ("a", "c")


def test_r7_lot_recorded_and_reproducible():
    lot = draw_lot(["x", "y", "z"], 123)
    assert sorted(lot.numbers.values()) == [1, 2, 3]  # numbered cards 1..n, no ties
    assert lot.order[0] == max(lot.numbers, key=lot.numbers.get)  # highest number wins
    assert lot.seed == 123
    assert draw_lot(["z", "x", "y"], 123) == lot  # input order does not matter
    assert draw_lot(["x", "y", "z"], random.Random(123)).numbers == lot.numbers
    assert {tuple(draw_lot("xyz", s).order) for s in range(30)} != {lot.order}


def test_cut_bad_k():
    with pytest.raises(ValueError):
        cut([], -1)
