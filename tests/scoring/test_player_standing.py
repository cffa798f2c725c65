"""The personal page and "Where do I sit?" during play: number, seat, standing; and a player who is out is told
so with their place (R8.1: eliminated players are placed by the stage they reached). Scoring provides the
standing through public/standing.py (the public app reads scoring)."""

import random

import pytest
from django.urls import reverse

from scoring.results.event import event_results
from scoring.services import progress
from tests.factories import make_player, make_registration, released_stage
from tests.scoring.helpers import chief_of, play_game, text
from tournament.models import Registration
from tournament.services import draws, seating

pytestmark = pytest.mark.django_db


def round_one_played(players=8):
    """A Busan event of `players`: round 1 played and closed, the final drawn and released (R8.1)."""
    stage = released_stage(players)
    chief = chief_of(stage.event)
    for game in range(1, stage.games + 1):
        play_game(stage, game, chief, random.Random(4))
    if not progress.advancement(stage).resolved:
        progress.draw_lots_at_cut(stage=stage, actor=chief, seed=1)
    final = progress.close_stage(stage=stage, actor=chief)
    draws.release_draw(draw=draws.draft_draw(stage=final, actor=chief, seed=3), actor=chief)
    return stage, final


def test_in_play_the_personal_page_shows_number_table_seat_and_standing(client):
    stage = released_stage(8)
    play_game(stage, 1, chief_of(stage.event), random.Random(2))
    seat = seating.seats(seating.game_draw(stage, 1))[0]
    registration = seat.registration
    page = text(client.get(registration.player.get_absolute_url()))
    assert f'<span class="stat-big">{registration.number}</span>' in page
    assert f"Table {seat.table.number}, seat {seat.position}" in page
    row = next(r for r in event_results(stage.event).rows if r.registration.pk == registration.pk)
    assert "Standing now" in page and f"place {row.place}" in page
    assert ("1 win" if row.wins == 1 else f"{row.wins} wins") in page
    assert "Out after" not in page


def test_an_eliminated_player_is_told_they_are_out_with_their_place_r8_1(client):
    stage, final = round_one_played()
    out = next(r for r in event_results(stage.event).rows if r.stage == stage)
    page = text(client.get(out.registration.player.get_absolute_url()))
    assert f"Out after Round 1 — place {out.place}" in page
    assert "Table " not in page  # round 1's seat would send them to a table in vain
    finalist = next(r for r in event_results(stage.event).rows if r.stage == final)
    page = text(client.get(finalist.registration.player.get_absolute_url()))
    assert "Out after" not in page and "Table " in page  # the finalist is sent to their final table


def test_with_the_standings_hidden_the_out_player_is_told_without_a_place(client):
    stage, _final = round_one_played()
    stage.event.public_standings = False
    stage.event.save(update_fields=["public_standings"])
    out = next(r for r in event_results(stage.event).rows if r.stage == stage)
    page = text(client.get(out.registration.player.get_absolute_url()))
    assert "Out after Round 1" in page and "place" not in page.split("Out after Round 1")[1][:20]


def test_where_do_i_sit_tells_an_eliminated_player_they_are_out(client):
    stage, _final = round_one_played()
    out = next(r for r in event_results(stage.event).rows if r.stage == stage)
    kwargs = {"festival": stage.event.festival.slug, "event": stage.event.slug}
    page = text(client.get(reverse("public-seat", kwargs=kwargs), {"q": out.registration.player.name}))
    assert "No one by that name" not in page
    assert f"{out.registration.player.name}" in page and "Out after Round 1" in page


def test_where_do_i_sit_tells_a_withdrawn_player_they_withdrew(client):
    stage = released_stage(8)
    gone = make_registration(stage.event, make_player(stage.event.festival, name="떠난사람"),
                             status=Registration.Status.WITHDRAWN)
    kwargs = {"festival": stage.event.festival.slug, "event": stage.event.slug}
    page = text(client.get(reverse("public-seat", kwargs=kwargs), {"q": gone.player.name}))
    assert "No one by that name" not in page and "Withdrew from this event." in page


@pytest.mark.parametrize("players", [8, 32])
def test_the_personal_page_in_play_costs_the_same_queries_whatever_the_event_size(
        client, django_assert_max_num_queries, players):
    stage, _final = round_one_played(players)
    registration = seating.seats(seating.game_draw(stage, 1))[0].registration
    url = registration.player.get_absolute_url()
    client.get(url)
    with django_assert_max_num_queries(15):
        assert client.get(url).status_code == 200
