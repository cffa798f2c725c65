"""The referee's sheet on a 360×740 phone: every problem at the seats it belongs to (R1: more than two jokers
marks the seats holding them), each seat's "Went out" reached with Tab, and the end of the game never shown
two ways at once (R4)."""

import re

import pytest
from playwright.sync_api import expect

from scoring.services.links import ensure_links
from tests.factories import released_stage
from tournament.services.audit import Actor

pytestmark = pytest.mark.e2e


@pytest.fixture
def game_url(server):
    stage = released_stage(4)
    link = ensure_links(event=stage.event, actor=Actor(label="organiser"))[0]
    return server.url("referee-link-game", token=link.token, stage=1, game=1)


def checked(page, selector):
    return page.eval_on_selector_all(selector, "els => els.filter(e => e.checked).map(e => e.value)")


@pytest.mark.parametrize("lang,jokers_text", [("en", "3 jokers across the racks"), ("ko", "받침대들의 조커가 3개입니다")])
def test_three_jokers_at_two_seats_are_marked_at_those_seats(phone, game_url, shot, lang, jokers_text):
    page = phone("referee", lang=lang)
    page.goto(game_url)
    page.locator('label[for="went-out-1"]').click()
    page.fill("#id_s2_tiles", "R5 J J")
    page.fill("#id_s3_rack_value", "9")
    page.fill("#id_s3_jokers", "0")
    page.fill("#id_s4_rack_value", "4")
    page.fill("#id_s4_jokers", "1")
    for position in (2, 4):
        expect(page.locator(f"#seat-{position}-check")).to_contain_text(jokers_text)
    for position in (1, 3):
        expect(page.locator(f"#seat-{position}-check")).to_be_empty()
    listed = page.locator('#sheet-check li[data-code="too_many_jokers"]')
    expect(listed).to_have_attribute("data-seats", "2 4")
    expect(page.locator(".sheet-submit")).to_be_disabled()
    page.locator("#seat-2").scroll_into_view_if_needed()
    shot(page, "three-jokers-at-seats-2-and-4")
    page.locator("#sheet-check").scroll_into_view_if_needed()
    shot(page, "every-problem-listed")


def test_tab_reaches_every_seats_went_out_button(page, game_url, shot):
    page.goto(game_url)
    page.focus("#id_s1_tiles")
    reached = []
    for _ in range(60):
        page.keyboard.press("Tab")
        focused = page.evaluate("() => document.activeElement.id")
        if focused.startswith("went-out-"):
            reached.append(focused)
        if focused == "went-out-4":
            break
    assert reached == ["went-out-2", "went-out-3", "went-out-4"]
    page.keyboard.press("Space")
    expect(page.locator("#went-out-4")).to_be_checked()
    expect(page.locator('input[name=end][value="went_out"]')).to_be_checked()
    shot(page, "seat-4-went-out-with-the-keyboard")


def test_the_end_choices_never_look_selected_two_ways(page, game_url, shot):
    page.goto(game_url)
    assert page.locator('input[name=went_out][value=""]').count() == 0  # no "Nobody" beside "Someone went out"
    page.locator('label[for="went-out-2"]').click()
    assert checked(page, "input[name=end]") == ["went_out"] and checked(page, "input[name=went_out]") == ["2"]
    page.locator("label.btn", has_text="Blocked").click()
    assert checked(page, "input[name=end]") == ["blocked"] and checked(page, "input[name=went_out]") == []
    page.locator('label[for="went-out-3"]').click()
    page.locator('label[for="went-out-1"]').click()
    assert checked(page, "input[name=end]") == ["went_out"] and checked(page, "input[name=went_out]") == ["1"]
    # What is checked is what looks selected: a ticked box's button is filled, the others are outlined
    # (after Bootstrap's .15 s colour transition).
    page.mouse.move(0, 0)
    page.wait_for_timeout(400)
    filled = page.eval_on_selector_all(
        "label.btn", "els => els.filter(l => getComputedStyle(l).backgroundColor !== 'rgba(0, 0, 0, 0)')"
                     ".map(l => l.htmlFor)")
    assert sorted(f for f in filled if f.startswith("went-out") or f.startswith("id_end")) == sorted(
        ["went-out-1", page.locator('input[name=end][value="went_out"]').get_attribute("id")])
    page.locator("#seat-1").scroll_into_view_if_needed()
    shot(page, "seat-1-went-out")
    page.locator('label[for="went-out-1"]').click()  # tapped again: nobody went out
    assert checked(page, "input[name=went_out]") == []


def test_complete_seats_fold_to_one_line_and_open_again(page, game_url, shot):
    page.goto(game_url)
    full = page.evaluate("() => document.body.scrollHeight")
    page.locator('label[for="went-out-1"]').click()
    for position, value in ((2, "12"), (3, "20"), (4, "9")):
        page.fill(f"#id_s{position}_rack_value", value)
        page.fill(f"#id_s{position}_jokers", "0")
    page.locator(".sheet-check-button").focus()  # moved on past the last seat
    expect(page.locator("#sheet-check")).to_contain_text("No problems found.")
    for position in (1, 2, 3, 4):
        expect(page.locator(f"#seat-{position}")).to_have_class(re.compile(r"\bis-folded\b"))
    expect(page.locator("#seat-1 .sheet-seat-edit")).to_have_text("Went out (Rummikub)")
    expect(page.locator("#seat-3 .sheet-seat-edit")).to_have_text("Rack value 20 · Jokers 0")
    folded = page.evaluate("() => document.body.scrollHeight")
    assert folded < full - 740, (full, folded)  # a screen and more saved on a 360×740 phone
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, "four-seats-folded")

    # Tapped: open again; a mistake typed there and the seat stays open, marked, after the referee moves on.
    page.locator("#seat-3 .sheet-seat-edit").click()
    expect(page.locator("#id_s3_jokers")).to_be_visible()
    page.fill("#id_s3_jokers", "3")
    page.locator(".sheet-check-button").focus()
    expect(page.locator("#seat-3-check")).to_contain_text("A rack holds 0 to 2 jokers.")
    expect(page.locator("#seat-3")).not_to_have_class(re.compile(r"\bis-folded\b"))
    expect(page.locator("#seat-2")).to_have_class(re.compile(r"\bis-folded\b"))
    shot(page, "a-mistake-keeps-its-seat-open")
