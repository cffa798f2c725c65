"""In a real browser at phone size: a referee opens a table from its private link,
enters a game with the tile pad, sees a mistake flagged at the seat before submitting (the live check),
submits, and the chief referee confirms on the live board. And "nothing is lost": a draft survives a
reload with its idempotency key, and sending it twice records one sheet (R4–R6 judged by rules/, R9)."""

from playwright.sync_api import expect

from scoring.models import ScoreSheet
from tests.factories import make_staff

CHIEF_PASSWORD = "chief-knows-this-one"


def tap(page, label: str):
    """Tap one of the big toggle buttons (a label drawn over a visually hidden radio)."""
    page.locator("label.btn", has_text=label).first.click()


def sheets_of(stage):
    return list(ScoreSheet.objects.filter(stage=stage, game=1).prefetch_related("seats"))


def test_referee_enters_a_game_with_the_tile_pad_sees_a_mistake_at_the_seat_and_the_chief_confirms(
        table, phone, server, shot, sign_in):
    stage, link, seats = table
    referee = phone("referee")

    referee.goto(server.url("referee-link-table", token=link.token))
    expect(referee.locator("h1")).to_have_text(f"Table {link.table_number}")
    for seat in seats:
        expect(referee.locator(".sheet-seating").first).to_contain_text(seat.registration.player.name)
    shot(referee, "table-from-private-link")

    referee.get_by_role("link", name="Enter the scores").first.click()
    expect(referee.locator("h1")).to_have_text(f"Table {link.table_number}, game 1")
    shot(referee, "empty-sheet")

    # Seat 2's rack on the tile pad (R1 notation): red 10, red 11, blue 13 and a joker.
    referee.click('.sheet-pad-toggle[data-pad-for="id_s2_tiles"]')
    pad = referee.locator("#tile-pad")
    expect(pad).to_be_visible()
    for tile in ("R10", "R11", "B13", "J"):
        pad.locator(f'[data-tile="{tile}"]').click()
    shot(referee, "tile-pad-seat-2")
    pad.locator('[data-pad="close"]').click()
    expect(pad).to_be_hidden()
    expect(referee.locator("#id_s2_tiles")).to_have_value("R10 R11 B13 J")

    # Seats 3 and 4 counted and typed; seat 4 with three jokers, which no rack can hold (a mistake), and
    # the game "went out" with nobody marked as out (another).
    referee.fill("#id_s3_rack_value", "20")
    referee.fill("#id_s3_jokers", "0")
    referee.fill("#id_s4_rack_value", "15")
    referee.fill("#id_s4_jokers", "3")
    tap(referee, "Someone went out (Rummikub)")

    submit = referee.locator(".sheet-submit")
    expect(referee.locator("#seat-4-check")).to_contain_text("A rack holds 0 to 2 jokers.")
    expect(referee.locator("#sheet-check")).to_contain_text("no one is marked as out")
    expect(submit).to_be_disabled()
    assert sheets_of(stage) == [], "the live check must not save anything"
    referee.locator("#seat-4-check").scroll_into_view_if_needed()
    shot(referee, "mistake-flagged-at-seat-4")

    # Corrected: seat 4 holds no joker, seat 1 went out.
    referee.fill("#id_s4_jokers", "0")
    referee.locator('label[for="went-out-1"]').click()
    expect(referee.locator("#sheet-check")).to_contain_text("No problems found.")
    expect(referee.locator("#seat-4-check")).not_to_contain_text("jokers")
    expect(referee.locator("#seat-1-check")).to_contain_text("win")
    expect(submit).to_be_enabled()
    shot(referee, "corrected-no-problems")

    submit.click()
    expect(referee.locator("h1")).to_have_text(f"Table {link.table_number}")
    expect(referee.locator(".sheet-game").first).to_contain_text("Submitted: waiting for the chief referee")
    shot(referee, "submitted")

    [sheet] = sheets_of(stage)
    assert sheet.status == ScoreSheet.Status.SUBMITTED
    lines = {line.position: line for line in sheet.seats.all()}
    assert [p for p, line in lines.items() if line.went_out] == [1]
    # R5 (wrc-2014): the tapped rack costs 10 + 11 + 13 + a joker's 50; R6: the winner takes every penalty.
    assert lines[2].tiles == "R10 R11 B13 J" and lines[2].penalty == 84
    assert [(lines[p].rack_value, lines[p].penalty) for p in (3, 4)] == [(20, 20), (15, 15)]
    assert lines[1].win and lines[1].score == 84 + 20 + 15

    # The chief referee signs in through the real form on their own phone and confirms on the live board.
    festival = stage.event.festival
    chief = make_staff(festival, "chief referee", password=CHIEF_PASSWORD)
    chief_phone = phone("chief-referee")
    board = server.url("board", festival=festival.slug, event=stage.event.slug)
    sign_in(chief_phone, chief, CHIEF_PASSWORD, next_url=board.removeprefix(server.root))
    row = chief_phone.locator(f'#board li[data-table="{link.table_number}"]')
    expect(row).to_have_attribute("data-state", "submitted")
    shot(chief_phone, "board-sheet-submitted")
    row.get_by_role("button", name="Confirm").click()
    expect(chief_phone.locator(f'#board li[data-table="{link.table_number}"]')).to_have_attribute(
        "data-state", "confirmed")
    shot(chief_phone, "board-sheet-confirmed")

    sheet.refresh_from_db()
    assert sheet.status == ScoreSheet.Status.CONFIRMED
    assert sheet.decided_by == chief

    referee.reload()
    expect(referee.locator(".sheet-game").first).to_contain_text("Confirmed")
    shot(referee, "referee-sees-confirmed")


def test_a_draft_survives_a_reload_with_its_key_and_sending_it_twice_records_one_sheet(table, page, server, shot):
    stage, link, seats = table
    game_url = server.url("referee-link-game", token=link.token, stage=1, game=1)
    page.goto(game_url)
    key_input = page.locator("input[name=idempotency_key]")
    key = key_input.input_value()
    assert len(key) == 32

    page.locator('label[for="went-out-1"]').click()  # also chooses "went out" as the end
    page.fill("#id_s2_rack_value", "12")
    page.fill("#id_s2_jokers", "0")
    page.fill("#id_s3_tiles", "K7 K8")
    page.fill("#id_s4_rack_value", "9")
    page.fill("#id_s4_jokers", "0")
    expect(page.locator("#sheet-check")).to_contain_text("No problems found.")
    shot(page, "typed")
    saved = page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('rk-sheet|'))")
    assert len(saved) == 1 and saved[0].endswith("|" + key)

    page.reload()  # a phone going to sleep, a dropped connection, a slip of the thumb
    expect(page.locator("#id_s2_rack_value")).to_have_value("12")
    expect(page.locator("#id_s3_tiles")).to_have_value("K7 K8")
    expect(page.locator("#id_s4_rack_value")).to_have_value("9")
    expect(page.locator("#went-out-1")).to_be_checked()
    expect(page.locator('input[name=end][value="went_out"]')).to_be_checked()
    assert key_input.input_value() == key, "a restored draft keeps its idempotency key"
    expect(page.locator("#sheet-check")).to_contain_text("No problems found.")  # checked again at once
    shot(page, "restored-after-reload")

    # What the form sends, kept to replay it later as a retry after a timeout would.
    sent = page.evaluate("""() => {
        const form = document.querySelector('form.sheet-form');
        const data = new URLSearchParams(new FormData(form));
        data.set('action', 'submit');
        return data.toString();
    }""")

    page.locator(".sheet-submit").dblclick()  # a double tap
    expect(page.locator("h1")).to_have_text(f"Table {link.table_number}")
    expect(page.locator(".sheet-game").first).to_contain_text("Submitted")
    shot(page, "sent-once")
    [sheet] = sheets_of(stage)
    assert sheet.idempotency_key == key
    # The server acknowledged the draft: the browser forgets it.
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('rk-sheet|'))") == []

    retry = page.request.post(game_url, data=sent, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert retry.status == 200
    assert [s.pk for s in sheets_of(stage)] == [sheet.pk]


def test_a_seat_marked_went_out_after_its_tiles_were_typed_keeps_them_in_view_until_cleared(table, page, server,
                                                                                             shot):
    """The server refuses a winner holding tiles; the page must not hide what it refuses."""
    stage, link, seats = table
    page.goto(server.url("referee-link-game", token=link.token, stage=1, game=1))
    page.fill("#id_s1_tiles", "R7 R8")
    for position, value in ((2, "12"), (3, "20"), (4, "9")):
        page.fill(f"#id_s{position}_rack_value", value)
        page.fill(f"#id_s{position}_jokers", "0")
    # Seat 1 folded to one line once the referee moved on (complete, no problem): a tap opens it again.
    expect(page.locator("#seat-1 .sheet-seat-edit")).to_have_text("R7 R8")
    page.locator("#seat-1 .sheet-seat-edit").click()
    page.locator('label[for="went-out-1"]').click()
    expect(page.locator("#seat-1-check")).to_contain_text("A player who went out holds no tiles.")
    expect(page.locator("#id_s1_tiles")).to_be_visible()
    expect(page.locator(".sheet-submit")).to_be_disabled()
    shot(page, "winner-holding-tiles")

    page.fill("#id_s1_tiles", "")
    expect(page.locator("#id_s1_tiles")).to_be_hidden()
    expect(page.locator("#sheet-check")).to_contain_text("No problems found.")
    page.locator(".sheet-submit").click()
    expect(page.locator("h1")).to_have_text(f"Table {link.table_number}")
    [sheet] = sheets_of(stage)
    winner = sheet.seats.get(position=1)
    assert winner.went_out and winner.tiles == "" and winner.win
