"""The event's lock reads the event afresh; a festival read with the event is kept, not read again
(tournament/services/locking.py)."""

import pytest
from django.db import connection, transaction

from tests.factories import make_event
from tournament.models import Event, Festival
from tournament.services.locking import lock_event

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("shared", [False, True])
def test_the_lock_reads_the_event_afresh_and_keeps_the_festival_read_with_it(django_assert_num_queries, shared):
    event = make_event()
    in_hand = Event.objects.select_related("festival").get(pk=event.pk)
    Event.objects.filter(pk=event.pk).update(name="Renamed after the page read it")
    lock_statement = 1 if shared and connection.features.has_select_for_update else 0  # FOR SHARE
    with transaction.atomic():
        with django_assert_num_queries(1 + lock_statement):
            locked = lock_event(in_hand, shared=shared)
        assert locked.name == "Renamed after the page read it" and locked is not in_hand
        assert locked.festival is in_hand.festival
        # Without a festival in hand (an id, or an event read alone) the festival comes in the same statement.
        for given in (event.pk, Event.objects.get(pk=event.pk)):
            with django_assert_num_queries(1 + lock_statement):
                locked = lock_event(given, shared=shared)
                assert locked.festival.name == event.festival.name
            assert isinstance(locked.festival, Festival)
