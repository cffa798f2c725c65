"""The desk's walk-in form when the typed name is the name of stored players (R9): the form is shown again with
them as choices (name, birth year, school or club, events), the typed details kept; the desk chooses one of them
or a new person, and the personal link shown afterwards is the one of the person actually entered."""

import html

import pytest
from django.urls import reverse

from tests.factories import EVENT_DAY, make_event, make_player, make_registration, make_staff
from tournament.models import AuditEntry, Event, Player, Registration
from tournament.permissions import DESK
from tournament.services.audit import Actor
from tournament.services.erasure import erase_player

pytestmark = pytest.mark.event_of(checkin_override=Event.CheckinOverride.OPEN)

By = Registration.ConsentBy

EVENING = EVENT_DAY.replace(hour=19)  # after the Open: no clash (R9)


def child_year(festival) -> int:
    return festival.starts_on.year - 12


@pytest.fixture
def adult(event):
    """김민준, an adult registered online for another event of the festival."""
    masters = make_event(event.festival, slug="masters", name="Masters", start=EVENING, hours=2)
    player = make_player(event.festival, name="김민준", contact="minjun@example.kr", birth_year=1990,
                         affiliation="부산대학교")
    make_registration(masters, player)
    return player


def stored(player: Player) -> tuple:
    player.refresh_from_db()
    return (player.name, player.contact, player.birth_year, player.affiliation, player.guardian_name,
            player.guardian_contact)


def counts():
    return Player.objects.count(), Registration.objects.count(), AuditEntry.objects.count()


@pytest.fixture
def desk_client(client, event):
    client.force_login(make_staff(event.festival, DESK))
    return client


def walk_in_url(event, name="desk-walk-in", **kwargs):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **kwargs})


def typed_child(festival) -> dict:
    return {"name": "김민준", "contact": "", "birth_year": str(child_year(festival)), "affiliation": "해운대초등학교",
            "guardian_name": "김엄마", "guardian_contact": "010-9876-5432", "guardian_agrees": "on", "agree": "on"}


def text(response) -> str:
    return html.unescape(response.content.decode())


def test_the_desk_is_shown_the_possible_matches_and_nothing_is_entered_yet(desk_client, event, adult):
    before, adults_details = counts(), stored(adult)
    response = desk_client.post(walk_in_url(event), typed_child(event.festival))
    page = text(response)
    assert response.status_code == 200 and counts() == before and stored(adult) == adults_details
    assert "A player with this name is already stored" in page
    # What identifies the stored person: name, birth year, school or club, events entered.
    assert "born 1990" in page and "부산대학교" in page and "Masters" in page
    assert "Differs from what you typed:" in page and 'data-differences="birth_year affiliation contact guardian"' in page
    assert f'type="radio" name="person" value="{adult.pk}"' in page and 'name="person" value="new"' in page
    assert f'name="seen" value="{adult.pk}"' in page
    # Everything typed is kept for the second step.
    assert 'value="해운대초등학교"' in page and 'value="김엄마"' in page and "checked" in page


def test_a_child_walking_in_is_never_merged_into_an_adult_namesake_who_walked_in_without_contact(desk_client,
                                                                                                    event):
    """Two walk-ins of one name, neither with a contact: the child is not recorded as the adult born 1990, the
    guardian is not written onto the adult, and the desk is not shown the adult's personal link."""
    masters = make_event(event.festival, slug="masters", name="Masters", start=EVENING, hours=2)
    earlier = make_player(event.festival, name="김민준", contact="", birth_year=1990)
    make_registration(masters, earlier)
    adults_details = stored(earlier)
    response = desk_client.post(walk_in_url(event), typed_child(event.festival))
    assert response.status_code == 200 and Registration.objects.filter(event=event).count() == 0
    assert "born 1990" in text(response) and "Masters" in text(response)
    response = desk_client.post(walk_in_url(event), typed_child(event.festival) | {"person": "new",
                                                                                 "seen": str(earlier.pk)})
    registration = Registration.objects.get(event=event)
    assert registration.player_id != earlier.pk and stored(earlier) == adults_details
    assert stored(registration.player)[2:] == (child_year(event.festival), "해운대초등학교", "김엄마", "010-9876-5432")
    page = text(desk_client.get(response["Location"]))
    assert registration.player.token in page and earlier.token not in page


def test_choosing_a_new_person_enters_the_walk_in_and_shows_their_own_link(desk_client, event, adult):
    data = typed_child(event.festival) | {"person": "new", "seen": str(adult.pk)}
    response = desk_client.post(walk_in_url(event), data)
    registration = Registration.objects.get(event=event)
    assert response.status_code == 302
    assert response["Location"] == walk_in_url(event, "desk-link", registration=registration.pk)
    assert registration.player_id != adult.pk and registration.player.birth_year == child_year(event.festival)
    page = text(desk_client.get(response["Location"]))
    assert registration.player.token in page and adult.token not in page


def test_choosing_the_stored_person_enters_them_with_their_stored_details_and_shows_their_link(desk_client, event,
                                                                                              adult):
    adults_details = stored(adult)
    data = typed_child(event.festival) | {"person": str(adult.pk), "seen": str(adult.pk), "guardian_agrees": ""}
    response = desk_client.post(walk_in_url(event), data)
    assert response.status_code == 302
    registration = Registration.objects.get(event=event)
    assert registration.player_id == adult.pk and stored(adult) == adults_details
    # An adult (by the stored birth year): the player signed, not a guardian.
    assert registration.consent_by == By.PLAYER
    assert adult.token in text(desk_client.get(response["Location"]))


def test_choosing_a_stored_child_asks_for_the_guardian_though_an_adult_birth_year_was_typed(desk_client, event):
    stored_child = make_player(event.festival, name="김민준", contact="", birth_year=child_year(event.festival),
                               guardian_name="김엄마", guardian_contact="010-9876-5432")
    data = typed_child(event.festival) | {"birth_year": "1990", "guardian_name": "", "guardian_contact": "",
                                          "guardian_agrees": "", "person": str(stored_child.pk),
                                          "seen": str(stored_child.pk)}
    before = counts()
    response = desk_client.post(walk_in_url(event), data)
    assert response.status_code == 200 and counts() == before
    assert response.context["form"].errors["guardian_agrees"]
    response = desk_client.post(walk_in_url(event), data | {"guardian_agrees": "on", "guardian_name": "김엄마",
                                                            "guardian_contact": "010-9876-5432"})
    assert response.status_code == 302
    registration = Registration.objects.get(event=event)
    assert registration.player_id == stored_child.pk and registration.consent_by == By.GUARDIAN


@pytest.mark.parametrize("person, seen", [
    ("", "{adult}"), ("12345678", "{adult}"), ("abc", "{adult}"), ("{other}", "{adult}"), ("new", ""),
    ("new", "x,y"), ("new", "{adult},{other}"), ("{adult}", "-1"), ("new", "9" * 40),
])
def test_a_missing_wrong_or_stale_choice_shows_the_matches_again_and_changes_nothing(desk_client, event, adult,
                                                                                     person, seen):
    other = make_player(event.festival, name="박지훈")
    data = typed_child(event.festival) | {"person": person.format(adult=adult.pk, other=other.pk),
                                          "seen": seen.format(adult=adult.pk, other=other.pk)}
    before = counts()
    response = desk_client.post(walk_in_url(event), data)
    assert response.status_code == 200 and counts() == before
    assert "A player with this name is already stored" in text(response)
    assert f'name="seen" value="{adult.pk}"' in text(response)


def test_without_a_stored_namesake_the_walk_in_is_entered_in_one_step(desk_client, event, adult):
    data = typed_child(event.festival) | {"name": "이서연"}
    response = desk_client.post(walk_in_url(event), data)
    assert response.status_code == 302
    assert Registration.objects.get(event=event).player.name == "이서연"
    assert AuditEntry.objects.get(action="registration.walk_in").after["person"]["match"] == "new"


@pytest.mark.parametrize("language, phrases", [
    ("ko", ["이 이름의 참가자가 이미 있습니다", "새로운 참가자"]),
    ("zh-hant", ["已有同名的參加者", "新的參加者"]),
])
def test_the_choice_is_offered_in_korean_and_chinese(desk_client, event, adult, language, phrases):
    desk_client.cookies["django_language"] = language
    page = text(desk_client.post(walk_in_url(event), typed_child(event.festival)))
    for phrase in phrases:
        assert phrase in page
    assert "1990" in page and "Masters" in page


def test_a_match_gone_since_it_was_shown_asks_again_and_then_makes_a_new_person(desk_client, event, adult):
    shown = typed_child(event.festival) | {"person": str(adult.pk), "seen": str(adult.pk)}
    erase_player(player=adult, hide_in_results=False, actor=Actor(label="test"))  # meanwhile, at his request
    before = counts()
    response = desk_client.post(walk_in_url(event), shown)
    page = text(response)
    assert response.status_code == 200 and counts() == before
    assert "changed meanwhile" in page and 'name="seen" value=""' in page and "already stored at" not in page
    response = desk_client.post(walk_in_url(event), shown | {"person": "new", "seen": ""})
    assert response.status_code == 302
    assert Registration.objects.get(event=event).player_id != adult.pk
