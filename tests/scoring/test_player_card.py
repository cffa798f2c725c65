"""A player's live fragment is keyed by what it shows (public/card.py), not by the event's version:
equal ETags must mean equal pages, and a confirmation that leaves a player's page alone leaves its ETag alone."""

import random

import pytest
from django.core.cache import cache
from django.urls import reverse

from public import rendered
from public.snapshot import forget_snapshots
from tests.factories import released_stage
from tests.scoring.helpers import chief_of, confirm, hong_kong
from tournament.models import Event
from tournament.services import seating

pytestmark = pytest.mark.django_db


def live_url(event, number):
    return reverse("public-player-live", kwargs={"festival": event.festival.slug, "event": event.slug,
                                                 "number": number})


def fresh_fragment(client, event, number):
    """Rendered anew: nothing kept from an earlier answer may hide a stale page behind an old ETag."""
    rendered.forget()
    forget_snapshots()
    cache.clear()
    response = client.get(live_url(event, number), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response["ETag"], response.content


def play_table_by_table(stage, games, rng, after_each):
    chief = chief_of(stage.event)
    for game in games:
        draw = seating.game_draw(stage, game)
        for table in draw.tables.order_by("number"):
            values = [0, *rng.sample(range(1, 60), table.seats.count() - 1)]
            confirm(stage, values, chief=chief, game=game, table=table.number)
            after_each()


def check_etags_name_the_page(client, stage, games):
    event = stage.event
    numbers = sorted(event.registrations.values_list("number", flat=True))
    seen: dict[str, bytes] = {}
    bodies: dict[bytes, str] = {}
    kept = 0
    last: dict[int, str] = {}

    def look():
        nonlocal kept
        for number in numbers:
            etag, body = fresh_fragment(client, event, number)
            assert seen.setdefault(etag, body) == body, "one ETag, two different pages"
            assert bodies.setdefault(body, etag) == etag, "one page, two ETags"
            kept += last.get(number) == etag
            last[number] = etag

    look()
    play_table_by_table(stage, games, random.Random(7), look)
    return kept


@pytest.mark.slow
def test_busan_equal_etags_mean_equal_fragments_and_unchanged_players_keep_theirs_r8_1(client):
    stage = released_stage(16, seed=4)
    kept = check_etags_name_the_page(client, stage, games=(1, 2))
    # 16 players looked at after each of 8 confirmations: most confirmations leave some pages alone
    # (the players of tables not yet played in game 1, those ranked above the table just confirmed).
    assert kept > 16 * 8 // 4


def test_hong_kong_equal_etags_mean_equal_fragments_with_the_movement_r8_2(client):
    stage = hong_kong(8, games=2)
    check_etags_name_the_page(client, stage, games=(1,))
    bodies = [fresh_fragment(client, stage.event, n)[1] for n in range(1, 9)]
    assert sum(b"Moved up from table" in body for body in bodies) == 4  # the top two of each table
    assert sum(b"Stays at table" in body for body in bodies) == 4
    check_etags_name_the_page(client, stage, games=(2,))  # game 2's seating came from the movement


def test_a_confirmation_at_another_table_answers_304_to_a_player_not_yet_playing(client):
    stage = released_stage(16, seed=2)
    event, chief = stage.event, chief_of(stage.event)
    third_table = seating.seats(seating.game_draw(stage, 1), table=3)[0].registration
    url = live_url(event, third_table.number)
    etag = client.get(url, HTTP_HX_REQUEST="true")["ETag"]
    confirm(stage, [0, 5, 7, 9], chief=chief, game=1, table=1)
    assert client.get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=etag).status_code == 304
    confirm(stage, [0, 5, 7, 9], chief=chief, game=1, table=3)  # now their own table
    assert client.get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_a_tablemates_name_masked_changes_the_players_etag(client):
    from tests.scoring.helpers import LINK
    from tournament.services.public_name import set_shown_masked

    stage = released_stage(8, seed=1)
    event = stage.event
    one, two = seating.seats(seating.game_draw(stage, 1), table=1)[:2]
    etag, body = fresh_fragment(client, event, one.registration.number)
    assert two.registration.player.name.encode() in body
    set_shown_masked(player=two.registration.player, masked=True, actor=LINK)
    etag_after, body_after = fresh_fragment(client, event, one.registration.number)
    assert two.registration.player.name.encode() not in body_after
    assert etag_after != etag


def test_every_players_fragment_after_the_first_costs_no_query(client, django_assert_num_queries):
    stage = released_stage(32, seed=5)
    event = stage.event
    confirm(stage, [0, 5, 7, 9], chief=chief_of(event), game=1, table=1)
    client.get(live_url(event, 1), HTTP_HX_REQUEST="true")  # the event, its version and the book, once
    with django_assert_num_queries(0):
        for number in range(2, 33):
            assert client.get(live_url(event, number), HTTP_HX_REQUEST="true").status_code == 200


def test_settings_still_change_the_etag(client):
    stage = released_stage(8, seed=1)
    event = stage.event
    etag, _ = fresh_fragment(client, event, 1)
    Event.objects.filter(pk=event.pk).update(public_draw=False)
    etag_after, body = fresh_fragment(client, event, 1)
    assert etag_after != etag
    assert b"Next game" not in body
