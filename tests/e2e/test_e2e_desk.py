"""In a real browser at phone size: a desk volunteer checks players in by searching and
tapping, the counts follow, and the page is never reloaded (htmx swaps the row and the counts; R9)."""

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.factories import make_event, make_player, make_registration, make_staff, ready_event
from tournament.models import Event, Player, Registration
from tournament.services.audit import Actor
from tournament.services.checkin import assign_numbers, check_in, set_checkin_override

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


def test_desk_registers_a_walk_in_corrects_a_name_and_shows_a_lost_link(event, page, phone, server, shot, sign_in):
    """The exceptions of a real morning at 360 px: a walk-in registered and checked in in one step, a typo in a
    name corrected, and a player's lost personal link shown on screen and opened from the QR's address."""
    desk_user = make_staff(event.festival, "desk")
    desk = server.url("desk", festival=event.festival.slug, event=event.slug)
    sign_in(page, desk_user, next_url=desk.removeprefix(server.root))

    # A walk-in, without contact: registered, checked in, and their personal link shown at once.
    page.get_by_role("link", name="Walk-in: register and check in").click()
    expect(page.locator("h1")).to_have_text("Walk-in: register and check in")
    page.locator("#id_name").fill("이서연")
    page.get_by_label("Birth year").fill("2008")
    page.get_by_label("School or club").fill("해운대고등학교")
    page.get_by_label("The paper consent form to the collection notice is signed.").check()
    shot(page, "walk-in-form")
    page.get_by_role("button", name="Register and check in").click()
    expect(page.locator(".alert-success")).to_contain_text("이서연 is registered and checked in.")
    expect(page.locator("h1")).to_have_text("이서연")
    expect(page.locator("#personal-link")).to_be_visible()
    expect(page.locator(".qr-code svg")).to_be_visible()
    shot(page, "walk-in-checked-in-with-link")
    walker = Registration.objects.get(event=event, player__name="이서연")
    assert walker.checked_in_at is not None and walker.status == Registration.Status.REGISTERED

    # A typo: 박지훈 was registered as "박지운"; the desk finds the row and corrects it.
    Player.objects.filter(festival=event.festival, name="박지훈").update(name="박지운", name_key="박지운")
    page.goto(desk + "?q=지운")
    row = page.locator("#desk-results li", has_text="박지운")
    row.get_by_role("link", name="Correct").click()
    expect(page.locator("h1")).to_have_text("Correct a player's details")
    page.get_by_label("Name").fill("박지훈")
    shot(page, "correct-name")
    page.get_by_role("button", name="Save the correction").click()
    expect(page.locator(".alert-success")).to_contain_text("The details of 박지훈 are corrected.")
    expect(page.locator("#desk-results li", has_text="박지훈")).to_have_count(1)
    shot(page, "name-corrected")

    # A lost link: the desk finds the player and shows the QR and address; the player's phone opens it.
    row = page.locator("#desk-results li", has_text="박지훈")
    row.get_by_role("link", name="Personal link").click()
    link = page.locator("#personal-link")
    expect(link).to_be_visible()
    expect(page.locator(".qr-code svg")).to_be_visible()
    shot(page, "lost-link-shown")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the link page is {width} px wide on a 360 px phone"
    player_phone = phone("player")
    player_phone.goto(link.get_attribute("href"))
    expect(player_phone.locator("body")).to_contain_text("박지훈")
    expect(player_phone.locator("body")).to_contain_text("This is your personal page")
    shot(player_phone, "player-opens-the-link")


def test_desk_chooses_between_a_stored_namesake_and_a_new_person_for_a_walk_in(event, page, server, shot, sign_in):
    """A child walks in with his mother; an adult 김민준 (born 1990) is already entered. The desk is shown the
    possible match with what identifies him and records the child as a new person: the adult's record stays
    his, and the link shown is the child's (R9: the child's guardian, under 15)."""
    adult = Player.objects.get(festival=event.festival, name="김민준")
    Player.objects.filter(pk=adult.pk).update(affiliation="부산대학교")
    child_year = event.festival.starts_on.year - 12
    desk = server.url("desk", festival=event.festival.slug, event=event.slug)
    sign_in(page, make_staff(event.festival, "desk"), next_url=desk.removeprefix(server.root))
    page.get_by_role("link", name="Walk-in: register and check in").click()
    page.locator("#id_name").fill("김민준")
    page.get_by_label("Birth year").fill(str(child_year))
    page.get_by_label("School or club").fill("해운대초등학교")
    page.get_by_label("Parent's or guardian's name").fill("김엄마")
    page.get_by_label("Parent's or guardian's e-mail or phone").fill("010-9876-5432")
    page.get_by_label("The paper consent form to the collection notice is signed.").check()
    page.get_by_label("For a child: the parent or guardian signed it.").check()
    page.get_by_role("button", name="Register and check in").click()

    # Nothing entered yet: the possible match, with what identifies him, and everything typed kept.
    matches = page.locator("#walk-in-matches")
    expect(matches).to_contain_text("A player with this name is already stored at this festival.")
    stored = matches.locator(f'[data-match="{adult.pk}"]')
    expect(stored).to_contain_text("born 1990")
    expect(stored).to_contain_text("부산대학교")
    expect(stored).to_contain_text(event.name)
    expect(stored).to_contain_text("Differs from what you typed:")
    expect(page.locator("#id_birth_year")).to_have_value(str(child_year))
    expect(page.locator("#id_guardian_name")).to_have_value("김엄마")
    shot(page, "walk-in-possible-match")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the walk-in choice is {width} px wide on a 360 px phone"
    assert Registration.objects.filter(event=event, player__name="김민준").count() == 1

    page.get_by_label("A new person").check()
    shot(page, "walk-in-new-person-chosen")
    matches.get_by_role("button", name="Register and check in").click()
    expect(page.locator(".alert-success")).to_contain_text("김민준 is registered and checked in.")
    child = Player.objects.get(festival=event.festival, name="김민준", birth_year=child_year)
    expect(page.locator("#personal-link")).to_have_attribute("href", f"{server.root}/p/{child.token}/")
    expect(page.locator("main")).not_to_contain_text(adult.token)
    shot(page, "walk-in-childs-own-link")
    adult.refresh_from_db()
    assert (adult.birth_year, adult.affiliation, adult.guardian_name) == (1990, "부산대학교", "")
    assert (child.guardian_name, child.affiliation) == ("김엄마", "해운대초등학교")
    assert Registration.objects.get(event=event, player=child).checked_in_at is not None


def test_desk_confirms_a_walk_in_with_a_stored_name_and_contact_in_korean(event, phone, server, shot, sign_in):
    """The same name and contact as a player entered in the evening's event: offered as the likely match (already
    ticked) and entered only once the desk confirms; the link shown is hers."""
    evening = make_event(event.festival, slug="evening", name="저녁 종목", start=event.ends_at + dt.timedelta(hours=1),
                         hours=2)
    yuna = make_player(event.festival, name="최유나", contact="yuna@example.kr", birth_year=1985)
    make_registration(evening, yuna)
    page = phone("desk", lang="ko")
    walk_in = server.url("desk-walk-in", festival=event.festival.slug, event=event.slug)
    sign_in(page, make_staff(event.festival, "desk"), next_url=walk_in.removeprefix(server.root))
    page.locator("#id_name").fill("최 유나")
    page.locator("#id_contact").fill("YUNA@example.kr")
    page.locator("#id_birth_year").fill("1985")
    page.locator("#id_agree").check()
    page.get_by_role("button", name="신청하고 참가 확인").click()

    matches = page.locator("#walk-in-matches")
    expect(matches).to_contain_text("이 이름의 참가자가 이미 있습니다")
    expect(matches).to_contain_text("연락처 같음")
    expect(matches).to_contain_text("저녁 종목")
    expect(page.locator(f"#person-{yuna.pk}")).to_be_checked()
    shot(page, "walk-in-likely-match-ko")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the walk-in choice is {width} px wide on a 360 px phone"
    assert not Registration.objects.filter(event=event, player=yuna).exists()

    matches.get_by_role("button", name="신청하고 참가 확인").click()
    expect(page.locator("#personal-link")).to_have_attribute("href", f"{server.root}/p/{yuna.token}/")
    shot(page, "walk-in-confirmed-her-link-ko")
    assert Registration.objects.get(event=event, player=yuna).checked_in_at is not None
    assert Player.objects.filter(festival=event.festival, name_key="최유나").count() == 1


def test_organiser_reopens_check_in_after_numbering_and_a_newcomer_is_numbered_after(page, server, shot, sign_in):
    """R8.2 before the first draw: the warning says the numbers given stay; a late player is numbered after them."""
    event = ready_event(4)
    organiser = make_staff(event.festival, "organiser")
    manage = server.url("manage-event", festival=event.festival.slug, event=event.slug)
    sign_in(page, organiser, next_url=manage.removeprefix(server.root))
    page.get_by_role("link", name="Reopen check-in").click()
    expect(page.locator("main")).to_contain_text("The 4 player numbers already given stay as they are.")
    expect(page.locator("main")).to_contain_text("from 5 on")
    shot(page, "reopen-warning")
    page.get_by_role("button", name="Reopen check-in").click()
    expect(page.locator(".alert-success")).to_contain_text("Check-in:")
    shot(page, "reopened")
    event.refresh_from_db()
    assert event.checkin_is_open(timezone.now()) and event.numbers_assigned_at is None

    late = make_registration(event, make_player(event.festival, name="Late Comer"))
    check_in(registration=late, actor=Actor(user=organiser))
    set_checkin_override(event=event, override=Event.CheckinOverride.CLOSED, actor=Actor(user=organiser))
    assign_numbers(event=event, actor=Actor(user=organiser), method="registration")
    numbers = dict(Registration.objects.filter(event=event).values_list("player__name", "number"))
    assert numbers.pop("Late Comer") == 5 and sorted(numbers.values()) == [1, 2, 3, 4]
