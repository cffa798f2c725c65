"""Hong Kong movement on the public pages (R8.2): from the moment a table's sheet is confirmed, the draw, the
table's page, the hall and a player's page say who moves to which table and who stays — the wrap from the last
table to table 1 in one sentence where it happens — computed by the one movement function
(tournament/formats/hongkong.py, `table_movement`). Also: the one-stage Hong Kong event is not "Round 1", and
two masked names alike at one table carry their player numbers.

Results go through the real services (submit, confirm)."""

import random
import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from public import rendered
from public.moves import LOT, STAYS, UP, moves_after
from public.snapshot import forget_snapshots
from scoring.services import conduct
from tests.factories import make_staff
from tests.scoring.helpers import chief_of, confirm, hong_kong, play_game, seated, text
from tournament.models import ConductRecord, Event
from tournament.services import seating

pytestmark = pytest.mark.django_db

WRAP = "The top two of the last table move up to table 1."


def url(event, name, **extra):
    return reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug, **extra})


def moves_shown(page: str) -> list[tuple[int, str]]:
    """(player number, what the page says of their move), in page order, from the draw page's list items."""
    found = []
    for item in re.findall(r'<li class="list-group-item.*?</li>', page, re.S):
        number = re.search(r'<span class="text-body-secondary stat">(\d+)</span>', item)
        move = re.search(r'data-move="[a-z]+">([^<]*)<', item)
        if number and move:
            found.append((int(number.group(1)), move.group(1).strip()))
    return found


def number_of(stage, registration_id) -> int:
    return stage.event.registrations.get(pk=registration_id).number


@pytest.fixture
def twelve():
    """12 players at 3 tables, 3 games; game 1 seated by player number (R8.2): table 3 holds players 9–12."""
    stage = hong_kong(12, games=3)
    return stage, chief_of(stage.event)


# ------------------------------------------------------------------ the public draw

def test_draw_shows_moves_as_soon_as_a_table_is_confirmed_r8_2(client, twelve):
    stage, chief = twelve
    event = stage.event
    before = text(client.get(url(event, "public-draw")))
    assert "Moves to table" not in before and "Stays at table" not in before
    # Table 1: seat 1 goes out, seat 2 has the smallest penalty → those two move to table 2; the others stay.
    confirm(stage, [0, 5, 20, 30], chief=chief, table=1)
    players = seated(stage, table=1)
    page = text(client.get(url(event, "public-draw")))
    shown = dict(moves_shown(page))
    assert shown == {number_of(stage, players[0]): "Moves to table 2", number_of(stage, players[1]): "Moves to table 2",
                     number_of(stage, players[2]): "Stays at table 1", number_of(stage, players[3]): "Stays at table 1"}
    assert WRAP not in page  # the last table has not finished
    # Table 3, the last: its top two go to table 1, and the page says why in one sentence.
    confirm(stage, [30, 20, 0, 5], chief=chief, table=3, winner=2)
    last = seated(stage, table=3)
    page = text(client.get(url(event, "public-draw")))
    shown = dict(moves_shown(page))
    assert shown[number_of(stage, last[2])] == shown[number_of(stage, last[3])] == "Moves to table 1"
    assert shown[number_of(stage, last[0])] == shown[number_of(stage, last[1])] == "Stays at table 3"
    assert page.count(WRAP) == 1
    assert not any(number_of(stage, p) in shown for p in seated(stage, table=2))  # table 2 is still playing


def test_the_moves_shown_are_the_seating_of_the_next_game_r8_2(client, twelve):
    """What the pages announce is where the next game seats everyone once the last table is confirmed."""
    stage, chief = twelve
    event = stage.event
    for table, values in ((1, [0, 5, 20, 30]), (2, [0, 40, 10, 30])):
        confirm(stage, values, chief=chief, table=table)
    confirm(stage, [30, 20, 0, 5], chief=chief, table=3, winner=2)  # … completes game 1
    # The draw now shows game 2; compare with what was announced, recomputed from the confirmed game 1.
    announced = moves_after(event, stage, 1, dict(enumerate(seating.player_ids(seating.game_draw(stage, 1)), 1)))
    game2 = {seat.registration_id: seat.table.number for seat in seating.seats(seating.game_draw(stage, 2))}
    assert len(announced) == 12
    for player, move in announced.items():
        assert game2[player] == (move.to if move.kind == UP else move.table), player
    page = text(client.get(url(event, "public-draw")))
    assert "game 2" in page and "Moves to table" not in page  # nobody of game 2 has finished yet


def test_the_last_game_moves_nobody(client):
    stage = hong_kong(8, games=2)
    chief = chief_of(stage.event)
    play_game(stage, 1, chief, random.Random(1))
    confirm(stage, [0, 5, 20, 30], chief=chief, game=2, table=1)
    page = text(client.get(url(stage.event, "public-draw")))
    assert "game 2" in page and "Moves to table" not in page and "Stays at table" not in page


def test_a_tie_on_the_move_cut_waits_for_the_lot_r7(client, twelve):
    stage, chief = twelve
    confirm(stage, [0, 10, 10, 30], chief=chief, table=2)  # seats 2 and 3 tie for the second place up
    tied = seated(stage, table=2)
    page = text(client.get(url(stage.event, "public-draw")))
    shown = dict(moves_shown(page))
    assert shown[number_of(stage, tied[0])] == "Moves to table 3"
    lot = "Tied for table 3: a lot decides"
    assert shown[number_of(stage, tied[1])] == shown[number_of(stage, tied[2])] == lot
    assert shown[number_of(stage, tied[3])] == "Stays at table 2"


def test_a_player_who_left_is_not_moved_r9(client, twelve):
    stage, chief = twelve
    event = stage.event
    confirm(stage, [0, 5, 20, 30], chief=chief, table=1)
    first, second, third, _fourth = seated(stage, table=1)
    conduct.record_conduct(event=event, registration=event.registrations.get(pk=second), note="left",
                           kind=ConductRecord.Kind.FORFEIT, stage=stage, game=1, actor=chief)
    shown = dict(moves_shown(text(client.get(url(event, "public-draw")))))
    # As the next game's seating will do: the table without the one who left, whose place goes to the third.
    assert number_of(stage, second) not in shown
    assert shown[number_of(stage, first)] == shown[number_of(stage, third)] == "Moves to table 2"


def test_hong_kong_stage_is_not_round_1_and_every_game_is_named(client, twelve):
    stage, _chief = twelve
    page = text(client.get(url(stage.event, "public-draw")))
    heading = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S).group(1)
    assert "Round 1" not in page and "Final" in heading and "game 1" in heading


# ------------------------------------------------------------------ a table's page, the hall, a player's page

def test_table_page_shows_its_moves_and_the_wrap(client, twelve):
    stage, chief = twelve
    confirm(stage, [30, 20, 0, 5], chief=chief, table=3, winner=2)
    page = text(client.get(url(stage.event, "public-table", number=3)))
    assert page.count("Moves to table 1") == 2 and page.count("Stays at table 3") == 2 and WRAP in page
    assert "game 1" in page and "Round 1" not in page


def test_hall_shows_the_moves_of_confirmed_tables(client, twelve):
    stage, chief = twelve
    confirm(stage, [0, 5, 20, 30], chief=chief, table=1)
    confirm(stage, [30, 20, 0, 5], chief=chief, table=3, winner=2)
    for name in ("public-hall", "public-hall-live"):
        page = text(client.get(url(stage.event, name)))
        assert page.count("Moves to table 2") == 2 and page.count("Moves to table 1") == 2, name
        assert "Stays at table" not in page and page.count(WRAP) == 1, name  # a glance: only who moves
        assert "Round 1" not in page


def test_player_page_says_where_a_confirmed_player_goes_before_the_next_game_is_seated(client, twelve):
    stage, chief = twelve
    event = stage.event
    confirm(stage, [30, 20, 0, 5], chief=chief, table=3, winner=2)
    last = seated(stage, table=3)
    mover = number_of(stage, last[2])
    for name in ("public-player", "public-player-live"):
        response = client.get(url(event, name, number=mover))
        nxt = response.context["card"].next
        assert (nxt.game, nxt.table, nxt.seat, nxt.came_from, nxt.moved) == (2, 1, 0, 3, UP)
        page = text(response)
        assert "Moves to table 1" in page and WRAP in page and "Round 1" not in page
        assert "Seats for the next game are released once every table has finished game 1." in page
    stayer = client.get(url(event, "public-player", number=number_of(stage, last[0])))
    assert (stayer.context["card"].next.table, stayer.context["card"].next.moved) == (3, STAYS)
    assert "Stays at table 3" in text(stayer) and WRAP not in text(stayer)
    waiting = client.get(url(event, "public-player", number=number_of(stage, seated(stage, table=2)[0])))
    assert waiting.context["card"].next.game == 1 and waiting.context["card"].next.moved == ""  # still playing


def test_player_page_tie_says_a_lot_decides(client, twelve):
    stage, chief = twelve
    confirm(stage, [0, 10, 10, 30], chief=chief, table=2)
    tied = number_of(stage, seated(stage, table=2)[1])
    response = client.get(url(stage.event, "public-player", number=tied))
    assert response.context["card"].next.moved == LOT
    assert "Tied for table 3: a lot decides" in text(response)


def test_player_page_after_the_wrap_explains_it(client, twelve):
    stage, chief = twelve
    play_game(stage, 1, chief, random.Random(2))
    came = [seat for seat in seating.seats(seating.game_draw(stage, 2), table=1)
            if seat.registration_id in set(seated(stage, table=3))]
    assert len(came) == 2
    page = text(client.get(url(stage.event, "public-player", number=came[0].registration.number)))
    assert "Moved up from table 3" in page and WRAP in page


# ------------------------------------------------------------------ masked names alike at one table

@pytest.fixture
def twins():
    """Masked names: players 1 and 2 (table 1) both show as 黃*晴; player 3 as 陳*文."""
    stage = hong_kong(8, games=3)
    event = stage.event
    Event.objects.filter(pk=event.pk).update(public_names=Event.PublicNames.MASKED)
    for number, name in ((1, "黃小晴"), (2, "黃美晴"), (3, "陳大文")):
        player = event.registrations.get(number=number).player
        player.name = name
        player.save()
    event.refresh_from_db()
    return stage


def test_masked_names_alike_at_a_table_carry_their_numbers(client, twins):
    stage = twins
    event = stage.event
    table = text(client.get(url(event, "public-table", number=1)))
    assert "黃*晴 (No. 1)" in table and "黃*晴 (No. 2)" in table and "陳*文 (No." not in table
    page = text(client.get(url(event, "public-player", number=3)))
    assert "黃*晴 (No. 1)" in page and "黃*晴 (No. 2)" in page
    assert "黃小晴" not in page and "黃美晴" not in page
    organiser = make_staff(event.festival, "organiser")
    client.force_login(organiser)
    cards = text(client.get(url(event, "draw-cards", draw=seating.game_draw(stage, 1).pk)))
    assert "黃*晴 (No. 1)" in cards and "黃*晴 (No. 2)" in cards


def test_masked_names_alike_among_a_played_game_s_tablemates(client, twins):
    stage = twins
    confirm(stage, [0, 5, 20, 30], chief=chief_of(stage.event), table=1)
    page = text(client.get(url(stage.event, "public-player", number=3)))
    games = page[page.index("Game, table and tablemates"):]
    assert "黃*晴 (No. 1)" in games and "黃*晴 (No. 2)" in games


# ------------------------------------------------------------------ constant queries

@pytest.mark.parametrize("players", [8, 64])
def test_draw_table_player_and_hall_queries_do_not_grow_with_the_players(client, django_assert_max_num_queries,
                                                                         players):
    stage = hong_kong(players, games=3)
    chief = chief_of(stage.event)
    tables = seating.game_draw(stage, 1).tables.count()
    for table in range(1, tables):  # every table but the last: game 1 still in play
        confirm(stage, [0, 5, 20, 30], chief=chief, table=table)
    event = stage.event
    bounds = {url(event, "public-draw"): 5, url(event, "public-table", number=1): 6,
              url(event, "public-hall"): 14, url(event, "public-hall-live"): 14,
              # a player's page also asks whether the results are final (3 queries)
              url(event, "public-player", number=1): 13, url(event, "public-player-live", number=players): 13}
    for address, bound in bounds.items():
        cache.clear()  # nothing rendered or computed for an earlier request
        rendered.forget()
        forget_snapshots()
        with django_assert_max_num_queries(bound):
            response = client.get(address)
        assert response.status_code == 200, address
        if "player" not in address:
            assert text(response).count("Moves to table 2") == 2, address
