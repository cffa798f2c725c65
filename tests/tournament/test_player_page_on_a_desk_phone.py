"""A desk phone that scans a player's code sees the player's page, not the player's own choices; and a player
whose event is over for them is not told how to withdraw from it."""

import html

import pytest
from django.urls import reverse

from scoring.simulation import simulate
from tests.factories import make_festival, make_player, make_registration, make_staff, open_event
from tournament.models import AuditEntry, Player, Registration
from tournament.permissions import DESK, ORGANISER

pytestmark = pytest.mark.django_db

RANKING = {"ranking_recipient": "루미큐브 한국랭킹", "ranking_recipient_keeps": "랭킹을 공개하는 동안"}


def text(response) -> str:
    return html.unescape(response.content.decode())


@pytest.fixture
def player():
    event = open_event(make_festival(contact="info@busan.kr", **RANKING))
    person = make_player(event.festival, name="김민준", birth_year=1990, results_to_ranking=True)
    make_registration(event, person)
    return person


@pytest.mark.parametrize("role", [DESK, ORGANISER])
def test_a_signed_in_staff_phone_shows_none_of_the_player_s_own_choices_and_refuses_them(client, player, role):
    client.force_login(make_staff(player.festival, role))
    page = text(client.get(player.get_absolute_url()))
    assert 'id="own-choices-hidden"' in page
    for own in ("Erase my data", "Show my name masked", "Withdraw my agreement", 'id="public-name"'):
        assert own not in page, own
    before = AuditEntry.objects.count()
    token = {"token": player.token}
    for name, data in (("player-public-name", {"masked": "yes"}), ("player-results-to-ranking", {"agrees": "no"}),
                       ("player-erase", {"confirm": "on"})):
        response = client.post(reverse(name, kwargs=token), data, follow=True)
        assert "These are the player's own choices" in text(response), name
    player.refresh_from_db()
    assert (player.shown_masked, player.results_to_ranking, player.contact) == (False, True, player.contact)
    assert player.personal_data_erased_at is None and AuditEntry.objects.count() == before


def test_staff_of_another_festival_and_the_player_still_see_and_make_them(client, player):
    client.force_login(make_staff(make_festival(), DESK))  # a desk volunteer elsewhere, here as a player's parent
    page = text(client.get(player.get_absolute_url()))
    assert "Erase my data" in page and 'id="own-choices-hidden"' not in page
    client.post(reverse("player-public-name", kwargs={"token": player.token}), {"masked": "yes"})
    player.refresh_from_db()
    assert player.shown_masked is True


def test_a_player_of_a_finished_event_is_not_told_how_to_withdraw(client):
    event = simulate("busan", 8, 2)
    registration = Registration.objects.filter(event=event, checked_in_at__isnull=False).first()
    page = text(client.get(Player.objects.get(pk=registration.player_id).get_absolute_url()))
    assert "You are already checked in" not in page and "withdrawal deadline" not in page
