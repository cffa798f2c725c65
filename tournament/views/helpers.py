"""Small pieces every view area uses: fetching a festival or event by slug, activating its time zone, counting
its registrations."""

from functools import wraps
from urllib.parse import urlencode

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from django_htmx.http import HttpResponseClientRedirect

from ..models import Event, Festival, Registration
from ..permissions import ORGANISER, roles_at
from .errors import permission_denied


def get_festival(slug: str) -> Festival:
    festival = get_object_or_404(Festival, slug=slug)
    timezone.activate(festival.tzinfo)
    return festival


def get_event(festival_slug: str, event_slug: str) -> Event:
    event = get_object_or_404(Event.objects.select_related("festival"), festival__slug=festival_slug, slug=event_slug)
    timezone.activate(event.festival.tzinfo)
    return event


def with_counts(events):
    """`events` annotated with `registered_count` and `waitlisted_count` (the festival and event pages)."""
    return events.annotate(
        registered_count=Count("registrations", filter=Q(registrations__status=Registration.Status.REGISTERED)),
        waitlisted_count=Count("registrations", filter=Q(registrations__status=Registration.Status.WAITLISTED)),
    )


def staff_view(*roles: str, home: str):
    """Resolve the event from the URL and let in only its festival's staff holding one of `roles`
    (organisers hold all), checked on the server. The view is called as `view(request, event, **kwargs)`;
    `request.is_organiser` tells pages which buttons to show.

    A refused htmx request makes the browser reload (or go to the sign-in page) instead of swapping an error
    page into part of the page; `home` is the URL name to come back to after signing in from a POST."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, festival, event, **kwargs):
            event = get_event(festival, event)
            if not request.user.is_authenticated:
                home_url = reverse(home, kwargs={"festival": event.festival.slug, "event": event.slug})
                back = request.get_full_path() if request.method == "GET" else home_url
                if request.htmx:
                    return HttpResponseClientRedirect(f"{reverse('login')}?{urlencode({'next': back})}")
                return redirect_to_login(back)
            held = roles_at(request.user, event.festival)
            request.is_organiser = ORGANISER in held
            if not (request.is_organiser or held.intersection(roles)):
                if request.htmx:
                    response = permission_denied(request)
                    response["HX-Refresh"] = "true"
                    return response
                raise PermissionDenied
            return view(request, event, **kwargs)

        return wrapper

    return decorate
