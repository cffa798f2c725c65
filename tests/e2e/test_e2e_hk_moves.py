"""Hong Kong movement on the public pages in a real browser (R8.2): twelve players at three tables, game 1 of 3
in play, tables 1 and 3 (the last) confirmed, table 2 still playing. On a 360×740 phone the draw says who
moves to which table and who stays — the last table's top two to table 1, with the one sentence that says why —
and a player of the last table sees on their page where they go before the next game is seated; the hall shows
the same on the projector. Names are masked at this event: the two 黃*晴 of table 1 carry their numbers on the
table's page and on the printed table cards, which say the round and the game. Pictures in English, Korean and
Traditional Chinese."""

import pytest
from playwright.sync_api import expect

from tests.factories import make_staff
from tests.scoring.helpers import chief_of, confirm, hong_kong, seated
from tournament.models import Event
from tournament.services import seating

NAMES = ["黃小晴", "黃美晴", "陳大文", "李志明", "張家豪", "劉詠詩", "周文傑", "吳淑儀", "鄭浩然", "楊雅婷", "何俊傑",
         "林曉彤"]
WRAP = "The top two of the last table move up to table 1."
LANGUAGES = ("en", "ko", "zh-hant")
PHONE_WIDTH = 360
HALL = {"viewport": {"width": 1280, "height": 720}}


@pytest.fixture
def stage():
    stage = hong_kong(12, games=3)
    event = stage.event
    Event.objects.filter(pk=event.pk).update(name="魔力橋大賽", public_names=Event.PublicNames.MASKED)
    for registration in event.registrations.select_related("player"):
        registration.player.name = NAMES[registration.number - 1]
        registration.player.save()
    chief = chief_of(event)
    confirm(stage, [0, 5, 20, 30], chief=chief, table=1)  # seats 1 and 2 move to table 2
    confirm(stage, [30, 20, 0, 5], chief=chief, table=3, winner=2)  # seats 3 and 4 move to table 1
    return stage


def fits_the_phone(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH


def test_draw_player_page_and_hall_show_the_moves_after_a_confirmed_game(stage, phone, browser, server, shot):
    event = stage.event
    where = {"festival": event.festival.slug, "event": event.slug}
    mover = event.registrations.get(pk=seated(stage, table=3)[2]).number  # goes out at the last table
    for language in LANGUAGES:
        page = phone(f"player-{language}", lang=language)
        page.goto(server.url("public-draw", **where))
        cards = page.locator("section.card")
        expect(cards).to_have_count(3)
        expect(cards.nth(0).locator('[data-move="up"]')).to_have_count(2)
        expect(cards.nth(0).locator('[data-move="stays"]')).to_have_count(2)
        expect(cards.nth(1).locator("[data-move]")).to_have_count(0)  # table 2 is still playing
        expect(cards.nth(2).locator('[data-move="up"]')).to_have_count(2)
        expect(cards.nth(2).locator("[data-wrap]")).to_be_visible()
        if language == "en":
            expect(page.locator("h1")).to_have_text("Draw · Final, game 1")
            expect(cards.nth(0).locator('[data-move="up"]').first).to_have_text("Moves to table 2")
            expect(cards.nth(2).locator('[data-move="up"]').first).to_have_text("Moves to table 1")
            expect(cards.nth(2).locator("[data-wrap]")).to_have_text(WRAP)
        assert fits_the_phone(page), language
        shot(page, f"draw-{language}")

        page.goto(server.url("public-player", number=mover, **where))
        expect(page.locator('#next-table ~ [data-move="up"]')).to_be_visible()
        if language == "en":
            expect(page.locator('[data-move="up"]')).to_have_text("Moves to table 1")
            expect(page.locator("main")).to_contain_text(WRAP)
        assert fits_the_phone(page), language
        shot(page, f"player-{language}")

        page.goto(server.url("public-table", number=1, **where))
        if language == "en":
            expect(page.locator("main ol")).to_contain_text("黃*晴 (No. 1)")
            expect(page.locator("main ol")).to_contain_text("黃*晴 (No. 2)")
        assert fits_the_phone(page), language
        shot(page, f"table-1-{language}")

        hall = browser.new_context(locale=language, **HALL).new_page()
        try:
            hall.goto(server.url("public-hall", **where))
            # hall.js shows one slide at a time; the picture wants the draw's.
            hall.evaluate("""() => document.querySelectorAll('#hall .hall-slide').forEach(
                s => s.classList.toggle('is-current', s.dataset.kind === 'draw'))""")
            draw = hall.locator('.hall-slide[data-kind="draw"]')
            expect(draw.locator('[data-move="up"]')).to_have_count(4)
            expect(draw.locator("[data-wrap]")).to_have_count(1)
            shot(hall, f"hall-{language}")
        finally:
            hall.context.close()


def test_table_cards_say_the_round_and_the_game(stage, phone, server, shot, sign_in):
    event = stage.event
    organiser = make_staff(event.festival, "organiser")
    cards_url = server.url("draw-cards", festival=event.festival.slug, event=event.slug,
                           draw=seating.game_draw(stage, 1).pk)
    for language in LANGUAGES:
        page = phone(f"organiser-{language}", lang=language)
        sign_in(page, organiser)
        page.goto(cards_url)
        cards = page.locator("section.table-card")
        expect(cards).to_have_count(3)
        expect(cards.first.locator("[data-round]")).to_be_visible()
        if language == "en":
            expect(cards.first.locator("[data-round]")).to_have_text("Final, game 1")
            expect(cards.first).to_contain_text("黃*晴 (No. 1)")
        assert fits_the_phone(page), language
        shot(page, f"cards-{language}")
    printer = phone("printer", desktop=True)
    sign_in(printer, organiser)
    printer.emulate_media(media="print")
    printer.goto(cards_url)
    expect(printer.locator(".table-card-round").first).to_be_visible()
    shot(printer, "cards-printed")


def test_the_hall_s_draw_slides_still_fit_the_screen_with_the_moves(phone, browser, server, shot):
    """64 players, 16 tables, 8 to a slide: every table but table 2 confirmed, so each slide shows its moves (and
    the second the wrap sentence); each slide fits a 16:9 projector without scrolling."""
    stage = hong_kong(64, games=3)
    chief = chief_of(stage.event)
    for table in range(1, 17):
        if table != 2:
            confirm(stage, [0, 5, 20, 30], chief=chief, table=table)
    event = stage.event
    hall = browser.new_context(locale="en", **HALL).new_page()
    try:
        hall.goto(server.url("public-hall", festival=event.festival.slug, event=event.slug))
        slides = hall.locator('.hall-slide[data-kind="draw"]')
        expect(slides).to_have_count(2)
        expect(slides.nth(1).locator("[data-wrap]")).to_have_count(1)
        for index in range(2):
            hall.evaluate("""(index) => document.querySelectorAll('#hall .hall-slide').forEach(s => s.classList.toggle(
                'is-current', s === document.querySelectorAll('#hall .hall-slide[data-kind="draw"]')[index]))""", index)
            expect(slides.nth(index)).to_be_visible()
            shot(hall, f"hall-64-slide-{index + 1}")
            assert hall.evaluate("document.documentElement.scrollHeight") <= HALL["viewport"]["height"], index
            assert hall.evaluate("document.documentElement.scrollWidth") <= HALL["viewport"]["width"], index
    finally:
        hall.context.close()
