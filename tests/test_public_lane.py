"""The public lane (public/lane.py): anonymous polls of the public pages skip the session, sign-in
and messages middleware; everyone else — a signed-in organiser, a form, a staff page — keeps the whole stack.
And the shared cache of the event row and version (public/cache.py) is dropped on a change."""

import pytest
from django.conf import settings
from django.test import RequestFactory
from django.urls import reverse

from public.lane import public_lane
from tests.factories import make_event, make_staff
from tournament.models import AuditEntry
from tournament.services.audit import SYSTEM, record

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("method", "path", "cookies", "expected"), [
    ("GET", "/f/fest/ev/standings/", {}, True),
    ("GET", "/f/fest/ev/standings/live/", {}, True),
    ("HEAD", "/f/fest/ev/standings/2/live/", {}, True),
    ("GET", "/f/fest/ev/player/12/live/", {}, True),
    ("GET", "/f/fest/ev/hall/live/", {}, True),
    ("GET", "/api/events/fest/ev/standings/", {}, True),
    ("GET", "/f/fest/ev/standings/live/", {settings.SESSION_COOKIE_NAME: "x"}, False),  # signed in, or may be
    ("POST", "/f/fest/ev/standings/live/", {}, False),
    ("GET", "/f/fest/ev/register/", {}, False),  # registration keeps the player's links in the session
    ("GET", "/f/fest/ev/player/", {}, False),
    ("GET", "/manage/", {}, False),
    ("GET", "/accounts/login/", {}, False),
    ("GET", "/t/token/", {}, False),
])
def test_only_anonymous_reads_of_the_public_pages_take_the_lane(method, path, cookies, expected):
    request = RequestFactory().generic(method, path)
    request.COOKIES.update(cookies)
    assert public_lane(request) is expected


def test_a_signed_in_organiser_still_gets_their_own_page_and_an_anonymous_phone_the_public_one(client):
    event = make_event()
    url = reverse("public-standings", kwargs={"festival": event.festival.slug, "event": event.slug})
    anonymous = client.get(url)
    assert anonymous.status_code == 200
    assert reverse("logout") not in anonymous.content.decode()
    assert "Cookie" in anonymous["Vary"] and "Accept-Language" in anonymous["Vary"]
    assert anonymous.has_header("Content-Security-Policy") and anonymous.has_header("X-Frame-Options")
    assert "csrftoken" in anonymous.cookies  # the language form's token still works without a session

    client.force_login(make_staff(event.festival, "organiser"))
    signed_in = client.get(url, HTTP_IF_NONE_MATCH=anonymous["ETag"])
    assert signed_in.status_code == 200 and signed_in["ETag"] != anonymous["ETag"]
    assert reverse("logout") in signed_in.content.decode()
    assert "private" in signed_in["Cache-Control"]


def test_an_anonymous_poll_sets_no_cookie_and_is_shareable_a_signed_in_one_is_private(client):
    event = make_event()
    url = reverse("public-standings-live", kwargs={"festival": event.festival.slug, "event": event.slug})
    response = client.get(url)
    assert response.status_code == 200 and not response.cookies
    assert "Cookie" in response["Vary"] and "Accept-Language" in response["Vary"]
    assert response["Cache-Control"] == "no-cache"  # a shared cache may keep it (deploy/nginx.conf)
    assert response.has_header("Content-Security-Policy")
    client.force_login(make_staff(event.festival, "organiser"))
    assert "private" in client.get(url)["Cache-Control"]


def test_a_record_of_the_event_drops_its_cached_version(client, django_assert_num_queries):
    event = make_event()
    url = reverse("public-standings-live", kwargs={"festival": event.festival.slug, "event": event.slug})
    first = client.get(url)
    with django_assert_num_queries(0):
        assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    record(actor=SYSTEM, action="stage.closed", event=event)  # any action the public sees
    assert AuditEntry.objects.filter(event=event).exists()
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


def test_a_renamed_event_is_not_served_from_the_cache_under_its_old_address(client):
    event = make_event()
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    assert client.get(reverse("public-standings-live", kwargs=kwargs)).status_code == 200
    old_slug, event.slug = event.slug, event.slug + "-renamed"
    event.save()
    assert client.get(reverse("public-standings-live", kwargs=kwargs)).status_code == 404, old_slug


def test_a_stored_page_gives_every_visitor_their_own_working_csrf_token():
    """Full public pages are rendered once per version; the language form's token is each visitor's own."""
    from django.test import Client

    from tournament.context_processors import CSRF_PLACEHOLDER

    event = make_event()
    url = reverse("public-standings", kwargs={"festival": event.festival.slug, "event": event.slug})
    tokens = []
    for _ in range(2):
        visitor = Client(enforce_csrf_checks=True)
        page = visitor.get(url)
        html = page.content.decode()
        assert page.status_code == 200 and CSRF_PLACEHOLDER not in html
        token = html.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
        tokens.append(token)
        switched = visitor.post(reverse("set_language"), {"language": "ko", "next": url, "csrfmiddlewaretoken": token})
        assert switched.status_code == 302  # the token matches this visitor's cookie
    assert tokens[0] != tokens[1]
    stranger = Client(enforce_csrf_checks=True)
    stranger.get(url)
    refused = stranger.post(reverse("set_language"), {"language": "ko", "next": url, "csrfmiddlewaretoken": "x" * 64})
    assert refused.status_code == 403
