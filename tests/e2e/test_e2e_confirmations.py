"""In a real browser at phone size: the safety rails. An action that cannot be undone opens its confirmation
page (counts and names), and a double tap on the confirming button sends one request (static/js/busy.js:
the button is disabled and aria-busy while the server works); "Close the stage" sits at the top of the stage
page and says beside itself why it is disabled; the chief referee's correction is the referee's entry, with
the tile pad and the live check at each seat."""

from django.utils import timezone
from playwright.sync_api import expect

from scoring.models import ScoreSheet
from scoring.services.sheets import confirm_sheet, submit_sheet
from tests.factories import make_event, make_player, make_registration, make_staff, released_stage
from tests.scoring.helpers import entry_for, key
from tournament.models import Event
from tournament.services import seating
from tournament.services.audit import Actor

LINK = Actor(label="table link")


def submit(stage, table, values=(0, 10, 20, 30), game=1):
    return submit_sheet(stage=stage, game=game, table_number=table, entry=entry_for(stage, game, table, list(values)),
                        accept_warnings=True, idempotency_key=key(), actor=LINK, via=LINK.label)


def ev(event) -> dict:
    return {"festival": event.festival.slug, "event": event.slug}


def test_close_check_in_shows_its_working_state_and_takes_no_second_send(page, server, shot, sign_in):
    event = make_event(checkin_override=Event.CheckinOverride.OPEN)
    for name in ("김서연", "Chan Tai Man", "Ana"):
        make_registration(event, make_player(event.festival, name=name), checked_in_at=timezone.now())
    for name in ("박지훈", "Lee Ka Yan"):
        make_registration(event, make_player(event.festival, name=name))
    sign_in(page, make_staff(event.festival, "organiser"))
    page.goto(server.url("manage-event", **ev(event)))
    page.locator("a[data-checkin-close]").click()
    expect(page.locator("h1")).to_have_text("Close check-in")
    expect(page.locator("[data-confirm-lines]")).to_contain_text(
        "2 registered players not checked in will not be able to play.")
    expect(page.locator("[data-confirm-group]")).to_contain_text("Lee Ka Yan, 박지훈")
    shot(page, "close-check-in-confirmation")

    # The working state, seen by keeping the form on the page: a listener after busy.js's counts the sends
    # busy.js lets through and holds them.
    page.evaluate("""() => {
        window.sent = 0;
        document.addEventListener('submit', event => { if (!event.defaultPrevented) window.sent++; event.preventDefault(); });
    }""")
    button = page.locator("[data-confirm-button]")
    button.click()
    expect(button).to_be_disabled()
    expect(button).to_have_attribute("aria-busy", "true")
    expect(button).to_contain_text("Working…")
    expect(page.locator("form[data-busy]")).to_have_attribute("aria-busy", "true")
    shot(page, "close-check-in-working")
    page.evaluate("document.querySelector('form[data-busy]').requestSubmit()")  # a second send (Enter, a tap)
    assert page.evaluate("window.sent") == 1

    page.reload()
    page.locator("[data-confirm-button]").click()
    expect(page.locator(".alert-success")).to_contain_text("Check-in: Closed (by the organiser).")
    event.refresh_from_db()
    assert event.checkin_override == Event.CheckinOverride.CLOSED


def test_the_stage_page_says_why_it_cannot_close_and_the_confirmation_names_who_advances(page, server, shot,
                                                                                      sign_in):
    stage = released_stage(8)
    organiser = make_staff(stage.event.festival, "organiser")
    chief = Actor(user=make_staff(stage.event.festival, "chief referee"))
    for game in (1, 2, 3):
        for table in (1, 2):
            if (game, table) != (3, 2):
                confirm_sheet(sheet=submit(stage, table, (0, 5, 5, 5) if table == 1 else (0, 1, 2, 3), game),
                              actor=chief)
    sign_in(page, organiser)
    page.goto(server.url("board-stage", **ev(stage.event), stage=1))
    close = page.locator("[data-close-stage] button")
    expect(close).to_be_disabled()
    expect(page.locator("#close-blockers")).to_contain_text("Table 2, game 3 has no confirmed sheet.")
    shot(page, "stage-page-sheet-missing")
    page.locator("#close-blockers a").click()
    expect(page.locator("h1")).to_have_text("Live board")
    assert page.url.endswith("stage=1&game=3")

    confirm_sheet(sheet=submit(stage, 2, (0, 1, 2, 3), 3), actor=chief)
    page.goto(server.url("board-stage", **ev(stage.event), stage=1))
    expect(page.locator("#close-blockers")).to_contain_text("1 tie at the cut still needs a lot.")
    shot(page, "stage-page-tie-at-the-cut")
    page.locator("#close-blockers a").click()
    page.locator("#ties button").click()
    expect(page.locator(".alert-success")).to_contain_text("Lots drawn for 1 tie(s)")
    page.locator("[data-close-stage] a").click()
    expect(page.locator("[data-confirm-lines]")).to_contain_text("4 players advance, 4 are out.")
    expect(page.locator("[data-confirm-lines]")).to_contain_text("1 tie at the cut is resolved by lot.")
    shot(page, "close-stage-confirmation")
    page.locator("[data-confirm-button]").click()
    expect(page.locator(".alert-success")).to_contain_text("is ready to be drawn")


def test_more_confirmation_pages_at_phone_size(phone, server, shot, sign_in):
    """The release of a draw, the numbers, a disqualification and the board's clean sheets, to look at."""
    stage = released_stage(20)
    event = stage.event
    chief = make_staff(event.festival, "chief referee")
    for table in (1, 2, 3):
        submit(stage, table)
    submit(stage, 4, (0, 120, 20, 30))  # a warning the referee accepted
    page = phone("chief")
    sign_in(page, chief)
    page.goto(server.url("board", **ev(event)))
    page.locator("a[data-confirm-clean]").click()
    expect(page.locator("[data-confirm-lines]")).to_contain_text("3 sheets submitted with no problems")
    shot(page, "confirm-clean-sheets")
    page.locator("[data-confirm-button]").click()
    expect(page.locator(".alert-success")).to_contain_text("3 sheets confirmed.")
    assert ScoreSheet.objects.filter(stage=stage, status=ScoreSheet.Status.CONFIRMED).count() == 3

    page.goto(server.url("conduct", **ev(event)))
    number = seating.seats(seating.game_draw(stage, 1), table=1)[0].registration.number
    form = page.locator("form", has=page.locator("input[name=action][value=disqualify]"))
    form.locator("input[name=disqualify-number]").fill(str(number))
    form.locator("textarea").fill("Third offence")
    form.locator("button[type=submit]").click()
    expect(page.locator("[data-effect]")).to_contain_text("confirmed game result")
    shot(page, "disqualify-confirmation")

    organiser = phone("organiser")
    sign_in(organiser, make_staff(event.festival, "organiser"))
    later = make_event(event.festival, checkin_override=Event.CheckinOverride.CLOSED)
    for _ in range(5):
        make_registration(later, checked_in_at=timezone.now())
    make_registration(later, make_player(later.festival, name="Late Lee"))
    organiser.goto(server.url("manage-event", **ev(later)))
    organiser.locator("form[action$='/numbers/'] button[type=submit]").click()
    expect(organiser.locator("[data-confirm-lines]")).to_contain_text("5 checked-in players get numbers 1 to 5")
    shot(organiser, "numbers-confirmation")


def test_the_chief_corrects_with_the_referees_entry_and_its_live_check(page, server, shot, sign_in):
    stage = released_stage(4)
    chief = make_staff(stage.event.festival, "chief referee")
    sheet = submit(stage, 1, (0, 11, 22, 33))
    confirm_sheet(sheet=sheet, actor=Actor(user=chief))
    sign_in(page, chief)
    page.goto(server.url("board-correct", **ev(stage.event), sheet_id=sheet.pk))
    expect(page.locator("h1")).to_contain_text("Correct a confirmed sheet")
    # Checked at once: each seat shows its result as recorded.
    expect(page.locator("#seat-2-check")).to_contain_text("-11")
    shot(page, "correction-page")
    # Seat 2's rack on the tile pad, as the referee would: the live check judges it at the seat.
    page.fill("#id_s2_rack_value", "")
    page.fill("#id_s2_jokers", "")
    page.click('.sheet-pad-toggle[data-pad-for="id_s2_tiles"]')
    pad = page.locator("#tile-pad")
    for tile in ("R10", "R11", "R12"):
        pad.locator(f'[data-tile="{tile}"]').click()
    pad.locator('[data-pad="close"]').click()
    expect(page.locator("#seat-2-check")).to_contain_text("-33")
    page.fill("#id_s3_jokers", "9")
    expect(page.locator("#seat-3-check .sheet-problem-error").first).to_be_visible()
    expect(page.locator(".sheet-submit")).to_be_disabled()
    shot(page, "correction-live-check-mistake")
    page.fill("#id_s3_jokers", "0")
    expect(page.locator(".sheet-submit")).to_be_enabled()
    page.fill("#id_reason", "Seat 2 held R10 R11 R12")
    page.locator(".sheet-submit").click()
    expect(page.locator(".alert-success")).to_contain_text("The sheet is corrected")
    new = ScoreSheet.objects.get(corrects=sheet)
    assert new.seats.get(position=2).tiles == "R10 R11 R12" and new.reason == "Seat 2 held R10 R11 R12"

