"""The standings on a 360×740 phone, in Korean and Traditional Chinese with long names and clubs: a player's row
shows their rank, name (on one line), wins, points and whether they advance, are out or took a place, all
within the screen's width, with no sideways scrolling; every game's column is one tap away (also without
JavaScript), and a laptop sees the whole table at once. Screenshots go to artifacts/e2e/."""

import random
import re

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from scoring.services import progress
from scoring.simulation import simulate
from tests.e2e.conftest import DESKTOP, PHONE
from tests.factories import released_stage
from tests.scoring.helpers import chief_of, play_game
from tournament.models import Event, Festival

# Long names and clubs, as a Korean middle school's club and a Hong Kong primary school write them.
KOREAN = ["김해운대바다", "이서연", "박지호", "남궁민수", "정우진", "강하은", "조현우", "윤지민"]
KOREAN_CLUB = "해운대중학교 루미큐브 동아리"
CHINESE = ["司徒嘉欣 Szeto Ka Yan", "陳大文", "歐陽志明", "李小龍", "黃家駒 Wong Ka Kui", "張學友", "梁朝偉", "周潤發"]
CHINESE_CLUB = "保良局錦泰小學"


def words(language: str, text: str, **values) -> str:
    """The app's own words in `language` (English until the catalogue has them)."""
    with translation.override(language):
        said = gettext(text)
    return said % values if values else said


def rename(event, names, club, *, festival, title):
    Festival.objects.filter(pk=event.festival_id).update(name=festival)
    Event.objects.filter(pk=event.pk).update(name=title)
    for registration in event.registrations.select_related("player"):
        registration.player.name = names[registration.number - 1]
        registration.player.affiliation = club
        registration.player.save()


def busan_round_played(names, club):
    """Round 1 of a Busan event (R8.1), two tables of four, all three games confirmed: the top two of each
    table advance, the others are out."""
    stage = released_stage(8)
    rename(stage.event, names, club, festival="부산 보드게임페스티벌", title="루미큐브 대회")
    chief = chief_of(stage.event)
    for game in (1, 2, 3):
        play_game(stage, game, chief, random.Random(game))
    result = progress.advancement(stage)
    assert not result.ties  # distinct rack values: nobody tied at the cut
    return stage, set(result.advancing)


# Where each of a row's facts is on the screen. A cell is found by its column's header (its text or its
# abbreviation's title); the name by its text. Off screen (scrolled away inside the table) counts as not shown.
ROW_FACTS = """(row, [headers, status]) => {
  const width = window.innerWidth;
  const shown = el => {
    if (!el || !el.offsetParent) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.left >= 0 && r.right <= width + 0.5;
  };
  const table = row.closest("table");
  const ths = [...table.querySelectorAll("thead th")];
  const column = label => ths.findIndex(th => th.textContent.trim() === label
    || [...th.querySelectorAll("abbr")].some(a => a.title === label));
  const cells = [...row.children];
  const cell = label => { const i = column(label); return i < 0 ? null : cells[i]; };
  const lines = el => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top))).size;
  };
  const link = row.querySelector("a[href*='/player/']");
  const first = document.createRange();
  const text = link && [...link.childNodes].reverse().find(n => n.nodeType === 3 && n.data.trim());
  let nameStart = false;
  if (text) {
    const at = text.data.search(/\\S/);
    first.setStart(text, at); first.setEnd(text, at + 1);
    const r = first.getBoundingClientRect();
    nameStart = r.width > 0 && r.left >= 0 && r.right <= width;
  }
  const badge = [...row.querySelectorAll("*")].find(el => el.children.length === 0 && el.textContent.trim() === status);
  return {
    rank: shown(cells[0]),
    name: nameStart, nameLines: link ? lines(link) : 0,
    wins: shown(cell(headers.wins)), points: shown(cell(headers.points)),
    status: shown(badge),
  };
}"""

PAGE_WIDER_THAN_THE_PHONE = "() => document.documentElement.scrollWidth > window.innerWidth"
TABLE_SCROLLS = """() => [...document.querySelectorAll("main .table-responsive")]
  .some(box => box.scrollWidth > box.clientWidth + 1)"""


def row_of(page, number: int):
    return page.locator("table.standings tbody tr").filter(
        has=page.locator(f"a[href$='/player/{number}/']"))


def facts(page, number, language, status, points="Total"):
    headers = {"wins": words(language, "Wins"), "points": words(language, points)}
    return row_of(page, number).evaluate(ROW_FACTS, [headers, status])


ALL_SHOWN = {"rank": True, "name": True, "nameLines": 1, "wins": True, "points": True, "status": True}


@pytest.mark.parametrize("language, names, club", [("ko", KOREAN, KOREAN_CLUB), ("zh-Hant", CHINESE, CHINESE_CLUB)])
def test_a_players_row_shows_rank_name_wins_points_and_whether_they_advance_at_360px(phone, server, shot, clock,
                                                                                      language, names, club):
    stage, advancing = busan_round_played(names, club)
    event = stage.event
    page = phone(language, lang=language)
    clock.freeze(page)  # no live update replaces the rows while they are measured
    at = {"festival": event.festival.slug, "event": event.slug}
    code = language.lower()
    for where in (server.url("public-standings", **at), server.url("public-standings-stage", stage=1, **at)):
        page.goto(where)
        shot(page, f"{language}-{'stage' if 'standings/1/' in where else 'event'}")
        problems = {}
        for registration in event.registrations.all():
            status = (words(code, "advances") if registration.id in advancing
                      else words(code, "Out after %(stage)s", stage=words(code, "Round %(number)s", number=1)))
            seen = facts(page, registration.number, code, status)
            if seen != ALL_SHOWN:
                problems[registration.player.name] = {k: v for k, v in seen.items() if v != ALL_SHOWN[k]}
        assert problems == {}, where
        assert not page.evaluate(PAGE_WIDER_THAN_THE_PHONE)
        assert not page.evaluate(TABLE_SCROLLS), "the compact standings must fit without sideways scrolling"


@pytest.mark.parametrize("language", ["zh-Hant", "ko"])
def test_hong_kong_prize_places_and_long_averages_fit_each_row_at_360px_r8_2(phone, server, shot, clock, language):
    """A whole Hong Kong event of 32 played to the end (R8.2): averages of three figures and two decimals, the
    glossary's long word for wins (勝出局數), and the four prize places."""
    event = simulate("hk", 32, seed=5)
    for registration in event.registrations.select_related("player"):
        registration.player.name = CHINESE[registration.number % len(CHINESE)]
        registration.player.affiliation = CHINESE_CLUB
        registration.player.save()
    page = phone(language, lang=language)
    clock.freeze(page)  # no live update replaces the rows while they are measured
    at = {"festival": event.festival.slug, "event": event.slug}
    page.goto(server.url("public-standings", **at))  # finished: the final places first
    shot(page, f"{language}-hong-kong-final-places")
    assert not page.evaluate(PAGE_WIDER_THAN_THE_PHONE)
    page.goto(server.url("public-standings-all", **at))
    shot(page, f"{language}-hong-kong-finished")
    code = language.lower()
    rows = page.locator("table.standings tbody tr").filter(has=page.locator("a[href*='/player/']"))
    numbers = [int(re.search(r"/player/(\d+)/", rows.nth(i).locator("a[href*='/player/']").get_attribute("href"))
                   .group(1)) for i in range(rows.count())]
    assert len(numbers) == 32
    ranks = [rows.nth(i).locator("td").first.inner_text().strip() for i in range(4)]
    assert ranks == ["1", "2", "3", "4"], "the seed was chosen for four distinct prize places"
    assert len(page.locator("table.standings tbody td.pts").first.inner_text()) >= 7  # e.g. +116.67
    problems = {}
    for place, number in enumerate(numbers, start=1):
        status = words(code, "place %(place)s", place=place) if place <= 4 else None
        seen = facts(page, number, code, status, points="Average")
        if seen != {**ALL_SHOWN, "status": status is not None}:
            problems[number] = seen
    assert problems == {}
    assert not page.evaluate(PAGE_WIDER_THAN_THE_PHONE)
    assert not page.evaluate(TABLE_SCROLLS)


def test_every_games_column_is_one_tap_away_on_a_phone_even_without_javascript(browser, server, shot, clock):
    stage, _advancing = busan_round_played(KOREAN, KOREAN_CLUB)
    event = stage.event
    url = server.url("public-standings-stage", festival=event.festival.slug, event=event.slug, stage=1)
    for script in (True, False):
        context = browser.new_context(locale="ko", java_script_enabled=script, **PHONE)
        try:
            page = context.new_page()
            if script:
                clock.freeze(page)
            page.goto(url)
            game = page.locator("table.standings thead th", has_text=words("ko", "G%(game)s", game=1))
            expect(game).to_be_hidden()
            page.get_by_role("link", name=words("ko", "Show every game's score")).click()
            expect(game).to_be_visible()
            shot(page, f"every-game-{'js' if script else 'no-js'}")
            assert not page.evaluate(PAGE_WIDER_THAN_THE_PHONE)  # the wide table scrolls inside its box
            if script:  # a live update replaces the rows, and every column stays
                clock.poll(page, 4, "/standings/1/live/")
                expect(game).to_be_visible()
            page.get_by_role("link", name=words("ko", "Show fewer columns")).click()
            expect(game).to_be_hidden()
        finally:
            context.close()


def test_a_laptop_sees_every_games_column_at_once(browser, server, shot):
    stage, advancing = busan_round_played(KOREAN, KOREAN_CLUB)
    event = stage.event
    context = browser.new_context(locale="ko", **DESKTOP)
    try:
        page = context.new_page()
        page.goto(server.url("public-standings-stage", festival=event.festival.slug, event=event.slug, stage=1))
        for game in (1, 2, 3):
            expect(page.locator("table.standings thead th", has_text=words("ko", "G%(game)s", game=game))).to_be_visible()
        expect(page.get_by_role("link", name=words("ko", "Show every game's score"))).to_be_hidden()
        number = event.registrations.get(id=next(iter(advancing))).number
        assert facts(page, number, "ko", words("ko", "advances")) == ALL_SHOWN
        shot(page, "laptop")
        assert not page.evaluate(TABLE_SCROLLS)
    finally:
        context.close()
