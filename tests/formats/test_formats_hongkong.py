"""Hong Kong 2016 "top two move up a table" (R8.2), movement checked table by table."""

import random
from decimal import Decimal as D

import pytest

from tournament.formats import hongkong
from tournament.formats.draw import Entrant, draw_seat_orders, draw_tables
from tournament.formats.ranking import SeatResult, tiebreak_from_order


def synthetic_game(table, table_no, game, rng):
    """Zero-sum game results (R6) with frequent equal scores so ties for moving happen."""
    penalties = {p: rng.choice([0, 5, 5, 10, 10, 20, 30]) for p in table}
    low = min(penalties.values())
    winners = [p for p in table if penalties[p] == low]
    losses = {p: penalties[p] - low for p in table if p not in winners}
    # R6: shares exact to 0.01, leftover hundredths to the winners in seat order
    base, extra = divmod(sum(losses.values()) * 100, len(winners))
    out = [SeatResult(p, table_no, D(base + (i < extra)) / 100, True, game) for i, p in enumerate(winners)]
    out += [SeatResult(p, table_no, D(-v), False, game) for p, v in losses.items()]
    assert sum(r.score for r in out) == 0
    return out


def expected_movers(table, results, lots):
    """Independent check of R8.2: winner(s) first, then highest score; ties by the recorded lot."""
    key = {r.player_id: (r.win, r.score) for r in results if r.player_id in table}
    order = sorted(table, key=lambda p: key[p], reverse=True)
    k = min(2, len(table))
    if k < len(order) and key[order[k - 1]] == key[order[k]]:
        tied_key = key[order[k - 1]]
        above = [p for p in order if key[p] > tied_key]
        tied = [p for p in order if key[p] == tied_key]
        assert lots is not None and set(lots.players) == set(tied), "tie for moving must be settled by lot"
        return set(above) | set(lots.order[: k - len(above)])
    assert lots is None
    return set(order[:k])


def play(n, games=3, seed=1, by_number=True):
    rng = random.Random(seed)
    entrants = [Entrant(f"P{i:02d}", i) for i in range(1, n + 1)]
    if by_number:
        tables = hongkong.initial_tables(entrants, seat_seed=seed)
    else:
        tables = draw_tables(entrants, seed=seed).tables
    sizes = [len(t) for t in tables]
    all_results = []
    n_lots = 0
    for game in range(1, games + 1):
        results = [r for t, tb in enumerate(tables, 1) for r in synthetic_game(tb, t, game, rng)]
        all_results += results
        mv = hongkong.movement(tables, results, lot_seed=f"{seed}/game {game}")
        assert mv.resolved
        lots = dict(mv.lots)
        n_lots += len(lots)
        for t, table in enumerate(tables, 1):
            movers = expected_movers(table, results, lots.get(t))
            assert set(mv.movers[t - 1]) == movers
            assert set(mv.stayers[t - 1]) == set(table) - movers
            nxt = t % len(tables)  # table t → t + 1; the last table → table 1
            assert movers <= set(mv.next_tables[nxt])
            assert set(table) - movers <= set(mv.next_tables[t - 1])
        assert [len(t) for t in mv.next_tables] == sizes, "table sizes are kept"
        assert sorted(p for t in mv.next_tables for p in t) == sorted(e.id for e in entrants)
        tables = draw_seat_orders(mv.next_tables, f"{seed}/seats {game + 1}")  # R8.2: redrawn every game
    return entrants, all_results, n_lots


@pytest.mark.parametrize("n", [64, 62])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_r8_2_whole_event_movement_table_by_table(n, seed):
    entrants, results, n_lots = play(n, seed=seed)
    ranking = hongkong.event_ranking(results, prize_places=4)
    assert len(ranking.ranked) == n
    assert all(r.games == 3 for r in ranking.ranked)


def test_r8_2_ties_for_moving_happen_and_are_settled_by_lot():
    assert sum(play(64, seed=s)[2] for s in range(1, 4)) > 0


def test_r8_2_random_initial_draw_variant():
    play(62, seed=5, by_number=False)


def test_r8_2_game1_seating_by_player_number():
    entrants = [Entrant(f"P{i}", i) for i in range(1, 65)]
    tables = hongkong.initial_tables(reversed(entrants))
    assert len(tables) == 16
    assert tables[0] == ("P1", "P2", "P3", "P4") and tables[15] == ("P61", "P62", "P63", "P64")
    tables62 = hongkong.initial_tables(entrants[:62])
    assert [len(t) for t in tables62] == [4] * 14 + [3] * 2
    seated = hongkong.initial_tables(entrants, seat_seed=9)
    assert [set(t) for t in seated] == [set(t) for t in tables]
    with pytest.raises(ValueError):
        hongkong.initial_tables([Entrant("x"), Entrant("y", 1)])


def test_r8_2_golden_sheet_table_3_game_1():
    # R6 golden sheet (seed 003): 甲 −7, 乙 +118 (win), 丙 −61, 丁 −50 → 乙 and 甲 move up to table 4
    tables = [
        ("a1", "a2", "a3", "a4"),
        ("b1", "b2", "b3", "b4"),
        ("甲", "乙", "丙", "丁"),
        ("d1", "d2", "d3", "d4"),
    ]
    res = [SeatResult(p, 3, D(s), s > 0) for p, s in zip(tables[2], (-7, 118, -61, -50), strict=True)]
    for t, tb in enumerate(tables, 1):
        if t != 3:
            res += [SeatResult(p, t, D(s), s > 0) for p, s in zip(tb, (30, -5, -10, -15), strict=True)]
    mv = hongkong.movement(tables, res)
    assert mv.movers[2] == ("乙", "甲") and set(mv.stayers[2]) == {"丙", "丁"}
    assert set(mv.next_tables[3]) == {"乙", "甲", "d3", "d4"}
    # the last table's top 2 go to table 1
    assert mv.movers[3] == ("d1", "d2") and set(mv.next_tables[0]) == {"a3", "a4", "d1", "d2"}


def test_r8_2_shared_win_both_move():
    # R6 HK example 2: A 1, B 1, C 10, D 6 → A +7, B +7 (two winners) move; no lot needed
    tables = [("A", "B", "C", "D"), ("E", "F", "G")]
    res = [
        SeatResult("A", 1, D(7), True),
        SeatResult("B", 1, D(7), True),
        SeatResult("C", 1, D(-9), False),
        SeatResult("D", 1, D(-5), False),
        SeatResult("E", 2, D(20), True),
        SeatResult("F", 2, D(-5), False),
        SeatResult("G", 2, D(-15), False),
    ]
    mv = hongkong.movement(tables, res)
    assert mv.resolved and set(mv.movers[0]) == {"A", "B"} and mv.lots == ()
    # table of 3: top 2 move, 1 stays, sizes kept
    assert mv.movers[1] == ("E", "F") and mv.stayers[1] == ("G",)
    assert [len(t) for t in mv.next_tables] == [4, 3]


def test_r7_tie_for_moving_unresolved_without_lot_then_recorded_lot_reproducible():
    tables = [("A", "B", "C", "D"), ("E", "F", "G", "H")]
    res = [
        SeatResult("A", 1, D(30), True),
        SeatResult("B", 1, D(-10), False),
        SeatResult("C", 1, D(-10), False),
        SeatResult("D", 1, D(-10), False),
    ] + [SeatResult(p, 2, D(s), s > 0) for p, s in zip("EFGH", (30, -5, -10, -15), strict=True)]
    mv = hongkong.movement(tables, res)
    assert not mv.resolved and mv.next_tables is None
    assert [(t.table, t.players, t.places) for t in mv.ties] == [(1, ("B", "C", "D"), 1)]
    a = hongkong.movement(tables, res, lot_seed=77)
    b = hongkong.movement(tables, res, lot_seed=77)
    assert a == b and a.resolved
    ((table, lot),) = a.lots
    assert table == 1 and lot.seed == "77/table 1" and sorted(lot.numbers.values()) == [1, 2, 3]
    assert set(a.movers[0]) == {"A", lot.order[0]}
    # or the organiser's own lot / playoff order as tiebreak
    c = hongkong.movement(tables, res, tiebreak=tiebreak_from_order(["D", "C", "B"]))
    assert set(c.movers[0]) == {"A", "D"}


def test_r8_2_next_table_wraps_from_the_last_table_to_table_1():
    # seed 003: table 1's top two go to table 2 … table 16's go to table 1
    assert [hongkong.next_table(t, 16) for t in (1, 2, 15, 16)] == [2, 3, 16, 1]
    assert hongkong.next_table(1, 1) == 1  # one table: nobody changes table


def test_r8_2_one_table_alone_moves_as_in_the_whole_game():
    """A confirmed table's movement, read before the other tables have results, is the whole game's."""
    rng = random.Random(4)
    tables = [tuple(f"T{t}P{i}" for i in range(4)) for t in range(1, 6)]
    results = [r for t, tb in enumerate(tables, 1) for r in synthetic_game(tb, t, 1, rng)]
    whole = hongkong.movement(tables, results)
    for t, table in enumerate(tables, 1):
        mine = [r for r in results if r.table == t]
        alone = hongkong.table_movement(t, table, mine, tables=len(tables))
        assert alone.to == t % 5 + 1
        assert alone.movers == whole.movers[t - 1] and alone.stayers == whole.stayers[t - 1]
        assert (alone.tie is None) == all(tie.table != t for tie in whole.ties)
    with pytest.raises(ValueError):
        hongkong.table_movement(1, tables[0], [r for r in results if r.table == 2], tables=5)


def test_movement_needs_every_result():
    with pytest.raises(ValueError):
        hongkong.movement([("A", "B", "C")], [SeatResult("A", 1, D(1), True)])


def test_r8_2_final_ranking_average_points_and_prize_ties():
    res = []
    # p1: 2 wins; p2, p3: 1 win each, same average; p4 1 win lower average; p5 0 wins
    for pid, games in {
        "p1": [(10, True), (10, True), (-5, False)],
        "p2": [(12, True), (-3, False), (0, False)],
        "p3": [(9, True), (0, False), (0, False)],
        "p4": [(5, True), (-5, False), (-5, False)],
        "p5": [(-1, False), (-1, False), (-1, False)],
    }.items():
        res += [SeatResult(pid, 1, D(s), w, g) for g, (s, w) in enumerate(games, 1)]
    r = hongkong.event_ranking(res, prize_places=4)
    assert [(x.player_id, x.rank) for x in r.ranked] == [
        ("p1", 1),
        ("p2", 2),
        ("p3", 2),
        ("p4", 4),
        ("p5", 5),
    ]
    assert r.prize_ties == (("p2", "p3"),) and not r.resolved
    r2 = hongkong.event_ranking(res, prize_places=4, tiebreak={"p3": 1, "p2": 0})  # playoff: p3 wins
    assert [x.player_id for x in r2.ranked][:3] == ["p1", "p3", "p2"] and r2.resolved
    assert hongkong.event_ranking(res, prize_places=1).resolved  # tie below the prize places
