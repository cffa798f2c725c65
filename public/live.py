"""What every live public page shares: the event once per request, the ETag and 304, one rendering per change.

`live(page)` wraps a view of `public.urls.LIVE`: an ETag built from the event's version (public/version.py)
answers an unchanged page with a 304; a fragment (polled by htmx) is rendered once per version and language
and shared by every phone, a full page once per address; both are marked for the lane (public/lane.py).
"""

import hashlib

from django.http import Http404, HttpResponse
from django.middleware.csrf import get_token
from django.utils.cache import patch_cache_control
from django.views.decorators.http import condition

from tournament.context_processors import CSRF_PLACEHOLDER
from tournament.models import Event, Stage
from tournament.zone import use_festival_zone

from . import rendered
from .cache import public_event
from .lane import public_lane
from .version import etag_for

MAX_NUMBER = 100_000  # player and stage numbers above this cannot exist; answer 404 before the database


def event_of(request, festival: str, event: str) -> Event:
    """The event, fetched once per request (the ETag function and the view both need it)."""
    cached = getattr(request, "_public_event", None)
    if cached is None:  # else fetched by a middleware above (public/lane.py), for the ETag
        cached = request._public_event = public_event(festival, event)
    use_festival_zone(cached.festival)
    return cached


def page_etag(page: str):
    def etag(request, festival, event, **kwargs):
        request._public_etag = etag_for(event_of(request, festival, event), request, page, sorted(kwargs.items()))
        return request._public_etag
    return etag


def _shared(view):
    """Polled fragments: render once per version (and language) per worker, not once per phone.

    The key is the ETag, which changes with everything the fragment shows; fragments carry no CSRF token
    or anything else personal, so one rendering serves every phone."""
    def cached(request, *args, **kwargs):
        key = f"public-fragment:{request._public_etag}"
        content = rendered.get(key)
        if content is not None:
            return HttpResponse(content)
        response = view(request, *args, **kwargs)
        if response.status_code == 200:
            rendered.put(key, response.content)
        return response
    return cached


def _shared_page(view):
    """Full pages for anonymous phones: rendered once per version, language and address, not once per phone.

    Only requests in the public lane (anonymous, no session: no messages, no name in the header) are served
    from here. A page holds one personal thing, the language form's CSRF token, so it is stored with a
    placeholder (tournament/context_processors.py) and each answer gets its own token."""
    def cached(request, *args, **kwargs):
        if not public_lane(request):
            return view(request, *args, **kwargs)
        digest = hashlib.blake2b(request.get_full_path().encode(), digest_size=8).hexdigest()
        key = f"public-page:{request._public_etag}:{digest}"
        content = rendered.get(key)
        if content is None:
            request.csrf_placeholder = True
            try:
                response = view(request, *args, **kwargs)
            finally:  # a 404 page is rendered after this, with the visitor's own token
                del request.csrf_placeholder
            if response.status_code != 200:
                return response
            content = response.content
            rendered.put(key, content)
        return HttpResponse(content.replace(CSRF_PLACEHOLDER.encode(), get_token(request).encode()))
    return cached


def live(page: str, *, fragment: bool = False, etag=None):
    """ETag / If-None-Match → 304, and tell browsers to revalidate every time (the data changes).

    The ETag is the event's version's (`page_etag`) unless `etag` computes a finer one."""
    def decorate(view):
        conditional = condition(etag_func=etag or page_etag(page))(_shared(view) if fragment else _shared_page(view))

        def wrapped(request, *args, **kwargs):
            response = conditional(request, *args, **kwargs)
            # An anonymous fragment is the same for every phone of that language (it is shared above), so a
            # shared cache may keep it (deploy/nginx.conf, 1 s); a page carries the visitor's CSRF token and
            # anything signed in is personal.
            shareable = fragment and public_lane(request)
            patch_cache_control(response, no_cache=True, **({} if shareable else {"private": True}))
            return response
        wrapped.__name__ = view.__name__
        wrapped.__doc__ = view.__doc__
        wrapped.public_lane = True  # anonymous requests skip most of the stack (public/lane.py)
        if fragment:  # and an anonymous poll of an unchanged fragment gets its 304 before the stack
            wrapped.fragment_etag = etag or page_etag(page)
        return wrapped
    return decorate


def stage_of(event: Event, number: int) -> Stage:
    if not 1 <= number <= MAX_NUMBER:
        raise Http404
    stage = Stage.objects.filter(event=event, number=number).first()
    if stage is None:
        raise Http404
    return stage
