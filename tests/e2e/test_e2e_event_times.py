"""In a real browser at phone size (360×740): an organiser adds a Busan event on the festival's only day at
17:37, after the preset's usual 11:00 (R9). The preset proposes play from now and deadlines still to come;
"Propose" moves a start already past and its deadlines on; times in the past are saved only once confirmed."""

import datetime as dt
import zoneinfo

import pytest
from playwright.sync_api import expect

from tests.clock import fixed_clock
from tests.factories import make_festival, make_staff
from tournament.models import AuditEntry, Event

SEOUL = zoneinfo.ZoneInfo("Asia/Seoul")
EVENING = dt.datetime(2030, 11, 2, 17, 37, tzinfo=SEOUL)


@pytest.mark.parametrize("lang", ["en", "ko", "zh-Hant-HK"])
def test_a_preset_made_after_its_usual_start_proposes_times_from_now_and_past_times_need_a_confirmation(
        phone, server, shot, sign_in, monkeypatch, lang):
    fixed_clock(monkeypatch, EVENING)
    festival = make_festival(name="2030 부산 보드게임페스티벌")  # one day: 2 November 2030
    organiser = phone("organiser", lang=lang)
    sign_in(organiser, make_staff(festival, "organiser"), next_url=f"/manage/{festival.slug}/new-event/")
    organiser.locator("button[name=preset][value=busan]").click()
    expect(organiser.locator("#id_starts")).to_have_value("18:30")
    expect(organiser.locator("#id_checkin_opens")).to_have_value("18:00")
    expect(organiser.locator("#id_registration_closes_at")).to_have_value("2030-11-02T18:30")
    expect(organiser.locator("#id_withdrawal_deadline")).to_have_value("2030-11-02T18:30")
    expect(organiser.locator("#past-times")).to_have_count(0)
    shot(organiser, f"preset-from-now-{lang}")

    # The newcomer's form: 11:00 and a deadline two days before; "Propose" moves them on.
    organiser.locator("#id_starts").fill("11:00")
    organiser.locator("#id_withdrawal_deadline").fill("2030-10-31T23:59")
    organiser.locator("button[name=propose]").click()
    expect(organiser.locator("#id_starts")).to_have_value("18:30")
    expect(organiser.locator("#id_withdrawal_deadline")).to_have_value("2030-11-02T18:30")
    expect(organiser.locator(".alert-warning").first).to_contain_text("11:00")
    shot(organiser, f"proposed-again-{lang}")

    # An event that really took place this morning: refused, then saved once confirmed.
    organiser.locator("#id_starts").fill("11:00")  # the page's script moves check-in and the end along
    organiser.locator("#id_registration_opens_at").fill("2030-10-01T09:00")
    organiser.locator("#id_registration_closes_at").fill("2030-11-01T23:59")
    organiser.locator("#id_withdrawal_deadline").fill("2030-10-31T23:59")
    save = organiser.locator("button[type=submit][name=save]:not(.visually-hidden)")
    save.click()
    expect(organiser.locator("#past-times")).to_be_visible()
    expect(organiser.locator("#id_starts").locator("xpath=..").locator(".invalid-feedback")).to_be_visible()
    expect(organiser.locator(".alert-danger")).to_contain_text("17:37")
    assert not Event.objects.exists()
    assert organiser.evaluate("document.documentElement.scrollWidth") <= 360
    organiser.locator("#past-times").scroll_into_view_if_needed()
    shot(organiser, f"past-times-refused-{lang}")

    organiser.locator("#id_past_confirmed").check()
    save.click()
    expect(organiser.locator(".alert-success")).to_be_visible()
    event = Event.objects.get(festival=festival)
    assert event.starts_at == dt.datetime(2030, 11, 2, 11, tzinfo=SEOUL)
    assert AuditEntry.objects.get(action="event.created").reason == "times in the past confirmed"
    shot(organiser, f"past-event-saved-{lang}")
