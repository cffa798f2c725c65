"""Live public pages: standings, a player's page, the hall display; ETag/304; constant queries.

Results go through the real services (submit, confirm) — nothing is written to the tables by hand.
"""

import random
import re

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from public import rendered
from public.board import build_board
from scoring.services import progress
from scoring.services.sheets import confirm_sheet, correct_sheet, submit_sheet
from tests.factories import make_event, make_player, make_registration, released_stage
from tests.scoring.helpers import chief_of, confirm, entry_for, hong_kong, key, play_game, seated, text
from tournament.models import ConductRecord, Event, Registration, Stage
from tournament.services import draws, seating
from tournament.services.audit import Actor
from tournament.services.checkin import assign_numbers

pytestmark = pytest.mark.django_db
REFEREE = Actor(label="table link")
ORGANISER = Actor(label="test organiser")
MINUS = "\u2212"

# R6 golden table (seed 001): each player's score in games 1–4.
GOLDEN = {"루미": (24, -6, -32, 49), "큐브": (-5, -11, -13, -14), "퍼니": (-16, 22, -2, -16), "알토": (-3, -5, 47, -19)}


def urls(event, **extra):
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    return {name: reverse(name, kwargs={**kwargs, **extra.get(name, {})}) for name in (
        "public-standings", "public-standings-live", "public-standings-all", "public-hall", "public-hall-live",
        "event", "public-find-player")}


def golden_stage() -> Stage:
    """Four players at one table playing a 4-game final (the event's `final_games` setting), WRC rules."""
    event = make_event(checkin_override=Event.CheckinOverride.CLOSED, final_games=4)
    for name in GOLDEN:
        make_registration(event, make_player(event.festival, name=name), checked_in_at=timezone.now())
    assign_numbers(event=event, actor=ORGANISER)
    event.refresh_from_db()
    stage = draws.start_event(event=event, actor=ORGANISER)
    draws.release_draw(draw=draws.draft_draw(stage=stage, actor=ORGANISER, seed=1), actor=ORGANISER)
    assert stage.games == 4
    return stage


def golden_entry(stage, game):
    seats = seating.seats(seating.game_draw(stage, game), table=1)
    scores = [GOLDEN[seat.registration.player.name][game - 1] for seat in seats]
    winner = scores.index(max(scores))
    return entry_for(stage, game, 1, [-s for s in scores], winner=winner)


def submit_golden(stage, game):
    return submit_sheet(stage=stage, game=game, table_number=1, entry=golden_entry(stage, game),
                        accept_warnings=True, idempotency_key=key(), actor=REFEREE, via="link")


# ------------------------------------------------------------------ standings

def test_golden_table_through_real_sheets_wins_totals_and_ranks_r6(client):
    stage = golden_stage()
    chief = chief_of(stage.event)
    for game in (1, 2, 3, 4):
        confirm_sheet(sheet=submit_golden(stage, game), actor=chief)
    board = build_board(stage.event)
    rows = {row.registration.player.name: row for row in board.rows}
    names = ("루미", "큐브", "퍼니", "알토")
    assert [rows[n].line.wins for n in names] == [2, 0, 1, 1]
    assert [rows[n].points for n in names] == ["+35", f"{MINUS}43", f"{MINUS}12", "+20"]
    assert [rows[n].line.rank for n in names] == [1, 4, 3, 2]
    # The final is complete: the standings page leads with the final places, every game one tap away.
    page = text(client.get(urls(stage.event)["public-standings"]))
    assert "Final places" in page and urls(stage.event)["public-standings-all"] in page
    assert page.index("루미") < page.index("알토") < page.index("퍼니") < page.index("큐브")
    page = text(client.get(urls(stage.event)["public-standings-all"]))
    assert page.index("루미") < page.index("알토") < page.index("퍼니") < page.index("큐브")
    assert "+35" in page and f"{MINUS}43" in page and "+49" in page  # total and a game's score
    assert "Ranked by wins, then total points." in page


def test_only_confirmed_sheets_change_the_standings(client):
    stage = golden_stage()
    sheet = submit_golden(stage, 1)
    board = build_board(stage.event)
    assert all(row.line.games == 0 for row in board.rows)
    assert "+24" not in text(client.get(urls(stage.event)["public-standings"]))
    confirm_sheet(sheet=sheet, actor=chief_of(stage.event))
    assert "+24" in text(client.get(urls(stage.event)["public-standings"]))


def test_players_still_tied_share_a_rank_r7(client):
    stage = released_stage(4)  # four players: the final, one game
    play_game(stage, 1, chief_of(stage.event), random.Random(1), tie=True)  # three losers on −5
    board = build_board(stage.event)
    assert [row.rank for row in board.rows] == ["1", "2=", "2=", "2="]
    assert text(client.get(urls(stage.event)["public-standings-all"])).count(">2=<") == 3


def test_hong_kong_ranks_and_shows_average_points_r8_2(client):
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    chief = chief_of(stage.event)
    rng = random.Random(4)
    play_game(stage, 1, chief, rng)
    play_game(stage, 2, chief, rng)
    board = build_board(stage.event)
    assert board.average
    for row in board.rows:
        assert row.line.games == 2
        assert row.points == f"{row.line.total / 2:+.2f}".replace(".00", "").replace("-", MINUS)
    page = text(client.get(urls(stage.event)["public-standings"]))
    assert "average points per game" in page and ">Average<" in page


def test_busan_table_cut_marks_advancing_players_and_flags_a_tie_r7_r8_1(client):
    stage = released_stage(8)  # two tables of four, top 2 of each table advance
    chief = chief_of(stage.event)
    play_game(stage, 1, chief, random.Random(1), tie=True)
    during = build_board(stage.event, stage)
    assert during.cut.kind == "table" and during.cut.provisional and during.cut.tie
    assert {row.mark for row in during.rows} == {"advancing", "tie"}
    for game in (2, 3):
        play_game(stage, game, chief, random.Random(game), tie=True)
    board = build_board(stage.event, stage)
    assert not board.cut.provisional and board.cut.tie
    assert sorted(row.mark for row in board.rows) == ["advances"] * 2 + ["tie"] * 6
    assert all(row.table in (1, 2) for row in board.rows)
    page = text(client.get(reverse("public-standings-stage", kwargs={
        "festival": stage.event.festival.slug, "event": stage.event.slug, "stage": 1})))
    assert "Tie at the cut: a recorded lot decides" in page and "tied at the cut" in page


def test_no_cut_marks_before_the_first_result(client):
    for stage in (released_stage(8), released_stage(8, format=Event.Format.HONG_KONG,
                                                   ruleset=Event.Ruleset.HK_2016)):
        board = build_board(stage.event, stage)
        assert board.cut is None and not any(row.mark for row in board.rows)
        assert "tied at the cut" not in text(client.get(urls(stage.event)["public-standings"]))


def test_busan_top_of_stage_draws_a_line_after_the_fourth_r8_1(client):
    stage = released_stage(16)
    Stage.objects.filter(pk=stage.pk).update(advance=Stage.Advance.PER_STAGE, advance_count=4)
    stage.refresh_from_db()
    play_game(stage, 1, chief_of(stage.event), random.Random(8))
    board = build_board(stage.event, stage)
    assert board.cut.kind == "line" and board.cut.places == 4 and board.cut.provisional
    assert [row.cut_after for row in board.rows].index(True) == 3
    assert board.cut.tie == (board.rows[3].line.rank == board.rows[4].line.rank)


def test_hong_kong_prize_places_line_flags_a_tie_for_a_playoff_r7_r8_2(client):
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    play_game(stage, 1, chief_of(stage.event), random.Random(2), tie=True)  # 2 winners, six players on −5
    board = build_board(stage.event)
    assert board.cut.prizes and board.cut.places == 4 and board.cut.tie and board.cut.provisional
    assert board.rows[3].cut_after
    assert "Tie on the prize places: a one-game playoff decides" in text(
        client.get(urls(stage.event)["public-standings"]))


@pytest.mark.parametrize("language, prize_line, cut", [("en", "prize line", "cut"), ("zh-hant", "得獎線", "晉級線")])
def test_hong_kong_line_under_the_prize_places_is_a_prize_line_not_a_cut_r8_2(client, language, prize_line, cut):
    """Nobody advances from a Hong Kong event: the line under the 4th place marks the prizes (得獎線)."""
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    play_game(stage, 1, chief_of(stage.event), random.Random(5))
    page = text(client.get(urls(stage.event)["public-standings"], HTTP_ACCEPT_LANGUAGE=language))
    line = re.search(r'<tr class="cut-line"><td[^>]*>\s*([^<]*?)\s*</td>', page).group(1)
    assert line.startswith(prize_line) and cut not in line


def test_player_who_left_the_event_is_marked_and_keeps_results(client):
    stage = golden_stage()
    confirm_sheet(sheet=submit_golden(stage, 1), actor=chief_of(stage.event))
    cube = stage.event.registrations.get(player__name="큐브")
    ConductRecord.objects.create(event=stage.event, registration=cube, kind=ConductRecord.Kind.WITHDREW,
                                 stage=stage, game=1, note="felt unwell")
    row = next(row for row in build_board(stage.event).rows if row.registration == cube)
    assert row.leaving is not None and row.line.games == 1
    assert "Withdrew during the event" in text(client.get(urls(stage.event)["public-standings"]))


# ------------------------------------------------------------------ where each player stands (the row's badge)

def marks(board) -> dict[int, tuple[str, str]]:
    return {row.line.player: (row.mark, row.status) for row in board.rows}


def board_of(event, stage=None):
    """As a request builds it: from the event fetched anew (an instance keeps its public state once read)."""
    return build_board(Event.objects.get(pk=event.pk), stage)


def test_once_every_game_of_a_busan_round_is_confirmed_the_others_are_out_on_both_pages_r8_1(client):
    stage = released_stage(8)  # two tables: the top 2 of each go on
    event, chief = stage.event, chief_of(stage.event)
    play_game(stage, 1, chief, random.Random(1))
    for board in (board_of(event, stage), board_of(event)):  # the round, and the whole event in round 1
        assert {mark for mark, _status in marks(board).values()} == {"advancing", ""}  # nobody is out yet
    for game in (2, 3):
        play_game(stage, game, chief, random.Random(game))
    advancing = set(progress.advancement(stage).advancing)
    assert len(advancing) == 4
    expected = {row.line.player: ("advances", "advances") if row.line.player in advancing
                else ("out", "Out after Round 1") for row in board_of(event, stage).rows}
    assert marks(board_of(event, stage)) == expected
    assert marks(board_of(event)) == expected
    page = text(client.get(urls(event)["public-standings"]))
    assert page.count(">Out after Round 1<") == 4 and page.count(">advances<") == 4


def test_the_whole_busan_event_shows_who_is_out_who_plays_the_final_and_the_final_places_r8_1(client):
    stage = released_stage(8)
    event, chief = stage.event, chief_of(stage.event)
    for game in (1, 2, 3):
        play_game(stage, game, chief, random.Random(game))
    advancing = set(progress.advancement(stage).advancing)
    final = progress.close_stage(stage=stage, actor=chief)
    assert final.is_final
    board = board_of(event)
    assert {p: m for p, m in marks(board).items() if p in advancing} == dict.fromkeys(advancing, ("in", "Final"))
    assert {m for p, m in marks(board).items() if p not in advancing} == {("out", "Out after Round 1")}
    draws.release_draw(draw=draws.draft_draw(stage=final, actor=ORGANISER, seed=1), actor=ORGANISER)
    confirm(final, [0, 10, 20, 30], chief=chief)  # seat 1 goes out; the others keep 10, 20, 30: places in seat order
    places = {player: ("placed", f"place {place}") for place, player in enumerate(seated(final), start=1)}
    assert marks(board_of(event, final)) == places
    # The whole event ranks by every round's wins, but the final alone decides the places (R8.1).
    assert {p: m for p, m in marks(board_of(event)).items() if p in advancing} == places
    assert "place 1" in text(client.get(urls(event)["public-standings-all"]))
    # The standings page itself leads with those places, the final's winner first (R8.1).
    page = text(client.get(urls(event)["public-standings"]))
    assert "Final places" in page
    first, second = (Registration.objects.get(pk=pk).player.name for pk in seated(final)[:2])
    assert page.index(first) < page.index(second)


def test_hong_kong_rows_show_the_prize_places_while_played_then_the_places_r8_2(client):
    stage = hong_kong(8, games=2)
    event, chief = stage.event, chief_of(stage.event)
    play_game(stage, 1, chief, random.Random(11))
    board = board_of(event)
    assert [row.mark for row in board.rows] == ["prize"] * 4 + [""] * 4
    assert board.rows[0].status == "in the prize places"
    play_game(stage, 2, chief, random.Random(12))
    board = board_of(event)
    assert [row.rank for row in board.rows][:4] == ["1", "2", "3", "4"] and board.rows[4].line.rank == 5
    assert [(row.mark, row.status) for row in board.rows] == [
        ("placed", "place 1"), ("placed", "place 2"), ("placed", "place 3"), ("placed", "place 4")] + [("", "")] * 4
    page = text(client.get(urls(event)["public-standings-all"], HTTP_ACCEPT_LANGUAGE="zh-hant"))
    assert page.count('class="badge text-bg-primary"') == 4


def test_a_tie_on_a_prize_place_is_flagged_on_its_rows_not_guessed_r7(client):
    stage = hong_kong(8)
    play_game(stage, 1, chief_of(stage.event), random.Random(2), tie=True)  # two winners; six players on −5
    board = board_of(stage.event)
    assert [row.rank for row in board.rows] == ["1="] * 2 + ["3="] * 6
    assert {(row.mark, row.status) for row in board.rows} == {("prize-tie", "tied on a prize place")}


def test_a_phone_gets_every_games_column_from_a_link_outside_the_live_fragment(client):
    """The compact rows on a phone, every column one tap away: #every-game wraps the polled fragment, so the
    choice (CSS :target, static/css/app.css) outlives each live update; no JavaScript involved."""
    stage = golden_stage()
    confirm_sheet(sheet=submit_golden(stage, 1), actor=chief_of(stage.event))
    page = text(client.get(urls(stage.event)["public-standings"]))
    assert page.index('id="every-game"') < page.index("data-poll")
    assert 'href="#every-game"' in page and 'href="#standings-compact"' in page
    fragment = text(client.get(urls(stage.event)["public-standings-live"]))
    assert 'href="#every-game"' in fragment and 'id="every-game"' not in fragment
    event = Event.objects.get(pk=stage.event.pk)
    event.public_scores = False  # no game columns: nothing to show
    event.save(update_fields=["public_scores"])
    assert 'href="#every-game"' not in text(client.get(urls(stage.event)["public-standings"]))


# ------------------------------------------------------------------ visibility

def test_standings_not_published_shows_a_polite_page_without_names(client):
    stage = golden_stage()
    confirm_sheet(sheet=submit_golden(stage, 1), actor=chief_of(stage.event))
    Event.objects.filter(pk=stage.event.pk).update(public_standings=False)
    for name in ("public-standings", "public-standings-live"):
        response = client.get(urls(stage.event)[name])
        assert response.status_code == 200
        assert "have not published the standings" in text(response) and "루미" not in text(response)
    hall = text(client.get(urls(stage.event)["public-hall"]))
    assert 'data-kind="standings"' not in hall and 'data-kind="draw"' in hall  # the draw is still public


def test_game_scores_hidden_when_the_event_hides_them(client):
    stage = golden_stage()
    confirm_sheet(sheet=submit_golden(stage, 1), actor=chief_of(stage.event))
    Event.objects.filter(pk=stage.event.pk).update(public_scores=False)
    page = text(client.get(urls(stage.event)["public-standings"]))
    assert "+24" in page  # 루미's total after one game is still shown …
    assert "★" not in page and ">G1<" not in page  # … but no per-game column
    player = text(client.get(reverse("public-player", kwargs={
        "festival": stage.event.festival.slug, "event": stage.event.slug, "number": 1})))
    assert ">Score<" not in player


def test_draw_hidden_keeps_the_next_table_off_the_player_page_and_the_hall(client):
    stage = golden_stage()
    Event.objects.filter(pk=stage.event.pk).update(public_draw=False)
    kwargs = {"festival": stage.event.festival.slug, "event": stage.event.slug}
    assert "Next game" not in text(client.get(reverse("public-player", kwargs={**kwargs, "number": 1})))
    assert 'data-kind="draw"' not in text(client.get(reverse("public-hall", kwargs=kwargs)))


# ------------------------------------------------------------------ ETag / 304

@pytest.mark.parametrize("name", ["public-standings", "public-standings-live", "public-hall-live"])
def test_unchanged_standings_answer_304_and_a_confirmation_changes_the_etag(client, name,
                                                                            django_assert_num_queries):
    stage = golden_stage()
    chief = chief_of(stage.event)
    confirm_sheet(sheet=submit_golden(stage, 1), actor=chief)
    url = urls(stage.event)[name]
    first = client.get(url)
    assert first.status_code == 200 and first.has_header("ETag")
    assert "no-cache" in first["Cache-Control"]
    with django_assert_num_queries(0):  # the event and its version come from the shared cache
        again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    submitted = submit_golden(stage, 2)  # submitted, not confirmed: nothing public changed
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    confirm_sheet(sheet=submitted, actor=chief)
    after = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert after.status_code == 200 and after["ETag"] != first["ETag"]


def test_a_polled_fragment_is_rendered_once_for_every_phone(client, django_assert_num_queries):
    from django.test import Client

    stage = golden_stage()
    confirm_sheet(sheet=submit_golden(stage, 1), actor=chief_of(stage.event))
    url = urls(stage.event)["public-standings-live"]
    first = client.get(url)
    with django_assert_num_queries(0):  # another phone, no ETag of its own: served from the cache
        other = Client().get(url)
    assert other.status_code == 200 and other.content == first.content and other["ETag"] == first["ETag"]


def test_a_correction_and_a_settings_change_also_change_the_etag(client):
    stage = golden_stage()
    chief = chief_of(stage.event)
    sheet = confirm_sheet(sheet=submit_golden(stage, 1), actor=chief)
    url = urls(stage.event)["public-standings-live"]
    etag = client.get(url)["ETag"]
    correct_sheet(sheet=sheet, entry=golden_entry(stage, 1), reason="recount", accept_warnings=True,
                  idempotency_key=key(), actor=chief)
    corrected = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert corrected.status_code == 200
    # Saved as the event's settings form saves it (services.festivals.update_event): the cached event row
    # is dropped with the save (public/cache.py).
    event = Event.objects.get(pk=stage.event.pk)
    event.public_scores = False
    event.save(update_fields=["public_scores"])
    assert client.get(url, HTTP_IF_NONE_MATCH=corrected["ETag"]).status_code == 200


def test_etag_differs_by_language(client):
    stage = golden_stage()
    url = urls(stage.event)["public-standings-live"]
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en")["ETag"]
    korean = client.get(url, HTTP_ACCEPT_LANGUAGE="ko", HTTP_IF_NONE_MATCH=english)
    assert korean.status_code == 200 and korean["ETag"] != english


# ------------------------------------------------------------------ player page

def test_player_page_lists_games_tablemates_scores_running_rank_and_next_table(client):
    stage = golden_stage()
    kwargs = {"festival": stage.event.festival.slug, "event": stage.event.slug, "number": 1}  # 루미
    before = text(client.get(reverse("public-player", kwargs=kwargs)))
    seat = stage.draws.get(status="released").seats.get(registration__number=1)
    assert "Next game" in before and f"Table {seat.table.number}, seat {seat.position}" in before
    chief = chief_of(stage.event)
    confirm_sheet(sheet=submit_golden(stage, 1), actor=chief)
    confirm_sheet(sheet=submit_golden(stage, 2), actor=chief)
    page = text(client.get(reverse("public-player", kwargs=kwargs)))
    assert "루미" in page and all(name in page for name in ("큐브", "퍼니", "알토"))  # tablemates
    assert "+24" in page and f"{MINUS}6" in page and ">win<" in page
    assert "Final, game 1" in page and "Final, game 2" in page
    assert "Final, game 3" in page  # the next game: the final's third, same table
    cache.clear()  # rendered, not the page stored for every phone (which carries no template context)
    rendered.forget()  # nor the worker's copy of it
    response = client.get(reverse("public-player", kwargs=kwargs))
    card = response.context["card"]
    assert [g.rank for g in card.games] == ["1", "1"]  # 1 win +24; then 1 win +18, ahead of 퍼니 (1 win, +6)
    assert card.stats.rank == "1"
    cube = client.get(reverse("public-player", kwargs={**kwargs, "number": 2})).context["card"]  # 큐브: −5, −11
    assert [g.rank for g in cube.games] == ["3", "4"]


def test_seat_finder_links_to_the_player_page(client):
    stage = golden_stage()
    kwargs = {"festival": stage.event.festival.slug, "event": stage.event.slug}
    found = text(client.get(reverse("public-seat", kwargs=kwargs), {"q": "루미"}))
    assert reverse("public-player", kwargs={**kwargs, "number": 1}) in found
    search = text(client.get(reverse("public-find-player", kwargs=kwargs), {"q": "루미"}))
    assert reverse("public-player", kwargs={**kwargs, "number": 1}) in search
    assert "큐브" not in search


# ------------------------------------------------------------------ hall and event home

def test_hall_display_shows_standings_and_draw_slides(client):
    stage = golden_stage()
    confirm_sheet(sheet=submit_golden(stage, 1), actor=chief_of(stage.event))
    response = client.get(urls(stage.event)["public-hall"])
    page = text(response)
    assert response.status_code == 200
    assert 'data-kind="standings"' in page and 'data-kind="draw"' in page
    assert "js/hall.js" in page and 'hx-trigger="every 25s"' in page and "data-poll" in page
    assert page.index('data-kind="standings"') < page.index('data-kind="draw"')  # without JS: standings first


def test_hong_kong_hall_shows_the_whole_event_with_the_prize_places(client):
    stage = released_stage(8, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    play_game(stage, 1, chief_of(stage.event), random.Random(5))
    page = text(client.get(urls(stage.event)["public-hall"]))
    assert "The top 4 take the prize places." in page and "cut-after" in page
    assert "game 2" in page  # the draw slide shows the Hong Kong game's own seating


def test_event_home_shows_schedule_current_game_and_links(client):
    stage = golden_stage()
    confirm_sheet(sheet=submit_golden(stage, 1), actor=chief_of(stage.event))
    page = text(client.get(urls(stage.event)["event"]))
    assert "Schedule" in page and "Check-in" in page
    assert "game 2 in play: 0 of 1 table confirmed" in page  # one table, not "1 tables"
    assert urls(stage.event)["public-standings"] in page and urls(stage.event)["public-find-player"] in page
    assert reverse("public-draw", kwargs={"festival": stage.event.festival.slug, "event": stage.event.slug}) in page


def test_standings_page_polls_its_fragment_inside_data_poll(client):
    stage = golden_stage()
    page = text(client.get(urls(stage.event)["public-standings"]))
    assert "data-poll" in page and 'hx-trigger="every 3s"' in page
    assert urls(stage.event)["public-standings-live"] in page


# ------------------------------------------------------------------ hostile input, no login

@pytest.mark.parametrize("path", [
    "/f/nope/nope/standings/", "/f/nope/nope/hall/", "/f/nope/nope/player/1/",
    "{base}player/0/", "{base}player/99999999999999999999/", "{base}player/-1/", "{base}player/abc/",
    "{base}player/5/", "{base}standings/0/", "{base}standings/99999999999999999999/", "{base}standings/7/",
    "{base}standings/abc/", "{base}player/99999999999999999999/live/",
])
def test_hostile_addresses_are_404_not_500(client, path):
    stage = golden_stage()
    base = f"/f/{stage.event.festival.slug}/{stage.event.slug}/"
    assert client.get(path.format(base=base)).status_code == 404


def test_search_with_hostile_input_answers_200(client):
    stage = golden_stage()
    url = urls(stage.event)["public-find-player"]
    for query in ("\x00", "x" * 5000, "9" * 30, "' OR 1=1 --"):
        assert client.get(url, {"q": query}).status_code == 200


def test_public_pages_need_no_login(client):
    stage = golden_stage()
    kwargs = {"festival": stage.event.festival.slug, "event": stage.event.slug}
    for url in [*urls(stage.event).values(), reverse("public-player", kwargs={**kwargs, "number": 2}),
                reverse("public-standings-stage", kwargs={**kwargs, "stage": 1})]:
        response = client.get(url)
        assert response.status_code == 200, url


# ------------------------------------------------------------------ constant queries

@pytest.mark.parametrize("players", [4, 8, 128])  # a final alone; a round of two tables; a round of 32 tables
def test_public_pages_use_a_constant_number_of_queries(client, django_assert_max_num_queries, players):
    stage = released_stage(players)
    play_game(stage, 1, chief_of(stage.event), random.Random(players))
    kwargs = {"festival": stage.event.festival.slug, "event": stage.event.slug}
    bounds = {
        # The whole event also says who goes on from the round being played (the stage page's advancement),
        # and asks whether the results are final (3 queries: the final places lead once they are).
        reverse("public-standings", kwargs=kwargs): 19,
        reverse("public-standings-live", kwargs=kwargs): 19,
        reverse("public-standings-all", kwargs=kwargs): 19,
        reverse("public-standings-stage", kwargs={**kwargs, "stage": 1}): 18,
        reverse("public-player", kwargs={**kwargs, "number": 1}): 10,
        reverse("public-player-live", kwargs={**kwargs, "number": players}): 10,
        reverse("public-hall", kwargs=kwargs): 18,
        reverse("public-hall-live", kwargs=kwargs): 18,
        reverse("event", kwargs=kwargs): 9,
        reverse("public-find-player", kwargs=kwargs) + "?q=player": 3,
    }
    for url, bound in bounds.items():
        with django_assert_max_num_queries(bound):
            response = client.get(url)
        assert response.status_code == 200, url
    cache.clear()  # rendered, not the page stored for every phone (which carries no template context)
    rendered.forget()  # nor the worker's copy of it
    rows = client.get(reverse("public-standings-all", kwargs=kwargs)).context["board"].rows
    assert len(rows) == players


def test_hong_kong_player_page_says_who_moved_up_a_table_or_stays_r8_2(client):
    stage = released_stage(12, format=Event.Format.HONG_KONG, ruleset=Event.Ruleset.HK_2016)
    event = stage.event
    play_game(stage, 1, chief_of(event), random.Random(2))  # confirming the last table seats game 2 (R8.2)
    moved = {}
    for registration in event.registrations.filter(number__isnull=False):
        response = client.get(reverse("public-player", kwargs={
            "festival": event.festival.slug, "event": event.slug, "number": registration.number}))
        game = response.context["card"].games[0]
        nxt = response.context["card"].next
        assert nxt.game == 2 and nxt.came_from == game.table
        moved[(game.table, nxt.table)] = moved.get((game.table, nxt.table), 0) + 1
        label = {"up": "Moved up from table", "stays": "Stays at table"}[nxt.moved]
        assert f"{label} {game.table}" in text(response)
        assert (nxt.moved == "up") == (game.win or nxt.table != game.table)
    # R8.2: the top two of each table move to the next one (the last table's to table 1), the bottom two stay.
    assert moved == {(1, 2): 2, (2, 3): 2, (3, 1): 2, (1, 1): 2, (2, 2): 2, (3, 3): 2}


def test_event_page_leads_with_the_live_status_once_the_draw_is_released(client):
    stage = golden_stage()
    page = text(client.get(urls(stage.event)["event"]))
    seat_url = reverse("public-seat", kwargs={"festival": stage.event.festival.slug, "event": stage.event.slug})
    assert page.index(seat_url) < page.index("Withdraw by")  # registration details move below
    assert page.index("game 1 in play") < page.index("Withdraw by")
    assert "minutes left" in page or "Play starts at" in page  # the round clock (R9), without JavaScript


def test_event_page_before_the_draw_leads_with_the_registration_details(client):
    event = make_event()
    page = text(client.get(urls(event)["event"]))
    assert "About this event" not in page
    assert page.index("Withdraw by") < page.index(urls(event)["public-find-player"])
