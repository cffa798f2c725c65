"""The printed table cards and draw sheet say which event, round and — where seats change every game (Hong Kong,
R8.2) — which game they are for, so a card left from an earlier game does not pass for the current one."""

import random
import re

import pytest
from django.urls import reverse

from tests.factories import make_staff, released_stage
from tests.scoring.helpers import chief_of, hong_kong, play_game, text
from tournament.services import seating

pytestmark = pytest.mark.django_db


def printed(client, stage, name, game=1):
    event = stage.event
    client.force_login(make_staff(event.festival, "organiser"))
    return text(client.get(reverse(name, kwargs={"festival": event.festival.slug, "event": event.slug,
                                                 "draw": seating.game_draw(stage, game).pk})))


def cards(page: str) -> list[str]:
    return re.findall(r'<section class="card table-card.*?</section>', page, re.S)


def round_line(card: str) -> str:
    return re.search(r"<p class=\"table-card-round\" data-round>(.*?)</p>", card, re.S).group(1).strip()


def test_hong_kong_cards_say_the_event_the_stage_and_the_game_r8_2(client):
    stage = hong_kong(12, games=3)
    page = printed(client, stage, "draw-cards")
    assert len(cards(page)) == 3
    for card in cards(page):
        assert stage.event.name in card and round_line(card) == "Final, game 1"
        assert "For game 1 only: the seating changes after every game." in card
    play_game(stage, 1, chief_of(stage.event), random.Random(1))  # game 2 is seated by the movement
    for card in cards(printed(client, stage, "draw-cards", game=2)):
        assert round_line(card) == "Final, game 2" and "For game 2 only" in card
    sheet = printed(client, stage, "draw-print", game=2)
    assert "Final, game 2" in sheet and "Round 1" not in sheet


def test_busan_cards_say_the_round_and_no_game(client):
    stage = released_stage(8)
    page = printed(client, stage, "draw-cards")
    assert len(cards(page)) == 2
    for card in cards(page):
        assert stage.event.name in card and round_line(card) == "Round 1"
        assert "game" not in card.lower().replace("table-card", "")


def test_a_one_game_hong_kong_event_has_no_game_to_tell(client):
    stage = hong_kong(8, games=1)
    for card in cards(printed(client, stage, "draw-cards")):
        assert round_line(card) == "Final" and "For game" not in card
