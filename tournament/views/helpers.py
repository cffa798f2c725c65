"""What every staff and public view uses: the festival or event from the URL (in its time zone), the one
permission check, the one way to run a service and answer (a message and a redirect, or an htmx fragment),
and the registration counts of an event list."""

from collections.abc import Callable
from functools import wraps
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django_htmx.http import HttpResponseClientRedirect

from ..models import Event, Festival, Registration
from ..permissions import ORGANISER, roles_at
from ..services.errors import ServiceError
from ..zone import use_festival_zone
from .errors import permission_denied


def get_festival(slug: str) -> Festival:
    festival = get_object_or_404(Festival, slug=slug)
    use_festival_zone(festival)
    return festival


def get_event(festival_slug: str, event_slug: str) -> Event:
    event = get_object_or_404(Event.objects.select_related("festival"), festival__slug=festival_slug, slug=event_slug)
    use_festival_zone(event.festival)
    return event


def query_text(request, name: str = "q", limit: int = 100) -> str:
    """A text the address carries (a search box's words, an event's slug), trimmed to `limit` characters and
    without NUL characters, which no name or slug holds and which PostgreSQL refuses in any text it compares
    (a server error otherwise)."""
    return request.GET.get(name, "").replace("\x00", "").strip()[:limit]


def with_counts(events):
    """`events` annotated with `registered_count`, `checked_in_count` and `waitlisted_count` (the festival and
    event pages; `Event.places_taken` reads them)."""
    registered = Q(registrations__status=Registration.Status.REGISTERED)
    return events.annotate(
        registered_count=Count("registrations", filter=registered),
        checked_in_count=Count("registrations", filter=registered & Q(registrations__checked_in_at__isnull=False)),
        waitlisted_count=Count("registrations", filter=Q(registrations__status=Registration.Status.WAITLISTED)),
    )


def staff_view(*roles: str, home: str):
    """Resolve the event (or, for a festival's own pages, the festival) from the URL and let in only that
    festival's staff holding one of `roles` (organisers hold all), checked on the server. The view is called as
    `view(request, event_or_festival, **kwargs)`; `request.is_organiser` tells pages which buttons to show.

    Someone not signed in goes to the sign-in page and comes back (to `home`, the URL name of the area's
    page, after a POST). A refused htmx request makes the browser reload (or go to the sign-in page) instead
    of swapping an error page into part of the page."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, festival, event=None, **kwargs):
            if event is None:
                place = festival = get_festival(festival)
                where = {"festival": festival.slug}
            else:
                place = get_event(festival, event)
                festival = place.festival
                where = {"festival": festival.slug, "event": place.slug}
            if not request.user.is_authenticated:
                back = request.get_full_path() if request.method == "GET" else reverse(home, kwargs=where)
                if request.htmx:
                    return HttpResponseClientRedirect(f"{reverse('login')}?{urlencode({'next': back})}")
                return redirect_to_login(back)
            held = roles_at(request.user, festival)
            request.is_organiser = ORGANISER in held
            if not (request.is_organiser or held.intersection(roles)):
                if request.htmx:
                    response = permission_denied(request)
                    response["HX-Refresh"] = "true"
                    return response
                raise PermissionDenied
            return view(request, place, **kwargs)

        return wrapper

    return decorate


def run_service(request, call: Callable, *, done: str | Callable, then: str | Callable,
                htmx: Callable | None = None):
    """Run one service call and answer it: its refusal, or `done` (text, or made from the call's result), as a
    message, and a redirect to `then` (a URL, or made from the result: None when it was refused). For an htmx
    request, `htmx(error=…, notice=…)` answers instead, with the message inside the fragment it renders."""
    try:
        result = call()
    except ServiceError as refusal:
        result, error, notice = None, refusal.message, ""
    else:
        error, notice = "", done(result) if callable(done) else done
    if htmx is not None and request.htmx:
        return htmx(error=error, notice=notice)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, notice)
    return redirect(then(result) if callable(then) else then)


def form_errors(form) -> str:
    """Every problem of an invalid form in one message, for pages that answer a POST with a redirect."""
    return " ".join(str(error) for errors in form.errors.values() for error in errors)
