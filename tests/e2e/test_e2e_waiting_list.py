"""In a real browser at phone size, the waiting list on the day (R9): a place freed before check-in closes goes
to the first in line, whose personal page says so; after check-in closes the organiser opens the empty places
and the desk gives them to waiting-list players in the hall, in line order."""

import datetime as dt

from django.utils import timezone
from playwright.sync_api import expect

from tests.factories import make_event, make_player, make_registration, make_staff, ready_event
from tournament.models import AuditEntry, Event, Registration

S = Registration.Status


def test_a_withdrawal_promotes_the_first_in_line_who_sees_it_on_their_page(page, phone, server, shot, sign_in):
    event = make_event(capacity=2)  # check-in has not closed: the waiting list moves by itself
    leaving = make_registration(event, make_player(event.festival, name="김불참"))
    make_registration(event, make_player(event.festival, name="김참가"))
    first = make_registration(event, make_player(event.festival, name="이대기"), status=S.WAITLISTED,
                              queued_at=timezone.now() - dt.timedelta(hours=2))
    make_registration(event, make_player(event.festival, name="박대기"), status=S.WAITLISTED)

    player = phone("player")
    player.goto(server.root + first.player.get_absolute_url())
    expect(player.locator(f"#registration-{first.pk}")).to_contain_text("Waiting list, position 1")
    shot(player, "waiting")

    organiser = make_staff(event.festival, "organiser")
    withdraw = server.url("manage-withdraw", festival=event.festival.slug, event=event.slug)
    sign_in(page, organiser, next_url=f"{withdraw.removeprefix(server.root)}?registration={leaving.pk}")
    expect(page.locator("main")).to_contain_text("The place goes to the first player on the waiting list")
    page.get_by_label("Reason").fill("Phoned: ill")
    shot(page, "withdraw")
    page.get_by_role("button", name="Withdraw", exact=True).click()
    expect(page.locator(".alert-success")).to_contain_text("김불참 is withdrawn.")

    player.reload()
    card = player.locator(f"#registration-{first.pk}")
    expect(card.locator("[data-promoted]")).to_contain_text("You have a place now: you moved up from the waiting list")
    expect(card).to_contain_text("Registered")
    shot(player, "promoted")
    assert player.evaluate("document.documentElement.scrollWidth") <= 360
    assert AuditEntry.objects.filter(action="registration.promoted", target_id=first.pk).exists()


def test_after_check_in_closes_the_desk_gives_a_late_place_to_a_waiting_player_present(
        page, phone, server, shot, sign_in):
    event = make_event(capacity=3, checkin_override=Event.CheckinOverride.CLOSED)
    make_registration(event, make_player(event.festival, name="김참가"), checked_in_at=timezone.now())
    make_registration(event, make_player(event.festival, name="김불참"))  # never came
    start = timezone.now() - dt.timedelta(days=2)
    line = [make_registration(event, make_player(event.festival, name=name), status=S.WAITLISTED,
                              queued_at=start + dt.timedelta(hours=n))
            for n, name in enumerate(["대기 일", "대기 이", "대기 삼", "대기 사"])]

    # The organiser sees the empty places and opens them.
    organiser = make_staff(event.festival, "organiser")
    manage = server.url("manage-event", festival=event.festival.slug, event=event.slug)
    sign_in(page, organiser, next_url=manage.removeprefix(server.root))
    late = page.locator("#late-places")
    expect(late).to_contain_text("2 places are empty after check-in.")
    expect(late).to_contain_text("4 players on the waiting list.")
    shot(page, "organiser-sees-empty-places")
    late.get_by_role("button", name="Open late places").click()
    expect(page.locator(".alert-success")).to_contain_text("Late places are open")

    # The desk calls the line: 대기 일 is not in the hall; 대기 이, 삼 and 사 answer.
    desk = phone("desk")
    desk_url = server.url("desk", festival=event.festival.slug, event=event.slug)
    sign_in(desk, make_staff(event.festival, "desk"), next_url=desk_url.removeprefix(server.root))
    desk.locator("[data-late-places]").click()
    expect(desk.locator("h1")).to_have_text("Late places")
    expect(desk.locator("#late-line li")).to_have_text(["대기 일", "대기 이", "대기 삼", "대기 사"])
    for name in ("대기 이", "대기 삼", "대기 사"):
        desk.get_by_label(name).check()
    desk.get_by_role("button", name="Give late places to the players ticked").click()
    # Three ticked, two places: refused, naming the two first in line among those present.
    expect(desk.locator("[data-late-error]")).to_contain_text(
        "Only 2 places are empty: in waiting-list order they go to 대기 이, 대기 삼.")
    shot(desk, "too-many-ticked")
    assert Registration.objects.filter(event=event, status=S.WAITLISTED).count() == 4
    desk.get_by_label("대기 사").uncheck()
    desk.get_by_role("button", name="Give late places to the players ticked").click()
    expect(desk.locator(".alert-success")).to_contain_text("Late places given; checked in: 대기 이, 대기 삼.")
    expect(desk.locator("#late-line li")).to_have_text(["대기 일", "대기 사"])
    shot(desk, "late-places-given")
    assert desk.evaluate("document.documentElement.scrollWidth") <= 360

    statuses = {r.player.name: (r.status, r.checked_in_at is not None)
                for r in Registration.objects.filter(pk__in=[r.pk for r in line]).select_related("player")}
    assert statuses == {"대기 일": (S.WAITLISTED, False), "대기 이": (S.REGISTERED, True),
                        "대기 삼": (S.REGISTERED, True), "대기 사": (S.WAITLISTED, False)}
    player = phone("player")
    player.goto(server.root + line[1].player.get_absolute_url())
    expect(player.locator("[data-promoted]")).to_contain_text("You have a place now")
    expect(player.locator(f"#registration-{line[1].pk}")).to_contain_text("Checked in")
    shot(player, "late-place-on-personal-page")


def test_reopening_check_in_offers_to_renumber_everyone_and_shows_it_first(page, server, shot, sign_in):
    """R8.2 before the first draw: keeping the numbers is the default; renumbering is chosen on the
    confirmation page, which says what it does before anything changes."""
    event = ready_event(4)
    manage = server.url("manage-event", festival=event.festival.slug, event=event.slug)
    sign_in(page, make_staff(event.festival, "organiser"), next_url=manage.removeprefix(server.root))
    page.get_by_role("link", name="Reopen check-in").click()
    choices = page.locator("[data-confirm-choices]")
    expect(choices.locator("[aria-current=page]")).to_have_text("Keep the numbers given")
    expect(page.locator("main")).to_contain_text("The 4 player numbers already given stay as they are.")
    choices.get_by_role("link", name="Renumber everyone").click()
    expect(page.locator("h1")).to_have_text("Reopen check-in and renumber everyone")
    expect(page.locator("main")).to_contain_text("The 4 player numbers already given are cleared.")
    shot(page, "renumber-shown-first")
    assert Registration.objects.filter(event=event, number__isnull=False).count() == 4
    page.get_by_role("button", name="Reopen check-in and renumber everyone").click()
    expect(page.locator(".alert-success")).to_contain_text("Check-in:")
    shot(page, "reopened-renumbered")
    assert not Registration.objects.filter(event=event, number__isnull=False).exists()
