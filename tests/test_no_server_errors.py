"""No request of any kind returns a server error (DESIGN.md): every route, GET and POST,
anonymous and as an organiser, with real and nonsense arguments and hostile form data."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.csp_markup import csp_problems, is_html
from tests.factories import make_event, make_registration, make_staff

pytestmark = pytest.mark.django_db

HOSTILE_POST = {
    "name": "<script>alert(1)</script>", "contact": "' OR 1=1 --", "birth_year": "99999999999999999999",
    "q": "\x00", "seed": "-1", "first": "1e309", "second": "[]", "reason": "x" * 10_000,
    "override": "🙂", "method": "../../etc/passwd", "next": "https://evil.example/", "registration": "NaN",
    "confirm": "on", "language": "xx",
}


def routes(resolver=None, prefix=""):
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if "admin" in str(entry.pattern):
                continue
            yield from routes(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def fill(pattern: str, values: dict) -> str:
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values.get(m.group(1), m.group(0))), pattern)


@pytest.fixture
def world():
    event = make_event()
    registration = make_registration(event)
    return {
        "real": {"festival": event.festival.slug, "event": event.slug, "registration": registration.pk,
                 "registration_id": registration.pk, "token": registration.player.token, "number": 1,
                 "stage": 1, "draw": 1, "fmt": "csv", "key": "abc", "game": 1, "stage_id": 1, "table": 1,
                 "sheet_id": 1, "uidb64": "MQ"},
        "nonsense": {"festival": "nope", "event": "nope", "registration": 2**63, "registration_id": 0,
                     "token": "x" * 64, "number": 99999999, "stage": 0, "draw": 2**40, "fmt": "exe",
                     "key": "zz", "game": 2**40, "stage_id": -1, "table": 0, "sheet_id": 2**63, "uidb64": "%%%"},
        "organiser": make_staff(event.festival, "organiser"),
    }


@pytest.mark.slow
@pytest.mark.parametrize("who", ["anonymous", "organiser"])
@pytest.mark.parametrize("values", ["real", "nonsense"])
def test_every_route_answers_without_a_server_error(client, world, who, values):
    if who == "organiser":
        client.force_login(world["organiser"])
    checked = 0
    for pattern, _entry in routes():
        path = fill(pattern, world[values])
        assert "<" not in path, f"add the argument of {pattern} to the fixture"
        for response in (client.get(path), client.get(path, {"q": "\x00" * 3, "page": "-1", "status": "🙂"}),
                         client.post(path, HOSTILE_POST)):
            assert response.status_code < 500, (path, response.status_code)
            # Error and refusal pages too: nothing in them may need what the Content-Security-Policy blocks.
            problems = csp_problems(response.content.decode()) if is_html(response) else []
            assert not problems, (path, problems)
        checked += 1
    assert checked > 20
