"""Fixtures of the tournament-app tests: one festival, one event in it, its organiser (`organiser`, and as the
services see them, `organiser_actor`), a desk volunteer (`desk`).

`festival` is "Busan 2030" (slug `busan-2030`); `event` is its event `open` ("Open") with `make_event`'s
defaults: on EVENT_DAY at 11:00, 128 places, registration open, check-in 10:30–11:00. A module or test
changes the event's fields with the `event_of` marker: `pytestmark = pytest.mark.event_of(capacity=2)`.
"""

import pytest

from tests.factories import make_event, make_festival, make_staff
from tournament.permissions import DESK, ORGANISER
from tournament.services.audit import Actor


@pytest.fixture
def festival(db):
    return make_festival(slug="busan-2030", name="Busan 2030")


@pytest.fixture
def event(request, festival):
    marker = request.node.get_closest_marker("event_of")
    return make_event(festival, slug="open", name="Open", **(marker.kwargs if marker else {}))


@pytest.fixture
def organiser(festival):
    """The festival's organiser (a User: sign in with it, or wrap it in an Actor)."""
    return make_staff(festival, ORGANISER)


@pytest.fixture
def organiser_actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def desk(event):
    """A desk volunteer of the festival, as the services see them."""
    return Actor(user=make_staff(event.festival, DESK))


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    return client
