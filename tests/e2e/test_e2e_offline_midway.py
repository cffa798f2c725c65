"""The hall's Wi-Fi drops while a page is in use (test_e2e_offline.py: the connection is gone before the page is
opened), in Chromium at phone size with the browser context set offline and back online.

- A referee half-way through a sheet: the live check had flagged the seats not filled yet, then the connection
  went. What it said is out of date: the seats filled since show none of it, the rest is marked so, and the
  sheet can be sent: it waits on the phone and arrives once when the connection returns, when the live check
  resumes.
- A desk volunteer searching: without a connection the search says so instead of leaving the previous
  search's players on screen, and looks through what the phone keeps (the list of who is missing).
"""

import re

import pytest
from playwright.sync_api import expect

from scoring.models import ScoreSheet
from scoring.services.links import ensure_links
from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.offline import (
    QUEUED,
    SENT,
    desk_with_players,
    nudge,
    referee_at_the_table,
    sheets_of,
    wait_until_cached,
)
from tests.factories import make_event, make_player, make_registration, make_staff, released_stage
from tournament.models import AuditEntry, Event, Registration
from tournament.services.audit import Actor

STALE = "Out of date: checked before the connection was lost."
NO_CONNECTION = "No connection: the rules engine will check this sheet when it arrives."


@pytest.fixture
def word_table():
    stage = released_stage(4, game=Event.Game.WORD)
    return stage, ensure_links(event=stage.event, actor=Actor(label="organiser"))[0]


def test_a_sheet_half_checked_when_the_connection_drops_is_sent_and_arrives_once(table, phone, server, shot):
    stage, link, seats = table
    referee, _table_url, _game_path = referee_at_the_table(phone, server, link)
    referee.get_by_role("link", name="Enter the scores").first.click()
    expect(referee.locator("h1")).to_have_text(f"Table {link.table_number}, game 1")

    # Online: seat 1 went out; the live check flags seats 2, 3 and 4, still empty.
    referee.locator('label[for="went-out-1"]').click()
    for position in (2, 3, 4):
        expect(referee.locator(f"#seat-{position}-check .sheet-problem-error")).not_to_have_count(0)
    submit = referee.locator(".sheet-submit")
    expect(submit).to_be_disabled()
    expect(referee.locator("[data-check-stale]")).to_be_hidden()
    shot(referee, "seats-2-to-4-flagged-online")

    # The Wi-Fi drops; the referee goes on with seats 3 and 4.
    referee.context.set_offline(True)
    referee.fill("#id_s3_tiles", "K7 K8")
    referee.fill("#id_s4_rack_value", "9")
    referee.fill("#id_s4_jokers", "0")
    expect(referee.locator("[data-offline-check]")).to_have_text(NO_CONNECTION)
    expect(submit).to_be_enabled()
    for position in (2, 3, 4):  # nothing stale at the seats
        expect(referee.locator(f"#seat-{position}-check .sheet-problem")).to_have_count(0)
    # The check's list is marked out of date, without its verdict and what it said of the seats filled since.
    expect(referee.locator("[data-check-stale]")).to_have_text(STALE)
    expect(referee.locator("#sheet-check")).to_have_class(re.compile(r"\bsheet-check-stale\b"))
    expect(referee.locator("#sheet-check .sheet-verdict")).to_be_hidden()
    expect(referee.locator("#sheet-check li[data-seats]")).to_have_count(1)
    expect(referee.locator('#sheet-check li[data-seats="2"]')).to_have_count(1)
    referee.locator("#sheet-check").scroll_into_view_if_needed()
    shot(referee, "offline-seat-2-still-listed-out-of-date")

    referee.fill("#id_s2_rack_value", "12")
    referee.fill("#id_s2_jokers", "0")
    referee.locator("#id_s2_jokers").blur()
    expect(referee.locator("#sheet-check li[data-seats]")).to_have_count(0)
    expect(referee.locator("[data-check-stale]")).to_be_hidden()  # nothing left it would be said of
    expect(submit).to_be_enabled()
    referee.locator("#sheet-check").scroll_into_view_if_needed()
    shot(referee, "finished-offline-check-out-of-date")

    submit.click()
    expect(referee.locator('[data-outbox-game="1"]')).to_have_text(QUEUED)
    assert sheets_of(stage) == []
    shot(referee, "queued-on-the-phone")

    # Back online: the outbox sends the sheet, once, and the live check answers again.
    referee.context.set_offline(False)
    expect(referee.locator('[data-outbox-game="1"]')).to_have_text(SENT)
    expect(referee.locator("[data-check-stale]")).to_be_hidden()
    expect(referee.locator("[data-offline-check]")).to_be_hidden()
    expect(referee.locator("#sheet-check")).not_to_have_class(re.compile(r"\bsheet-check-stale\b"))
    expect(referee.locator("#sheet-check")).to_contain_text("No problems found.")
    [sheet] = sheets_of(stage)
    assert sheet.status == ScoreSheet.Status.SUBMITTED
    assert sheet.seats.get(position=2).rack_value == 12 and sheet.seats.get(position=3).tiles == "K7 K8"
    shot(referee, "sent-after-the-drop")
    nudge(referee)  # a second flush finds nothing more to send
    expect(referee.locator('[data-outbox-game="1"]')).to_have_text(SENT)
    assert [s.pk for s in sheets_of(stage)] == [sheet.pk], "sent once, recorded once"


def test_a_word_sheet_checked_before_the_drop_says_its_check_is_out_of_date(word_table, page, server, shot):
    """A Rummikub Word turn sheet (R10) shares the page: its live check, answered before the drop, is marked out
    of date after it, and the sheet goes when the connection returns."""
    stage, link = word_table
    page.goto(server.url("referee-link-game", token=link.token, stage=1, game=1))
    page.fill("#id_t0_words", "PLANET")
    expect(page.locator("#word-check")).to_contain_text("PLANET")  # the live check's running totals

    page.context.set_offline(True)
    page.fill("#id_t1_words", "GARDEN")
    page.fill("#id_t2_words", "DISAPPEAR")
    expect(page.locator("[data-check-stale]")).to_have_text(STALE)
    expect(page.locator("#word-check")).to_have_class(re.compile(r"\bsheet-check-stale\b"))
    page.locator("#id_accept_warnings").check()
    page.locator("#word-check").scroll_into_view_if_needed()
    shot(page, "word-offline-check-out-of-date")
    page.locator(".sheet-submit").click()
    expect(page.locator('[data-outbox-game="1"]')).to_have_text(QUEUED)

    page.context.set_offline(False)
    # A wait, not a timing assertion: the first Word sheet of a process loads the word list (rules/word/).
    expect(page.locator('[data-outbox-game="1"]')).to_have_text(SENT, timeout=TIMEOUT_MS)
    expect(page.locator("[data-check-stale]")).to_be_hidden()
    expect(page.locator("#word-check")).to_contain_text("DISAPPEAR")
    [sheet] = sheets_of(stage)
    assert [turn.words for turn in sheet.word_turns.order_by("pk")] == ["PLANET", "GARDEN", "DISAPPEAR"]


# --- the desk --------------------------------------------------------------------------------------------------

DESK_NAMES = ["김민준", "김서연", "Chan Tai Man", "Lee Ka Yan"]
KEPT = re.compile(r"^No connection: searching only the players still to check in, as this phone kept them at "
                  r"\d\d:\d\d\.$")


def test_the_desk_searched_offline_says_so_and_searches_the_list_the_phone_keeps(phone, server, shot, sign_in):
    event, registrations, page, _missing = desk_with_players(phone, server, sign_in, DESK_NAMES)
    desk = server.url("desk", festival=event.festival.slug, event=event.slug)
    page.goto(desk)
    wait_until_cached(page, desk.removeprefix(server.root))
    search, results = page.locator("#desk-q"), page.locator("#desk-results")
    search.fill("김")
    expect(results.locator("li")).to_have_count(2)
    expect(page.locator("[data-desk-offline]")).to_have_count(0)

    # The Wi-Fi drops: the previous search's players do not stay as if they were this one's.
    page.context.set_offline(True)
    search.fill("chan")
    expect(page.locator("[data-desk-offline]")).to_have_text(KEPT)
    expect(results.locator("li")).to_have_count(1)
    expect(results.locator("li", has_text="Chan Tai Man")).to_be_visible()
    shot(page, "desk-offline-search-in-the-kept-list")
    results.locator("li", has_text="Chan Tai Man").get_by_role("button", name="Check in").click()
    expect(results.locator("li", has_text="Chan Tai Man").locator("[data-desk-queued]")).to_be_visible()
    expect(page.locator("[data-desk-waiting]")).to_have_text("Waiting to send (1)")

    search.fill("Nobody Here")
    expect(results).to_contain_text("Nobody found for “Nobody Here”.")
    expect(results.locator("li")).to_have_count(0)
    search.fill("chan")  # the tap waiting on the phone is shown again
    expect(results.locator("li", has_text="Chan Tai Man").locator("[data-desk-queued]")).to_be_visible()
    shot(page, "desk-offline-check-in-waiting")

    # The desk opened offline at a search's address: the phone's copy of the desk answers another search (or
    # none); this address's search is made in the list the phone keeps.
    page.goto(desk + "?q=lee")
    expect(page.locator("[data-desk-offline]")).to_have_text(KEPT)
    expect(search).to_have_value("lee")
    expect(results.locator("li")).to_have_count(1)
    expect(results.locator("li", has_text="Lee Ka Yan")).to_be_visible()
    search.fill("chan")
    expect(results.locator("li", has_text="Chan Tai Man").locator("[data-desk-queued]")).to_be_visible()

    # Back online: the check-in goes, once, and the search runs on the server again.
    page.context.set_offline(False)
    expect(page.locator("[data-desk-waiting]")).to_be_hidden()
    expect(page.locator("[data-desk-offline]")).to_have_count(0)
    expect(results.locator("li", has_text="Chan Tai Man").locator(".badge.text-bg-success")).to_contain_text(
        "Checked in")
    shot(page, "desk-back-online")
    arrived = Registration.objects.filter(event=event, checked_in_at__isnull=False)
    assert list(arrived.values_list("player__name", flat=True)) == ["Chan Tai Man"]
    assert AuditEntry.objects.filter(action="checkin.in", target_id=registrations["Chan Tai Man"].pk).count() == 1


def test_the_desk_searched_offline_with_no_list_kept_says_so_and_shows_nobody(phone, server, shot, sign_in):
    event = make_event(checkin_override=Event.CheckinOverride.OPEN)
    for name in DESK_NAMES:
        make_registration(event, make_player(event.festival, name=name))
    page = phone("desk")
    desk = server.url("desk", festival=event.festival.slug, event=event.slug)
    sign_in(page, make_staff(event.festival, "desk"), next_url=desk.removeprefix(server.root))
    search, results = page.locator("#desk-q"), page.locator("#desk-results")
    search.fill("김")
    expect(results.locator("li")).to_have_count(2)

    page.context.set_offline(True)
    search.fill("chan")
    expect(page.locator("[data-desk-offline]")).to_have_text(
        "No connection: search again when the connection returns.")
    expect(results.locator("li")).to_have_count(0)
    shot(page, "desk-offline-nothing-kept")
