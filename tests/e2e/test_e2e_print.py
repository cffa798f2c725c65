"""In Chromium: the organiser prints the paper score sheets and the referee cards to PDF. Every page is one
table, and says which table and which round it is for (the text is read back from the PDF); the printout has
no navigation and no buttons. Screenshots at 360×740 and at desktop size, on screen and as printed."""

import io
import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from scoring.services.links import ensure_links
from tests.e2e.conftest import TIMEOUT_MS
from tests.factories import make_staff, released_stage
from tournament.permissions import ORGANISER
from tournament.services import seating
from tournament.services.audit import Actor

pypdf = pytest.importorskip("pypdf", reason="pypdf reads the printed PDFs (pip install -e '.[dev]')")

DESKTOP = {"viewport": {"width": 1280, "height": 900}}


def pdf_pages(page) -> list[str]:
    """The page printed by Chromium (A4, print styles), as the text of each PDF page."""
    page.emulate_media(media="print")
    pdf = page.pdf(format="A4", print_background=True)
    if os.environ.get("E2E_KEEP_PDF"):
        Path(os.environ["E2E_KEEP_PDF"]).write_bytes(pdf)
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return [" ".join(sheet.extract_text().split()) for sheet in reader.pages]


@pytest.fixture
def printed_event():
    """A 16-player Busan event: round 1 has 4 tables, released, with its referee links made."""
    stage = released_stage(16)
    ensure_links(event=stage.event, actor=Actor(label="organiser"))
    return stage, make_staff(stage.event.festival, ORGANISER)


def signed_in(browser, server, user, **context):
    page = browser.new_context(**context).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server.url("login"))
    page.fill("input[name=username]", user.get_username())
    page.fill("input[name=password]", "pw-for-tests-only")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    return page


def test_paper_sheets_print_one_table_per_page_with_its_table_round_and_players(
        printed_event, browser, server, shot, phone, sign_in):
    stage, organiser = printed_event
    event = stage.event
    address = server.url("board-print", festival=event.festival.slug, event=event.slug, stage=stage.number)
    small = phone("organiser")
    sign_in(small, organiser)
    small.goto(address)
    expect(small.locator(".score-sheet")).to_have_count(4)
    shot(small, "sheets-phone")
    desktop = signed_in(browser, server, organiser, **DESKTOP)
    desktop.goto(address)
    shot(desktop, "sheets-desktop")

    pages = pdf_pages(desktop)
    shot(desktop, "sheets-desktop-print-media")
    assert len(pages) == 4, pages  # one page per table, no blank page after the last
    draw = seating.game_draw(stage, 1)
    for number, text in enumerate(pages, start=1):
        assert f"Table {number}" in text and stage.display_name in text and event.name in text, text
        assert "Game 1" in text and f"Game {stage.games}" in text
        assert "Referee's signature" in text or "Referee’s signature" in text
        for seat in seating.seats(draw, table=number):
            assert seat.registration.player.name in text and f"#{seat.registration.number}" in text
        # The printout carries no navigation, language buttons or links back.
        assert "My work" not in text and "Sign out" not in text and "Table links and referees" not in text


def test_referee_cards_print_one_card_per_page_with_its_table(printed_event, browser, server, shot, phone, sign_in):
    stage, organiser = printed_event
    event = stage.event
    address = server.url("board-link-cards", festival=event.festival.slug, event=event.slug)
    small = phone("organiser")
    sign_in(small, organiser)
    small.goto(address)
    expect(small.locator(".referee-card svg")).to_have_count(4)
    shot(small, "cards-phone")
    desktop = signed_in(browser, server, organiser, **DESKTOP)
    desktop.goto(address)
    shot(desktop, "cards-desktop")

    pages = pdf_pages(desktop)
    shot(desktop, "cards-desktop-print-media")
    assert len(pages) == 4, pages
    for number, text in enumerate(pages, start=1):
        assert f"Table {number}" in text and event.name in text and "whole event" in text, text
        assert "My work" not in text and "Sign out" not in text and "Referee cards" not in text


def test_players_table_cards_and_the_draw_sheet_print_cleanly(printed_event, browser, server, shot):
    stage, organiser = printed_event
    event = stage.event
    draw = seating.game_draw(stage, 1)
    desktop = signed_in(browser, server, organiser, **DESKTOP)
    desktop.goto(server.url("draw-cards", festival=event.festival.slug, event=event.slug, draw=draw.pk))
    shot(desktop, "table-cards-desktop")
    pages = pdf_pages(desktop)
    assert len(pages) == 4, pages  # one card per page
    for number, text in enumerate(pages, start=1):
        assert f"Table {number}" in text and "My work" not in text and "Print one card" not in text, text
    desktop.emulate_media(media="screen")
    desktop.goto(server.url("draw-print", festival=event.festival.slug, event=event.slug, draw=draw.pk))
    pages = pdf_pages(desktop)
    assert 2 <= len(pages) <= 3 and all(page.strip() for page in pages), pages  # tables, then by name
    assert "Round 1" in pages[0] and "My work" not in " ".join(pages)
