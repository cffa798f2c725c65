"""After "Erase my data", the personal link still enters more events, but asks for the contact, the birth year
(a child's guardian) and the agreement again, and stores them: nobody is entered without them, and an erased
child is never counted as 15 or older (R9)."""

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring.results.event import registration_under_age
from tests.factories import agreed, make_festival, make_player, make_registration, open_event
from tournament.models import Player, Registration
from tournament.services.audit import Actor
from tournament.services.consent import Consent
from tournament.services.erasure import erase_player
from tournament.services.errors import ServiceError
from tournament.services.registration import PlayerDetails, register_existing_player

pytestmark = pytest.mark.django_db

By, How = Registration.ConsentBy, Registration.ConsentHow


def erased(birth_year: int, **fields) -> tuple[Player, object]:
    """A player who agreed online, entered one event, then erased their data; and another open event."""
    festival = make_festival(starts_on=timezone.localdate(), ends_on=timezone.localdate())
    first = open_event(festival, name="First cup", days_ahead=20)
    player = make_player(festival, name="이하늘", contact="010-4444-5555", birth_year=birth_year, **fields)
    make_registration(first, player, **agreed(festival))
    erase_player(player=player, hide_in_results=False, actor=Actor(label="player link"))
    player.refresh_from_db()
    assert player.contact == "" and player.birth_year is None
    return player, open_event(festival, name="Second cup", days_ahead=10)


def child_born() -> int:
    return timezone.localdate().year - 12


def enter_url(player, event) -> str:
    return reverse("player-enter", kwargs={"token": player.token, "event": event.slug})


def text(response) -> str:
    return response.content.decode()


def test_the_service_refuses_an_erased_player_without_their_details_whatever_they_agreed_before():
    player, second = erased(1990)

    with pytest.raises(ServiceError) as refused:
        register_existing_player(event=second, player=player, actor=Actor(label="player link"),
                                 consent=Consent(by=By.PLAYER, how=How.ONLINE))

    assert refused.value.code == "details_needed"
    assert not Registration.objects.filter(event=second).exists()


def test_entering_after_erasure_asks_for_the_contact_and_birth_year_again_and_stores_them(client):
    player, second = erased(1990)
    url = enter_url(player, second)

    asked = client.post(url)

    assert asked.status_code == 200
    assert 'name="contact"' in text(asked) and 'name="birth_year"' in text(asked) and 'name="agree"' in text(asked)
    assert "이하늘" in text(asked) and 'name="name"' not in text(asked)  # the name was kept
    assert not Registration.objects.filter(event=second).exists()
    version = str(player.festival.privacy_notice_version)
    missing = client.post(url, {"notice_version": version, "agree": "on"})
    assert missing.status_code == 200 and not Registration.objects.filter(event=second).exists()

    entered = client.post(url, {"notice_version": version, "agree": "on", "contact": "+82 10 4444 5555",
                                "birth_year": "1990"})

    assert entered.status_code == 302
    player.refresh_from_db()
    assert (player.contact, player.birth_year, player.personal_data_erased_at) == ("+82 10 4444 5555", 1990, None)
    registration = Registration.objects.get(event=second, player=player)
    assert (registration.consent_by, registration.consent_how) == (By.PLAYER, How.ONLINE)
    assert registration.consented_at is not None


def test_an_erased_child_gives_a_guardian_again_and_is_never_counted_as_15_or_older(client):
    player, second = erased(child_born(), guardian_name="Parent", guardian_contact="parent@example.org")
    url = enter_url(player, second)
    data = {"notice_version": str(player.festival.privacy_notice_version), "agree": "on",
            "contact": "010-4444-5555", "birth_year": str(child_born())}

    without_guardian = client.post(url, data)

    assert without_guardian.status_code == 200 and "guardian" in text(without_guardian)
    assert not Registration.objects.filter(event=second).exists()

    entered = client.post(url, {**data, "guardian_name": "Parent Again", "guardian_contact": "parent@example.org",
                                "guardian_agrees": "on"})

    assert entered.status_code == 302
    registration = Registration.objects.select_related("player").get(event=second, player=player)
    assert registration.consent_by == By.GUARDIAN
    assert registration.player.guardian_name == "Parent Again"
    year = timezone.localtime(second.starts_at).year
    assert registration_under_age(registration, year) is True


def test_the_service_stores_the_details_given_again_in_the_same_step():
    player, second = erased(1990)
    again = PlayerDetails(name="ignored", contact="kim@example.org", birth_year=1991, affiliation="ignored")

    registration = register_existing_player(event=second, player=player, actor=Actor(label="player link"),
                                            consent=Consent(by=By.PLAYER, how=How.ONLINE), details_again=again)

    player.refresh_from_db()
    assert (player.name, player.contact, player.contact_key, player.birth_year) == (
        "이하늘", "kim@example.org", "kim@example.org", 1991)
    assert registration.consent_by == By.PLAYER
