"""A Hong Kong-format event (R8.2) in a real browser at phone size.

Sixteen numbered players, four tables, three games. The organiser starts the event, draws game 1 by player
number and releases it, and makes the tables' private links; four referees enter every game on their phones
through those links (table 2's in Korean); the chief referee confirms on the live board (in Korean), and the
confirmation of a game's last table seats the next game by moving the top two of each table up a table —
the app does that itself (scoring/services/progress.py, after_confirmation), nobody draws it. A player's page,
open in Traditional Chinese the whole time and never reloaded, follows their table (4 → 1, the last table's
top two go to table 1; then staying at table 1), their tablemates and running rank; the standings, in Korean,
end with the average points (R8.2) and the four prize places.

The games are scripted so that the outcome is known without the app: at every table the player with the
lowest number goes out and every other player holds a rack worth twice their number (no jokers). So the
lower number always ranks higher, and `expected_tables` below seats each game by R8.2 directly.
"""

import datetime as dt
import re

import pytest
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext
from playwright.sync_api import expect

from scoring.models import ScoreSheet
from tests.factories import make_staff, ready_event
from tournament.models import Draw, Event, Registration, Stage
from tournament.services import seating

TABLES, GAMES = 4, 3
PLAYERS = TABLES * 4
NAMES = ["陳志明", "李美玲", "張偉強", "黃嘉欣", "劉家豪", "梁詠詩", "周文傑", "吳淑儀",
         "鄭浩然", "楊雅婷", "何俊傑", "林曉彤", "謝子軒", "郭嘉敏", "馮志偉", "蔡曉晴"]
SCHOOLS = ["聖保羅書院", "喇沙書院", "瑪利諾修院學校", "皇仁書院"]
FOLLOWED = 13  # starts at the last table, wins game 1 and moves to table 1, then stays there
KOREAN_TABLE = 2  # this table's referee switches to Korean
PHONE_WIDTH = 360
POLL_SECONDS = 3  # templates/public/player.html and standings.html: hx-trigger="every 3s"


def rack_value(number: int) -> int:
    return 2 * number


def expected_tables() -> list[list[set[int]]]:
    """R8.2 for the scripted games: per game, the player numbers at each table (index 0 = table 1)."""
    tables = [set(range(4 * t + 1, 4 * t + 5)) for t in range(TABLES)]
    games = [tables]
    for _game in range(2, GAMES + 1):
        movers = [set(sorted(table)[:2]) for table in tables]  # the winner and the smallest penalty
        tables = [(table - movers[t]) | movers[t - 1] for t, table in enumerate(tables)]  # t - 1: last → first
        games.append(tables)
    return games


SEATING = expected_tables()


def say(language: str, text: str, **values) -> str:
    """The app's own wording in `language`; a missing translation would make a check meaningless: refuse it."""
    if language == "en":
        return text % values if values else text
    with translation.override(language):
        translated = gettext(text)
    assert translated != text, f"no {language} translation of {text!r}"
    return translated % values if values else translated


def say_count(language: str, singular: str, plural: str, count: int, **values) -> str:
    """`say` for a text with a count (ngettext); the plural's translation must exist."""
    values = {"count": count, **values}
    if language == "en":
        return (singular if count == 1 else plural) % values
    with translation.override(language):
        translated = ngettext(singular, plural, count)
    assert translated not in (singular, plural), f"no {language} translation of {plural!r}"
    return translated % values


def switch_language(page, code: str) -> None:
    """The language switcher in the footer (a POST that comes back to the same address)."""
    page.locator(f'footer button[name="language"][value="{code}"]').click()
    expect(page.locator("html")).to_have_attribute("lang", code)


@pytest.fixture
def event():
    """Check-in closed and players numbered 1–16 (the desk's part of the day is tests/e2e/test_e2e_day.py's)."""
    event = ready_event(PLAYERS, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016,
                        name="香港魔力橋學界決賽", rotation_games=GAMES, first_seating=Event.FirstSeating.BY_NUMBER,
                        start=timezone.now() - dt.timedelta(minutes=5))  # the round clocks show a real morning
    for registration in Registration.objects.filter(event=event).select_related("player"):
        player = registration.player
        player.name = NAMES[registration.number - 1]
        player.affiliation = SCHOOLS[(registration.number - 1) % len(SCHOOLS)]
        player.save(update_fields=["name", "affiliation"])
    return event


def fits_the_phone(page) -> bool:
    """Nothing widens the page past the 360 px screen (wide tables scroll inside their own box)."""
    return page.evaluate("document.documentElement.scrollWidth") <= PHONE_WIDTH


def name(number: int) -> str:
    return NAMES[number - 1]


def numbers_on(locator) -> set[int]:
    return {int(n) for n in re.findall(r"#(\d+)", locator.inner_text())}


def enter_game(referee, link: str, table: int, game: int, shot, language: str = "en") -> set[int]:
    """The referee opens the table from its private link and enters `game` as scripted; the players seated."""
    referee.goto(link)
    expect(referee.locator("h1")).to_have_text(say(language, "Table %(number)s", number=table))
    card = referee.locator(".sheet-game").nth(game - 1)
    seated = numbers_on(card.locator(".sheet-seating"))
    card.get_by_role("link", name=say(language, "Enter the scores")).click()
    expect(referee.locator("h1")).to_have_text(say(language, "Table %(number)s, game %(game)s",
                                                   number=table, game=game))
    seats = {}
    for fieldset in referee.locator("fieldset.sheet-seat").all():
        [number] = numbers_on(fieldset.locator("legend").first)
        seats[int(fieldset.get_attribute("data-seat"))] = number
    assert set(seats.values()) == seated
    winner = min(seats, key=seats.get)
    referee.locator(f'label[for="went-out-{winner}"]').click()
    for position, number in seats.items():
        if position != winner:
            referee.fill(f"#id_s{position}_rack_value", str(rack_value(number)))
            referee.fill(f"#id_s{position}_jokers", "0")
    expect(referee.locator("#sheet-check")).to_contain_text(say(language, "No problems found."))
    expect(referee.locator(f"#seat-{winner}-check")).to_contain_text(say(language, "win"))
    assert fits_the_phone(referee)
    if table in (1, KOREAN_TABLE):
        shot(referee, f"referee-table-{table}-game-{game}-entered")
    referee.locator(".sheet-submit").click()
    expect(referee.locator("h1")).to_have_text(say(language, "Table %(number)s", number=table))
    expect(referee.locator(".sheet-game").nth(game - 1)).to_contain_text(
        say(language, "Submitted: waiting for the chief referee"))
    return seated


def confirm_game(chief, board: str, game: int, shot) -> None:
    """The chief referee (in Korean) confirms every table of the game on the live board."""
    chief.goto(board)
    expect(chief.locator("#board")).to_contain_text(
        say_count("ko", "%(name)s, game %(number)s: %(count)s table", "%(name)s, game %(number)s: %(count)s tables",
                  TABLES, name=say("ko", "Final"), number=game))
    expect(chief.locator('#board [data-count="submitted"]')).to_have_text(str(TABLES))
    shot(chief, f"board-game-{game}-submitted")
    for table in range(1, TABLES + 1):
        row = chief.locator(f'#board li[data-table="{table}"]')
        expect(row).to_have_attribute("data-state", "submitted")
        row.get_by_role("button", name=say("ko", "Confirm")).click()
        expect(chief.locator(f'#board li[data-table="{table}"]')).to_have_attribute("data-state", "confirmed")
    expect(chief.locator('#board [data-count="confirmed"]')).to_have_text(str(TABLES))
    assert fits_the_phone(chief)
    shot(chief, f"board-game-{game}-confirmed")


def seated_numbers(stage: Stage, game: int) -> list[set[int]]:
    draw = seating.game_draw(stage, game)
    return [{seat.registration.number for seat in seating.seats(draw, table=table)} for table in range(1, TABLES + 1)]


def seat_of(stage: Stage, game: int, number: int):
    draw = seating.game_draw(stage, game)
    return next(seat for table in range(1, TABLES + 1) for seat in seating.seats(draw, table=table)
                if seat.registration.number == number)


def check_next_table(player, stage: Stage, game: int) -> None:
    """The followed player's "next game" card (Traditional Chinese): table, seat and tablemates of `game`."""
    seat = seat_of(stage, game, FOLLOWED)
    card = player.locator("section[aria-labelledby=next-table]")
    expect(card).to_contain_text(say("zh-hant", "Next game"))
    expect(card).to_contain_text(say("zh-hant", "game %(game)s", game=game))
    expect(card.locator(".stat-big")).to_have_text(
        say("zh-hant", "Table %(table)s, seat %(seat)s", table=seat.table.number, seat=seat.position))
    expect(card).to_contain_text(say("zh-hant", "At the table"))
    for number in SEATING[game - 1][seat.table.number - 1]:
        expect(card).to_contain_text(name(number))


def test_hong_kong_event_players_see_their_table_move_up_and_the_standings_end_with_averages_and_prizes(
        event, phone, server, shot, sign_in, marker, clock):
    festival = event.festival
    organiser_user = make_staff(festival, "organiser")
    chief_user = make_staff(festival, "chief referee")

    # --- The organiser starts the event, draws game 1 by player number and releases it (R8.2).
    organiser = phone("organiser")
    draws = server.url("manage-draws", festival=festival.slug, event=event.slug)
    sign_in(organiser, organiser_user, next_url=draws.removeprefix(server.root))
    expect(organiser.locator("h1")).to_have_text("Table draw")
    organiser.get_by_role("button", name="Start the first round").click()
    expect(organiser.locator(".alert-success")).to_contain_text("The first round is ready to be drawn.")
    organiser.fill("#id_seed", "2016")
    organiser.get_by_role("button", name="Draw", exact=True).click()
    expect(organiser.locator(".alert-secondary")).to_contain_text("By player number")
    for table in range(1, TABLES + 1):  # R8.2: table 1 = players 1–4, table 2 = players 5–8, …
        expect(organiser.locator(f'section[aria-labelledby="table-{table}"]')).to_contain_text(
            name(4 * table - 3))
    shot(organiser, "organiser-draft-by-number")
    organiser.get_by_role("link", name="Release the draw").click()
    expect(organiser.locator("[data-confirm-lines]")).to_contain_text("16 players at 4 tables")
    shot(organiser, "organiser-release-confirmation")
    organiser.get_by_role("button", name="Release the draw").click()
    expect(organiser.locator(".alert-success").first).to_contain_text("The draw is released")
    shot(organiser, "organiser-released")

    stage = Stage.objects.get(event=event)
    assert stage.games == GAMES and seated_numbers(stage, 1) == SEATING[0]

    # The tables' private links, as printed on the table cards.
    organiser.get_by_role("link", name="Referee links and paper sheets").click()
    organiser.get_by_role("button", name=f"Make the links of {TABLES} tables").click()
    links = {}
    for table in range(1, TABLES + 1):
        links[table] = organiser.locator(f'section[data-table="{table}"] a[data-entry-link]').get_attribute("href")
    assert len(set(links.values())) == TABLES
    shot(organiser, "organiser-table-links")

    # --- A player's phone: their page in Traditional Chinese, open (never reloaded) for the rest of the day.
    player = phone("player")
    clock.freeze(player)  # its polls run only when the test moves the clock
    player.goto(server.url("public-player", festival=festival.slug, event=event.slug, number=FOLLOWED))
    expect(player.locator("h1")).to_contain_text(name(FOLLOWED))
    switch_language(player, "zh-hant")
    check_next_table(player, stage, 1)  # table 4 by number
    expect(player.locator("main")).to_contain_text(say("zh-hant", "No confirmed results yet."))
    marker.set(player)
    shot(player, "player-before-game-1")

    # --- The chief referee signs in on their phone and switches to Korean.
    chief = phone("chief-referee")
    board = server.url("board", festival=festival.slug, event=event.slug)
    sign_in(chief, chief_user, next_url=board.removeprefix(server.root))
    switch_language(chief, "ko")
    expect(chief.locator("h1")).to_have_text(say("ko", "Live board"))

    referees = {table: phone(f"referee-{table}") for table in range(1, TABLES + 1)}
    referees[KOREAN_TABLE].goto(links[KOREAN_TABLE])
    switch_language(referees[KOREAN_TABLE], "ko")

    standings = None
    expected_ranks = {1: "1", 2: "4", 3: "5"}  # the followed player's rank after each game (see the docstring)
    for game in range(1, GAMES + 1):
        for table, referee in referees.items():
            language = "ko" if table == KOREAN_TABLE else "en"
            seated = enter_game(referee, links[table], table, game, shot, language)
            assert seated == SEATING[game - 1][table - 1], f"game {game}, table {table}: not seated by R8.2"
        assert ScoreSheet.objects.filter(stage=stage, game=game, status=ScoreSheet.Status.SUBMITTED).count() == TABLES

        if game == GAMES:
            # The standings on another phone, in Korean, open while the last game is confirmed.
            standings = phone("standings")
            clock.freeze(standings)
            standings.goto(server.url("public-standings", festival=festival.slug, event=event.slug))
            switch_language(standings, "ko")
            expect(standings.locator(".cut-note")).to_contain_text(say("ko", "provisional: games are still being played"))
            marker.set(standings)
            assert fits_the_phone(standings)
            shot(standings, "standings-before-last-game-confirmed")

        confirm_game(chief, board, game, shot)

        if game < GAMES:
            # Confirming the last table moved the top two of each table up a table: the next game is seated.
            moved = Draw.objects.get(stage=stage, game=game + 1)
            assert moved.status == Draw.Status.RELEASED and moved.method == Draw.Method.MOVEMENT
            assert seated_numbers(stage, game + 1) == SEATING[game]
            chief.goto(server.url("board-stage", festival=festival.slug, event=event.slug, stage=1))
            movement = chief.locator("[data-movement] li").nth(game - 1)
            expect(movement).to_contain_text(say("ko", "After game %(game)s", game=game))
            expect(movement).to_contain_text(say("ko", "moved: the next game is seated"))
            shot(chief, f"stage-after-game-{game}-moved")

            # The organiser's draw page shows the seating players need now.
            organiser.goto(draws)
            expect(organiser.locator(".alert-success")).to_contain_text("Top two move up a table")
            for table in range(1, TABLES + 1):
                for number in SEATING[game][table - 1]:
                    expect(organiser.locator(f'section[aria-labelledby="table-{table}"]')).to_contain_text(
                        name(number))
            shot(organiser, f"organiser-draw-game-{game + 1}")

        # The player's phone updates itself: the result, the running rank, the next table.
        clock.poll(player, POLL_SECONDS + 1, "/live/")
        assert marker.survived(player), "the player's page was reloaded; it must update in place"
        expect(player.locator("table tbody tr")).to_have_count(game)
        expect(player.locator("dl dd").first).to_have_text(expected_ranks[game])
        if game < GAMES:
            check_next_table(player, stage, game + 1)
        else:
            expect(player.locator("section[aria-labelledby=next-table]")).to_have_count(0)
        assert fits_the_phone(player)
        shot(player, f"player-after-game-{game}")

    # The followed player: table 4 (won) → table 1 (moved up from the last table) → table 1 (stayed).
    rows = player.locator("table tbody tr")
    for game, (table, rank) in enumerate([(4, "1"), (1, "4"), (1, "5")], start=1):
        row = rows.nth(game - 1)
        expect(row).to_contain_text(say("zh-hant", "game %(game)s", game=game))
        expect(row).to_contain_text(say("zh-hant", "table %(table)s", table=table))
        expect(row.locator("td").last).to_have_text(rank)
    expect(rows.nth(0)).to_contain_text("+90")  # R6: 28 + 30 + 32 from the three others
    expect(rows.nth(0)).to_contain_text(say("zh-hant", "win"))
    expect(rows.nth(1)).to_contain_text("\u221226")
    expect(player.locator("dl")).to_contain_text(say("zh-hant", "Average"))
    expect(player.locator("dl")).to_contain_text("+12.67")  # (90 − 26 − 26) / 3
    shot(player, "player-final")

    # --- The final standings (Korean): wins, then AVERAGE points; the four prize places, no tie on them.
    clock.poll(standings, POLL_SECONDS + 1, "/standings/live/")
    assert marker.survived(standings), "the standings page was reloaded; it must update in place"
    # The event is over: the page now leads with the final places (R8.2), the champion first; every game's
    # table is one tap away, and says what it is.
    expect(standings.locator("main h2")).to_contain_text(say("ko", "Final places"))
    expect(standings.locator("main table tbody tr").first).to_contain_text(name(9))
    shot(standings, "standings-final-places")
    standings.get_by_role("link", name=say("ko", "Every game: the table of wins and points over all the games played")).click()
    expect(standings.locator("main")).to_contain_text(say("ko", "Ranked by wins, then average points per game."))
    note = standings.locator(".cut-note")
    expect(note).to_contain_text(say("ko", "The top %(places)s take the prize places.", places=4))
    expect(note).not_to_contain_text(say("ko", "provisional: games are still being played"))
    expect(note.locator(".text-bg-warning")).to_have_count(0)  # no tie on the prize places: no playoff
    table = standings.locator("table.standings")
    expect(table.locator("thead")).to_contain_text(say("ko", "Average"))
    rows = table.locator("tbody tr:not(.cut-line)")
    podium = [(9, "3", "+74"), (5, "3", "+58"), (1, "3", "+34"), (3, "2", "+31.33"), (13, "1", "+12.67")]
    for place, (number, wins, average) in enumerate(podium, start=1):
        row = rows.nth(place - 1)
        expect(row.locator("td").first).to_have_text(str(place))
        expect(row).to_contain_text(name(number))
        expect(row.locator("td.fw-semibold")).to_have_text(average)
        expect(row.locator("td").nth(3)).to_have_text(wins)
    # The prize line sits after the fourth row.
    expect(table.locator("tbody tr").nth(4)).to_have_class(re.compile(r"(^|\s)cut-line(\s|$)"))
    expect(rows.nth(3)).to_have_class(re.compile(r"(^|\s)cut-after(\s|$)"))
    assert fits_the_phone(standings), "the standings table must scroll in its box, not widen the page"
    shot(standings, "standings-final")
