"""Tables that keep their own sheet, in a real browser at 360×740: a Hong Kong event of 16 players whose players
enter the sheets (Event.sheets_by). At table 1 four phones — each player's own personal page — enter game 1 and
agree to it, one of them without a connection for a while (its answer waits on the phone and goes by itself).
At table 2 a player disputes the sheet; the chief referee's board shows the dispute with its reason, the chief
corrects the sheet and confirms it, and the standings move on the players' phones."""

import pytest
from playwright.sync_api import expect

from scoring.models import ScoreSheet
from scoring.services.agreement import AGREED, agreements
from tests.e2e.offline import arrived, fill, nudge
from tests.factories import make_staff, released_stage
from tournament.models import Event
from tournament.services import seating

PHONE_WIDTH = 360


@pytest.fixture
def stage():
    return released_stage(16, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016, rotation_games=3,
                          sheets_by=Event.SheetsBy.PLAYERS)


def fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH


def seated(stage, table):
    return seating.seats(seating.game_draw(stage, 1), table=table)


def open_sheet(page, server, seat):
    """The player's own page, then their table's sheet of game 1."""
    page.goto(server.root + seat.registration.player.get_absolute_url())
    page.get_by_role("link", name="Your table's sheet: enter it or agree to it").click()
    expect(page.locator("h1")).to_contain_text(f"Table {seat.table.number}")


def sheet_of(stage, table):
    return ScoreSheet.objects.filter(stage=stage, game=1, table_number=table, status__in=ScoreSheet.LIVE).first()


def state_of(stage, table):
    sheet = ScoreSheet.objects.select_related("stage__event").get(pk=sheet_of(stage, table).pk)
    return agreements([sheet], sheet.stage.event).get(sheet.pk)


def enter_game_1(page, shot, name):
    page.get_by_role("link", name="Enter the scores").first.click()
    expect(page.locator("h1")).to_contain_text("game 1")
    fill(page)
    page.locator(".sheet-submit").click()
    expect(page.locator("[data-agreement]")).to_be_visible()
    shot(page, name)


def test_four_phones_agree_a_dispute_is_settled_by_the_chief_and_the_standings_move(stage, phone, server, shot,
                                                                                   sign_in):
    event = stage.event
    table_1, table_2 = seated(stage, 1), seated(stage, 2)

    # Table 1: seat 1 enters the sheet; seats 2–4 open it on their own phones.
    phones = [phone(f"table1-seat{seat.position}") for seat in table_1]
    for page, seat in zip(phones, table_1, strict=True):
        open_sheet(page, server, seat)
    enter_game_1(phones[0], shot, "table1-entered")
    expect(phones[0].locator("[data-agreement-label]")).to_have_text("entered · 1 of 4 agreed")
    for page in phones[1:]:
        page.reload()  # the table's page as it is now: game 1 entered
        page.get_by_role("link", name="Open the sheet").first.click()
        expect(page.locator("form[data-answer-form]")).to_be_visible()
    assert fits(phones[1]), "the sheet and its answers fit a 360 px phone"
    shot(phones[1], "table1-seat2-asked")

    offline = phones[3]
    offline.context.set_offline(True)
    offline.get_by_role("button", name="Agree: the sheet is right").click()
    expect(offline.locator("[data-answer-queued]")).to_be_visible()
    shot(offline, "table1-seat4-saved-offline")
    for page in phones[1:3]:
        page.get_by_role("button", name="Agree: the sheet is right").click()
        expect(page.locator("[data-answer-reply]")).to_contain_text("agreed to the sheet")
    assert state_of(stage, 1).agreed == 3
    offline.context.set_offline(False)
    nudge(offline)
    assert arrived(offline, lambda: state_of(stage, 1).state == AGREED), "the queued answer arrives by itself"
    offline.reload()
    expect(offline.locator("[data-agreement-label]")).to_have_text("agreed by the table")
    shot(offline, "table1-agreed")

    # Table 2: seat 1 enters, seat 3 disputes with a reason.
    entering, disputing = phone("table2-seat1"), phone("table2-seat3")
    open_sheet(entering, server, table_2[0])
    enter_game_1(entering, shot, "table2-entered")
    open_sheet(disputing, server, table_2[2])
    disputing.get_by_role("link", name="Open the sheet").first.click()
    disputing.fill("#id_reason", "My rack was 7, not K7 K8")
    disputing.get_by_role("button", name="Dispute it").click()
    expect(disputing.locator("[data-answer-reply]")).to_contain_text("disputed the sheet")
    disputing.reload()
    expect(disputing.locator("[data-agreement-label]")).to_have_text("disputed")
    assert fits(disputing)
    shot(disputing, "table2-disputed")

    # Standings on a player's phone before anything is confirmed.
    winner = phones[0]
    winner.goto(server.root + table_1[0].registration.player.get_absolute_url())
    expect(winner.locator("body")).not_to_contain_text("1 win ")

    # The chief referee: table 1 confirmed with one tap; table 2 shows the dispute, is corrected and confirmed.
    chief = phone("chief")
    sign_in(chief, make_staff(event.festival, "chief referee"),
            next_url=server.url("board", festival=event.festival.slug, event=event.slug).removeprefix(server.root))
    row_1, row_2 = (chief.locator(f'#board li[data-table="{n}"]') for n in (1, 2))
    expect(row_1.locator("[data-agreement]")).to_have_text("agreed by the table")
    expect(row_2.locator("[data-agreement]")).to_have_text("disputed")
    expect(row_2.locator("[data-dispute]")).to_contain_text("My rack was 7, not K7 K8")
    expect(row_2.get_by_role("button", name="Confirm")).to_have_count(0)
    assert fits(chief)
    shot(chief, "board-agreed-and-disputed")
    row_1.get_by_role("button", name="Confirm").click()
    expect(chief.locator('#board li[data-table="1"]')).to_have_attribute("data-state", "confirmed")

    chief.locator('#board li[data-table="2"]').get_by_role("link", name="Settle the dispute").click()
    expect(chief.locator("[data-dispute]")).to_contain_text("My rack was 7")
    chief.get_by_role("link", name="Correct and confirm").click()
    chief.fill("#id_s3_tiles", "")
    chief.fill("#id_s3_rack_value", "7")
    chief.fill("#id_s3_jokers", "0")
    chief.fill("textarea[name=reason]", "Seat 3 was right: 7 left")
    shot(chief, "correcting")
    chief.locator(".sheet-submit").click()
    expect(chief.locator("body")).to_contain_text("The sheet is corrected")
    confirmed = sheet_of(stage, 2)
    assert confirmed.status == ScoreSheet.Status.CONFIRMED and confirmed.version == 2
    assert confirmed.seats.get(position=3).rack_value == 7

    # The standings move on the players' phones.
    winner.reload()
    expect(winner.locator("body")).to_contain_text("1 win")
    shot(winner, "winner-standing")
    loser = disputing
    loser.goto(server.root + table_2[2].registration.player.get_absolute_url())
    expect(loser.locator("body")).to_contain_text("-7")
    assert fits(loser)
    shot(loser, "table2-seat3-standing")
