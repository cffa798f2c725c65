"""A finished event answers "where did I finish" the same everywhere: the standings page leads with the final
places (R8: stage reached first, then wins and points of that stage; lots and playoffs applied, R7), and the
player's public page, the personal page, the API and the spreadsheet export give every player that same place.
Checked on simulated Busan and Hong Kong events whose shared prize places a lot decided."""

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from public.card import player_book
from public.snapshot import forget_snapshots
from public.standing import standings as personal_standings
from scoring.exports import table_file
from scoring.models import ScoreSheet
from scoring.results.actions import draw_place_lot
from scoring.results.event import event_results
from scoring.simulation import simulate, staff_of
from tournament.models import Lot, Registration

pytestmark = [pytest.mark.django_db, pytest.mark.slow]  # whole simulated events


def finished(fmt: str, players: int, seed: int):
    """A simulated event played to the end, every shared prize place decided by a lot (R7)."""
    event = simulate(fmt, players, seed)
    organiser, _chief = staff_of(event.festival)
    for tie in event_results(event).prize_ties:
        draw_place_lot(event=event, place=tie.place, actor=organiser, seed=seed)
    assert Lot.objects.filter(stage__event=event).exists(), "the seed gave no tie to decide by lot"
    forget_snapshots()
    results = event_results(event)
    assert results.final
    return event, results


def place_text(row) -> str:
    return f"{row.place}=" if row.tied else str(row.place)


@pytest.mark.parametrize(("fmt", "players", "seed"), [("busan", 32, 10), ("hk", 16, 2)])
def test_every_answer_gives_each_player_the_same_final_place(fmt, players, seed):
    event, results = finished(fmt, players, seed)
    expected = {row.registration.pk: place_text(row) for row in results.rows}
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    registrations = list(Registration.objects.filter(event=event, number__isnull=False).select_related("player"))
    client = Client()

    # The standings page leads with the final places, in their order; every game's table is one tap away.
    page = client.get(reverse("public-standings", kwargs=kwargs)).content.decode()
    assert "Final places" in page and reverse("public-standings-all", kwargs=kwargs) in page
    every_game = client.get(reverse("public-standings-all", kwargs=kwargs)).content.decode()
    assert "it is not the final places" in every_game

    # The API: the standings' places and each player's own.
    api = json.loads(client.get(reverse("api-standings", kwargs=kwargs)).content)
    assert api["final"] is True
    assert [(p["player"]["number"], p["place"], p["tied"]) for p in api["places"]] == [
        (row.registration.number, row.place, row.tied) for row in results.rows]

    # The spreadsheet's "Final place" column.
    sheet = list(csv.DictReader(io.StringIO(table_file(event, "standings", "csv").decode("utf-8-sig"))))
    by_number = {row["Player number"]: row["Final place"] for row in sheet}

    book = player_book(event)
    personal = personal_standings(registrations)
    for registration in registrations:
        want = expected[registration.pk]
        card = book.card(registration.number)
        assert card.stats.final and card.stats.rank == want, registration.number
        assert personal[registration.pk].rank == want and personal[registration.pk].final
        mine = json.loads(client.get(reverse("api-player", kwargs={**kwargs, "number": registration.number})).content)
        assert f"{mine['final_place']}{'=' if mine['final_place_tied'] else ''}" == want
        assert by_number[str(registration.number)] == want
        # And the rank after each game: the API's is the page's (lots applied in both).
        assert [game["rank_after"] for game in mine["games"]] == [
            int(game.rank.rstrip("=")) for game in card.games], registration.number

    # Where the cumulative table disagrees (a Busan finalist with fewer wins over every game), the page says the place.
    champion = results.rows[0].registration
    player_page = client.get(reverse("public-player", kwargs={**kwargs, "number": champion.number})).content.decode()
    assert "Final place" in player_page


def test_before_the_end_the_standings_page_is_the_table_of_every_game():
    event = simulate("hk", 8, 2)
    last = event.stages.order_by("-number").first()
    # The last table's sheet back to "submitted": the deciding stage is not complete yet.
    sheet = ScoreSheet.objects.filter(stage=last, status=ScoreSheet.Status.CONFIRMED).order_by("-game").first()
    ScoreSheet.objects.filter(pk=sheet.pk).update(status=ScoreSheet.Status.SUBMITTED)
    forget_snapshots()
    assert not event_results(event).final
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    page = Client().get(reverse("public-standings", kwargs=kwargs)).content.decode()
    assert "Final places" not in page and "Ranked by wins" in page
    assert json.loads(Client().get(reverse("api-standings", kwargs=kwargs)).content)["places"] == []
