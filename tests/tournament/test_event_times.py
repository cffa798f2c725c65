"""An event's times as the organiser's form proposes and saves them: proposals start from now, times in the
wrong order are refused, and times already past are saved only when the organiser says they are meant (R9:
registration, the withdrawal deadline, check-in and play come in that order).

The clock is fixed (tests.clock): the festival's one day is 2 November 2030 in Seoul; "now" is 17:37 that day
unless a test says otherwise.
"""

import datetime as dt
import zoneinfo

import pytest
from django.utils import timezone

from tests.clock import fixed_clock
from tests.factories import make_event, make_festival, make_staff
from tests.tournament.test_festival_forms import edit_data, event_url, new_event_url, posted, text
from tournament.forms.festival import EventForm
from tournament.models import AuditEntry, Event
from tournament.services import festivals as service
from tournament.services.audit import Actor

pytestmark = pytest.mark.django_db

SEOUL = zoneinfo.ZoneInfo("Asia/Seoul")
DAY = dt.date(2030, 11, 2)
EVENING = dt.datetime(2030, 11, 2, 17, 37, tzinfo=SEOUL)  # the newcomer made the Busan preset at 17:37


def at(hour, minute=0, day=DAY) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=SEOUL)


@pytest.fixture
def today(monkeypatch):
    fixed_clock(monkeypatch, EVENING)
    return EVENING


@pytest.fixture
def organiser_client(client, festival):
    client.force_login(make_staff(festival, "organiser"))
    return client


def preset_form(client, festival, preset="busan"):
    return client.get(new_event_url(festival), {"preset": preset}).context["form"]


def moments(initial: dict) -> dict:
    """The proposed day's times as instants in Seoul."""
    day = initial["day"]
    out = {name: dt.datetime.combine(day, initial[name], tzinfo=SEOUL)
           for name in ("checkin_opens", "checkin_closes", "starts")}
    for name in ("registration_opens_at", "registration_closes_at", "withdrawal_deadline"):
        out[name] = initial[name]
    return out


# --- what the preset proposes ------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["busan", "hk", "word"])
def test_a_preset_made_on_the_festival_s_only_day_after_its_usual_start_proposes_times_from_now(
        today, organiser_client, festival, preset):
    """Busan's 11:00 (R9) has passed at 17:37: play is proposed after now, every deadline is still to come, and
    registration closes by the time check-in closes."""
    form = preset_form(organiser_client, festival, preset)
    times = moments(form.initial)
    assert form.initial["day"] == DAY
    assert today < times["checkin_opens"] < times["starts"]
    assert times["starts"] - today < dt.timedelta(hours=2)  # from now, not some other day
    assert today <= times["withdrawal_deadline"] <= times["checkin_closes"]
    assert today < times["registration_closes_at"] <= times["checkin_closes"]
    assert times["registration_opens_at"] <= today + dt.timedelta(minutes=1)


def test_the_proposed_start_from_now_falls_on_the_half_hour_with_the_preset_s_check_in(
        today, organiser_client, festival):
    form = preset_form(organiser_client, festival, "busan")
    assert (form.initial["checkin_opens"], form.initial["checkin_closes"], form.initial["starts"]) == (
        dt.time(18), dt.time(18, 30), dt.time(18, 30))


def test_saving_the_proposal_as_it_stands_makes_an_event_players_can_still_register_for_and_leave(
        today, organiser_client, festival):
    form = preset_form(organiser_client, festival, "busan")
    response = organiser_client.post(new_event_url(festival), posted(form.initial, SEOUL))
    assert response.status_code == 302, response.context["form"].errors
    event = Event.objects.get(festival=festival)
    assert event.registration_is_open(today) and event.withdrawal_is_open(today)
    assert not event.checkin_has_closed(today)


def test_a_festival_with_another_day_to_come_proposes_the_preset_s_start_on_that_day(
        today, organiser_client):
    festival = make_festival(starts_on=DAY, ends_on=DAY + dt.timedelta(days=1))
    organiser_client.force_login(make_staff(festival, "organiser"))
    form = preset_form(organiser_client, festival, "busan")
    assert (form.initial["day"], form.initial["starts"]) == (DAY + dt.timedelta(days=1), dt.time(11))
    times = moments(form.initial)
    # The end of the day before (R9's "by the day before") is tonight; no deadline lies in the past.
    assert times["registration_closes_at"] == at(23, 59)
    assert today <= times["withdrawal_deadline"] <= times["registration_closes_at"]


# --- "Propose the plan and times" ------------------------------------------------------------------------


def test_propose_gives_deadlines_again_instead_of_keeping_ones_already_past(today, organiser_client, festival):
    """The newcomer's form: play at 11:00 today and a withdrawal deadline two days before, proposed again."""
    form = preset_form(organiser_client, festival, "busan")
    stale = {"starts": "11:00", "checkin_opens": "10:30", "checkin_closes": "11:00",
             "registration_closes_at": "2030-11-01T23:59", "withdrawal_deadline": "2030-10-31T23:59",
             "propose": "1"}
    response = organiser_client.post(new_event_url(festival), posted(form.initial, SEOUL) | stale)
    assert not Event.objects.exists()
    times = moments(response.context["form"].initial)
    assert today < times["checkin_opens"] < times["starts"]
    assert today <= times["withdrawal_deadline"] <= times["checkin_closes"]
    assert today < times["registration_closes_at"] <= times["checkin_closes"]
    assert "11:00 has passed" in text(response)


def test_propose_keeps_a_start_still_to_come_and_fits_the_deadlines_to_its_day(today, organiser_client):
    festival = make_festival(starts_on=DAY, ends_on=DAY + dt.timedelta(days=3))
    organiser_client.force_login(make_staff(festival, "organiser"))
    form = preset_form(organiser_client, festival, "busan")
    data = posted(form.initial, SEOUL) | {"day": "2030-11-05", "starts": "13:00", "propose": "1"}
    proposed = organiser_client.post(new_event_url(festival), data).context["form"].initial
    assert (proposed["day"], proposed["starts"]) == (dt.date(2030, 11, 5), dt.time(13))
    assert proposed["registration_closes_at"] == at(23, 59, dt.date(2030, 11, 4))
    assert proposed["withdrawal_deadline"] == at(23, 59, dt.date(2030, 11, 3))


# --- saving: the order of the times, and times already past ----------------------------------------------


@pytest.mark.parametrize("changes, where, message", [
    ({"withdrawal_deadline": "2030-10-01T12:00"}, "withdrawal_deadline",
     "The withdrawal deadline cannot come before registration opens"),
    ({"registration_closes_at": "2030-11-02T20:00"}, "registration_closes_at",
     "Registration must close by the time check-in closes"),
    ({"withdrawal_deadline": "2030-11-02T20:00"}, "withdrawal_deadline",
     "The withdrawal deadline cannot come after play starts"),
])
def test_times_in_the_wrong_order_are_refused_at_their_field_even_when_confirmed(organiser_client, festival,
                                                                                  changes, where, message):
    form = preset_form(organiser_client, festival, "busan")  # 2 November 2030, days ahead of the real clock
    data = posted(form.initial, SEOUL) | {"registration_opens_at": "2030-10-02T09:00"} | changes
    for confirmed in ({}, {"past_confirmed": "on"}):
        response = organiser_client.post(new_event_url(festival), data | confirmed)
        assert response.status_code == 200
        assert message in " ".join(response.context["form"].errors[where])
    assert not Event.objects.exists() and not AuditEntry.objects.filter(action="event.created").exists()


def test_times_already_past_are_saved_only_when_the_organiser_confirms_them(today, organiser_client, festival):
    form = preset_form(organiser_client, festival, "busan")
    past = {"starts": "11:00", "checkin_opens": "10:30", "checkin_closes": "11:00", "ends": "18:30",
            "registration_opens_at": "2030-10-01T09:00", "registration_closes_at": "2030-11-01T23:59",
            "withdrawal_deadline": "2030-10-31T23:59"}
    data = posted(form.initial, SEOUL) | past
    refused = organiser_client.post(new_event_url(festival), data)
    assert refused.status_code == 200 and not Event.objects.exists()
    errors = refused.context["form"].errors
    for field in ("starts", "checkin_opens", "checkin_closes", "registration_closes_at", "withdrawal_deadline"):
        assert "This time has already passed" in " ".join(errors[field]), field
    page = text(refused)
    assert 'name="past_confirmed"' in page and "Some times are in the past" in page

    saved = organiser_client.post(new_event_url(festival), data | {"past_confirmed": "on"})
    assert saved.status_code == 302
    event = Event.objects.get(festival=festival)
    assert event.starts_at == at(11)
    assert AuditEntry.objects.get(action="event.created").reason == "times in the past confirmed"
    assert "times in the past confirmed" in text(organiser_client.get(event_url("manage-event", event)))


def test_the_confirmation_is_not_offered_where_nothing_is_past(today, organiser_client, festival):
    page = text(organiser_client.get(new_event_url(festival), {"preset": "busan"}))
    assert 'name="past_confirmed"' not in page


def test_an_event_that_is_over_can_still_be_renamed_but_moving_its_times_asks_first(organiser_client, festival,
                                                                                   monkeypatch):
    event = make_event(festival, slug="open", name="Open")  # 2 November 2030, 11:00–18:00
    fixed_clock(monkeypatch, at(9, day=DAY + dt.timedelta(days=7)))
    organiser_client.force_login(make_staff(festival, "organiser"))  # a session of the week after
    renamed = organiser_client.post(event_url("manage-event-edit", event), edit_data(event, name="Open 2030"))
    assert renamed.status_code == 302
    event.refresh_from_db()
    assert event.name == "Open 2030"
    moved = organiser_client.post(event_url("manage-event-edit", event), edit_data(event, ends="18:30"))
    assert "This time has already passed" in " ".join(moved.context["form"].errors["ends"])
    event.refresh_from_db()
    assert event.ends_at == at(18)
    confirmed = organiser_client.post(event_url("manage-event-edit", event),
                                      edit_data(event, ends="18:30", past_confirmed="on"))
    assert confirmed.status_code == 302
    event.refresh_from_db()
    assert event.ends_at == at(18, 30)


def test_an_imported_event_already_in_the_wrong_order_does_not_block_other_edits(organiser_client, festival):
    """Only the times the organiser changes are checked: a file's odd deadline stays until someone moves it."""
    event = make_event(festival, slug="open", name="Open", registration_closes_at=at(12), withdrawal_deadline=at(17))
    response = organiser_client.post(event_url("manage-event-edit", event), edit_data(event, name="Renamed"))
    assert response.status_code == 302


def test_the_service_refuses_past_times_without_the_confirmation_and_saves_nothing(festival, today):
    values = EventForm.initial_for_preset("busan", festival)
    form = EventForm(posted(values, SEOUL) | {"starts": "11:00", "checkin_opens": "10:30", "checkin_closes": "11:00",
                                              "registration_opens_at": "2030-10-01T09:00",
                                              "registration_closes_at": "2030-11-01T23:59",
                                              "withdrawal_deadline": "2030-10-31T23:59"}, festival=festival)
    assert form.is_valid(), form.errors
    with pytest.raises(service.FieldsRefused) as refused:
        service.create_event(festival=festival, values=form.values(), actor=Actor(label="test"))
    assert refused.value.past and "starts_at" in refused.value.errors
    assert not Event.objects.exists()
    event = service.create_event(festival=festival, values=form.values(), actor=Actor(label="test"),
                                 past_confirmed=True)
    assert timezone.localtime(event.starts_at, SEOUL).time() == dt.time(11)
