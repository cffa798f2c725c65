"""Public and shared pages in a real browser at phone size: live standings that update themselves after a
confirmed sheet (htmx polling, no reload), and the language switch (Korean and
Traditional Chinese on the referee's pages, including the live check's messages)."""

import re

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from scoring.services.links import ensure_links
from scoring.services.sheets import confirm_sheet, submit_sheet
from tests.factories import make_staff, released_stage
from tests.scoring.helpers import entry_for, key
from tournament.services import seating
from tournament.services.audit import Actor

POLL_SECONDS = 3  # templates/public/standings.html: hx-trigger="every 3s"


@pytest.fixture
def stage():
    return released_stage(4)


def in_language(code: str, text: str, **values) -> str:
    """The app's own translation; a missing one would make the check below meaningless, so refuse it."""
    with translation.override(code):
        translated = gettext(text)
    assert translated != text, f"no {code} translation of {text!r}"
    return translated % values if values else translated


def row_of(table, name: str):
    """The row of exactly this player ("Player 1" is not "Player 12")."""
    return table.locator("tbody tr", has_text=re.compile(rf"(^|\s){re.escape(name)}(\s|$)"))


def test_standings_open_on_a_phone_update_without_reload_after_a_sheet_is_confirmed(stage, page, server, shot,
                                                                                    marker, clock):
    event = stage.event
    clock.freeze(page)  # no 15-second wait, and no poll before the test asks for one
    # The table of every game: this 4-player final is over after its one game, and the default page then
    # leads with the final places.
    page.goto(server.url("public-standings-all", festival=event.festival.slug, event=event.slug))
    standings = page.locator("table.standings")
    seats = seating.seats(seating.game_draw(stage, 1), table=1)
    winner = seats[0].registration.player.name
    expect(standings).to_contain_text(winner)
    expect(standings).not_to_contain_text("+60")
    marker.set(page)
    shot(page, "standings-before")

    # Game 1 at table 1 is entered and confirmed meanwhile (through the services the pages use). R6: the
    # player who went out takes 10 + 20 + 30.
    chief = make_staff(event.festival, "chief referee")
    sheet = submit_sheet(stage=stage, game=1, table_number=1, entry=entry_for(stage, 1, 1, [0, 10, 20, 30]),
                         accept_warnings=False, idempotency_key=key(), actor=Actor(label="table 1 link"),
                         via="table 1 link")
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))

    clock.poll(page, POLL_SECONDS + 1, "/standings/all/live/")
    expect(row_of(standings, winner)).to_contain_text("+60")
    expect(row_of(standings, seats[3].registration.player.name)).to_contain_text("\u221230")  # a true minus
    assert marker.survived(page), "the standings page was reloaded; it must update in place"
    shot(page, "standings-after-confirmed-sheet")


def test_a_referee_switches_to_korean_then_traditional_chinese(stage, page, server, shot):
    link = ensure_links(event=stage.event, actor=Actor(label="organiser"))[0]
    page.goto(server.url("referee-link-table", token=link.token))
    expect(page.locator("html")).to_have_attribute("lang", "en")
    shot(page, "english")

    page.locator('footer button[name="language"][value="ko"]').click()
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.locator("h1")).to_have_text(in_language("ko", "Table %(number)s", number=link.table_number))
    expect(page.get_by_role("link", name=in_language("ko", "Enter the scores")).first).to_be_visible()
    shot(page, "korean")

    page.locator('footer button[name="language"][value="zh-hant"]').click()
    expect(page.locator("html")).to_have_attribute("lang", "zh-hant")
    expect(page.locator("h1")).to_have_text(in_language("zh-hant", "Table %(number)s", number=link.table_number))
    page.get_by_role("link", name=in_language("zh-hant", "Enter the scores")).first.click()
    expect(page.locator("h1")).to_have_text(
        in_language("zh-hant", "Table %(number)s, game %(game)s", number=link.table_number, game=1))
    # The live check answers in the page's language too.
    page.locator('label[for="went-out-1"]').click()
    page.fill("#id_s2_rack_value", "5")
    page.fill("#id_s2_jokers", "3")
    expect(page.locator("#seat-2-check")).to_contain_text(in_language("zh-hant", "A rack holds 0 to 2 jokers."))
    shot(page, "traditional-chinese-sheet")
