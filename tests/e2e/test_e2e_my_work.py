"""In a real browser at 360×740: the desk and the chief referee of a festival with several events open My work
and see first what needs them now, with counts — check-in open now and how many are missing; sheets waiting
for confirmation and the round being played — in English, Korean and Hong Kong Chinese."""

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from scoring.services.sheets import submit_sheet
from tests.factories import make_event, make_festival, make_registration, make_staff, released_stage
from tests.scoring.helpers import LINK, entry_for, key
from tournament.models import Event

LANGUAGES = ["en", "ko", "zh-hant"]  # the states are read from data attributes; the words in English


def submit(stage, table, values):
    return submit_sheet(stage=stage, game=1, table_number=table, accept_warnings=True,
                        entry=entry_for(stage, 1, table, values), idempotency_key=key(), actor=LINK, via="link")


@pytest.fixture
def festival():
    """Five events of one festival, in the order they start: a morning friendly that is over, two live rounds
    (one with sheets waiting), a kids' event checking in now and a Word event checking in later."""
    now = timezone.now().replace(microsecond=0)
    festival = make_festival(name="2030 부산 보드게임페스티벌")
    make_event(festival, name="오전 친선전", start=now - dt.timedelta(hours=5), hours=2,
               checkin_override=Event.CheckinOverride.CLOSED)
    live = {}
    for name, hours_ago in (("루미큐브 대회", 2), ("루미큐브 대회 2부", 1)):
        stage = released_stage(8)
        Event.objects.filter(pk=stage.event.pk).update(festival=festival, name=name,
                                                       starts_at=now - dt.timedelta(hours=hours_ago))
        stage.event.refresh_from_db()
        live[name] = stage
    submit(live["루미큐브 대회"], 1, [0, 10, 20, 30])
    submit(live["루미큐브 대회"], 2, [0, 120, 20, 30])  # a rack over 100: a warning the referee accepted
    kids = make_event(festival, name="어린이 루미큐브 대회", start=now + dt.timedelta(minutes=30),
                      checkin_opens_at=now - dt.timedelta(minutes=30), checkin_closes_at=now + dt.timedelta(minutes=30))
    for index in range(5):
        make_registration(kids, checked_in_at=now if index < 2 else None)
    word = make_event(festival, name="루미큐브 워드 대회", start=now + dt.timedelta(hours=4), game=Event.Game.WORD,
                      checkin_opens_at=now + dt.timedelta(hours=3), checkin_closes_at=now + dt.timedelta(hours=4))
    for _ in range(6):
        make_registration(word)
    return festival


def events(page):
    return page.locator("[data-event-work]")


def fits_the_phone(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= 360


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_desk_sees_first_the_event_checking_in_now_with_who_is_missing(festival, phone, server, shot, sign_in,
                                                                          lang):
    page = sign_in(phone("desk", lang=lang), make_staff(festival, "desk"))
    page.goto(server.url("manage-home"))
    first = events(page).first
    expect(first).to_contain_text("어린이 루미큐브 대회")
    expect(first.locator("[data-desk-state]")).to_have_attribute("data-desk-state", "open")
    expect(first.locator("[data-desk-state]")).to_have_attribute("data-missing", "3")
    expect(first.locator("a.btn-primary")).to_have_count(1)  # its desk stands out
    if lang == "en":
        expect(first).to_contain_text("Check-in open now")
        expect(first).to_contain_text("3 missing")
    later = events(page).filter(has_text="루미큐브 워드 대회")
    expect(later.locator("[data-desk-state]")).to_have_attribute("data-desk-state", "later")
    expect(later.locator("a.btn-primary")).to_have_count(0)
    expect(events(page).filter(has_text="오전 친선전").locator("[data-desk-state]")).to_have_attribute(
        "data-desk-state", "closed")
    assert fits_the_phone(page)
    shot(page, f"my-work-desk-{lang}")
    first.locator("a.btn-primary").click()
    expect(page.locator("[data-checkin-state]")).to_have_attribute("data-checkin-state", "open")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_chief_referee_sees_first_the_sheets_waiting_and_the_rounds_in_play(festival, phone, server, shot,
                                                                               sign_in, lang):
    page = sign_in(phone("chief", lang=lang), make_staff(festival, "chief referee"))
    page.goto(server.url("manage-home"))
    first, second = events(page).nth(0), events(page).nth(1)
    expect(first).to_contain_text("루미큐브 대회")
    expect(first.locator("[data-chief-state]")).to_have_attribute("data-waiting", "2")
    expect(first.locator("[data-chief-state]")).to_have_attribute("data-with-warnings", "1")
    expect(second).to_contain_text("루미큐브 대회 2부")  # a round in play, nothing waiting
    expect(second.locator("[data-chief-state]")).to_have_attribute("data-waiting", "0")
    expect(second.locator("a.btn-primary")).to_have_count(0)
    if lang == "en":
        expect(first).to_contain_text("2 sheets waiting for confirmation")
        expect(first).to_contain_text("Round 1 being played: game 1 of 3")
    expect(events(page).last).to_contain_text("루미큐브 워드 대회")  # nothing needs the chief there now
    assert fits_the_phone(page)
    shot(page, f"my-work-chief-{lang}")
    first.locator("a.btn-primary").click()
    expect(page.locator("[data-count=warnings]")).to_contain_text("1")
