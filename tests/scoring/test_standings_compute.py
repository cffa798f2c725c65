"""Standings computation (R7) on plain rows."""

from decimal import Decimal

import pytest

from scoring.standings import compute
from tournament.formats.ranking import SeatResult


def result(player: int, game: int, score, win: bool) -> SeatResult:
    return SeatResult(player_id=player, stage=1, game=game, table=1, score=Decimal(score), win=win)


# Seed 001's worked example: four games, players 루미(1) 큐브(2) 퍼니(3) 알토(4) (R6 golden table).
GOLDEN = [
    (+24, -5, -16, -3),
    (-6, -11, +22, -5),
    (-32, -13, -2, +47),
    (+49, -14, -16, -19),
]


def golden_results():
    for game, scores in enumerate(GOLDEN, start=1):
        for player, score in enumerate(scores, start=1):
            yield result(player, game, score, score > 0)


def test_golden_table_wins_totals_and_ranks_r6():
    lines = {line.player: line for line in compute([1, 2, 3, 4], golden_results(), ("wins", "points"), "total")}
    assert [lines[p].wins for p in (1, 2, 3, 4)] == [2, 0, 1, 1]
    assert [lines[p].total for p in (1, 2, 3, 4)] == [35, -43, -12, 20]
    assert [lines[p].rank for p in (1, 2, 3, 4)] == [1, 4, 3, 2]


def test_ties_share_a_rank_1_2_2_4_r7():
    results = [result(1, 1, 30, True), result(2, 1, -10, False),
               result(3, 1, -10, False), result(4, 1, -10, False),
               result(4, 2, -5, False), result(2, 2, 5, False)]
    lines = compute([1, 2, 3, 4], results, ("wins", "points"), "total")
    assert [(line.player, line.rank) for line in lines] == [(1, 1), (2, 2), (3, 3), (4, 4)]
    even = compute([1, 2, 3], results[:3], ("wins", "points"), "total")
    assert [line.rank for line in even] == [1, 2, 2] and even[1].tied


def test_average_points_rank_players_with_fewer_games_fairly_r8_2():
    results = [result(1, 1, 10, False), result(1, 2, 10, False),
               result(2, 1, 15, False)]
    by_total = compute([1, 2], results, ("wins", "points"), "total")
    by_average = compute([1, 2], results, ("wins", "average"), "average")
    assert [line.player for line in by_total] == [1, 2]
    assert [line.player for line in by_average] == [2, 1]
    assert by_average[0].points == Decimal(15)


def test_a_recorded_lot_orders_only_the_tied_players():
    results = [result(p, 1, 0, False) for p in (1, 2, 3)]
    lines = compute([1, 2, 3], results, ("wins", "points", "lot"), "total", tiebreak={3: 2, 1: 1})
    assert [line.player for line in lines] == [3, 1, 2]


def test_unknown_criterion_is_refused():
    with pytest.raises(ValueError):
        compute([1], [], ("height",), "total")
