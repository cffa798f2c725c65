"""In a real browser at phone size: a desk volunteer checks players in by searching and
tapping, the counts follow, and the page is never reloaded (htmx swaps the row and the counts; R9)."""

import pytest
from playwright.sync_api import expect

from tests.factories import make_event, make_player, make_registration, make_staff
from tournament.models import Event, Registration

NAMES = ["김민준", "김서연", "박지훈", "Chan Tai Man", "Lee Ka Yan"]


@pytest.fixture
def event():
    event = make_event(checkin_override=Event.CheckinOverride.OPEN)  # the desk's morning, whatever today is
    for name in NAMES:
        make_registration(event, make_player(event.festival, name=name))
    make_registration(event, make_player(event.festival, name="김대기"), status=Registration.Status.WAITLISTED)
    return event


def checked_in(event) -> set[str]:
    return set(Registration.objects.filter(event=event, checked_in_at__isnull=False)
               .values_list("player__name", flat=True))


def test_desk_checks_in_players_by_search_and_tap_without_reloading_the_page(
        event, page, server, shot, sign_in, marker):
    desk_user = make_staff(event.festival, "desk")
    desk = server.url("desk", festival=event.festival.slug, event=event.slug)
    sign_in(page, desk_user, next_url=desk.removeprefix(server.root))
    expect(page.locator("h1")).to_have_text("Check-in desk")
    count = page.locator('[data-count="checked-in"]')
    expect(count).to_have_text("0")
    expect(page.locator('[data-count="registered"]')).to_have_text(str(len(NAMES)))
    marker.set(page)
    shot(page, "desk")

    search = page.locator("#desk-q")
    results = page.locator("#desk-results")
    # (what is typed, how many players it finds, whom the volunteer taps)
    taps = [("김", 3, "김민준"), ("서연", 1, "김서연"), ("chan", 1, "Chan Tai Man")]
    for done, (query, found, name) in enumerate(taps, start=1):
        search.fill(query)
        expect(results.locator("li")).to_have_count(found)
        row = results.locator("li", has_text=name)
        shot(page, f"search-{done}")
        row.get_by_role("button", name="Check in").click()
        expect(results.locator("li", has_text=name).locator(".badge.text-bg-success")).to_contain_text("Checked in")
        expect(count).to_have_text(str(done))
        shot(page, f"checked-in-{done}")

    # The waiting list shows up in the search but has no button (no place, R9).
    search.fill("김대기")
    waiting = results.locator("li", has_text="김대기")
    expect(waiting).to_contain_text("Waiting list")
    expect(waiting.get_by_role("button")).to_have_count(0)
    shot(page, "waiting-list-has-no-button")

    assert marker.survived(page), "the desk page was reloaded; check-ins must swap in place"
    assert checked_in(event) == {"김민준", "김서연", "Chan Tai Man"}
    expect(page.locator("#desk-counts")).to_contain_text("2 missing")
