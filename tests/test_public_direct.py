"""The fast road of an anonymous poll: the live public pages straight to their view (public/lane.py
PublicViewMiddleware), an unchanged fragment's 304 before the rest of the stack (NotModifiedMiddleware), the
event row and its version in one read of the shared cache
(public/cache.py), rendered pages kept in the worker too (public/rendered.py).
None of it may change what anyone gets: the same headers as the whole stack, the whole stack for anyone
with a session, a change shown at once."""

import re

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client, override_settings
from django.urls import reverse

from public import rendered
from tests.factories import make_event, make_registration, make_staff
from tournament.context_processors import CSRF_PLACEHOLDER
from tournament.services.audit import SYSTEM, record

pytestmark = pytest.mark.django_db

DIRECT = "public.lane.PublicViewMiddleware"
NOT_MODIFIED = "public.lane.NotModifiedMiddleware"
WITHOUT_DIRECT = [name for name in settings.MIDDLEWARE if name not in (DIRECT, NOT_MODIFIED)]
# What RFC 9110 (15.4.5) asks a 304 to carry (beside Date, which the server adds).
NOT_MODIFIED_HEADERS = ("ETag", "Cache-Control", "Vary")
INNER = "tests.test_public_direct.inner_marker"
TOKENS = re.compile(rb'(name="csrfmiddlewaretoken" value="|<meta name="csrf-token" content=")[^"]*"')  # last in the stack: tells whether the stack ran to the end


def inner_marker(get_response):
    def middleware(request):
        response = get_response(request)
        response["X-Inner"] = "ran"
        return response
    return middleware


def urls(event, number):
    kwargs = {"festival": event.festival.slug, "event": event.slug}
    return [reverse(name, kwargs=kwargs) for name in ("public-standings", "public-standings-live", "public-hall",
                                                       "public-hall-live")] + [
        reverse(name, kwargs={**kwargs, "number": number}) for name in ("public-player", "public-player-live")]


def comparable(response) -> dict:
    """Every header, the CSRF cookie's value aside (a new secret for every visitor without one)."""
    headers = {name: value for name, value in response.headers.items() if name != "X-Inner"}
    cookie = response.cookies.get(settings.CSRF_COOKIE_NAME)
    return {**headers, "cookies": sorted(response.cookies),
            "csrf cookie": cookie and {k: v for k, v in cookie.items() if k != "expires"}}


@pytest.mark.parametrize("language", ["en", "ko", "zh-hant"])
def test_the_direct_road_gives_the_same_headers_and_bodies_as_the_whole_stack(language):
    event = make_event()
    number = make_registration(event, number=7).number
    for url in urls(event, number):
        answers = {}
        for road, middleware in (("direct", [*settings.MIDDLEWARE, INNER]), ("stack", [*WITHOUT_DIRECT, INNER])):
            with override_settings(MIDDLEWARE=middleware):
                phone = Client(HTTP_ACCEPT_LANGUAGE=language)
                first = phone.get(url)
                again = phone.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
                answers[road] = (first, again)
        (direct, direct_304), (stack, stack_304) = answers["direct"], answers["stack"]
        assert direct.status_code == stack.status_code == 200, url
        assert direct_304.status_code == stack_304.status_code == 304, url
        assert comparable(direct) == comparable(stack), url
        if url.endswith("/live/"):  # a fragment: its 304 comes before the stack, with what a 304 must carry
            assert "X-Inner" not in direct_304 and stack_304["X-Inner"] == "ran", url
            assert all(direct_304[name] == stack_304[name] for name in NOT_MODIFIED_HEADERS), url
            assert all(stack_304.get(name) == value for name, value in direct_304.headers.items()), url
        else:
            assert comparable(direct_304) == comparable(stack_304), url
        for name in ("ETag", "Vary", "Cache-Control", "Content-Security-Policy", "X-Frame-Options",
                     "Content-Language", "X-Content-Type-Options", "Referrer-Policy"):
            assert direct.has_header(name), (url, name)
        # A full page differs only in the visitor's own CSRF token (masked anew in every answer anyway).
        assert TOKENS.sub(rb"\1", direct.content) == TOKENS.sub(rb"\1", stack.content), url


def test_only_anonymous_phones_take_the_direct_road():
    event = make_event()
    url = urls(event, make_registration(event, number=3).number)[1]
    with override_settings(MIDDLEWARE=[*settings.MIDDLEWARE, INNER]):
        phone = Client()
        assert "X-Inner" not in phone.get(url)  # straight to the view
        organiser = Client()
        organiser.force_login(make_staff(event.festival, "organiser"))
        signed_in = organiser.get(url)
        assert signed_in["X-Inner"] == "ran" and "private" in signed_in["Cache-Control"]
        # Any session cookie (a form's flash message, a registration's links) takes the whole stack too.
        visitor = Client()
        visitor.cookies[settings.SESSION_COOKIE_NAME] = "anything"
        assert visitor.get(url)["X-Inner"] == "ran"
        assert phone.post(url)["X-Inner"] == "ran"  # and any other method (405, through the whole stack)
        # Other public addresses keep the whole stack: the player search, the registration.
        find = reverse("public-find-player", kwargs={"festival": event.festival.slug, "event": event.slug})
        assert phone.get(find)["X-Inner"] == "ran"


def test_an_unknown_event_or_player_gets_the_usual_not_found_page():
    event = make_event()
    for url in (urls(event, 99)[4], "/f/no-such/festival/standings/live/"):
        direct = Client().get(url)
        with override_settings(MIDDLEWARE=WITHOUT_DIRECT):
            stack = Client().get(url)
        assert direct.status_code == stack.status_code == 404
        assert TOKENS.sub(rb"\1", direct.content) == TOKENS.sub(rb"\1", stack.content)
        assert dict(direct.headers) == dict(stack.headers)
        # The language form of a 404 page works: it carries the visitor's token, not a stored page's placeholder.
        assert CSRF_PLACEHOLDER.encode() not in direct.content


def test_an_unchanged_poll_reads_the_shared_cache_once(client, monkeypatch):
    event = make_event()
    url = urls(event, 1)[1]
    first = client.get(url)
    client.get(url)  # the worker has seen the address: the event's id is its hint now
    reads, real_get, real_get_many = [], cache.get, cache.get_many

    def get(*args, **kwargs):
        if not inside:  # the memory cache's get_many asks get for each key; Redis sends one MGET
            reads.append("get")
        return real_get(*args, **kwargs)

    def get_many(*args, **kwargs):
        reads.append("get_many")
        inside.append(1)
        try:
            return real_get_many(*args, **kwargs)
        finally:
            inside.pop()

    inside = []
    monkeypatch.setattr(cache, "get", get)
    monkeypatch.setattr(cache, "get_many", get_many)
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert reads == ["get_many"]
    reads.clear()
    assert client.get(url).status_code == 200  # already rendered: kept in the worker too
    assert reads == ["get_many"]


def test_a_page_kept_in_the_worker_still_changes_with_the_event():
    """The worker's copy is keyed by the ETag: a confirmation, or the organiser hiding the standings, shows on
    the next poll, exactly as without it."""
    event = make_event(public_standings=True)
    url = urls(event, 1)[1]
    phone = Client()
    shown = phone.get(url)
    cache.clear()  # the shared cache lost it: the worker still has it, under the same ETag
    assert phone.get(url).content == shown.content
    event.public_standings = False
    event.save()
    hidden = phone.get(url, HTTP_IF_NONE_MATCH=shown["ETag"])
    assert hidden.status_code == 200 and hidden["ETag"] != shown["ETag"]
    with override_settings(MIDDLEWARE=WITHOUT_DIRECT):
        rendered.forget()
        cache.clear()
        assert Client().get(url).content == hidden.content
    record(actor=SYSTEM, action="stage.closed", event=event)
    assert phone.get(url, HTTP_IF_NONE_MATCH=hidden["ETag"]).status_code == 200


def test_the_worker_keeps_its_copies_within_bounds(monkeypatch):
    monkeypatch.setattr(rendered, "MAX_BYTES", 1000)
    for n in range(20):
        rendered.put(f"test-rendered:{n}", b"x" * 100)
    assert rendered._size <= 1000 and len(rendered._kept) == 10
    assert rendered.get("test-rendered:19") == b"x" * 100
    cache.clear()
    assert rendered.get("test-rendered:0") is None  # the oldest went first
    rendered.forget()
    assert rendered.get("test-rendered:19") is None


def test_only_the_live_addresses_are_answered_directly():
    """The lane is the list of live addresses (public/urls.py): the API goes straight to its view like the pages;
    a page that is not polled (the player search) and an address that is not the site's go through the whole
    stack."""
    event = make_event()
    api = f"/api/events/{event.festival.slug}/{event.slug}/standings/"
    search = f"/f/{event.festival.slug}/{event.slug}/player/?q=1"
    with override_settings(MIDDLEWARE=[*settings.MIDDLEWARE, INNER]):
        assert "X-Inner" not in Client().get(api)
        assert Client().get(search)["X-Inner"] == "ran"
        assert Client().get(f"/api/events/{event.festival.slug}/")["X-Inner"] == "ran"  # no such address: 404


def test_only_a_matching_anonymous_poll_of_a_fragment_is_answered_before_the_stack():
    event = make_event()
    number = make_registration(event, number=4).number
    standings, player = urls(event, number)[1], urls(event, number)[5]
    with override_settings(MIDDLEWARE=[*settings.MIDDLEWARE, INNER]):
        phone = Client(HTTP_ACCEPT_LANGUAGE="ko")
        etag = phone.get(standings)["ETag"]
        for sent in (etag, f"W/{etag}", f'"other", {etag}', "*"):
            answer = phone.get(standings, HTTP_IF_NONE_MATCH=sent)
            assert answer.status_code == 304 and "X-Inner" not in answer, sent
        changed = phone.get(standings, HTTP_IF_NONE_MATCH='"an-old-version"')
        assert changed.status_code == 200 and changed["ETag"] == etag
        # The ETag names the language: a Chinese phone sending the Korean page's ETag gets its own page.
        chinese = Client(HTTP_ACCEPT_LANGUAGE="zh-hant").get(standings, HTTP_IF_NONE_MATCH=etag)
        assert chinese.status_code == 200 and chinese["ETag"] != etag
        # Any session, a signed-in organiser, a full page and an unknown player take the whole stack.
        visitor = Client()
        visitor.cookies[settings.SESSION_COOKIE_NAME] = "anything"
        assert visitor.get(standings, HTTP_IF_NONE_MATCH="*")["X-Inner"] == "ran"
        organiser = Client()
        organiser.force_login(make_staff(event.festival, "organiser"))
        assert organiser.get(standings, HTTP_IF_NONE_MATCH="*")["X-Inner"] == "ran"
        page = urls(event, number)[0]
        assert phone.get(page, HTTP_IF_NONE_MATCH=phone.get(page)["ETag"]).status_code == 304
        missing = phone.get(urls(event, 99)[5], HTTP_IF_NONE_MATCH="*")
        assert missing.status_code == 404  # the view says so, as without a 304 road
        assert phone.get(player, HTTP_IF_NONE_MATCH=phone.get(player)["ETag"]).status_code == 304


def test_a_change_answers_the_next_poll_with_the_new_fragment():
    event = make_event(public_standings=True)
    url = urls(event, 1)[1]
    phone = Client()
    etag = phone.get(url)["ETag"]
    assert phone.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    event.public_standings = False
    event.save()
    hidden = phone.get(url, HTTP_IF_NONE_MATCH=etag)
    assert hidden.status_code == 200 and hidden["ETag"] != etag


def test_a_fragment_the_304_road_passed_on_is_rendered_in_the_festivals_time_zone(monkeypatch):
    """The road above the stack fetched the event (and its zone); the stack resets the zone before the view."""
    from django.utils import timezone

    from public.views import standings as public
    from tests.factories import make_festival

    event = make_event(make_festival(timezone="Asia/Hong_Kong"))
    url = urls(event, 1)[1]
    zones, real_render = [], public.render

    def render(*args, **kwargs):
        zones.append(timezone.get_current_timezone_name())
        return real_render(*args, **kwargs)

    monkeypatch.setattr(public, "render", render)
    assert Client().get(url, HTTP_IF_NONE_MATCH='"an-old-version"').status_code == 200
    assert zones == ["Asia/Hong_Kong"]


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "127.0.0.1@evil.example", "bad host"])
def test_a_poll_for_a_host_the_site_does_not_serve_is_refused_before_any_304(host):
    """The host is checked exactly as Django checks it (ALLOWED_HOSTS) before the 304 road answers: a poll that
    names another host gets the stack's 400, whatever ETag it sends."""
    event = make_event()
    fragment = urls(event, make_registration(event, number=2).number)[1]
    etag = Client().get(fragment)["ETag"]
    for sent in (etag, "*"):
        answer = Client(HTTP_HOST=host).get(fragment, HTTP_IF_NONE_MATCH=sent)
        assert answer.status_code == 400, (host, sent)
        assert "ETag" not in answer
    assert Client().get(fragment, HTTP_IF_NONE_MATCH=etag).status_code == 304  # an allowed host still gets it
