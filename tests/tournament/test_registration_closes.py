"""Registration closes with check-in at the latest (R9: nobody is admitted after check-in closes), whatever the
event's own registration close says; and no page says more places are taken than there are.

Places taken: until check-in closes, by the registered players; from then on, by the players checked in. A
registered player who did not come has lost the place (R9), which the desk may give to a waiting-list player
in the hall (a late place, services.late_places): counting both would say "5 of 4 places taken".
"""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring.simulation.play import simulate
from tests.clock import fixed_clock
from tests.factories import (
    EVENT_DAY,
    agreed,
    make_event,
    make_festival,
    make_player,
    make_registration,
    make_staff,
)
from tournament.models import AuditEntry, Event, Player, Registration
from tournament.services import late_places
from tournament.services.audit import Actor
from tournament.services.consent import Consent
from tournament.services.errors import ServiceError
from tournament.services.registration import PlayerDetails, register, register_existing_player

pytestmark = pytest.mark.django_db

ACTOR = Actor(label="test")
S = Registration.Status
# make_event: check-in 10:30–11:00 on EVENT_DAY, play from 11:00 to 18:00. The newcomer's event let
# registration run until the end of the day.
LATE_CLOSE = {"registration_closes_at": EVENT_DAY.replace(hour=18)}
AFTER_CHECKIN = EVENT_DAY.replace(hour=11, minute=30)
DURING_CHECKIN = EVENT_DAY.replace(hour=10, minute=40)


def details(n=1) -> PlayerDetails:
    return PlayerDetails(name=f"김민준 {n}", contact=f"minjun{n}@example.kr", birth_year=2001)


def online() -> Consent:
    return Consent(by=Registration.ConsentBy.PLAYER, how=Registration.ConsentHow.ONLINE)


def page(client, url) -> str:
    return client.get(url).content.decode()


def register_url(event) -> str:
    return reverse("event-register", kwargs={"festival": event.festival.slug, "event": event.slug})


def places_line(html: str) -> str:
    """The text of every "N of M places taken" on a page."""
    return " | ".join(re.findall(r"\d+ of \d+ places taken(?: by players checked in)?", html))


# --- the service ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["by-the-schedule", "by-the-organiser", "numbers-assigned"])
def test_after_check_in_closes_the_service_refuses_a_registration_and_saves_nothing(how):
    fields = dict(LATE_CLOSE)
    now = AFTER_CHECKIN
    if how == "by-the-organiser":
        fields["checkin_override"], now = Event.CheckinOverride.CLOSED, DURING_CHECKIN
    elif how == "numbers-assigned":
        fields["numbers_assigned_at"], now = DURING_CHECKIN, DURING_CHECKIN
    event = make_event(capacity=2, **fields)
    assert event.registration_opens_at <= now < event.registration_closes_at  # its own window is still open

    with pytest.raises(ServiceError) as refused:
        register(event=event, details=details(), actor=ACTOR, now=now)

    assert refused.value.code == "closed"
    assert "check-in" in refused.value.message
    assert not Player.objects.exists() and not Registration.objects.exists() and not AuditEntry.objects.exists()


def test_while_check_in_is_open_registration_still_follows_its_own_window():
    event = make_event(capacity=1, **LATE_CLOSE)
    assert register(event=event, details=details(1), actor=ACTOR, now=DURING_CHECKIN).status == S.REGISTERED
    assert register(event=event, details=details(2), actor=ACTOR, now=DURING_CHECKIN).status == S.WAITLISTED


def test_after_check_in_closes_a_player_cannot_enter_another_event_from_their_page():
    festival = make_festival()
    player = make_player(festival)
    make_registration(make_event(festival, start=EVENT_DAY.replace(hour=19)), player, **agreed(festival))
    event = make_event(festival, **LATE_CLOSE)

    with pytest.raises(ServiceError) as refused:
        register_existing_player(event=event, player=player, actor=ACTOR, now=AFTER_CHECKIN, consent=online())

    assert refused.value.code == "closed"
    assert not Registration.objects.filter(event=event).exists()


def test_the_organiser_s_import_still_enters_players_after_check_in():
    """`by_organiser`: an import at any time (services.registration.register), e.g. an event entered afterwards."""
    event = make_event(**LATE_CLOSE)
    imported = register(event=event, details=details(), actor=ACTOR, now=AFTER_CHECKIN, by_organiser=True)
    assert imported.status == S.REGISTERED


# --- the pages ---------------------------------------------------------------------------------------------


@pytest.fixture
def after_check_in(monkeypatch):
    fixed_clock(monkeypatch, AFTER_CHECKIN)


def test_the_public_pages_offer_no_registration_after_check_in_and_refuse_a_post(client, after_check_in):
    event = make_event(capacity=1, **LATE_CLOSE)
    make_registration(event)  # full: before, the page offered the waiting list
    html = page(client, event.get_absolute_url())
    assert register_url(event) not in html
    assert "waiting list" not in html
    assert "Registration has closed: check-in for this event is over." in html
    assert "It is open from" not in html  # never "open until" a time after check-in

    form = page(client, register_url(event))
    assert 'name="birth_year"' not in form and "check-in for this event is over" in form
    response = client.post(register_url(event), {"name": "김민준", "contact": "minjun@example.kr",
                                                  "birth_year": "2001", "agree": "on", "notice_version": "1"})
    messages = [str(m) for m in response.context["messages"]]
    assert any("check-in is over, so nothing was saved" in m for m in messages)
    assert Registration.objects.count() == 1 and not Player.objects.filter(name="김민준").exists()


def test_the_personal_page_offers_no_event_whose_check_in_has_closed(client, after_check_in):
    festival = make_festival()
    player = make_player(festival)
    make_registration(make_event(festival, start=EVENT_DAY.replace(hour=19)), player, **agreed(festival))
    closed = make_event(festival, **LATE_CLOSE)
    later = make_event(festival, start=EVENT_DAY + dt.timedelta(days=1),
                       registration_closes_at=EVENT_DAY + dt.timedelta(hours=20))
    html = page(client, player.get_absolute_url())
    enter = "player-enter"
    assert reverse(enter, kwargs={"token": player.token, "event": closed.slug}) not in html
    assert reverse(enter, kwargs={"token": player.token, "event": later.slug}) in html


def late_places_given():
    """Four places: three came, one did not; check-in closed and the desk gave the empty place to the waiting
    player in the hall. Five players are registered, four hold the places."""
    event = make_event(capacity=4, **LATE_CLOSE)
    for _ in range(3):
        make_registration(event, checked_in_at=timezone.now())
    make_registration(event)  # registered, never came
    waiting = make_registration(event, status=S.WAITLISTED)
    Event.objects.filter(pk=event.pk).update(checkin_override=Event.CheckinOverride.CLOSED)
    event.refresh_from_db()
    organiser = Actor(user=make_staff(event.festival, "organiser"))
    late_places.open_late_places(event=event, actor=organiser)
    late_places.give_late_places(event=event, registration_ids=[waiting.pk], actor=organiser)
    assert Registration.objects.filter(event=event, status=S.REGISTERED).count() == 5
    return event


def test_after_late_places_the_public_pages_count_the_players_holding_the_places(client):
    event = late_places_given()
    assert places_line(page(client, event.get_absolute_url())) == "4 of 4 places taken by players checked in"
    assert places_line(page(client, event.festival.get_absolute_url())) == "4 of 4 places taken by players checked in"


def test_after_late_places_the_organiser_s_pages_count_the_players_holding_the_places(client):
    event = late_places_given()
    client.force_login(make_staff(event.festival, "organiser"))
    for url in (reverse("manage-event", kwargs={"festival": event.festival.slug, "event": event.slug}),
                reverse("manage-festival", kwargs={"festival": event.festival.slug})):
        html = page(client, url)
        assert "5<span" not in html, url  # "5/4"
        assert re.search(r">4<span[^>]*>/4<", html), url
        assert "1 registered player did not check in" in html, url


def test_before_check_in_closes_the_places_are_the_registered_players(client):
    event = make_event(capacity=22)
    for _ in range(5):
        make_registration(event)
    make_registration(event, status=S.WAITLISTED)
    assert places_line(page(client, event.get_absolute_url())) == "5 of 22 places taken"
    assert "1 on the waiting list" in page(client, event.festival.get_absolute_url())


def test_a_finished_event_s_public_page_offers_no_registration_nor_the_waiting_list(client):
    """The newcomer's event: played to the end, its own registration close still to come, two registered
    players who never came on top of the places."""
    event = simulate("hk", 16, 5)
    Event.objects.filter(pk=event.pk).update(registration_opens_at=timezone.now() - dt.timedelta(days=30),
                                             registration_closes_at=timezone.now() + dt.timedelta(days=1))
    for _ in range(2):
        make_registration(event)
    html = page(client, event.get_absolute_url())
    assert register_url(event) not in html and "waiting list" not in html
    held = "16 of 16 places taken by players checked in"
    assert places_line(html) == held
    assert places_line(page(client, event.festival.get_absolute_url())) == held
    response = client.post(register_url(event), {"name": "새참가자", "contact": "new@example.kr",
                                                  "birth_year": "2001", "agree": "on", "notice_version": "1"})
    assert response.status_code == 200
    assert not Player.objects.filter(name="새참가자").exists()


@pytest.mark.parametrize("size", [2, 30])
def test_the_public_festival_page_counts_places_in_constant_queries(client, size, django_assert_max_num_queries):
    festival = make_festival()
    for hour in range(size):
        event = make_event(festival, start=EVENT_DAY + dt.timedelta(minutes=15 * hour), hours=1)
        make_registration(event, checked_in_at=timezone.now())
    with django_assert_max_num_queries(4):
        html = page(client, festival.get_absolute_url())
    assert html.count("1 of 128 places taken") == size
