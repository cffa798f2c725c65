"""A check-in tapped at the desk without a connection and sent later, with its one-time key (R9): one
check-in however often it arrives; another desk's check-in meanwhile is reported, not repeated; a check-in
closed meanwhile refuses it with the reason."""

import pytest
from django.test import Client

from tests.factories import make_event, make_player, make_registration, make_staff
from tournament.models import AuditEntry, Event
from tournament.services.audit import Actor
from tournament.services.checkin import check_in

pytestmark = pytest.mark.django_db
KEY = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def desk():
    event = make_event(checkin_override=Event.CheckinOverride.OPEN)
    registration = make_registration(event, make_player(event.festival, name="김민준"))
    client = Client()
    client.force_login(make_staff(event.festival, "desk"))
    url = f"/desk/{event.festival.slug}/{event.slug}/r/{registration.pk}/checkin/queued/"
    return event, registration, client, url


def check_ins(registration) -> int:
    return AuditEntry.objects.filter(action="checkin.in", target_id=registration.pk).count()


def test_a_queued_check_in_sent_twice_checks_the_player_in_once(desk):
    event, registration, client, url = desk
    first = client.post(url, {"key": KEY}).json()
    again = client.post(url, {"key": KEY}).json()  # the answer was lost: the phone sends it again
    assert first == again == {"status": "checked_in", "message": "김민준 is checked in."}
    registration.refresh_from_db()
    assert registration.is_checked_in and check_ins(registration) == 1


def test_another_desk_got_there_first_and_the_queued_tap_says_so(desk):
    event, registration, client, url = desk
    check_in(registration=registration, actor=Actor(label="the other desk"))
    answer = client.post(url, {"key": KEY}).json()
    assert answer == {"status": "already",
                      "message": "김민준 was already checked in by another desk: not checked in twice."}
    assert check_ins(registration) == 1


def test_check_in_closed_meanwhile_refuses_the_queued_tap_with_the_reason(desk):
    event, registration, client, url = desk
    Event.objects.filter(pk=event.pk).update(checkin_override=Event.CheckinOverride.CLOSED)
    answer = client.post(url, {"key": KEY}).json()
    assert answer["status"] == "refused" and "Check-in for this event is closed" in answer["message"]
    registration.refresh_from_db()
    assert not registration.is_checked_in


@pytest.mark.parametrize("key", ["", "nonsense", KEY.upper(), KEY + "0"])
def test_a_tap_without_a_proper_key_changes_nothing(desk, key):
    event, registration, client, url = desk
    response = client.post(url, {"key": key})
    assert response.status_code == 400 and response.json()["status"] == "refused"
    registration.refresh_from_db()
    assert not registration.is_checked_in


def test_only_the_desk_may_send_one(desk):
    event, registration, client, url = desk
    assert Client().post(url, {"key": KEY}).status_code == 302  # signed out: to the sign-in page
    assert Client().get(url).status_code in (302, 405)
    registration.refresh_from_db()
    assert not registration.is_checked_in
