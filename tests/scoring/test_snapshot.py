"""The per-version standings snapshot the public player pages share (public/snapshot.py; the load test found the need)."""

import random

import pytest

from public.snapshot import event_snapshot
from scoring.standings import compute, criteria_for, event_standings
from tests.factories import released_stage
from tests.scoring.helpers import chief_of, play_game, played_busan_final

pytestmark = pytest.mark.django_db


def fresh(event):
    """The event as a new request sees it: `event_state` is kept per instance, i.e. per request."""
    return type(event).objects.get(pk=event.pk)


def test_running_ranks_equal_a_ranking_after_each_game_r7():
    stage = released_stage(32, seed=3)
    event, chief, rng = stage.event, chief_of(stage.event), random.Random(5)
    for game in (1, 2, 3):
        play_game(stage, game, chief, rng)
    snapshot = event_snapshot(fresh(event))
    standings = event_standings(event)
    criteria, points = criteria_for(event)
    results = [r for line in standings.lines for r in line.cells.values()]
    checked = 0
    for line in standings.lines:
        expected = {}
        for column in sorted(line.cells):
            upto = compute(list(standings.registrations), [r for r in results if (r.stage, r.game) <= column],
                           criteria, points)
            mine = next(x for x in upto if x.player == line.player)
            expected[column] = f"{mine.rank}=" if mine.tied else str(mine.rank)
        assert snapshot.running_ranks(line.player) == expected
        checked += len(expected)
    assert checked == 32 * 3


def test_one_snapshot_per_version_and_a_new_one_after_a_confirmation():
    stage = released_stage(8, seed=1)
    event, chief, rng = stage.event, chief_of(stage.event), random.Random(1)
    play_game(stage, 1, chief, rng)
    first = event_snapshot(fresh(event))
    assert event_snapshot(fresh(event)) is first  # another request, same data: shared
    assert len(first.results) == 8
    play_game(stage, 2, chief, rng)
    second = event_snapshot(fresh(event))
    assert second is not first
    assert len(second.results) == 16
    assert all(len(ranks) == 2 for ranks in (second.running_ranks(p) for p in second.standings.registrations))


def test_a_lot_breaks_the_tie_in_the_running_rank_as_in_the_standings_r7():
    from scoring.results.actions import draw_place_lot
    stage, seats = played_busan_final((5, 5, 10, 20), end="blocked")  # two winners share place 1
    event = stage.event
    before = event_snapshot(fresh(event))
    assert [before.running_ranks(p)[(stage.number, 1)] for p in seats[:2]] == ["1=", "1="]
    lot = draw_place_lot(event=event, place=1, actor=chief_of(event), seed=7)
    after = event_snapshot(fresh(event))
    winner = max(lot.tiebreak, key=lot.tiebreak.get)
    loser = next(p for p in seats[:2] if p != winner)
    assert after.running_ranks(winner)[(stage.number, 1)] == "1"
    assert after.running_ranks(loser)[(stage.number, 1)] == "2"
    current = {line.player: line.rank for line in after.standings.lines}
    assert (current[winner], current[loser]) == (1, 2)
