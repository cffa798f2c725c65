"""Building blocks of the whole-day acceptance test (tests/e2e/test_e2e_day.py).

Two kinds of things live here:
- the day's script as plain data: who registers, and what each referee writes on each sheet. Scores are
  planned by *role* at a table (the under-15 player always first, then seat order) rather than by player,
  so whatever the computer draw does, the test knows who must advance, where a tie sits and who wins;
- the browser gestures every role repeats (register, enter a sheet, confirm a game on the board …).
  They read names from the pages and find fields by id or data attributes, so they work in any language.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

KID = "김하늘"  # under 15 on the event date (R9): wins everything, gets no ranking points
RANKING_POINTS = "100,70,50,40"


def in_language(code: str, text: str, **values) -> str:
    """The app's own translation; a missing one would make a language check meaningless, so refuse it."""
    with translation.override(code):
        translated = gettext(text)
    assert translated != text, f"no {code} translation of {text!r}"
    return translated % values if values else translated


# --- who comes ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Person:
    name: str
    contact: str
    birth_year: int
    affiliation: str = ""
    guardian: tuple[str, str] = ()  # a child's parent or guardian: (name, contact)


# Imported by the organiser from CSV. No name contains another, so a search for one finds one.
IMPORTED_NAMES = [
    "김민준", "이서연", "박지훈", "최유진", "정도윤", "강하은", "조민서", "윤서준", "장지우", "임예준", "한소율",
    "오시우", "서지호", "신채원", "권도현", "황수아", "안주원", "송다은", "류건우", "전하린", "홍승민", "고은비",
]
CLUBS = ["해운대초", "센텀중", "부산국제고", "동백클럽", "광안초", "수영중", "", ""]


def imported_people() -> list[Person]:
    return [Person(name, f"010-5550-{1000 + i}", 1975 + i, CLUBS[i % len(CLUBS)])
            for i, name in enumerate(IMPORTED_NAMES)]


def registrations_csv(event_slug: str, people: list[Person]) -> bytes:
    """What an organiser exports from their spreadsheet: Excel's "CSV UTF-8" (with a BOM)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["event", "name", "contact", "birth_year", "affiliation"])
    for person in people:
        writer.writerow([event_slug, person.name, person.contact, person.birth_year, person.affiliation])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


# --- what the referees write -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Sheet:
    """One game at one table as the referee writes it: who went out, every other seat's rack value."""

    out: int
    racks: dict[int, int]


def roles(seats: dict[int, str]) -> list[int]:
    """Seat positions from the table's planned strongest to weakest: the under-15 player first, then by seat."""
    return sorted(seats, key=lambda position: (seats[position] != KID, position))


# Rounds: role 0 goes out in games 1 and 3, role 1 in game 2 → wins 2, 1, 0, 0: the top 2 are clear (R7).
PLAIN_WINNERS = (0, 1, 0)
PLAIN_RACKS = (4, 7, 11, 16)  # by role, plus the game number
# The tie table: roles 0, 1, 2 go out once each; roles 1 and 2 end level on wins (1) and points (+5)
# behind role 0 (+20), so the second place at the cut is theirs to share until a lot decides (R7, R8.1).
TIE_RACKS = ({1: 10, 2: 10, 3: 10}, {0: 5, 2: 5, 3: 10}, {0: 5, 1: 5, 3: 10})
FINAL_RACKS = {1: 10, 2: 20, 3: 30}  # role 0 goes out; places 1-4 follow the roles


def planned_sheet(seats: dict[int, str], game: int, *, tie: bool = False, final: bool = False) -> Sheet:
    order = roles(seats)
    if final:
        winner, racks = 0, FINAL_RACKS
    elif tie:
        winner, racks = game - 1, TIE_RACKS[game - 1]
    else:
        winner = PLAIN_WINNERS[game - 1]
        racks = {role: PLAIN_RACKS[role] + game for role in range(len(order)) if role != winner}
    return Sheet(out=order[winner], racks={order[role]: value for role, value in racks.items()})


def scores(sheet: Sheet) -> dict[int, int]:
    """R6 for a game someone went out of, no jokers left: each loser −rack, the winner the sum."""
    out = {position: -value for position, value in sheet.racks.items()}
    out[sheet.out] = sum(sheet.racks.values())
    return out


def signed(value: int) -> str:
    """As the standings show points: +24, −5 (a true minus sign)."""
    return f"{value:+d}".replace("-", "\u2212")


def planned_top(seats: dict[int, str], places: int) -> list[str]:
    """Who a plain table sends on (by the plan above, wins alone decide)."""
    return [seats[position] for position in roles(seats)[:places]]


def tiles_for(value: int) -> list[str]:
    """Tiles worth `value` (R1 notation), at most one of each, for the tile pad."""
    assert 1 <= value <= 13 * 4
    tiles, colours = [], iter("RBYK")
    while value > 13:
        tiles.append(f"{next(colours)}13")
        value -= 13
    tiles.append(f"{next(colours)}{value}")
    return tiles


# --- browser gestures ------------------------------------------------------------------------------------

def register(page, url: str, person: Person) -> None:
    """The public form, from the event's page, as a player does on a phone."""
    page.goto(url)
    page.locator("main a.btn-primary[href$='/register/']").click()
    page.fill("#id_name", person.name)
    page.fill("#id_contact", person.contact)
    page.fill("#id_birth_year", str(person.birth_year))
    page.fill("#id_affiliation", person.affiliation)
    if person.guardian:
        page.fill("#id_guardian_name", person.guardian[0])
        page.fill("#id_guardian_contact", person.guardian[1])
        page.check("#id_guardian_agrees")
    page.check("#id_agree")  # the collection notice, read above the form
    with page.expect_navigation():
        page.locator("main form [type=submit]").click()


def seats_on_sheet(page) -> dict[int, str]:
    """{seat: player name} as the referee's sheet shows them."""
    pairs = page.evaluate("""() => Array.from(document.querySelectorAll('fieldset.sheet-seat')).map(seat => [
        Number(seat.dataset.seat),
        Array.from(seat.querySelector('legend').childNodes).filter(n => n.nodeType === Node.TEXT_NODE)
             .map(n => n.textContent).join('').trim()])""")
    return dict(pairs)


def open_next_game(page) -> dict[int, str]:
    """From the table page: the first game still to enter (whatever the page's language)."""
    page.locator(".sheet-state-to_enter a.btn-primary, .sheet-state-returned a.btn-primary").first.click()
    expect(page.locator("form.sheet-form")).to_be_visible()
    return seats_on_sheet(page)


def open_seat(page, position: int) -> None:
    """A seat the referee left complete is folded to one line (static/js/sheet.js): a tap opens it again."""
    folded = page.locator(f"#seat-{position} .sheet-seat-edit")
    if folded.is_visible():
        folded.click()


def tap_tiles(page, position: int, tiles: list[str], pad_open=None) -> None:
    """`pad_open(page)` runs while the pad is still open (a screenshot, say)."""
    open_seat(page, position)
    page.click(f'.sheet-pad-toggle[data-pad-for="id_s{position}_tiles"]')
    pad = page.locator("#tile-pad")
    expect(pad).to_be_visible()
    for tile in tiles:
        pad.locator(f'[data-tile="{tile}"]').click()
    if pad_open:
        pad_open(page)
    pad.locator('[data-pad="close"]').click()
    expect(page.locator(f"#id_s{position}_tiles")).to_have_value(" ".join(tiles))


def type_rack(page, position: int, value: int, jokers: int = 0) -> None:
    open_seat(page, position)
    page.fill(f"#id_s{position}_rack_value", str(value))
    page.fill(f"#id_s{position}_jokers", str(jokers))


def fill_sheet(page, sheet: Sheet, *, pad: bool = False, pad_open=None) -> None:
    """Who went out, then each rack: typed, or (pad=True) the first loser's tiles tapped on the tile pad."""
    # As a referee's thumb would, after the page's script has set the sheet up (it ticks "someone went out"
    # with the seat's box): a page opened by a tap may still be loading on a busy machine.
    page.locator(".sheet-seat-edit").first.wait_for(state="attached")
    page.locator(f'label[for="went-out-{sheet.out}"]').click()
    expect(page.locator('input[name="end"][value="went_out"]')).to_be_checked()
    for index, (position, value) in enumerate(sorted(sheet.racks.items())):
        if pad and index == 0:
            tap_tiles(page, position, tiles_for(value), pad_open)
        else:
            type_rack(page, position, value)


def expect_clean_check(page) -> None:
    """The live check (the server's rules engine) found nothing wrong and the table sums to zero (R6)."""
    check = page.locator("#sheet-check .sheet-check")
    # The panel says 0 errors before any answer too: wait for the answer's total first (a loaded machine may take
    # longer than the default five seconds to answer the check).
    expect(page.locator("#sheet-check .sheet-total")).to_have_text("0", timeout=20_000)
    expect(check).to_have_attribute("data-errors", "0")
    expect(check).to_have_attribute("data-warnings", "0")
    expect(page.locator(".sheet-submit")).to_be_enabled()


def send(page, table_url: str) -> None:
    page.locator(".sheet-submit").click()
    expect(page).to_have_url(table_url)


def board_row(chief, table: int):
    return chief.locator(f'#board li[data-table="{table}"]')


def confirm_game(chief, board_url: str, tables) -> None:
    """The chief referee confirms each submitted sheet of one game with the board's one-tap button."""
    chief.goto(board_url)
    for table in tables:
        row = board_row(chief, table)
        expect(row).to_have_attribute("data-state", "submitted")
        row.locator("form button[type=submit]").click()
        # The board also polls every 10 s: a poll answered before the confirmation may land after it and show
        # the sheet as submitted again, until the next poll.
        expect(board_row(chief, table)).to_have_attribute("data-state", "confirmed", timeout=15_000)


def draw_and_release(organiser, draws_url: str, seed: int, tables: int) -> None:
    """The organiser's draw page: a draft with a stored seed (reproducible), then released."""
    if organiser.url != draws_url:
        organiser.goto(draws_url)
    organiser.fill("#id_seed", str(seed))
    organiser.locator("form[action$='/draft/'] button[type=submit]").click()
    expect(organiser.locator("section.card[aria-labelledby^='table-']")).to_have_count(tables)
    organiser.locator("a[data-release]").click()
    organiser.locator("[data-confirm-button]").click()
    expect(organiser.locator("a[data-release]")).to_have_count(0)


def make_links(organiser, tables: int, *, made: dict[int, str] | None = None) -> dict[int, str]:
    """From the released draw to the referee links page; read the tables' private links. The first time the
    organiser makes them; later rounds find the very same links (one card per table for the whole event)."""
    organiser.locator("a[href*='/board/links/']").click()
    if made is None:
        organiser.locator("form[action$='/make/'] button").click()
    else:
        expect(organiser.locator("form[action$='/make/']")).to_have_count(0)
    links = organiser.locator("section[data-table] a[data-entry-link]")
    expect(links).to_have_count(tables)
    found = {int(section.get_attribute("data-table")): section.locator("a[data-entry-link]").get_attribute("href")
             for section in organiser.locator("section[data-table]").all()}
    assert made is None or all(found[table] == made[table] for table in found), "a table's card changed"
    return found
