"""The acceptance test of "organisers run their festival without Django admin": from an empty database and one
account made by `manage.py add_organiser`, everything happens in the browser — the festival and its Busan event
from the preset, the staff and their passwords, registration (CSV import), check-in at the desk, numbers, the
draw, table links and referee assignments, the referees' sheets, the chief referee's confirmations, closing the
round and the next draw. Every role starts from My work. No page under /admin/ is ever asked for.

16 players: round 1 has 4 tables (3 games), round 2 has 2 tables; the card of table 1 printed in round 1 opens
table 1 of round 2. The organiser works on a desktop-sized window, everyone else on a 360×740 phone.
Screenshots: artifacts/e2e/<this test's name>/.
"""

import datetime as dt
import io
import re
import time
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from scoring.models import RefereeAssignment, ScoreSheet
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.day_steps import (
    draw_and_release,
    expect_clean_check,
    fill_sheet,
    imported_people,
    make_links,
    open_next_game,
    planned_sheet,
    registrations_csv,
    send,
)
from tournament.models import Event, Festival, Registration, StaffRole, StageEntry
from tournament.qr import qr_svg

ORGANISER = "organiser"
PASSWORD = "a-long-day-in-busan"
STAFF_PASSWORD = "tables-and-tiles-2014"
PLAYERS = 16
SEEDS = {1: 2014, 2: 1014}
# Who the organiser adds on the staff page: e-mail addresses (new accounts named after them) and a username.
STAFF = {"desk": ("desk@example.org", "desk"), "chief": ("chief_referee", "chief referee"),
         "referee-1": ("ref.one@example.org", "referee"), "referee-2": ("ref.two@example.org", "referee")}


@dataclass(frozen=True)
class Login:
    """What the sign_in fixture needs of an account: the username typed into the form."""

    username: str

    def get_username(self) -> str:
        return self.username


@pytest.fixture
def visited():
    """Every address any page of the test asked for (navigations, htmx requests, static files)."""
    return []


@pytest.fixture
def person(phone, visited):
    """`person(name)`: a phone (tests/e2e/conftest.py), or a desktop window, whose every request is recorded."""
    def new_person(name: str, *, desktop: bool = False):
        page = phone(name, desktop=desktop)
        page.context.on("request", lambda r: visited.append(r.url))
        return page
    return new_person


def local_now() -> tuple[str, dt.datetime]:
    """A festival time zone where it is between 03:00 and 18:00 now: the test's event (check-in opened an
    hour ago, play started half an hour ago, the end five hours on) then fits in today's date."""
    now = timezone.now()
    for zone in ("UTC", "Asia/Seoul"):
        local = now.astimezone(ZoneInfo(zone))
        if 3 <= local.hour < 18:
            return zone, local
    raise AssertionError("unreachable: UTC or Seoul is always between 03:00 and 18:00")


def hhmm(moment: dt.datetime) -> str:
    return moment.strftime("%H:%M")


def notice(page, kind):
    return page.locator(f"main > .alert-{kind}").first


def my_work(page, server):
    page.goto(server.url("manage-home"))
    expect(page.locator("h1")).to_have_text("My work")
    return page


def next_step(page):
    """The organiser's "Next:" button of the (only) event on My work."""
    return page.locator("main p", has_text="Next:").locator("a.btn-primary")


def test_organisers_run_a_festival_from_an_empty_database_without_django_admin(
        server, person, sign_in, shot, visited):
    started = time.monotonic()
    assert not User.objects.exists() and not Festival.objects.exists()
    call_command("add_organiser", ORGANISER, "--create", "--password", PASSWORD, stdout=io.StringIO())

    organiser = person("organiser", desktop=True)
    sign_in(organiser, Login(ORGANISER), PASSWORD)
    expect(organiser.locator("h1")).to_have_text("My work")  # where a sign-in lands
    event = create_festival_and_event(server, organiser, shot)
    phones = add_staff(server, organiser, person, sign_in, shot, event)

    import_players(organiser, server, shot, event)
    check_in_at_the_desk(server, phones["desk"], shot, event)
    close_check_in_and_number(server, organiser, shot)
    links = draw_round_one_and_assign(server, organiser, shot, event)
    everyone_finds_their_work(server, organiser, phones, shot, event)
    play_round_one(server, organiser, phones, person, shot, event, links)
    close_round_one(server, organiser, shot, event)
    table_one_card_opens_round_two(server, organiser, person, shot, event, links)
    referees_keep_their_tables_in_round_two(server, phones, shot, event)

    admin = sorted({url for url in visited if "/admin/" in url})
    assert not admin, f"the browser asked for Django admin pages: {admin}"
    assert len(visited) > 100  # the recorder heard the whole day
    print(f"\norganiser's day in the browser: {time.monotonic() - started:.0f} s, {len(visited)} requests")


# --- the festival and its event ----------------------------------------------------------------------------

def create_festival_and_event(server, organiser, shot) -> Event:
    zone, now = local_now()
    organiser.get_by_role("link", name="New festival").click()
    organiser.locator("#id_name").fill("2030 부산 보드게임페스티벌")
    organiser.locator("#id_starts_on").fill(now.date().isoformat())
    organiser.locator("#id_venue").fill("벡스코")
    organiser.locator("#id_contact").fill("kodkod@example.kr")
    organiser.locator("#id_timezone").select_option(zone)
    organiser.get_by_role("button", name="Create the festival").click()
    expect(notice(organiser, "success")).to_contain_text("you are its organiser")

    organiser.get_by_role("link", name="Add an event").first.click()
    organiser.get_by_role("button", name="Busan elimination").click()
    organiser.locator("#id_expected_players").fill(str(PLAYERS))
    organiser.locator("#id_stage_games").fill("3,3")  # 16 → 8 → final 4: two rounds before the final
    organiser.locator("#id_day").fill(now.date().isoformat())
    # Play began half an hour ago (each round's clock then runs from its release); check-in is open now.
    organiser.locator("#id_starts").fill(hhmm(now - dt.timedelta(minutes=30)))
    organiser.locator("#id_ends").fill(hhmm(now + dt.timedelta(hours=5)))
    organiser.locator("#id_checkin_opens").fill(hhmm(now - dt.timedelta(hours=1)))
    organiser.locator("#id_checkin_closes").fill(hhmm(now + dt.timedelta(hours=2)))
    organiser.locator("#id_registration_opens_at").fill((now - dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"))
    organiser.locator("#id_registration_closes_at").fill((now + dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"))
    organiser.locator("#id_withdrawal_deadline").fill((now - dt.timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M"))
    expect(organiser.locator("#event-plan")).to_contain_text("final 4")
    shot(organiser, "event-form")
    organiser.get_by_role("button", name="Create the event", exact=True).click()
    # Play began before the event was entered: the form says so and saves it only once that is confirmed.
    expect(organiser.locator("#id_past_confirmed")).to_be_visible()
    organiser.locator("#id_past_confirmed").check()
    organiser.get_by_role("button", name="Create the event", exact=True).click()
    expect(notice(organiser, "success")).to_contain_text("is created")

    event = Event.objects.select_related("festival").get()
    assert event.festival.timezone == zone and event.stage_games == [3, 3]
    assert event.registration_is_open() and event.checkin_is_open()
    assert StaffRole.objects.filter(festival=event.festival, user__username=ORGANISER, role="organiser").exists()
    my_work(organiser, server)
    expect(next_step(organiser)).to_have_text("Close check-in")
    return event


# --- the staff: invitations, the accounts people make from them, their first sign-in ------------------------------------

def add_staff(server, organiser, person, sign_in, shot, event) -> dict:
    my_work(organiser, server).get_by_role("link", name="Staff and roles").click()
    expect(organiser.locator("h1")).to_have_text("Staff and roles")
    phones = {}
    for key, (identifier, role) in STAFF.items():
        organiser.locator("#id_identifier").fill(identifier)
        organiser.locator("#id_role").select_option(role)
        organiser.locator("main form[action$='/staff/add/'] button[type=submit]").click()
        expect(organiser.locator("h1")).to_contain_text("Invitation for")
        link = organiser.locator("main input[readonly]").input_value()
        if key == "desk":
            shot(organiser, "invitation-link-page")
        organiser.get_by_role("link", name="Back to the staff").click()

        username = identifier.split("@")[0]
        phone = phones[key] = person(key)  # the new staff member's own phone: another browser context
        phone.goto(link)
        expect(phone.locator("main")).to_contain_text("invites you to work there")
        expect(phone.locator("#id_username")).to_have_value(username)
        if key == "desk":
            shot(phone, "invitation-new-account")
        phone.locator("#id_password1").fill(STAFF_PASSWORD)
        phone.locator("#id_password2").fill(STAFF_PASSWORD)
        phone.get_by_role("button", name="Make my account and accept").click()
        expect(phone.locator("h1")).to_have_text("My work")
        if key == "desk":
            shot(phone, "desk-accepted-invitation")
        phone.context.clear_cookies()
        phone.goto(link)  # one time only
        expect(phone.locator("main .alert-warning")).to_contain_text("This link has been used")
        sign_in(phone, Login(username), STAFF_PASSWORD)
        expect(phone.locator("h1")).to_have_text("My work")
    organiser.reload()
    shot(organiser, "staff-page")
    held = set(StaffRole.objects.filter(festival=event.festival).values_list("user__username", "role"))
    assert held == {(ORGANISER, "organiser"), ("desk", "desk"), ("chief_referee", "chief referee"),
                    ("ref.one", "referee"), ("ref.two", "referee")}
    return phones


# --- registration and check-in -----------------------------------------------------------------------------

def import_players(organiser, server, shot, event):
    people = imported_people()[:PLAYERS]
    organiser.goto(server.url("manage-festival", festival=event.festival.slug))
    organiser.get_by_role("link", name="Import registrations").click()
    organiser.set_input_files("#id_file", files=[{
        "name": "registrations.csv", "mimeType": "text/csv", "buffer": registrations_csv(event.slug, people)}])
    organiser.locator("main form [type=submit]").click()
    expect(organiser.locator("#import-summary")).to_contain_text("0 with problems")
    organiser.check("#id_consent_held")
    organiser.locator("button[name=action][value=all]").click()
    expect(notice(organiser, "success")).to_contain_text(f"Imported {PLAYERS} registrations")


def check_in_at_the_desk(server, desk, shot, event):
    my_work(desk, server).get_by_role("link", name="Check-in desk").click()
    expect(desk.locator("h1")).to_have_text("Check-in desk")
    desk.locator("main a[href$='/missing/']").first.click()  # "16 missing"
    for player in imported_people()[:PLAYERS]:
        row = desk.locator("#desk-missing li", has_text=player.name)
        row.get_by_role("button", name="Check in").click()
        expect(row.locator(".badge.text-bg-success")).to_be_visible()
    shot(desk, "desk-everyone-checked-in")
    assert Registration.objects.filter(event=event, checked_in_at__isnull=False).count() == PLAYERS


def close_check_in_and_number(server, organiser, shot):
    my_work(organiser, server)
    expect(next_step(organiser)).to_have_text("Close check-in")
    next_step(organiser).click()  # → the event page
    organiser.locator("a[data-checkin-close]").click()
    expect(organiser.locator("[data-confirm-lines]")).to_contain_text(f"{PLAYERS} players checked in will play.")
    organiser.locator("[data-confirm-button]").click()
    expect(notice(organiser, "success")).to_contain_text("Closed (by the organiser)")

    my_work(organiser, server)
    expect(next_step(organiser)).to_have_text("Assign player numbers")
    next_step(organiser).click()
    organiser.locator("form[action$='/numbers/'] button[type=submit]").click()
    expect(organiser.locator("[data-confirm-lines]")).to_contain_text(
        f"{PLAYERS} checked-in players get numbers 1 to {PLAYERS}")
    organiser.locator("[data-confirm-button]").click()
    expect(notice(organiser, "success")).to_contain_text("Player numbers are assigned")


# --- round 1 -----------------------------------------------------------------------------------------------

def draw_round_one_and_assign(server, organiser, shot, event) -> dict[int, str]:
    my_work(organiser, server)
    expect(next_step(organiser)).to_have_text("Make the first draw")
    next_step(organiser).click()
    organiser.locator("form[action$='/start/'] button").click()
    expect(notice(organiser, "success")).to_contain_text("The first round is ready to be drawn.")
    draw_and_release(organiser, organiser.url, SEEDS[1], 4)  # its release goes through the confirmation page
    links = make_links(organiser, 4)
    for table, referee in ((1, "ref.one"), (2, "ref.two")):  # one table each: "from 1", the second box empty
        form = organiser.locator("form[action$='/referees/assign/']")
        form.get_by_label("From table").fill(str(table))
        form.locator("select[name=referee]").select_option(label=referee)
        form.get_by_role("button", name="Assign").click()
        expect(notice(organiser, "success")).to_contain_text(f"{referee} holds table {table} from now on")
        expect(organiser.locator(f"section[data-table='{table}'] [data-referee='{referee}']")).to_be_visible()
    shot(organiser, "round-1-links-and-referees")
    assert set(RefereeAssignment.objects.filter(ended_at__isnull=True)
               .values_list("table_number", "referee__username")) == {(1, "ref.one"), (2, "ref.two")}
    return links


# How far (px) the text of each visible link-button sits from the middle of its box, by its label.
OFF_CENTRE_JS = """() => Array.from(document.querySelectorAll('main a.btn-tap')).filter(a => a.offsetParent)
    .map(a => {
        const range = document.createRange();
        range.selectNodeContents(a);
        const text = range.getBoundingClientRect(), box = a.getBoundingClientRect();
        return [a.textContent.trim(), Math.abs((text.top + text.bottom) / 2 - (box.top + box.bottom) / 2)];
    })"""


def at_phone_size(page, shot, step):
    """The organiser's desktop window narrowed to a phone for one picture. The buttons that are links have
    their text in the middle, as real buttons do (static/css/app.css)."""
    page.set_viewport_size(PHONE["viewport"])
    shot(page, step)
    off = {label: offset for label, offset in page.evaluate(OFF_CENTRE_JS) if offset > 2}
    assert not off, f"link-buttons with their text off the middle (px): {off}"
    page.set_viewport_size(DESKTOP["viewport"])


def everyone_finds_their_work(server, organiser, phones, shot, event):
    board = server.url("board", festival=event.festival.slug, event=event.slug)
    desk = my_work(phones["desk"], server)
    expect(desk.get_by_role("link", name="Check-in desk")).to_have_attribute(
        "href", server.url("desk", festival=event.festival.slug, event=event.slug).removeprefix(server.root))
    expect(desk.get_by_role("link", name="Live board")).to_have_count(0)
    shot(desk, "my-work-desk")

    chief = my_work(phones["chief"], server)
    expect(chief.get_by_role("link", name="Live board")).to_have_attribute(
        "href", board.removeprefix(server.root))
    expect(chief.get_by_role("link", name="Check-in desk")).to_have_count(0)
    shot(chief, "my-work-chief-referee")

    for table in (1, 2):
        referee = my_work(phones[f"referee-{table}"], server)
        tables = referee.locator("section[aria-labelledby=my-tables] a")
        expect(tables).to_have_count(1)
        expect(tables).to_have_text(f"Table {table} · Round 1 · {event.name}")
        expect(referee.get_by_role("link", name="Live board")).to_have_count(0)
        shot(referee, f"my-work-referee-table-{table}")

    my_work(organiser, server)
    expect(next_step(organiser)).to_have_text("Follow Round 1 and close it")
    at_phone_size(organiser, shot, "my-work-organiser")


def play_round_one(server, organiser, phones, person, shot, event, links):
    # Tables 1 and 2: their referees open them from My work. Tables 3 and 4: whoever holds the printed card.
    referees = {}
    for table in (1, 2):
        page = my_work(phones[f"referee-{table}"], server)
        page.locator("section[aria-labelledby=my-tables] a").click()
        expect(page.locator("h1")).to_have_text(f"Table {table}")
        referees[table] = page
    cards = printed_cards(organiser, server, shot, event, links)
    for table in (3, 4):
        referees[table] = person(f"card-table-{table}")
        referees[table].goto(cards[table])

    chief = phones["chief"]
    for game in (1, 2, 3):
        for referee in referees.values():
            table_url = referee.url
            sheet = planned_sheet(open_next_game(referee), game)
            fill_sheet(referee, sheet)
            expect_clean_check(referee)
            send(referee, table_url)
        if game == 1:
            shot(referees[1], "referee-table-1-game-1-sent")
            my_work(chief, server).get_by_role("link", name="Live board").click()
        chief.goto(server.url("board", festival=event.festival.slug, event=event.slug) + f"?stage=1&game={game}")
        chief.locator("a[data-confirm-clean]").click()
        expect(chief.locator("[data-confirm-lines]")).to_contain_text("4 sheets submitted with no problems")
        chief.locator("[data-confirm-button]").click()
        expect(notice(chief, "success")).to_contain_text("4 sheets confirmed.")
    shot(chief, "round-1-game-3-confirmed")
    confirmed = ScoreSheet.objects.filter(stage__event=event, status=ScoreSheet.Status.CONFIRMED)
    assert confirmed.count() == 12
    by_account = {(s.table_number, s.submitted_by.username) for s in confirmed if s.submitted_by is not None}
    assert by_account == {(1, "ref.one"), (2, "ref.two")}
    assert {s.table_number for s in confirmed if s.submitted_by is None} == {3, 4}
    assert set(confirmed.values_list("decided_by__username", flat=True)) == {"chief_referee"}


def printed_cards(organiser, server, shot, event, links) -> dict[int, str]:
    """The referee cards page: each card's QR code encodes its table's private link (as the links page shows
    it); a card's holder scans it — here, opens that address."""
    organiser.goto(server.url("board-link-cards", festival=event.festival.slug, event=event.slug))
    cards = organiser.locator("section.referee-card")
    expect(cards).to_have_count(4)
    shot(organiser, "referee-cards")
    for table, url in links.items():
        drawn = organiser.locator(f"section.referee-card[data-table='{table}'] svg path.qrline").get_attribute("d")
        line = re.search(r"<path[^>]*qrline[^>]*>", qr_svg(url, scale=6)).group(0)
        expected = re.search(r'\sd="([^"]+)"', line).group(1)
        assert drawn == expected, f"table {table}'s card does not encode its link"
    return links


def close_round_one(server, organiser, shot, event):
    my_work(organiser, server)
    next_step(organiser).click()  # "Follow Round 1 and close it" → the stage page
    expect(organiser.locator("[data-close-stage]")).to_be_visible()
    lots = organiser.locator("form[action$='/lots/'] button")
    if lots.count():  # a tie at the cut (R7): the page says so; a lot settles it (R8.1)
        lots.click()
        expect(notice(organiser, "success")).to_contain_text("Lots drawn")
    organiser.locator("[data-close-stage] a").click()
    expect(organiser.locator("[data-confirm-lines]")).to_contain_text("8 players advance, 8 are out.")
    shot(organiser, "round-1-close-confirmation")
    organiser.locator("[data-confirm-button]").click()
    expect(notice(organiser, "success")).to_contain_text("is ready to be drawn")
    assert StageEntry.objects.filter(stage__event=event, stage__number=2).count() == 8


def table_one_card_opens_round_two(server, organiser, person, shot, event, links):
    my_work(organiser, server)
    expect(next_step(organiser)).to_have_text("Make the draw of Round 2")  # closing made round 2, not its draw
    next_step(organiser).click()
    draw_and_release(organiser, organiser.url, SEEDS[2], 2)
    assert make_links(organiser, 2, made=links) == {1: links[1], 2: links[2]}
    seated = organiser.locator("section[data-table='1'] p.small").first.inner_text()
    names = {part.split(". ", 1)[1] for part in seated.split(" · ")}
    assert len(names) == 4

    holder = person("card-table-1-round-2")
    holder.goto(links[1])  # the card printed for round 1
    expect(holder.locator("h1")).to_have_text("Table 1")
    expect(holder.locator(".sheet-page > p").first).to_contain_text("Round 2")
    seats = open_next_game(holder)
    assert "/stage-2/game/1/" in holder.url
    assert set(seats.values()) == names
    shot(holder, "round-1-card-opens-round-2-table-1")


def referees_keep_their_tables_in_round_two(server, phones, shot, event):
    """Assigned once in round 1, each referee opens their table of round 2 from My work, with no new assignment."""
    for table in (1, 2):
        referee = my_work(phones[f"referee-{table}"], server)
        tables = referee.locator("section[aria-labelledby=my-tables] a")
        expect(tables).to_have_text(f"Table {table} · Round 2 · {event.name}")
        tables.click()
        expect(referee.locator("h1")).to_have_text(f"Table {table}")
        expect(referee.locator(".sheet-page > p").first).to_contain_text("Round 2")
        shot(referee, f"round-2-referee-table-{table}")
