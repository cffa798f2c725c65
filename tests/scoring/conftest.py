"""Fixtures of the scoring tests: a released first stage and the people and table link around it.

`stage` is `released_stage(8)`: a classic Busan event of 8 players, its first stage drawn (seed 1) and
released. A module or test asks for another with the `stage_of` marker, whose arguments are
`released_stage`'s: `pytestmark = pytest.mark.stage_of(players=16, game=Event.Game.WORD)`.
"""

import pytest

from scoring.models import TableLink
from tests.factories import make_staff, released_stage
from tournament.permissions import CHIEF_REFEREE, ORGANISER

DEFAULT_PLAYERS = 8


@pytest.fixture
def stage(request, db):
    marker = request.node.get_closest_marker("stage_of")
    return released_stage(**{"players": DEFAULT_PLAYERS, **(marker.kwargs if marker else {})})


@pytest.fixture
def chief(stage):
    """The festival's chief referee (a User: sign in with it, or wrap it in an Actor)."""
    return make_staff(stage.event.festival, CHIEF_REFEREE)


@pytest.fixture
def organiser(stage):
    """The festival's organiser (a User)."""
    return make_staff(stage.event.festival, ORGANISER)


@pytest.fixture
def link(stage):
    """The private link of table 1."""
    return TableLink.objects.create(event=stage.event, table_number=1)
