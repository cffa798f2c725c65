"""The player's personal page (RULES.md R9): what it shows, withdraw, enter more events, desk taps."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from tests.factories import agreed, make_festival, make_player, make_registration, make_staff, open_event
from tournament.models import Registration
from tournament.permissions import DESK, REFEREE
from tournament.services import ServiceError
from tournament.services.audit import Actor
from tournament.services.registration import withdraw

pytestmark = pytest.mark.django_db


def event_past_its_withdrawal_deadline(festival=None, **fields):
    """Starts tomorrow: the deadline (2 days before) has passed, registration is still open."""
    return open_event(festival, days_ahead=1, **fields)


def without_csrf_tokens(html: bytes) -> bytes:
    """Each response carries a fresh CSRF token and its own path (the language switcher's `next`)."""
    return re.sub(rb'(name="csrf-token" content="|name="csrfmiddlewaretoken" value="|name="next" value=")[^"]*',
                  rb"\1", html)


def withdraw_url(player, registration):
    return reverse("player-withdraw", kwargs={"token": player.token, "registration_id": registration.pk})


def enter_url(player, event):
    return reverse("player-enter", kwargs={"token": player.token, "event": event.slug})


def shown_messages(client, player) -> list[str]:
    return [str(m) for m in client.get(player.get_absolute_url()).context["messages"]]


# --- what the page shows ----------------------------------------------------------------------------------


def test_the_page_shows_the_player_and_every_registration_with_its_state(client):
    festival = make_festival()
    player = make_player(festival, name="陳大文", contact="chan.taiman@school.edu.hk", birth_year=2011,
                         affiliation="聖保羅書院")
    placed = open_event(festival, name="Classic open", capacity=1)
    waiting = open_event(festival, name="Junior cup", days_ahead=11, capacity=0)
    gone = open_event(festival, name="Pairs", days_ahead=12)
    make_registration(placed, player, number=17, checked_in_at=timezone.now())
    make_registration(waiting, make_player(festival), status=Registration.Status.WAITLISTED)
    make_registration(waiting, player, status=Registration.Status.WAITLISTED)
    make_registration(gone, player, status=Registration.Status.WITHDRAWN)

    response = client.get(player.get_absolute_url())

    body = response.content.decode()
    assert response.status_code == 200
    for text in ["陳大文", "ch…@school.edu.hk", "聖保羅書院", "2011", "Classic open", "Junior cup", "Pairs",
                 "Waiting list, position 2", "Withdrawn", "Checked in at", "17"]:
        assert text in body
    assert "chan.taiman@" not in body


def test_the_page_has_a_labelled_qr_code_of_its_own_absolute_url(client):
    player = make_player(make_festival())
    body = client.get(player.get_absolute_url()).content.decode()
    assert "<svg" in body
    assert 'role="img"' in body
    assert 'aria-label="QR code of this page, for the desk to scan"' in body


def test_markup_in_a_name_is_shown_escaped(client):
    player = make_player(make_festival(), name="<script>alert(1)</script>", affiliation="<b>club</b>")
    body = client.get(player.get_absolute_url()).content.decode()
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "&lt;b&gt;club&lt;/b&gt;" in body


@pytest.mark.parametrize(
    "token", ["A" * 32, "short", "with space x" * 3, "%00" + "a" * 30, "ë" * 32, "a" * 65],
    ids=["unknown", "short", "spaces", "nul", "non-ascii", "too-long"],
)
def test_unknown_and_malformed_tokens_get_the_same_404_page(client, token):
    make_player(make_festival())
    unknown = client.get(reverse("player-page", kwargs={"token": "B" * 32}))
    response = client.get(f"/p/{token}/")
    assert response.status_code == 404
    assert without_csrf_tokens(response.content) == without_csrf_tokens(unknown.content)
    assert b"There is no such page" in response.content


def test_the_page_is_not_cached_and_not_indexed(client):
    player = make_player(make_festival())
    response = client.get(player.get_absolute_url())
    assert "no-store" in response["Cache-Control"]
    assert 'name="robots" content="noindex"' in response.content.decode()


def test_the_link_never_leaves_in_a_referer_yet_the_pages_own_forms_keep_their_origin(client):
    """The token must not reach other sites in a Referer header. `no-referrer` did that, but it also makes
    browsers send `Origin: null` with the page's own forms, which the CSRF check refuses: withdrawing and the
    desk's check-in button failed in Chromium (tests/e2e/test_e2e_day.py). These policies send at most the
    origin, never the path that holds the token, and keep the real Origin on same-origin posts."""
    player = make_player(make_festival())
    html = client.get(player.get_absolute_url()).content.decode()
    policy = re.search(r'<meta name="referrer" content="([^"]*)">', html)
    assert policy is not None and policy.group(1) in {"strict-origin", "origin"}


# --- withdraw ---------------------------------------------------------------------------------------------


def test_withdrawing_before_the_deadline_needs_the_confirmation_box(client):
    player = make_player(make_festival())
    registration = make_registration(open_event(player.festival), player)

    response = client.post(withdraw_url(player, registration), {})

    assert response.status_code == 302
    registration.refresh_from_db()
    assert registration.status == Registration.Status.REGISTERED
    assert any("Yes, withdraw me" in m for m in shown_messages(client, player))


def test_withdrawing_before_the_deadline_frees_the_place_for_the_first_in_line(client):
    festival = make_festival()
    player = make_player(festival)
    event = open_event(festival, name="Classic open", capacity=1)
    registration = make_registration(event, player)
    waiting = make_registration(event, status=Registration.Status.WAITLISTED)

    response = client.post(withdraw_url(player, registration), {"confirm": "on"})

    assert response.status_code == 302
    registration.refresh_from_db()
    waiting.refresh_from_db()
    assert registration.status == Registration.Status.WITHDRAWN
    assert waiting.status == Registration.Status.REGISTERED
    assert "You have withdrawn from Classic open." in shown_messages(client, player)


def test_after_the_deadline_there_is_no_withdraw_button_and_a_post_is_refused(client):
    player = make_player(make_festival())
    registration = make_registration(event_past_its_withdrawal_deadline(player.festival), player)

    page = client.get(player.get_absolute_url()).content.decode()
    assert withdraw_url(player, registration) not in page
    assert "has passed" in page

    client.post(withdraw_url(player, registration), {"confirm": "on"})

    registration.refresh_from_db()
    assert registration.status == Registration.Status.REGISTERED
    assert any("deadline" in m for m in shown_messages(client, player))


def test_another_players_registration_id_is_a_404_and_changes_nothing(client):
    festival = make_festival()
    event = open_event(festival)
    me = make_player(festival)
    someone_else = make_registration(event)

    response = client.post(withdraw_url(me, someone_else), {"confirm": "on"})

    assert response.status_code == 404
    someone_else.refresh_from_db()
    assert someone_else.status == Registration.Status.REGISTERED


@pytest.mark.parametrize("registration_id", ["0", "99999999999999999999999999"])
def test_nonexistent_or_huge_registration_ids_are_a_404(client, registration_id):
    player = make_player(make_festival())
    response = client.post(f"/p/{player.token}/withdraw/{registration_id}/", {"confirm": "on"})
    assert response.status_code == 404


def test_withdraw_with_an_unknown_token_is_a_404(client):
    registration = make_registration(open_event())
    response = client.post(f"/p/{'C' * 32}/withdraw/{registration.pk}/", {"confirm": "on"})
    assert response.status_code == 404
    registration.refresh_from_db()
    assert registration.status == Registration.Status.REGISTERED


def test_a_get_to_the_withdraw_address_changes_nothing(client):
    player = make_player(make_festival())
    registration = make_registration(open_event(player.festival), player)

    response = client.get(withdraw_url(player, registration) + "?confirm=on")

    assert response.status_code == 302
    registration.refresh_from_db()
    assert registration.status == Registration.Status.REGISTERED


# --- entering more events ---------------------------------------------------------------------------------


def test_other_open_events_are_offered_and_one_tap_enters_them(client):
    festival = make_festival()
    player = make_player(festival)
    make_registration(open_event(festival, days_ahead=10), player, **agreed(festival))
    more = open_event(festival, name="Pairs", days_ahead=11)
    not_yet = open_event(festival, days_ahead=40)

    page = client.get(player.get_absolute_url()).content.decode()
    assert enter_url(player, more) in page
    assert enter_url(player, not_yet) not in page

    response = client.post(enter_url(player, more))

    assert response.status_code == 302
    assert Registration.objects.get(event=more, player=player).status == Registration.Status.REGISTERED
    assert any("You are registered." in m for m in shown_messages(client, player))


def test_entering_an_overlapping_event_is_refused_naming_the_clash(client):
    festival = make_festival()
    player = make_player(festival)
    make_registration(open_event(festival, name="Classic open"), player)
    clashing = open_event(festival, name="Junior cup")

    page = client.get(player.get_absolute_url()).content.decode()
    assert enter_url(player, clashing) not in page
    assert "Runs at the same time as Classic open" in page

    client.post(enter_url(player, clashing))

    assert not Registration.objects.filter(event=clashing).exists()
    assert any("Classic open" in m for m in shown_messages(client, player))


def test_entering_an_event_twice_is_refused(client):
    player = make_player(make_festival())
    event = open_event(player.festival)
    make_registration(event, player)

    client.post(enter_url(player, event))

    assert Registration.objects.filter(event=event).count() == 1
    assert any("already registered" in m for m in shown_messages(client, player))


def test_entering_a_closed_event_is_refused(client):
    player = make_player(make_festival())
    closed = open_event(player.festival, days_ahead=40)

    client.post(enter_url(player, closed))

    assert not Registration.objects.exists()
    assert any("not open" in m for m in shown_messages(client, player))


def test_an_event_of_another_festival_is_a_404(client):
    player = make_player(make_festival())
    elsewhere = open_event(make_festival())

    assert client.post(enter_url(player, elsewhere)).status_code == 404
    assert not Registration.objects.exists()


# --- query counts -----------------------------------------------------------------------------------------


def _festival_with_events(count: int):
    festival = make_festival()
    player = make_player(festival)
    for n in range(count):
        event = open_event(festival, days_ahead=10 + n, capacity=1, checkin_override="open")
        make_registration(event)  # someone else holds the place …
        make_registration(event, player, status=Registration.Status.WAITLISTED)  # … so ours waits
        open_event(festival, days_ahead=30 + n)  # and one more open event to offer
    return player


@pytest.mark.parametrize("events", [1, 6])
def test_the_page_costs_the_same_queries_for_1_or_6_events(client, django_assert_num_queries, events):
    player = _festival_with_events(events)
    client.get(player.get_absolute_url())  # the session now knows the token: no session write below
    # player, session, registrations (with waiting positions), open events
    with django_assert_num_queries(6):  # one of them: when the festival's last event ends (erasure date)
        response = client.get(player.get_absolute_url())
    assert response.status_code == 200
    assert response.content.decode().count("Waiting list, position 1") == events


@pytest.mark.parametrize("events", [1, 6])
def test_the_page_for_the_desk_costs_the_same_queries_for_1_or_6_events(client, django_assert_num_queries, events):
    player = _festival_with_events(events)
    Registration.objects.filter(player=player).update(status=Registration.Status.REGISTERED)
    client.force_login(make_staff(player.festival, DESK))
    client.get(player.get_absolute_url())
    # + the signed-in user and their roles at the festival (has_role)
    with django_assert_num_queries(8):  # one of them: when the festival's last event ends (erasure date)
        response = client.get(player.get_absolute_url())
    assert response.content.decode().count("Check in</button>") == events


# --- the desk's shortcut ----------------------------------------------------------------------------------


def _desk_url(name, registration):
    return reverse(name, kwargs={"festival": registration.event.festival.slug, "event": registration.event.slug,
                                 "registration": registration.pk})


def test_the_desk_sees_check_in_buttons_that_post_back_to_this_page(client):
    player = make_player(make_festival())
    registration = make_registration(open_event(player.festival, checkin_override="open"), player)
    client.force_login(make_staff(player.festival, DESK))

    body = client.get(player.get_absolute_url()).content.decode()

    assert f'action="{_desk_url("desk-checkin", registration)}"' in body
    assert f'name="next" value="{player.get_absolute_url()}"' in body


def test_a_checked_in_player_shows_the_desk_an_undo_button(client):
    player = make_player(make_festival())
    registration = make_registration(open_event(player.festival), player, checked_in_at=timezone.now())
    client.force_login(make_staff(player.festival, DESK))

    body = client.get(player.get_absolute_url()).content.decode()

    assert f'action="{_desk_url("desk-undo", registration)}"' in body
    assert _desk_url("desk-checkin", registration) not in body


def test_players_referees_and_other_festivals_desks_see_no_check_in_buttons(client):
    player = make_player(make_festival())
    registration = make_registration(open_event(player.festival), player)
    checkin_url = _desk_url("desk-checkin", registration)

    assert checkin_url not in client.get(player.get_absolute_url()).content.decode()
    client.force_login(make_staff(player.festival, REFEREE))
    assert checkin_url not in client.get(player.get_absolute_url()).content.decode()
    client.force_login(make_staff(make_festival(), DESK))
    assert checkin_url not in client.get(player.get_absolute_url()).content.decode()


def test_the_desk_button_checks_the_player_in_when_check_in_is_open(client):
    player = make_player(make_festival())
    event = open_event(player.festival, checkin_override="open")
    registration = make_registration(event, player)
    client.force_login(make_staff(player.festival, DESK))

    response = client.post(_desk_url("desk-checkin", registration), {"next": player.get_absolute_url()})

    assert response.status_code == 302
    assert response["Location"] == player.get_absolute_url()
    registration.refresh_from_db()
    assert registration.is_checked_in


def test_once_check_in_closes_the_desk_sees_it_closed_instead_of_a_button_r9(client):
    player = make_player(make_festival())
    registration = make_registration(open_event(player.festival, checkin_override="closed"), player)
    client.force_login(make_staff(player.festival, DESK))

    body = client.get(player.get_absolute_url()).content.decode()

    assert _desk_url("desk-checkin", registration) not in body
    assert "Check-in closed" in body


def test_a_checked_in_player_is_not_offered_a_withdrawal_the_service_would_refuse(client):
    player = make_player(make_festival())
    registration = make_registration(open_event(player.festival), player, checked_in_at=timezone.now())

    body = client.get(player.get_absolute_url()).content.decode()

    assert withdraw_url(player, registration) not in body
    # It says what the desk is for here: the withdrawal, not something about the check-in.
    assert "You are already checked in, so you cannot withdraw here: please tell the desk." in body
    korean = client.get(player.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "여기서는 참가 취소를 할 수 없습니다" in korean


def test_the_service_refuses_a_checked_in_players_withdrawal_saying_why():
    player = make_player(make_festival())
    registration = make_registration(open_event(player.festival), player, checked_in_at=timezone.now())
    with pytest.raises(ServiceError) as refusal, translation.override("en"):
        withdraw(registration=registration, actor=Actor(label="player link"))
    assert refusal.value.code == "checked_in" and "cannot withdraw" in str(refusal.value)
