"""The file for the festival's ranking body holds only the players who agreed to it separately (PIPA art. 17;
tests/tournament/test_ranking_recipient.py covers how they agree)."""

import io

import openpyxl
import pytest
from django.urls import reverse

from scoring.results.event import event_results
from scoring.simulation import simulate
from tests.factories import make_event, make_festival, make_staff
from tournament.models import Player
from tournament.permissions import DESK, ORGANISER

pytestmark = pytest.mark.django_db

RECIPIENT = {"ranking_recipient": "루미큐브 한국랭킹", "ranking_recipient_keeps": "랭킹을 공개하는 동안"}


def url(event, fmt="xlsx"):
    return reverse("event-export-ranking", kwargs={"festival": event.festival.slug, "event": event.slug, "fmt": fmt})


def organiser_client(client, festival):
    client.force_login(make_staff(festival, ORGANISER))
    return client


def rows(response) -> list[tuple]:
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    return [tuple(cell.value for cell in row) for row in sheet.iter_rows()]


def test_only_the_players_who_agreed_are_in_the_file_with_their_places_and_points(client):
    festival = make_festival(contact="info@busan.kr", **RECIPIENT)
    event = simulate("busan", 8, 3, festival=festival)
    event.ranking_points, event.under_15_no_points = [100, 70, 50, 40], False  # R9 is not what is tested here
    event.save()
    placed = event_results(event).rows
    agreeing = [row.registration.player_id for row in placed[::2]]  # places 1, 3, 5, 7
    Player.objects.filter(pk__in=agreeing).update(results_to_ranking=True, ranking_id="KR-7")
    Player.objects.filter(pk=placed[1].registration.player_id).update(results_to_ranking=False)  # refused
    # the rest were never asked (None): not in the file either
    response = organiser_client(client, festival).get(url(event))
    assert response.status_code == 200 and response["X-Content-Type-Options"] == "nosniff"
    header, *lines = rows(response)
    assert header == ("Place", "Name", "Birth year", "School or club", "National ranking id", "Ranking points")
    assert [line[0] for line in lines] == [row.place for row in placed[::2]]
    assert {line[1] for line in lines} == set(Player.objects.filter(pk__in=agreeing).values_list("name", flat=True))
    assert lines[0][4] == "KR-7" and lines[0][5] == 100 and lines[1][5] == 50
    csv = organiser_client(client, festival).get(url(event, "csv"))
    assert csv.status_code == 200 and csv.content.decode("utf-8-sig").count("\n") == 1 + len(agreeing)


def test_before_the_places_are_decided_or_without_a_ranking_body_the_organiser_is_told(client):
    festival = make_festival(contact="info@busan.kr", **RECIPIENT)
    event = make_event(festival)
    response = organiser_client(client, festival).get(url(event), follow=True)
    assert "The places are not decided yet" in response.content.decode()
    plain = make_festival(contact="info@busan.kr")
    other = make_event(plain)
    response = organiser_client(client, plain).get(url(other), follow=True)
    assert "gives results to no ranking body" in response.content.decode()
    assert client.get(url(other, "pdf")).status_code == 404


def test_only_the_festival_s_organisers_download_it(client):
    festival = make_festival(contact="info@busan.kr", **RECIPIENT)
    event = make_event(festival)
    assert client.get(url(event)).status_code == 302  # signed out: to the sign-in page
    client.force_login(make_staff(festival, DESK))
    assert client.get(url(event)).status_code == 403
    client.force_login(make_staff(make_festival(), ORGANISER))  # another festival's organiser
    assert client.get(url(event)).status_code == 403
