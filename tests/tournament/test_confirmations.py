"""Actions that cannot be undone or touch everyone ask first (tournament.services.confirmation): closing
check-in (R9), assigning player numbers (R8.2) and releasing a draw. GET shows what will happen, with counts
and names; a POST without the confirmation, or with one for a state that has changed since, does nothing and
shows the page again; the same POST twice does the work once and says so."""

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.confirming import confirmation, confirmed_post
from tests.factories import make_festival, make_player, make_registration, make_staff, ready_event
from tournament.models import AuditEntry, Draw, Event, Registration
from tournament.services import checkin, draws
from tournament.services.audit import Actor
from tournament.services.confirmation import Unconfirmed

pytestmark = pytest.mark.django_db
ACTOR = Actor(label="test")


def url(name, event, **extra):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **extra})


def text(response) -> str:
    return response.content.decode()


@pytest.fixture
def morning(event):
    """Check-in open (reopened by the organiser): three players in, two not, one on the waiting list."""
    event.checkin_override = Event.CheckinOverride.OPEN
    event.save()
    now = timezone.now()
    for name in ("김서연", "Chan Tai Man", "Ana"):
        make_registration(event, make_player(event.festival, name=name), checked_in_at=now)
    for name in ("박지훈", "Lee Ka Yan"):
        make_registration(event, make_player(event.festival, name=name))
    make_registration(event, make_player(event.festival, name="Waiting Wu"), status=Registration.Status.WAITLISTED)
    return event


# --- closing check-in (R9) ---------------------------------------------------------------------------------


def test_closing_check_in_shows_who_plays_and_who_cannot_by_name(organiser_client, morning):
    page = organiser_client.get(url("manage-checkin", morning), {"checkin": "closed"})
    html = text(page)
    assert page.status_code == 200
    assert "3 players checked in will play." in html
    assert "2 registered players not checked in will not be able to play." in html
    assert "박지훈" in html and "Lee Ka Yan" in html and "Waiting Wu" not in html
    assert 'name="confirm"' in html and 'name="checkin" value="closed"' in html
    morning.refresh_from_db()
    assert morning.checkin_is_open() and not AuditEntry.objects.exists()


def test_closing_check_in_without_the_confirmation_changes_nothing(organiser_client, morning):
    response = organiser_client.post(url("manage-checkin", morning), {"checkin": "closed"})
    assert response.status_code == 200 and "Nothing has been done yet" in text(response)
    response = organiser_client.post(url("manage-checkin", morning), {"checkin": "closed", "confirm": "<script>"})
    assert response.status_code == 200
    morning.refresh_from_db()
    assert morning.checkin_override == Event.CheckinOverride.OPEN and not AuditEntry.objects.exists()


def test_a_late_check_in_between_the_page_and_the_confirmation_asks_again(organiser_client, morning):
    _page, state = confirmation(organiser_client, url("manage-checkin", morning), {"checkin": "closed"})
    late = Registration.objects.get(player__name="Lee Ka Yan")
    checkin.check_in(registration=late, actor=ACTOR)
    response = organiser_client.post(url("manage-checkin", morning), {"checkin": "closed", "confirm": state})
    html = text(response)
    assert response.status_code == 200 and "Something changed since this page was opened" in html
    assert "4 players checked in will play." in html  # the figures as they are now
    morning.refresh_from_db()
    assert morning.checkin_override == Event.CheckinOverride.OPEN
    # Confirmed again, on the new figures: closed.
    response = organiser_client.post(url("manage-checkin", morning),
                                     {"checkin": "closed", "confirm": response.context["preview"].state})
    assert response.status_code == 302
    morning.refresh_from_db()
    assert morning.checkin_override == Event.CheckinOverride.CLOSED


def test_the_confirmed_close_is_done_once_and_the_second_post_says_so(organiser_client, morning):
    _page, state = confirmation(organiser_client, url("manage-checkin", morning), {"checkin": "closed"})
    data = {"checkin": "closed", "confirm": state}
    first = organiser_client.post(url("manage-checkin", morning), data, follow=True)
    assert "Check-in: Closed (by the organiser)." in text(first)
    second = organiser_client.post(url("manage-checkin", morning), data, follow=True)
    assert "Nothing changed: check-in was already" in text(second)
    assert AuditEntry.objects.filter(action="checkin.override").count() == 1


def test_reopening_asks_nothing(organiser_client, morning):
    confirmed_post(organiser_client, url("manage-checkin", morning), {"checkin": "closed"})
    response = organiser_client.post(url("manage-checkin", morning), {"checkin": "open"})
    assert response.status_code == 302
    morning.refresh_from_db()
    assert morning.checkin_override == Event.CheckinOverride.OPEN


@pytest.mark.parametrize("role", [None, "desk", "chief referee", "other organiser"])
def test_only_the_festivals_organisers_see_or_confirm_it(client, morning, role):
    if role == "other organiser":
        client.force_login(make_staff(make_festival(), "organiser"))
    elif role:
        client.force_login(make_staff(morning.festival, role))
    state = checkin.checkin_preview(event=morning, override="closed").state
    page = client.get(url("manage-checkin", morning), {"checkin": "closed"})
    post = client.post(url("manage-checkin", morning), {"checkin": "closed", "confirm": state})
    for response in (page, post):
        assert response.status_code == (302 if role is None else 403)
        assert "박지훈" not in text(response)
    morning.refresh_from_db()
    assert morning.checkin_override == Event.CheckinOverride.OPEN


def test_the_service_refuses_a_stale_confirmation_under_the_lock(morning):
    state = checkin.checkin_preview(event=morning, override="closed").state
    make_registration(morning, checked_in_at=timezone.now())
    with pytest.raises(Unconfirmed) as refused:
        checkin.set_checkin_override(event=morning, override="closed", actor=ACTOR, expect=state)
    assert refused.value.stale
    # The simulation, the demo and imports pass no confirmation: they are not asked.
    checkin.set_checkin_override(event=morning, override="closed", actor=ACTOR)
    assert Event.objects.get(pk=morning.pk).checkin_override == Event.CheckinOverride.CLOSED


# --- player numbers (R8.2) ---------------------------------------------------------------------------------


def test_numbering_shows_how_many_get_a_number_and_who_does_not(organiser_client, morning):
    confirmed_post(organiser_client, url("manage-checkin", morning), {"checkin": "closed"})
    page = organiser_client.get(url("manage-numbers", morning), {"method": "random"})
    html = text(page)
    assert "3 checked-in players get numbers 1 to 3 (At random)." in html
    assert "2 registered players did not check in: no number, and cannot play." in html
    assert "박지훈" in html and 'name="method" value="random"' in html
    assert not Registration.objects.filter(number__isnull=False).exists()
    assert organiser_client.post(url("manage-numbers", morning), {"method": "random"}).status_code == 200
    assert not Registration.objects.filter(number__isnull=False).exists()
    response = organiser_client.post(url("manage-numbers", morning),
                                     {"method": "random", "confirm": page.context["preview"].state}, follow=True)
    assert "Player numbers are assigned" in text(response)
    assert sorted(Registration.objects.exclude(number=None).values_list("number", flat=True)) == [1, 2, 3]
    again = organiser_client.post(url("manage-numbers", morning),
                                  {"method": "random", "confirm": page.context["preview"].state}, follow=True)
    assert "Player numbers are already assigned." in text(again)
    assert AuditEntry.objects.filter(action="checkin.numbered").count() == 1


def test_numbering_is_disabled_while_check_in_is_open_and_the_page_says_why_with_a_link(organiser_client, morning):
    html = text(organiser_client.get(url("manage-event", morning)))
    assert 'aria-describedby="numbers-blockers"' in html
    assert "Close check-in before assigning player numbers." in html
    assert url("manage-checkin", morning) + "?checkin=closed" in html
    page = organiser_client.get(url("manage-numbers", morning), {"method": "registration"})
    assert "data-blockers" in text(page) and 'name="confirm"' not in text(page)
    confirmed_post(organiser_client, url("manage-checkin", morning), {"checkin": "closed"})
    html = text(organiser_client.get(url("manage-event", morning)))
    assert 'aria-describedby="numbers-blockers"' not in html


# --- releasing a draw --------------------------------------------------------------------------------------


@pytest.fixture
def drafted():
    event = ready_event(10)  # tables of 4, 3 and 3 (R8.1)
    stage = draws.start_event(event=event, actor=ACTOR)
    return draws.draft_draw(stage=stage, actor=ACTOR, seed=5)


def test_releasing_shows_players_and_tables_and_needs_the_confirmation(client, drafted):
    event = drafted.stage.event
    client.force_login(make_staff(event.festival, "organiser"))
    target = url("draw-release", event, draw=drafted.pk)
    page = client.get(target)
    assert "Release the draw of Round 1" in text(page)
    assert "10 players at 3 tables; players and the public will see it." in text(page)
    assert client.post(target).status_code == 200
    drafted.refresh_from_db()
    assert drafted.is_draft
    # A swap by hand after the page was opened: the confirmation is stale.
    seated = [seat.registration_id for seat in drafted.seats.order_by("table__number", "position")]
    draws.swap_seats(draw=drafted, first=seated[0], second=seated[-1], actor=ACTOR)
    response = client.post(target, {"confirm": page.context["preview"].state})
    assert response.status_code == 200 and "Something changed" in text(response)
    drafted.refresh_from_db()
    assert drafted.is_draft
    confirmed = {"confirm": response.context["preview"].state}
    response = client.post(target, confirmed, follow=True)
    assert "The draw is released" in text(response)
    drafted.refresh_from_db()
    assert drafted.is_released
    again = client.post(target, confirmed, follow=True)  # the same POST again (a double tap)
    assert "Only a draft can be released." in text(again)
    assert AuditEntry.objects.filter(action="draw.released").count() == 1


def test_the_draw_page_links_to_the_confirmation_instead_of_releasing(client, drafted):
    event = drafted.stage.event
    client.force_login(make_staff(event.festival, "organiser"))
    html = text(client.get(url("manage-draws", event)))
    assert f'href="{url("draw-release", event, draw=drafted.pk)}"' in html
    assert Draw.objects.get(pk=drafted.pk).is_draft


@pytest.mark.parametrize("role", [None, "desk", "referee", "chief referee"])
def test_only_organisers_see_or_confirm_a_release(client, drafted, role):
    event = drafted.stage.event
    if role:
        client.force_login(make_staff(event.festival, role))
    target = url("draw-release", event, draw=drafted.pk)
    state = draws.release_preview(drafted).state
    for response in (client.get(target), client.post(target, {"confirm": state})):
        assert response.status_code == (302 if role is None else 403)
    drafted.refresh_from_db()
    assert drafted.is_draft


def test_the_first_round_button_says_why_it_is_disabled(organiser_client, event):
    make_registration(event, checked_in_at=timezone.now())
    html = text(organiser_client.get(url("manage-draws", event)))
    assert 'aria-describedby="start-blockers"' in html
    assert "Close check-in and assign player numbers before the first draw." in html
    assert url("manage-event", event) + "#numbers-heading" in html


# --- constant query counts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [3, 300])
def test_the_check_in_confirmation_lists_everyone_in_the_same_queries(organiser_client, event, size,
                                                                      django_assert_max_num_queries):
    event.checkin_override = Event.CheckinOverride.OPEN
    event.capacity = 2 * size
    event.save()
    now = timezone.now()
    for _i in range(size):
        make_registration(event, checked_in_at=now)
        make_registration(event)
    with django_assert_max_num_queries(7):
        page = organiser_client.get(url("manage-checkin", event), {"checkin": "closed"})
    assert f"{size} registered players not checked in" in text(page)


def test_a_release_says_when_the_public_does_not_see_the_draw(client, drafted):
    event = drafted.stage.event
    event.public_draw = False
    event.save()
    client.force_login(make_staff(event.festival, "organiser"))
    html = text(client.get(url("draw-release", event, draw=drafted.pk)))
    assert "the public draw pages are switched off for this event" in html and "and the public" not in html
