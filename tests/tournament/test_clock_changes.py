"""Times typed on a day the clocks change, in the festival's time zone: a time the clocks skip is refused with
when they go forward; a time they show twice is refused naming both instants it could mean. Every form that
takes a time of a festival's day reads it through one helper (tournament/festival_time.py `festival_moment`):
the event's times of day, its deadlines, and the timetable's slots."""

import datetime as dt
import html
import zoneinfo

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from tests.factories import make_event, make_festival, make_staff
from tests.tournament.test_festival_forms import event_url, festival_data, new_event_url, posted, rows
from tournament.festival_time import festival_moment
from tournament.models import AuditEntry, Event

pytestmark = pytest.mark.django_db

LONDON = zoneinfo.ZoneInfo("Europe/London")
UTC = dt.UTC
SPRING, AUTUMN = dt.date(2027, 3, 28), dt.date(2027, 10, 31)  # the clocks go forward, then back
GAP = "01:30 does not exist on 28 Mar 2027 in Europe/London: the clocks go forward at 01:00 (to 02:00)."
OVERLAP = ("01:30 happens twice on 31 Oct 2027 in Europe/London: the clocks go back at 02:00 (to 01:00), so it "
           "could be 01:30 BST (UTC+01:00) or 01:30 GMT (UTC+00:00).")


def _refusal(day, time, tz=LONDON) -> ValidationError:
    with pytest.raises(ValidationError) as refused:
        festival_moment(day, time, tz)
    return refused.value


def test_a_time_the_clocks_skip_is_refused_saying_when_they_go_forward():
    refused = _refusal(SPRING, dt.time(1, 30))
    assert refused.code == "clock_gap" and GAP in refused.messages[0]
    assert "01:00" in _refusal(SPRING, dt.time(1, 0)).messages[0]  # the first minute skipped too


def test_a_time_the_clocks_show_twice_is_refused_naming_both_instants():
    refused = _refusal(AUTUMN, dt.time(1, 30))
    assert refused.code == "clock_overlap" and OVERLAP in refused.messages[0]
    assert _refusal(AUTUMN, dt.time(1, 0)).code == "clock_overlap"


def test_times_around_the_changes_mean_what_they_say():
    assert festival_moment(SPRING, dt.time(0, 59), LONDON) == dt.datetime(2027, 3, 28, 0, 59, tzinfo=UTC)
    assert festival_moment(SPRING, dt.time(2, 0), LONDON) == dt.datetime(2027, 3, 28, 1, 0, tzinfo=UTC)
    assert festival_moment(AUTUMN, dt.time(0, 59), LONDON) == dt.datetime(2027, 10, 30, 23, 59, tzinfo=UTC)
    assert festival_moment(AUTUMN, dt.time(2, 0), LONDON) == dt.datetime(2027, 10, 31, 2, 0, tzinfo=UTC)
    seoul = zoneinfo.ZoneInfo("Asia/Seoul")  # no clock changes at all
    assert festival_moment(SPRING, dt.time(1, 30), seoul) == dt.datetime(2027, 3, 27, 16, 30, tzinfo=UTC)


def test_the_refusal_speaks_the_organisers_language():
    for language, word in (("ko", "2027년 3월 28일"), ("zh-hant", "2027年3月28日")):
        with translation.override(language):
            message = _refusal(SPRING, dt.time(1, 30)).messages[0]
        assert word in message and "01:30" in message and "clocks" not in message


# --- the forms -------------------------------------------------------------------------------------------


@pytest.fixture
def london_client(client):
    festival = make_festival(timezone="Europe/London", starts_on=SPRING, ends_on=AUTUMN)
    client.force_login(make_staff(festival, "organiser"))
    client.festival = festival
    return client


def _new_event(client, day: dt.date, **changes):
    festival = client.festival
    form = client.get(new_event_url(festival), {"preset": "busan"}).context["form"]
    data = posted(form.initial, festival.tzinfo) | {"day": day.isoformat(), "registration_opens_at": "2027-01-04T09:00",
                                                   **changes}
    return client.post(new_event_url(festival), data)


def _errors(response, field) -> str:
    return " ".join(str(e) for e in response.context["form"].errors.get(field, []))


@pytest.mark.parametrize(("field", "value"), [
    ("checkin_opens", "01:30"), ("starts", "01:30"),
    ("registration_closes_at", "2027-03-28T01:30"), ("withdrawal_deadline", "2027-03-28T01:30"),
])
def test_the_event_form_refuses_a_skipped_time_at_its_field(london_client, field, value):
    response = _new_event(london_client, SPRING, **{field: value})
    assert response.status_code == 200 and GAP in html.unescape(_errors(response, field))
    assert not Event.objects.exists()


@pytest.mark.parametrize(("field", "value"), [
    ("checkin_opens", "01:30"), ("registration_closes_at", "2027-10-31T01:30"),
])
def test_the_event_form_refuses_a_doubled_time_at_its_field(london_client, field, value):
    response = _new_event(london_client, AUTUMN, **{field: value})
    assert response.status_code == 200 and OVERLAP in html.unescape(_errors(response, field))
    assert not Event.objects.exists()


def test_the_event_form_takes_the_times_next_to_the_changes(london_client):
    response = _new_event(london_client, SPRING, checkin_opens="02:00", registration_closes_at="2027-03-28T00:59")
    assert response.status_code == 302
    event = Event.objects.get()
    assert event.checkin_opens_at == dt.datetime(2027, 3, 28, 1, 0, tzinfo=UTC)
    assert event.registration_closes_at == dt.datetime(2027, 3, 28, 0, 59, tzinfo=UTC)


@pytest.mark.parametrize(("day", "message"), [(SPRING, GAP), (AUTUMN, OVERLAP)])
def test_the_timetable_refuses_a_skipped_or_doubled_time(client, day, message):
    festival = make_festival(timezone="Europe/London", starts_on=SPRING, ends_on=AUTUMN)
    start = dt.datetime.combine(day, dt.time(0, 30), tzinfo=LONDON)
    event = make_event(festival, start=start, hours=6, checkin_opens_at=start - dt.timedelta(minutes=20),
                       checkin_closes_at=start - dt.timedelta(minutes=10))
    client.force_login(make_staff(festival, "organiser"))
    data = rows(event, client) | {"slot-4-label": "Break", "slot-4-starts": "01:30", "slot-4-ends": "02:45"}
    response = client.post(event_url("manage-event-schedule", event), data)
    assert response.status_code == 200
    errors = [html.unescape(" ".join(form.errors.get("starts", []))) for form in response.context["formset"].forms]
    assert any(message in error for error in errors), errors
    event.refresh_from_db()
    assert event.timetable == []



def test_a_new_time_zone_in_which_an_events_clock_time_does_not_exist_is_refused(client):
    """Another time zone keeps the events' clock times: one the new zone skips is refused, nothing moves."""
    seoul = zoneinfo.ZoneInfo("Asia/Seoul")
    festival = make_festival(timezone="Asia/Seoul", starts_on=SPRING, ends_on=SPRING)
    start = dt.datetime.combine(SPRING, dt.time(1, 30), tzinfo=seoul)
    event = make_event(festival, start=start, hours=3, checkin_opens_at=start - dt.timedelta(minutes=30),
                       checkin_closes_at=start)
    client.force_login(make_staff(festival, "organiser"))
    url = reverse("manage-festival-edit", kwargs={"festival": festival.slug})
    data = festival_data(name=festival.name, slug=festival.slug, starts_on=SPRING.isoformat(), timezone="Europe/London")
    response = client.post(url, data)
    assert response.status_code == 200 and GAP in html.unescape(_errors(response, "timezone"))
    festival.refresh_from_db()
    event.refresh_from_db()
    assert festival.timezone == "Asia/Seoul" and event.starts_at == start
    assert not AuditEntry.objects.filter(action__in=["festival.updated", "event.time_zone"]).exists()
