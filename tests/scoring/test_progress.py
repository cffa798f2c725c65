"""From confirmed sheets to movement and advancement (R7, R8) through the services."""

import random

import pytest
from django.urls import reverse

from scoring.services import progress
from tests.factories import make_staff, released_stage
from tests.scoring.helpers import chief_of, play_game
from tournament.models import Draw, Event, Lot, StageEntry
from tournament.services import ServiceError, seating
from tournament.services import draws as draw_services

pytestmark = pytest.mark.django_db


def test_hong_kong_top_two_move_up_a_table_after_each_game_r8_2():
    stage = released_stage(16, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    chief = chief_of(stage.event)
    rng = random.Random(1)
    before = seating.player_ids(seating.game_draw(stage, 1))
    play_game(stage, 1, chief, rng)
    after = seating.game_draw(stage, 2)
    assert after is not None and after.method == Draw.Method.MOVEMENT and after.is_released
    results = {r.player_id: r for r in progress.stage_results(stage, 1)}
    moved_to = {p: t for t, players in enumerate(seating.player_ids(after), start=1) for p in players}
    for number, players in enumerate(before, start=1):
        ranked = sorted(players, key=lambda p: (not results[p].win, -results[p].score))
        top, rest = ranked[:2], ranked[2:]
        assert {moved_to[p] for p in top} == {number % 4 + 1}  # table 4's top two go to table 1
        assert {moved_to[p] for p in rest} == {number}


def test_hong_kong_tie_for_moving_is_settled_by_a_recorded_lot_r7():
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    chief = chief_of(stage.event)
    play_game(stage, 1, chief, random.Random(2), tie=True)  # three losers on 5: one of them moves
    lots = Lot.objects.filter(stage=stage, purpose=Lot.Purpose.MOVE)
    assert lots.count() == 2
    assert all(sorted(lot.numbers.values()) == [1, 2, 3] for lot in lots)
    assert seating.game_draw(stage, 2) is not None


def test_busan_round_closes_with_top_two_per_table_and_the_next_round_is_drawn_r8_1():
    stage = released_stage(16)
    chief = chief_of(stage.event)
    rng = random.Random(3)
    with pytest.raises(ServiceError):
        progress.close_stage(stage=stage, actor=chief)
    for game in (1, 2, 3):
        play_game(stage, game, chief, rng)
    result = progress.advancement(stage)
    if not result.resolved:
        progress.draw_lots_at_cut(stage=stage, actor=chief)
        result = progress.advancement(stage)
    assert len(result.advancing) == 8
    following = progress.close_stage(stage=stage, actor=chief)
    assert following.number == 2
    assert set(StageEntry.objects.filter(stage=following).values_list("registration_id", flat=True)) == set(
        result.advancing)
    draw = draw_services.draft_draw(stage=following, actor=chief, seed=9)
    assert sorted(p for t in seating.player_ids(draw) for p in t) == sorted(result.advancing)


def test_busan_tie_at_the_cut_blocks_closing_until_a_lot_is_drawn_r7():
    stage = released_stage(8)
    chief = chief_of(stage.event)
    for game in (1, 2, 3):
        play_game(stage, game, chief, random.Random(game), tie=True)
    assert not progress.advancement(stage).resolved
    with pytest.raises(ServiceError) as refused:
        progress.close_stage(stage=stage, actor=chief)
    assert refused.value.code == "tie"
    lots = progress.draw_lots_at_cut(stage=stage, actor=chief)
    assert lots and progress.advancement(stage).resolved
    assert progress.close_stage(stage=stage, actor=chief).number == 2


def drafted_final():
    """A Busan event of 8 played to its final (R8.1): the four finalists, two from each round-1 table, drafted
    at one table."""
    stage = released_stage(8)
    chief = chief_of(stage.event)
    rng = random.Random(3)
    for game in (1, 2, 3):
        play_game(stage, game, chief, rng)
    if not progress.advancement(stage).resolved:
        progress.draw_lots_at_cut(stage=stage, actor=chief)
    final = progress.close_stage(stage=stage, actor=chief)
    assert final.is_final
    return draw_services.draft_draw(stage=final, actor=chief, seed=9)


def test_a_final_at_one_table_is_not_reported_as_breaking_constraints_it_cannot_keep(client):
    """The two of each round-1 table have met before; no draw could keep them apart at one table, and the
    organiser is told so plainly instead of "constraints could not be met"."""
    draw = drafted_final()
    event = draw.stage.event
    assert len(seating.player_ids(draw)) == 1 and draw.violations == []
    assert not any("constraint" in line for line in draw_services.release_preview(draw).lines)
    client.force_login(make_staff(event.festival, "organiser"))
    text = client.get(reverse("manage-draws", kwargs={"festival": event.festival.slug, "event": event.slug}))
    text = text.content.decode()
    assert "could not be met" not in text and "already met" not in text
    assert "All 4 players play at one table: there is nobody to keep apart." in text
    # A draft stored before: its listed "already met" pairs are not shown either.
    players = seating.player_ids(draw)[0]
    Draw.objects.filter(pk=draw.pk).update(violations=[{"constraint": "repeat_opponents", "table": 1,
                                                        "players": list(players[:2]), "detail": "met before"}])
    draw.refresh_from_db()
    assert not any("constraint" in line for line in draw_services.release_preview(draw).lines)
    text = client.get(reverse("manage-draws", kwargs={"festival": event.festival.slug, "event": event.slug}))
    assert "could not be met" not in text.content.decode() and "list-group-item-warning" not in text.content.decode()


def test_releasing_a_one_table_final_counts_one_table(client):
    draw = drafted_final()
    assert draw_services.release_preview(draw).lines[0].startswith("4 players at 1 table;")
    event = draw.stage.event
    client.force_login(make_staff(event.festival, "organiser"))
    text = client.get(reverse("draw-release", kwargs={"festival": event.festival.slug, "event": event.slug,
                                                      "draw": draw.pk})).content.decode()
    assert "4 players at 1 table;" in text and "1 tables" not in text
