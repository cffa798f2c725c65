"""The public lane: what an anonymous phone's poll of a live public page goes through.

Hundreds of phones poll the standings, player and hall pages and the API, anonymously. For them the session,
sign-in and messages middleware only find out that there is no session. A request takes the lane only when it
is a GET or HEAD of one of the addresses in `public.urls.LIVE` (its view is marked `public_lane`) and carries
no session cookie — exactly the requests those middleware would treat as anonymous anyway — so staff pages,
signed-in users and every form keep the whole stack. (CSRF stays for all: public pages carry the language
form's token.) The whole way of a poll is told in public/__init__.py.
"""

from django.conf import settings
from django.contrib.auth import middleware as auth
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.core.exceptions import DisallowedHost
from django.http import Http404, HttpResponseNotModified
from django.urls import Resolver404, get_resolver
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags, quote_etag


def public_lane(request) -> bool:
    """A GET or HEAD without a session cookie of an address in `public.urls.LIVE`."""
    lane = getattr(request, "_public_lane", None)
    if lane is None:
        lane = request._public_lane = (request.method in ("GET", "HEAD")
                                       and settings.SESSION_COOKIE_NAME not in request.COOKIES
                                       and not hasattr(request, "urlconf")
                                       and _lane_views.match(request) is not None)
    return lane


class _SkippedInLane:
    """Mixed into one of Django's middleware (a subclass, so Django's checks still find it): requests in the
    public lane bypass it; every other request goes through it unchanged."""

    def __call__(self, request):
        if public_lane(request):
            self.on_skip(request)
            return self.get_response(request)
        return super().__call__(request)

    def on_skip(self, request) -> None:
        pass


class SessionMiddleware(_SkippedInLane, sessions.SessionMiddleware):
    def __call__(self, request):
        response = super().__call__(request)
        if public_lane(request):
            # The answer still depends on cookies (the language cookie; a session would make it personal).
            patch_vary_headers(response, ("Cookie",))
        return response


class AuthenticationMiddleware(_SkippedInLane, auth.AuthenticationMiddleware):
    def on_skip(self, request) -> None:
        request.user = AnonymousUser()  # what the whole stack finds without a session cookie


class MessageMiddleware(_SkippedInLane, messages.MessageMiddleware):
    pass


class _LaneViews:
    """Addresses resolved once per process (per URLconf): path → the lane's view (marked `public_lane` by
    public/live.py) and its arguments, or None for any other address."""

    MAX_PATHS = 4096

    def __init__(self):
        self._resolver = None
        self._matches: dict = {}

    def match(self, request):
        resolver = get_resolver()  # a new one when the URLconf setting changes (tests)
        if resolver is not self._resolver:
            self._resolver, self._matches = resolver, {}
        match = self._matches.get(request.path_info, _UNSEEN)
        if match is _UNSEEN:
            try:
                match = resolver.resolve(request.path_info)
            except Resolver404:
                match = None
            if match is not None and not getattr(match.func, "public_lane", False):
                match = None
            if len(self._matches) >= self.MAX_PATHS:
                self._matches.clear()
            self._matches[request.path_info] = match
        return match


_UNSEEN = object()
_lane_views = _LaneViews()


class PublicViewMiddleware:
    """Requests in the public lane go from here straight to their view, their address resolved once per
    process instead of once per request. Only what lies below this middleware is left out, and it has nothing
    to do for them: rate limits (forms) and django-axes (sign-in). Everything above it — security headers, CSP,
    Vary, language, CSRF, X-Frame-Options — runs as for any request, and an error the view raises gets the
    usual page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not public_lane(request):
            return self.get_response(request)
        match = _lane_views.match(request)
        request.resolver_match = match
        return match.func(request, *match.args, **match.kwargs)


class NotModifiedMiddleware:
    """An anonymous phone polling a live fragment that has not changed gets its 304 here, before the rest of
    the stack: the answer to most polls, so what it skips is most of a poll's cost (docs/PERFORMANCE.md).

    Only fragments (views with `fragment_etag`, public/live.py), only in the public lane (anonymous,
    no session), only with If-None-Match, and only when the ETag the view itself computes — in the language
    the locale middleware would choose — matches; anything else goes down the whole stack as before. The 304
    carries what RFC 9110 (15.4.5) asks of one: the ETag, Cache-Control and Vary that the full stack sends for
    that fragment (tests/test_public_direct.py compares them); a browser keeps the other headers of the
    response it stored, and a fragment is read by htmx, never shown as a page of its own. A request for a host
    the site does not serve (ALLOWED_HOSTS, checked as Django checks it) goes down the stack, which answers 400."""

    VARY = "Accept-Language, Cookie"

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "HTTP_IF_NONE_MATCH" in request.META and public_lane(request) and _allowed_host(request):
            match = _lane_views.match(request)
            etag_of = getattr(match.func, "fragment_etag", None) if match is not None else None
            if etag_of is not None:
                response = self._not_modified(request, etag_of, match)
                if response is not None:
                    return response
        return self.get_response(request)

    def _not_modified(self, request, etag_of, match):
        translation.activate(translation.get_language_from_request(request))
        request.user = AnonymousUser()
        try:
            etag = etag_of(request, *match.args, **match.kwargs)
        except Http404:
            return None
        finally:
            timezone.deactivate()  # the view's festival zone: no answer of this request is rendered here
        tags = {tag.removeprefix("W/") for tag in parse_etags(request.META["HTTP_IF_NONE_MATCH"])}
        if not etag or (quote_etag(etag) not in tags and "*" not in tags):  # weak comparison, as Django's
            return None
        response = HttpResponseNotModified()
        response["ETag"] = quote_etag(etag)
        response["Cache-Control"] = "no-cache"
        response["Vary"] = self.VARY
        return response


def _allowed_host(request) -> bool:
    try:
        request.get_host()
    except DisallowedHost:
        return False
    return True
