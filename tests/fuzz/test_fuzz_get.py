"""Every page, download and JSON answer (the public API, the round clock) asked with hostile query strings
and headers: never a server error, never a raw tag from the query in a page, and a GET never
writes anything (only the session may change)."""

import os

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from public.snapshot import forget_snapshots
from tests.fuzz.coverage import route_patterns
from tests.fuzz.endpoints import EVERY_EVENT, Endpoint
from tests.fuzz.engine import LANGUAGES, check_answer, path_for, url_arguments, wrote
from tests.fuzz.values import hostile
from tests.fuzz.world import PEOPLE

pytestmark = pytest.mark.django_db

EXAMPLES = int(os.environ.get("FUZZ_GET_EXAMPLES", "4"))
# The query parameters the pages read, and a few they do not.
PARAMETERS = ["q", "page", "status", "sort", "stage", "game", "warnings", "table", "year", "event", "show", "number",
              "next", "lang", "format"]
HX_TARGETS = ["event-counts", "registrations-table", "board", "standings", "x", "<b>"]


@pytest.mark.parametrize("name", sorted(route_patterns()))
def test_hostile_queries_never_break_a_page_and_never_write(world, name):
    endpoint = Endpoint(name, events=EVERY_EVENT)

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.data())
    def example(data):
        draw = data.draw
        cache.clear()
        forget_snapshots()
        event = world.event(draw(st.sampled_from(EVERY_EVENT)))
        kwargs, _aim = url_arguments(draw, endpoint, world, event)
        person = draw(st.sampled_from(PEOPLE))
        query = draw(st.dictionaries(st.sampled_from(PARAMETERS), st.one_of(hostile, st.lists(hostile, max_size=2)),
                                     max_size=4))
        headers = {"HTTP_ACCEPT_LANGUAGE": draw(st.sampled_from(LANGUAGES)),
                   "HTTP_IF_NONE_MATCH": draw(st.sampled_from(["", "*", '"x"', 'W/"<script>"', "\x00" * 3]))}
        if draw(st.booleans()):
            headers.update(HTTP_HX_REQUEST="true", HTTP_HX_TARGET=draw(st.sampled_from(HX_TARGETS)))
        with transaction.atomic():
            client = Client()
            if world.user(person) is not None:
                client.force_login(world.user(person))
            path = path_for(name, kwargs)
            with CaptureQueriesContext(connection) as queries:
                response = client.get(path, query, **headers)
            what = f"GET {path} as {person} with {str(query)[:500]}"
            check_answer(response, what)
            writes = [q["sql"][:200] for q in queries if wrote([q])]
            assert not writes, f"{what}: a GET wrote {writes}"
            transaction.set_rollback(True)

    example()
