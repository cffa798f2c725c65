"""A child's guardian who really agreed (Korea's PIPA art. 22-2): the child's own tick is not it.

A child registered online waits for the guardian: an e-mail guardian agrees from a link (the place held for the
festival's hold, then given to the waiting list), a phone-only guardian signs the paper form at the desk, whose
check-in records it. E-mails are read from Django's test outbox here (one test talks to a real SMTP server:
test_guardian_smtp.py). Festivals start on 2030-11-02 (guardian age 14): born 2018 is a child.
"""

import datetime as dt
import html
import re

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation

from tests.factories import EVENT_DAY, make_event, make_festival, make_staff, open_event
from tournament.models import AuditEntry, Registration
from tournament.permissions import DESK
from tournament.services import ServiceError, guardian
from tournament.services.audit import Actor
from tournament.services.checkin import check_in
from tournament.services.consent import Consent
from tournament.services.guardian_release import release_expired_holds
from tournament.services.imports import exporting
from tournament.services.queued_checkin import check_in_queued
from tournament.services.registration import (
    PlayerDetails,
    register,
    register_existing_player,
    waiting_position,
    withdraw,
)
from tournament.services.walk_in import walk_in

pytestmark = pytest.mark.django_db

By, How, Check, S = (Registration.ConsentBy, Registration.ConsentHow, Registration.GuardianCheck,
                     Registration.Status)
ONLINE = Consent(by=By.GUARDIAN, how=How.ONLINE, language="ko")
LINK = re.compile(r"http://testserver(/guardian/[A-Za-z0-9_-]{40,}/)")
PUBLIC = Actor(label="anonymous")
BEFORE = EVENT_DAY - dt.timedelta(days=5)  # registration is open; the 3-day hold ends two days before the event


def child(guardian_contact="parent@example.kr", name="김하늘") -> PlayerDetails:
    return PlayerDetails(name=name, contact="010-1234-5678", birth_year=2018, guardian_name="김보호",
                         guardian_contact=guardian_contact)


def adult(name="김민준") -> PlayerDetails:
    return PlayerDetails(name=name, contact=f"{name}@example.kr", birth_year=1990)


@pytest.fixture
def sent(django_capture_on_commit_callbacks):
    """Run `call` and the e-mails it sends after its commit; returns (result, the new messages)."""

    def run(call):
        before = len(mail.outbox)
        with django_capture_on_commit_callbacks(execute=True):
            result = call()
        return result, mail.outbox[before:]

    return run


def link_in(message) -> str:
    return LINK.search(message.body).group(1)


def text(response) -> str:
    return html.unescape(response.content.decode())


def register_child(sent, event, *, now=BEFORE, details=None, consent=ONLINE):
    return sent(lambda: register(event=event, details=details or child(), actor=PUBLIC, now=now, consent=consent))


# --- waiting for the guardian -----------------------------------------------------------------------------


def test_a_child_s_own_tick_is_not_the_guardian_s_agreement(client, django_capture_on_commit_callbacks):
    now = timezone.now()
    event = open_event(days_ahead=0, checkin_opens_at=now - dt.timedelta(minutes=5),
                       checkin_closes_at=now + dt.timedelta(hours=1), registration_opens_at=now - dt.timedelta(days=9),
                       registration_closes_at=now + dt.timedelta(minutes=30))
    data = {"name": "김하늘", "contact": "010-1234-5678", "birth_year": str(event.festival.starts_on.year - 12),
            "affiliation": "", "ranking_id": "", "guardian_name": "김보호", "guardian_contact": "parent@example.kr",
            "guardian_agrees": "on", "agree": "on", "notice_version": "1"}
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("event-register", kwargs={"festival": event.festival.slug, "event": event.slug}), data)
    registration = Registration.objects.get()
    assert [message.to for message in mail.outbox] == [["parent@example.kr"]]  # the guardian is asked
    with pytest.raises(ServiceError):  # and until they agree the desk cannot check the child in
        check_in(registration=registration, actor=Actor(user=make_staff(event.festival, DESK)))
    assert not Registration.objects.get().checked_in_at



def test_a_child_registered_online_waits_for_the_guardian_who_gets_a_link_in_the_form_s_language(sent):
    festival = make_festival(name="부산 루미큐브 대회", contact="kids@busan.kr")
    event = make_event(festival, name="어린이부")
    registration, messages = register_child(sent, event)
    registration.refresh_from_db()
    assert registration.status == S.REGISTERED  # the place is taken: the status machine is untouched
    assert registration.guardian_check == Check.WAITING and registration.waits_for_guardian
    assert registration.guardian_held_until == BEFORE + dt.timedelta(days=3)
    assert registration.guardian_language == "ko" and registration.guardian_link_sent_at is not None
    [message] = messages
    assert message.to == ["parent@example.kr"] and message.reply_to == ["kids@busan.kr"]
    assert "부산 루미큐브 대회" in message.subject and "김하늘" in message.subject
    assert "법정대리인" in message.body and "어린이부" in message.body and "2018" in message.body
    token = link_in(message).split("/")[2]
    # Only the hash is kept: the token itself is nowhere in the database.
    assert registration.guardian_token_hash == guardian.token_hash(token) and token not in str(
        list(Registration.objects.values()))
    assert AuditEntry.objects.get(action="registration.created").after["guardian"]["check"] == "waiting"


def test_the_hold_is_the_festival_s_setting():
    festival = make_festival(guardian_hold_days=7)
    registration = register(event=make_event(festival), details=child(), actor=PUBLIC, now=BEFORE, consent=ONLINE)
    assert registration.guardian_held_until == BEFORE + dt.timedelta(days=7)


def test_a_phone_only_guardian_gets_no_link_and_no_hold_they_sign_at_the_desk(sent):
    registration, messages = register_child(sent, make_event(), details=child("010-9876-5432"))
    registration.refresh_from_db()
    assert registration.waits_for_guardian and registration.guardian_held_until is None
    assert registration.guardian_token_hash == "" and messages == []


def test_a_child_on_the_waiting_list_waits_without_a_hold(sent):
    event = make_event(capacity=1)
    register(event=event, details=adult(), actor=PUBLIC, now=BEFORE)
    registration, messages = register_child(sent, event)
    registration.refresh_from_db()
    assert registration.status == S.WAITLISTED and registration.waits_for_guardian
    assert registration.guardian_held_until is None
    assert "waiting list" in messages[0].body.lower() or "대기" in messages[0].body


@pytest.mark.parametrize(("consent", "check"), [
    (Consent(by=By.PLAYER, how=How.ONLINE), Check.NOT_NEEDED),
    (Consent(by=By.GUARDIAN, how=How.IMPORT), Check.NOT_NEEDED),  # the organiser declared it holds it
    (None, Check.NOT_NEEDED),
])
def test_nobody_waits_for_a_guardian_that_is_not_asked_online(sent, consent, check):
    details = adult() if consent is None or consent.by == By.PLAYER else child()
    registration, messages = sent(lambda: register(event=make_event(), details=details, actor=PUBLIC, now=BEFORE,
                                                   consent=consent, by_organiser=True))
    assert registration.guardian_check == check and messages == []


def test_a_walk_in_child_s_guardian_signed_at_the_desk_so_is_checked_at_once(desk, event):
    now = EVENT_DAY.replace(hour=10, minute=40)
    registration = walk_in(event=event, details=child("010-9876-5432"), actor=desk, now=now,
                           consent=Consent(by=By.GUARDIAN, how=How.PAPER))
    assert registration.is_checked_in
    assert (registration.guardian_check, registration.guardian_checked_at) == (Check.PAPER, now)
    assert registration.guardian_checked_name == "김보호"


# --- the guardian's page --------------------------------------------------------------------------------------


def guardian_url(sent, event, **kwargs):
    _registration, messages = register_child(sent, event, **kwargs)
    return link_in(messages[0])


def test_the_guardian_s_page_shows_the_notice_and_the_child_and_records_who_agreed_when_and_how(client, sent):
    event = open_event(make_festival(name="Busan Kids Open", contact="kids@busan.kr"), name="Kids")
    url = guardian_url(sent, event, now=timezone.now())
    response = client.get(url)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    page = text(response)
    assert response.context["state"] == "waiting"
    assert 'id="collection-notice"' in page and "kids@busan.kr" in page  # the festival's notice as the form shows it
    child_details = page[page.index('id="guardian-child"'):page.index('id="guardian-form"')]
    assert "김하늘" in child_details and "2018" in child_details and "Kids" in child_details
    assert "<html lang=\"ko\"" in page  # the language the child's form was filled in

    response = client.post(url, {"name": "김보호", "agree": "on"})
    assert response.status_code == 302
    registration = Registration.objects.get()
    assert (registration.guardian_check, registration.guardian_checked_name) == (Check.EMAIL, "김보호")
    assert registration.guardian_checked_at is not None and registration.guardian_held_until is None
    agreed_at = registration.guardian_checked_at
    entry = AuditEntry.objects.get(action="registration.guardian_agreed")
    assert (entry.before["check"], entry.after["check"], entry.actor_label) == ("waiting", "email", "guardian link")
    page = text(client.get(url))
    assert "The agreement of 김보호 was recorded" in page or "김보호" in page
    assert 'id="guardian-form"' not in page

    # A second POST changes nothing.
    client.post(url, {"name": "Someone Else", "agree": "on"})
    registration.refresh_from_db()
    assert (registration.guardian_checked_name, registration.guardian_checked_at) == ("김보호", agreed_at)
    assert AuditEntry.objects.filter(action="registration.guardian_agreed").count() == 1


@pytest.mark.parametrize("data", [{}, {"name": "김보호"}, {"agree": "on"}, {"name": "1234", "agree": "on"},
                                  {"name": "x" * 101, "agree": "on"}, {"name": "Kim\u202eLee", "agree": "on"}])
def test_nonsense_on_the_guardian_s_page_is_answered_and_nothing_changes(client, sent, data):
    url = guardian_url(sent, open_event(), now=timezone.now())
    response = client.post(url, data)
    assert response.status_code == 400 and response.context["form"].errors
    assert Registration.objects.get().waits_for_guardian


@pytest.mark.parametrize("token", ["x" * 43, "short", "a" * 300, "%00" * 20])
def test_an_unknown_link_is_the_normal_404(client, sent, token):
    guardian_url(sent, open_event(), now=timezone.now())
    assert client.get(f"/guardian/{token}/").status_code == 404
    assert client.post(f"/guardian/{token}/", {"name": "A", "agree": "on"}).status_code == 404
    assert Registration.objects.get().waits_for_guardian


def test_one_agreement_covers_the_child_s_other_events_waiting_too(client, sent):
    festival = make_festival()
    first, second = open_event(festival, name="Morning"), open_event(festival, name="Afternoon", days_ahead=11)
    registration, messages = register_child(sent, first, now=timezone.now())
    player = registration.player
    _other, more = sent(lambda: register_existing_player(event=second, player=player, actor=PUBLIC))
    assert [len(messages), len(more)] == [1, 1]  # the new entry waits too, and its guardian is told
    page = text(client.get(link_in(messages[0])))
    assert "Morning" in page and "Afternoon" in page
    client.post(link_in(messages[0]), {"name": "김보호", "agree": "on"})
    assert set(Registration.objects.values_list("guardian_check", flat=True)) == {Check.EMAIL}
    # A third event later: the agreement already checked for this notice covers it.
    third = open_event(festival, name="Evening", days_ahead=12)
    entered, none = sent(lambda: register_existing_player(event=third, player=player, actor=PUBLIC))
    assert entered.guardian_check == Check.EMAIL and entered.guardian_checked_name == "김보호" and none == []


def test_a_withdrawn_registration_has_nothing_to_agree_to(client, sent):
    event = open_event()
    url = guardian_url(sent, event, now=timezone.now())
    withdraw(registration=Registration.objects.get(), actor=PUBLIC)
    response = client.get(url)
    assert response.context["state"] == "withdrawn" and 'id="guardian-form"' not in text(response)
    client.post(url, {"name": "김보호", "agree": "on"})
    assert Registration.objects.get().guardian_check == Check.WAITING  # nothing recorded


# --- the organiser ---------------------------------------------------------------------------------------------


def event_url(event):
    return reverse("manage-event", kwargs={"festival": event.festival.slug, "event": event.slug})


def test_the_organiser_sees_who_waits_until_when_and_resends_a_link_that_replaces_the_old(
        client, organiser_client, festival, sent):
    event = open_event(festival)
    old = guardian_url(sent, event, now=timezone.now())
    phone_only, _none = register_child(sent, event, now=timezone.now(), details=child("010-5555-1234", name="이별"))
    page = text(organiser_client.get(event_url(event)))
    assert "1 child waiting" not in page and "2 children waiting for the guardian" in page
    assert "waiting for the guardian (until" in page and "paper form at the desk" in page
    listed = text(organiser_client.get(event_url(event) + "?status=guardian"))
    assert "김하늘" in listed and "이별" in listed

    registration = Registration.objects.get(player__name="김하늘")
    url = reverse("manage-guardian-link", kwargs={"festival": festival.slug, "event": event.slug})
    _response, messages = sent(lambda: organiser_client.post(url, {"registration": registration.pk}))
    [message] = messages
    new = link_in(message)
    assert new != old
    assert client.get(old).status_code == 404 and client.get(new).status_code == 200
    assert AuditEntry.objects.filter(action="registration.guardian_link_resent", target_id=registration.pk).exists()
    # A phone-only guardian has no link to resend; nonsense is refused with a message.
    _response, none = sent(lambda: organiser_client.post(url, {"registration": phone_only.pk}))
    assert none == [] and not Registration.objects.get(pk=phone_only.pk).guardian_token_hash
    for bad in ("", "abc", "-1", str(2**70)):
        assert organiser_client.post(url, {"registration": bad}).status_code == 302


def test_only_the_festival_s_organisers_resend(client, sent):
    event = open_event()
    register_child(sent, event, now=timezone.now())
    url = reverse("manage-guardian-link", kwargs={"festival": event.festival.slug, "event": event.slug})
    _response, messages = sent(lambda: client.post(url, {"registration": Registration.objects.get().pk}))
    assert messages == []


def test_a_mail_server_that_fails_is_recorded_and_the_organiser_sees_no_link_went_out(settings, sent):
    settings.EMAIL_BACKEND = "tests.tournament.failing_mail.FailingBackend"
    registration, _messages = register_child(sent, make_event())
    registration.refresh_from_db()
    assert registration.waits_for_guardian and registration.guardian_link_sent_at is None
    assert AuditEntry.objects.get(action="registration.guardian_mail_failed").after == {"kind": "link"}


def test_the_export_and_the_data_download_show_how_the_guardian_s_agreement_was_checked(client, sent, festival):
    event = open_event(festival)
    url = guardian_url(sent, event, now=timezone.now())
    client.post(url, {"name": "김보호", "agree": "on"})
    with translation.override("en"):  # the guardian's page spoke Korean in this thread
        dataset = exporting.registrations_dataset(festival=festival)
    row = dict(zip(dataset.headers, dataset[0], strict=True))
    assert row["Guardian's agreement checked"] == "by the e-mail link sent to the guardian"
    assert row["Guardian who agreed"] == "김보호" and row["Guardian agreed at"]
    player = Registration.objects.get().player
    data = client.get(reverse("player-data", kwargs={"token": player.token})).json()
    assert data["registrations"][0]["guardian_agreement"]["check"] == "email"
    assert data["registrations"][0]["guardian_agreement"]["name"] == "김보호"


# --- the desk --------------------------------------------------------------------------------------------------

CHECKIN_OPEN = EVENT_DAY.replace(hour=10, minute=40)


def test_check_in_refuses_a_child_whose_guardian_has_not_agreed_and_records_the_paper_form(desk, event, sent):
    registration, _messages = register_child(sent, event, details=child("010-9876-5432"))
    with pytest.raises(ServiceError) as refused:
        check_in(registration=registration, actor=desk, now=CHECKIN_OPEN)
    assert refused.value.code == "guardian"
    with pytest.raises(ServiceError):  # a tap queued offline carries no paper form either
        check_in_queued(registration=registration, actor=desk, key="a" * 32, now=CHECKIN_OPEN)
    assert not Registration.objects.get().is_checked_in

    registration = check_in(registration=registration, actor=desk, now=CHECKIN_OPEN, guardian_signed=True)
    assert registration.is_checked_in
    assert (registration.guardian_check, registration.guardian_checked_at) == (Check.PAPER, CHECKIN_OPEN)
    assert registration.guardian_checked_name == "김보호"
    entry = AuditEntry.objects.get(action="registration.guardian_agreed")
    assert entry.actor == desk.user and entry.after["check"] == "paper"


def desk_url(event, name, registration):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug,
                                 "registration": registration.pk})


def test_the_desk_sees_who_waits_and_checks_in_only_with_the_tick(client, sent):
    now = timezone.now()
    event = open_event(days_ahead=0, checkin_opens_at=now - dt.timedelta(minutes=5),
                       checkin_closes_at=now + dt.timedelta(hours=1), registration_opens_at=now - dt.timedelta(days=9),
                       registration_closes_at=now + dt.timedelta(minutes=30))
    registration, _messages = register_child(sent, event, now=now, details=child("010-9876-5432"))
    client.force_login(make_staff(event.festival, DESK))
    page = text(client.get(reverse("desk", kwargs={"festival": event.festival.slug, "event": event.slug})
                           + "?q=김하늘"))
    assert "Waiting for the guardian" in page and 'data-guardian-form' in page
    assert "1 waiting for the guardian" in page
    # The plain check-in button is not offered, and its URL refuses.
    client.post(desk_url(event, "desk-checkin", registration))
    assert not Registration.objects.get().is_checked_in
    for data in ({}, {"signed": ""}, {"next": "https://evil.example/"}):
        client.post(desk_url(event, "desk-guardian-signed", registration), data)
        assert not Registration.objects.get().is_checked_in
    client.post(desk_url(event, "desk-guardian-signed", registration), {"signed": "on"})
    registration.refresh_from_db()
    assert registration.is_checked_in and registration.guardian_check == Check.PAPER


def test_late_places_wait_for_the_guardian_s_paper_form(desk, sent):
    from tournament.services.late_places import give_late_places, open_late_places

    event = make_event(capacity=1)
    first = register(event=event, details=adult(), actor=PUBLIC, now=BEFORE)
    waiting, _messages = register_child(sent, event, details=child("010-9876-5432"))
    withdraw(registration=first, actor=PUBLIC, by_organiser=True, now=EVENT_DAY.replace(hour=11, minute=30))
    after = EVENT_DAY.replace(hour=11, minute=40)
    open_late_places(event=event, actor=desk, now=after)
    with pytest.raises(ServiceError) as refused:
        give_late_places(event=event, registration_ids=[waiting.pk], actor=desk, now=after)
    assert refused.value.code == "guardian"
    guardian.record_paper_agreement(registration=waiting, actor=desk, now=after)
    [given] = give_late_places(event=event, registration_ids=[waiting.pk], actor=desk, now=after)
    assert given.is_checked_in and given.guardian_check == Check.PAPER


# --- the hold ----------------------------------------------------------------------------------------------


def test_after_the_hold_the_place_goes_to_the_first_in_line_and_the_child_to_the_end(sent):
    event = make_event(capacity=1)
    held, first_mail = register_child(sent, event)
    first = register(event=event, details=adult("First"), actor=PUBLIC, now=BEFORE + dt.timedelta(hours=1))
    second = register(event=event, details=adult("Second"), actor=PUBLIC, now=BEFORE + dt.timedelta(hours=2))
    assert release_expired_holds(now=held.guardian_held_until - dt.timedelta(seconds=1)) == []  # not yet

    released, messages = sent(lambda: release_expired_holds(now=EVENT_DAY))
    assert [r.pk for r in released] == [held.pk]
    held.refresh_from_db(), first.refresh_from_db(), second.refresh_from_db()
    assert (first.status, first.promoted_at) == (S.REGISTERED, EVENT_DAY)
    assert held.status == S.WAITLISTED and held.waits_for_guardian
    assert [waiting_position(second), waiting_position(held)] == [1, 2]  # the child at the end of the line
    [message] = messages
    assert message.to == ["parent@example.kr"] and "대기" in message.body
    assert AuditEntry.objects.filter(action="registration.guardian_hold_over", target_id=held.pk).exists()
    assert AuditEntry.objects.filter(action="registration.promoted", target_id=first.pk).exists()
    # The first e-mail's link still works (the guardian may be agreeing on it at that very moment) ...
    assert guardian.by_token(link_in(first_mail[0]).split("/")[2]).pk == held.pk
    # ... and from the new link the guardian can still agree: the child keeps their place in the line.
    token = link_in(message).split("/")[2]
    guardian.agree_by_link(token=token, name="김보호", now=EVENT_DAY)
    held.refresh_from_db()
    assert held.guardian_check == Check.EMAIL and waiting_position(held) == 2
    assert release_expired_holds(now=EVENT_DAY) == []  # once only


def test_with_nobody_waiting_the_child_keeps_the_place_until_someone_needs_it(sent):
    event = make_event(capacity=1)
    held, _messages = register_child(sent, event)
    assert release_expired_holds(now=EVENT_DAY - dt.timedelta(days=1)) == []
    assert Registration.objects.get(pk=held.pk).status == S.REGISTERED
    register(event=event, details=adult(), actor=PUBLIC, now=EVENT_DAY - dt.timedelta(hours=20))
    assert [r.pk for r in release_expired_holds(now=EVENT_DAY - dt.timedelta(hours=19))] == [held.pk]


def test_two_holds_over_at_once_never_give_a_place_back_to_a_child_released_in_the_same_run(sent):
    event = make_event(capacity=2)
    a, _m = register_child(sent, event, details=child(name="가"))
    b, _m = register_child(sent, event, details=child(name="나"))
    ready = register(event=event, details=adult(), actor=PUBLIC, now=BEFORE + dt.timedelta(hours=1))
    released = release_expired_holds(now=EVENT_DAY)
    assert [r.pk for r in released] == [a.pk]  # one place for the one player waiting; b keeps theirs
    assert Registration.objects.get(pk=ready.pk).status == S.REGISTERED
    assert Registration.objects.get(pk=b.pk).status == S.REGISTERED


def test_nothing_is_released_once_check_in_has_closed(sent):
    event = make_event(capacity=1)
    register_child(sent, event)
    register(event=event, details=adult(), actor=PUBLIC, now=BEFORE + dt.timedelta(hours=1))
    assert release_expired_holds(now=EVENT_DAY.replace(hour=11, minute=1)) == []


def test_a_waiting_child_moving_up_gets_a_new_hold_and_their_guardian_a_new_link(sent):
    event = make_event(capacity=1)
    first = register(event=event, details=adult(), actor=PUBLIC, now=BEFORE)
    held, _messages = register_child(sent, event)
    later = BEFORE + dt.timedelta(days=1)
    _withdrawn, messages = sent(lambda: withdraw(registration=first, actor=PUBLIC, now=later))
    held.refresh_from_db()
    assert held.status == S.REGISTERED and held.guardian_held_until == later + dt.timedelta(days=3)
    [message] = messages
    assert "대기" in message.body or "자리" in message.body


def test_the_command_releases_and_says_so(sent):
    event = make_event(capacity=1, start=timezone.now() + dt.timedelta(days=10))
    now = timezone.now() - dt.timedelta(days=4)
    held = register(event=event, details=child(), actor=PUBLIC, now=now, consent=ONLINE, by_organiser=True)
    register(event=event, details=adult(), actor=PUBLIC, now=now + dt.timedelta(hours=1), by_organiser=True)
    from io import StringIO
    out = StringIO()
    call_command("release_guardian_holds", stdout=out)
    assert f"registration {held.pk}" in out.getvalue() and "김하늘" not in out.getvalue()
    out = StringIO()
    call_command("release_guardian_holds", stdout=out)
    assert "No place to release." in out.getvalue()


def test_after_the_hold_but_before_anyone_needs_it_the_guardian_still_keeps_the_place(client, sent):
    event = open_event()
    url = guardian_url(sent, event, now=timezone.now() - dt.timedelta(days=4))
    response = client.get(url)
    assert response.context["state"] == "hold_over"
    client.post(url, {"name": "김보호", "agree": "on"})
    registration = Registration.objects.get()
    assert registration.status == S.REGISTERED and registration.guardian_check == Check.EMAIL


# --- the child's own pages ---------------------------------------------------------------------------------------


def test_the_child_s_form_and_page_say_what_the_guardian_does(client, sent):
    event = open_event()
    data = {"name": "김하늘", "contact": "010-1234-5678", "birth_year": "2018", "affiliation": "", "ranking_id": "",
            "guardian_name": "김보호", "guardian_contact": "parent@example.kr", "guardian_agrees": "on",
            "agree": "on", "notice_version": "1"}
    data["birth_year"] = str(event.festival.starts_on.year - 12)
    response, messages = sent(lambda: client.post(reverse("event-register", kwargs={
        "festival": event.festival.slug, "event": event.slug}), data, follow=True))
    page = text(response)
    assert "we sent a link to pa…@example.kr" in page and "Your place is held until" in page
    assert "Waiting for your parent's or guardian's agreement" in page
    assert len(messages) == 1


# --- settings ---------------------------------------------------------------------------------------------------


def test_the_festival_form_sets_the_hold(organiser_client, festival):
    from tests.tournament.test_festival_forms import festival_data

    url = reverse("manage-festival-edit", kwargs={"festival": festival.slug})
    for bad in ("0", "31", "abc", "-2"):
        response = organiser_client.post(url, festival_data(name=festival.name, slug=festival.slug)
                                         | {"guardian_hold_days": bad})
        assert response.status_code == 200 and "guardian_hold_days" in response.context["form"].errors
    response = organiser_client.post(url, festival_data(name=festival.name, slug=festival.slug)
                                     | {"guardian_hold_days": "5"})
    assert response.status_code == 302
    festival.refresh_from_db()
    assert festival.guardian_hold_days == 5


def test_erasure_takes_the_guardian_s_typed_name_and_kills_the_link(client, sent):
    from tournament.services.erasure import erase_player

    event = open_event()
    url = guardian_url(sent, event, now=timezone.now())
    client.post(url, {"name": "김보호자님", "agree": "on"})
    player = Registration.objects.get().player
    erase_player(player=player, hide_in_results=False, actor=PUBLIC)
    registration = Registration.objects.get()
    assert (registration.guardian_checked_name, registration.guardian_token_hash) == ("", "")
    assert registration.guardian_check == Check.EMAIL  # how and when stay: they name nobody
    assert client.get(url).status_code == 404


def test_an_adult_s_registration_has_no_guardian_link():
    registration = register(event=make_event(), details=adult(), actor=PUBLIC, now=BEFORE,
                            consent=Consent(by=By.PLAYER, how=How.ONLINE))
    assert registration.guardian_token_hash == "" and guardian.by_token("") is None


def test_the_player_page_of_an_unconfirmed_child_shows_the_desk_the_tick(client, sent):
    now = timezone.now()
    event = open_event(days_ahead=0, checkin_opens_at=now - dt.timedelta(minutes=5),
                       checkin_closes_at=now + dt.timedelta(hours=1), registration_opens_at=now - dt.timedelta(days=9),
                       registration_closes_at=now + dt.timedelta(minutes=30))
    registration, _m = register_child(sent, event, now=now, details=child("010-9876-5432"))
    client.force_login(make_staff(event.festival, DESK))
    page = text(client.get(registration.player.get_absolute_url()))
    assert 'name="signed"' in page and "guardian-signed" in page



@pytest.mark.django_db(transaction=True)
def test_the_guardian_agreeing_while_the_hold_is_released_loses_neither(on_postgres):
    import threading

    from django.db import connection

    event = make_event(capacity=1)
    with transaction.atomic():  # the e-mail goes after the commit: read its link from the outbox
        held = register(event=event, details=child(), actor=PUBLIC, now=BEFORE, consent=ONLINE)
    token = link_in(mail.outbox[-1]).split("/")[2]
    ready = register(event=event, details=adult(), actor=PUBLIC, now=BEFORE + dt.timedelta(hours=1))
    barrier, failures = threading.Barrier(2), []

    def racer(call):
        try:
            barrier.wait(timeout=10)
            call()
        except Exception as error:  # reported below; a thread's exception would otherwise vanish
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=racer, args=(call,)) for call in (
        lambda: guardian.agree_by_link(token=token, name="김보호", now=EVENT_DAY),
        lambda: release_expired_holds(now=EVENT_DAY))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    held.refresh_from_db(), ready.refresh_from_db()
    assert held.guardian_check == Check.EMAIL  # the agreement is kept, whoever went first
    # One place, one player in it: the child kept it (agreed first) or it went to the line (released first).
    assert sorted([held.status, ready.status]) == [S.REGISTERED, S.WAITLISTED]
    assert AuditEntry.objects.filter(action="registration.guardian_agreed").count() == 1
