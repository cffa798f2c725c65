"""The public registration form (RULES.md R9): validation, outcomes, privacy, closed, rate limit."""

import datetime as dt
import time

import pytest
from django.conf import settings
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape
from django_ratelimit.core import get_usage

from tests.factories import make_festival, make_player, make_registration, open_event
from tournament.models import Player, Registration
from tournament.models.registration import contact_key
from tournament.views.registration import (
    ADDRESS_GROUP,
    CONTACT_GROUP,
    CONTACT_REFUSAL,
    PLAYER_TOKENS_SESSION_KEY,
    contact_refusal,
)

pytestmark = pytest.mark.django_db

VALID = {"name": "김민준", "contact": "minjun@example.kr", "birth_year": "2010", "affiliation": "", "ranking_id": "",
         "agree": "on", "notice_version": "1"}


def register_url(event):
    return reverse("event-register", kwargs={"festival": event.festival.slug, "event": event.slug})


def post(client, event, **overrides):
    return client.post(register_url(event), {**VALID, **overrides})


def page_messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


# --- the form -----------------------------------------------------------------------------------------


def test_the_form_explains_the_birth_year_is_for_the_under_15_ranking_rule(client):
    response = client.get(register_url(open_event()))
    assert response.status_code == 200
    assert "under 15" in response.content.decode()
    assert "R9" in response.content.decode()


@pytest.mark.parametrize(
    "name",
    ["김민준", "陳大文", "Anna-Lena O'Brien", "Nguyễn Văn An", "  Kim  Minjun  "],
    ids=["hangul", "chinese", "latin", "vietnamese", "spaces"],
)
def test_names_in_any_script_are_accepted_trimmed(client, name):
    event = open_event()
    response = post(client, event, name=name)
    assert response.status_code == 302
    assert Player.objects.get().name == " ".join(name.split())


@pytest.mark.parametrize(
    "name",
    ["", "   ", "x" * 101, "Kim\nMinjun", "Kim\tMinjun", "Kim\x00", "Kim\u202eLee", "12345", "---"],
    ids=["empty", "blank", "too-long", "newline", "tab", "nul", "bidi-override", "digits-only", "no-letters"],
)
def test_bad_names_are_refused_and_nothing_is_saved(client, name):
    event = open_event()
    response = post(client, event, name=name)
    assert response.status_code == 200
    assert "name" in response.context["form"].errors
    assert not Player.objects.exists()


@pytest.mark.parametrize(
    "contact",
    ["+82 10-1234-5678", "(02) 2345 6789", "010 1234 5678", "０１０－１２３４－５６７８", "chan.taiman@school.edu.hk"],
    ids=["international", "parentheses", "plain", "full-width", "email"],
)
def test_contacts_are_an_email_address_or_a_phone_number(client, contact):
    response = post(client, open_event(), contact=contact)
    assert response.status_code == 302
    assert Player.objects.count() == 1


@pytest.mark.parametrize(
    "contact",
    ["", "minjun@", "@example.kr", "minjun@@example.kr", "123456", "1" * 16, "call me", "010-1234-5678 ext", "+82 10 <b>"],
    ids=["empty", "no-domain", "no-user", "double-at", "six-digits", "sixteen-digits", "words", "trailing-word", "markup"],
)
def test_bad_contacts_are_refused(client, contact):
    response = post(client, open_event(), contact=contact)
    assert response.status_code == 200
    assert "contact" in response.context["form"].errors
    assert not Player.objects.exists()


def test_birth_years_from_1900_to_this_year_are_accepted(client):
    festival = make_festival()
    this_year = timezone.localdate().year
    for n, year in enumerate([1900, this_year]):
        event = open_event(festival, days_ahead=10 + n)
        # This year's baby registers with a guardian's consent (services.consent.needs_guardian).
        guardian = {"guardian_name": "Parent", "guardian_contact": "parent@example.org", "guardian_agrees": "on"}
        assert post(client, event, birth_year=str(year), contact=f"p{n}@example.org", **guardian).status_code == 302
    assert sorted(Player.objects.values_list("birth_year", flat=True)) == [1900, this_year]


@pytest.mark.parametrize(
    "birth_year",
    ["", "1899", "NEXT_YEAR", "99999999999999999999999999", "-2010", "2010.5", "twenty ten"],
    ids=["missing", "too-old", "future", "huge", "negative", "fraction", "words"],
)
def test_bad_birth_years_are_refused(client, birth_year):
    if birth_year == "NEXT_YEAR":
        birth_year = str(timezone.localdate().year + 1)
    response = post(client, open_event(), birth_year=birth_year)
    assert response.status_code == 200
    assert "birth_year" in response.context["form"].errors
    assert not Player.objects.exists()


def test_a_post_missing_every_field_shows_errors_and_saves_nothing(client):
    response = client.post(register_url(open_event()), {})
    assert response.status_code == 200
    # The missing notice version is said on the form as a whole: its field is hidden.
    assert set(response.context["form"].errors) == {"name", "contact", "birth_year", "agree", "__all__"}
    assert not Player.objects.exists()


def test_overlong_optional_fields_are_refused(client):
    response = post(client, open_event(), affiliation="a" * 201, ranking_id="9" * 41)
    assert set(response.context["form"].errors) == {"affiliation", "ranking_id"}
    assert not Player.objects.exists()


def test_control_characters_in_the_optional_fields_are_refused(client):
    response = post(client, open_event(), affiliation="Busan\nclub", ranking_id="KR\x071")
    assert set(response.context["form"].errors) == {"affiliation", "ranking_id"}
    assert not Player.objects.exists()


def test_markup_in_an_accepted_name_is_stored_as_typed_and_shown_escaped(client):
    response = post(client, open_event(), name="<b>Kim</b>")
    page = client.get(response["Location"]).content.decode()
    assert Player.objects.get().name == "<b>Kim</b>"
    assert "<b>Kim</b>" not in page
    assert "&lt;b&gt;Kim&lt;/b&gt;" in page


def test_markup_in_a_refused_name_is_shown_escaped(client):
    response = post(client, open_event(), name="<script>alert(1)</script>", contact="bad")
    body = response.content.decode()
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


# --- outcomes ---------------------------------------------------------------------------------------------


def test_a_new_player_is_registered_and_sent_to_their_personal_page(client):
    event = open_event()
    response = post(client, event, affiliation="부산 중앙중학교", ranking_id="KR-1234")
    player = Player.objects.get()
    assert response.status_code == 302
    assert response["Location"] == player.get_absolute_url()
    assert (player.affiliation, player.ranking_id, player.birth_year) == ("부산 중앙중학교", "KR-1234", 2010)
    assert Registration.objects.get().status == Registration.Status.REGISTERED
    assert client.session[PLAYER_TOKENS_SESSION_KEY] == [player.token]
    page = client.get(response["Location"])
    assert "You are registered." in page_messages(page)


def test_when_the_event_is_full_the_player_joins_the_waiting_list_and_sees_the_position(client):
    event = open_event(capacity=1)
    make_registration(event)
    make_registration(event, status=Registration.Status.WAITLISTED)

    response = post(client, event)
    page = client.get(response["Location"])

    assert Registration.objects.get(player__name="김민준").status == Registration.Status.WAITLISTED
    assert any("waiting list at position 2" in m for m in page_messages(page))


def test_a_time_clash_is_refused_naming_the_clashing_event(client):
    festival = make_festival()
    first = open_event(festival, name="Classic open")
    clashing = open_event(festival, name="Junior cup")
    assert post(client, first).status_code == 302

    response = post(client, clashing)

    assert response.status_code == 200
    assert "Classic open" in " ".join(response.context["form"].non_field_errors())
    assert not Registration.objects.filter(event=clashing).exists()


def test_the_same_person_registering_twice_for_one_event_is_refused(client):
    event = open_event()
    post(client, event)

    response = post(client, event, name=" 김민준 ", contact="MINJUN@example.kr")

    assert response.status_code == 200
    assert "already registered" in " ".join(response.context["form"].non_field_errors())
    assert Registration.objects.count() == 1


@pytest.mark.parametrize("when", ["not-yet", "closed"])
def test_closed_registration_offers_no_form_and_refuses_a_post(client, when):
    now = timezone.now()
    if when == "not-yet":
        event = open_event(days_ahead=40)  # registration opens 30 days before the start
    else:
        event = open_event(registration_closes_at=now - dt.timedelta(hours=1))

    page = client.get(register_url(event))
    assert page.status_code == 200
    assert page.context.get("form") is None
    assert 'name="birth_year"' not in page.content.decode()

    response = post(client, event)
    assert response.status_code == 200
    assert any("not open" in m for m in page_messages(response))
    assert not Player.objects.exists()


def test_unknown_festival_or_event_is_a_404(client):
    event = open_event()
    assert client.get(reverse("event-register", kwargs={"festival": "nope", "event": event.slug})).status_code == 404
    other = make_festival()
    url = reverse("event-register", kwargs={"festival": other.slug, "event": event.slug})
    assert client.post(url, VALID).status_code == 404
    assert not Player.objects.exists()


def test_the_event_page_offers_registration_only_while_it_is_open(client):
    event = open_event()
    closed = open_event(days_ahead=40)
    assert register_url(event) in client.get(event.get_absolute_url()).content.decode()
    assert register_url(closed) not in client.get(closed.get_absolute_url()).content.decode()


# --- privacy of the personal link ------------------------------------------------------------------------


def test_typing_an_existing_player_s_details_makes_a_new_player_and_never_shows_their_link(client):
    """More in test_public_identity.py: the answer is the same whether or not the person exists."""
    festival = make_festival()
    event = open_event(festival)
    existing = make_player(festival, name="김민준", contact="minjun@example.kr")
    make_registration(event, existing)

    response = post(client, event)

    new = Player.objects.exclude(pk=existing.pk).get()
    assert response.status_code == 302 and response["Location"] == new.get_absolute_url()
    assert existing.token not in client.get(response["Location"]).content.decode()
    assert client.session[PLAYER_TOKENS_SESSION_KEY] == [new.token]
    assert list(Registration.objects.filter(event=event).values_list("player", flat=True)) == [existing.pk, new.pk]


def test_the_browser_that_registered_enters_another_event_as_a_new_player_on_its_own_page(client):
    festival = make_festival()
    first = open_event(festival)
    second = open_event(festival, days_ahead=11)
    post(client, first)

    response = post(client, second)

    second_player = Player.objects.get(registrations__event=second)
    assert response["Location"] == second_player.get_absolute_url()
    assert client.session[PLAYER_TOKENS_SESSION_KEY] == [second_player.token,
                                                          Player.objects.get(registrations__event=first).token]


# --- flood protection -------------------------------------------------------------------------------------
# Per address, room for a class or a club registering together on one school network; per contact, a few a
# minute (config/settings/base.py, tournament/views/registration.py).

def _wait_out_a_nearly_finished_window(client_ip="127.0.0.1", contact=None):
    """django-ratelimit counts per fixed window; a test's quick POSTs must not straddle its end."""
    request = RequestFactory().post("/", {"contact": contact or ""}, REMOTE_ADDR=client_ip)
    usages = [get_usage(request, group=ADDRESS_GROUP, key="ip", rate=settings.REGISTRATION_RATE, method="POST")]
    if contact:
        usages.append(get_usage(request, group=CONTACT_GROUP, key=lambda _group, _request: contact_key(contact),
                                rate=settings.REGISTRATION_CONTACT_RATE, method="POST"))
    time_left = min(usage["time_left"] for usage in usages)
    if time_left < 5:
        time.sleep(time_left + 1)


def person(n: int) -> dict:
    return {"name": f"학생 {n}", "contact": f"student{n}@school.example"}


def test_sixteen_people_registering_from_one_connection_are_all_registered(client):
    """A teacher, a club's secretary or a school's network: one address, sixteen different people."""
    event = open_event()
    _wait_out_a_nearly_finished_window()
    statuses = [post(client, event, **person(n)).status_code for n in range(16)]
    assert statuses == [302] * 16
    assert Registration.objects.filter(event=event).count() == 16


def test_a_flood_from_one_address_is_refused_after_forty_in_ten_minutes_saying_what_to_do(client):
    event = open_event()
    _wait_out_a_nearly_finished_window()
    statuses = [post(client, event, name="", **{"contact": f"c{n}@example.org"}).status_code for n in range(40)]
    refused = post(client, event, **person(99))

    assert statuses == [200] * 40  # the form's answer (a name is missing): counted, nothing saved
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "not saved" in page and "wait" in page and "send the list to the organiser" in page
    assert 'value="student99@school.example"' in page  # what they typed is still in the form
    assert not Player.objects.exists()


def test_one_contact_hammering_is_refused_whatever_the_address():
    from django.test import Client

    event = open_event()
    contact = "same.person@example.org"
    _wait_out_a_nearly_finished_window(contact=contact)
    statuses = [Client(REMOTE_ADDR=f"192.0.2.{n}").post(register_url(event), {**VALID, "contact": contact}).status_code
                for n in range(1, 7)]

    assert statuses == [302] * 5 + [429]
    assert Player.objects.filter(contact=contact).count() == 5
    # Typed another way (capitals), it is the same contact; and it does not hold up anyone else.
    again = Client(REMOTE_ADDR="192.0.2.7").post(register_url(event), {**VALID, "contact": contact.upper()})
    assert again.status_code == 429 and "this contact" in again.content.decode()
    assert Client(REMOTE_ADDR="192.0.2.8").post(register_url(event), {**VALID, **person(1)}).status_code == 302


@pytest.mark.parametrize("language", ["ko", "zh-hant"])
def test_the_refusal_is_in_the_visitors_language(client, language):
    event = open_event()
    contact = "same.person@example.org"
    _wait_out_a_nearly_finished_window(contact=contact)
    for n in range(6):
        answer = client.post(register_url(event), {**VALID, "name": f"김민준 {n}", "contact": contact},
                             HTTP_ACCEPT_LANGUAGE=language)
    assert answer.status_code == 429
    with translation.override(language):
        said = contact_refusal()
    assert said != CONTACT_REFUSAL  # translated (locale/*/django.po)
    assert escape(said) in answer.content.decode()


def test_the_rate_limit_does_not_count_page_views(client):
    event = open_event()
    for _ in range(12):
        client.get(register_url(event))
    assert post(client, event).status_code == 302
