"""The chief referee's live board on a 360×740 phone, tapped through a game: each "Confirm" is answered with its
row alone (the counts and "confirm every clean sheet" change beside it, the page is never reloaded, the other
rows stay as they were), a refused tap says why in place, the tap that completes the game shows the whole
board with the next game, and a reload shows the same as the taps left (R9: the chief referee confirms)."""

import re

import pytest
from playwright.sync_api import expect

from scoring.models import ScoreSheet
from scoring.services.sheets import confirm_sheet, submit_sheet
from tests.factories import make_staff, released_stage
from tests.scoring.helpers import confirm, entry_for, key
from tournament.services.audit import Actor

PHONE_WIDTH = 360
LINK = Actor(label="table link")


@pytest.fixture
def game():
    """A Busan round of 6 tables: five sheets submitted, table 6 not yet entered."""
    stage = released_stage(24)
    sheets = [submit_sheet(stage=stage, game=1, table_number=table, entry=entry_for(stage, 1, table, [0, 5, 9, 14]),
                           accept_warnings=True, idempotency_key=key(), actor=LINK, via="table link")
              for table in range(1, 6)]
    return stage, sheets


def counts(page) -> dict[str, str]:
    return {state: page.locator(f'#board-counts [data-count="{state}"]').inner_text()
            for state in ("pending", "submitted", "returned", "confirmed")}


def test_a_sequence_of_taps_answers_row_by_row_and_the_board_stays_right(game, phone, server, shot, sign_in, marker):
    stage, sheets = game
    event = stage.event
    chief_user = make_staff(event.festival, "chief referee")
    chief = phone("chief")
    board_path = server.url("board", festival=event.festival.slug, event=event.slug).removeprefix(server.root)
    sign_in(chief, chief_user, next_url=board_path)
    expect(chief.locator("#board-counts")).to_be_visible()
    assert counts(chief) == {"pending": "1", "submitted": "5", "returned": "0", "confirmed": "0"}
    marker.set(chief)
    shot(chief, "before")

    answers = []
    chief.on("response", lambda response: answers.append(response) if "quick-confirm" in response.url else None)
    for done, table in enumerate((2, 4, 1), start=1):
        row = chief.locator(f'#board-row-{table}')
        row.get_by_role("button", name="Confirm").click()
        expect(chief.locator(f'#board-row-{table}')).to_have_attribute("data-state", "confirmed")
        expect(chief.locator('#board-counts [data-count="confirmed"]')).to_have_text(str(done))
        expect(chief.locator("#board-message")).to_contain_text(f"Table {table}, game 1 is confirmed.")
        assert chief.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH
    assert len(answers) == 3
    for response in answers:  # each tap was answered with its row, not the board of every table
        body = response.text()
        assert len(re.findall(r'id="board-row-\d+"', body)) == 1 and 'id="board" ' not in body
    assert counts(chief) == {"pending": "1", "submitted": "2", "returned": "0", "confirmed": "3"}
    for table in (3, 5):  # the rows not tapped are as they were
        expect(chief.locator(f"#board-row-{table}")).to_have_attribute("data-state", "submitted")
    assert marker.survived(chief), "the board was reloaded instead of answered row by row"
    shot(chief, "three-taps")

    # Someone else confirmed table 3 meanwhile: its tap is refused in place and the row shows it confirmed.
    confirm_sheet(sheet=sheets[2], actor=Actor(user=make_staff(event.festival, "organiser")))
    chief.locator("#board-row-3").get_by_role("button", name="Confirm").click()
    expect(chief.locator("#board-message .alert-danger")).to_contain_text("only a submitted sheet can be confirmed")
    expect(chief.locator("#board-row-3")).to_have_attribute("data-state", "confirmed")
    expect(chief.locator('#board-counts [data-count="confirmed"]')).to_have_text("4")
    shot(chief, "refused-in-place")

    # A reload shows what the taps left.
    chief.reload()
    assert counts(chief) == {"pending": "1", "submitted": "1", "returned": "0", "confirmed": "4"}
    for table, state in ((1, "confirmed"), (2, "confirmed"), (3, "confirmed"), (4, "confirmed"), (5, "submitted"),
                         (6, "pending")):
        expect(chief.locator(f"#board-row-{table}")).to_have_attribute("data-state", state)

    # Table 6 arrives and is confirmed elsewhere; the last tap completes the game: the whole board, the next game.
    confirm(stage, [0, 5, 9, 14], chief=Actor(user=make_staff(event.festival, "organiser")), table=6)
    chief.locator("#board-row-5").get_by_role("button", name="Confirm").click()
    expect(chief.locator("#board")).to_contain_text("Every table of game 1 is confirmed.")
    expect(chief.locator('#board-counts [data-count="confirmed"]')).to_have_text("6")
    assert ScoreSheet.objects.filter(stage=stage, game=1, status=ScoreSheet.Status.CONFIRMED).count() == 6
    shot(chief, "game-complete")
