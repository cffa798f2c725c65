"""A NUL character typed or sent in a search (no name holds one; PostgreSQL refuses it in any text it
compares, which was a server error): the public seat and player searches and the organiser's export answer
as if it were not there (tournament.views.helpers.query_text)."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import make_staff, released_stage
from tournament.services import seating

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    return released_stage(8).event


@pytest.mark.parametrize("page", ["public-seat", "public-find-player"])
@pytest.mark.parametrize("query", ["\x00", "Pla\x00yer", "\x001"])
def test_a_search_holding_a_nul_character_is_answered_without_it(event, page, query):
    first = next(seat for seat in seating.seats(seating.public_draw(event)) if seat.registration.number == 1)
    url = reverse(page, kwargs={"festival": event.festival.slug, "event": event.slug})
    response = Client(raise_request_exception=False).get(url, {"q": query})
    assert response.status_code == 200
    if query == "\x001":  # the number 1, once the NUL is gone: player 1 is found
        assert first.registration.player.name in response.content.decode()


def test_the_export_of_one_event_with_a_nul_in_its_name_is_that_event_or_none(event):
    client = Client(raise_request_exception=False)
    client.force_login(make_staff(event.festival, "organiser"))
    url = reverse("manage-export", kwargs={"festival": event.festival.slug, "fmt": "csv"})
    assert client.get(url, {"event": f"\x00{event.slug}"}).status_code == 200
    assert client.get(url, {"event": "\x00"}).status_code == 404
