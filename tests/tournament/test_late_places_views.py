"""Pages of the waiting list after check-in (R9): the organiser opens late places, the desk gives them; reopening
check-in with the renumber choice (R8.2); the desk's search across the festival; the promotion on the
player's personal page."""

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from tests.confirming import confirmation, confirmed_post
from tests.factories import make_event, make_player, make_registration, make_staff, ready_event
from tournament.models import AuditEntry, Event, Registration
from tournament.permissions import DESK, ORGANISER, REFEREE
from tournament.services.audit import Actor
from tournament.services.registration import withdraw

S = Registration.Status
pytestmark = pytest.mark.event_of(capacity=3, checkin_override=Event.CheckinOverride.CLOSED)


def url(name, event):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug})


def text(response) -> str:
    return " ".join(response.content.decode().split())


@pytest.fixture
def line(event):
    """3 places, 1 checked in (2 empty); 3 on the waiting list in line order."""
    make_registration(event, checked_in_at=timezone.now())
    start = timezone.now() - dt.timedelta(days=3)
    return [make_registration(event, status=S.WAITLISTED, queued_at=start + dt.timedelta(hours=n),
                              player=make_player(event.festival, name=f"대기 {n + 1}")) for n in range(3)]


@pytest.fixture
def opened(event, line):
    event.late_places_opened_at = timezone.now()
    event.save()
    return line


def signed_in(client, user):
    client.force_login(user)
    return client


# --- permissions ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["anonymous", "player", "referee", "desk of another festival"])
def test_only_desk_and_organiser_reach_late_places(client, event, opened, who):
    from tests.factories import make_festival

    if who == "player":
        client.force_login(User.objects.create_user("a-player", password="pw-for-tests-only"))
    elif who == "referee":
        client.force_login(make_staff(event.festival, REFEREE))
    elif who == "desk of another festival":
        client.force_login(make_staff(make_festival(), DESK))
    pages = [client.get(url("desk-late-places", event)),
             client.post(url("desk-late-places", event), {"registration": [opened[0].pk]}),
             client.post(url("manage-late-places", event))]
    for response in pages:
        assert response.status_code in (302, 403)
        if response.status_code == 302:
            assert response["Location"].startswith(reverse("login"))
    assert not Registration.objects.filter(event=event, promoted_at__isnull=False).exists()
    assert not AuditEntry.objects.exists()


def test_desk_cannot_open_late_places_only_the_organiser(client, event, line):
    signed_in(client, make_staff(event.festival, DESK))
    assert client.post(url("manage-late-places", event)).status_code == 403
    assert Event.objects.get(pk=event.pk).late_places_opened_at is None


# --- the organiser sees the empty places and opens them ------------------------------------------------------


def test_organiser_sees_the_empty_places_and_opens_late_places(client, event, organiser, line):
    signed_in(client, organiser)
    page = text(client.get(url("manage-event", event)))
    assert "2 places are empty after check-in." in page and "3 players on the waiting list." in page
    assert "Open late places" in page
    response = client.post(url("manage-late-places", event), follow=True)
    assert "Late places are open" in text(response)
    assert Event.objects.get(pk=event.pk).late_places_opened_at is not None
    assert AuditEntry.objects.filter(action="checkin.late_places").count() == 1
    assert client.get(url("manage-late-places", event)).status_code == 302  # GET changes nothing


def test_opening_while_check_in_is_open_is_refused_with_the_reason(client, event, organiser, line):
    event.checkin_override = Event.CheckinOverride.OPEN
    event.save()
    signed_in(client, organiser)
    response = client.post(url("manage-late-places", event), follow=True)
    assert "Check-in has not closed" in text(response)
    assert Event.objects.get(pk=event.pk).late_places_opened_at is None


# --- the desk gives them ------------------------------------------------------------------------------------


@pytest.mark.parametrize("who", [DESK, ORGANISER])
def test_desk_sees_the_line_and_gives_places_to_the_first_present(client, event, opened, who):
    signed_in(client, make_staff(event.festival, who))
    desk = text(client.get(url("desk", event)))
    assert "2 empty places" in desk and "late places open" in desk
    page = client.get(url("desk-late-places", event))
    assert [r.pk for r in page.context["line"]] == [r.pk for r in opened]
    response = client.post(url("desk-late-places", event), {"registration": [opened[1].pk, opened[2].pk]},
                           follow=True)
    assert "Late places given; checked in: 대기 2, 대기 3." in text(response)
    assert [Registration.objects.get(pk=r.pk).status for r in opened] == [S.WAITLISTED, S.REGISTERED, S.REGISTERED]


@pytest.mark.parametrize("data, message", [
    ({}, "Tick the waiting-list players who are here."),
    ({"registration": ["abc"]}, "no longer on the waiting list"),
    ({"registration": ["99999999999999999999999"]}, "no longer on the waiting list"),
    ({"registration": ["\x00"]}, "no longer on the waiting list"),
    ("all three", "Only 2 places are empty: in waiting-list order they go to 대기 1, 대기 2."),
])
def test_bad_or_too_many_ticks_get_a_clear_message_and_change_nothing(client, event, opened, data, message):
    signed_in(client, make_staff(event.festival, DESK))
    if data == "all three":
        data = {"registration": [r.pk for r in opened]}
    response = client.post(url("desk-late-places", event), data)
    assert response.status_code == 200 and message in text(response)
    assert Registration.objects.filter(event=event, status=S.WAITLISTED).count() == 3
    assert not AuditEntry.objects.filter(action="checkin.late_place").exists()


def test_late_places_not_opened_shows_the_line_without_ticks(client, event, line):
    signed_in(client, make_staff(event.festival, DESK))
    page = text(client.get(url("desk-late-places", event)))
    assert "The organiser has not opened late places for this event." in page and 'type="checkbox"' not in page
    response = client.post(url("desk-late-places", event), {"registration": [line[0].pk]})
    assert "The organiser has not opened late places" in text(response)
    assert Registration.objects.get(pk=line[0].pk).status == S.WAITLISTED


@pytest.mark.parametrize("size", [3, 120])
def test_late_places_page_queries_do_not_grow_with_the_line(client, event, size, django_assert_max_num_queries):
    event.capacity, event.late_places_opened_at = size + 10, timezone.now()
    event.save()
    for _n in range(size):
        make_registration(event, status=S.WAITLISTED, player=make_player(event.festival, affiliation="부산중"))
    signed_in(client, make_staff(event.festival, DESK))
    with django_assert_max_num_queries(8):  # event, session, user, 2 role, counts, line
        response = client.get(url("desk-late-places", event))
    assert len(response.context["line"]) == size


# --- reopening with the renumber choice (R8.2) ----------------------------------------------------------------


def test_reopen_confirmation_offers_keep_or_renumber_and_renumber_clears_numbers(client, db):
    event = ready_event(4)
    signed_in(client, make_staff(event.festival, ORGANISER))
    keep, _state = confirmation(client, url("manage-checkin", event), {"checkin": "open"})
    assert "4 player numbers already given stay" in text(keep) and "Renumber everyone" in text(keep)
    page, _state = confirmation(client, url("manage-checkin", event), {"checkin": "open", "renumber": "on"})
    assert "4 player numbers already given are cleared" in text(page)
    assert list(Registration.objects.filter(event=event).values_list("number", flat=True).order_by("number")) == [
        1, 2, 3, 4]  # showing it changed nothing
    confirmed_post(client, url("manage-checkin", event), {"checkin": "open", "renumber": "on"})
    assert not Registration.objects.filter(event=event, number__isnull=False).exists()
    assert AuditEntry.objects.get(action="checkin.override").after["numbers_cleared"] == 4


# --- the desk's search across the festival -------------------------------------------------------------------


def test_desk_search_finds_the_player_in_another_event_and_leads_to_its_desk(client, event):
    word = make_event(event.festival, slug="word", name="Word")
    make_registration(word, player=make_player(event.festival, name="陳大文"))
    signed_in(client, make_staff(event.festival, DESK))
    response = client.get(url("desk", event), {"q": "大文"})
    page = text(response)
    assert "Nobody in Open for “大文”." in page and "In other events of this festival" in page
    assert f'{url("desk", word)}?q=%E9%99%B3%E5%A4%A7%E6%96%87' in response.content.decode()


# --- the promotion on the personal page ---------------------------------------------------------------------


@pytest.mark.event_of(capacity=1)
def test_the_personal_page_says_the_player_moved_up(client, event):
    leaving = make_registration(event)
    waiting = make_registration(event, status=S.WAITLISTED)
    assert "You have a place now" not in text(client.get(waiting.player.get_absolute_url()))
    event.checkin_override = Event.CheckinOverride.SCHEDULE
    event.save()
    withdraw(registration=leaving, actor=Actor(label="test"), by_organiser=True)
    page = text(client.get(waiting.player.get_absolute_url()))
    assert "You have a place now: you moved up from the waiting list" in page
    assert "Check in at the desk when you arrive." in page
