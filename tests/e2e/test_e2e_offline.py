"""The hall's Wi-Fi drops, pages open: in Chromium at phone size with the browser context set offline and back
online (the pages closed: test_e2e_offline_closed.py).

A referee's table link keeps working: the sheet page comes from the phone's cache (service worker), a sheet
sent offline waits on the phone and arrives once when the connection returns (the idempotency key, R9), and
the chief referee confirms it. A queued sheet the server refuses on arrival (a mistake the rules engine finds,
R4–R6) shows why, and is corrected and sent again. Signing out leaves no staff page in the phone's cache.
"""

from email.utils import parsedate_to_datetime

import pytest
from playwright.sync_api import expect

from scoring.models import ScoreSheet
from scoring.services.links import assign_tables, ensure_links
from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.offline import (
    QUEUED,
    SENT,
    cached_paths,
    desk_with_players,
    fill,
    nudge,
    outbox,
    referee_at_the_table,
    sheets_of,
    tap_check_ins_offline,
    wait_until_cached,
)
from tests.factories import make_staff, released_stage
from tournament.models import AuditEntry, Event, Registration
from tournament.services import seating
from tournament.services.audit import Actor
from tournament.services.checkin import check_in
from tournament.services.draws import unrelease_draw


def test_a_sheet_sent_offline_waits_on_the_phone_arrives_once_and_the_chief_confirms_it(
        table, phone, server, shot, sign_in):
    stage, link, seats = table
    referee, table_url, _game_path = referee_at_the_table(phone, server, link)
    context = referee.context
    manifest = referee.locator('link[rel="manifest"]').get_attribute("href")
    shot(referee, "table-online")

    context.set_offline(True)
    referee.get_by_role("link", name="Enter the scores").first.click()
    expect(referee.locator("h1")).to_have_text(f"Table {link.table_number}, game 1")
    referee.reload()  # a reload with no connection: the sheet from the phone's cache, with the seated players
    for seat in seats:
        expect(referee.locator(f'#seat-{seat.position} legend.h5')).to_contain_text(
            seat.registration.player.name)
    fill(referee)
    expect(referee.locator("[data-offline-check]")).to_be_visible()  # no live check: checked on arrival
    shot(referee, "filled-offline")

    referee.locator(".sheet-submit").click()
    status = referee.locator('[data-outbox-game="1"]')
    expect(status).to_have_text(QUEUED)
    expect(referee.locator(".sheet-submit")).to_be_enabled()
    assert sheets_of(stage) == []
    shot(referee, "queued-on-the-phone")

    referee.reload()  # still offline: the queued sheet is still there, and says so
    expect(referee.locator('[data-outbox-game="1"]')).to_have_text(QUEUED)
    referee.locator("a", has_text="Back to the table").click()
    expect(referee.locator('[data-outbox-game="1"]')).to_have_text(QUEUED)

    context.set_offline(False)  # `online`: the outbox sends by itself
    expect(referee.locator('[data-outbox-game="1"]')).to_have_text(SENT)
    [sheet] = sheets_of(stage)
    assert sheet.status == ScoreSheet.Status.SUBMITTED
    assert sheet.seats.get(position=1).went_out and sheet.seats.get(position=3).tiles == "K7 K8"
    shot(referee, "sent")

    # The chief referee confirms it; the referee's phone hears of it when it next asks.
    festival = stage.event.festival
    chief = make_staff(festival, "chief referee")
    chief_phone = phone("chief")
    sign_in(chief_phone, chief, next_url=server.url("board", festival=festival.slug, event=stage.event.slug)
            .removeprefix(server.root))
    row = chief_phone.locator(f'#board li[data-table="{link.table_number}"]')
    expect(row).to_have_attribute("data-state", "submitted")
    row.get_by_role("button", name="Confirm").click()
    expect(chief_phone.locator(f'#board li[data-table="{link.table_number}"]')).to_have_attribute(
        "data-state", "confirmed")

    nudge(referee)
    expect(referee.locator('[data-outbox-game="1"]')).to_have_text("Confirmed")
    shot(referee, "confirmed")
    nudge(referee)
    referee.evaluate("window.dispatchEvent(new Event('online'))")
    referee.reload()
    expect(referee.locator(".sheet-game").first).to_contain_text("Confirmed")
    assert [s.pk for s in sheets_of(stage)] == [sheet.pk], "sent once, recorded once"

    # The table link installs as an app named by the event and the table.
    app = referee.request.get(server.root + manifest).json()
    assert app["name"] == f"{stage.event.name} · Table {link.table_number}"
    assert app["start_url"] == table_url.removeprefix(server.root) and app["scope"] == app["start_url"]
    assert {icon["sizes"] for icon in app["icons"]} >= {"192x192", "512x512"}


def test_a_queued_sheet_refused_on_arrival_shows_why_and_is_sent_again(table, page, server, shot):
    stage, link, seats = table
    game_url = server.url("referee-link-game", token=link.token, stage=1, game=1)
    page.goto(game_url)
    wait_until_cached(page, game_url.removeprefix(server.root))

    page.context.set_offline(True)
    page.reload()
    fill(page, jokers_of_seat_4=3)  # a rack holds 0 to 2 jokers (R1): nobody can tell offline
    page.locator(".sheet-submit").click()
    expect(page.locator('[data-outbox-game="1"]')).to_have_text(QUEUED)

    page.context.set_offline(False)
    # The server refuses it on arrival: the page is the server's answer, with the sheet as typed and the reason.
    expect(page.locator("#seat-4-check")).to_contain_text("A rack holds 0 to 2 jokers.")
    expect(page.locator("#id_s4_jokers")).to_have_value("3")
    expect(page.locator('[data-outbox-game="1"]')).to_be_hidden()
    assert sheets_of(stage) == []
    shot(page, "refused-on-arrival")

    page.fill("#id_s4_jokers", "0")
    expect(page.locator("#sheet-check")).to_contain_text("No problems found.")
    page.locator(".sheet-submit").click()
    expect(page.locator("h1")).to_have_text(f"Table {link.table_number}")
    expect(page.locator(".sheet-game").first).to_contain_text("Submitted")
    [sheet] = sheets_of(stage)
    assert sheet.seats.get(position=4).jokers == 0
    shot(page, "corrected-and-sent")


def test_a_queued_sheet_whose_draw_was_taken_back_meanwhile_never_shows_as_sent(table, page, server, shot, sign_in):
    """The server answers such a sheet with a redirect (the game is not released now), as it answers a recorded
    one: only the sheet's status, holding this sheet's key, makes it "sent"."""
    stage, link, seats = table
    referee = make_staff(stage.event.festival, "referee")
    assign_tables(event=stage.event, first=link.table_number, last=link.table_number, referee=referee,
                  actor=Actor(label="organiser"))
    game = server.url("referee-game", stage_id=stage.pk, table=link.table_number, game=1).removeprefix(server.root)
    sign_in(page, referee, next_url=game)
    wait_until_cached(page, game)

    page.context.set_offline(True)
    page.reload()
    fill(page)
    page.locator(".sheet-submit").click()
    status = page.locator('[data-outbox-game="1"]')
    expect(status).to_have_text(QUEUED)
    unrelease_draw(draw=seating.game_draw(stage, 1), actor=Actor(label="organiser"), reason="a player was missed")

    # Everything the line says from now on is noted (sessionStorage outlives the page's navigation).
    page.evaluate("""() => {
        const line = document.querySelector('[data-outbox-game="1"]');
        new MutationObserver(() => {
            const said = JSON.parse(sessionStorage.getItem('said') || '[]');
            sessionStorage.setItem('said', JSON.stringify([...said, line.textContent]));
        }).observe(line, {childList: true, characterData: true, subtree: true});
    }""")
    page.context.set_offline(False)
    # Not recorded: the page says why, as the server said it, once.
    expect(page.get_by_role("alert")).to_have_text("This game has not been released yet.")
    assert SENT not in page.evaluate("JSON.parse(sessionStorage.getItem('said') || '[]')")
    assert sheets_of(stage) == [] and outbox(page, "sheet") == []
    shot(page, "taken-back-refused")


def test_signing_out_leaves_no_staff_page_in_the_cache(table, page, server, sign_in):
    stage, link, seats = table
    referee = make_staff(stage.event.festival, "referee")
    assign_tables(event=stage.event, first=link.table_number, last=link.table_number, referee=referee,
                  actor=Actor(label="organiser"))
    own_table = server.url("referee-table", stage_id=stage.pk, table=link.table_number).removeprefix(server.root)
    sign_in(page, referee, next_url=own_table)
    wait_until_cached(page, own_table)
    page.goto(server.url("referee-link-table", token=link.token))
    wait_until_cached(page, f"/t/{link.token}/")
    page.goto(server.url(own_table))
    assert any(path.startswith("rk-staff /referee/") for path in cached_paths(page))

    with page.expect_navigation():
        page.get_by_role("button", name="Sign out").click()
    left = cached_paths(page)
    assert not [path for path in left if "/referee/" in path or "/t/" in path or "/desk/" in path], left
    assert not [path for path in left if path.startswith(("rk-staff", "rk-table"))], left


def test_a_players_standings_page_opens_offline_with_its_time(table, page, server, shot):
    stage, link, seats = table
    festival, event = stage.event.festival, stage.event
    standings = server.url("public-standings", festival=festival.slug, event=event.slug)
    page.goto(standings)
    expect(page.locator("[data-offline-asof]")).to_be_hidden()  # online: nothing to say
    wait_until_cached(page, standings.removeprefix(server.root))

    # The time said is when the server made the copy this phone keeps (not when it first rendered a page it
    # keeps for many visitors), in the festival's zone; no list of the pages seen is kept for it. Here the
    # copy's Date is set to a known moment, unlike the time the page was rendered.
    made = "Tue, 01 Jan 2030 03:04:00 GMT"
    page.evaluate("""async ([path, made]) => {
        for (const name of await caches.keys()) {
            const cache = await caches.open(name);
            const copy = await cache.match(path);
            if (!copy) { continue; }
            const headers = new Headers(copy.headers);
            headers.set('Date', made);
            await cache.put(path, new Response(await copy.text(), {status: 200, headers}));
        }
    }""", [standings, made])
    assert page.evaluate("Object.keys(localStorage)") == []

    page.context.set_offline(True)
    page.reload()
    expect(page.locator("h1")).to_contain_text("Standings")
    expect(page.locator("[data-offline-asof]")).to_be_visible()
    local = parsedate_to_datetime(made).astimezone(festival.tzinfo).strftime("%H:%M")
    expect(page.locator("[data-offline-asof]")).to_have_text(f"As of {local} — no connection")
    shot(page, "standings-offline")

    page.context.set_offline(False)  # back: the page refreshes itself from the server
    expect(page.locator("[data-offline-asof]")).to_be_hidden()


# --- the desk --------------------------------------------------------------------------------------------

def test_the_desk_checks_in_three_players_offline_and_each_arrives_once(phone, server, shot, sign_in):
    names = ["김민준", "김서연", "Chan Tai Man", "Lee Ka Yan"]
    event, registrations, page, _missing = desk_with_players(phone, server, sign_in, names)
    page.context.set_offline(True)
    page.reload()  # the list of who is missing, from the phone's cache
    tap_check_ins_offline(page, names[:3])
    page.reload()  # still kept, still offline
    expect(page.locator("[data-desk-waiting]")).to_have_text("Waiting to send (3)")
    assert not Registration.objects.filter(event=event, checked_in_at__isnull=False).exists()
    shot(page, "three-waiting")

    # Meanwhile another desk (online) checks 김서연 in.
    check_in(registration=registrations["김서연"], actor=Actor(label="the other desk"))

    page.context.set_offline(False)
    expect(page.locator("[data-desk-waiting]")).to_be_hidden()
    reports = page.locator("[data-desk-report]")
    expect(reports).to_have_count(3)
    expect(page.locator('[data-desk-report="problem"]')).to_have_text(
        "김서연 was already checked in by another desk: not checked in twice.")
    shot(page, "sent")
    page.evaluate("window.dispatchEvent(new Event('online'))")  # a second flush finds nothing to send
    expect(reports).to_have_count(3)
    arrived = Registration.objects.filter(event=event, checked_in_at__isnull=False)
    assert set(arrived.values_list("player__name", flat=True)) == set(names[:3])
    for name in names[:3]:
        assert AuditEntry.objects.filter(action="checkin.in", target_id=registrations[name].pk).count() == 1, name


@pytest.fixture
def word_table():
    stage = released_stage(4, game=Event.Game.WORD)
    link = ensure_links(event=stage.event, actor=Actor(label="organiser"))[0]
    return stage, link


def test_a_rummikub_word_sheet_sent_offline_arrives_once_too(word_table, page, server, shot):
    """A Word referee (R10) keeps working through the drop as a classic one does: the turn sheet is kept on the
    phone when sent without a connection, and arrives once when it returns."""
    stage, link = word_table
    table_url = server.url("referee-link-table", token=link.token)
    game_path = server.url("referee-link-game", token=link.token, stage=1, game=1).removeprefix(server.root)
    page.goto(table_url)
    wait_until_cached(page, game_path)

    page.context.set_offline(True)
    page.get_by_role("link", name="Enter the scores").first.click()
    # The sheet's page has opened before it is reloaded (a reload during the click's navigation detaches the page).
    expect(page.locator("h1")).to_contain_text("game 1")
    page.reload()  # from the phone's cache
    for row, words in enumerate(["PLANET", "GARDEN", "DISAPPEAR"]):
        page.fill(f"#id_t{row}_words", words)
    page.locator("#id_accept_warnings").check()
    shot(page, "word-filled-offline")
    page.locator(".sheet-submit").click()
    expect(page.locator('[data-outbox-game="1"]')).to_have_text(QUEUED)
    assert sheets_of(stage) == []

    page.context.set_offline(False)
    # A wait, not a timing assertion: the first Word sheet of a process loads the word list (rules/word/).
    expect(page.locator('[data-outbox-game="1"]')).to_have_text(SENT, timeout=TIMEOUT_MS)
    [sheet] = sheets_of(stage)
    assert [(turn.position, turn.words) for turn in sheet.word_turns.order_by("pk")] == [
        (1, "PLANET"), (2, "GARDEN"), (3, "DISAPPEAR")]
    nudge(page)  # sent again by a second flush: still one sheet
    expect(page.locator('[data-outbox-game="1"]')).to_have_text(SENT)
    assert len(sheets_of(stage)) == 1


# --- the page closed: the service worker sends (Background Sync) -----------------------------------------------
