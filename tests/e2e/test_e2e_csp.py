"""The Content-Security-Policy (no inline script or style, no eval) in a real browser. Chromium
enforces the header; a blocked script or style breaks a page silently, so every phone here records each
`securitypolicyviolation` event and every console or page error, and each test drives the page's live
part (htmx swaps, the tile pad, the hall's slides) to show it still works under the policy."""

import re

import pytest
from playwright.sync_api import expect

from scoring.models import ScoreSheet
from scoring.services.links import ensure_links
from scoring.services.sheets import confirm_sheet, submit_sheet
from tests.factories import make_event, make_player, make_registration, make_staff, released_stage
from tests.scoring.helpers import entry_for, key
from tournament.models import Event
from tournament.services import seating
from tournament.services.audit import Actor

STANDINGS_POLL_SECONDS = 3  # templates/public/standings.html: hx-trigger="every 3s"
HALL_POLL_SECONDS = 25  # templates/public/hall.html: hx-trigger="every 25s"

# htmx logs an aborted request as an error: the referee's live check (hx-sync="this:replace") aborts the
# previous check on every keystroke, by design. A failed request still shows: htmx logs it as
# htmx:sendError / htmx:timeout / htmx:responseError, and Chromium logs the failed resource.
ABORTED_BY_DESIGN = re.compile(r"^htmx:(sendAbort|afterRequest), \[object HTML\w+Element\]$")

REPORT_VIOLATIONS = """
window.__e2eViolationCount = 0;
document.addEventListener("securitypolicyviolation", function (event) {
  window.__e2eViolationCount += 1;
  window.__e2eCspViolation({directive: event.effectiveDirective, blocked: event.blockedURI,
                            sample: event.sample, where: event.sourceFile + ":" + event.lineNumber,
                            page: location.pathname});
});
"""


class Watch:
    """Everything one phone's pages complain about: policy violations, console errors, uncaught errors."""

    def __init__(self, page):
        self.page = page
        self.violations: list[dict] = []
        self.errors: list[str] = []
        page.expose_function("__e2eCspViolation", self._violation)
        page.add_init_script(REPORT_VIOLATIONS)  # before any of the page's own scripts, on every page load
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        # Chromium's console names only the page; this names the resource that failed.
        page.on("response", lambda response: response.status >= 400 and self.errors.append(
            f"{page.url}: {response.request.method} {response.url} answered {response.status}"))

    def _violation(self, report: dict) -> None:
        self.violations.append(report)

    def _console(self, message) -> None:
        if message.type == "error" and not ABORTED_BY_DESIGN.match(message.text):
            self.errors.append(f"{self.page.url}: {message.text}")

    def complaints(self, expected_violations: int = 0) -> tuple[list[dict], list[str]]:
        # The browser reports a violation a moment after blocking; wait for those a test provoked. A round
        # trip then makes sure every report the page sent before it has arrived here.
        self.page.wait_for_function(f"window.__e2eViolationCount >= {expected_violations}")
        self.page.evaluate("0")
        return self.violations, self.errors

    def assert_clean(self):
        violations, errors = self.complaints()
        assert violations == [], f"Content-Security-Policy violations: {violations}"
        assert errors == [], f"console errors: {errors}"


@pytest.fixture
def watched(phone):
    """`watched("name")` → (page, Watch): a phone whose complaints are recorded from its first page on."""
    def open_watched(name: str = "phone", **kwargs):
        page = phone(name, **kwargs)
        return page, Watch(page)

    return open_watched


def row_of(table, name: str):
    return table.locator("tbody tr", has_text=re.compile(rf"(^|\s){re.escape(name)}(\s|$)"))


def confirm_game(stage, table: int, chief, values=(0, 10, 20, 30)):
    sheet = submit_sheet(stage=stage, game=1, table_number=table, entry=entry_for(stage, 1, table, list(values)),
                         accept_warnings=False, idempotency_key=key(), actor=Actor(label=f"table {table} link"),
                         via=f"table {table} link")
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))


def test_the_browser_enforces_the_policy_and_the_watch_sees_it(watched, server):
    """Without this, zero violations below could mean a missing header or a deaf listener."""
    stage = released_stage(4)
    page, watch = watched()
    page.goto(server.url("public-standings", festival=stage.event.festival.slug, event=stage.event.slug))
    page.evaluate("""() => {
        const script = document.createElement("script");
        script.textContent = "window.__inlineRan = true";
        document.head.appendChild(script);
        document.querySelector("h1").setAttribute("style", "color: red");
    }""")
    assert page.evaluate("window.__inlineRan") is None, "an inline script ran: the policy is not enforced"
    violations, _ = watch.complaints(expected_violations=2)
    assert {v["directive"] for v in violations} == {"script-src-elem", "style-src-attr"}, violations


def test_without_its_config_htmx_would_break_the_policy(watched, server):
    """The <meta name="htmx-config"> (templates/_htmx_config.html) is what keeps htmx inside the policy:
    the same page with the meta cut out of the HTML makes htmx inject its indicator <style>."""
    stage = released_stage(4)
    page, watch = watched()

    def without_config(route):
        response = route.fetch()
        html = re.sub(r"<meta name=\"htmx-config\"[^>]*>", "", response.text())
        route.fulfill(response=response, body=html)

    url = server.url("public-standings", festival=stage.event.festival.slug, event=stage.event.slug)
    page.route(url, without_config)
    page.goto(url)
    expect(page.locator("table.standings")).to_be_visible()
    violations, _ = watch.complaints(expected_violations=1)
    assert [v["directive"] for v in violations] == ["style-src-elem"], violations


def test_standings_and_hall_display_update_live_under_the_policy(watched, server, shot, marker, clock):
    stage = released_stage(8)
    event = stage.event
    chief = make_staff(event.festival, "chief referee")
    winners = {table: seating.seats(seating.game_draw(stage, 1), table=table)[0].registration.player.name for table in (1, 2)}

    standings_page, standings_watch = watched("standings")
    clock.freeze(standings_page)
    standings_page.goto(server.url("public-standings", festival=event.festival.slug, event=event.slug))
    standings = standings_page.locator("table.standings")
    expect(row_of(standings, winners[1])).not_to_contain_text("+60")
    marker.set(standings_page)

    hall_page, hall_watch = watched("hall")
    clock.freeze(hall_page)
    hall_page.goto(server.url("public-hall", festival=event.festival.slug, event=event.slug))
    # hall.js ran (a file, not inline): one slide at a time.
    expect(hall_page.locator("html")).to_have_class(re.compile(r"(^|\s)hall-js(\s|$)"))
    expect(hall_page.locator("#hall .hall-slide.is-current")).to_have_count(1)
    marker.set(hall_page)
    shot(hall_page, "hall-before")

    confirm_game(stage, 1, chief)
    clock.poll(standings_page, STANDINGS_POLL_SECONDS + 1, "/standings/live/")
    expect(row_of(standings, winners[1])).to_contain_text("+60")
    assert marker.survived(standings_page), "the standings were reloaded instead of swapped by htmx"
    shot(standings_page, "standings-swapped")

    confirm_game(stage, 2, chief)
    clock.poll(hall_page, HALL_POLL_SECONDS + 1, "/hall/live/")
    expect(hall_page.locator("#hall")).to_contain_text(winners[2])
    expect(row_of(hall_page.locator("#hall"), winners[2])).to_contain_text("60")
    expect(hall_page.locator("#hall .hall-slide.is-current")).to_have_count(1)
    assert marker.survived(hall_page), "the hall display was reloaded instead of swapped by htmx"
    shot(hall_page, "hall-swapped")

    standings_watch.assert_clean()
    hall_watch.assert_clean()


def test_referee_sheet_with_tile_pad_and_board_confirm_under_the_policy(watched, server, shot, sign_in):
    stage = released_stage(4)
    link = ensure_links(event=stage.event, actor=Actor(label="organiser"))[0]
    referee, referee_watch = watched("referee")
    referee.goto(server.url("referee-link-game", token=link.token, stage=1, game=1))

    referee.click('.sheet-pad-toggle[data-pad-for="id_s2_tiles"]')  # static/js/sheet.js
    pad = referee.locator("#tile-pad")
    expect(pad).to_be_visible()
    for tile in ("R10", "R11", "B13", "J"):
        pad.locator(f'[data-tile="{tile}"]').click()
    pad.locator('[data-pad="close"]').click()
    expect(referee.locator("#id_s2_tiles")).to_have_value("R10 R11 B13 J")
    shot(referee, "tile-pad-used")

    referee.locator('label[for="went-out-1"]').click()
    referee.fill("#id_s3_rack_value", "20")
    referee.fill("#id_s3_jokers", "0")
    referee.fill("#id_s4_rack_value", "15")
    referee.fill("#id_s4_jokers", "3")
    # The live check is an htmx POST whose answer is swapped in.
    expect(referee.locator("#seat-4-check")).to_contain_text("A rack holds 0 to 2 jokers.")
    referee.fill("#id_s4_jokers", "0")
    expect(referee.locator("#sheet-check")).to_contain_text("No problems found.")
    shot(referee, "live-check")
    referee.locator(".sheet-submit").click()
    expect(referee.locator(".sheet-game").first).to_contain_text("Submitted")

    festival = stage.event.festival
    chief = make_staff(festival, "chief referee", password="chief-knows-this-one")
    board_page, board_watch = watched("chief-referee")
    board = server.url("board", festival=festival.slug, event=stage.event.slug)
    sign_in(board_page, chief, "chief-knows-this-one", next_url=board.removeprefix(server.root))
    row = board_page.locator(f'#board li[data-table="{link.table_number}"]')
    expect(row).to_have_attribute("data-state", "submitted")
    row.get_by_role("button", name="Confirm").click()
    expect(board_page.locator(f'#board li[data-table="{link.table_number}"]')).to_have_attribute(
        "data-state", "confirmed")
    shot(board_page, "board-confirmed")
    assert ScoreSheet.objects.get(stage=stage, game=1).status == ScoreSheet.Status.CONFIRMED

    referee_watch.assert_clean()
    board_watch.assert_clean()


def test_desk_check_in_swaps_in_place_under_the_policy(watched, server, shot, sign_in, marker):
    event = make_event(checkin_override=Event.CheckinOverride.OPEN)
    for name in ("김민준", "김서연", "Chan Tai Man"):
        make_registration(event, make_player(event.festival, name=name))
    desk_page, desk_watch = watched("desk")
    desk = server.url("desk", festival=event.festival.slug, event=event.slug)
    sign_in(desk_page, make_staff(event.festival, "desk"), next_url=desk.removeprefix(server.root))
    marker.set(desk_page)

    desk_page.locator("#desk-q").fill("서연")
    results = desk_page.locator("#desk-results")
    expect(results.locator("li")).to_have_count(1)
    results.locator("li", has_text="김서연").get_by_role("button", name="Check in").click()
    expect(results.locator("li", has_text="김서연").locator(".badge.text-bg-success")).to_contain_text("Checked in")
    expect(desk_page.locator('[data-count="checked-in"]')).to_have_text("1")
    assert marker.survived(desk_page), "the desk page was reloaded instead of swapped by htmx"
    shot(desk_page, "checked-in")

    desk_watch.assert_clean()
