"""The timetable's slot names count their games in the language's plural forms: "1 game", never "1 games"."""

import pytest

from tests.factories import make_event
from tournament.models import Event
from tournament.schedule import PLAY, ROUND, label

pytestmark = pytest.mark.django_db


def test_a_round_of_one_game_says_one_game():
    event = make_event(stage_games=[3, 1])
    assert label(event, ROUND, 1) == "Round 1: 3 games"
    assert label(event, ROUND, 2) == "Round 2: 1 game"


def test_a_hong_kong_play_of_one_game_says_one_game():
    event = make_event(format=Event.Format.HONG_KONG, rotation_games=1)
    assert label(event, PLAY) == "Play: 1 game"
    event.rotation_games = 3
    assert label(event, PLAY) == "Play: 3 games"
