"""In a real browser at phone size: an organiser creates a festival, adds a Busan event from its preset in a few
taps, and edits the day's schedule (R9) — no Django admin, no JavaScript needed."""

from django.contrib.auth.models import Permission, User
from playwright.sync_api import expect

from tests.factories import make_festival, make_staff, released_stage
from tournament.models import Event, Festival, StaffRole


def test_organiser_creates_a_festival_an_event_and_edits_its_schedule(page, server, shot, sign_in):
    user = User.objects.create_user("maker", password="pw-for-tests-only")
    user.user_permissions.add(Permission.objects.get(codename="organise_festivals"))
    sign_in(page, user, next_url="/manage/")
    page.get_by_role("link", name="New festival").click()
    expect(page.locator("h1")).to_have_text("New festival")
    shot(page, "festival-form-empty")

    page.locator("#id_name").fill("2030 부산 보드게임페스티벌")
    page.locator("#id_starts_on").fill("2030-11-02")
    page.locator("#id_ends_on").fill("2030-11-01")
    page.get_by_role("button", name="Create the festival").click()
    expect(page.locator(".invalid-feedback, .text-danger").first).to_contain_text("cannot be before the first day")
    shot(page, "festival-form-refused")
    page.locator("#id_ends_on").fill("")
    page.locator("#id_venue").fill("월석아트홀")
    page.locator("#id_contact").fill("kodkod@example.kr")
    page.get_by_role("button", name="Create the festival").click()
    festival = Festival.objects.get()
    assert StaffRole.objects.filter(festival=festival, user=user, role="organiser").exists()
    expect(page.locator("h1")).to_have_text("2030 부산 보드게임페스티벌")
    shot(page, "festival-page")

    page.get_by_role("link", name="Add an event").first.click()
    shot(page, "event-presets")
    page.get_by_role("button", name="Busan elimination").click()
    expect(page.locator("#event-plan")).to_have_text("128 → 64 → 32 → final 4")
    shot(page, "event-form")
    # A little script moves check-in and the end with the start (the server's "Propose" does it without it).
    page.locator("#id_starts").fill("11:30")
    expect(page.locator("#id_checkin_opens")).to_have_value("11:00")
    expect(page.locator("#id_checkin_closes")).to_have_value("11:30")
    page.locator("#id_starts").fill("11:00")
    expect(page.locator("#id_checkin_opens")).to_have_value("10:30")
    page.locator("#id_expected_players").fill("64")
    page.get_by_role("button", name="Propose the plan and times from the players and the start").click()
    expect(page.locator("#event-plan")).to_have_text("64 → 32 → final 4")
    page.get_by_role("button", name="Create the event", exact=True).click()
    event = Event.objects.get(festival=festival)
    assert event.stage_games == [3, 3]

    page.goto(server.url("manage-event-schedule", festival=festival.slug, event=event.slug))
    expect(page.locator("h1")).to_have_text("The day's schedule")
    shot(page, "schedule-editor")
    page.locator("#id_slot-0-ends").fill("12:20")
    page.locator("#id_slot-0-starts").fill("12:20")
    page.get_by_role("button", name="Save the schedule").click()
    expect(page.get_by_role("alert").last).to_contain_text("The end must be after the start.")
    shot(page, "schedule-refused")
    page.locator("#id_slot-0-starts").fill("11:10")
    page.locator("#id_slot-3-label").fill("점심 식사")
    page.locator("#id_slot-3-starts").fill("12:20")
    page.locator("#id_slot-3-ends").fill("13:00")
    page.get_by_role("button", name="Save the schedule").click()
    expect(page.locator(".alert-success")).to_contain_text("The schedule is saved.")
    shot(page, "schedule-saved")
    event.refresh_from_db()
    assert any(row["label"] == "점심 식사" for row in event.timetable)


def test_hong_kong_event_form_in_chinese_and_a_started_event_in_korean(phone, server, shot, sign_in):
    """A Hong Kong festival's event starts at 10:20 Hong Kong time (R9); after the first draw, the Korean edit
    page refuses a new format with the reason at the field."""
    hk = make_festival(timezone="Asia/Hong_Kong", name="魔力橋大賽 2030")
    chinese = phone("organiser-zh", lang="zh-Hant-HK")
    sign_in(chinese, make_staff(hk, "organiser"), next_url=f"/manage/{hk.slug}/new-event/?preset=hk")
    expect(chinese.locator("#id_starts")).to_have_value("10:20")
    expect(chinese.locator("#id_checkin_closes")).to_have_value("10:10")
    expect(chinese.locator("#event-plan")).to_contain_text("64")
    shot(chinese, "hong-kong-event-form-zh")

    event = released_stage(8).event
    korean = phone("organiser-ko", lang="ko")
    url = server.url("manage-event-edit", festival=event.festival.slug, event=event.slug)
    sign_in(korean, make_staff(event.festival, "organiser"), next_url=url.removeprefix(server.root))
    korean.locator("#id_format").select_option("hk")
    korean.locator("#id_name").fill("루미큐브 대회")
    korean.locator("button[type=submit][name=save]:not(.visually-hidden)").click()
    expect(korean.locator("#id_format").locator("xpath=..").locator(".invalid-feedback")).to_contain_text("바꿀 수 없습니다")
    shot(korean, "started-event-refused-ko")
