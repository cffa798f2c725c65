"""Festivals and events made and edited in the app (DESIGN.md: organisers never need the Django admin): the
festival form, the guided event form and its presets (R8.1, R8.2, R10), editing after the start, the day's
timetable (R9) and the festival's time zone."""

import datetime as dt
import zoneinfo

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from django.utils import timezone

from scoring import clock
from tests.factories import make_event, make_festival, make_registration, make_staff, released_stage
from tournament.forms.festival import EventForm
from tournament.list_text import as_text
from tournament.models import AuditEntry, Event, Festival, Registration, StaffRole
from tournament.schedule import FINAL, OTHER, ROUND, schedule
from tournament.services.festivals import EVENT_FIELDS

pytestmark = pytest.mark.django_db

HONG_KONG = zoneinfo.ZoneInfo("Asia/Hong_Kong")
SEOUL = zoneinfo.ZoneInfo("Asia/Seoul")


# --- helpers -----------------------------------------------------------------------------------------------


def creator(username="maker") -> User:
    user = User.objects.create_user(username, password="pw-for-tests-only")
    user.user_permissions.add(Permission.objects.get(codename="organise_festivals"))
    return user


def festival_data(**fields) -> dict:
    data = {"name": "2030 부산 보드게임페스티벌", "slug": "", "starts_on": "2030-11-02", "ends_on": "",
            "venue": "월석아트홀", "contact": "kodkod@example.kr", "timezone": "Asia/Seoul", "languages": ["ko", "en"]}
    data.update(fields)
    return {k: v for k, v in data.items() if v is not None}


def posted(initial: dict, tz) -> dict:
    """A form's initial values as the browser posts them (ticked boxes "on", unticked ones left out)."""
    data = {}
    for name, value in initial.items():
        if value is True:
            data[name] = "on"
        elif value is False or value is None:
            continue
        elif isinstance(value, dt.datetime):
            data[name] = timezone.localtime(value, tz).strftime("%Y-%m-%dT%H:%M")
        elif isinstance(value, dt.time):
            data[name] = value.strftime("%H:%M")
        elif isinstance(value, dt.date):
            data[name] = value.isoformat()
        elif isinstance(value, list):
            data[name] = as_text(value)
        else:
            data[name] = str(value)
    return data


def new_event_url(festival) -> str:
    return reverse("manage-event-new", kwargs={"festival": festival.slug})


def event_url(name, event) -> str:
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug})


def edit_data(event, **changes) -> dict:
    return posted(EventForm.initial_for_event(event), event.festival.tzinfo) | changes


def text(response) -> str:
    return response.content.decode()


@pytest.fixture
def organiser_client(client, festival):
    client.force_login(make_staff(festival, "organiser"))
    return client


# --- creating a festival -----------------------------------------------------------------------------------


def test_a_permitted_user_creates_a_festival_becomes_its_organiser_and_it_is_audited(client):
    user = creator()
    client.force_login(user)
    assert reverse("manage-festival-new") in text(client.get(reverse("manage-home")))
    response = client.post(reverse("manage-festival-new"), festival_data())
    festival = Festival.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("manage-festival",
                                                                             kwargs={"festival": festival.slug})
    # A Korean name makes no slug: one is proposed from the year.
    assert festival.slug == "festival-2030" and festival.ends_on == dt.date(2030, 11, 2)
    assert festival.languages == ["ko", "en"]
    assert StaffRole.objects.filter(festival=festival, user=user, role="organiser").exists()
    created = AuditEntry.objects.get(action="festival.created")
    assert created.actor == user and created.after["name"] == "2030 부산 보드게임페스티벌"
    assert AuditEntry.objects.filter(action="staff.added", festival=festival).exists()
    # The same form again (a double tap) creates nothing more.
    again = client.post(reverse("manage-festival-new"), festival_data())
    assert again.status_code == 200 and Festival.objects.count() == 1
    assert "There is already a festival called" in text(again)


def test_creating_a_festival_needs_the_permission(client, festival):
    client.force_login(make_staff(festival, "organiser"))  # organising one festival is not enough
    assert reverse("manage-festival-new") not in text(client.get(reverse("manage-home")))
    assert client.get(reverse("manage-festival-new")).status_code == 403
    assert client.post(reverse("manage-festival-new"), festival_data(slug="mine")).status_code == 403
    assert not Festival.objects.filter(slug="mine").exists()
    client.logout()
    response = client.post(reverse("manage-festival-new"), festival_data(slug="mine"))
    assert response.status_code == 302 and "/login" in response["Location"]
    assert not Festival.objects.filter(slug="mine").exists()


@pytest.mark.parametrize("fields, where, message", [
    ({"slug": "부산"}, "slug", "Use only letters a–z, digits and hyphens"),
    ({"slug": "new-festival"}, "slug", "is used by the organiser's pages"),
    ({"slug": "busan-2030"}, "slug", "Another festival already uses"),
    ({"starts_on": "2030-11-02", "ends_on": "2030-11-01"}, "ends_on", "The last day cannot be before the first"),
    ({"starts_on": "2030-02-31"}, "starts_on", "Enter a valid date"),
    ({"starts_on": "9999-12-30", "ends_on": "9999-12-31"}, "starts_on", "between the years 2000 and 2100"),
    ({"languages": []}, "languages", "Offer at least one language"),
    ({"languages": ["ko", "xx"]}, "languages", "Select a valid choice"),
    ({"timezone": "Mars/Olympus"}, "timezone", "Select a valid choice"),
    ({"name": "\u202eevil"}, "name", "Please remove control characters"),
])
def test_festival_form_problems_are_shown_at_their_field_and_nothing_is_saved(client, festival, fields, where,
                                                                            message):
    client.force_login(creator())
    response = client.post(reverse("manage-festival-new"), festival_data(**fields))
    assert response.status_code == 200
    assert message in " ".join(str(e) for e in response.context["form"].errors[where])
    assert Festival.objects.count() == 1


def test_festival_form_speaks_korean_and_chinese(client, festival):
    client.force_login(creator())
    for language, words in (("ko", "대회"), ("zh-hant", "大賽")):
        client.cookies["django_language"] = language
        response = client.post(reverse("manage-festival-new"),
                               festival_data(starts_on="2030-11-02", ends_on="2030-11-01"))
        assert words in text(response)
        error = " ".join(response.context["form"].errors["ends_on"])
        assert "The last day" not in error and error


# --- editing a festival ------------------------------------------------------------------------------------


def test_only_the_festivals_organisers_edit_it(client, festival):
    url = reverse("manage-festival-edit", kwargs={"festival": festival.slug})
    data = festival_data(name="Changed", slug=festival.slug)
    for outsider in (make_staff(festival, "desk"), make_staff(make_festival(), "organiser"), creator("other")):
        client.force_login(outsider)
        assert client.get(url).status_code == 403
        assert client.post(url, data).status_code == 403
    festival.refresh_from_db()
    assert festival.name == "Busan 2030"


def test_organiser_edits_the_festival_and_the_log_keeps_before_and_after(organiser_client, festival):
    url = reverse("manage-festival-edit", kwargs={"festival": festival.slug})
    assert 'value="Busan 2030"' in text(organiser_client.get(url))
    response = organiser_client.post(url, festival_data(name="Busan Open 2030", slug=festival.slug,
                                                        starts_on="2030-11-02", ends_on="2030-11-03"))
    assert response.status_code == 302
    festival.refresh_from_db()
    assert (festival.name, festival.ends_on) == ("Busan Open 2030", dt.date(2030, 11, 3))
    entry = AuditEntry.objects.get(action="festival.updated")
    assert (entry.before["name"], entry.before["ends_on"]) == ("Busan 2030", "2030-11-02")
    assert (entry.after["name"], entry.after["ends_on"]) == ("Busan Open 2030", "2030-11-03")
    assert "slug" not in entry.after and "timezone" not in entry.after  # only what changed


def test_new_days_must_still_hold_every_event(organiser_client, festival, event):
    url = reverse("manage-festival-edit", kwargs={"festival": festival.slug})
    response = organiser_client.post(url, festival_data(name=festival.name, slug=festival.slug,
                                                        starts_on="2030-11-05"))
    assert "outside these days" in " ".join(response.context["form"].errors["starts_on"])


def test_a_new_time_zone_keeps_the_events_clock_times(organiser_client, festival, event):
    """Created in Seoul's zone by mistake: moved to Hong Kong, 11:00 stays 11:00 (now Hong Kong time)."""
    url = reverse("manage-festival-edit", kwargs={"festival": festival.slug})
    organiser_client.post(url, festival_data(name=festival.name, slug=festival.slug, timezone="Asia/Hong_Kong"))
    event.refresh_from_db()
    assert timezone.localtime(event.starts_at, HONG_KONG).time() == dt.time(11, 0)
    assert timezone.localtime(event.checkin_opens_at, HONG_KONG).time() == dt.time(10, 30)
    assert AuditEntry.objects.filter(action="event.time_zone", event=event).exists()


# --- the guided event form ---------------------------------------------------------------------------------


def test_adding_an_event_starts_with_the_choice_of_a_preset_without_javascript(organiser_client, festival):
    page = text(organiser_client.get(new_event_url(festival)))
    for preset in ("busan", "hk", "word"):
        assert f'name="preset" value="{preset}"' in page
    refused = organiser_client.get(new_event_url(festival), {"preset": "<script>"})
    assert refused.status_code == 200 and "Choose one of the kinds of event." in text(refused)


@pytest.mark.parametrize("preset, format, game, ruleset, plan", [
    ("busan", "busan", "classic", "wrc-2014", "128 → 64 → 32 → final 4"),
    ("hk", "hk", "classic", "hk-2016", "64 players at 16 tables, 3 games"),
    ("word", "busan", "word", "casual", "32 → final 4"),
])
def test_each_preset_makes_a_complete_valid_event_in_two_taps(organiser_client, festival, preset, format, game,
                                                             ruleset, plan):
    page = organiser_client.get(new_event_url(festival), {"preset": preset})
    assert plan in text(page)
    form = page.context["form"]
    response = organiser_client.post(new_event_url(festival), posted(form.initial, festival.tzinfo))
    event = Event.objects.get(festival=festival)
    assert response.status_code == 302 and response["Location"] == event_url("manage-event", event)
    event.full_clean()
    assert (event.format, event.game, event.ruleset) == (format, game, ruleset)
    assert timezone.localtime(event.starts_at, SEOUL).date() == festival.starts_on
    assert event.checkin_opens_at < event.checkin_closes_at <= event.starts_at < event.ends_at
    assert event.registration_closes_at < event.starts_at and event.withdrawal_deadline < event.starts_at
    assert schedule(event)[-1].ends <= event.ends_at  # the generated timetable fits the event
    created = AuditEntry.objects.get(action="event.created")
    assert set(created.after) == set(EVENT_FIELDS)


def test_busan_for_128_players_proposes_three_rounds_and_the_r9_times(organiser_client, festival):
    form = organiser_client.get(new_event_url(festival), {"preset": "busan"}).context["form"]
    assert form.initial["stage_games"] == [3, 3, 3] and form.initial["expected_players"] == 128
    # R9: check-in 10:30–11:00, play from 11:00; registration closes the day before, withdrawal two days before.
    assert (form.initial["checkin_opens"], form.initial["checkin_closes"], form.initial["starts"]) == (
        dt.time(10, 30), dt.time(11), dt.time(11))
    assert timezone.localtime(form.initial["registration_closes_at"], SEOUL).date() == dt.date(2030, 11, 1)
    assert timezone.localtime(form.initial["withdrawal_deadline"], SEOUL).date() == dt.date(2030, 10, 31)


def test_propose_fills_the_plan_and_times_again_from_the_players_and_the_start(organiser_client, festival):
    form = organiser_client.get(new_event_url(festival), {"preset": "busan"}).context["form"]
    data = posted(form.initial, festival.tzinfo) | {"expected_players": "64", "starts": "13:00", "propose": "1"}
    response = organiser_client.post(new_event_url(festival), data)
    assert not Event.objects.exists()
    proposed = response.context["form"]
    assert proposed.initial["stage_games"] == "3,3" and "64 → 32 → final 4" in text(response)
    assert (proposed.initial["checkin_opens"], proposed.initial["checkin_closes"]) == (dt.time(12, 30), dt.time(13))
    # Nonsense typed anywhere is kept as typed, never a crash.
    hostile = data | {"expected_players": "1e309", "starts": "25:99", "day": "x", "stage_games": "[]"}
    assert organiser_client.post(new_event_url(festival), hostile).status_code == 200
    # The last day a date can hold: a timetable from there would run past it (the fuzzer found this).
    last_day = data | {"day": "9999-12-31", "starts": "23:59", "final_games": "7"}
    assert organiser_client.post(new_event_url(festival), last_day).status_code == 200


@pytest.mark.parametrize("changes, where, message", [
    ({"ends": "10:00"}, "ends", "The event must end after it starts."),
    ({"checkin_closes": "10:00"}, "checkin_closes", "Check-in must close after it opens."),
    ({"slug": "edit"}, "slug", "is used by the organiser's pages"),
    ({"slug": "open"}, "slug", "Another event of this festival already uses"),
    ({"name": "open"}, "name", "already has an event called"),
    ({"day": "2030-11-09"}, "day", "Choose a day of the festival"),
    ({"stage_games": "3,,3"}, "stage_games", "Write the games of each round"),
    ({"tiebreaks": "wins,luck"}, "tiebreaks", "Use only: wins, points"),
    ({"capacity": "0"}, "capacity", "greater than or equal to 2"),
    ({"registration_opens_at": "2030-11-02T25:00"}, "registration_opens_at", "Enter a valid date/time"),
    ({"day": "9999-12-31"}, "day", "Enter a date between the years 2000 and 2100."),
    ({"withdrawal_deadline": "0001-01-01T00:00"}, "withdrawal_deadline", "between the years 2000 and 2100"),
])
def test_event_form_problems_are_shown_at_their_field(organiser_client, festival, event, changes, where, message):
    form = organiser_client.get(new_event_url(festival), {"preset": "busan"}).context["form"]
    response = organiser_client.post(new_event_url(festival), posted(form.initial, festival.tzinfo) | changes)
    assert response.status_code == 200
    assert message in " ".join(str(e) for e in response.context["form"].errors[where])
    assert Event.objects.filter(festival=festival).count() == 1


def test_times_are_read_and_shown_in_the_festivals_time_zone(client):
    """A Hong Kong festival's 10:20 is 10:20 in Hong Kong, whatever the server's zone (Seoul)."""
    festival = make_festival(timezone="Asia/Hong_Kong")
    client.force_login(make_staff(festival, "organiser"))
    form = client.get(new_event_url(festival), {"preset": "hk"}).context["form"]
    assert form.initial["starts"] == dt.time(10, 20)
    client.post(new_event_url(festival), posted(form.initial, HONG_KONG))
    event = Event.objects.get(festival=festival)
    assert event.starts_at == dt.datetime(2030, 11, 2, 10, 20, tzinfo=HONG_KONG)
    assert event.checkin_closes_at == dt.datetime(2030, 11, 2, 10, 10, tzinfo=HONG_KONG)
    page = text(client.get(event_url("manage-event-edit", event)))
    assert 'name="starts" value="10:20"' in page and 'name="checkin_opens" value="09:50"' in page


# --- editing an event --------------------------------------------------------------------------------------


def test_only_the_festivals_organisers_edit_its_events(client, festival, event):
    for outsider in (make_staff(festival, "chief referee"), make_staff(make_festival(), "organiser")):
        client.force_login(outsider)
        for name in ("manage-event-edit", "manage-event-schedule"):
            assert client.get(event_url(name, event)).status_code == 403
            assert client.post(event_url(name, event), edit_data(event, name="Taken")).status_code == 403
    event.refresh_from_db()
    assert event.name == "Open"


def test_organiser_edits_an_event_and_the_log_keeps_the_changed_fields(organiser_client, event):
    response = organiser_client.post(event_url("manage-event-edit", event),
                                     edit_data(event, name="Open 2030", public_scores=""))
    assert response.status_code == 302
    event.refresh_from_db()
    assert (event.name, event.public_scores) == ("Open 2030", False)
    entry = AuditEntry.objects.get(action="event.updated")
    assert entry.before == {"name": "Open", "public_scores": True}
    assert entry.after == {"name": "Open 2030", "public_scores": False}
    assert "Event details changed" in text(organiser_client.get(event_url("manage-event", event)))
    # The same form again changes nothing and logs nothing.
    organiser_client.post(event_url("manage-event-edit", event), edit_data(event))
    assert AuditEntry.objects.filter(action="event.updated").count() == 1


def test_after_the_start_what_decides_results_is_refused_with_the_reason_and_the_rest_is_allowed(client):
    event = released_stage(8).event
    client.force_login(make_staff(event.festival, "organiser"))
    url = event_url("manage-event-edit", event)
    assert "This event has started" in text(client.get(url))
    refused = client.post(url, edit_data(event, format="hk", ruleset="casual", stage_games="2,2",
                                         tiebreaks="points,wins"))
    errors = refused.context["form"].errors
    for field in ("format", "ruleset", "stage_games", "tiebreaks"):
        assert "the event has started (Round 1 is drawn)" in " ".join(errors[field]), field
    event.refresh_from_db()
    assert (event.format, event.ruleset, event.stage_games) == ("busan", "wrc-2014", [3, 3, 3])
    assert client.post(url, edit_data(event, name="Renamed", ends="20:00")).status_code == 302
    event.refresh_from_db()
    assert event.name == "Renamed"


def test_fewer_places_than_players_holding_one_is_refused_and_more_places_move_the_waiting_list_up(
        organiser_client, event):
    for _ in range(3):
        make_registration(event)
    waiting = make_registration(event, status=Registration.Status.WAITLISTED)
    event.capacity = 3
    event.save()
    refused = organiser_client.post(event_url("manage-event-edit", event), edit_data(event, capacity="2"))
    assert "3 players already hold a place" in " ".join(refused.context["form"].errors["capacity"])
    organiser_client.post(event_url("manage-event-edit", event), edit_data(event, capacity="5"))
    waiting.refresh_from_db()
    assert waiting.status == Registration.Status.REGISTERED
    assert AuditEntry.objects.filter(action="registration.promoted", target_id=waiting.pk).exists()


# --- the day's timetable (R9) ------------------------------------------------------------------------------


def rows(event, client) -> dict:
    """The schedule editor's form as the browser posts it."""
    formset = client.get(event_url("manage-event-schedule", event)).context["formset"]
    data = {f"slot-{key}": value for key, value in formset.management_form.initial.items()}
    for index, form in enumerate(formset.forms):
        for name, value in form.initial.items():
            if value not in (None, ""):
                data[f"slot-{index}-{name}"] = value.strftime("%H:%M") if isinstance(value, dt.time) else str(value)
    return data


def test_the_schedule_is_generated_then_edited_and_the_clock_follows(organiser_client, event):
    """Busan R9: rounds of 70 minutes after a 10-minute draw; the organiser adds a lunch break and moves
    round 2 and the final."""
    assert [s.kind for s in schedule(event)] == ["checkin", ROUND, ROUND, ROUND, FINAL]
    data = rows(event, organiser_client)
    assert data["slot-0-starts"] == "11:10" and data["slot-3-starts"] == "15:10"
    data |= {"slot-1-starts": "13:00", "slot-1-ends": "14:10", "slot-2-starts": "14:20", "slot-2-ends": "15:30",
             "slot-3-starts": "15:40", "slot-3-ends": "16:10",
             "slot-4-label": "점심 식사", "slot-4-starts": "12:20", "slot-4-ends": "13:00"}
    response = organiser_client.post(event_url("manage-event-schedule", event), data)
    assert response.status_code == 302
    event.refresh_from_db()
    slots = schedule(event)
    assert [(s.kind, s.label) for s in slots][3] == (ROUND, "Round 2: 3 games")
    assert (OTHER, "점심 식사") in [(s.kind, s.label) for s in slots]
    seoul = dt.datetime(2030, 11, 2, tzinfo=SEOUL)
    round_2 = clock.planned_start(slots, format="busan", kind=clock.ROUND, number=2)
    assert round_2 == seoul.replace(hour=13)
    assert clock.planned_start(slots, format="busan", kind=clock.FINAL, number=4) == seoul.replace(hour=15, minute=40)
    assert "점심 식사" in text(organiser_client.get(reverse("event", kwargs={"festival": event.festival.slug,
                                                                      "event": event.slug})))
    entry = AuditEntry.objects.get(action="event.schedule_edited")
    assert entry.before == {"timetable": []} and len(entry.after["timetable"]) == 5
    # One button makes it again from the plan.
    organiser_client.post(event_url("manage-event-schedule", event), {"action": "generate"})
    event.refresh_from_db()
    assert event.timetable == [] and schedule(event)[2].starts == seoul.replace(hour=12, minute=30)


@pytest.mark.parametrize("changes, where, message", [
    ({"slot-0-starts": "10:50"}, "starts", "Outside the event's times (11:00–18:00)"),
    ({"slot-3-ends": "18:30"}, "ends", "Outside the event's times"),
    ({"slot-1-starts": "14:30", "slot-1-ends": "14:30"}, "ends", "The end must be after the start."),
    ({"slot-1-ends": ""}, "ends", "Give the start and the end"),
    ({"slot-4-label": "Lunch"}, "starts", "Give the start and the end"),
    ({"slot-4-starts": "12:00", "slot-4-ends": "12:30"}, "label", "Say what happens in this slot."),
    ({"slot-0-remove": "on"}, "remove", "Only added slots can be removed."),
    ({"slot-0-starts": "25:00"}, "starts", "Enter a valid time"),
    # "²" is a digit to str.isdigit, not a number int() reads: the row's label once broke on it
    ({"slot-1-number": "²", "slot-0-starts": "25:00"}, "starts", "Enter a valid time"),
])
def test_schedule_slots_outside_the_event_or_empty_are_refused(organiser_client, event, changes, where, message):
    data = rows(event, organiser_client) | changes
    response = organiser_client.post(event_url("manage-event-schedule", event), data)
    assert response.status_code == 200
    errors = [" ".join(form.errors.get(where, [])) for form in response.context["formset"].forms]
    assert any(message in error for error in errors), errors
    event.refresh_from_db()
    assert event.timetable == []


def test_the_hong_kong_briefing_may_come_before_the_start_but_nothing_else_may(organiser_client, festival):
    event = make_event(festival, format="hk", start=dt.datetime(2030, 11, 2, 10, 20, tzinfo=SEOUL), hours=2,
                       checkin_opens_at=dt.datetime(2030, 11, 2, 9, 50, tzinfo=SEOUL),
                       checkin_closes_at=dt.datetime(2030, 11, 2, 10, 10, tzinfo=SEOUL))
    data = rows(event, organiser_client)
    assert (data["slot-0-kind"], data["slot-0-starts"], data["slot-0-ends"]) == ("briefing", "10:10", "10:20")
    assert organiser_client.post(event_url("manage-event-schedule", event), data).status_code == 302
    data["slot-3-label"], data["slot-3-starts"], data["slot-3-ends"] = "Photo", "10:00", "10:10"
    response = organiser_client.post(event_url("manage-event-schedule", event), data)
    assert "Outside the event's times" in " ".join(response.context["formset"].forms[3].errors["starts"])


def test_a_new_start_moves_an_edited_schedule_and_a_new_plan_makes_it_again(organiser_client, event):
    data = rows(event, organiser_client) | {"slot-4-label": "Prizes", "slot-4-starts": "16:00",
                                            "slot-4-ends": "16:30"}
    organiser_client.post(event_url("manage-event-schedule", event), data)
    event.refresh_from_db()
    organiser_client.post(event_url("manage-event-edit", event),
                          edit_data(event, starts="11:30", checkin_opens="11:00", checkin_closes="11:30"))
    event.refresh_from_db()
    prizes = next(s for s in schedule(event) if s.kind == OTHER)
    assert timezone.localtime(prizes.starts, SEOUL).time() == dt.time(16, 30)
    response = organiser_client.post(event_url("manage-event-edit", event), edit_data(event, ends="16:40"))
    assert "The edited schedule no longer fits" in " ".join(response.context["form"].errors["ends"])
    response = organiser_client.post(event_url("manage-event-edit", event), edit_data(event, stage_games="3,3"),
                                     follow=True)
    event.refresh_from_db()
    assert event.timetable == [] and "generated again" in text(response)


# --- the festival page -------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [2, 40])
def test_festival_page_lists_events_in_time_order_in_constant_queries(organiser_client, festival, size,
                                                                     django_assert_max_num_queries):
    day = dt.datetime(2030, 11, 2, tzinfo=SEOUL)
    for hour in reversed(range(size)):
        make_event(festival, name=f"At {hour:02d}", start=day + dt.timedelta(minutes=15 * hour), hours=1)
    with django_assert_max_num_queries(6):
        response = organiser_client.get(reverse("manage-festival", kwargs={"festival": festival.slug}))
    names = [e.name for e in response.context["events"]]
    assert names == sorted(names)


def test_an_edited_schedule_and_the_under_15_rule_move_with_the_event_export(organiser_client, event):
    """docs/export.md: a file read back keeps them; a file written before they existed gets R9's defaults."""
    import json

    from scoring.exports import event_json
    from scoring.services.import_event import import_event
    from tournament.services.audit import Actor

    data = rows(event, organiser_client) | {"slot-4-label": "Prizes", "slot-4-starts": "17:00",
                                            "slot-4-ends": "17:30"}
    organiser_client.post(event_url("manage-event-schedule", event), data)
    organiser_client.post(event_url("manage-event-edit", event), edit_data(event, under_15_no_points=""))
    event.refresh_from_db()
    assert event.timetable and not event.under_15_no_points
    document = json.loads(event_json(event))
    moved = import_event(document=json.dumps(document), festival_slug="moved", actor=Actor(label="test")).event
    assert moved.timetable == event.timetable and not moved.under_15_no_points
    for name in ("timetable", "under_15_no_points"):
        del document["event"][name]
    older = import_event(document=json.dumps(document), festival_slug="older", actor=Actor(label="test")).event
    assert older.timetable == [] and older.under_15_no_points


def test_an_event_already_outside_the_festivals_days_does_not_block_other_edits(organiser_client, festival):
    """An imported event may lie outside the festival's days: renaming the festival or the event still works."""
    stray = make_event(festival, start=dt.datetime(2030, 12, 24, 11, tzinfo=SEOUL), name="Stray")
    url = reverse("manage-festival-edit", kwargs={"festival": festival.slug})
    assert organiser_client.post(url, festival_data(name="Renamed", slug=festival.slug)).status_code == 302
    assert organiser_client.post(event_url("manage-event-edit", stray),
                                 edit_data(stray, name="Stray 2")).status_code == 302
    stray.refresh_from_db()
    assert stray.name == "Stray 2"


@pytest.mark.parametrize("zone, age", [("Asia/Hong_Kong", 18), ("Asia/Seoul", 14)])
def test_a_new_festival_s_guardian_age_follows_its_country_when_left_empty(client, zone, age):
    """Hong Kong schools ask a parent for every pupil; Korea's law says 14 (PIPA art. 22-2)."""
    client.force_login(creator())
    client.post(reverse("manage-festival-new"), festival_data(timezone=zone))
    assert Festival.objects.get().guardian_age == age
    client.post(reverse("manage-festival-new"), festival_data(name="Chosen", slug="chosen", timezone=zone,
                                                             guardian_age="16"))
    assert Festival.objects.get(slug="chosen").guardian_age == 16


def test_the_standard_notice_needs_someone_to_answer_requests_after_the_day(client):
    """Without a contact the standard notice could name nobody for access and correction requests."""
    client.force_login(creator())
    response = client.post(reverse("manage-festival-new"), festival_data(contact=""))
    assert response.status_code == 200 and not Festival.objects.exists()
    assert "give a contact" in text(response)
    client.post(reverse("manage-festival-new"), festival_data(contact="", privacy_notice="우리 안내문"))
    assert Festival.objects.get().privacy_notice == "우리 안내문"


@pytest.mark.parametrize("guardian_age, names", [(18, "masked"), (14, "full")])
def test_where_every_pupil_needs_a_guardian_a_new_event_masks_names(organiser_client, festival, guardian_age, names):
    """A Hong Kong school competition (guardian's consent for every pupil under 18) shows children's names
    masked on public pages unless the organiser chooses otherwise."""
    Festival.objects.filter(pk=festival.pk).update(guardian_age=guardian_age)
    form = organiser_client.get(new_event_url(festival), {"preset": "hk"}).context["form"]
    assert form.initial["public_names"] == names
