"""Busan 2014 elimination (R8.1) played through whole events with synthetic results."""

import random
from decimal import Decimal as D

import pytest

from tournament.formats import busan
from tournament.formats.busan import PER_STAGE, PER_TABLE, BusanSettings, StageRule
from tournament.formats.draw import Entrant, draw_tables, met_pairs_from_tables
from tournament.formats.ranking import SeatResult, draw_lot


def synthetic_game(table, table_no, game, rng, tie_rate=0.15):
    """Zero-sum results for one game (R6): went out, or blocked with shared wins sometimes."""
    penalties = {p: rng.randint(0, 60) for p in table}
    if rng.random() < tie_rate:  # blocked game: lowest penalty wins, maybe shared
        low = min(penalties.values())
        winners = [p for p in table if penalties[p] == low]
    else:
        winners = [rng.choice(list(table))]
        for w in winners:
            penalties[w] = 0
        low = 0
    losses = {p: penalties[p] - low for p in table if p not in winners}
    # R6: shares exact to 0.01, leftover hundredths to the winners in seat order
    base, extra = divmod(sum(losses.values()) * 100, len(winners))
    out = [SeatResult(p, table_no, D(base + (i < extra)) / 100, True, game) for i, p in enumerate(winners)]
    out += [SeatResult(p, table_no, D(-v), False, game) for p, v in losses.items()]
    assert sum(r.score for r in out) == 0
    return out


def resolve_ties(adv_fn, rng):
    """Resolve ties at the cut with recorded lots, as the organiser would (R7)."""
    adv = adv_fn(None)
    lots = []
    if not adv.resolved:
        tiebreak = {}
        for tie in adv.ties:
            lot = draw_lot(tie.players, rng)
            lots.append((tie, lot))
            tiebreak.update(lot.numbers)
        adv = adv_fn(tiebreak)
        assert adv.resolved
        for tie, lot in lots:  # the lot's highest numbers take the contested places
            assert set(lot.order[: tie.places]) <= set(adv.advancing)
            assert not set(lot.order[tie.places :]) & set(adv.advancing)
    return adv, lots


def play_event(n, seed, settings=None):
    rng = random.Random(seed)
    entrants = [
        Entrant(i, i, f"school {rng.randint(1, max(1, n // 5))}", i if i <= n // 8 else None)
        for i in range(1, n + 1)
    ]
    stages = busan.plan(n, settings or BusanSettings())
    active = entrants
    met = set()
    history = []
    for stage in stages:
        assert stage.players == len(active)
        draw = draw_tables(active, stage.table_sizes, met, seed=seed * 100 + stage.number)
        assert all(len(t) <= 4 for t in draw.tables)
        assert sorted(p for t in draw.tables for p in t) == sorted(e.id for e in active)
        results = [
            r
            for g in range(1, stage.games + 1)
            for t, table in enumerate(draw.tables, 1)
            for r in synthetic_game(table, t, g, rng)
        ]
        met |= met_pairs_from_tables([draw.tables])
        if stage.is_final:
            places = busan.final_places(draw.tables[0], results)
            if not places.resolved:
                lot = draw_lot(places.ties[0], rng)
                places = busan.final_places(draw.tables[0], results, tiebreak=lot.numbers)
            history.append((stage, draw, places))
            return stages, history
        adv, lots = resolve_ties(
            lambda tb, d=draw, r=results, s=stage: busan.advancement(s, d.tables, r, tb), rng
        )
        assert len(adv.advancing) == stage.advancing
        check_advancement(stage, draw.tables, results, adv)
        history.append((stage, draw, adv))
        active = [e for e in active if e.id in set(adv.advancing)]
    raise AssertionError("no final")


def check_advancement(stage, tables, results, adv):
    """Every advancing player is at least as good (wins, points) as every player left behind."""
    totals = {}
    for r in results:
        w, p = totals.get(r.player_id, (0, D(0)))
        totals[r.player_id] = (w + r.win, p + r.score)
    groups = tables if stage.advance == PER_TABLE else [[p for t in tables for p in t]]
    going = set(adv.advancing)
    for group in groups:
        up = [totals[p] for p in group if p in going]
        down = [totals[p] for p in group if p not in going]
        if up and down:
            assert min(up) >= max(down)
        if stage.advance == PER_TABLE:
            assert len(up) == stage.advancing_from_table(len(group))


@pytest.mark.parametrize(
    "n, shape",
    [
        (128, [(128, PER_TABLE, 64), (64, PER_TABLE, 32), (32, PER_STAGE, 4), (4, "final", 0)]),
        (117, [(117, PER_TABLE, 60), (60, PER_TABLE, 30), (30, PER_STAGE, 4), (4, "final", 0)]),
        (64, [(64, PER_TABLE, 32), (32, PER_TABLE, 16), (16, PER_STAGE, 4), (4, "final", 0)]),
        (33, [(33, PER_TABLE, 18), (18, PER_TABLE, 10), (10, PER_STAGE, 4), (4, "final", 0)]),
        (7, [(7, PER_TABLE, 4), (4, "final", 0)]),
        (5, [(5, PER_STAGE, 4), (4, "final", 0)]),
        (4, [(4, "final", 0)]),
        (1, [(1, "final", 0)]),
    ],
)
def test_r8_1_plan_shrinks_for_any_count(n, shape):
    stages = busan.plan(n)
    assert [(s.players, s.advance, s.advancing) for s in stages] == shape
    assert [s.games for s in stages] == [3] * (len(stages) - 1) + [1]
    assert stages[-1].name == "Final" and [s.number for s in stages] == list(range(1, len(stages) + 1))
    for s in stages:
        assert all(size <= 4 for size in s.table_sizes)


def test_r8_1_plan_5_players_tables_3_and_2():
    first = busan.plan(5)[0]
    assert first.table_sizes == (3, 2) and first.k == 4


@pytest.mark.parametrize("n", [128, 117, 64, 33, 7, 5])
@pytest.mark.parametrize("seed", [1, 2])
def test_r8_1_whole_event_plays_through(n, seed):
    stages, history = play_event(n, seed)
    stage, draw, places = history[-1]
    assert stage.is_final and len(draw.tables) == 1
    assert places.resolved
    assert sorted(r.rank for r in places.ranked) == list(range(1, stage.players + 1))


def test_r8_1_replan_after_withdrawals():
    # 64 planned; after round 1, 31 instead of 32 remain (a withdrawal): re-plan from stage 2
    rest = busan.plan(31, first_stage=2)
    assert [(s.number, s.players, s.advance, s.advancing) for s in rest] == [
        (2, 31, PER_TABLE, 16),
        (3, 16, PER_STAGE, 4),
        (4, 4, "final", 0),
    ]


def test_r8_1_custom_settings():
    settings = BusanSettings(stages=(StageRule(2, PER_TABLE, 1),), final_games=2, finalists=3)
    stages = busan.plan(12, settings)
    # one configured stage of top 1 per table: 12 → 3 tables → 3 finalists
    assert [(s.players, s.advance, s.advancing, s.games) for s in stages] == [
        (12, PER_TABLE, 3, 2),
        (3, "final", 0, 2),
    ]
    # the last configured stage must leave one final table: top 3 of the stage
    assert [(s.advance, s.advancing) for s in busan.plan(40, settings)][0] == (PER_STAGE, 3)
    with pytest.raises(ValueError):
        BusanSettings(finalists=5)


def make_results(rows):
    """rows: (player, table, [(score, win) per game])"""
    return [SeatResult(p, t, D(s), w, g) for p, t, games in rows for g, (s, w) in enumerate(games, 1)]


def test_r7_tie_at_cut_per_table_flagged_then_resolved_by_lot():
    stage = busan.plan(8)[0]  # tables of 4, top 2 of each
    tables = [["a", "b", "c", "d"], ["e", "f", "g", "h"]]
    results = make_results(
        [
            ("a", 1, [(30, True), (20, True), (-5, False)]),
            ("b", 1, [(-10, False), (-10, False), (10, True)]),
            ("c", 1, [(-10, False), (-5, False), (5, True)]),  # b and c: 1 win, -10 points each
            ("d", 1, [(-10, False), (-5, False), (0, False)]),
            ("e", 2, [(30, True), (30, True), (30, True)]),
            ("f", 2, [(-10, False), (-10, False), (-10, False)]),
            ("g", 2, [(-10, False), (-10, False), (-11, False)]),
            ("h", 2, [(-10, False), (-10, False), (-9, False)]),
        ]
    )
    adv = busan.advancement(stage, tables, results)
    assert not adv.resolved
    assert adv.advancing == ("a", "e", "h")
    assert [(t.table, t.players, t.places) for t in adv.ties] == [(1, ("b", "c"), 1)]
    lot = draw_lot(("b", "c"), 2014)
    adv2 = busan.advancement(stage, tables, results, tiebreak=lot.numbers)
    assert adv2.resolved and set(adv2.advancing) == {"a", "e", "h", lot.order[0]}
    # the same lot seed draws the same numbers again
    assert draw_lot(("c", "b"), 2014) == lot


def test_r7_tie_at_cut_across_stage_flagged():
    stage = busan.PlannedStage(3, "Round 3", 8, (4, 4), 1, PER_STAGE, 4, 4)
    tables = [["a", "b", "c", "d"], ["e", "f", "g", "h"]]
    results = make_results(
        [
            ("a", 1, [(20, True)]),
            ("b", 1, [(-5, False)]),
            ("c", 1, [(-5, False)]),
            ("d", 1, [(-10, False)]),
            ("e", 2, [(20, True)]),
            ("f", 2, [(-5, False)]),
            ("g", 2, [(-5, False)]),
            ("h", 2, [(-10, False)]),
        ]
    )
    adv = busan.advancement(stage, tables, results)
    assert adv.advancing == ("a", "e")
    assert (
        adv.ties[0].table is None and adv.ties[0].players == ("b", "c", "f", "g") and adv.ties[0].places == 2
    )


def test_withdrawn_player_cannot_advance():
    stage = busan.plan(8)[0]
    tables = [["a", "b", "c", "d"], ["e", "f", "g", "h"]]
    results = make_results(
        [(p, 1 if p in "abcd" else 2, [(10 - i, i == 0)]) for i, p in enumerate("abcdefgh")]
    )
    adv = busan.advancement(stage, tables, results, withdrawn={"a"})
    assert "a" not in adv.advancing and len([p for p in adv.advancing if p in "abcd"]) == 2


def test_r8_1_final_places_from_the_one_game():
    results = make_results(
        [("w", 1, [(60, True)]), ("x", 1, [(-10, False)]), ("y", 1, [(-20, False)]), ("z", 1, [(-30, False)])]
    )
    places = busan.final_places(["w", "x", "y", "z"], results)
    assert [(r.player_id, r.rank) for r in places.ranked] == [("w", 1), ("x", 2), ("y", 3), ("z", 4)]
    assert places.resolved
