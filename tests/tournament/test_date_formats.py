"""One set of date and time formats per language (config/formats/), in the festival's time zone: the event
page, the festival page and the personal page read the same way, with a 24-hour clock; events in time order."""

import datetime as dt
import zoneinfo

import pytest
from django.utils import translation
from django.utils.formats import date_format

from tests.factories import make_event, make_festival, make_player, make_registration

pytestmark = pytest.mark.django_db
HONG_KONG = zoneinfo.ZoneInfo("Asia/Hong_Kong")
START = dt.datetime(2026, 12, 1, 14, 30, tzinfo=HONG_KONG)  # a Tuesday afternoon in Hong Kong

EXPECTED = {  # language → (date, time, the registration period's date and time)
    "en": ("1 Dec 2026", "14:30", "1 Nov 2026, 14:30"),
    "ko": ("2026년 12월 1일", "14:30", "2026년 11월 1일 14:30"),
    "zh-hant": ("2026年12月1日", "14:30", "2026年11月1日 14:30"),
}


@pytest.mark.parametrize("lang", EXPECTED)
def test_named_formats_per_language(lang):
    day, time, moment = EXPECTED[lang]
    with translation.override(lang):
        assert date_format(START, "DATE_FORMAT") == day
        assert date_format(START, "SHORT_DATE_FORMAT") == day
        assert date_format(START, "TIME_FORMAT") == time
        assert date_format(START - dt.timedelta(days=30), "SHORT_DATETIME_FORMAT") == moment


@pytest.mark.parametrize("lang", EXPECTED)
def test_event_festival_and_personal_pages_show_dates_in_the_language_and_the_festivals_time_zone(client, lang):
    day, time, moment = EXPECTED[lang]
    festival = make_festival(timezone="Asia/Hong_Kong")
    event = make_event(festival, start=START, hours=3)
    player = make_player(festival)
    make_registration(event, player)
    client.cookies["django_language"] = lang
    headers = {"HTTP_ACCEPT_LANGUAGE": lang}
    event_page = client.get(event.get_absolute_url(), **headers).content.decode()
    assert f"{day} {time}–17:30" in event_page
    assert moment in event_page  # registration opens 30 days before, same format
    assert "a.m." not in event_page and "p.m." not in event_page and "2026-11-1" not in event_page
    assert f"{day} {time}–17:30" in client.get(player.get_absolute_url(), **headers).content.decode()
    assert day in client.get(festival.get_absolute_url(), **headers).content.decode()


def test_the_festival_page_lists_its_events_in_time_order(client):
    festival = make_festival()
    late = make_event(festival, name="AAA afternoon", start=START.replace(hour=15))
    early = make_event(festival, name="ZZZ morning", start=START.replace(hour=9))
    page = client.get(festival.get_absolute_url()).content.decode()
    assert page.index(early.name) < page.index(late.name)
