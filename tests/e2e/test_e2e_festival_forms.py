"""In a real browser at phone size: an organiser creates a festival, adds a Busan event from its preset in a few
taps, and edits the day's schedule (R9) — no Django admin, no JavaScript needed."""

from django.contrib.auth.models import Permission, User
from playwright.sync_api import expect

from tournament.models import Event, Festival, StaffRole


def test_organiser_creates_a_festival_an_event_and_edits_its_schedule(page, server, shot, sign_in):
    user = User.objects.create_user("maker", password="pw-for-tests-only")
    user.user_permissions.add(Permission.objects.get(codename="organise_festivals"))
    sign_in(page, user, next_url="/manage/")
    page.get_by_role("link", name="New festival").click()
    expect(page.locator("h1")).to_have_text("New festival")
    shot(page, "festival-form-empty")

    page.get_by_label("Name", exact=True).fill("2030 부산 보드게임페스티벌")
    page.get_by_label("First day").fill("2030-11-02")
    page.get_by_label("Last day").fill("2030-11-01")
    page.get_by_role("button", name="Create the festival").click()
    expect(page.locator(".invalid-feedback, .text-danger").first).to_contain_text("cannot be before the first day")
    shot(page, "festival-form-refused")
    page.get_by_label("Last day").fill("")
    page.get_by_label("Venue").fill("월석아트홀")
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
    page.get_by_label("Expected players").fill("64")
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
